/**
 * The skip account: the recorded default GPU run on the H100 (ptxas 13.0,
 * reports/baselines/h100-sm_90-toolchain-matrix/gpu-matrix.ptxas-13.0) judged again prints and
 * writes its 7,377 skips by what running them needs; every reason sentence the executors write is
 * put in its group, and one no rule knows goes to `other` with its text; a case whose variant the
 * target does not accept now says why (the catalog's reason), so it lands in its group.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { register } from 'tsx/cjs/api';
import { type SkipAccount, skipAccount, skipGroup } from '../../harness/report/skips.js';
import type { EntryResult } from '../../harness/report/types.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runWithStandin } from '../helpers/standin.js';
import { runCli } from '../helpers/cli.js';

register();
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-skips-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ROOT = join(import.meta.dirname, '..', '..');
const BASELINE = join(ROOT, 'reports', 'baselines', 'h100-sm_90-toolchain-matrix', 'gpu-matrix.ptxas-13.0.report.json.gz');

const counts = (a: SkipAccount) => Object.fromEntries(a.groups.map((g) => [g.group, g.count]));

describe('the recorded H100 default GPU run (ptxas 13.0) judged again', () => {
  it('prints and writes its skips by what running them needs: 156 executor (im2col), 5,652 multicast, 1,537 toolchain, 32 other', async () => {
    const r = await runCli(['render', BASELINE, '--report', join(dir, 'gpu')]);
    expect(r.code).toBe(0);
    const rep = JSON.parse(readFileSync(join(dir, 'gpu', 'report.json'), 'utf8')) as { skips: SkipAccount; counts: { total: { skipped: number } } };
    expect(rep.skips.total).toBe(rep.counts.total.skipped);
    expect(counts(rep.skips)).toEqual({ executor: 156, multicast: 5652, architecture: 0, toolchain: 1537, other: 32 });
    const g = (k: string) => rep.skips.groups.find((x) => x.group === k)!;
    expect(g('executor').reasons.map((r) => r.reason)).toEqual([
      'the gpu executor builds tiled tensor maps (cuTensorMapEncodeTiled) only; .im2col_no_offs needs an im2col tensor map',
    ]);
    expect(g('executor').reasons[0]!.example).toMatch(/^cp\.reduce\.async\.bulk\.tensor\..*im2col_no_offs/);
    // the 32 recorded before a case said why its variant is not accepted (red.async .release: sm_100+)
    expect(g('other').reasons).toEqual([
      expect.objectContaining({ count: 32, reason: 'the variant is not one the catalog expects ptxas to accept for sm_90 (PTX ISA 9.0); --list shows why' }),
    ]);
    const text = r.out;
    expect(text).toMatch(/^skipped 7377, by what running them needs \(report\.json: skips\):$/m);
    expect(text).toMatch(/^ {2}executor limitation \(this harness does not run it yet\) +156$/m);
    expect(text).toMatch(/^ {2}needs multicast \(NVLink SHARP\) hardware +5652$/m);
    expect(text).toMatch(/^ {2}needs a newer toolchain \(or one that does not crash on it\) +1537$/m);
  });
});

describe('the default GPU run on the H100 after bulk sizes and im2col, and on the final tree of 2026-11-26 (no skip for an executor limitation)', () => {
  const AFTER = join(ROOT, 'reports', 'baselines', 'h100-sm_90-gpu-default', '2026-11-25-after-bulk-im2col', 'report.json.gz');
  const FINAL = join(ROOT, 'reports', 'baselines', 'h100-sm_90-gpu-default', '2026-11-26-final', 'report.json.gz');
  it('the final run judged again: exit 0, no mismatch, 0 executor limitations', async () => {
    const r = await runCli(['render', FINAL, '--report', join(dir, 'final')]);
    expect(r.code).toBe(0);
    const rep = JSON.parse(readFileSync(join(dir, 'final', 'report.json'), 'utf8')) as { skips: SkipAccount; counts: { total: Record<string, number> } };
    expect(rep.counts.total.mismatch ?? 0).toBe(0);
    expect(counts(rep.skips).executor).toBe(0);
    expect(r.out).toMatch(/executor limitation \(this harness does not run it yet\)\s+0/);
  }, 120_000);
  it('judged again: 0 executor limitations; every skip needs multicast, a newer architecture or a newer toolchain', async () => {
    const r = await runCli(['render', AFTER, '--report', join(dir, 'after')]);
    expect(r.code).toBe(0);
    const rep = JSON.parse(readFileSync(join(dir, 'after', 'report.json'), 'utf8')) as { skips: SkipAccount; counts: { total: { skipped: number } } };
    expect(rep.skips.total).toBe(rep.counts.total.skipped);
    const c = counts(rep.skips);
    expect(c.executor).toBe(0);
    expect(c.other).toBe(0);
    expect((c.multicast ?? 0) + (c.architecture ?? 0) + (c.toolchain ?? 0)).toBe(rep.skips.total);
    expect(rep.skips.total).toBeGreaterThan(7000);
    expect(r.out).toMatch(/executor limitation \(this harness does not run it yet\)\s+0/);
    // the account catches an executor limitation: one skip's reason changed to the old im2col sentence
    const { gunzipSync } = await import('node:zlib');
    const raw = JSON.parse(gunzipSync(readFileSync(AFTER)).toString()) as { results: EntryResult[] };
    const skipped = raw.results.filter((r) => r.verdict === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    const planted = [
      {
        ...skipped[0]!,
        reason: 'the gpu executor builds tiled tensor maps (cuTensorMapEncodeTiled) only; .im2col_no_offs needs an im2col tensor map',
      } as EntryResult,
    ];
    expect(counts(skipAccount(planted)).executor).toBe(1);
  }, 120_000);
});

describe('every sentence the executors write for a skip is in its group', () => {
  it.each([
    ['device reports no multicast support (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0 on NVIDIA H100 80GB HBM3)', 'multicast'],
    [
      'multimem needs a multicast object bound to several GPUs; this backend never creates one (the multicast backend, with its explicit flag, does)',
      'multicast',
    ],
    ['toolchain too old: .sem.scope needs PTX ISA 9.3, and this ptxas writes PTX ISA 9.0 at most', 'toolchain'],
    ['needs PTX ISA 9.4; ptxas 13.0 supports up to 9.0', 'toolchain'],
    ['ptxas 13.0 crashes (SIGSEGV) on atom with the bit bucket _ and a bf16 type; no cubin can hold it', 'toolchain'],
    ['an empty sm_120a module in PTX ISA 8.7 does not compile: ptxas fatal', 'toolchain'],
    ['the gpu executor builds tiled tensor maps (cuTensorMapEncodeTiled) only; .im2col_no_offs needs an im2col tensor map', 'executor'],
    ['the gpu executor runs the .relaxed.cluster form only (the .release form needs sm_100, which this executor has not been built for)', 'executor'],
    ['the gpu executor runs bulk reductions of 16 bytes (4 elements of 32 bits); the reference backend runs it', 'executor'],
    [
      'red.async.release.gpu.global.add.u32 is not a variant the catalog expects ptxas to accept for sm_90 (PTX ISA 9.0): not supported on sm_90: .release semantics, .mmio, .global, .gpu/.sys scopes needs sm_100 or higher',
      'architecture',
    ],
    ['no GPU here and the moon is made of cheese', 'other'],
  ])('%s -> %s', (reason, group) => {
    expect(skipGroup(reason)).toBe(group);
  });

  it('a reason no rule knows is counted under other with its text, not dropped', () => {
    const r = (id: string, reason: string) => ({ id, family: 'atom', kind: 'case', verdict: 'skipped', reason }) as unknown as EntryResult;
    const a = skipAccount([
      r('a', 'something new'),
      r('b', 'something new'),
      r('c', 'device reports no multicast support (x)'),
      { ...r('d', 'x'), verdict: 'pass' } as EntryResult,
    ]);
    expect(a.total).toBe(3);
    expect(counts(a)).toEqual({ executor: 0, multicast: 1, architecture: 0, toolchain: 0, other: 2 });
    expect(a.groups.find((g) => g.group === 'other')!.reasons).toEqual([{ reason: 'something new', count: 2, example: 'a' }]);
  });
});

describe('a case whose variant the target does not accept says why (stand-in launcher)', async () => {
  const p = await ptxasOrReason();
  it.skipIf(typeof p === 'string')(
    'red.async .release cases on sm_90: the catalog\'s "needs sm_100 or higher", counted as needing a newer architecture',
    async () => {
      const r = await runWithStandin(
        [
          '--vectors',
          'cases/vectors/red-async-int-9.3-9.4.yaml',
          '--backend',
          'gpu',
          '--filter',
          'red.async.release*',
          '--cache-dir',
          join(dir, 'cache'),
          '--report',
          join(dir, 'ra'),
        ],
        { XDG_CACHE_HOME: join(dir, 'cache') },
      );
      const rep = JSON.parse(readFileSync(join(dir, 'ra', 'report.json'), 'utf8')) as { skips: SkipAccount; results: EntryResult[] };
      const skipped = rep.results.filter((x) => x.verdict === 'skipped');
      expect(skipped.length).toBeGreaterThan(0);
      for (const x of skipped)
        expect(x.reason).toMatch(
          /is not a variant the catalog expects ptxas to accept for sm_90 \(PTX ISA 9\.0\): not supported on sm_90: .*needs sm_100 or higher$/,
        );
      expect(counts(rep.skips)).toEqual({ executor: 0, multicast: 0, architecture: skipped.length, toolchain: 0, other: 0 });
      expect(r.out).toMatch(/^ {2}needs a newer architecture +\d+$/m);
    },
    120_000,
  );
});
