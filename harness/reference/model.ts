/**
 * The reference model's API: given a catalog variant and a case, the outcomes the spec allows and
 * the rules that decided them. Pure functions, no I/O. What a family's instruction does is its
 * plugin's model (harness/families/<family>/); this module gives it the element operations and the
 * rule lookup, and assembles the rule trail and the unspecified rules every family shares.
 */
import type { ModelContext } from '../registry/plugin.js';
import { familyPlugin } from '../registry/index.js';
import { type ElementFormat, type FloatFormat, type IntFormat, elementFormat, joinLanes, splitLanes } from '../numerics/formats.js';
import { type IntOp, addAllowed, exactly, intOp, minmaxAllowed } from '../numerics/ops.js';
import type { OrderedResult } from '../numerics/reduce.js';
import { type FpRule, MINMAX_RULES, UNSPECIFIED, citeFor } from '../numerics/rules.js';
import { findMinMaxBasis, fpRule } from '../numerics/rule-lookup.js';
import type { ElementAllowed, ModelVariant, ReferenceCase, RuleApplied } from './types.js';

export type { ElementAllowed, ModelVariant, ReferenceCase, RuleApplied } from './types.js';

export interface ReferenceOutcome {
  readonly memory?: readonly ElementAllowed[];
  readonly replicas?: readonly (readonly ElementAllowed[])[];
  readonly returned?: readonly ElementAllowed[];
  /** multimem.ld_reduce: per element and lane, every result with a tree that gives it. */
  readonly orders?: readonly (readonly (readonly OrderedResult[])[])[];
  readonly trail: readonly RuleApplied[];
  /** Ids of rules that widened a set because the spec does not decide. */
  readonly unspecified: readonly string[];
}

export class CaseError extends Error {}

function need<T>(x: T | undefined, what: string): T {
  if (x === undefined) throw new CaseError(`the case needs ${what}`);
  return x;
}

/** op on one element (all lanes) of `fmt`. */
function elementOp(
  v: ModelVariant,
  fmt: ElementFormat,
  op: string,
  r: bigint,
  s: bigint,
  t: bigint,
  space: 'global' | 'shared',
  trail: Map<string, RuleApplied>,
): ElementAllowed {
  if (fmt.lane.kind === 'int') {
    return [exactly(intOp(op as IntOp, fmt.lane as IntFormat, r, s, t))];
  }
  const lf = fmt.lane as FloatFormat;
  const rl = splitLanes(fmt, r);
  const sl = splitLanes(fmt, s);
  if (op === 'exch') return rl.map((_, i) => exactly(sl[i]!));
  if (op === 'cas') return rl.map((_, i) => exactly(r === s ? splitLanes(fmt, t)[i]! : rl[i]!));
  if (op === 'add') {
    const rule = fpRule(v.family, space, fmt.name, v.q);
    trail.set(rule.id, { rule: rule.id, text: rule.text, cite: citeFor(rule, v.family) });
    return rl.map((x, i) => addAllowed(lf, x, sl[i]!, rule.ftz));
  }
  if (op === 'min' || op === 'max') {
    const m = MINMAX_RULES[op];
    trail.set(m.id, { rule: m.id, text: m.text, cite: m.cite });
    const basis = findMinMaxBasis(v.family);
    if (basis) trail.set(basis.id, { rule: basis.id, text: basis.text, cite: citeFor(basis, v.family) });
    return rl.map((x, i) => minmaxAllowed(lf, op, x, sl[i]!));
  }
  throw new CaseError(`operation .${op} on .${fmt.name} has no floating-point meaning`);
}

/** The outcomes the spec allows for `c` run through variant `v`, with the rule trail. */
/**
 * The context a family's model gets for one case: a class, not an object of closures made per case
 * (under tsx, esbuild's keepNames names each such closure with a defineProperty call).
 */
class Ctx implements ModelContext {
  constructor(
    private readonly v: ModelVariant,
    readonly fmt: ElementFormat,
    readonly op: string,
    readonly space: 'global' | 'shared',
    private readonly trail: Map<string, RuleApplied>,
  ) {}
  need<T>(x: T | undefined, what: string): T {
    return need(x, what);
  }
  fail(message: string): never {
    throw new CaseError(message);
  }
  elementOp(r: bigint, s: bigint, t: bigint): ElementAllowed {
    return elementOp(this.v, this.fmt, this.op, r, s, t, this.space, this.trail);
  }
  fpRule(): FpRule {
    return fpRule(this.v.family, this.space, this.fmt.name, this.v.q);
  }
  note(r: RuleApplied): void {
    this.trail.set(r.rule, r);
  }
}

export function reference(v: ModelVariant, c: ReferenceCase): ReferenceOutcome {
  const plugin = familyPlugin(v.family);
  const type = v.q.type ?? '';
  const fmt = elementFormat(type);
  const op = v.q.op ?? '';
  const space = plugin.shape.space(v.q, c);
  const trail = new Map<string, RuleApplied>();
  const ctx = new Ctx(v, fmt, op, space, trail);
  const { memory, returned, replicas, orders } = plugin.model(v, c, ctx);
  const all = [...(memory ?? []), ...(returned ?? []), ...(replicas ?? []).flat()].flat();
  const unspecified = [...new Set(all.flatMap((a) => a.unspecified))];
  for (const u of unspecified) {
    const r = Object.values(UNSPECIFIED).find((x) => x.id === u);
    if (r) trail.set(r.id, { rule: r.id, text: r.text, cite: r.cite });
  }
  return {
    ...(memory ? { memory } : {}),
    ...(replicas ? { replicas } : {}),
    ...(returned ? { returned } : {}),
    ...(orders ? { orders } : {}),
    trail: [...trail.values()],
    unspecified,
  };
}

/** Packs one allowed bit pattern per lane back into an element (for single-valued outcomes). */
export function singleElement(fmt: ElementFormat, lanes: ElementAllowed): bigint | undefined {
  if (lanes.some((l) => l.bits.length !== 1 || l.anyNaN)) return undefined;
  return joinLanes(
    fmt,
    lanes.map((l) => l.bits[0]!),
  );
}
