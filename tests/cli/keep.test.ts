/**
 * A ptxas + reference run keeps every result that is not a plain pass and the
 * first --keep passes (of entries, and of cases), counting the rest: the console's counts equal
 * those of the same run with --keep all, the expectations come out the same, and the stream is
 * compressed. (The default run measured on the 2-core machine: 119 MB before, 28 MB after.)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, runLines } from '../helpers/cli.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-keep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runLines(args);

it.skipIf(typeof (await ptxasOrReason()) === 'string')(
  '--keep 5 against --keep all: the same counts, expectations and exit code; fewer results kept',
  async () => {
    const args = ['--backend', 'ptxas', '--arch', 'sm_90', '--filter', 'red.global.*.u32,atom.global.*.f32'];
    const a = await run([...args, '--keep', 'all', '--report', join(dir, 'all')]);
    const b = await run([...args, '--keep', '5', '--report', join(dir, 'five')]);
    expect(b.code).toBe(a.code);
    const table = (o: string[]) =>
      o.slice(
        o.findIndex((l) => l.startsWith('family')),
        o.findIndex((l) => l.startsWith('all results')) + 1,
      );
    expect(table(b.out)).toEqual(table(a.out));
    const ra = JSON.parse(readFileSync(join(dir, 'all', 'report.json'), 'utf8'));
    const rb = JSON.parse(readFileSync(join(dir, 'five', 'report.json'), 'utf8'));
    expect(rb.expectations.outcomes.map((o: { status: string }) => o.status)).toEqual(ra.expectations.outcomes.map((o: { status: string }) => o.status));
    expect(rb.results.length).toBeLessThan(ra.results.length);
    // every result that is not a plain pass is kept; 5 passes of entries and 5 of cases
    const nonPass = (r: { results: { verdict: string }[] }) => r.results.filter((x) => x.verdict !== 'pass').length;
    expect(nonPass(rb)).toBe(nonPass(ra));
    expect(rb.results.filter((x: { verdict: string; kind: string }) => x.verdict === 'pass' && x.kind !== 'case').length).toBe(5);
    expect(rb.results.filter((x: { verdict: string; kind: string }) => x.verdict === 'pass' && x.kind === 'case').length).toBe(5);
    expect(b.out.join('\n')).toMatch(
      /passes are counted above but not kept whole in the report \(--keep all keeps every catalog entry and every case given in files or by --case; generated cases are sampled\)/,
    );
    expect(existsSync(join(dir, 'five', 'results.jsonl.gz'))).toBe(true);
    expect((await runCli(['--keep', 'most'])).code).toBe(2);
  },
  240_000,
);
