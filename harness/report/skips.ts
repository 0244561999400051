/**
 * The skip account of a run (issue 27, deliverable 6): every skipped result counted by why it was
 * skipped, in five groups that say what it would take to run it:
 *  - `executor`: this harness's executor does not run it (a limitation of the code, fixable here);
 *  - `multicast`: it needs multicast (NVLink SHARP) hardware, or the multicast backend;
 *  - `architecture`: it needs a newer architecture than the run's target;
 *  - `toolchain`: it needs a newer ptxas (a PTX ISA this one does not write) or one that does not
 *    crash on it;
 *  - `other`: anything else (no GPU, no toolchain, ...), each reason shown as it is.
 * A reason is put in a group by the words the executors write (one table, below); one that no row
 * matches goes to `other` with its text, so that nothing is hidden.
 */
import type { EntryResult } from './types.js';

export type SkipGroup = 'executor' | 'multicast' | 'architecture' | 'toolchain' | 'other';

export const SKIP_GROUPS: readonly { readonly group: SkipGroup; readonly label: string }[] = [
  { group: 'executor', label: 'executor limitation (this harness does not run it yet)' },
  { group: 'multicast', label: 'needs multicast (NVLink SHARP) hardware' },
  { group: 'architecture', label: 'needs a newer architecture' },
  { group: 'toolchain', label: 'needs a newer toolchain (or one that does not crash on it)' },
  { group: 'other', label: 'other' },
];

/** First match wins: the multicast and toolchain sentences before the executor's, whose reasons may name an architecture in passing. */
const RULES: readonly { readonly group: SkipGroup; readonly test: RegExp }[] = [
  // gpu backend: "device reports no multicast support (...)", "multimem needs a multicast object ..."
  { group: 'multicast', test: /multicast/ },
  // gpu plan: "toolchain too old: X needs PTX ISA 9.2, and this ptxas writes PTX ISA 9.0 at most"
  { group: 'toolchain', test: /^toolchain too old: / },
  // ptxas backend: "needs PTX ISA 9.2; ptxas 13.0 supports up to 9.0"
  { group: 'toolchain', test: /^needs PTX ISA [\d.]+; ptxas \S+ supports up to / },
  // gpu plan: "ptxas 13.0 crashes (SIGSEGV) on atom with the bit bucket _ ...; no cubin can hold it"
  { group: 'toolchain', test: /^ptxas [\d.]+(?: and [\d.]+)? crash(?:es)? / },
  // ptxas backend: "an empty sm_120a module in PTX ISA 8.7 does not compile: ..." (this ptxas does not know the target)
  { group: 'toolchain', test: /^an empty \S+ module in PTX ISA [\d.]+ does not compile/ },
  // gpu executor: "the gpu executor builds ...", and a case it cannot place: "...; the reference backend runs it"
  { group: 'executor', test: /\bthe gpu executor\b|; the reference backend runs it$/ },
  // gpu backend, a case whose variant the target does not accept: the catalog's "not supported on sm_90: ... needs sm_100 or higher"
  { group: 'architecture', test: /\bneeds sm_\d+\w* or higher/ },
];

export function skipGroup(reason: string): SkipGroup {
  return RULES.find((r) => r.test.test(reason))?.group ?? 'other';
}

/** A reason as counted: a case's own variant id at the start of a sentence about its variant is left out, so its cases count as one reason. */
export function skipReasonKey(reason: string): string {
  return reason.replace(/^\S+ is not a variant the catalog expects/, 'the variant is not one the catalog expects');
}

export interface SkipReasonCount {
  readonly reason: string;
  readonly count: number;
  /** One result skipped for it. */
  readonly example: string;
}

export interface SkipAccount {
  readonly total: number;
  /** Every group, in SKIP_GROUPS order (count 0 included), each reason in it by count, then text. */
  readonly groups: readonly { readonly group: SkipGroup; readonly label: string; readonly count: number; readonly reasons: readonly SkipReasonCount[] }[];
}

/** Reasons kept per group in a report (the counts of the rest stay in the group's count). */
const MAX_REASONS = 50;

export function skipAccount(results: readonly EntryResult[]): SkipAccount {
  const by = new Map<SkipGroup, Map<string, { count: number; example: string }>>();
  let total = 0;
  for (const r of results) {
    if (r.verdict !== 'skipped') continue;
    total++;
    const g = skipGroup(r.reason);
    const key = skipReasonKey(r.reason);
    const m = by.get(g) ?? new Map<string, { count: number; example: string }>();
    by.set(g, m);
    const c = m.get(key);
    if (c) c.count++;
    else m.set(key, { count: 1, example: r.id });
  }
  return {
    total,
    groups: SKIP_GROUPS.map(({ group, label }) => {
      const reasons = [...(by.get(group) ?? new Map<string, { count: number; example: string }>())]
        .map(([reason, c]) => ({ reason, count: c.count, example: c.example }))
        .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
      return { group, label, count: reasons.reduce((t, x) => t + x.count, 0), reasons: reasons.slice(0, MAX_REASONS) };
    }),
  };
}
