/**
 * A run's results through the comparator's last steps, in order: enrich (rule trail, allowed sets,
 * explanation of each mismatch, NaN kind), expectations (known deviations, unexpected passes),
 * findings (grouped, each result naming its own).
 */
import type { EntryResult } from '../report/types.js';
import { type ReportFinding, enrichResult, findingsOf } from './compare.js';
import { type Expectation, type ExpectationOutcome, applyExpectations } from './expectations.js';

export interface JudgedRun {
  readonly results: EntryResult[];
  readonly findings: ReportFinding[];
  readonly outcomes: ExpectationOutcome[];
}

/** judgeRun of results already enriched (each through enrichResult: the recorder does it as they come, while the run waits). */
export function judgeEnriched(
  enriched: readonly EntryResult[],
  expectations: readonly Expectation[] = [],
  covered: readonly string[] = [],
  coveredEntries: readonly string[] = [],
  observedElsewhere: ReadonlySet<string> = new Set(),
): JudgedRun {
  const { results: expected, outcomes } = applyExpectations(enriched, expectations, covered, coveredEntries, observedElsewhere);
  const { findings, results } = findingsOf(expected);
  return { results, findings, outcomes };
}

/** The results through every step: enriched, then judgeEnriched's (the same expectations and coverage). */
export function judgeRun(raw: readonly EntryResult[], ...rest: Parameters<typeof judgeEnriched> extends [unknown, ...infer R] ? R : never): JudgedRun {
  return judgeEnriched(raw.map(enrichResult), ...rest);
}
