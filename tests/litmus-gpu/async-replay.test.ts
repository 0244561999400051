/**
 * The recorded H200 runs of the async-proxy litmus tests (reports/baselines/h200-sm_90-litmus-async/
 * 2026-11-29: scripts/gpu/litmus-async.sh, default and heavy stress, and the self-test), judged again
 * on the CPU: every observed row's verdict by the current model is the recorded one, no test showed a
 * forbidden outcome, every mutant is regenerated from its test with its weak outcome counted again,
 * and the two planted kernels of the self-test were flagged. The figures docs/litmus.md quotes are
 * read from these records here (a changed record or model fails them).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';
import { keyInit, onDevice, verdictOf } from '../../harness/litmus-gpu/outcomes.js';
import { mutantsOf, weakCount } from '../../harness/litmus-gpu/mutants.js';
import type { GpuLitmusResult } from '../../harness/litmus-gpu/results.js';
import { peerRoot } from '../helpers/third-party.js';
import { rejudgePeers } from '../helpers/litmus-replay.js';

const D = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29';
const M = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-mbarrier';
const read = (f: string, d = D) => JSON.parse(gunzipSync(readFileSync(`${d}/${f}`)).toString()) as { run: { device: string }; results: GpuLitmusResult[] };
const RUNS = { default: read('async-report.json.gz'), stress: read('async-stress-report.json.gz') };
/** The later run of the same day with mbarrier completion and red.async (and the try_wait mutants). */
const MRUNS = { default: read('async-report.json.gz', M), stress: read('async-stress-report.json.gz', M) };
/** The last run: every async test of the corpus (22, 21 on one GPU), with six more. */
const X = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-more';
const XRUNS = { default: read('async-report.json.gz', X), stress: read('async-stress-report.json.gz', X) };
/** The session's final run: 26 async tests (25 on one GPU), the cross-proxy atomicity ones among them. */
const F = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-final';
const FRUNS = { default: read('async-report.json.gz', F), stress: read('async-stress-report.json.gz', F) };

const source = (file: string) => readFileSync(file.replace(/#.*$/, ''), 'utf8');
const testOf = (file: string) => parseLitmus(source(file), file.replace(/#.*$/, '')).test!;
/** The recorded count of `x == 0` (or the given key values) in a test's histogram. */
const count = (r: GpuLitmusResult | undefined, values: string[]) => r?.gpu?.histogram.find((h) => h.values.join() === values.join())?.count ?? 0;
const byFile = (run: keyof typeof RUNS, f: string, runs = RUNS) => runs[run].results.find((r) => r.file === `cases/litmus/${f}`);

describe('the recorded H200 async runs, judged again', () => {
  for (const [name, rep] of [
    ...Object.entries(RUNS),
    ...Object.entries(MRUNS).map(([k, v]) => [`mbarrier ${k}`, v] as const),
    ...Object.entries(XRUNS).map(([k, v]) => [`all async ${k}`, v] as const),
    ...Object.entries(FRUNS).map(([k, v]) => [`final ${k}`, v] as const),
  ]) {
    it(`${name}: on an H200, every row's verdict as recorded, no forbidden outcome, every mutant regenerated with its weak count`, () => {
      expect(rep.run.device).toMatch(/H200/);
      const ran = rep.results.filter((r) => r.gpu);
      expect(ran.length).toBeGreaterThanOrEqual(12);
      for (const r of ran) {
        const g = r.gpu!;
        expect(g.instances, r.file).toBeGreaterThanOrEqual(1_000_000);
        expect(g.forbiddenSeen, r.file).toBe(0);
        if (r.mutant) {
          const [file, name] = r.file.split('#');
          const m = mutantsOf(testOf(file!), source(file!)).find((x) => x.name === name);
          expect(m, r.file).toBeDefined();
          const mt = parseLitmus(m!.text, file!).test!;
          expect(weakCount(mt, g.keys, g.histogram), r.file).toBe(r.mutant.weak);
          continue;
        }
        const j = judge(testOf(r.file));
        for (const h of g.histogram) expect(verdictOf(j, g.keys, h.values).allowed, `${r.file} ${h.values}`).toBe(h.allowed);
      }
    });
  }
  it('the answers docs/litmus.md gives: fence.proxy.async is needed on Hopper, and its state space matters', () => {
    const nofence = 'Bulk+generic-source-no-proxy-fence.litmus';
    const fence = 'Bulk+generic-source+fence.proxy.async.litmus';
    const wrong = 'Bulk+generic-source+fence.proxy.async.global-wrong-space.litmus';
    // the stale source read (x == 0) without the fence, with the .global one, and never with .shared::cta
    expect([count(byFile('default', nofence), ['0']), count(byFile('stress', nofence), ['0'])]).toEqual([0, 323295]);
    expect([count(byFile('default', wrong), ['0']), count(byFile('stress', wrong), ['0'])]).toEqual([5, 47]);
    expect([count(byFile('default', fence), ['0']), count(byFile('stress', fence), ['0'])]).toEqual([0, 0]);
    // a source overwritten without a wait: read by the reduction (x == 7); never after wait_group.read
    expect(count(byFile('default', 'Bulk+no-wait+overwrite-source.litmus'), ['7'])).toBeGreaterThan(1000);
    expect(count(byFile('stress', 'Bulk+wait_group.read+overwrite-source.litmus'), ['7'])).toBe(0);
    // a read of the destination without a wait never saw the old value
    expect(
      count(byFile('default', 'Bulk+no-wait+read-destination.litmus'), ['0']) + count(byFile('stress', 'Bulk+no-wait+read-destination.litmus'), ['0']),
    ).toBe(0);
  });
  it("the answers on mbarrier completion: an acquire try_wait publishes the complete-tx, a relaxed one does not, and the complete-tx does not publish the issuer's earlier writes", () => {
    const stale = (run: 'default' | 'stress', f: string, v: string) => count(byFile(run, f, MRUNS), ['1', v]);
    // phase seen complete but the destination stale: never with .acquire, often with .relaxed
    expect([stale('default', 'RedAsync+mbarrier.litmus', '0'), stale('stress', 'RedAsync+mbarrier.litmus', '0')]).toEqual([0, 0]);
    expect([stale('default', 'Bulk+mbarrier+complete_tx.litmus', '0'), stale('stress', 'Bulk+mbarrier+complete_tx.litmus', '0')]).toEqual([0, 0]);
    expect([stale('default', 'RedAsync+mbarrier+try_wait.relaxed.litmus', '0'), stale('stress', 'RedAsync+mbarrier+try_wait.relaxed.litmus', '0')]).toEqual([
      301339, 336480,
    ]);
    expect([stale('default', 'Bulk+mbarrier-no-transitive-order.litmus', '0'), stale('stress', 'Bulk+mbarrier-no-transitive-order.litmus', '0')]).toEqual([
      24787, 463,
    ]);
    // the async mutants scored on their own, and every corpus test but the two-GPU and multimem ones ran
    const score = (run: 'default' | 'stress') =>
      (MRUNS[run] as unknown as { run: { mutation: { perClass: { cls: string; killed: number; mutants: number }[] } } }).run.mutation.perClass.find(
        (c) => c.cls === 'async',
      );
    expect([score('default'), score('stress')].map((c) => [c!.killed, c!.mutants])).toEqual([
      [6, 8],
      [7, 8],
    ]);
    const suite = read('suite-report.json.gz', M);
    expect(suite.results.filter((r) => r.status === 'skipped').map((r) => r.file.split('/').pop())).toEqual([
      'Bulk+default-scope+bulk-other-gpu.litmus',
      'Multimem+arrival-counter+relaxed.litmus',
      'Multimem+arrival-counter+release.litmus',
    ]);
  });
  it('the last run: 21 async tests on the GPU, 1 M instances each; a .cta-scope try_wait does not synchronize with the complete-tx of another CTA', () => {
    for (const run of ['default', 'stress'] as const) expect(XRUNS[run].results.filter((r) => r.gpu && !r.mutant).length).toBe(21);
    const f = 'RedAsync+mbarrier+try_wait.cta.litmus';
    expect([count(byFile('default', f, XRUNS), ['1', '0']), count(byFile('stress', f, XRUNS), ['1', '0'])]).toEqual([304411, 341289]);
    const all = 'Bulk+generic-source+fence.proxy.async-all-spaces.litmus';
    expect([count(byFile('default', all, XRUNS), ['0']), count(byFile('stress', all, XRUNS), ['0'])]).toEqual([0, 0]);
  });
  it("the final run: 25 async tests on the GPU; a bulk reduction and another thread's atom or red never lost an update (allowed across proxies), a relaxed try_wait saw stale data", () => {
    for (const run of ['default', 'stress'] as const) expect(FRUNS[run].results.filter((r) => r.gpu && !r.mutant).length).toBe(25);
    for (const f of ['Bulk+atom-other-thread-lost-update.litmus', 'Bulk+red-other-thread-lost-update.litmus'])
      for (const run of ['default', 'stress'] as const) expect(count(byFile(run, f, FRUNS), ['2']) + count(byFile(run, f, FRUNS), ['5']), f).toBe(0);
    const rel = 'Bulk+mbarrier+try_wait.relaxed.litmus';
    expect([count(byFile('default', rel, FRUNS), ['1', '0']), count(byFile('stress', rel, FRUNS), ['1', '0'])]).toEqual([283884, 367697]);
  });
  it('the self-test: both planted kernels flagged (MP hoisted, a bulk source overwritten before it was read)', () => {
    const st = read('self-test-report.json.gz');
    expect(st.results.map((r) => [r.file, r.gpu?.forbiddenSeen])).toEqual([
      ['cases/litmus/MP+atom.release+atom.acquire.gpu.litmus', 2223],
      ['cases/litmus/Bulk+wait_group.read+overwrite-source.litmus', 3339],
    ]);
  });
  it("Dat3M's tests on the H200 with register arithmetic: 72 of 265 ran, every row re-judged as recorded, no forbidden outcome", (ctx) => {
    const root = peerRoot('re-judging the recorded H200 run of the Dat3M peer tests');
    if (!root) ctx.skip();
    const rep = read('peers-report.json.gz', 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-dat3m');
    const ran = rep.results.filter((r) => r.gpu);
    expect([ran.length, rep.results.length]).toEqual([72, 265]);
    for (const r of ran) {
      const file = join(root!, 'litmus', r.file.replace(/^\.peers\/dat3m\//, ''));
      const j = judge(parseLitmus(readFileSync(file, 'utf8'), file).test!);
      expect(r.gpu!.forbiddenSeen, r.file).toBe(0);
      for (const h of r.gpu!.histogram) expect(verdictOf(j, r.gpu!.keys, h.values, r.gpu!.keyBits).allowed, `${r.file} ${h.values}`).toBe(h.allowed);
    }
  });
});

/** The bulk copies (cp.async.bulk) run: 47 async tests (46 on one GPU), the .cta try_wait finding its one known deviation. */
const C = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-copies';
const CRUNS = { default: read('async-report.json.gz', C), stress: read('async-stress-report.json.gz', C) };
const explained = (JSON.parse(readFileSync('cases/litmus/gpu-findings.json', 'utf8')) as { explained: { test: string }[] }).explained.map((e) => e.test);

describe('the recorded H200 run of the bulk copies, judged again', () => {
  for (const [name, rep] of Object.entries(CRUNS))
    it(`${name}: 46 async tests ran (1 M instances each; the 47th needs two GPUs), every row's verdict as recorded; a forbidden outcome only where the findings file explains it`, () => {
      expect(rep.run.device).toMatch(/H200/);
      const tests = rep.results.filter((r) => r.gpu && !r.mutant);
      expect(tests.length).toBe(46);
      for (const r of rep.results.filter((x) => x.gpu)) {
        const g = r.gpu!;
        expect(g.instances, r.file).toBeGreaterThanOrEqual(1_000_000);
        if (r.mutant) continue;
        expect(g.forbiddenSeen === 0 || explained.includes(r.file), r.file).toBe(true);
        const j = onDevice(judge(testOf(r.file)), keyInit(testOf(r.file)));
        for (const h of g.histogram) expect(verdictOf(j, g.keys, h.values).allowed, `${r.file} ${h.values}`).toBe(h.allowed);
      }
    });
  it('the answers docs/litmus.md gives for the copies: a generic write before a bulk copy needs fence.proxy.async of its state space; the .cta try_wait finding', () => {
    const c = (run: 'default' | 'stress', f: string, v: string[]) => count(byFile(run, f, CRUNS), v);
    // TMA load of a global source written just before: stale without a fence and with a .shared::cta one, never with .global or none
    expect([c('default', 'Copy+global-source-no-proxy-fence.litmus', ['1', '0']), c('stress', 'Copy+global-source-no-proxy-fence.litmus', ['1', '0'])]).toEqual(
      [138757, 16651],
    );
    const wrong = 'Copy+global-source+fence.proxy.async.shared-cta-wrong-space.litmus';
    expect([c('default', wrong, ['1', '0']), c('stress', wrong, ['1', '0'])]).toEqual([86475, 5494]);
    for (const f of ['Copy+global-source+fence.proxy.async.global.litmus', 'Copy+global-source+fence.proxy.async.litmus'])
      expect(c('default', f, ['1', '0']) + c('stress', f, ['1', '0']), f).toBe(0);
    // TMA store of a shared source written just before: stale without the fence, never with .shared::cta
    expect([c('default', 'Copy+to-global-no-proxy-fence.litmus', ['0']), c('stress', 'Copy+to-global-no-proxy-fence.litmus', ['0'])]).toEqual([4, 290969]);
    expect(
      c('default', 'Copy+to-global+fence.proxy.async.shared-cta.litmus', ['0']) + c('stress', 'Copy+to-global+fence.proxy.async.shared-cta.litmus', ['0']),
    ).toBe(0);
    // the finding: a .cta try_wait that returned 1, then a stale destination; none with .cluster, a fence or a branch
    const f = 'Copy+mbarrier+try_wait.acquire.cta.litmus';
    expect([c('default', f, ['1', '7']), c('stress', f, ['1', '7'])]).toEqual([62837, 43176]);
    for (const g of [
      'Copy+mbarrier+try_wait.acquire.cluster.litmus',
      'Copy+mbarrier+try_wait.acquire.cta+fence.acq_rel.cta.litmus',
      'Copy+mbarrier+try_wait.acquire.cta+branch.litmus',
    ])
      expect(c('default', g, ['1', '7']) + c('stress', g, ['1', '7']), g).toBe(0);
  });
  it("Dat3M's tests with forward branches: 79 of 265 ran, no forbidden outcome (MP-dlb's skipped load reads as the register's initial value)", (ctx) => {
    const root = peerRoot('re-judging the recorded H200 run of the Dat3M peer tests');
    if (!root) ctx.skip();
    const rep = read('peers-report.json.gz', C);
    expect([rejudgePeers(rep.results, root!), rep.results.length]).toEqual([79, 265]);
  });
});
