/**
 * multimem.st (PTX ISA 9.7.9.14): the catalog (catalog.ts); a store of b to every replica. No
 * floating-point rule applies: the stored bits are b's.
 */
import { splitLanes } from '../../numerics/formats.js';
import { exactly } from '../../numerics/ops.js';
import type { FamilyModel, FamilyPlugin } from '../../registry/plugin.js';
import { multimemShape } from '../shared/multimem.js';
import { multimemSt } from './catalog.js';

const model: FamilyModel = (_v, c, ctx) => {
  const reps = ctx.need(c.replicas, 'replicas');
  const b = ctx.need(c.b, 'operand b');
  return { replicas: reps.map(() => b.map((x) => splitLanes(ctx.fmt, x).map(exactly))) };
};

export const multimemStPlugin: FamilyPlugin = {
  def: multimemSt,
  model,
  rules: [],
  // a store takes exch's probes: the stored value replaces what the replica held
  shape: multimemShape({ takesB: true, returns: false, results: 'replicas', probeOp: () => 'exch' }),
  explain: {},
};
