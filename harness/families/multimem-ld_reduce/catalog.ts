/**
 * multimem.ld_reduce: PTX ISA 9.7.9.14 (../shared/ptx-spec/multimem-ld_reduce-st-red.md).
 */
import type { FamilyDef } from '../../catalog/types.js';
import {
  semWithoutScopeAmbiguity,
  FLOAT_TYPES,
  FP8_TARGETS,
  FP8_TYPES,
  INT_TYPES,
  SCOPE,
  SS,
  VEC,
  c,
  commonRequirements,
  opTypeTable,
  vecTypeTable,
  weakScopeAmbiguity,
} from '../shared/multimem.js';

const FAM = 'multimem.ld_reduce';
const SEM = ['', 'relaxed', 'acquire'];
const OPS = ['min', 'max', 'add', 'and', 'or', 'xor'];
const ACC = ['', 'acc::f32', 'acc::f16'];

export const multimemLdReduce: FamilyDef = {
  id: FAM,
  head: FAM,
  specFile: 'multimem-ld_reduce-st-red.md',
  slots: [
    { name: 'sem', values: [...SEM, 'weak'], cite: c('Syntax', '.ldsem = { .relaxed, .acquire } / multimem.ld_reduce.weak{.ss}.op.type d, [a];') },
    { name: 'scope', values: SCOPE, cite: c('Syntax', '.scope = { .cta, .cluster, .gpu, .sys }') },
    { name: 'ss', values: SS, cite: c('Syntax', '.ss = { .global }') },
    { name: 'op', values: OPS, cite: c('Syntax', '.op = { .min, .max, .add, .and, .or, .xor } / .op = { .min, .max, .add }') },
    { name: 'acc', values: ACC, cite: c('Syntax', '.acc_prec = { .acc::f32, .acc::f16 }') },
    { name: 'vec', values: VEC, cite: c('Syntax', '.vec = { .v2, .v4, .v8 }') },
    {
      name: 'type',
      values: [...INT_TYPES, ...FLOAT_TYPES],
      cite: c(
        'Syntax',
        '.type = { .b32, .b64, .u32, .u64, .s32, .s64 } / .type= { .f16, .f16x2, .bf16, .bf16x2, .f32, .f64, .e5m2, .e5m2x2, .e5m2x4, .e4m3, .e4m3x2, .e4m3x4 }',
      ),
    },
  ],
  forms: [
    {
      id: `${FAM}.form.int`,
      syntax: 'multimem.ld_reduce{.ldsem}{.scope}{.ss}.op.type d, [a];',
      slots: { sem: SEM, scope: SCOPE, ss: SS, op: OPS, type: INT_TYPES },
      operands: ['d', 'a'],
      cite: c('Syntax', 'multimem.ld_reduce{.ldsem}{.scope}{.ss}.op.type d, [a];'),
    },
    {
      id: `${FAM}.form.int-weak`,
      syntax: 'multimem.ld_reduce.weak{.ss}.op.type d, [a];',
      slots: { sem: ['weak'], ss: SS, op: OPS, type: INT_TYPES },
      operands: ['d', 'a'],
      cite: c('Syntax', 'multimem.ld_reduce.weak{.ss}.op.type d, [a];'),
    },
    {
      id: `${FAM}.form.float`,
      syntax: 'multimem.ld_reduce{.ldsem}{.scope}{.ss}.op{.acc_prec}{.vec}.type d, [a];',
      slots: { sem: SEM, scope: SCOPE, ss: SS, op: ['min', 'max', 'add'], acc: ACC, vec: VEC, type: FLOAT_TYPES },
      operands: ['d', 'a'],
      cite: c('Syntax', 'multimem.ld_reduce{.ldsem}{.scope}{.ss}.op{.acc_prec}{.vec}.type d, [a];'),
    },
    {
      id: `${FAM}.form.float-weak`,
      syntax: 'multimem.ld_reduce.weak{.ss}.op{.acc_prec}{.vec}.type d, [a];',
      slots: { sem: ['weak'], ss: SS, op: ['min', 'max', 'add'], acc: ACC, vec: VEC, type: FLOAT_TYPES },
      operands: ['d', 'a'],
      cite: c('Syntax', 'multimem.ld_reduce.weak{.ss}.op{.acc_prec}{.vec}.type d, [a];'),
    },
  ],
  tables: [
    vecTypeTable(FAM, FLOAT_TYPES),
    opTypeTable(FAM),
    {
      id: `${FAM}.acc-type`,
      text: '.acc_prec x type: .acc::f32 for the 16-bit float types, .acc::f16 for the fp8 types',
      appliesTo: { acc: ['acc::f32', 'acc::f16'] },
      cite: c('Description', 'Optionally, .acc_prec qualifier can be specified to change the precision of intermediate accumulation as follows'),
      rows: [
        {
          values: { acc: ['acc::f32'], type: ['f16', 'f16x2', 'bf16', 'bf16x2'] },
          basis: 'table',
          cite: c('Description', '.f16, .f16x2, .bf16, .bf16x2 | .acc::f32 | .f32'),
        },
        {
          values: { acc: ['acc::f16'], type: FP8_TYPES },
          basis: 'table',
          cite: c('Description', '.e5m2, .e4m3, .e5m2x2, .e4m3x2, .e4m3x4, .e5m2x4 | .acc::f16 | .f16'),
        },
      ],
    },
  ],
  ambiguities: [
    weakScopeAmbiguity(FAM, 'ldsem'),
    semWithoutScopeAmbiguity(FAM, ['relaxed', 'acquire'], 'ldsem'),
    {
      id: `${FAM}.acc-with-minmax`,
      when: { acc: ['acc::f32', 'acc::f16'], op: ['min', 'max'] },
      text: 'The grammar puts {.acc_prec} after every floating-point .op and the .acc_prec table is keyed by type alone; whether .min/.max (which do not accumulate) accept it is not said.',
      cite: c('Syntax', 'multimem.ld_reduce{.ldsem}{.scope}{.ss}.op{.acc_prec}{.vec}.type d, [a]; / .op = { .min, .max, .add }'),
    },
  ],
  defaults: [
    {
      slot: 'sem',
      spelled: '',
      implies: 'weak',
      text: 'no .ldsem means .weak',
      cite: c('Description', 'If explicit semantics qualifiers are not specified, then multimem.ld_reduce and multimem.st default to .weak'),
    },
    {
      slot: 'scope',
      spelled: '',
      when: { sem: ['relaxed', 'acquire'] },
      implies: null,
      text: 'no default .scope is stated for multimem.ld_reduce (only for multimem.red)',
      cite: c('Description', 'If the .scope qualifier is not specified for multimem.red then .sys scope is assumed by default.'),
    },
    {
      slot: 'ss',
      spelled: '',
      implies: 'generic',
      text: 'no state space: generic addressing into the .global window',
      cite: c('Description', 'If no state space is specified then Generic Addressing is used.'),
    },
    {
      slot: 'acc',
      spelled: '',
      implies: 'element type',
      text: 'no .acc_prec: intermediate accumulation in the element type',
      cite: c('Description', 'For multimem.ld_reduce, the default precision of the intermediate accumulation is same as the specified type.'),
    },
  ],
  requirements: [
    ...commonRequirements(FAM),
    {
      id: `${FAM}.req.acc-f32`,
      feature: '.acc::f32',
      when: { acc: ['acc::f32'] },
      ptx: '8.2',
      cite: c('PTX ISA Notes', 'Support for .acc::f32 qualifier introduced in PTX ISA version 8.2.'),
    },
    {
      id: `${FAM}.req.acc-f16`,
      feature: '.acc::f16',
      when: { acc: ['acc::f16'] },
      ptx: '8.6',
      targets: FP8_TARGETS,
      cite: c(
        'Target ISA Notes',
        '~ Support for .acc::f16 qualifier introduced in PTX ISA version 8.6. Qualifier .acc::f16 is supported on following architectures: sm_100a; sm_101a; sm_120a; sm_121a; from PTX ISA version 8.8 sm_100f or higher in the same family and sm_101f or higher in the same family; sm_110f or higher in the same family',
      ),
    },
  ],
  errata: [],
  fanout: ['sem', 'scope'],
};
