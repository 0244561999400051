/**
 * Honest counts on vector files (reference backend): --keep all and --keep N
 * are honoured (they were ignored: the first 20,000 cases were kept whatever --keep said), the
 * summary table counts every judged case (it counted only the kept ones) and says the kept sample
 * apart, and the progress line counts the file being read (it said "0 file(s)" while reading one).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { filesText } from '../../harness/cli/run-cases.js';
import { runLines } from '../helpers/cli.js';
import { SPELLING_HEAD, spell, spelledCase } from '../../scripts/vector-spellings.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-keep-vectors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** n cases, every 50th with a wrong expect (a mismatch, always kept). */
function file(n: number): string {
  const f = join(dir, `v${n}.yaml`);
  writeFileSync(f, SPELLING_HEAD + Array.from({ length: n }, (_, i) => spell(spelledCase(i, 50), 'block')).join(''));
  return f;
}
const report = (r: string) => JSON.parse(readFileSync(join(r, 'report.json'), 'utf8')) as { stats: Record<string, number>; results: { verdict: string }[] };
const table = (o: string[]) =>
  o.slice(
    o.findIndex((l) => l.startsWith('family')),
    o.findIndex((l) => l.startsWith('all results')) + 1,
  );
const allResults = (o: string[]) => Number(table(o).at(-1)!.trim().split(/\s+/).at(-1));

describe('--keep and the counts on vector files', () => {
  const big = file(20_500);
  it('--keep all keeps every case past the first 20,000; the default keeps 20,000 and the mismatches, and both tables count all', async () => {
    const all = await runLines(['--vectors', big, '--backend', 'reference', '--keep', 'all', '--report', join(dir, 'all')]);
    const def = await runLines(['--vectors', big, '--backend', 'reference', '--report', join(dir, 'def')]);
    expect(all.code).toBe(1);
    expect(def.code).toBe(1);
    expect(report(join(dir, 'all')).results).toHaveLength(20_500);
    const kept = report(join(dir, 'def')).results;
    expect(kept.length).toBe(20_000 + 10); // the mismatches past 20,000: cases 20,049, 20,099, ... 20,499
    expect(allResults(all.out)).toBe(20_500);
    expect(allResults(def.out)).toBe(20_500);
    expect(table(def.out)).toEqual(table(all.out));
    expect(def.out.join('\n')).toMatch(/490 passes are counted above but not kept whole/);
    expect(all.out.join('\n')).not.toMatch(/not kept whole/);
  }, 120_000);

  it('--keep N keeps the first N cases whole and every mismatch; the table counts all', async () => {
    const f = file(1_000);
    const r = await runLines(['--vectors', f, '--backend', 'reference', '--keep', '100', '--report', join(dir, 'k100')]);
    expect(r.code).toBe(1);
    const kept = report(join(dir, 'k100')).results;
    expect(kept.length).toBe(100 + 18); // cases 149, 199, ..., 999 past the first 100
    expect(kept.filter((x) => x.verdict === 'mismatch')).toHaveLength(20);
    expect(allResults(r.out)).toBe(1_000);
    expect(r.out.join('\n')).toMatch(/882 passes are counted above but not kept whole/);
  }, 60_000);

  it("--keep all: report.json takes the stream's own text of each result (not serialized twice) and says the same", async () => {
    const f = file(3_000);
    const d = join(dir, 'same');
    expect((await runLines(['--vectors', f, '--backend', 'reference', '--keep', 'all', '--report', d])).code).toBe(1);
    const text = readFileSync(join(d, 'report.json'), 'utf8');
    const doc = JSON.parse(text) as { judgements: unknown[]; results: { catalog: number; verdict: string }[] };
    // one line of JSON, as JSON.stringify writes it
    expect(text).toBe(`${JSON.stringify(doc)}\n`);
    // each result, its judgement put back inline, is the stream's line of it (the stream in the order added)
    const stream = gunzipSync(readFileSync(join(d, 'results.jsonl.gz')))
      .toString('utf8')
      .trim()
      .split('\n')
      .slice(1);
    expect(doc.results).toHaveLength(3_000);
    expect(stream).toHaveLength(3_000);
    const inline = doc.results.map((r) => JSON.stringify({ ...r, catalog: doc.judgements[r.catalog] }));
    const passes = inline.filter((l, i) => doc.results[i]!.verdict === 'pass');
    expect(passes.length).toBeGreaterThan(2_900);
    for (let i = 0; i < inline.length; i++) if (doc.results[i]!.verdict === 'pass') expect(inline[i]).toBe(stream[i]);
  }, 60_000);

  it('the progress line counts the file being read', () => {
    expect(filesText(0, 10, 100)).toBe('file 1 (0 done)');
    expect(filesText(2, 10, 100)).toBe('file 3 (2 done)');
    expect(filesText(1, 100, 100)).toBe('1 file(s) done');
  });
});
