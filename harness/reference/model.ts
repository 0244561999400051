/**
 * The reference model's API: given a catalog variant and a case, the outcomes the spec allows and
 * the rules that decided them. Pure functions, no I/O.
 */
import type { Citation } from '../catalog/cite.js';
import type { FamilyId, Qualifiers } from '../catalog/types.js';
import { type ElementFormat, type FloatFormat, type IntFormat, elementFormat, FLOAT_FORMATS, joinLanes, splitLanes } from '../numerics/formats.js';
import { type Allowed, type IntOp, addAllowed, exactly, intOp, minmaxAllowed, union } from '../numerics/ops.js';
import { type OrderedResult, reductionSet } from '../numerics/reduce.js';
import { FP_RULES, MINMAX_RULES, UNSPECIFIED, fpRule } from '../numerics/rules.js';

/** A variant as the model needs it: family and qualifiers (catalog entries have both). */
export interface ModelVariant {
  readonly family: FamilyId;
  readonly q: Qualifiers;
}

export interface ReferenceCase {
  /** Initial memory at [a]: one element (bits of .type, all lanes) per vector lane; bulk: destination elements. */
  readonly memory?: readonly bigint[];
  /** multimem: initial memory of each replica. */
  readonly replicas?: readonly (readonly bigint[])[];
  /** Operand b (and c for cas), one element per vector lane. */
  readonly b?: readonly bigint[];
  readonly c?: readonly bigint[];
  /** Bulk reductions: the source array in shared memory. */
  readonly source?: readonly bigint[];
  /** Where generic addressing lands (default global). */
  readonly space?: 'global' | 'shared';
}

export interface RuleApplied {
  readonly rule: string;
  readonly text: string;
  readonly cite?: Citation;
}

/** Allowed outcomes of one element: one set per packed lane (lane 0 = low bits). */
export type ElementAllowed = readonly Allowed[];

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

function resolvedSpace(v: ModelVariant, c: ReferenceCase): 'global' | 'shared' {
  const s = v.q.space ?? v.q.ss ?? v.q.dst ?? '';
  if (s.startsWith('shared')) return 'shared';
  if (s === 'global') return 'global';
  return c.space ?? 'global';
}

function need<T>(x: T | undefined, what: string): T {
  if (x === undefined) throw new CaseError(`the case needs ${what}`);
  return x;
}

/** op on one element (all lanes) of `fmt`. */
function elementOp(v: ModelVariant, fmt: ElementFormat, op: string, r: bigint, s: bigint, t: bigint, space: 'global' | 'shared', trail: Map<string, RuleApplied>): ElementAllowed {
  if (fmt.lane.kind === 'int') {
    return [exactly(intOp(op as IntOp, fmt.lane as IntFormat, r, s, t))];
  }
  const lf = fmt.lane as FloatFormat;
  const rl = splitLanes(fmt, r);
  const sl = splitLanes(fmt, s);
  if (op === 'exch') return rl.map((_, i) => exactly(sl[i]!));
  if (op === 'cas') return rl.map((_, i) => exactly(r === s ? splitLanes(fmt, t)[i]! : rl[i]!));
  if (op === 'add') {
    const rule = fpRule(v.family, space, fmt.name);
    trail.set(rule.id, { rule: rule.id, text: rule.text, cite: rule.cite });
    return rl.map((x, i) => addAllowed(lf, x, sl[i]!, rule.ftz));
  }
  if (op === 'min' || op === 'max') {
    const m = MINMAX_RULES[op];
    trail.set(m.id, { rule: m.id, text: m.text, cite: m.cite });
    return rl.map((x, i) => minmaxAllowed(lf, op, x, sl[i]!));
  }
  throw new CaseError(`operation .${op} on .${fmt.name} has no floating-point meaning`);
}

const SEMANTICS: Record<string, RuleApplied> = {
  'atom.returns-old': { rule: 'atom.returns-old', text: 'atom returns the original value at [a] in d' },
  'ld_reduce.returns-reduction': { rule: 'ld_reduce.returns-reduction', text: 'multimem.ld_reduce returns the reduction of the values at all replicas' },
};

/** The outcomes the spec allows for `c` run through variant `v`, with the rule trail. */
export function reference(v: ModelVariant, c: ReferenceCase): ReferenceOutcome {
  const type = v.q.type ?? '';
  const fmt = elementFormat(type);
  const op = v.q.op ?? '';
  const space = resolvedSpace(v, c);
  const trail = new Map<string, RuleApplied>();
  let memory: ElementAllowed[] | undefined;
  let returned: ElementAllowed[] | undefined;
  let replicas: ElementAllowed[][] | undefined;
  let orders: OrderedResult[][][] | undefined;

  switch (v.family) {
    case 'atom':
    case 'red': {
      const mem = need(c.memory, 'memory');
      const b = need(c.b, 'operand b');
      if (b.length !== mem.length) throw new CaseError(`memory has ${mem.length} elements and b ${b.length}`);
      memory = mem.map((r, i) => elementOp(v, fmt, op, r, b[i]!, c.c?.[i] ?? 0n, space, trail));
      if (v.family === 'atom' && (v.q.d ?? '') !== '_') {
        returned = mem.map((r) => splitLanes(fmt, r).map(exactly));
        trail.set('atom.returns-old', SEMANTICS['atom.returns-old']!);
      }
      break;
    }
    case 'cp.reduce.async.bulk':
    case 'multimem.cp.reduce.async.bulk': {
      const mem = need(c.memory, 'memory (the destination array)');
      const src = need(c.source, 'source (the shared-memory array)');
      if (src.length !== mem.length) throw new CaseError(`destination has ${mem.length} elements and source ${src.length}`);
      memory = mem.map((r, i) => elementOp(v, fmt, op, r, src[i]!, 0n, space, trail));
      break;
    }
    case 'multimem.st': {
      const reps = need(c.replicas, 'replicas');
      const b = need(c.b, 'operand b');
      replicas = reps.map(() => b.map((x) => splitLanes(fmt, x).map(exactly)));
      break;
    }
    case 'multimem.red': {
      const reps = need(c.replicas, 'replicas');
      const b = need(c.b, 'operand b');
      replicas = reps.map((mem) => mem.map((r, i) => elementOp(v, fmt, op, r, b[i]!, 0n, 'global', trail)));
      break;
    }
    case 'multimem.ld_reduce': {
      const reps = need(c.replicas, 'replicas');
      if (reps.length < 1 || reps.length > 8) throw new CaseError(`multimem.ld_reduce takes 1 to 8 replicas, got ${reps.length}`);
      const n = reps[0]!.length;
      trail.set('ld_reduce.returns-reduction', SEMANTICS['ld_reduce.returns-reduction']!);
      if (fmt.lane.kind === 'int') {
        returned = Array.from({ length: n }, (_, i) => [exactly(reps.slice(1).reduce((acc, rep) => intOp(op as IntOp, fmt.lane as IntFormat, acc, rep[i]!), reps[0]![i]!))]);
        break;
      }
      const lf = fmt.lane as FloatFormat;
      const acc = v.q.acc === 'acc::f32' ? FLOAT_FORMATS.f32 : v.q.acc === 'acc::f16' ? FLOAT_FORMATS.f16 : lf;
      const rule = fpRule('multimem.ld_reduce', 'global', fmt.name);
      trail.set(rule.id, { rule: rule.id, text: rule.text, cite: rule.cite });
      trail.set('multimem.acc', { rule: 'multimem.acc', text: `intermediate accumulation in .${acc.name}${acc === lf ? ' (the element type, by default)' : ` (.${v.q.acc})`}, each step rounded to it; the replica order is not specified: every order and association is allowed`, cite: FP_RULES.find((r) => r.id === 'fp.multimem.unstated')!.cite });
      const modes = rule.ftz === 'unspecified' ? [false, true] : [rule.ftz];
      returned = [];
      orders = [];
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
            const uns = [...(rule.ftz === 'unspecified' ? ['fp.ftz-unstated'] : []), ...(rs.nan ? [UNSPECIFIED.nanPayload.id] : []), ...(rs.overflow && lf.bits === 8 ? [UNSPECIFIED.fp8Overflow.id] : [])];
            sets.push({ bits: rs.results.filter((r) => !rs.nan || r.bits !== BigInt(lf.canonicalNaN)).map((r) => r.bits), anyNaN: rs.nan, unspecified: uns });
            ords.push(...rs.results);
          }
          laneSets.push(union(sets));
          laneOrders.push(ords);
        }
        returned.push(laneSets);
        orders.push(laneOrders);
      }
      break;
    }
  }
  const all = [...(memory ?? []), ...(returned ?? []), ...(replicas ?? []).flat()].flat();
  const unspecified = [...new Set(all.flatMap((a) => a.unspecified))];
  for (const u of unspecified) {
    const r = Object.values(UNSPECIFIED).find((x) => x.id === u);
    if (r) trail.set(r.id, { rule: r.id, text: r.text, cite: r.cite });
    if (u === 'fp.ftz-unstated') trail.set(u, { rule: u, text: 'subnormal handling is not stated: flushed and kept results are both allowed' });
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
  return joinLanes(fmt, lanes.map((l) => l.bits[0]!));
}
