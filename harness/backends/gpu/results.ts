/**
 * How a case run on the GPU becomes a result, and which results a report keeps. Every case is
 * judged; a report keeps every case from a file (with observed bits, the reference's allowed set,
 * the file's expect and whether the hardware agrees with it), every mismatch and error, the directed
 * probes of variants without ordering/scope/hint qualifiers, and a seeded 1/997 sample of each
 * variant's first 4000 cases (generated cases replay from their ids), so that a whole run stays a
 * few MB however many cases it judges.
 */
import type { Case } from '../../case-readers/types.js';
import type { Qualifiers } from '../../catalog/types.js';
import { elementFormat } from '../../numerics/formats.js';
import { type EntryResult, caseResultHead } from '../../report/types.js';
import type { ObservationVerdict } from '../../compare/judge-case.js';
import { hexBits as hex } from '../../numerics/hex.js';

/** Generated cases past this index of a job are only counted, never sampled. */
export const SAMPLE_WINDOW = 4000;

export function keepCase(q: Qualifiers, probe: boolean, verdict: string, j: number, seed: number): boolean {
  const plain = !q.sem && !q.scope && !q.hint && !q.d;
  // the sample: 1/997 of a variant's first 4000 cases, so --generated 10^5 keeps no more than a default run
  return verdict === 'mismatch' || verdict === 'error' || (plain && probe) || (j < SAMPLE_WINDOW && ((j + 1) * 2654435761 + seed) % 997 === 0);
}

export function caseResult(
  c: Case,
  v: Pick<ObservationVerdict, 'verdict' | 'reason' | 'unspecified'>,
  observed: { memory: readonly bigint[]; returned?: readonly bigint[] },
  o: { modulePtx: string; sass: string },
): EntryResult {
  const fmt = elementFormat(c.variant.q.type ?? '');
  const H = (xs?: readonly bigint[]) => xs?.map((x) => hex(fmt.bits, x));
  const input = {
    ...(c.input.memory ? { memory: H(c.input.memory) } : {}),
    ...(c.input.b ? { b: H(c.input.b) } : {}),
    ...(c.input.c ? { c: H(c.input.c) } : {}),
    ...(c.input.source ? { source: H(c.input.source) } : {}),
    ...(c.input.space ? { space: c.input.space } : {}),
  };
  const expect = c.expect && { ...(c.expect.memory ? { memory: H(c.expect.memory) } : {}), ...(c.expect.returned ? { returned: H(c.expect.returned) } : {}) };
  // the rule trail, the allowed sets and whether the hardware agrees with `expect` are the
  // comparator's (compare.ts enrichResult), as for every executor
  return {
    ...caseResultHead(c, o.modulePtx),
    sass: o.sass,
    verdict: v.verdict,
    reason: v.reason,
    case: {
      origin: { ...c.origin, ...(c.cite !== undefined ? { cite: c.cite } : {}) } as Record<string, string | number>,
      input,
      ...(expect ? { expect } : {}),
      observed: { memory: H(observed.memory), ...(observed.returned ? { returned: H(observed.returned) } : {}) },
      allowed: {},
      unspecified: v.unspecified,
    },
  };
}
