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
type Recorded = { run: { device: string }; results: GpuLitmusResult[] };
const reports = new Map<string, Recorded>();
/** A recorded report of one of this session's folders (`D` unless named), read once. */
const read = (f: string, dir = D): Recorded => {
  const path = `${dir}/${f}`;
  const known = reports.get(path);
  if (known) return known;
  const r = JSON.parse(gunzipSync(readFileSync(path)).toString()) as Recorded;
  reports.set(path, r);
  return r;
};
/** The async suite's two runs of a folder: default and heavy stress. */
const ASYNC = ['async-report.json.gz', 'async-stress-report.json.gz'] as const;
const explained = (JSON.parse(readFileSync('cases/litmus/gpu-findings.json', 'utf8')) as { explained: { test: string }[] }).explained.map((e) => e.test);
/** How often a test's outcome `values` was seen in a folder's two async runs (default, heavy stress). */
const counts = (f: string, values: string[], dir = D) =>
  ASYNC.map(
    (r) =>
      read(r, dir)
        .results.find((x) => x.file === `cases/litmus/${f}`)
        ?.gpu?.histogram.find((h) => h.values.join() === values.join())?.count ?? 0,
  );
/** A folder's two async runs, each checked to be the H200's and judged again. */
const rejudgedAsync = (dir: string) =>
  ASYNC.map((f) => {
    const rep = read(f, dir);
    expect(rep.run.device).toMatch(/H200/);
    return rejudgeCorpusRun(rep.results, explained);
  });
const ONE = String(0x3f800000); // 1.0f

describe('the recorded H200 run of the further forms, judged again', () => {
  it("both stresses: every row's verdict as recorded, no forbidden outcome but the explained findings, every mutant with its weak count; the new forms all ran", () => {
    for (const rows of rejudgedAsync(D)) {
      const ran = rows.filter((r) => !r.mutant);
      expect(ran.length).toBe(86);
      expect(ran.filter((r) => /\/(Copy\+two-chunks|Tensormap\+[2-5]d|Vector)\+/.test(r.file)).length).toBe(16);
    }
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
    expect(counts('Copy+two-chunks+global-source-no-proxy-fence.litmus', ['1', '0'])).toEqual([41601, 178485]);
    expect(counts('Copy+two-chunks+global-source+fence.proxy.async.litmus', ['1', '0'])).toEqual([0, 0]);
    expect(counts('Copy+two-chunks+no-wait+read-destination.litmus', ['1', '0'])).toEqual([0, 0]);
    expect(counts('Vector+red.release+observer.litmus', [ONE, '0'])).toEqual([0, 0]);
    expect(counts('Tensormap+2d+replace-no-fence.litmus', ['1'])).toEqual([3006, 1870]);
    expect(counts('Tensormap+3d+load+replace-no-fence.litmus', ['1', '1'])).toEqual([3, 4494]);
    expect(counts('Tensormap+5d+store+replace-no-fence.litmus', ['5'])).toEqual([2753, 2123]);
    expect(counts('Tensormap+4d+replace+fence.release+fence.acquire.litmus', ['1'])).toEqual([0, 0]);
  });
});

describe("the H200 run of the TMA copies' im2col forms (before the element-order change), judged again with the model's present reading", () => {
  const F = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-session4-im2col';
  const fin = (f: string) => read(f, F);
  it('async (both stresses) and the corpus: every row as recorded but the one mutant row the model now allows; 421 of 427 corpus tests ran', () => {
    for (const rows of rejudgedAsync(F)) expect(rows.filter((r) => !r.mutant).length).toBe(91);
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
    expect(counts('Tensormap+3d+im2col+replace-no-fence.litmus', ['1'], F)).toEqual([2935, 2242]);
    expect(counts('Tensormap+5d+im2col_no_offs+store+replace-no-fence.litmus', ['5'], F)).toEqual([2716, 2333]);
    expect(counts('Tensormap+5d+im2col+replace+fence.release+fence.acquire.litmus', ['1'], F)).toEqual([0, 0]);
    expect(counts('Tensormap+4d+im2col+load+replace+fence.release+fence.acquire.litmus', ['1', '1'], F)).toEqual([0, 0]);
  });
});

describe("the session's last H200 run, at its last code, judged again", () => {
  const F = 'reports/baselines/h200-sm_90-litmus-async/2026-11-29-session4-final';
  const fin = (f: string) => read(f, F);
  it('no forbidden outcome but the explained findings; 91 async tests and 116 mutants run at each stress; the corpus 421 of 427; the wait_group.read mutant killed once under heavy stress', () => {
    for (const ran of rejudgedAsync(F)) {
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
