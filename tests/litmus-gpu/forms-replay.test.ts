/**
 * The recorded H200 run of the litmus language's further forms (issue 42: copies of more than one
 * 16-byte chunk, bulk tensor .tile forms of 2 to 5 dimensions, vector atom and red; reports/baselines/
 * h200-sm_90-litmus-async/2026-11-29-session4: the async suite with its mutants at default and heavy
 * stress, the corpus, Dat3M), judged again on the CPU. The figures docs/litmus.md quotes are read here.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { GpuLitmusResult } from '../../harness/litmus-gpu/results.js';
import { rejudgeCorpusRun, rejudgePeers } from '../helpers/litmus-replay.js';
import { peerRoot } from '../helpers/third-party.js';

const D = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-session4';
/** A recorded report of one of this session's folders (`D` unless named). */
const read = (f: string, dir = D) => JSON.parse(gunzipSync(readFileSync(`${dir}/${f}`)).toString()) as { run: { device: string }; results: GpuLitmusResult[] };
const RUNS = { default: read('async-report.json.gz'), stress: read('async-stress-report.json.gz') };
const explained = (JSON.parse(readFileSync('cases/litmus/gpu-findings.json', 'utf8')) as { explained: { test: string }[] }).explained.map((e) => e.test);
const count = (run: keyof typeof RUNS, f: string, values: string[]) =>
  RUNS[run].results.find((r) => r.file === `cases/litmus/${f}`)?.gpu?.histogram.find((h) => h.values.join() === values.join())?.count ?? 0;
const both = (f: string, v: string[]) => [count('default', f, v), count('stress', f, v)];
const ONE = String(0x3f800000); // 1.0f

describe('the recorded H200 run of the further forms, judged again', () => {
  for (const [name, rep] of Object.entries(RUNS))
    it(`${name}: every row's verdict as recorded, no forbidden outcome but the explained findings, every mutant with its weak count; the new forms all ran`, () => {
      expect(rep.run.device).toMatch(/H200/);
      const ran = rejudgeCorpusRun(rep.results, explained).filter((r) => !r.mutant);
      expect(ran.length).toBe(86);
      expect(ran.filter((r) => /\/(Copy\+two-chunks|Tensormap\+[2-5]d|Vector)\+/.test(r.file)).length).toBe(16);
    });
  it('the corpus: 416 of 422 ran, every row as recorded; Dat3M 124 of 265', (ctx) => {
    const suite = read('suite-report.json.gz');
    expect(suite.results.length).toBe(422);
    expect(rejudgeCorpusRun(suite.results, explained).length).toBe(416);
    const root = peerRoot();
    if (!root) return ctx.skip();
    expect(rejudgePeers(read('peers-report.json.gz').results, root)).toBe(124);
    expect(rejudgePeers(read('peers-stress-report.json.gz').results, root)).toBe(124);
  });
  it('the answers docs/litmus.md gives: a two-chunk copy reads its global source stale without fence.proxy.async; a vector red never showed its elements apart; N-D maps used stale without the tensormap fences', () => {
    expect(both('Copy+two-chunks+global-source-no-proxy-fence.litmus', ['1', '0'])).toEqual([41601, 178485]);
    expect(both('Copy+two-chunks+global-source+fence.proxy.async.litmus', ['1', '0'])).toEqual([0, 0]);
    expect(both('Copy+two-chunks+no-wait+read-destination.litmus', ['1', '0'])).toEqual([0, 0]);
    expect(both('Vector+red.release+observer.litmus', [ONE, '0'])).toEqual([0, 0]);
    expect(both('Tensormap+2d+replace-no-fence.litmus', ['1'])).toEqual([3006, 1870]);
    expect(both('Tensormap+3d+load+replace-no-fence.litmus', ['1', '1'])).toEqual([3, 4494]);
    expect(both('Tensormap+5d+store+replace-no-fence.litmus', ['5'])).toEqual([2753, 2123]);
    expect(both('Tensormap+4d+replace+fence.release+fence.acquire.litmus', ['1'])).toEqual([0, 0]);
  });
});

describe("the H200 run of the TMA copies' im2col forms (before the element-order change), judged again with the model's present reading", () => {
  const F = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-session4-im2col';
  const fin = (f: string) => read(f, F);
  it('async (both stresses) and the corpus: every row as recorded but the one mutant row the model now allows; 421 of 427 corpus tests ran', () => {
    for (const f of ['async-report.json.gz', 'async-stress-report.json.gz']) {
      const rep = fin(f);
      expect(rep.run.device).toMatch(/H200/);
      expect(rejudgeCorpusRun(rep.results, explained).filter((r) => !r.mutant).length).toBe(91);
    }
    const suite = fin('suite-report.json.gz');
    expect(suite.results.length).toBe(427);
    expect(rejudgeCorpusRun(suite.results, explained).length).toBe(421);
    // the mutant outcome the H200 showed once: (0, 0) after wait_group.read, recorded forbidden, allowed by the model now
    const m = fin('async-stress-report.json.gz').results.find(
      (r) => r.file === 'cases/litmus/Copy+two-chunks+wait_group+read-destination.litmus#async:P0:L11:read',
    )!;
    expect(m.gpu!.histogram.find((h) => h.values.join() === '0,0')).toMatchObject({ count: 1, allowed: false });
  });
  it('the im2col forms: a TMA load / reduction / store on a patched map without the tensormap fences used the old map; with them, never', () => {
    const rows = (f: string, v: string[]) =>
      ['async-report.json.gz', 'async-stress-report.json.gz'].map(
        (r) =>
          fin(r)
            .results.find((x) => x.file === `cases/litmus/${f}`)
            ?.gpu?.histogram.find((h) => h.values.join() === v.join())?.count ?? 0,
      );
    expect(rows('Tensormap+3d+im2col+replace-no-fence.litmus', ['1'])).toEqual([2935, 2242]);
    expect(rows('Tensormap+5d+im2col_no_offs+store+replace-no-fence.litmus', ['5'])).toEqual([2716, 2333]);
    expect(rows('Tensormap+5d+im2col+replace+fence.release+fence.acquire.litmus', ['1'])).toEqual([0, 0]);
    expect(rows('Tensormap+4d+im2col+load+replace+fence.release+fence.acquire.litmus', ['1', '1'])).toEqual([0, 0]);
  });
});

describe("the session's last H200 run, at its last code, judged again", () => {
  const F = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-session4-final';
  const fin = (f: string) => read(f, F);
  it('no forbidden outcome but the explained findings; 91 async tests and 116 mutants run at each stress; the corpus 421 of 427; the wait_group.read mutant killed once under heavy stress', () => {
    for (const f of ['async-report.json.gz', 'async-stress-report.json.gz']) {
      const rep = fin(f);
      expect(rep.run.device).toMatch(/H200/);
      const ran = rejudgeCorpusRun(rep.results, explained);
      expect(ran.filter((r) => !r.mutant).length).toBe(91);
      expect(ran.filter((r) => r.mutant).length).toBe(116);
      expect(ran.filter((r) => !r.mutant && r.gpu!.forbiddenSeen && !explained.includes(r.file))).toEqual([]);
    }
    const suite = fin('suite-report.json.gz');
    expect(rejudgeCorpusRun(suite.results, explained).length).toBe(421);
    const m = fin('async-stress-report.json.gz').results.find(
      (r) => r.file === 'cases/litmus/Copy+two-chunks+wait_group+read-destination.litmus#async:P0:L11:read',
    )!;
    expect(m.mutant?.weak).toBe(1);
    expect(m.gpu!.histogram.find((h) => h.values.join() === '0,0')).toMatchObject({ count: 1, allowed: true });
  });
});
