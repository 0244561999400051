/**
 * The counts a run keeps beside its results, typed. Every executor judges more than a report keeps
 * whole (passes past --keep are counted, not kept), so it counts per family: every case judged and
 * its verdict (`total`), every catalog entry checked and its verdict (`entries`), the passes counted
 * and not kept (`dropped`: cases, entries), and the `observed` results counted and not kept
 * (`droppedObserved`: cases). In report.json's `stats` they are flat keys `<kind>.<family>.<what>`
 * (report version 4); this module is the only one that writes or reads that spelling: executors add
 * to a Tally, readers ask tallyRows/tallyOf.
 */
import type { Verdict } from './verdicts.js';

export const TALLY_KINDS = ['total', 'entries', 'dropped', 'droppedObserved'] as const;
/** total, entries: per verdict; dropped: per `cases`/`entries`; droppedObserved: `cases`. */
export type TallyKind = (typeof TALLY_KINDS)[number];
export type Dropped = 'cases' | 'entries';

/** One count: what a kind counts of one family. */
export interface TallyRow {
  readonly kind: TallyKind;
  readonly family: string;
  /** A verdict (total, entries), or what was not kept (dropped, droppedObserved: cases or entries). */
  readonly what: string;
  readonly n: number;
}

/** The stats key of a count. */
function key(kind: TallyKind, family: string, what: string): string {
  return `${kind}.${family}.${what}`;
}

const KEY = /^(total|entries|dropped|droppedObserved)\.(.+)\.([a-z][a-z-]*)$/;

/** A stats key read back, or undefined where it is no count of this module's (cases, seconds, ...). */
function parseKey(k: string): { kind: TallyKind; family: string; what: string } | undefined {
  const m = KEY.exec(k);
  return m ? { kind: m[1] as TallyKind, family: m[2]!, what: m[3]! } : undefined;
}

/** Counts per kind, family and verdict (or what was not kept), as they are made. */
export class Tally {
  private readonly counts: Record<string, number> = {};

  /** Adds `n` judged cases of `family` with `verdict`. */
  judged(family: string, verdict: Verdict, n = 1): this {
    return this.add('total', family, verdict, n);
  }

  /** Adds `n` catalog entries of `family` checked with `verdict`. */
  checked(family: string, verdict: Verdict, n = 1): this {
    return this.add('entries', family, verdict, n);
  }

  /** Adds `n` passes of `family` counted and not kept whole (cases or entries). */
  dropped(family: string, what: Dropped, n = 1): this {
    return this.add('dropped', family, what, n);
  }

  add(kind: TallyKind, family: string, what: string, n = 1): this {
    const k = key(kind, family, what);
    this.counts[k] = (this.counts[k] ?? 0) + n;
    return this;
  }

  get(kind: TallyKind, family: string, what: string): number {
    return this.counts[key(kind, family, what)] ?? 0;
  }

  /** Whether any count was made. */
  get empty(): boolean {
    for (const _ in this.counts) return false;
    return true;
  }

  /** The counts as report.json's stats keys. */
  stats(): Record<string, number> {
    return { ...this.counts };
  }
}

/** The counts of a report's stats (every other stat left out), in the stats' order. */
export function tallyRows(stats: Readonly<Record<string, number>>, kind?: TallyKind, family?: string): TallyRow[] {
  const out: TallyRow[] = [];
  for (const [k, n] of Object.entries(stats)) {
    const p = parseKey(k);
    if (!p || (kind !== undefined && p.kind !== kind) || (family !== undefined && p.family !== family)) continue;
    out.push({ ...p, n });
  }
  return out;
}

/** Whether the stats hold any count of `kind` (and, if given, of `what`) above zero or at all (`any`). */
export function hasTally(stats: Readonly<Record<string, number>>, kind: TallyKind, what?: string, any = false): boolean {
  return tallyRows(stats, kind).some((r) => (what === undefined || r.what === what) && (any || r.n > 0));
}

/** `<family>.<what> n` for each count of a kind: the line the console and the page print. */
export function tallyText(rows: readonly TallyRow[], n: (x: number) => string = String): string {
  return rows.map((r) => `${r.family}.${r.what} ${n(r.n)}`).join(', ');
}

/**
 * Moves one count of `family` from verdict `from` to `to` in stats (a result judged again: render
 * with another edition or expectations file); false where the stats hold no count of `from`.
 */
export function moveTally(stats: Record<string, number>, kind: 'total' | 'entries', family: string, from: string, to: string): boolean {
  const f = key(kind, family, from);
  if (stats[f] === undefined) return false;
  stats[f]!--;
  const t = key(kind, family, to);
  stats[t] = (stats[t] ?? 0) + 1;
  return true;
}

/** Adds `n` to one count in stats. */
export function addCount(stats: Record<string, number>, kind: TallyKind, family: string, what: string, n = 1): void {
  const k = key(kind, family, what);
  stats[k] = (stats[k] ?? 0) + n;
}

/** Adds a Tally's counts (or stats keys of counts) into stats. */
export function addTally(stats: Record<string, number>, counts: Tally | Readonly<Record<string, number>>): void {
  for (const [k, n] of Object.entries(counts instanceof Tally ? counts.stats() : counts)) stats[k] = (stats[k] ?? 0) + n;
}
