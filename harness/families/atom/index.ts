/**
 * atom (PTX ISA 9.7.13.5): the catalog (catalog.ts) and the floating-point rules, reference model
 * and case shape it shares with red (../shared/atomic-rmw.ts), plus the old value it returns in d.
 */
import { cite } from '../../catalog/cite.js';
import type { Qualifiers } from '../../catalog/types.js';
import type { FamilyPlugin, ModelRule } from '../../registry/plugin.js';
import { ATOMIC_RMW_FP_RULES, ATOMIC_RMW_MINMAX, rmwModel, rmwShape } from '../shared/atomic-rmw.js';
import { atom } from './catalog.js';

/** The bit bucket `_` as d discards the old value. */
const returnsOld = (q: Qualifiers) => (q.d ?? '') !== '_';

/** What d holds: the value at [a] before the operation. */
export const ATOM_RETURNS_OLD: ModelRule = {
  rule: 'atom.returns-old',
  text: 'atom returns the original value at [a] in d (the value before the operation)',
  cite: cite('atom.md', 'Description', 'Atomically loads the original value at location `a` into destination register `d`'),
};

export const atomPlugin: FamilyPlugin = {
  def: atom,
  model: rmwModel({ when: returnsOld, rule: ATOM_RETURNS_OLD }),
  modelRules: [ATOM_RETURNS_OLD],
  rules: ATOMIC_RMW_FP_RULES,
  minmax: ATOMIC_RMW_MINMAX,
  shape: rmwShape(returnsOld),
  explain: {},
};
