/**
 * red (PTX ISA 9.7.13.6): the catalog (catalog.ts) and the floating-point rules, reference model and
 * case shape it shares with atom (../shared/atomic-rmw.ts); red returns nothing.
 */
import type { FamilyPlugin } from '../../registry/plugin.js';
import { ATOMIC_RMW_FP_RULES, ATOMIC_RMW_MINMAX, rmwModel, rmwShape } from '../shared/atomic-rmw.js';
import { red } from './catalog.js';

export const redPlugin: FamilyPlugin = {
  def: red,
  model: rmwModel(),
  rules: ATOMIC_RMW_FP_RULES,
  minmax: ATOMIC_RMW_MINMAX,
  shape: rmwShape(() => false),
  explain: {},
};
