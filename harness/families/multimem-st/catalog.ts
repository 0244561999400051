/**
 * multimem.st: PTX ISA 9.7.9.14 (../shared/ptx-spec/multimem-ld_reduce-st-red.md).
 */
import type { FamilyDef } from '../../catalog/types.js';
import {
  FLOAT_TYPES,
  INT_TYPES,
  SCOPE,
  SS,
  VEC,
  c,
  commonRequirements,
  semWithoutScopeAmbiguity,
  vecTypeTable,
  weakScopeAmbiguity,
} from '../shared/multimem.js';

const FAM = 'multimem.st';
const SEM = ['', 'relaxed', 'release'];

export const multimemSt: FamilyDef = {
  id: FAM,
  head: FAM,
  specFile: 'multimem-ld_reduce-st-red.md',
  slots: [
    { name: 'sem', values: [...SEM, 'weak'], cite: c('Syntax', '.stsem = { .relaxed, .release } / multimem.st.weak{.ss}.type [a], b;') },
    { name: 'scope', values: SCOPE, cite: c('Syntax', '.scope = { .cta, .cluster, .gpu, .sys }') },
    { name: 'ss', values: SS, cite: c('Syntax', '.ss = { .global }') },
    { name: 'vec', values: VEC, cite: c('Syntax', '.vec = { .v2, .v4, .v8 }') },
    {
      name: 'type',
      values: [...INT_TYPES, ...FLOAT_TYPES],
      cite: c('Syntax', '.type = { .b32, .b64, .u32, .u64, .s32, .s64 } / .type= { .f16, ..., .e4m3x4 }'),
    },
  ],
  forms: [
    {
      id: `${FAM}.form.int`,
      syntax: 'multimem.st{.stsem}{.scope}{.ss}.type [a], b;',
      slots: { sem: SEM, scope: SCOPE, ss: SS, type: INT_TYPES },
      operands: ['a', 'b'],
      cite: c('Syntax', 'multimem.st{.stsem}{.scope}{.ss}.type [a], b;'),
    },
    {
      id: `${FAM}.form.int-weak`,
      syntax: 'multimem.st.weak{.ss}.type [a], b;',
      slots: { sem: ['weak'], ss: SS, type: INT_TYPES },
      operands: ['a', 'b'],
      cite: c('Syntax', 'multimem.st.weak{.ss}.type [a], b;'),
    },
    {
      id: `${FAM}.form.float`,
      syntax: 'multimem.st{.stsem}{.scope}{.ss}{.vec}.type [a], b;',
      slots: { sem: SEM, scope: SCOPE, ss: SS, vec: VEC, type: FLOAT_TYPES },
      operands: ['a', 'b'],
      cite: c('Syntax', 'multimem.st{.stsem}{.scope}{.ss}{.vec}.type [a], b;'),
    },
    {
      id: `${FAM}.form.float-weak`,
      syntax: 'multimem.st.weak{.ss}{.vec}.type [a], b;',
      slots: { sem: ['weak'], ss: SS, vec: VEC, type: FLOAT_TYPES },
      operands: ['a', 'b'],
      cite: c('Syntax', 'multimem.st.weak{.ss}{.vec}.type [a], b;'),
    },
  ],
  tables: [vecTypeTable(FAM, FLOAT_TYPES)],
  ambiguities: [weakScopeAmbiguity(FAM, 'stsem'), semWithoutScopeAmbiguity(FAM, ['relaxed', 'release'], 'stsem')],
  defaults: [
    {
      slot: 'sem',
      spelled: '',
      implies: 'weak',
      text: 'no .stsem means .weak',
      cite: c('Description', 'If explicit semantics qualifiers are not specified, then multimem.ld_reduce and multimem.st default to .weak'),
    },
    {
      slot: 'scope',
      spelled: '',
      when: { sem: ['relaxed', 'release'] },
      implies: null,
      text: 'no default .scope is stated for multimem.st (only for multimem.red)',
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
  errata: [],
  fanout: ['sem', 'scope'],
};
