/**
 * The lens's checking path on CPU, against a stand-in launcher (tests/fixtures/standin-launcher.cts: each lens
 * kernel emulated as an atomic contention kernel of its variant) and a prebuilt folder of dummy
 * cubins (the stand-in does not read them): every group allowed; a kernel made non-atomic
 * (LENS_STANDIN_SPLIT) judged a mismatch at its addresses, the others not; a stale prebuilt folder,
 * bad options and no GPU exit 2 with what to do.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/cjs/api';
import { afterAll, describe, expect, it } from 'vitest';
import type { LensSection } from '../../harness/lens/report.js';
import { NVCC_FLAGS, fileKey, lensSources } from '../../harness/lens/compile.js';
import { LENS_DIR } from '../../harness/lens/manifest.js';
import { runWithStandin } from '../helpers/standin.js';

register();
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-lens-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A prebuilt folder for the lens sources in `src` whose cubins are dummy bytes (the stand-in ignores them). */
function fakePrebuilt(out: string, src = LENS_DIR): void {
  const versionLine = 'Cuda compilation tools, release 99.9, V99.9.1';
  const d = join(out, 'nvcc-99.9.1');
  mkdirSync(d, { recursive: true });
  const flags = NVCC_FLAGS('sm_90');
  const files = lensSources(src).map((file) => {
    const cubin = Buffer.from(`dummy ${file}`);
    writeFileSync(join(d, `${file}.cubin`), cubin);
    return {
      file,
      key: fileKey(versionLine, 'sm_90', flags, file, src),
      cubin: `${file}.cubin`,
      sha256: createHash('sha256').update(cubin).digest('hex'),
      sass: {},
      sassBy: '',
    };
  });
  writeFileSync(
    join(d, 'toolchain.json'),
    JSON.stringify({
      schema: 'ptx-reduction-conformance/cuda-lens-prebuilt',
      nvcc: { path: '/fake/nvcc', versionLine, slug: 'nvcc-99.9.1' },
      arch: 'sm_90',
      flags,
      files,
    }),
  );
}

const cli = (args: string[], env: Record<string, string> = {}) => runWithStandin(args, env);
/** The lens section of the report a lens run wrote (report.json, as every command writes). */
const report = (d: string) => JSON.parse(readFileSync(join(d, 'report.json'), 'utf8')).lens as LensSection;
/** An expectations file with none in it: every deviation is a failure. */
const NONE = join(dir, 'no-expectations.yaml');
writeFileSync(NONE, 'expectations: []\n');

describe('lens against the stand-in launcher', () => {
  const pre = join(dir, 'pre');
  fakePrebuilt(pre);
  it('atomic kernels: every group of every memory passes, each result names its call, type, memory and toolchain', async () => {
    const r = await cli(
      ['lens', '--prebuilt', pre, '--filter', 'atomicOr_u64,atomicAdd_half2,atomicMin_u64', '--reps', '32', '--expectations', NONE, '--report', join(dir, 'a')],
      {},
    );
    expect(r.code).toBe(0);
    // with the sm_90 expectations an atomic dsmem atomicOr is an unexpected pass: the finding went away (exit 1)
    const u = await cli(['lens', '--prebuilt', pre, '--filter', 'atomicOr_u64', '--reps', '32', '--report', join(dir, 'a-unexpected')], {});
    expect([u.code, u.out]).toEqual([1, expect.stringMatching(/shared-cluster-b64-and-or-xor-not-atomic: UNEXPECTED PASS/)]);
    const rep = report(join(dir, 'a'));
    expect(rep.results.length).toBeGreaterThan(10);
    expect(rep.results.every((x) => x.verdict === 'pass')).toBe(true);
    expect(new Set(rep.results.map((x) => x.memory))).toEqual(new Set(['dsmem', 'shared', 'global']));
    const one = rep.results.find((x) => x.kernel === 'atomicOr_u64_dsmem')!;
    expect([one.call, one.type, one.variant, one.layout, one.toolchain]).toEqual([
      'atomicOr(unsigned long long*, unsigned long long)',
      'unsigned long long',
      'atom.shared::cluster.or.b64',
      'cluster',
      'Cuda compilation tools, release 99.9, V99.9.1',
    ]);
    expect(rep.rows.every((x) => x.status === 'not affected')).toBe(true);
  }, 60_000);
  it('a non-atomic stand-in for atomicOr_u64_dsmem and atomicMin_u64_dsmem: their groups are mismatches at every address (lost updates), the other kernels pass; exit 1 with no expectation', async () => {
    for (const k of ['atomicOr_u64_dsmem', 'atomicMin_u64_dsmem']) {
      const r = await cli(
        ['lens', '--prebuilt', pre, '--filter', `${k.replace(/_dsmem$/, '')}`, '--reps', '32', '--expectations', NONE, '--report', join(dir, k)],
        { LENS_STANDIN_SPLIT: k },
      );
      expect(r.code).toBe(1);
      const rep = report(join(dir, k));
      const bad = rep.results.filter((x) => x.verdict === 'mismatch');
      expect(new Set(bad.map((x) => x.kernel))).toEqual(new Set([k]));
      // or: every address loses an update; min: the falling set shows it (the bits set cannot: min changes nothing there)
      const sets = bad.map((x) => x.set);
      expect(sets).toEqual(k.startsWith('atomicOr') ? ['bits'] : ['falling']);
      for (const x of bad)
        expect([x.counts.mismatch, x.outcomes[0]!.reason]).toEqual([64, expect.stringMatching(/not atomic: .*a split read\/write interleaving gives it/)]);
      expect(rep.rows.find((x) => x.kernel === k)!.status).toBe('affected');
      expect(r.out).toMatch(/ dsmem +release 99\.9, V99\.9\.1 +affected /);
    }
  }, 60_000);
  it('the same with the sm_90 expectations (the .shared::cluster finding): known deviations, exit 0; the common report (report.json, html, junit) with the groups in its contention section', async () => {
    const k = 'atomicOr_u64_dsmem';
    const r = await cli(['lens', '--prebuilt', pre, '--filter', 'atomicOr_u64', '--reps', '32', '--report', join(dir, 'known')], { LENS_STANDIN_SPLIT: k });
    expect(r.code, r.out).toBe(0);
    const rep = JSON.parse(readFileSync(join(dir, 'known', 'report.json'), 'utf8'));
    const known = rep.results.filter((x: { verdict: string }) => x.verdict === 'known-deviation');
    expect(known.map((x: { id: string; expectation: string }) => [x.id, x.expectation])).toEqual([
      ['atom.shared::cluster.or.b64/contend-cluster-bits/lens-atomicOr_u64_dsmem@nvcc-99.9.1', 'shared-cluster-b64-and-or-xor-not-atomic'],
    ]);
    expect(rep.contention.map((c: { id: string }) => c.id)).toEqual(rep.results.map((x: { id: string }) => x.id));
    for (const f of ['report.html', 'junit.xml', 'results.jsonl.gz', 'summary.txt']) expect(readFileSync(join(dir, 'known', f)).length, f).toBeGreaterThan(0);
    expect(r.out).toMatch(/shared-cluster-b64-and-or-xor-not-atomic: occurred: 1 known deviation/);
  }, 60_000);
  it('a prebuilt folder compiled from other sources is refused as stale (exit 2, what to run)', async () => {
    const src = join(dir, 'src');
    cpSync(LENS_DIR, src, { recursive: true });
    writeFileSync(join(src, 'u64.cu'), `${readFileSync(join(src, 'u64.cu'), 'utf8')}\n// changed\n`);
    const stale = join(dir, 'stale');
    fakePrebuilt(stale, src);
    const r = await cli(['lens', '--prebuilt', stale, '--reps', '32'], {});
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/u64\.cu was compiled from other sources .*stale.*--compile-only/);
  });
});

it('bad input: exit 2 with a clear message, no stack trace', async () => {
  const cases: [string[], RegExp][] = [
    [['lens', '--reps', '33'], /--reps takes a multiple of 32/],
    [['lens', '--out', join(dir, 'x')], /--out goes with --compile-only/],
    [['lens', '--prebuilt', join(dir, 'none')], /--prebuilt .*no such folder; write one with/],
    [['lens', '--filter', 'no-such-kernel'], /no lens kernel matches --filter 'no-such-kernel'/],
    [['lens', '--nvcc'], /--nvcc needs a value/],
    [['lens', '--bogus'], /Unknown option '--bogus'/],
    [['lens', '--compile-only', '--nvcc', join(dir, 'no-nvcc')], /no nvcc to compile the lens kernels .*--prebuilt DIR/],
    [['lens', '--arch', 'sm_1'], /unknown --arch 'sm_1'/],
  ];
  for (const [args, re] of cases) {
    const r = await cli(args);
    expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
    expect(r.out).toMatch(re);
    expect(r.out).not.toMatch(/\n\s+at /);
  }
  const r = await cli(['lens', '--prebuilt', join(dir, 'pre')], { PTX_CONFORMANCE_ADDON: join(dir, 'none.node') });
  expect(r.code).toBe(2);
  expect(r.out).toMatch(/the lens runs on a GPU, and there is none to use here: .*--compile-only/);
});
