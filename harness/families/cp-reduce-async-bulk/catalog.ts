/**
 * cp.reduce.async.bulk (unicast bulk reduction): PTX ISA 9.7.9.25.4.2
 * (../shared/ptx-spec/cp-reduce-async-bulk.md). Both the .shared::cluster destination form
 * (mbarrier completion) and the .global destination form (bulk async-group completion).
 */
import { cite } from '../../catalog/cite.js';
import type { FamilyDef } from '../../catalog/types.js';
import { BULK_SCOPES, type SemScopeCites, semScopeDefaults, semScopeRequirement, semScopeSlots, semScopeTable } from '../shared/bulk-sem-scope.js';

const FAM = 'cp.reduce.async.bulk';
const c = (part: Parameters<typeof cite>[1], quote: string) => cite('cp-reduce-async-bulk.md', part, quote);
const OPS = ['and', 'or', 'xor', 'add', 'inc', 'dec', 'min', 'max'];
const HINT = ['', 'L2::cache_hint'];
const CLUSTER_TYPES = ['b32', 'u32', 's32', 'b64', 'u64'];
const GLOBAL_TYPES = ['f16', 'bf16', 'b32', 'u32', 's32', 'b64', 'u64', 's64', 'f32', 'f64'];
const TABLE = 'Valid combinations table';
/** PTX ISA 9.4 text (the excerpt editions-9.2-9.4.md: ../shared/ptx-spec-newer in CI; not kept in the repository). */
const e94 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/bulk', part, quote);
/** PTX ISA 9.3 text. */
const e93 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/bulk-9.3', part, quote);
const SEM_SCOPE: SemScopeCites = {
  sem: e94('Syntax', '.sem = { .relaxed }'),
  scope: e94('Syntax', '.scope = { .cta, .cluster, .gpu, .sys }'),
  without: c('Syntax', 'cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.redOp.type [dstMem], [srcMem], size{, cache-policy}'),
  with: e94('Syntax', 'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.redOp.type [dstMem], [srcMem], size{, cache_policy}'),
  note: e93('PTX ISA Notes', 'Support for .sem.scope qualifier is introduced in PTX ISA version 9.3.'),
  default93: e93('Description', 'When .sem.scope is not specified, it defaults to .relaxed.sys.'),
  default91: { scope: 'gpu', cite: c('Description', 'Each reduction has individually .relaxed.gpu memory ordering semantics.') },
};
const SEM = ['', 'relaxed'];
const SCOPE = ['', ...BULK_SCOPES];

export const cpReduceAsyncBulk: FamilyDef = {
  id: FAM,
  head: FAM,
  specFile: 'cp-reduce-async-bulk.md',
  slots: [
    ...semScopeSlots(SEM_SCOPE),
    { name: 'dst', values: ['shared::cluster', 'global'], cite: c('Syntax', '.dst = { .shared::cluster } / .dst = { .global }') },
    { name: 'src', values: ['shared::cta'], cite: c('Syntax', '.src = { .shared::cta }') },
    {
      name: 'completion',
      values: ['mbarrier::complete_tx::bytes', 'bulk_group'],
      cite: c('Syntax', '.completion_mechanism = { .mbarrier::complete_tx::bytes } / { .bulk_group }'),
    },
    { name: 'hint', values: HINT, cite: c('Syntax', '.level::cache_hint = { .L2::cache_hint }') },
    { name: 'op', values: OPS, cite: c('Syntax', '.redOp= { .and, .or, .xor, .add, .inc, .dec, .min, .max }') },
    { name: 'noftz', values: ['', 'noftz'], cite: c('Syntax', 'cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type') },
    { name: 'type', values: GLOBAL_TYPES, cite: c('Syntax', '.type = { .f16, .bf16, .b32, .u32, .s32, .b64, .u64, .s64, .f32, .f64 }') },
  ],
  forms: [
    // PTX ISA 9.1-9.2: the three lines without {.sem.scope} (the project's 9.1 excerpt)
    {
      id: `${FAM}.form.shared-cluster`,
      syntax: 'cp.reduce.async.bulk.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size, [mbar]',
      slots: {
        sem: SEM,
        scope: ['', 'cta', 'cluster'],
        dst: ['shared::cluster'],
        src: ['shared::cta'],
        completion: ['mbarrier::complete_tx::bytes'],
        op: OPS,
        type: CLUSTER_TYPES,
      },
      operands: ['dstMem', 'srcMem', 'size', 'mbar'],
      cite: c(
        'Syntax',
        'cp.reduce.async.bulk.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size, [mbar] / .dst = { .shared::cluster } / .type = { .b32, .u32, .s32, .b64, .u64 }',
      ),
      editions: { until: '9.2' },
    },
    {
      id: `${FAM}.form.global`,
      syntax: 'cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.redOp.type [dstMem], [srcMem], size{, cache-policy}',
      slots: { sem: SEM, scope: SCOPE, dst: ['global'], src: ['shared::cta'], completion: ['bulk_group'], hint: HINT, op: OPS, type: GLOBAL_TYPES },
      operands: ['dstMem', 'srcMem', 'size', 'policy'],
      cite: c(
        'Syntax',
        'cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.redOp.type [dstMem], [srcMem], size{, cache-policy} .dst = { .global }',
      ),
      editions: { until: '9.2' },
    },
    {
      id: `${FAM}.form.global-add-noftz`,
      syntax: 'cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type [dstMem], [srcMem], size{, cache-policy}',
      slots: {
        sem: SEM,
        scope: SCOPE,
        dst: ['global'],
        src: ['shared::cta'],
        completion: ['bulk_group'],
        hint: HINT,
        op: ['add'],
        noftz: ['noftz'],
        type: ['f16', 'bf16'],
      },
      operands: ['dstMem', 'srcMem', 'size', 'policy'],
      cite: c(
        'Syntax',
        'cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type [dstMem], [srcMem], size{, cache-policy} / .type = { .f16, .bf16 }',
      ),
      editions: { until: '9.2' },
    },
    // PTX ISA 9.3 on: the same three lines with {.sem.scope} (and cache_policy); 9.4 changed only the
    // .add.noftz line's .type set, so that line is a 9.3 row and a 9.4 row
    {
      id: `${FAM}.form.shared-cluster-9.3`,
      syntax: 'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size, [mbar]',
      slots: {
        sem: SEM,
        scope: ['', 'cta', 'cluster'],
        dst: ['shared::cluster'],
        src: ['shared::cta'],
        completion: ['mbarrier::complete_tx::bytes'],
        op: OPS,
        type: CLUSTER_TYPES,
      },
      operands: ['dstMem', 'srcMem', 'size', 'mbar'],
      cite: e93(
        'Syntax',
        'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size, [mbar] / .sem = { .relaxed } .scope = { .cta, .cluster } .dst = { .shared::cluster } / .type = { .b32, .u32, .s32, .b64, .u64 }',
      ),
      editions: { from: '9.3' },
    },
    {
      id: `${FAM}.form.global-9.3`,
      syntax: 'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.redOp.type [dstMem], [srcMem], size{, cache_policy}',
      slots: { sem: SEM, scope: SCOPE, dst: ['global'], src: ['shared::cta'], completion: ['bulk_group'], hint: HINT, op: OPS, type: GLOBAL_TYPES },
      operands: ['dstMem', 'srcMem', 'size', 'policy'],
      cite: e93(
        'Syntax',
        'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.redOp.type [dstMem], [srcMem], size{, cache_policy} / .sem = { .relaxed } .scope = { .cta, .cluster, .gpu, .sys } .dst = { .global }',
      ),
      editions: { from: '9.3' },
    },
    {
      id: `${FAM}.form.global-add-noftz-9.3`,
      syntax: 'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type [dstMem], [srcMem], size{, cache_policy}',
      slots: {
        sem: SEM,
        scope: SCOPE,
        dst: ['global'],
        src: ['shared::cta'],
        completion: ['bulk_group'],
        hint: HINT,
        op: ['add'],
        noftz: ['noftz'],
        type: ['f16', 'bf16'],
      },
      operands: ['dstMem', 'srcMem', 'size', 'policy'],
      // 9.3 kept the 9.1 .type line of this form ("The .add.noftz .type is still { .f16, .bf16 }")
      cite: e93(
        'Syntax',
        'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type [dstMem], [srcMem], size{, cache_policy} / .type = { .f16, .bf16 }',
      ),
      editions: { from: '9.3', until: '9.3' },
    },
    {
      id: `${FAM}.form.global-add-noftz-9.4`,
      syntax: 'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type [dstMem], [srcMem], size{, cache_policy}',
      slots: {
        sem: SEM,
        scope: SCOPE,
        dst: ['global'],
        src: ['shared::cta'],
        completion: ['bulk_group'],
        hint: HINT,
        op: ['add'],
        noftz: ['noftz'],
        type: ['f16', 'bf16'],
      },
      operands: ['dstMem', 'srcMem', 'size', 'policy'],
      cite: e94(
        'Syntax',
        'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type [dstMem], [srcMem], size{, cache_policy} / .type = { .f16, .bf16, .f32 }',
      ),
      editions: { from: '9.4' },
    },
    {
      id: `${FAM}.form.global-add-noftz-f32`,
      syntax:
        'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type [dstMem], [srcMem], size{, cache_policy} (.type .f32, PTX ISA 9.4)',
      slots: {
        sem: SEM,
        scope: SCOPE,
        dst: ['global'],
        src: ['shared::cta'],
        completion: ['bulk_group'],
        hint: HINT,
        op: ['add'],
        noftz: ['noftz'],
        type: ['f32'],
      },
      operands: ['dstMem', 'srcMem', 'size', 'policy'],
      cite: e94(
        'Syntax',
        'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type [dstMem], [srcMem], size{, cache_policy} / .type = { .f16, .bf16, .f32 }',
      ),
      editions: { from: '9.4' },
    },
  ],
  tables: [
    semScopeTable(FAM, SEM_SCOPE, {
      scopes: ['cta', 'cluster'],
      cite: e94(
        'Syntax',
        'cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size, [mbar] / .sem = { .relaxed } .scope = { .cta, .cluster } .dst = { .shared::cluster }',
      ),
    }),
    {
      id: `${FAM}.dst-op-type`,
      text: '.dst x .redOp x element type (the valid combinations table)',
      appliesTo: {},
      cite: c(TABLE, 'Valid combinations: | .dst | .redOp | element type |'),
      rows: [
        {
          values: { dst: ['shared::cluster'], op: ['add'], type: ['u32', 's32', 'u64'] },
          basis: 'table',
          cite: c(TABLE, '.shared::cluster | .add | .u32, .s32, .u64'),
        },
        {
          values: { dst: ['shared::cluster'], op: ['min', 'max'], type: ['u32', 's32'] },
          basis: 'table',
          cite: c(TABLE, '~ .shared::cluster | .min, .max | .u32, .s32'),
        },
        { values: { dst: ['shared::cluster'], op: ['inc', 'dec'], type: ['u32'] }, basis: 'table', cite: c(TABLE, '~ .shared::cluster | .inc, .dec | .u32') },
        {
          values: { dst: ['shared::cluster'], op: ['and', 'or', 'xor'], type: ['b32'] },
          basis: 'table',
          cite: c(TABLE, '~ .shared::cluster | .and, .or, .xor | .b32'),
        },
        {
          values: { dst: ['global'], op: ['add'], type: ['u32', 's32', 'u64', 'f32', 'f64', 'f16', 'bf16'] },
          basis: 'table',
          cite: c(TABLE, '.global | .add | .u32, .s32, .u64, .f32, .f64, .f16, .bf16'),
        },
        {
          values: { dst: ['global'], op: ['min', 'max'], type: ['u32', 's32', 'u64', 's64', 'f16', 'bf16'] },
          basis: 'table',
          cite: c(TABLE, '~ .global | .min, .max | .u32, .s32, .u64, .s64, .f16, .bf16'),
        },
        { values: { dst: ['global'], op: ['inc', 'dec'], type: ['u32'] }, basis: 'table', cite: c(TABLE, '~ .global | .inc, .dec | .u32') },
        {
          values: { dst: ['global'], op: ['and', 'or', 'xor'], type: ['b32', 'b64'] },
          basis: 'table',
          cite: c(TABLE, '~ .global | .and, .or, .xor | .b32, .b64'),
        },
      ],
    },
    {
      id: `${FAM}.noftz-required`,
      text: '.add.f16 and .add.bf16 require .noftz',
      appliesTo: { op: ['add'], type: ['f16', 'bf16'] },
      cite: c('Description', '.add.f16 and .add.bf16 require .noftz.'),
      rows: [{ values: { noftz: ['noftz'] }, basis: 'description', cite: c('Description', '.add.f16 and .add.bf16 require .noftz.') }],
    },
    {
      id: `${FAM}.dst-completion`,
      text: '.shared::cluster destination completes by mbarrier, .global destination by bulk async-group',
      appliesTo: {},
      cite: c('Description', 'Completion: .mbarrier::complete_tx::bytes (shared::cluster destination, mbarrier based) or .bulk_group (global destination;'),
      rows: [
        {
          values: { dst: ['shared::cluster'], completion: ['mbarrier::complete_tx::bytes'] },
          basis: 'description',
          cite: c('Description', '.mbarrier::complete_tx::bytes (shared::cluster destination, mbarrier based)'),
        },
        {
          values: { dst: ['global'], completion: ['bulk_group'] },
          basis: 'description',
          cite: c('Description', '.bulk_group (global destination; commit with cp.async.bulk.commit_group, wait with cp.async.bulk.wait_group)'),
        },
      ],
    },
  ],
  ambiguities: [],
  defaults: [
    ...semScopeDefaults(SEM_SCOPE, true),
    // 9.4: an .add.f32 without .noftz means .noftz (9.1-9.3 state no such default: their .add.f32 flushes, fp.bulk.add.f32)
    {
      slot: 'noftz',
      spelled: '',
      when: { op: ['add'], type: ['f32'] },
      implies: 'noftz',
      text: 'no .noftz on .add.f32: as .noftz, keeping subnormals (PTX ISA 9.4 on)',
      cite: e94(
        'Description',
        'The default behavior for cp.reduce.async.bulk.add.f32 is equivalent to specifying optional .noftz qualifier which preserves input and result subnormals, and does not flush them to zero.',
      ),
      editions: { from: '9.4' },
    },
  ],
  requirements: [
    semScopeRequirement(FAM, SEM_SCOPE),
    {
      id: `${FAM}.req.noftz-f32`,
      feature: '.noftz with .f32',
      when: { noftz: ['noftz'], type: ['f32'] },
      ptx: '9.4',
      editions: { from: '9.4' },
      cite: e94('PTX ISA Notes', 'Qualifier .noftz with .f32 type introduced in PTX ISA version 9.4.'),
    },
    {
      id: `${FAM}.req.introduced`,
      feature: FAM,
      when: {},
      ptx: '8.0',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'Introduced in PTX ISA 8.0; requires sm_90 or higher.'),
    },
  ],
  errata: [
    {
      example: 'cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.xor.s32 [dstMem], [srcMem], size, policy;',
      violates: [`${FAM}.dst-op-type`],
      finding: 'Example uses .xor with .s32; the valid combinations table allows .and/.or/.xor only on .b32 and .b64.',
    },
    {
      example: 'cp.reduce.async.bulk.relaxed.cta.global.bulk_group.add.u64 [dstMem], [srcMem], size, [mbar];',
      violates: [`${FAM}.grammar.src`, `${FAM}.form`],
      finding:
        'The example 9.3 added (kept in 9.4) has no .src qualifier, while every syntax line requires .src = { .shared::cta }, and passes an [mbar] operand, which the .global/.bulk_group line does not take (its operands are [dstMem], [srcMem], size{, cache_policy}).',
      editions: { from: '9.3' },
    },
  ],
  fanout: ['sem', 'scope'],
};
