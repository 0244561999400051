/**
 * atom: PTX ISA 9.7.13.5 (../shared/ptx-spec/atom.md). One row per rule; every row cites the
 * sentence it encodes.
 */
import { cite } from '../../catalog/cite.js';
import type { FamilyDef } from '../../catalog/types.js';
import {
  HALF_TYPES,
  SCALAR_TYPES,
  SCOPES,
  SHARED_SPACES,
  cacheHintSpaceTable,
  memorySpaceDefaults,
  scopedAtomicRequirements,
  vectorSpaceTable,
  noftzRequiredTable,
  noftzOnlyHalfTable,
  noftzF64Default,
  scalarTableRows,
} from '../shared/atomic-rmw.js';

const c = (part: Parameters<typeof cite>[1], quote: string) => cite('atom.md', part, quote);

const SEM = ['', 'relaxed', 'acquire', 'release', 'acq_rel'];
const SPACE = ['', 'global', ...SHARED_SPACES];
const ALL_OPS = ['and', 'or', 'xor', 'cas', 'exch', 'add', 'inc', 'dec', 'min', 'max'];
const HINT = ['', 'L2::cache_hint'];
const DST = ['', '_'];
const SYNTAX = 'Syntax';
/** PTX ISA 9.4 text (the excerpt editions-9.2-9.4.md: ../shared/ptx-spec-newer in CI; not kept in the repository). */
const e94 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/atom', part, quote);
/** PTX ISA 9.3 text (same file). */
const e93 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/atom-9.3', part, quote);
/** Ops of the 9.1-9.2 `.op` set without .cas (its own form), and of 9.3's (.cas and .exch have their own lines). */
const OPS_91 = ALL_OPS.filter((o) => o !== 'cas');
const OPS_93 = ALL_OPS.filter((o) => o !== 'cas' && o !== 'exch');

export const atom: FamilyDef = {
  id: 'atom',
  head: 'atom',
  specFile: 'atom.md',
  slots: [
    { name: 'sem', values: SEM, cite: c(SYNTAX, '.sem = { .relaxed, .acquire, .release, .acq_rel };') },
    { name: 'scope', values: ['', ...SCOPES], cite: c(SYNTAX, '.scope = { .cta, .cluster, .gpu, .sys };') },
    { name: 'space', values: SPACE, cite: c(SYNTAX, '.space = { .global, .shared{::cta, ::cluster} };') },
    { name: 'op', values: ALL_OPS, cite: c(SYNTAX, '.op = { .and, .or, .xor, .cas, .exch, .add, .inc, .dec, .min, .max };') },
    { name: 'noftz', values: ['', 'noftz'], cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.f16 d, [a], b{, cache-policy};') },
    { name: 'hint', values: HINT, cite: c(SYNTAX, '.level::cache_hint = { .L2::cache_hint };') },
    { name: 'vec', values: ['', 'v2', 'v4', 'v8'], cite: c(SYNTAX, '.vec_16_bit = { .v2, .v4, .v8 } .vec_32_bit = { .v2, .v4 };') },
    {
      name: 'type',
      values: [...SCALAR_TYPES, 'b16', 'b128', ...HALF_TYPES],
      cite: c(SYNTAX, '~ .type = { .b32, .b64, .u32, .u64, .s32, .s64, .f32, .f64 }; plus .cas.b16, .b128 and the .noftz half types'),
    },
    { name: 'd', values: DST, operand: true, cite: c('Notes', 'Simple reductions may be specified by using the bit bucket destination operand _.') },
  ],
  forms: [
    {
      id: 'atom.form.scalar',
      syntax: 'atom{.sem}{.scope}{.space}.op{.level::cache_hint}.type d, [a], b{, cache-policy};',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: OPS_91, hint: HINT, type: SCALAR_TYPES, d: DST },
      operands: ['d', 'a', 'b', 'policy'],
      cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.op{.level::cache_hint}.type d, [a], b{, cache-policy};'),
      editions: { until: '9.2' }, // 9.3 takes .cas and .exch out of .op into lines of their own
    },
    {
      id: 'atom.form.scalar.9.3',
      syntax: 'atom{.sem}{.scope}{.space}.op{.level::cache_hint}.type d, [a], b{, cache_policy}; (.op without .cas and .exch, PTX ISA 9.3)',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: OPS_93, hint: HINT, type: SCALAR_TYPES, d: DST },
      operands: ['d', 'a', 'b', 'policy'],
      cite: e93(
        SYNTAX,
        'atom{.sem}{.scope}{.space}.op{.level::cache_hint}.type d, [a], b{, cache_policy}; / .op = { .and, .or, .xor, .add, .inc, .dec, .min, .max };',
      ),
      editions: { from: '9.3' },
    },
    {
      id: 'atom.form.cas',
      syntax: 'atom{.sem}{.scope}{.space}.cas.type1 d, [a], b, c; (PTX ISA 9.3)',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: ['cas'], type: ['b16', 'b32', 'b64', 'b128'], d: DST },
      operands: ['d', 'a', 'b', 'c'],
      cite: e93(SYNTAX, 'atom{.sem}{.scope}{.space}.cas.type1 d, [a], b, c; / .type1 = { .b16, .b32, .b64, .b128 };'),
      editions: { from: '9.3' },
    },
    {
      id: 'atom.form.exch',
      syntax: 'atom{.sem}{.scope}{.space}.exch{.level::cache_hint}.type2 d, [a], b {, cache_policy}; (PTX ISA 9.3)',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: ['exch'], hint: HINT, type: ['b32', 'b64', 'b128'], d: DST },
      operands: ['d', 'a', 'b', 'policy'],
      cite: e93(SYNTAX, 'atom{.sem}{.scope}{.space}.exch{.level::cache_hint}.type2 d, [a], b {, cache_policy}; / .type2 = { .b32, .b64, .b128 };'),
      editions: { from: '9.3' },
    },
    {
      id: 'atom.form.scalar-cas',
      editions: { until: '9.2' }, // 9.3: atom.form.cas
      syntax: 'atom{.sem}{.scope}{.space}.op.type d, [a], b, c;',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: ['cas'], type: SCALAR_TYPES, d: DST },
      operands: ['d', 'a', 'b', 'c'],
      cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.op.type d, [a], b, c;'),
    },
    {
      id: 'atom.form.cas-b16',
      editions: { until: '9.2' }, // 9.3: atom.form.cas
      syntax: 'atom{.sem}{.scope}{.space}.cas.b16 d, [a], b, c;',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: ['cas'], type: ['b16'], d: DST },
      operands: ['d', 'a', 'b', 'c'],
      cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.cas.b16 d, [a], b, c;'),
    },
    {
      id: 'atom.form.cas-b128',
      editions: { until: '9.2' }, // 9.3: atom.form.cas
      syntax: 'atom{.sem}{.scope}{.space}.cas.b128 d, [a], b, c;',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: ['cas'], type: ['b128'], d: DST },
      operands: ['d', 'a', 'b', 'c'],
      cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.cas.b128 d, [a], b, c;'),
    },
    {
      id: 'atom.form.exch-b128',
      editions: { until: '9.2' }, // 9.3: atom.form.exch
      syntax: 'atom{.sem}{.scope}{.space}.exch{.level::cache_hint}.b128 d, [a], b {, cache-policy};',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: ['exch'], hint: HINT, type: ['b128'], d: DST },
      operands: ['d', 'a', 'b', 'policy'],
      cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.exch{.level::cache_hint}.b128 d, [a], b {, cache-policy};'),
    },
    {
      id: 'atom.form.add-noftz-half',
      editions: { until: '9.3' }, // 9.4 folds the four lines into .type3
      syntax: 'atom{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.{f16,f16x2,bf16,bf16x2} d, [a], b{, cache-policy};',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: ['add'], noftz: ['noftz'], hint: HINT, type: HALF_TYPES, d: DST },
      operands: ['d', 'a', 'b', 'policy'],
      cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.f16 d, [a], b{, cache-policy};'),
    },
    {
      id: 'atom.form.add-noftz-type3',
      syntax:
        'atom{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.type3 d, [a], b{, cache_policy}; (.type3 = .f16, .f16x2, .bf16, .bf16x2, .f32: PTX ISA 9.4)',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: SPACE, op: ['add'], noftz: ['noftz'], hint: HINT, type: [...HALF_TYPES, 'f32'], d: DST },
      operands: ['d', 'a', 'b', 'policy'],
      cite: e94(
        SYNTAX,
        'atom{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.type3 d, [a], b{, cache_policy}; / .type3 = { .f16, .f16x2, .bf16, .bf16x2, .f32 };',
      ),
      editions: { from: '9.4' },
    },
    {
      id: 'atom.form.vector-f32-noftz',
      syntax: 'atom{.sem}{.scope}{.global}.add{.noftz}{.level::cache_hint}.vec_32_bit.f32 d, [a], b{, cache_policy}; (PTX ISA 9.4)',
      slots: {
        sem: SEM,
        scope: ['', ...SCOPES],
        space: ['', 'global'],
        op: ['add'],
        noftz: ['', 'noftz'],
        hint: HINT,
        vec: ['v2', 'v4'],
        type: ['f32'],
        d: DST,
      },
      operands: ['d', 'a', 'b', 'policy'],
      cite: e94(SYNTAX, 'atom{.sem}{.scope}{.global}.add{.noftz}{.level::cache_hint}.vec_32_bit.f32 d, [a], b{, cache_policy};'),
      editions: { from: '9.4' },
    },
    {
      id: 'atom.form.vector-f32',
      editions: { until: '9.3' }, // 9.4's line adds {.noftz}: atom.form.vector-f32-noftz
      syntax: 'atom{.sem}{.scope}{.global}.add{.level::cache_hint}.vec_32_bit.f32 d, [a], b{, cache-policy};',
      slots: { sem: SEM, scope: ['', ...SCOPES], space: ['', 'global'], op: ['add'], hint: HINT, vec: ['v2', 'v4'], type: ['f32'], d: DST },
      operands: ['d', 'a', 'b', 'policy'],
      cite: c(SYNTAX, 'atom{.sem}{.scope}{.global}.add{.level::cache_hint}.vec_32_bit.f32 d, [a], b{, cache-policy};'),
    },
    {
      id: 'atom.form.vector-half',
      syntax: 'atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_16_bit.half_word_type d, [a], b{, cache-policy};',
      slots: {
        sem: SEM,
        scope: ['', ...SCOPES],
        space: ['', 'global'],
        op: ['add', 'min', 'max'],
        noftz: ['noftz'],
        hint: HINT,
        vec: ['v2', 'v4', 'v8'],
        type: ['f16', 'bf16'],
        d: DST,
      },
      operands: ['d', 'a', 'b', 'policy'],
      cite: c(SYNTAX, 'atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_16_bit.half_word_type d, [a], b{, cache-policy};'),
    },
    {
      id: 'atom.form.vector-packed',
      syntax: 'atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_32_bit.packed_type d, [a], b{, cache-policy};',
      slots: {
        sem: SEM,
        scope: ['', ...SCOPES],
        space: ['', 'global'],
        op: ['add', 'min', 'max'],
        noftz: ['noftz'],
        hint: HINT,
        vec: ['v2', 'v4'],
        type: ['f16x2', 'bf16x2'],
        d: DST,
      },
      operands: ['d', 'a', 'b', 'policy'],
      cite: c(SYNTAX, 'atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_32_bit.packed_type d, [a], b{, cache-policy};'),
    },
  ],
  tables: [
    {
      id: 'atom.op-type',
      text: "scalar .op x .type: bit-size ops take .b types, integer ops .u/.s types, floating-point .add .f types (PTX ISA 9.1-9.2, the Description's operation classes); from 9.3 the scalar type/operation table (Table 35, 41 in 9.4), where .s64 takes .min/.max only and .inc/.dec .u32 only",
      appliesTo: { vec: [''] },
      cite: c(
        'Description',
        'The bit-size operations are .and, .or, .xor, .cas (compare-and-swap), and .exch (exchange). / The integer operations are .add, .inc, .dec, .min, .max.',
      ),
      editionCites: [
        { editions: { from: '9.3' }, cite: e94('Scalar table', 'shows the valid combinations of types and atomic operations for scalar atom instructions.') },
      ],
      rows: [
        {
          editions: { until: '9.2' },
          values: { op: ['and', 'or', 'xor', 'cas', 'exch'], type: ['b32', 'b64'] },
          basis: 'description',
          cite: c('Description', 'The bit-size operations are .and, .or, .xor, .cas (compare-and-swap), and .exch (exchange).'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['cas'], type: ['b16', 'b128'] },
          basis: 'grammar',
          cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.cas.b16 d, [a], b, c; atom{.sem}{.scope}{.space}.cas.b128 d, [a], b, c;'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['exch'], type: ['b128'] },
          basis: 'grammar',
          cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.exch{.level::cache_hint}.b128 d, [a], b {, cache-policy};'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['add'], type: ['u32', 's32', 'u64'] },
          basis: 'description',
          cite: c('PTX ISA Notes', 'The integer operations are .add, ... / 64-bit atom.global.{add,cas,exch} introduced in PTX ISA 1.2.'),
        },
        {
          values: { op: ['add'], type: ['s64'] },
          basis: 'grammar',
          editions: { until: '9.2' }, // 9.3's scalar table decides: .s64 takes .min and .max only
          ambiguity:
            'The .type set lists .s64 for every .op and the Description calls .add an integer operation, but no table or note confirms add.s64 (the notes speak of "64-bit atom.global.add" without a sign).',
          cite: c(SYNTAX, '.type = { .b32, .b64, .u32, .u64, .s32, .s64, .f32, .f64 };'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['add'], type: ['f32', 'f64'] },
          basis: 'description',
          cite: c('Description', 'The floating-point operation .add operation rounds to nearest even.'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['add'], type: HALF_TYPES },
          basis: 'grammar',
          cite: c(SYNTAX, 'atom{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.f16 d, [a], b{, cache-policy};'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['inc', 'dec'], type: ['u32'] },
          basis: 'description',
          cite: c('Examples', 'atom.global.acquire.sys.inc.u32 ans, [gbl], %r0;'),
        },
        {
          values: { op: ['inc', 'dec'], type: ['u64', 's32', 's64'] },
          basis: 'grammar',
          editions: { until: '9.2' }, // 9.3's scalar table decides: .inc and .dec on .u32 only
          ambiguity:
            'The .type set admits .u64/.s32/.s64 with .inc/.dec and the Description calls them integer operations returning "a result in the range [0..b]", but no table, note or example shows a 64-bit or signed inc/dec.',
          cite: c('Description', 'The .inc and .dec operations return a result in the range [0..b].'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['min', 'max'], type: ['u32', 's32', 'u64', 's64'] },
          basis: 'description',
          cite: c('PTX ISA Notes', '64-bit atom.{and,or,xor,min,max} introduced in PTX ISA 3.1.'),
        },
        ...scalarTableRows(e93, e94, [
          { values: { op: ['cas'], type: ['b16'] }, basis: 'table', cite: e94('Scalar table', '.b16 | Not supported | Not supported | .cas') },
          {
            values: { op: ['and', 'or', 'xor', 'exch', 'cas'], type: ['b32', 'b64'] },
            basis: 'table',
            cite: e94(
              'Scalar table',
              '.b32 | Not supported | Not supported | .and, .or, .xor, .exch, .cas / .b64 | Not supported | Not supported | .and, .or, .xor, .exch, .cas',
            ),
          },
          { values: { op: ['exch', 'cas'], type: ['b128'] }, basis: 'table', cite: e94('Scalar table', '.b128 | Not supported | Not supported | .exch, .cas') },
        ]),
      ],
    },
    {
      id: 'atom.vector-op-type',
      text: 'vector qualifier x type x op (the vector table)',
      appliesTo: { vec: ['v2', 'v4', 'v8'] },
      cite: c(
        'Vector table',
        'For atom with vector type, the supported combinations of vector qualifier and types, and atomic operations supported on these combinations are depicted in the following table',
      ),
      rows: [
        {
          values: { vec: ['v2', 'v4', 'v8'], type: ['f16', 'bf16'], op: ['add', 'min', 'max'] },
          basis: 'table',
          cite: c('Vector table', '~ .f16/bf16 column: .v2, .v4, .v8 -> .add, .min, .max'),
        },
        {
          values: { vec: ['v2', 'v4'], type: ['f16x2', 'bf16x2'], op: ['add', 'min', 'max'] },
          basis: 'table',
          cite: c('Vector table', '~ .f16x2/bf16x2 column: .v2, .v4 -> .add, .min, .max; .v8 -> Not supported'),
        },
        {
          values: { vec: ['v2', 'v4'], type: ['f32'], op: ['add'] },
          basis: 'table',
          cite: c('Vector table', '~ .f32 column: .v2, .v4 -> .add; .v8 -> Not Supported'),
        },
      ],
    },
    vectorSpaceTable(
      'atom',
      c('Description', 'atom with vector type may be used only with .global space and with generic addressing where the address points to .global space.'),
    ),
    cacheHintSpaceTable(
      'atom',
      c(
        'Description',
        'The qualifier .level::cache_hint is only supported for .global state space and for generic addressing where the address points to the .global state space.',
      ),
    ),
    noftzRequiredTable(
      'atom',
      c('Description', 'atom.add.f16, atom.add.f16x2, atom.add.bf16 and atom.add.bf16x2 operation requires the .noftz qualifier'),
      e93('Description', 'atom.add.f16, atom.add.f16x2, atom.add.bf16 and atom.add.bf16x2 operations require the .noftz qualifier'),
    ),
    noftzOnlyHalfTable(
      'atom',
      c(SYNTAX, '~ .noftz appears only in the .f16/.f16x2/.bf16/.bf16x2 forms of the grammar'),
      e94(SYNTAX, '.type3 = { .f16, .f16x2, .bf16, .bf16x2, .f32 };'),
    ),
    {
      id: 'atom.bit-bucket',
      text: 'the bit bucket _ as destination: simple reductions',
      appliesTo: { d: ['_'] },
      cite: c('Notes', 'Simple reductions may be specified by using the bit bucket destination operand _.'),
      rows: [
        {
          values: { op: ['and', 'or', 'xor', 'add', 'inc', 'dec', 'min', 'max'], vec: [''] },
          basis: 'description',
          cite: c('Notes', 'Simple reductions may be specified by using the bit bucket destination operand _.'),
        },
        {
          values: { op: ['cas', 'exch'] },
          basis: 'inferred',
          ambiguity: 'The Notes allow _ for "simple reductions"; .cas and .exch are not reductions, and the text neither allows nor forbids _ for them.',
          cite: c('Notes', 'Simple reductions may be specified by using the bit bucket destination operand _.'),
        },
        {
          values: { vec: ['v2', 'v4', 'v8'] },
          basis: 'inferred',
          ambiguity:
            'For vector atom "operands d and b are brace-enclosed vector expressions"; the text does not say whether a single _ may stand for the whole vector d.',
          cite: c(
            'Description',
            'For atom with vector type, operands d and b are brace-enclosed vector expressions, size of which is equal to the size of vector qualifier.',
          ),
        },
      ],
    },
  ],
  ambiguities: [],
  defaults: [
    {
      slot: 'sem',
      spelled: '',
      implies: 'relaxed',
      text: 'no .sem means .relaxed',
      cite: c('Description', 'If the .sem qualifier is absent, .relaxed is assumed by default.'),
    },
    {
      slot: 'scope',
      spelled: '',
      implies: 'gpu',
      text: 'no .scope means .gpu',
      cite: c('Description', 'If the .scope qualifier is absent, .gpu scope is assumed by default.'),
    },
    noftzF64Default(e94('Scalar table', '.f64 | Not supported | .add (noftz by default) | Not supported')),
    ...memorySpaceDefaults(
      c('Description', 'If no state space is given, perform the memory accesses using Generic Addressing.'),
      c('Description', 'If no sub-qualifier is specified with .shared state space, then ::cta is assumed by default.'),
    ),
    { slot: 'd', spelled: '', implies: 'register', text: 'd is a register (or a brace-enclosed vector of registers)', cite: c(SYNTAX, 'd, [a], b') },
  ],
  requirements: [
    ...scopedAtomicRequirements('atom', c),
    {
      id: 'atom.req.global',
      feature: 'atom.global',
      when: { space: ['global'] },
      ptx: '1.1',
      targets: [{ kind: 'min-sm', sm: 11 }],
      cite: c('PTX ISA Notes', '32-bit atom.global introduced in PTX ISA version 1.1. / atom.global requires sm_11 or higher.'),
    },
    {
      id: 'atom.req.shared',
      feature: 'atom.shared',
      when: { space: SHARED_SPACES },
      ptx: '1.2',
      targets: [{ kind: 'min-sm', sm: 12 }],
      cite: c('PTX ISA Notes', 'atom.shared and 64-bit atom.global.{add,cas,exch} introduced in PTX ISA 1.2. / atom.shared requires sm_12 or higher.'),
    },
    {
      id: 'atom.req.global-64-add-cas-exch',
      feature: '64-bit atom.global.{add,cas,exch}',
      when: { space: ['global', ''], op: ['add', 'cas', 'exch'], type: ['b64', 'u64', 's64'] },
      ptx: '1.2',
      targets: [{ kind: 'min-sm', sm: 12 }],
      cite: c('PTX ISA Notes', '64-bit atom.global.{add,cas,exch} introduced in PTX ISA 1.2. / require sm_12 or higher.'),
    },
    {
      id: 'atom.req.shared-64-add-cas-exch',
      feature: '64-bit atom.shared.{add,cas,exch}',
      when: { space: SHARED_SPACES, op: ['add', 'cas', 'exch'], type: ['b64', 'u64', 's64'] },
      ptx: '2.0',
      targets: [{ kind: 'min-sm', sm: 20 }],
      cite: c('PTX ISA Notes', 'atom.add.f32 and 64-bit atom.shared.{add,cas,exch} introduced in PTX ISA 2.0. / require sm_20 or higher.'),
    },
    {
      id: 'atom.req.64-logic-minmax',
      feature: '64-bit atom.{and,or,xor,min,max}',
      when: { op: ['and', 'or', 'xor', 'min', 'max'], type: ['b64', 'u64', 's64'] },
      ptx: '3.1',
      targets: [{ kind: 'min-sm', sm: 32 }],
      cite: c('PTX ISA Notes', '64-bit atom.{and,or,xor,min,max} introduced in PTX ISA 3.1. / require sm_32 or higher.'),
    },
    {
      id: 'atom.req.add-f32',
      feature: 'atom.add.f32',
      when: { op: ['add'], type: ['f32'] },
      ptx: '2.0',
      targets: [{ kind: 'min-sm', sm: 20 }],
      cite: c('PTX ISA Notes', 'atom.add.f32 ... introduced in PTX ISA 2.0. / atom.add.f32 requires sm_20 or higher.'),
    },
    {
      id: 'atom.req.add-f64',
      feature: 'atom.add.f64',
      when: { op: ['add'], type: ['f64'] },
      ptx: '5.0',
      targets: [{ kind: 'min-sm', sm: 60 }],
      cite: c('PTX ISA Notes', 'atom.add.f64 introduced in PTX ISA 5.0. / atom.add.f64 requires sm_60 or higher.'),
    },
    {
      id: 'atom.req.noftz-f16x2',
      feature: 'atom.add.noftz.f16x2',
      when: { op: ['add'], type: ['f16x2'], vec: [''] },
      ptx: '6.2',
      targets: [{ kind: 'min-sm', sm: 60 }],
      cite: c('PTX ISA Notes', 'atom.add.noftz.f16x2 introduced in PTX ISA 6.2. / requires sm_60 or higher.'),
    },
    {
      id: 'atom.req.noftz-f16',
      feature: 'atom.add.noftz.f16',
      when: { op: ['add'], type: ['f16'], vec: [''] },
      ptx: '6.3',
      targets: [{ kind: 'min-sm', sm: 70 }],
      cite: c(
        'PTX ISA Notes',
        'atom.add.noftz.f16 and atom.cas.b16 introduced in PTX ISA 6.3. / atom.add.noftz.f16 and atom.cas.b16 requires sm_70 or higher.',
      ),
    },
    {
      id: 'atom.req.noftz-f32',
      feature: '.noftz with .f32',
      when: { noftz: ['noftz'], type: ['f32'] },
      ptx: '9.4',
      targets: [{ kind: 'min-sm', sm: 90 }],
      editions: { from: '9.4' },
      cite: e94(
        'PTX ISA Notes',
        'Qualifier .noftz with .f32 type introduced in PTX ISA version 9.4. / Support for .noftz with .f32 type requires sm_90 or higher.',
      ),
    },
    {
      id: 'atom.req.cas-b16',
      feature: 'atom.cas.b16',
      when: { op: ['cas'], type: ['b16'] },
      ptx: '6.3',
      targets: [{ kind: 'min-sm', sm: 70 }],
      cite: c(
        'PTX ISA Notes',
        'atom.add.noftz.f16 and atom.cas.b16 introduced in PTX ISA 6.3. / atom.add.noftz.f16 and atom.cas.b16 requires sm_70 or higher.',
      ),
    },
    {
      id: 'atom.req.noftz-bf16',
      feature: 'atom.add.noftz.bf16 / bf16x2',
      when: { op: ['add'], type: ['bf16', 'bf16x2'], vec: [''] },
      ptx: '7.8',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'atom.add.noftz.bf16 and atom.add.noftz.bf16x2 introduced in PTX ISA 7.8. / require sm_90 or higher.'),
    },
    {
      id: 'atom.req.b128',
      feature: '.b128 type',
      when: { type: ['b128'] },
      ptx: '8.3',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'Support for .b128 type introduced in PTX ISA version 8.3. / Support for .b128 type requires sm_90 or higher.'),
    },
    {
      id: 'atom.req.b128-sys',
      feature: '.sys scope with .b128',
      when: { type: ['b128'], scope: ['sys'] },
      ptx: '8.4',
      cite: c('PTX ISA Notes', 'Support for .sys scope with .b128 type introduced in PTX ISA version 8.4.'),
    },
  ],
  errata: [
    {
      example: 'atom.global.v4.b16x2.min.noftz {%hd0, %hd1, %hd2, %hd3}, [gbl], {%h0, %h1, %h2, %h3};',
      violates: ['atom.grammar.unknown-qualifier'],
      finding: 'Example uses type .b16x2, which is in no .type set of atom; the vector table suggests .f16x2 or .bf16x2 was meant.',
    },
    {
      example: 'atom.shared.b128.cas d, a, b, c; // 128-bit atom',
      violates: ['atom.operands.address'],
      finding: 'Example writes the address operand as a instead of [a]; the syntax line is "d, [a], b, c".',
    },
    {
      example: 'atom.global.b128.exch d, a, b; // 128-bit atom',
      violates: ['atom.operands.address'],
      finding: 'Example writes the address operand as a instead of [a]; the syntax line is "d, [a], b".',
    },
  ],
  fanout: ['sem', 'scope', 'd'],
};
