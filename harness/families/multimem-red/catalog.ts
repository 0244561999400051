/**
 * multimem.red: PTX ISA 9.7.9.14 (../shared/ptx-spec/multimem-ld_reduce-st-red.md).
 */
import type { FamilyDef } from '../../catalog/types.js';
import { INT_TYPES, RED_FLOAT_TYPES, SCOPE, SS, VEC, c, commonRequirements, opTypeTable, vecTypeTable } from '../shared/multimem.js';

const FAM = 'multimem.red';
const SEM = ['', 'relaxed', 'release'];
const OPS = ['min', 'max', 'add', 'and', 'or', 'xor'];

export const multimemRed: FamilyDef = {
  id: FAM,
  head: FAM,
  specFile: 'multimem-ld_reduce-st-red.md',
  slots: [
    { name: 'sem', values: SEM, cite: c('Syntax', '.redsem = { .relaxed, .release }') },
    { name: 'scope', values: SCOPE, cite: c('Syntax', '.scope = { .cta, .cluster, .gpu, .sys }') },
    { name: 'ss', values: SS, cite: c('Syntax', '.ss = { .global }') },
    { name: 'op', values: OPS, cite: c('Syntax', '.op = { .min, .max, .add, .and, .or, .xor } / .redop = { .add }') },
    { name: 'vec', values: VEC, cite: c('Syntax', '.vec = { .v2, .v4, .v8 }') },
    {
      name: 'type',
      values: [...INT_TYPES, ...RED_FLOAT_TYPES],
      cite: c('Syntax', '.type = { .b32, .b64, .u32, .u64, .s32, .s64 } / .redtype = { .f16, .f16x2, .bf16, .bf16x2, .f32, .f64 }'),
    },
  ],
  forms: [
    {
      id: `${FAM}.form.int`,
      syntax: 'multimem.red{.redsem}{.scope}{.ss}.op.type [a], b;',
      slots: { sem: SEM, scope: SCOPE, ss: SS, op: OPS, type: INT_TYPES },
      operands: ['a', 'b'],
      cite: c('Syntax', 'multimem.red{.redsem}{.scope}{.ss}.op.type [a], b;'),
    },
    {
      id: `${FAM}.form.float`,
      syntax: 'multimem.red{.redsem}{.scope}{.ss}.redop{.vec}.redtype [a], b;',
      slots: { sem: SEM, scope: SCOPE, ss: SS, op: ['add', 'min', 'max'], vec: VEC, type: RED_FLOAT_TYPES },
      operands: ['a', 'b'],
      cite: c('Syntax', 'multimem.red{.redsem}{.scope}{.ss}.redop{.vec}.redtype [a], b; / .redop = { .add }'),
    },
  ],
  tables: [
    vecTypeTable(FAM, RED_FLOAT_TYPES),
    opTypeTable(FAM),
    {
      // The form above admits min/max so that this table, not the form, decides them.
      id: `${FAM}.float-redop`,
      text: 'floating-point multimem.red: .redop = { .add }',
      appliesTo: { type: RED_FLOAT_TYPES },
      cite: c('Syntax', '.redop = { .add }'),
      rows: [
        { values: { op: ['add'] }, basis: 'grammar', cite: c('Syntax', 'multimem.red{.redsem}{.scope}{.ss}.redop{.vec}.redtype [a], b; / .redop = { .add }') },
        {
          values: { op: ['min', 'max'], type: ['f16', 'f16x2', 'bf16', 'bf16x2'] },
          basis: 'table',
          ambiguity:
            "The grammar gives floating-point multimem.red only .redop = { .add }, but the section's op table, stated for all three instructions, lists .min/.max for .f16, .f16x2, .bf16 and .bf16x2.",
          cite: c('Valid combinations table', '.min, .max | .u32, .s32, .u64, .s64 .f16, .f16x2, .bf16, .bf16x2'),
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
      text: 'no .redsem means .relaxed',
      cite: c('Description', 'If explicit semantics qualifiers are not specified, then ... multimem.red defaults to .relaxed.'),
    },
    {
      slot: 'scope',
      spelled: '',
      implies: 'sys',
      text: 'no .scope means .sys',
      cite: c('Description', 'If the .scope qualifier is not specified for multimem.red then .sys scope is assumed by default.'),
    },
    {
      slot: 'ss',
      spelled: '',
      implies: 'generic',
      text: 'no state space: generic addressing into the .global window',
      cite: c('Description', 'If no state space is specified then Generic Addressing is used.'),
    },
  ],
  requirements: commonRequirements(FAM),
  errata: [
    {
      example: 'multimem.red.relaxed.gpu.max.f64 [addr5], val5_f64;',
      violates: ['multimem.red.op-type', 'multimem.red.float-redop'],
      finding: 'Example uses .max with .f64; the floating-point form has .redop = { .add } and the op table lists .f64 only under .add.',
    },
  ],
  fanout: ['sem', 'scope'],
};
