/**
 * report/tally.ts: the one module that spells and reads the counts of report.json's stats. Family
 * ids hold dots and verdicts hyphens, so a reader that splits on the first or last dot the wrong
 * way reads them wrong; other stats (seconds, cases) are no counts.
 */
import { describe, expect, it } from 'vitest';
import { Tally, addCount, addTally, hasTally, moveTally, tallyRows, tallyText } from '../../harness/report/tally.js';

describe('Tally', () => {
  it('writes counts that tallyRows reads back: a family with dots, a verdict with a hyphen, order kept', () => {
    const t = new Tally().judged('cp.reduce.async.bulk', 'known-deviation', 2).checked('atom', 'compile-mismatch').dropped('multimem.ld_reduce', 'cases', 5);
    t.judged('atom', 'pass', 0);
    const stats = { cases: 9, runSeconds: 1.5, ...t.stats() };
    expect(tallyRows(stats)).toEqual([
      { kind: 'total', family: 'cp.reduce.async.bulk', what: 'known-deviation', n: 2 },
      { kind: 'entries', family: 'atom', what: 'compile-mismatch', n: 1 },
      { kind: 'dropped', family: 'multimem.ld_reduce', what: 'cases', n: 5 },
      { kind: 'total', family: 'atom', what: 'pass', n: 0 },
    ]);
    expect(tallyRows(stats, 'total', 'atom')).toEqual([{ kind: 'total', family: 'atom', what: 'pass', n: 0 }]);
    expect(tallyText(tallyRows(stats, 'total'))).toBe('cp.reduce.async.bulk.known-deviation 2, atom.pass 0');
  });

  it('hasTally: a zero count is there only when asked for any', () => {
    const stats = new Tally().judged('atom', 'pass', 0).stats();
    expect(hasTally(stats, 'total')).toBe(false);
    expect(hasTally(stats, 'total', undefined, true)).toBe(true);
    expect(hasTally(stats, 'entries', undefined, true)).toBe(false);
  });

  it('moveTally moves one count between verdicts, and refuses where the stats have none of the first', () => {
    const stats = new Tally().judged('red', 'mismatch', 3).stats();
    expect(moveTally(stats, 'total', 'red', 'mismatch', 'known-deviation')).toBe(true);
    expect(tallyRows(stats).map((r) => `${r.what} ${r.n}`)).toEqual(['mismatch 2', 'known-deviation 1']);
    expect(moveTally(stats, 'total', 'red', 'error', 'pass')).toBe(false);
    expect(moveTally(stats, 'entries', 'red', 'mismatch', 'pass')).toBe(false);
  });

  it('addTally and addCount sum into stats', () => {
    const stats: Record<string, number> = {};
    addTally(stats, new Tally().judged('atom', 'pass', 2));
    addTally(stats, new Tally().judged('atom', 'pass', 3).stats());
    addCount(stats, 'dropped', 'atom', 'entries', 4);
    expect(tallyRows(stats).map((r) => `${r.kind} ${r.family} ${r.what} ${r.n}`)).toEqual(['total atom pass 5', 'dropped atom entries 4']);
  });
});
