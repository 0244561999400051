/**
 * The reference model of multimem.ld_reduce: the reduction of the values at all replicas, returned.
 * Integer reductions are exact; a floating-point reduction accumulates in .acc (the element type by
 * default), rounding each step, in every order and association of the replicas (the section does
 * not give one), under both subnormal modes (it does not state one either).
 */
import { FLOAT_FORMATS, type FloatFormat, type IntFormat, splitLanes } from '../../numerics/formats.js';
import { type Allowed, type IntOp, exactly, intOp, union } from '../../numerics/ops.js';
import { type OrderedResult, reductionSet } from '../../numerics/reduce.js';
import { UNSPECIFIED } from '../../numerics/rules.js';
import type { ElementAllowed } from '../../reference/model.js';
import type { FamilyModel, ModelRule } from '../../registry/plugin.js';
import { MULTIMEM_FP_UNSTATED, c as cite } from '../shared/multimem.js';

const RETURNS_REDUCTION: ModelRule = {
  rule: 'ld_reduce.returns-reduction',
  text: 'multimem.ld_reduce returns the reduction of the values at all replicas',
  cite: cite('Description', 'The result of the reduction operation in returned in register `d`.'),
};

/** The accumulation rule as the report's rules section states it (a trail names the precision a case used). */
const ACCUMULATION: ModelRule = {
  rule: 'multimem.acc',
  text: 'intermediate accumulation in the precision .acc::f32/.acc::f16 asks for (the element type by default), each step rounded to it; the replica order is not specified: every order and association is allowed',
  cite: MULTIMEM_FP_UNSTATED.cite,
};

/** The rules ldReduceModel notes besides the floating-point row. */
export const LD_REDUCE_MODEL_RULES: readonly ModelRule[] = [RETURNS_REDUCTION, ACCUMULATION];

/** The accumulation format a variant asks for (.acc::f32, .acc::f16, or the element type). */
export function accumulation(acc: string | undefined, lf: FloatFormat): FloatFormat {
  return acc === 'acc::f32' ? FLOAT_FORMATS.f32 : acc === 'acc::f16' ? FLOAT_FORMATS.f16 : lf;
}

export const ldReduceModel: FamilyModel = (v, c, ctx) => {
  const { fmt, op } = ctx;
  const reps = ctx.need(c.replicas, 'replicas');
  if (reps.length < 1 || reps.length > 8) ctx.fail(`multimem.ld_reduce takes 1 to 8 replicas, got ${reps.length}`);
  const n = reps[0]!.length;
  ctx.note(RETURNS_REDUCTION);
  if (fmt.lane.kind === 'int') {
    const lane = fmt.lane as IntFormat;
    return {
      returned: Array.from({ length: n }, (_, i) => [exactly(reps.slice(1).reduce((acc, rep) => intOp(op as IntOp, lane, acc, rep[i]!), reps[0]![i]!))]),
    };
  }
  const lf = fmt.lane as FloatFormat;
  const acc = accumulation(v.q.acc, lf);
  const rule = ctx.fpRule();
  ctx.note({ rule: rule.id, text: rule.text, cite: rule.cite });
  ctx.note({
    rule: ACCUMULATION.rule,
    text: `intermediate accumulation in .${acc.name}${acc === lf ? ' (the element type, by default)' : ` (.${v.q.acc})`}, each step rounded to it; the replica order is not specified: every order and association is allowed`,
    cite: MULTIMEM_FP_UNSTATED.cite,
  });
  const modes = rule.ftz === 'unspecified' ? [false, true] : [rule.ftz];
  const returned: ElementAllowed[] = [];
  const orders: OrderedResult[][][] = [];
  for (let i = 0; i < n; i++) {
    const lanes = reps.map((rep) => splitLanes(fmt, rep[i]!));
    const laneSets: Allowed[] = [];
    const laneOrders: OrderedResult[][] = [];
    for (let l = 0; l < fmt.lanes; l++) {
      const vals = lanes.map((x) => x[l]!);
      const sets: Allowed[] = [];
      const ords: OrderedResult[] = [];
      for (const m of modes) {
        const rs = reductionSet(op as 'add' | 'min' | 'max', lf, acc, vals, m);
        const uns = [
          ...(rule.ftz === 'unspecified' ? ['fp.ftz-unstated'] : []),
          ...(rs.nan ? [UNSPECIFIED.nanPayload.id] : []),
          ...(rs.overflow && lf.bits === 8 ? [UNSPECIFIED.fp8Overflow.id] : []),
        ];
        sets.push({ bits: rs.results.filter((r) => !rs.nan || r.bits !== BigInt(lf.canonicalNaN)).map((r) => r.bits), anyNaN: rs.nan, unspecified: uns });
        ords.push(...rs.results);
      }
      laneSets.push(union(sets));
      laneOrders.push(ords);
    }
    returned.push(laneSets);
    orders.push(laneOrders);
  }
  return { returned, orders };
};
