/**
 * Mismatch explanation: re-evaluates a case under alternative rules (subnormals kept or flushed, on
 * inputs, results or both; other rounding directions) and names the alternatives that reproduce
 * what was observed, so that one hardware behaviour shows as one finding with a case count.
 * (First part of the comparator issue: float add; other operations get no alternatives yet.)
 */
import { parseInstruction } from '../catalog/parse.js';
import { type Rounding, addBitsExact } from '../numerics/exact.js';
import { type FloatFormat, classify, elementFormat, splitLanes } from '../numerics/formats.js';
import { fpRule } from '../numerics/rules.js';

export interface Alternative {
  readonly id: string;
  /** How a finding reads: "observed = reference with ..." */
  readonly text: string;
  readonly flushIn?: boolean;
  readonly flushOut?: boolean;
  readonly rounding?: Rounding;
}

export const ALTERNATIVES: readonly Alternative[] = [
  { id: 'ftz-off', text: 'subnormal inputs and results kept (not flushed)', flushIn: false, flushOut: false },
  { id: 'ftz-on', text: 'subnormal inputs and results flushed to sign-preserving zero', flushIn: true, flushOut: true },
  { id: 'ftz-inputs-only', text: 'subnormal inputs flushed, results kept', flushIn: true, flushOut: false },
  { id: 'ftz-results-only', text: 'subnormal inputs kept, results flushed', flushIn: false, flushOut: true },
  { id: 'round-rz', text: 'rounding toward zero', rounding: 'rz' },
  { id: 'round-ru', text: 'rounding up (toward +inf)', rounding: 'ru' },
  { id: 'round-rd', text: 'rounding down (toward -inf)', rounding: 'rd' },
  { id: 'round-rna', text: 'rounding to nearest, ties away from zero', rounding: 'rna' },
];

const flush = (f: FloatFormat, b: bigint) => (classify(f, b) === 'subnormal' ? b & (1n << BigInt(f.bits - 1)) : b);

export interface Explainable {
  /** Variant id (as in results: a bit-bucket variant ends in (_)). */
  readonly variant: string;
  readonly input: { memory?: readonly string[]; b?: readonly string[]; source?: readonly string[] };
  readonly observed: { memory?: readonly string[] };
}

/** The alternatives that reproduce every observed memory element of the case (empty: none does). */
export function explain(c: Explainable): Alternative[] {
  const p = parseInstruction(c.variant.endsWith('(_)') ? `${c.variant.slice(0, -3)} _, [a], b;` : c.variant);
  if (p.q.op !== 'add' || !c.observed.memory || !c.input.memory) return [];
  const fmt = elementFormat(p.q.type ?? '');
  if (fmt.lane.kind !== 'float') return [];
  const lf = fmt.lane;
  const space = (p.q.space ?? p.q.dst ?? '').startsWith('shared') ? 'shared' : 'global';
  const specified = fpRule(p.family.id, space, fmt.name);
  const operand = c.input.b ?? c.input.source ?? [];
  return ALTERNATIVES.filter((alt) => {
    const fi = alt.flushIn ?? specified.ftz === true;
    const fo = alt.flushOut ?? specified.ftz === true;
    return c.observed.memory!.every((obs, i) => {
      const rl = splitLanes(fmt, BigInt(c.input.memory![i]!));
      const sl = splitLanes(fmt, BigInt(operand[i]!));
      const ol = splitLanes(fmt, BigInt(obs));
      return rl.every((r, l) => {
        let out = addBitsExact(lf, fi ? flush(lf, r) : r, fi ? flush(lf, sl[l]!) : sl[l]!, 'inf', alt.rounding ?? 'rn');
        if (fo) out = flush(lf, out);
        const want = ol[l]!;
        return classify(lf, out) === 'nan' ? classify(lf, want) === 'nan' : out === want;
      });
    });
  });
}

export interface Finding {
  /** Family, operation, type and space the finding is about. */
  readonly subject: string;
  /** Ids of the alternatives that explain every case of the group ('' when none does). */
  readonly explanation: string;
  readonly text: string;
  readonly count: number;
  readonly examples: readonly string[];
}

/**
 * Groups mismatches into findings: per subject, the alternatives that explain every one of its cases
 * (the intersection); a subject whose cases no single alternative covers is split by explanation.
 */
export function groupFindings(cases: readonly (Explainable & { id: string })[]): Finding[] {
  const bySubject = new Map<string, { c: Explainable & { id: string }; alts: Alternative[] }[]>();
  for (const c of cases) {
    const p = parseInstruction(c.variant.endsWith('(_)') ? `${c.variant.slice(0, -3)} _, [a], b;` : c.variant);
    const subject = `${p.family.id} .${p.q.op}.${p.q.type} on .${(p.q.space ?? p.q.dst ?? '') || 'generic'}`;
    const list = bySubject.get(subject) ?? [];
    list.push({ c, alts: explain(c) });
    bySubject.set(subject, list);
  }
  const out: Finding[] = [];
  const finding = (subject: string, alts: Alternative[], items: { c: { id: string } }[]): Finding => ({
    subject,
    explanation: alts.map((a) => a.id).join(','),
    text: alts.length ? `observed = reference with ${alts.map((a) => a.text).join(', or with ')}` : 'no alternative rule reproduces it',
    count: items.length,
    examples: items.slice(0, 3).map((x) => x.c.id),
  });
  for (const [subject, items] of bySubject) {
    const common = ALTERNATIVES.filter((a) => items.every((x) => x.alts.some((y) => y.id === a.id)));
    if (common.length) {
      out.push(finding(subject, common, items));
      continue;
    }
    const bySet = new Map<string, typeof items>();
    for (const x of items) {
      const k = x.alts.map((a) => a.id).join(',');
      bySet.set(k, [...(bySet.get(k) ?? []), x]);
    }
    for (const group of bySet.values()) out.push(finding(subject, group[0]!.alts, group));
  }
  return out.sort((a, b) => b.count - a.count);
}
