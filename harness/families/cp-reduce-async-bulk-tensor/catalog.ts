/**
 * cp.reduce.async.bulk.tensor: PTX ISA 9.4 9.7.10.28.5.4 (excerpt cp-reduce-async-bulk-tensor.md, ../shared/ptx-spec-newer in CI;
 * 9.7.9.25.5.3 in 9.1, the same table and rules). The element type is not spelled: "The type of each
 * tensor data element ... is specified in Tensor-map", so it is a descriptor slot (variant ids end in
 * `(f32)`); ptxas never sees it, and the .redOp x type table is for the hardware to honour, not for
 * ptxas to check. 9.4 added .im2col_no_offs::w and the .override qualifiers (sm_107f family) in a new
 * syntax line; the older line is a 9.1-9.2 row (9.7.9.25.5.3, `cache-policy`) and a 9.3 row
 * (9.7.9.26.5.3, the same line with the operand renamed `cache_policy`).
 */
import { cite } from '../../catalog/cite.js';
import type { FamilyDef } from '../../catalog/types.js';

const FAM = 'cp.reduce.async.bulk.tensor';
const c = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/tensor', part, quote);
/** The 9.0-9.2 text (section 9.7.9.25.5.3) and the 9.3 text (9.7.9.26.5.3), as the same file quotes them. */
const e92 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/tensor-9.2', part, quote);
const e93 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/tensor-9.3', part, quote);
const S = 'Syntax';
const T = 'Valid combinations table';
const DIMS = ['1d', '2d', '3d', '4d', '5d'];
const OPS = ['add', 'min', 'max', 'inc', 'dec', 'and', 'or', 'xor'];
const HINT = ['', 'L2::cache_hint'];
/** Element types the table names (the tensor map's; .b32/.b64 travel as 32/64-bit unsigned maps). */
export const TENSOR_TYPES = ['u32', 's32', 'u64', 's64', 'f32', 'f16', 'bf16', 'b32', 'b64'];
const SYNTAX =
  'cp.reduce.async.bulk.tensor.dim.dst.src.redOp{.load_mode}.completion_mechanism{.level::cache_hint}{.override::global_address}{.override_attribute} [tensorMap{, gAddrToOverride}{, attributeOverrideInfo}, tensorCoords], [srcMem] {,cache_policy}';
const SYNTAX_91 =
  'cp.reduce.async.bulk.tensor.dim.dst.src.redOp{.load_mode}.completion_mechanism{.level::cache_hint} [tensorMap, tensorCoords], [srcMem] {,cache-policy}';
const SYNTAX_93 =
  'cp.reduce.async.bulk.tensor.dim.dst.src.redOp{.load_mode}.completion_mechanism{.level::cache_hint} [tensorMap, tensorCoords], [srcMem] {,cache_policy}';
const SM107F = [{ kind: 'family' as const, name: 'sm_107f' }];
const base = { dim: DIMS, dst: ['global'], src: ['shared::cta'], op: OPS, completion: ['bulk_group'], hint: HINT, type: TENSOR_TYPES };

export const cpReduceAsyncBulkTensor: FamilyDef = {
  id: FAM,
  head: FAM,
  specFile: '../ptx-spec-newer/cp-reduce-async-bulk-tensor.md',
  slots: [
    { name: 'dim', values: DIMS, cite: c(S, '.dim = { .1d, .2d, .3d, .4d, .5d }') },
    { name: 'dst', values: ['global'], cite: c(S, '.dst = { .global }') },
    { name: 'src', values: ['shared::cta'], cite: c(S, '.src = { .shared::cta }') },
    { name: 'op', values: OPS, cite: c(S, '.redOp = { .add, .min, .max, .inc, .dec, .and, .or, .xor}') },
    {
      name: 'load_mode',
      values: ['', 'tile', 'im2col_no_offs', 'im2col_no_offs::w'],
      cite: c(S, '.load_mode = { .tile, .im2col_no_offs, .im2col_no_offs::w }'),
    },
    { name: 'completion', values: ['bulk_group'], cite: c(S, '.completion_mechanism = { .bulk_group }') },
    { name: 'hint', values: HINT, cite: c(S, SYNTAX) },
    { name: 'override_addr', values: ['', 'override::global_address'], cite: c(S, SYNTAX) },
    {
      name: 'override_attr',
      values: ['', 'override::global_dim', 'override::global_dim_stride'],
      cite: c(S, '.override_attribute = { .override::global_dim, .override::global_dim_stride }'),
    },
    {
      name: 'type',
      values: TENSOR_TYPES,
      descriptor: 'the tensor map',
      cite: c('Description', 'The type of each tensor data element in the source and the destination tensor is specified in Tensor-map.'),
    },
  ],
  forms: [
    {
      id: `${FAM}.form.tile`,
      syntax: SYNTAX_91,
      slots: { ...base, load_mode: ['', 'tile', 'im2col_no_offs'] },
      operands: ['tensor', 'srcMem', 'policy'],
      cite: e92(S, `${SYNTAX_91} / .load_mode = { .tile, .im2col_no_offs }`),
      editions: { until: '9.2' },
    },
    {
      id: `${FAM}.form.tile-9.3`,
      syntax: SYNTAX_93,
      slots: { ...base, load_mode: ['', 'tile', 'im2col_no_offs'] },
      operands: ['tensor', 'srcMem', 'policy'],
      // the excerpt gives 9.3's line as "the 9.2 syntax, with cache-policy renamed to cache_policy": the quote is the part both share
      cite: e93(
        S,
        'cp.reduce.async.bulk.tensor.dim.dst.src.redOp{.load_mode}.completion_mechanism{.level::cache_hint} [tensorMap, tensorCoords], [srcMem] / .load_mode = { .tile, .im2col_no_offs }',
      ),
      editions: { from: '9.3', until: '9.3' },
    },
    {
      id: `${FAM}.form.override`,
      syntax: SYNTAX,
      slots: {
        ...base,
        load_mode: ['', 'tile', 'im2col_no_offs', 'im2col_no_offs::w'],
        override_addr: ['', 'override::global_address'],
        override_attr: ['', 'override::global_dim', 'override::global_dim_stride'],
      },
      operands: ['tensor', 'srcMem', 'policy'],
      cite: c(S, SYNTAX),
      editions: { from: '9.4' },
    },
  ],
  tables: [
    {
      id: `${FAM}.op-type`,
      text: ".redOp x element type (the tensor map's), the valid combinations table",
      appliesTo: {},
      cite: c(T, 'The following table describes the valid combinations of .redOp and element type:'),
      rows: [
        {
          values: { op: ['add'], type: ['u32', 's32', 'u64', 'f32', 'f16', 'bf16'] },
          basis: 'table',
          cite: c(T, '| .add | .u32, .s32, .u64, .f32, .f16, .bf16 |'),
        },
        {
          values: { op: ['min', 'max'], type: ['u32', 's32', 'u64', 's64', 'f16', 'bf16'] },
          basis: 'table',
          cite: c(T, '| .min, .max | .u32, .s32, .u64, .s64, .f16, .bf16 |'),
        },
        { values: { op: ['inc', 'dec'], type: ['u32'] }, basis: 'table', cite: c(T, '| .inc, .dec | .u32 |') },
        { values: { op: ['and', 'or', 'xor'], type: ['b32', 'b64'] }, basis: 'table', cite: c(T, '| .and, .or, .xor | .b32, .b64 |') },
      ],
    },
    {
      id: `${FAM}.im2col-dims`,
      text: "im2col load modes need at least a 3-dimensional tensor (the sentence names .im2col, which is not one of this instruction's load modes)",
      appliesTo: { load_mode: ['im2col_no_offs', 'im2col_no_offs::w'] },
      cite: c('Description', 'In .im2col mode, the tensor has to be at least 3-dimensional.'),
      rows: [
        { values: { dim: ['3d', '4d', '5d'] }, basis: 'description', cite: c('Description', 'In .im2col mode, the tensor has to be at least 3-dimensional.') },
        {
          values: { dim: ['1d', '2d'] },
          basis: 'description',
          ambiguity:
            'The only dimension rule names ".im2col mode", which this instruction does not have; whether it binds .im2col_no_offs (and .im2col_no_offs::w) is not said.',
          cite: c('Description', 'In .im2col mode, the tensor has to be at least 3-dimensional.'),
        },
      ],
    },
  ],
  ambiguities: [],
  defaults: [
    {
      slot: 'load_mode',
      spelled: '',
      implies: 'tile',
      text: 'no .load_mode: .tile',
      cite: c('Description', 'If .load_mode is not specified, it defaults to .tile.'),
    },
  ],
  requirements: [
    {
      id: `${FAM}.req.introduced`,
      feature: FAM,
      when: {},
      ptx: '8.0',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'Introduced in PTX ISA version 8.0. / Requires sm_90 or higher.'),
    },
    {
      id: `${FAM}.req.override`,
      feature: '.override::global_address / .override_attribute',
      when: { override_addr: ['override::global_address'] },
      ptx: '9.4',
      targets: SM107F,
      editions: { from: '9.4' },
      cite: c(
        'PTX ISA Notes',
        'Support for qualifiers .override::global_address and .override_attribute introduced in PTX ISA version 9.4. / sm_107f or higher in the same family',
      ),
    },
    {
      id: `${FAM}.req.override-attr`,
      feature: '.override::global_address / .override_attribute',
      when: { override_attr: ['override::global_dim', 'override::global_dim_stride'] },
      ptx: '9.4',
      targets: SM107F,
      editions: { from: '9.4' },
      cite: c(
        'PTX ISA Notes',
        'Support for qualifiers .override::global_address and .override_attribute introduced in PTX ISA version 9.4. / sm_107f or higher in the same family',
      ),
    },
    {
      id: `${FAM}.req.im2col-w`,
      feature: '.im2col_no_offs::w',
      when: { load_mode: ['im2col_no_offs::w'] },
      ptx: '9.4',
      targets: SM107F,
      editions: { from: '9.4' },
      cite: c('PTX ISA Notes', 'Support for qualifier .im2col_no_offs::w introduced in PTX ISA version 9.4. / sm_107f or higher in the same family'),
    },
  ],
  errata: [
    {
      example: 'cp.reduce.async.bulk.tensor.3d.global.shared::cta.xor.im2col.bulk_group [tensorMap2, {tc0, tc1, tc2}], [sMem2];',
      violates: [`${FAM}.grammar.unknown-qualifier`],
      finding: "Example uses .im2col, which is not in this instruction's .load_mode set { .tile, .im2col_no_offs, .im2col_no_offs::w }.",
    },
  ],
  // the overrides change where the box lands, not the reduction: neighbours are built without them
  fanout: ['override_addr', 'override_attr'],
};
