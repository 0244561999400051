/**
 * The case library judged in a child process beside ptxas (library-cases.ts, case-child.ts) gives
 * the report the run's own thread gives: the same results in the same order, the same counts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCaseChild } from '../../harness/cli/library-cases.js';
import { runAtRoot } from '../helpers/cli.js';

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
