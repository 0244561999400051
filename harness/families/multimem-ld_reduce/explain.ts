/**
 * How the explanation alternatives (harness/compare/explain.ts) apply to multimem.ld_reduce: the
 * returned value is a reduction over the replicas, so an alternative is tried on the whole
 * reduction (every order, as the reference allows), not element by element. Alternatives of the
 * accumulation precision apply here only: the element type, .f16, .f32, .f64, or exactly with one
 * rounding at the end.
 */
import type { Alternative } from '../../compare/explain.js';
import { FLOAT_FORMATS, type FloatFormat, classify, elementFormat, splitLanes } from '../../numerics/formats.js';
import { exactReduction, reductionSet } from '../../numerics/reduce.js';
import type { ExplainHooks } from '../../registry/plugin.js';
import { accumulation } from './model.js';

const isNaN_ = (f: FloatFormat, b: bigint) => classify(f, b) === 'nan';

function altAcc(alt: Alternative, lf: FloatFormat, variantAcc: FloatFormat): FloatFormat {
  return alt.acc === 'f32'
    ? FLOAT_FORMATS.f32
    : alt.acc === 'f16'
      ? FLOAT_FORMATS.f16
      : alt.acc === 'f64'
        ? FLOAT_FORMATS.f64
        : alt.acc === 'type'
          ? lf
          : variantAcc;
}

export const ldReduceExplain: ExplainHooks = {
  reproduces(alt, v, c, obs, rule) {
    const fmt = elementFormat(v.q.type ?? '');
    if (fmt.lane.kind !== 'float') return undefined;
    const lf = fmt.lane;
    const op = v.q.op ?? '';
    const kind = op === 'add' ? 'ld_reduce.add' : 'ld_reduce.minmax';
    if (!alt.applies.includes(kind) || !c.replicas || !obs.returned) return undefined;
    const variantAcc = accumulation(v.q.acc, lf);
    const exact = alt.acc === 'exact';
    const acc = altAcc(alt, lf, variantAcc);
    // the variant's own accumulation is no alternative (f64 for an f64 element)
    if (alt.acc && !exact && acc.name === variantAcc.name) return undefined;
    const ftzModes = alt.flushIn !== undefined ? [alt.flushIn] : rule.ftz === 'unspecified' ? [false, true] : [rule.ftz];
    const returned = obs.returned.map((x) => BigInt(x));
    return returned.every((o, i) =>
      splitLanes(fmt, o).every((x, l) => {
        const vals = c.replicas!.map((rep) => splitLanes(fmt, rep[i]!)[l]!);
        if (alt.nanPropagates && vals.some((y) => isNaN_(lf, y))) return isNaN_(lf, x);
        return ftzModes.some((m) => {
          if (exact) {
            const e = exactReduction(lf, vals, m);
            return e.nan ? isNaN_(lf, x) : e.bits === x || Boolean(alt.zerosUnordered && classify(lf, x) === 'zero' && classify(lf, e.bits) === 'zero');
          }
          const rs = reductionSet(op as 'add' | 'min' | 'max', lf, acc, vals, m);
          if (rs.nan && isNaN_(lf, x)) return true;
          if (rs.results.some((r) => r.bits === x)) return true;
          // zeros-unordered: a zero of either sign where the set has a zero
          return Boolean(alt.zerosUnordered && classify(lf, x) === 'zero' && rs.results.some((r) => classify(lf, r.bits) === 'zero'));
        });
      }),
    );
  },
};
