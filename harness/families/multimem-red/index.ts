/**
 * multimem.red (PTX ISA 9.7.9.14): the catalog (catalog.ts); the reduction of b into every
 * replica, each replica on its own, under the rule the section does not state (../shared/multimem.ts).
 */
import type { FamilyModel, FamilyPlugin } from '../../registry/plugin.js';
import { MULTIMEM_FP_UNSTATED, multimemShape } from '../shared/multimem.js';
import { multimemRed } from './catalog.js';

const model: FamilyModel = (_v, c, ctx) => {
  const reps = ctx.need(c.replicas, 'replicas');
  const b = ctx.need(c.b, 'operand b');
  return { replicas: reps.map((mem) => mem.map((r, i) => ctx.elementOp(r, b[i]!, 0n))) };
};

export const multimemRedPlugin: FamilyPlugin = {
  def: multimemRed,
  model,
  rules: [MULTIMEM_FP_UNSTATED],
  shape: multimemShape({ takesB: true, returns: false, results: 'replicas', probeOp: (q) => q.op ?? '' }),
  explain: {},
};
