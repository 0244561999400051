/**
 * The case library judged in a child process beside ptxas (library-cases.ts, case-child.ts) gives
 * the report the run's own thread gives: the same results in the same order, the same counts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CaseTally, SHARE_MIN, canShare, handedOver, judgeShared, mergeShared, selectLibrary, startCaseChild } from '../../harness/cli/library-cases.js';
import { runCaseOnReference } from '../../harness/backends/reference/cases.js';
import { specEdition } from '../../harness/catalog/editions.js';
import { registerAllFamilies } from '../../harness/families/index.js';
import type { EntryResult } from '../../harness/report/types.js';
import { runAtRoot } from '../helpers/cli.js';

registerAllFamilies();

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-case-child-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(name: string, inline: boolean) {
  const was = process.env.PTXCONF_CASES_CHILD;
  process.env.PTXCONF_CASES_CHILD = inline ? '0' : '1';
  try {
    // a slice of the catalog and library (the whole of it takes the child without being asked), under
    // ptxas with an empty cache of its own
    const r = await runAtRoot(['--filter', 'atom.global.add.*', '--shard', '1/2', '--cache-dir', join(dir, `cache-${name}`), '--report', join(dir, name)]);
    return { ...r, report: JSON.parse(readFileSync(join(dir, name, 'report.json'), 'utf8')) };
  } finally {
    if (was === undefined) delete process.env.PTXCONF_CASES_CHILD;
    else process.env.PTXCONF_CASES_CHILD = was;
  }
}

describe('the case library in a child process', () => {
  it('gives the results, counts and stats the run gives on its own thread', async () => {
    const own = await run('own', true);
    const child = await run('child', false);
    expect(child.code).toBe(own.code);
    const cases = (r: typeof own) => r.report.results.filter((x: { kind: string }) => x.kind === 'case');
    expect(cases(own).length).toBeGreaterThan(30);
    expect(child.report.results).toEqual(own.report.results);
    expect(child.report.counts).toEqual(own.report.counts);
    const timing = /Ms$|PerSecond$|Seconds$/;
    const stats = (r: typeof own) => Object.fromEntries(Object.entries(r.report.stats as Record<string, number>).filter(([k]) => !timing.test(k)));
    expect(stats(child)).toEqual(stats(own));
    expect(child.out).toMatch(/cases on the reference model: \d+ \(directed \d+/);
  }, 120_000);

  it('a child that fails says why (finished rejects with its message)', async () => {
    const c = startCaseChild({ seed: 1, keepPasses: 0, specEdition: 'nine' as never }, () => {});
    expect(c).toBeDefined();
    await expect(c!.finished).rejects.toThrow(/^the case child failed: /);
  }, 60_000);
});

describe("the run sharing the case child's work", () => {
  it("every other case handed over, judged here and tallied in order with the child's, gives what one thread gives (results, order, --keep, totals)", async () => {
    const opts = { seed: 3, filter: 'atom.global.add.*,multimem.ld_reduce.global.add.acc::f32.v2.f16' };
    const own = await selectLibrary(opts);
    const total = own.total;
    expect(total).toBeGreaterThan(4 * SHARE_MIN);
    // a --keep that runs out after the split: the cases from there keep the rest of its passes
    const keepPasses = Math.floor(total * 0.75);
    const one = new CaseTally(keepPasses);
    const want = one.keep(own.cases.map((c) => runCaseOnReference(c)));
    const kept: EntryResult[] = [];
    const c = startCaseChild({ ...opts, keepPasses, specEdition: specEdition() }, (rs) => void kept.push(...rs))!;
    // asked before the child has selected: it splits at its first case
    const part = await judgeShared(c, () => {});
    const done = await c.finished;
    expect(done.split).toBe(0);
    expect(part.split).toBe(0);
    // every case judged once, by one of the two (this thread asking again when done with its share)
    expect(part.results.length + done.rest.length).toBe(total);
    expect(part.results.length).toBeGreaterThanOrEqual(Math.floor(total / 2));
    expect(new Set([...part.at, ...done.restAt]).size).toBe(total);
    const m = mergeShared(done, part, keepPasses, total);
    const plain = (rs: readonly EntryResult[]) => JSON.parse(JSON.stringify(rs));
    expect(plain([...kept, ...m.kept])).toEqual(plain(want));
    expect(m.totals).toEqual(one.totals);
    expect(m.cases).toBe(total);
    expect(m.dropped).toBe(one.dropped);
    expect(one.dropped).toBeGreaterThan(0);
    // an ask after the child ended gets nothing
    expect((await c.share()).cases.length).toBe(0);
    // pieces that do not fit are refused, not tallied
    expect(() => mergeShared({ ...done, split: 1 }, part, keepPasses, total)).toThrow(/split at case 1/);
    expect(() => mergeShared(done, { ...part, results: part.results.slice(1) }, keepPasses, total)).toThrow(/sent \d+ results for \d+ cases/);
    expect(() => mergeShared(done, { ...part, results: part.results.slice(1), at: part.at.slice(1) }, keepPasses, total)).toThrow(/judged by neither/);
    expect(() => mergeShared({ ...done, split: undefined }, part, keepPasses, total)).toThrow(/without sharing/);
  }, 120_000);

  it('shares where at least twice the least is left, and hands over the cases between the ones it keeps, at every level', () => {
    expect(canShare(10, 1, 100)).toBe(true);
    expect(canShare(100 - 2 * SHARE_MIN, 1, 100)).toBe(true);
    expect(canShare(101 - 2 * SHARE_MIN, 1, 100)).toBe(false);
    // every other case left: 4 * SHARE_MIN cases from 0 with step 2 is 2 * SHARE_MIN of them
    expect(canShare(0, 2, 4 * SHARE_MIN)).toBe(true);
    expect(canShare(1, 2, 4 * SHARE_MIN)).toBe(true);
    expect(canShare(2, 2, 4 * SHARE_MIN)).toBe(false);
    expect(handedOver([0, 1, 2, 3, 4, 5, 6], 2)).toEqual([3, 5]);
    expect(handedOver([0, 1, 2, 3, 4, 5], 2)).toEqual([3, 5]);
    // a second share: the child at 2 with step 2 (2, 4, 6, ... left) hands over 4, 8, ...
    expect(handedOver([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 2, 2)).toEqual([4, 8]);
  });

  it('merges results of several shares by their cases, and refuses a case judged twice or by neither', () => {
    const r = (i: number) => ({ id: `c${i}`, family: 'f', verdict: 'pass' }) as unknown as EntryResult;
    const done = { cases: 2, totals: {}, dropped: 0, passes: 2, split: 2, rest: [r(2), r(6)], restAt: [2, 6] };
    // the run took 3, 5, 7 at the first share and 4 at the second
    const part = { split: 2, results: [r(3), r(5), r(7), r(4)], at: [3, 5, 7, 4] };
    const m = mergeShared(done, part, 100, 8);
    expect(m.kept.map((x) => x.id)).toEqual(['c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
    expect(m.cases).toBe(8);
    expect(() => mergeShared(done, { ...part, at: [3, 5, 7, 6] }, 100, 8)).toThrow(/case 6 of 8 .* judged twice/);
    expect(() => mergeShared(done, { ...part, results: part.results.slice(0, 3), at: [3, 5, 7] }, 100, 8)).toThrow(/case 4 was judged by neither/);
    expect(() => mergeShared(done, { ...part, at: [3, 5, 7, 8] }, 100, 8)).toThrow(/outside the cases left/);
  });
});
