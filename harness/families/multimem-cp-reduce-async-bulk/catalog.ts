/**
 * multimem.cp.reduce.async.bulk: PTX ISA 9.7.9.27 (../shared/ptx-spec/multimem-cp-reduce-async-bulk.md).
 */
import { cite } from '../../catalog/cite.js';
import type { FamilyDef } from '../../catalog/types.js';
import { BULK_SCOPES, type SemScopeCites, semScopeDefaults, semScopeRequirement, semScopeSlots, semScopeTable } from '../shared/bulk-sem-scope.js';

const FAM = 'multimem.cp.reduce.async.bulk';
const c = (part: Parameters<typeof cite>[1], quote: string) => cite('multimem-cp-reduce-async-bulk.md', part, quote);
/** PTX ISA 9.4 text (the excerpt editions-9.2-9.4.md: ../shared/ptx-spec-newer in CI; not kept in the repository). */
const e94 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/multimem-bulk', part, quote);
/** PTX ISA 9.3 text. */
const e93 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/multimem-bulk-9.3', part, quote);
const SEM_SCOPE: SemScopeCites = {
  sem: e94('Syntax', '.sem = { .relaxed }'),
  scope: e94('Syntax', '.scope = { .cta, .cluster, .gpu, .sys }'),
  without: c('Syntax', 'multimem.cp.reduce.async.bulk.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size;'),
  with: e94('Syntax', 'multimem.cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size;'),
  note: e93('PTX ISA Notes', 'Support for .sem.scope qualifier is introduced in PTX ISA version 9.3.'),
  default93: e93('Description', 'When .sem.scope is not specified, it defaults to .relaxed.sys.'),
  default91: {
    scope: 'sys',
    cite: c('Description', 'Each reduction operation performed by the multimem.cp.reduce.async.bulk has individually .relaxed.sys memory ordering semantics.'),
  },
};
const SEM = ['', 'relaxed'];
const SCOPE = ['', ...BULK_SCOPES];
const OPS = ['and', 'or', 'xor', 'add', 'inc', 'dec', 'min', 'max'];
const TYPES = ['f16', 'bf16', 'b32', 'u32', 's32', 'b64', 'u64', 's64', 'f32', 'f64'];
const TABLE = 'Valid combinations table';

export const multimemCpReduceAsyncBulk: FamilyDef = {
  id: FAM,
  head: FAM,
  specFile: 'multimem-cp-reduce-async-bulk.md',
  slots: [
    ...semScopeSlots(SEM_SCOPE),
    { name: 'dst', values: ['global'], cite: c('Syntax', '.dst = { .global }') },
    { name: 'src', values: ['shared::cta'], cite: c('Syntax', '.src = { .shared::cta }') },
    { name: 'completion', values: ['bulk_group'], cite: c('Syntax', '.completion_mechanism = { .bulk_group }') },
    { name: 'op', values: OPS, cite: c('Syntax', '.redOp = { .and, .or, .xor, .add, .inc, .dec, .min, .max }') },
    {
      name: 'noftz',
      values: ['', 'noftz'],
      cite: c('Syntax', 'multimem.cp.reduce.async.bulk.dst.src.completion_mechanism.add.noftz.type [dstMem], [srcMem], size;'),
    },
    { name: 'type', values: TYPES, cite: c('Syntax', '.type = { .f16, .bf16, .b32, .u32, .s32, .b64, .u64, .s64, .f32, .f64 }') },
  ],
  forms: [
    // PTX ISA 9.1-9.2: the two lines without {.sem.scope} (the project's 9.1 excerpt)
    {
      id: `${FAM}.form.main`,
      syntax: 'multimem.cp.reduce.async.bulk.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size;',
      slots: { sem: SEM, scope: SCOPE, dst: ['global'], src: ['shared::cta'], completion: ['bulk_group'], op: OPS, type: TYPES },
      operands: ['dstMem', 'srcMem', 'size'],
      cite: c('Syntax', 'multimem.cp.reduce.async.bulk.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size;'),
      editions: { until: '9.2' },
    },
    {
      id: `${FAM}.form.add-noftz`,
      syntax: 'multimem.cp.reduce.async.bulk.dst.src.completion_mechanism.add.noftz.type [dstMem], [srcMem], size;',
      slots: {
        sem: SEM,
        scope: SCOPE,
        dst: ['global'],
        src: ['shared::cta'],
        completion: ['bulk_group'],
        op: ['add'],
        noftz: ['noftz'],
        type: ['f16', 'bf16'],
      },
      operands: ['dstMem', 'srcMem', 'size'],
      cite: c('Syntax', 'multimem.cp.reduce.async.bulk.dst.src.completion_mechanism.add.noftz.type [dstMem], [srcMem], size; / .type = { .f16, .bf16 }'),
      editions: { until: '9.2' },
    },
    // PTX ISA 9.3 on: both lines with {.sem.scope}; 9.4 changed only the .add.noftz line's .type set,
    // so that line is a 9.3 row and a 9.4 row
    {
      id: `${FAM}.form.main-9.3`,
      syntax: 'multimem.cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size;',
      slots: { sem: SEM, scope: SCOPE, dst: ['global'], src: ['shared::cta'], completion: ['bulk_group'], op: OPS, type: TYPES },
      operands: ['dstMem', 'srcMem', 'size'],
      cite: e93(
        'Syntax',
        'multimem.cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size; / .sem = { .relaxed } .scope = { .cta, .cluster, .gpu, .sys }',
      ),
      editions: { from: '9.3' },
    },
    {
      id: `${FAM}.form.add-noftz-9.3`,
      syntax: 'multimem.cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.add.noftz.type [dstMem], [srcMem], size;',
      slots: {
        sem: SEM,
        scope: SCOPE,
        dst: ['global'],
        src: ['shared::cta'],
        completion: ['bulk_group'],
        op: ['add'],
        noftz: ['noftz'],
        type: ['f16', 'bf16'],
      },
      operands: ['dstMem', 'srcMem', 'size'],
      // 9.3 added {.sem.scope} and the .sem/.scope lines to the 9.1 line and kept its .type line
      cite: e93(
        'Syntax',
        'multimem.cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.add.noftz.type [dstMem], [srcMem], size; / .type = { .f16, .bf16 }',
      ),
      editions: { from: '9.3', until: '9.3' },
    },
    {
      id: `${FAM}.form.add-noftz-9.4`,
      syntax: 'multimem.cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.add.noftz.type [dstMem], [srcMem], size;',
      slots: {
        sem: SEM,
        scope: SCOPE,
        dst: ['global'],
        src: ['shared::cta'],
        completion: ['bulk_group'],
        op: ['add'],
        noftz: ['noftz'],
        type: ['f16', 'bf16'],
      },
      operands: ['dstMem', 'srcMem', 'size'],
      cite: e94(
        'Syntax',
        'multimem.cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.add.noftz.type [dstMem], [srcMem], size; / .type = { .f16, .bf16, .f32 }',
      ),
      editions: { from: '9.4' },
    },
    {
      id: `${FAM}.form.add-noftz-f32`,
      syntax: 'multimem.cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.add.noftz.type [dstMem], [srcMem], size; (.type .f32, PTX ISA 9.4)',
      slots: { sem: SEM, scope: SCOPE, dst: ['global'], src: ['shared::cta'], completion: ['bulk_group'], op: ['add'], noftz: ['noftz'], type: ['f32'] },
      operands: ['dstMem', 'srcMem', 'size'],
      cite: e94(
        'Syntax',
        'multimem.cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.add.noftz.type [dstMem], [srcMem], size; / .type = { .f16, .bf16, .f32 }',
      ),
      editions: { from: '9.4' },
    },
  ],
  tables: [
    semScopeTable(FAM, SEM_SCOPE),
    {
      id: `${FAM}.op-type`,
      text: '.redOp x element type (the valid combinations table)',
      appliesTo: {},
      cite: c(TABLE, 'The following table describes the valid combinations of .redOp and element type'),
      rows: [
        {
          values: { op: ['add'], type: ['u32', 's32', 'u64', 'f32', 'f64', 'f16', 'bf16'] },
          basis: 'table',
          cite: c(TABLE, '.add | .u32, .s32, .u64, .f32, .f64, .f16, .bf16'),
        },
        {
          values: { op: ['min', 'max'], type: ['u32', 's32', 'u64', 's64', 'f16', 'bf16'] },
          basis: 'table',
          cite: c(TABLE, '.min, .max | .u32, .s32, .u64, .s64, .f16, .bf16'),
        },
        { values: { op: ['inc', 'dec'], type: ['u32'] }, basis: 'table', cite: c(TABLE, '.inc, .dec | .u32') },
        { values: { op: ['and', 'or', 'xor'], type: ['b32', 'b64'] }, basis: 'table', cite: c(TABLE, '.and, .or, .xor | .b32, .b64') },
      ],
    },
    {
      id: `${FAM}.noftz-required`,
      text: '.add.f16 and .add.bf16 require .noftz',
      appliesTo: { op: ['add'], type: ['f16', 'bf16'] },
      cite: c('Description', 'The multimem.cp.reduce.async.bulk.add.f16 and multimem.cp.reduce.async.bulk.add.bf16 operations require .noftz qualifier.'),
      rows: [
        {
          values: { noftz: ['noftz'] },
          basis: 'description',
          cite: c('Description', 'The multimem.cp.reduce.async.bulk.add.f16 and multimem.cp.reduce.async.bulk.add.bf16 operations require .noftz qualifier.'),
        },
      ],
    },
  ],
  ambiguities: [],
  defaults: [
    ...semScopeDefaults(SEM_SCOPE),
    // 9.4: an .add.f32 without .noftz means .noftz (9.1-9.3 state no such default: their .add.f32 flushes, fp.mm-bulk.add.f32)
    {
      slot: 'noftz',
      spelled: '',
      when: { op: ['add'], type: ['f32'] },
      implies: 'noftz',
      text: 'no .noftz on .add.f32: as .noftz, keeping subnormals (PTX ISA 9.4 on)',
      cite: e94(
        'Description',
        'The default behavior for multimem.cp.reduce.async.bulk.add.f32 is equivalent to specifying optional .noftz qualifier which preserves input and result subnormals, and does not flush them to zero.',
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
      ptx: '9.1',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'Introduced in PTX ISA version 9.1. / Requires sm_90 or higher.'),
    },
  ],
  errata: [
    {
      example: 'multimem.cp.reduce.async.bulk.relaxed.cta.global.bulk_group.add.u64 [dstMem], [srcMem], size, [mbar];',
      violates: [`${FAM}.grammar.src`, `${FAM}.form`],
      finding:
        'The example 9.3 added (kept last in 9.4) has no .src qualifier, while both syntax lines require .src = { .shared::cta }, and passes an [mbar] operand, which the syntax does not take (its operands are [dstMem], [srcMem], size).',
      editions: { from: '9.3' },
    },
  ],
  fanout: ['sem', 'scope'],
};
