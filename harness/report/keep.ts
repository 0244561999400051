/**
 * Cases whose results a report keeps whole even when they pass: the first this many of a run. Past
 * them a backend keeps only what is not a plain pass and counts the rest in stats.total.* (the
 * reference backend and the gpu backend's given cases alike), so that a vector file of millions of
 * cases writes a report of a few MB. A module of its own, so that --help states it without loading
 * the report writers.
 */
import { Tally } from './tally.js';

export const KEEP_WHOLE = 20_000;

/** What a keep rule needs of a result. */
interface Judged {
  readonly id: string;
  readonly family: string;
  readonly kind: string;
  readonly verdict: string;
}

/**
 * The keep rule of a finished run, for results not yet kept: every result that is not a plain pass,
 * and passes while fewer than `keepPasses` are kept (`passesKept` of them already are). The rest are
 * counted in stats as dropped.<family>.cases|entries (the report's totals add them back) and their
 * ids returned, by kind, for the recorder's cover().
 */
export function applyKeepRule<R extends Judged>(
  rs: readonly R[],
  keepPasses: number,
  passesKept: number,
): { kept: R[]; counts: Record<string, number>; cases: string[]; entries: string[] } {
  const kept: R[] = [];
  const counts = new Tally();
  const cases: string[] = [];
  const entries: string[] = [];
  let passes = passesKept;
  for (const r of rs) {
    if (r.verdict !== 'pass' || passes++ < keepPasses) {
      kept.push(r);
      continue;
    }
    const what = r.kind === 'case' ? 'cases' : 'entries';
    (what === 'cases' ? cases : entries).push(r.id);
    counts.dropped(r.family, what);
  }
  return { kept, counts: counts.stats(), cases, entries };
}
