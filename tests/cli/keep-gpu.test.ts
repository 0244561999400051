/**
 * Honest counts on the gpu backend (here against the stand-in launcher,
 * tests/fixtures/standin-launcher.cts): --keep N keeps the first N given cases whole, counted across
 * jobs in order (and every result that is not a plain pass), --keep all keeps every one, no --keep
 * the first KEEP_WHOLE (20,000); before, the first 20,000 given cases' jobs kept every case whole
 * whatever --keep said. The stats and the summary table count every judged case either way (the
 * passes not kept whole as stats dropped.<family>.cases, said under the table). A job isolated after
 * its worker failed keeps the same cases. sweep and contend, which take no --keep, say so (exit 2).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/cjs/api';
import { afterAll, describe, expect, it } from 'vitest';
import { KEEP_WHOLE } from '../../harness/report/recorder.js';
import { SPELLING_HEAD, spell, spelledCase } from '../../scripts/vector-spellings.js';
import { runLines } from '../helpers/cli.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runWithStandin } from '../helpers/standin.js';

// the CLI probes the stand-in launcher in this process: let require() read its TypeScript
register();

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-keep-gpu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const p = await ptxasOrReason();

/** Cases over 5 variants of 2 families (atom, red): 5 jobs of 700 cases; the stand-in passes every one. */
const N = 3_500;
const file = join(dir, 'v.yaml');
writeFileSync(file, SPELLING_HEAD + Array.from({ length: N }, (_, i) => spell(spelledCase(i), 'flow')).join(''));

interface Report {
  stats: Record<string, number>;
  results: { id: string; kind: string; verdict: string; case?: { observed?: unknown; allowed?: unknown; fileExpect?: { agrees: boolean } } }[];
}
const report = (r: string) => JSON.parse(readFileSync(join(r, 'report.json'), 'utf8')) as Report;
/** The summary table's last row: every result the run judged. */
const allResults = (out: string) => Number(/^all results\s.*?(\d+)\s*$/m.exec(out)![1]);
const sum = (stats: Record<string, number>, re: RegExp) => Object.entries(stats).reduce((t, [k, v]) => t + (re.test(k) ? v : 0), 0);

describe.skipIf(typeof p === 'string')('--keep on the gpu backend (stand-in launcher)', () => {
  it('--keep 0, 1234 and all keep exactly that many given cases whole, no --keep min(all, 20,000); every case counted', async () => {
    const runs = [
      { name: 'k0', args: ['--keep', '0'], kept: 0 },
      { name: 'k1234', args: ['--keep', '1234'], kept: 1234 },
      { name: 'all', args: ['--keep', 'all'], kept: N },
      { name: 'default', args: [], kept: Math.min(N, KEEP_WHOLE) },
    ];
    const ids: Record<string, string[]> = {};
    for (const x of runs) {
      const out = join(dir, x.name);
      const r = await runWithStandin(['--vectors', file, '--backend', 'gpu', '--cache-dir', join(dir, 'cache'), ...x.args, '--report', out], {
        XDG_CACHE_HOME: join(dir, 'xdg'),
      });
      expect(r.code, `${x.name}\n${r.out}`).toBe(0);
      expect(r.out).toMatch(new RegExp(`gpu: ${N} cases of 5 variants judged`));
      const rep = report(out);
      const cases = rep.results.filter((c) => c.kind === 'case');
      // every case passes on the stand-in: exactly the cases kept whole, nothing else
      expect(cases.length, x.name).toBe(x.kept);
      for (const c of cases) {
        expect(c.verdict, c.id).toBe('pass');
        expect(c.case?.fileExpect?.agrees, c.id).toBe(true);
      }
      ids[x.name] = cases.map((c) => c.id);
      // the stats count every case judged; the passes not kept whole are said apart
      expect(rep.stats.cases, x.name).toBe(N);
      expect(rep.stats.givenCases, x.name).toBe(N);
      expect(sum(rep.stats, /^total\.(atom|red)\.pass$/), x.name).toBe(N);
      expect(sum(rep.stats, /^dropped\..+\.cases$/), x.name).toBe(N - x.kept);
      // the summary table counts every case (the kept sample said under it)
      expect(allResults(r.out), `${x.name}\n${r.out}`).toBe(N);
      if (x.kept < N) expect(r.out).toMatch(new RegExp(`${N - x.kept} passes are counted above but not kept whole`));
      else expect(r.out).not.toMatch(/not kept whole/);
    }
    // the first N given cases, counted across jobs in order: --keep 1234 keeps a prefix of what --keep all keeps
    expect(new Set(ids.all)).toEqual(new Set(ids.default));
    const all = new Set(ids.all);
    for (const id of ids.k1234!) expect(all.has(id), id).toBe(true);

    // wrong hardware (the stand-in flips a bit of every 100th case of a launch): --keep 1234 keeps the
    // same 1234 cases whole and every mismatch besides; the table still counts every case
    const out = join(dir, 'flip');
    const r = await runWithStandin(['--vectors', file, '--backend', 'gpu', '--cache-dir', join(dir, 'cache'), '--keep', '1234', '--report', out], {
      XDG_CACHE_HOME: join(dir, 'xdg'),
      PTXCONF_STANDIN_FLIP: '100',
    });
    expect(r.code, r.out).toBe(1);
    const rep = report(out);
    const mismatches = rep.results.filter((c) => c.verdict === 'mismatch').map((c) => c.id);
    expect(mismatches.length).toBe(sum(rep.stats, /^total\..+\.mismatch$/));
    expect(mismatches.length).toBeGreaterThan(N / 100 - 10);
    expect(new Set(rep.results.map((c) => c.id))).toEqual(new Set([...ids.k1234!, ...mismatches]));
    expect(rep.results.every((c) => c.verdict === 'pass' || c.verdict === 'mismatch')).toBe(true);
    const keptPasses = rep.results.filter((c) => c.verdict === 'pass').length;
    expect(sum(rep.stats, /^dropped\..+\.cases$/)).toBe(sum(rep.stats, /^total\..+\.pass$/) - keptPasses);
    expect(allResults(r.out), r.out).toBe(N);
  }, 300_000);

  it('a job isolated after its worker failed keeps the same first N given cases whole, and the culprit', async () => {
    // 8 cases of 2 variants: 2 jobs of 4 (atom.global.add.u32, atom.global.cas.b32); --keep 5 keeps
    // the first job's 4 and the second's first whole
    const small = join(dir, 'small.yaml');
    const picked = Array.from({ length: 20 }, (_, i) => i).filter((i) => i % 5 === 0 || i % 5 === 2);
    writeFileSync(small, SPELLING_HEAD + picked.map((i) => spell(spelledCase(i), 'flow')).join(''));
    const culprit = spelledCase(12); // the second job's third case
    const args = (name: string) => ['--vectors', small, '--backend', 'gpu', '--cache-dir', join(dir, 'cache'), '--keep', '5', '--report', join(dir, name)];
    const plain = await runWithStandin(args('iso-plain'), { XDG_CACHE_HOME: join(dir, 'xdg') });
    expect(plain.code, plain.out).toBe(0);
    const faulty = await runWithStandin(args('iso-fault'), {
      XDG_CACHE_HOME: join(dir, 'xdg'),
      PTXCONF_STANDIN_FAULT: `0x${culprit.memory.toString(16).padStart(8, '0')}`,
    });
    const rep = report(join(dir, 'iso-fault'));
    expect(rep.stats.isolatedJobs, faulty.out).toBeGreaterThan(0);
    const whole = report(join(dir, 'iso-plain')).results.map((c) => c.id);
    expect(whole.map((id) => id.split(':').pop()).sort()).toEqual(['case-0', 'case-10', 'case-15', 'case-2', 'case-5']);
    const errors = rep.results.filter((c) => c.verdict === 'error').map((c) => c.id);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`^atom\\.global\\.cas\\.b32/.*small\\.yaml:${culprit.name}$`));
    expect(new Set(rep.results.map((c) => c.id))).toEqual(new Set([...whole, ...errors]));
    expect(sum(rep.stats, /^dropped\..+\.cases$/)).toBe(8 - 5 - 1);
    expect(allResults(faulty.out), faulty.out).toBe(8);
  }, 300_000);
});

describe('sweep and contend refuse --keep in words (exit 2)', () => {
  it('says what each keeps instead, before looking for a GPU', async () => {
    for (const [cmd, what] of [
      ['sweep', /up to 100 mismatching pairs whole/],
      ['contend', /one result for every group it runs/],
    ] as const) {
      for (const args of [['--keep', 'all'], ['--keep=5']]) {
        const r = await runLines([cmd, ...args]);
        expect(r.code, cmd).toBe(2);
        const out = r.out.join('\n');
        expect(out).toMatch(new RegExp(`--keep is not an option of ${cmd}: `));
        expect(out).toMatch(what);
        expect(out).toMatch(/--keep sets what a run keeps \(npm run conformance -- --keep N\)/);
      }
    }
  });
});
