/** Findings: each groups results whose subject, verdict and explanation agree, and counts them honestly. */
import { describe, expect, it } from 'vitest';
import { findingsOf } from '../../harness/compare/compare.js';
import type { EntryResult } from '../../harness/report/types.js';

const skipped = (id: string, family: string, reason: string): EntryResult => ({
  id,
  family,
  kind: 'variant',
  ptx: id,
  modulePtx: '9.0',
  catalog: { status: 'valid', expect: 'accept', reason: 'valid', rules: [] },
  verdict: 'skipped',
  reason,
});

describe('skipped entries', () => {
  it('one finding per family and reason: a reason several families share is not counted under the first family', () => {
    const why = 'needs PTX ISA 9.4; ptxas 13.0 supports up to 9.0';
    const { findings, results } = findingsOf([
      skipped('atom.a', 'atom', why),
      skipped('red.a', 'red', why),
      skipped('red.b', 'red', why),
      skipped('red.c', 'red', 'needs PTX ISA 9.3; ptxas 13.0 supports up to 9.0'),
    ]);
    expect(findings.map((f) => [f.subject, f.count, f.text])).toEqual([
      ['red', 2, why],
      ['atom', 1, why],
      ['red', 1, 'needs PTX ISA 9.3; ptxas 13.0 supports up to 9.0'],
    ]);
    // each result names the finding of its own family
    const byId = Object.fromEntries(results.map((r) => [r.id, findings.find((f) => f.key === r.finding)!.subject]));
    expect(byId).toEqual({ 'atom.a': 'atom', 'red.a': 'red', 'red.b': 'red', 'red.c': 'red' });
  });
});
