/**
 * atom (PTX ISA 9.7.13.5): the catalog (catalog.ts) and the floating-point rules, reference model
 * and case shape it shares with red (../shared/atomic-rmw.ts), plus the old value it returns in d.
 */
import type { Qualifiers } from '../../catalog/types.js';
import type { FamilyPlugin } from '../plugin.js';
import { ATOMIC_RMW_FP_RULES, ATOMIC_RMW_MINMAX, rmwModel, rmwShape } from '../shared/atomic-rmw.js';
import { atom } from './catalog.js';

/** The bit bucket `_` as d discards the old value. */
const returnsOld = (q: Qualifiers) => (q.d ?? '') !== '_';

export const atomPlugin: FamilyPlugin = {
  def: atom,
  model: rmwModel({ when: returnsOld, rule: { rule: 'atom.returns-old', text: 'atom returns the original value at [a] in d' } }),
  rules: ATOMIC_RMW_FP_RULES,
  minmax: ATOMIC_RMW_MINMAX,
  shape: rmwShape(returnsOld),
  explain: {},
};
