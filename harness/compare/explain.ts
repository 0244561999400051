/**
 * Mismatch explanation: re-evaluates a case under alternative rules and names the alternatives that
 * reproduce what was observed, so that one hardware behaviour shows as one finding with a case count.
 *
 * One row per alternative (ALTERNATIVES): what it changes against the rule the reference applied,
 * and to which operations it applies. An alternative that does not apply to a case (rounding of a
 * min, accumulation precision of an atom) is not tried on it.
 *
 * How alternatives apply to a family whose results are not one operation per element (the reduction
 * over replicas of multimem.ld_reduce) is that family's explain hook (harness/families/<family>/);
 * the rest is tested element by element where the family's results land (its `shape.results`).
 *
 * Replica order is not an alternative: the reference already allows every order and association of
 * multimem.ld_reduce (rule multimem.acc, "the replica order is not specified"), so no order can
 * explain a mismatch that the allowed set does not contain.
 */
import { parseInstruction } from '../catalog/parse.js';
import { familyPlugin } from '../registry/index.js';
import { addBitsExact } from '../numerics/exact.js';
import { type ElementFormat, type FloatFormat, classify, elementFormat, splitLanes } from '../numerics/formats.js';
import { type Allowed, addOnce, allows, minmaxAllowed } from '../numerics/ops.js';
import { findFpRule, fpRule } from '../numerics/rule-lookup.js';
import type { ModelVariant, ReferenceCase } from '../reference/model.js';
import type { Alternative, ObservedBits, OpKind } from './alternative.js';
import { hexBits } from '../numerics/hex.js';

export type { Alternative, ObservedBits, OpKind } from './alternative.js';

const ADDS: OpKind[] = ['add'];
const ALL_FLOAT: OpKind[] = ['add', 'minmax', 'ld_reduce.add', 'ld_reduce.minmax'];

export const ALTERNATIVES: readonly Alternative[] = [
  { id: 'ftz-off', text: 'subnormal inputs and results kept (not flushed)', applies: ALL_FLOAT, flushIn: false, flushOut: false },
  { id: 'ftz-on', text: 'subnormal inputs and results flushed to sign-preserving zero', applies: ALL_FLOAT, flushIn: true, flushOut: true },
  { id: 'ftz-inputs-only', text: 'subnormal inputs flushed, results kept', applies: ADDS, flushIn: true, flushOut: false },
  { id: 'ftz-results-only', text: 'subnormal inputs kept, results flushed', applies: ADDS, flushIn: false, flushOut: true },
  { id: 'round-rz', text: 'rounding toward zero', applies: ADDS, rounding: 'rz' },
  { id: 'round-ru', text: 'rounding up (toward +inf)', applies: ADDS, rounding: 'ru' },
  { id: 'round-rd', text: 'rounding down (toward -inf)', applies: ADDS, rounding: 'rd' },
  { id: 'round-rna', text: 'rounding to nearest, ties away from zero', applies: ADDS, rounding: 'rna' },
  {
    id: 'nan-propagate',
    text: 'a NaN operand of min/max propagating (IEEE 754-2019 minimum/maximum) instead of yielding the other operand',
    applies: ['minmax', 'ld_reduce.minmax'],
    nanPropagates: true,
  },
  { id: 'zeros-unordered', text: '-0.0 and +0.0 compared equal by min/max (either returned)', applies: ['minmax', 'ld_reduce.minmax'], zerosUnordered: true },
  { id: 'acc-f32', text: 'intermediate accumulation in .f32 (one rounding to the type at the end)', applies: ['ld_reduce.add'], acc: 'f32' },
  { id: 'acc-f16', text: 'intermediate accumulation in .f16', applies: ['ld_reduce.add'], acc: 'f16' },
  { id: 'acc-type', text: 'intermediate accumulation in the element type, each step rounded', applies: ['ld_reduce.add'], acc: 'type' },
  { id: 'acc-f64', text: 'intermediate accumulation in .f64 (one rounding to the type at the end)', applies: ['ld_reduce.add'], acc: 'f64' },
  {
    id: 'acc-exact',
    text: 'accumulated exactly and rounded once to the type (no intermediate rounding in any order)',
    applies: ['ld_reduce.add'],
    acc: 'exact',
  },
];

const flush = (f: FloatFormat, b: bigint) => (classify(f, b) === 'subnormal' ? b & (1n << BigInt(f.bits - 1)) : b);
const isNaN_ = (f: FloatFormat, b: bigint) => classify(f, b) === 'nan';

/** Parses a result's variant: a bit-bucket variant's id ends in (_). */
export function variantOf(ptxOrId: string): ModelVariant & { readonly ptx: string } {
  // parsed once per spelling: the comparator asks for every kept result's variant (170,000 of one
  // variant in a big vector file), and nothing changes a variant it is given
  let v = parsedVariants.get(ptxOrId);
  if (!v) {
    const p = parseInstruction(ptxOrId.endsWith('(_)') ? `${ptxOrId.slice(0, -3)} _, [a], b;` : ptxOrId);
    v = Object.freeze({ family: p.family.id, q: Object.freeze({ ...p.q }), ptx: ptxOrId });
    parsedVariants.set(ptxOrId, v);
  }
  return v;
}
const parsedVariants = new Map<string, ModelVariant & { readonly ptx: string }>();

/**
 * The variant spelling of a result, for variantOf: its ptx, plus the `(<value>)` groups its id adds
 * for values held outside the instruction (a tensor map's element type), which ptxas never sees.
 */
export function resultVariant(r: { readonly id: string; readonly ptx: string }): string {
  if (!r.id.startsWith(r.ptx)) return r.ptx;
  const m = /^(?:\(_\))?((?:\([\w:.]+\))*)/.exec(r.id.slice(r.ptx.length));
  return r.ptx + (m?.[1] ?? '');
}

/** One lane of a two-operand float op under `alt`, or undefined when `alt` does not apply. */
function laneOp(alt: Alternative, lf: FloatFormat, op: string, specifiedFtz: boolean | 'unspecified', r: bigint, s: bigint): Allowed | undefined {
  const kind: OpKind | undefined = op === 'add' ? 'add' : op === 'min' || op === 'max' ? 'minmax' : undefined;
  if (!kind || !alt.applies.includes(kind)) return undefined;
  const base = specifiedFtz === 'unspecified' ? undefined : specifiedFtz;
  const fi = alt.flushIn ?? base;
  const fo = alt.flushOut ?? base;
  const modes: [boolean, boolean][] =
    fi === undefined || fo === undefined
      ? [
          [false, false],
          [true, true],
        ]
      : [[fi, fo]];
  const bits: bigint[] = [];
  let anyNaN = false;
  for (const [i, o] of modes) {
    const a = i ? flush(lf, r) : r;
    const b = i ? flush(lf, s) : s;
    if (kind === 'add') {
      for (const overflow of lf.bits === 8 ? (['inf', 'satfinite'] as const) : (['inf'] as const)) {
        const out = addBitsExact(lf, a, b, overflow, alt.rounding ?? 'rn');
        if (isNaN_(lf, out)) anyNaN = true;
        else bits.push(o ? flush(lf, out) : out);
      }
      continue;
    }
    if (alt.nanPropagates && (isNaN_(lf, a) || isNaN_(lf, b))) {
      anyNaN = true;
      continue;
    }
    const m = minmaxAllowed(lf, op as 'min' | 'max', a, b);
    anyNaN ||= m.anyNaN;
    bits.push(...m.bits.map((x) => (o ? flush(lf, x) : x)));
    if (alt.zerosUnordered && classify(lf, a) === 'zero' && classify(lf, b) === 'zero') bits.push(a, b);
  }
  return { bits, anyNaN, unspecified: [] };
}

export interface Explainable {
  /** Variant id or opcode (as in results: a bit-bucket variant ends in (_)). */
  readonly variant: string;
  readonly input: {
    memory?: readonly string[];
    b?: readonly string[];
    c?: readonly string[];
    source?: readonly string[];
    replicas?: readonly (readonly string[])[];
    space?: string;
  };
  readonly observed: ObservedBits;
}

export function referenceCaseOf(input: Explainable['input']): ReferenceCase {
  const big = (xs?: readonly string[]) => xs?.map((x) => BigInt(x));
  return {
    ...(input.memory ? { memory: big(input.memory)! } : {}),
    ...(input.b ? { b: big(input.b)! } : {}),
    ...(input.c ? { c: big(input.c)! } : {}),
    ...(input.source ? { source: big(input.source)! } : {}),
    ...(input.replicas ? { replicas: input.replicas.map((r) => big(r)!) } : {}),
    ...(input.space === 'shared' || input.space === 'global' ? { space: input.space } : {}),
  };
}

/** Does `obs` (one element) fall in the per-lane sets `sets`? */
function elementIn(fmt: ElementFormat, sets: readonly Allowed[], obs: bigint): boolean {
  const lanes = splitLanes(fmt, obs);
  return lanes.every((x, l) => allows(fmt.lane, sets[l]!, x));
}

/**
 * Whether `alt` reproduces every observed element of the case; undefined when it does not apply
 * (integer op, an alternative of another operation).
 */
function reproduces(alt: Alternative, v: ModelVariant, c: ReferenceCase, obs: ObservedBits): boolean | undefined {
  const fmt = elementFormat(v.q.type ?? '');
  if (fmt.lane.kind !== 'float') return undefined;
  const lf = fmt.lane;
  const op = v.q.op ?? '';
  const plugin = familyPlugin(v.family);
  const space = plugin.shape.space(v.q, c);
  if (plugin.explain.reproduces) return plugin.explain.reproduces(alt, v, c, obs, fpRule(v.family, space, fmt.name, v.q));
  // no alternative is about a store, exch or cas
  if (op !== 'add' && op !== 'min' && op !== 'max') return undefined;
  // the subnormal rule the reference applied, where a row covers the operation's type
  const specified = findFpRule(v.family, space, fmt.name, undefined, v.q)?.ftz ?? false;
  const operand = c.b ?? c.source;
  const one = (r: bigint, s: bigint): Allowed[] | undefined => {
    const rl = splitLanes(fmt, r);
    const sl = splitLanes(fmt, s);
    const lanes = rl.map((x, l) => laneOp(alt, lf, op, specified, x, sl[l]!));
    return lanes.some((x) => !x) ? undefined : (lanes as Allowed[]);
  };
  if (plugin.shape.results === 'replicas') {
    if (!c.replicas || !operand || !obs.replicas) return undefined;
    let applied = true;
    const ok = obs.replicas.every((rep, k) =>
      rep.every((o, i) => {
        const sets = one(c.replicas![k]![i]!, operand[i]!);
        if (!sets) applied = false;
        return sets ? elementIn(fmt, sets, BigInt(o)) : false;
      }),
    );
    return applied ? ok : undefined;
  }
  if (!c.memory || !operand || !obs.memory) return undefined;
  // atom returns the old value whatever the rule: it must match as the reference says
  if (obs.returned && !obs.returned.every((o, i) => BigInt(o) === c.memory![i])) return false;
  let applied = true;
  const ok = obs.memory.every((o, i) => {
    const sets = one(c.memory![i]!, operand[i]!);
    if (!sets) applied = false;
    return sets ? elementIn(fmt, sets, BigInt(o)) : false;
  });
  return applied ? ok : undefined;
}

/** The alternatives that reproduce every observed element of the case (empty: none does). */
export function explain(c: Explainable): Alternative[] {
  const v = variantOf(c.variant);
  const rc = referenceCaseOf(c.input);
  return ALTERNATIVES.filter((alt) => reproduces(alt, v, rc, c.observed) === true);
}

/** The alternatives tried on a case (those that apply to its operation). */
export function applicable(c: Explainable): Alternative[] {
  const v = variantOf(c.variant);
  const rc = referenceCaseOf(c.input);
  return ALTERNATIVES.filter((alt) => reproduces(alt, v, rc, c.observed) !== undefined);
}

export const NO_EXPLANATION = 'no alternative rule reproduces it';

/** "observed = reference with A, or with B" for a set of alternative ids. */
export function explanationText(ids: readonly string[]): string {
  const alts = ids.map((id) => ALTERNATIVES.find((a) => a.id === id)!).filter(Boolean);
  return alts.length ? `observed = reference with ${alts.map((a) => a.text).join(', or with ')}` : NO_EXPLANATION;
}

/** Family, operation, type and space a case is about: the unit findings are grouped by. */
export function subjectOf(variant: string): string {
  const { family, q } = variantOf(variant);
  return `${family} .${q.op}.${q.type} on .${(q.space ?? q.dst ?? '') || 'generic'}`;
}

export interface Finding {
  /** Family, operation, type and space the finding is about. */
  readonly subject: string;
  /** Ids of the alternatives that explain every case of the group ('' when none does). */
  readonly explanation: string;
  readonly text: string;
  readonly count: number;
  readonly examples: readonly string[];
  /** Ids of every case in the group. */
  readonly ids: readonly string[];
}

/**
 * Groups explained cases into findings: per subject, the alternatives that explain every one of its
 * cases (the intersection); a subject whose cases no single alternative covers is split by their
 * sets of explanations.
 */
export function groupExplained(cases: readonly { id: string; subject: string; explanation: readonly string[] }[]): Finding[] {
  const bySubject = new Map<string, (typeof cases)[number][]>();
  for (const c of cases) bySubject.set(c.subject, [...(bySubject.get(c.subject) ?? []), c]);
  const out: Finding[] = [];
  const finding = (subject: string, ids: readonly string[], items: (typeof cases)[number][]): Finding => ({
    subject,
    explanation: ids.join(','),
    text: explanationText(ids),
    count: items.length,
    examples: items.slice(0, 3).map((x) => x.id),
    ids: items.map((x) => x.id),
  });
  for (const [subject, items] of bySubject) {
    const common = ALTERNATIVES.map((a) => a.id).filter((a) => items.every((x) => x.explanation.includes(a)));
    if (common.length) {
      out.push(finding(subject, common, items));
      continue;
    }
    const bySet = new Map<string, typeof items>();
    for (const x of items) {
      const k = x.explanation.join(',');
      bySet.set(k, [...(bySet.get(k) ?? []), x]);
    }
    for (const group of bySet.values()) out.push(finding(subject, group[0]!.explanation, group));
  }
  return out.sort((a, b) => b.count - a.count || a.subject.localeCompare(b.subject));
}

/** Explains and groups mismatching cases in one step. */
export function groupFindings(cases: readonly (Explainable & { id: string })[]): Finding[] {
  return groupExplained(cases.map((c) => ({ id: c.id, subject: subjectOf(c.variant), explanation: explain(c).map((a) => a.id) })));
}

/**
 * What a NaN result was, for `observed` cases: the canonical NaN, an input's NaN (as it was, or
 * quieted), or another encoding (named, e.g. "other 0xfff8000000000000"); the most surprising of
 * the case's lanes.
 */
export function nanBehaviour(c: Explainable): string | undefined {
  const v = variantOf(c.variant);
  const fmt = elementFormat(v.q.type ?? '');
  if (fmt.lane.kind !== 'float') return undefined;
  const lf = fmt.lane;
  // returned values are results only where the family returns its operation's result (not an old value)
  const returnedIsResult = familyPlugin(v.family).shape.results === 'returned';
  const outs = [...(c.observed.memory ?? []), ...(c.observed.returned && returnedIsResult ? c.observed.returned : []), ...(c.observed.replicas ?? []).flat()];
  const ins = [...(c.input.memory ?? []), ...(c.input.b ?? []), ...(c.input.source ?? []), ...(c.input.replicas ?? []).flat()].flatMap((x) =>
    splitLanes(fmt, BigInt(x)),
  );
  const quiet = (x: bigint) => x | (1n << BigInt(lf.fracBits - 1));
  let kind: string | undefined;
  let rank = -1;
  for (const o of outs) {
    for (const x of splitLanes(fmt, BigInt(o))) {
      if (!isNaN_(lf, x)) continue;
      const [k, r] =
        x === BigInt(lf.canonicalNaN)
          ? ['canonical', 0]
          : ins.some((i) => isNaN_(lf, i) && i === x)
            ? ['input payload', 1]
            : ins.some((i) => isNaN_(lf, i) && quiet(i) === x)
              ? ['input payload, quieted', 2]
              : [`other ${hexBits(lf.bits, x)}`, 3];
      if ((r as number) > rank) {
        rank = r as number;
        kind = k as string;
      }
    }
  }
  return kind;
}

/**
 * What an observed float .add did with subnormals where no rule says (fp.ftz-unstated): over the
 * lanes of memory whose result differs between keeping and flushing subnormals (memory with operand
 * b, or with a bulk source), whether the observed bits are the kept ones, the flushed ones, or some of
 * each; undefined where no lane tells them apart (or the case is not one add per element).
 */
export function subnormalBehaviour(c: Explainable): 'kept' | 'flushed' | 'mixed' | undefined {
  const v = variantOf(c.variant);
  if (v.q.op !== 'add') return undefined;
  const fmt = elementFormat(v.q.type ?? '');
  if (fmt.lane.kind !== 'float') return undefined;
  const lf = fmt.lane;
  const mem = c.input.memory ?? [];
  const other = c.input.b ?? c.input.source ?? [];
  const out = c.observed.memory ?? [];
  if (mem.length === 0 || mem.length !== other.length || out.length !== mem.length) return undefined;
  let kept = 0;
  let flushed = 0;
  mem.forEach((m, i) => {
    const as = splitLanes(fmt, BigInt(m));
    const bs = splitLanes(fmt, BigInt(other[i]!));
    const os = splitLanes(fmt, BigInt(out[i]!));
    as.forEach((a, j) => {
      const k = addOnce(lf, a, bs[j]!, false);
      const f = addOnce(lf, a, bs[j]!, true);
      if (k.nan || f.nan || k.bits === f.bits) return;
      if (os[j] === k.bits) kept++;
      else if (os[j] === f.bits) flushed++;
    });
  });
  if (!kept && !flushed) return undefined;
  return kept && flushed ? 'mixed' : kept ? 'kept' : 'flushed';
}
