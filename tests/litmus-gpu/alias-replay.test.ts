/**
 * The recorded H200 run of the virtual aliases, loops and barriers (reports/baselines/
 * h200-sm_90-litmus-async/2026-11-29-aliases-loops-barriers: scripts/gpu/litmus-async.sh with the
 * Alias+ and spin-loop tests, default and heavy stress; the corpus; Dat3M's tests under both stresses),
 * judged again on the CPU: every observed row's verdict by the current model is the recorded one, a
 * forbidden outcome only where the findings file explains it, every mutant regenerated with its weak
 * count. The figures docs/litmus.md quotes are read from these records here.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';
import { keyInit, onDevice, verdictOf } from '../../harness/litmus-gpu/outcomes.js';
import { mutantsOf, weakCount } from '../../harness/litmus-gpu/mutants.js';
import type { GpuLitmusResult } from '../../harness/litmus-gpu/results.js';
import { peerRoot } from '../helpers/third-party.js';
import { rejudgeCorpusRun, rejudgePeers } from '../helpers/litmus-replay.js';

const D = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-aliases-loops-barriers';
const read = (f: string) => JSON.parse(gunzipSync(readFileSync(`${D}/${f}`)).toString()) as { run: { device: string }; results: GpuLitmusResult[] };
const RUNS = { default: read('async-report.json.gz'), stress: read('async-stress-report.json.gz') };
const explained = (JSON.parse(readFileSync('cases/litmus/gpu-findings.json', 'utf8')) as { explained: { test: string }[] }).explained.map((e) => e.test);
const source = (file: string) => readFileSync(file.replace(/#.*$/, ''), 'utf8');
const testOf = (file: string) => parseLitmus(source(file), file.replace(/#.*$/, '')).test!;
const count = (run: keyof typeof RUNS, f: string, values: string[]) =>
  RUNS[run].results.find((r) => r.file === `cases/litmus/${f}`)?.gpu?.histogram.find((h) => h.values.join() === values.join())?.count;

describe('the recorded H200 run of the aliases, loops and barriers, judged again', () => {
  for (const [name, rep] of Object.entries(RUNS))
    it(`${name}: the async, Alias+ and spin-loop tests, 1 M instances each, every row's verdict as recorded; every mutant regenerated with its weak count`, () => {
      expect(rep.run.device).toMatch(/H200/);
      const ran = rejudgeCorpusRun(rep.results, explained);
      expect(ran.filter((r) => !r.mutant && /\/Alias\+/.test(r.file)).length).toBe(9);
      expect(ran.filter((r) => !r.mutant && /\/MP\+spin-loop/.test(r.file)).length).toBe(2);
    });
  it('the answers docs/litmus.md gives: a thread misses its own store through a virtual alias without fence.proxy.alias, never with it; across threads the alias was never seen stale', () => {
    const both = (f: string, v: string[]) => [count('default', f, v), count('stress', f, v)];
    expect(both('Alias+own-write.litmus', ['0'])).toEqual([19393, 24892]);
    expect(both('Alias+own-write+fence.proxy.alias.litmus', ['0'])).toEqual([0, 0]);
    // message passing through an alias, without an alias fence: allowed, never seen
    expect(both('Alias+MP.litmus', ['1', '0'])).toEqual([0, 0]);
    expect(both('Alias+CoRR.litmus', ['1', '0'])).toEqual([0, 0]);
    // the arrival counter: no thread read the counter through the alias without its own add, fence or not
    for (const f of ['Alias+arrival-counter.litmus', 'Alias+arrival-counter+fence.proxy.alias.litmus'])
      for (const v of [
        ['0', '0'],
        ['0', '1'],
        ['0', '2'],
        ['1', '0'],
        ['2', '0'],
      ])
        expect(both(f, v), `${f} ${v}`).toEqual([0, 0]);
    // a relaxed spin loop leaves before the data: seen; an acquire one never
    expect(both('MP+spin-loop.relaxed.litmus', ['0'])).toEqual([218, 177]);
    expect(both('MP+spin-loop.acquire.litmus', ['0'])).toEqual([0, 0]);
  });
  it('the corpus: 387 of 393 tests ran (skipped: 2 multimem, 1 two-GPU, 3 red.async .release needing sm_100), a forbidden outcome only where the findings file explains it', () => {
    const rep = read('suite-report.json.gz');
    const ran = rep.results.filter((r) => r.gpu);
    expect([ran.length, rep.results.length]).toEqual([387, 393]);
    for (const r of ran) expect(r.gpu!.forbiddenSeen === 0 || explained.includes(r.file), r.file).toBe(true);
  });
  it("Dat3M's tests, default and heavy stress: 124 of 265 ran (aliases, loops and barriers now among them), no forbidden outcome, every row re-judged; XF-Barrier-weak's weak spin never left its loop", (ctx) => {
    const root = peerRoot('re-judging the recorded H200 run of the Dat3M peer tests');
    if (!root) ctx.skip();
    for (const f of ['peers-report.json.gz', 'peers-stress-report.json.gz']) {
      const rep = read(f);
      expect([rejudgePeers(rep.results, root!), rep.results.length], f).toEqual([124, 265]);
    }
    const xf = read('xf-barrier-report.json.gz').results;
    const weak = xf.find((r) => r.file.endsWith('XF-Barrier-weak.litmus'))!.gpu!;
    expect(weak.gaveUp).toBe(weak.instances);
    expect(xf.find((r) => r.file.endsWith('XF-Barrier-rlx.litmus'))!.gpu!.gaveUp).toBe(0);
  });
});

/** The tensor maps' run (2026-11-29-tensormap): the six Tensormap+ tests and their mutants under both stresses. */
const T = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-tensormap';
const readT = (f: string) => JSON.parse(gunzipSync(readFileSync(`${T}/${f}`)).toString()) as { run: { device: string }; results: GpuLitmusResult[] };
const TRUNS = { default: readT('tm-report.json.gz'), stress: readT('tm-stress-report.json.gz') };

/**
 * The tests whose verdict the model changed after these records: the acquire form of
 * fence.proxy.tensormap::generic alone no longer orders a generic write of the map before its
 * tensormap-proxy read (docs/memory-model.md; the H200 read a stale map with it). Their rows recorded
 * forbidden are allowed now, and their mutants (made only for a forbidden weak outcome) no longer exist.
 */
const FLIPPED = [
  'Tensormap+replace+fence.acquire',
  'Tensormap+MP-no-release-fence',
  'Tensormap+load+replace+fence.acquire',
  'Tensormap+store+replace+fence.acquire',
].map((n) => `cases/litmus/${n}.litmus`);
const flipped = (file: string) => FLIPPED.includes(file.replace(/#.*$/, ''));
/** Every row the record holds, judged by the current model: as recorded, or (a flipped test only) recorded forbidden and allowed now; no seen row forbidden. */
function judgedAgain(r: GpuLitmusResult): void {
  const g = r.gpu!;
  const j = onDevice(judge(testOf(r.file)), keyInit(testOf(r.file)));
  for (const h of g.histogram) {
    const now = verdictOf(j, g.keys, h.values, g.keyBits).allowed;
    // a verdict changed only where the model changed: a flipped test's row, from forbidden to allowed
    if (now !== h.allowed)
      expect(
        flipped(r.file) && !h.allowed,
        `${r.file} ${h.values}: recorded ${h.allowed ? 'allowed' : 'forbidden'}, now ${now ? 'allowed' : 'forbidden'}`,
      ).toBe(true);
    if (h.count) expect(now || explained.includes(r.file), `${r.file} ${h.values} seen ${h.count}`).toBe(true);
  }
}

describe('the recorded H200 run of the tensor maps, judged again', () => {
  for (const [name, rep] of Object.entries(TRUNS))
    it(`${name}: the six Tensormap+ tests, 1 M instances each, every row's verdict as recorded, no forbidden outcome; every mutant regenerated with its weak count`, () => {
      expect(rep.run.device).toMatch(/H200/);
      const ran = rep.results.filter((r) => r.gpu);
      expect(ran.filter((r) => !r.mutant).length).toBe(6);
      for (const r of ran) {
        const g = r.gpu!;
        expect(g.instances, r.file).toBeGreaterThanOrEqual(1_000_000);
        if (r.mutant) {
          if (flipped(r.file)) continue;
          const [file, mname] = r.file.split('#');
          const m = mutantsOf(testOf(file!), source(file!)).find((x) => x.name === mname);
          expect(weakCount(parseLitmus(m!.text, file!).test!, g.keys, g.histogram), r.file).toBe(r.mutant.weak);
          continue;
        }
        expect(g.forbiddenSeen, r.file).toBe(0);
        judgedAgain(r);
      }
    });
  it('the answers docs/litmus.md gives: a thread that patches a tensor map and uses it without fence.proxy.tensormap::generic reduces through the old map; with the acquire fence never; across threads the old map was never used after the flag was seen', () => {
    const c = (run: keyof typeof TRUNS, f: string, v: string[]) =>
      TRUNS[run].results.find((r) => r.file === `cases/litmus/${f}`)!.gpu!.histogram.find((h) => h.values.join() === v.join())?.count ?? 0; // a row not in the histogram was not seen
    const both = (f: string, v: string[]) => [c('default', f, v), c('stress', f, v)];
    expect(both('Tensormap+replace-no-fence.litmus', ['1'])).toEqual([2889, 1683]);
    expect(both('Tensormap+replace+fence.acquire.litmus', ['1'])).toEqual([0, 0]); // d0 stayed 0 in every instance
    expect(both('Tensormap+replace+fence.release+fence.acquire.litmus', ['1'])).toEqual([0, 0]);
    for (const f of ['Tensormap+MP-no-acquire-fence.litmus', 'Tensormap+MP-no-release-fence.litmus', 'Tensormap+MP+fence.release+fence.acquire.litmus'])
      expect(both(f, ['1', '1']), f).toEqual([0, 0]);
  });
});

/** The session's last run (2026-11-29-session3-final, the last code): every async test (74; 70 on one sm_90 GPU), with arrays and tensor copies, and the corpus. */
const S = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-session3-final';
const readS = (f: string) => JSON.parse(gunzipSync(readFileSync(`${S}/${f}`)).toString()) as { run: { device: string }; results: GpuLitmusResult[] };

describe("the session's last H200 run, judged again", () => {
  for (const f of ['async-report.json.gz', 'async-stress-report.json.gz'])
    it(`${f}: 70 of 74 async tests ran (the 4 others need two GPUs or sm_100), 1 M instances each, every row's verdict as recorded; a forbidden outcome only where the findings file explains it`, () => {
      const rep = readS(f);
      expect(rep.run.device).toMatch(/H200/);
      const tests = rep.results.filter((r) => !r.file.includes('#'));
      expect([tests.filter((r) => r.gpu).length, tests.length]).toEqual([70, 74]);
      for (const r of tests.filter((x) => x.gpu)) {
        const g = r.gpu!;
        expect(g.instances, r.file).toBeGreaterThanOrEqual(1_000_000);
        expect(g.forbiddenSeen === 0 || explained.includes(r.file), r.file).toBe(true);
        judgedAgain(r);
      }
      // a two-element bulk reduction: the second element's sum was never seen before the first's
      const obs = rep.results.find((r) => r.file === 'cases/litmus/Bulk+two-elements+observer.litmus')!.gpu!;
      expect(obs.histogram.find((h) => h.values.join() === '1,0')?.count ?? 0).toBe(0);
    });
  it('the corpus: 400 of 406 ran (skipped: 2 multimem, 1 two-GPU, 3 red.async .release), a forbidden outcome only where the findings file explains it; the self-test flagged both planted kernels', () => {
    const rep = readS('suite-report.json.gz');
    const ran = rep.results.filter((r) => r.gpu);
    expect([ran.length, rep.results.length]).toEqual([400, 406]);
    for (const r of ran) expect(r.gpu!.forbiddenSeen === 0 || explained.includes(r.file), r.file).toBe(true);
    const st = readS('self-test-report.json.gz').results;
    expect(st.map((r) => r.gpu!.forbiddenSeen > 0)).toEqual([true, true]);
  });
});

/** The bulk tensor copies' run and the follow-up that made the model change (2026-11-29-tensormap-copies). */
const C2 = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-tensormap-copies';
const readC2 = (f: string) => JSON.parse(gunzipSync(readFileSync(`${C2}/${f}`)).toString()) as { run: { device: string }; results: GpuLitmusResult[] };

describe('the recorded H200 runs of the tensor copies, judged again', () => {
  it('the ten Tensormap+ tests under both stresses: every row judged again, none seen forbidden under the current model; a TMA store or load through a map patched without a fence used the old map', () => {
    for (const f of ['tm-report.json.gz', 'tm-stress-report.json.gz']) {
      const rep = readC2(f);
      expect(rep.run.device).toMatch(/H200/);
      for (const r of rep.results.filter((x) => x.gpu && !x.mutant)) judgedAgain(r);
    }
    const c = (f: string, rf: string, v: string[]) =>
      readC2(rf)
        .results.find((r) => r.file === `cases/litmus/${f}`)!
        .gpu!.histogram.find((h) => h.values.join() === v.join())?.count ?? 0;
    expect([
      c('Tensormap+store+replace-no-fence.litmus', 'tm-report.json.gz', ['5']),
      c('Tensormap+store+replace-no-fence.litmus', 'tm-stress-report.json.gz', ['5']),
    ]).toEqual([2893, 1843]);
    expect(c('Tensormap+load+replace-no-fence.litmus', 'tm-stress-report.json.gz', ['1', '1'])).toBe(3818);
  });
  it('the follow-up, 10 M instances each: the acquire form alone let the TMA load read the old map under heavy stress at every scope; release then acquire never', () => {
    const rep = readC2('acquire-only-10M-stress-report.json.gz');
    const seen = rep.results.map((r) => [r.file.split('/').pop(), r.gpu!.histogram.find((h) => h.values.join() === '1,1')?.count ?? 0]);
    expect(seen).toEqual([
      ['Tensormap+load+replace+fence.acquire.litmus', 11],
      ['acq-gpu.litmus', 11],
      ['acq-sys.litmus', 4],
      ['rel-acq-cta.litmus', 0],
    ]);
    judgedAgain(rep.results[0]!); // the corpus test: allowed under the current model
  });
});
