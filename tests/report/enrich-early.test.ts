/**
 * The recorder enriches results (compare.ts enrichResult: rule trails, allowed sets, explanations)
 * as they come, while the run waits on its workers, and judges the rest when the report is written:
 * the report's results are those judgeRun gives for the same results all at once. Results of a
 * recorded H200 run (observed, known deviations, a mismatch) are added in pieces with event-loop
 * turns between, so that some are enriched early and some at the end.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { judgeRun } from '../../harness/compare/judge-run.js';
import { enrichResult } from '../../harness/compare/compare.js';
import { loadReport } from '../../harness/report/load.js';
import { RunRecorder } from '../../harness/report/recorder.js';
import type { EntryResult } from '../../harness/report/types.js';
import { fromRoot } from '../../harness/util/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-enrich-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a report of results enriched as they came equals judgeRun of them all at once', { timeout: 60_000 }, async () => {
  const recorded = await loadReport(fromRoot('reports', 'baselines', 'h200-sm_90-gpu-run', 'report.json.gz'));
  // results of every verdict, as a run hands them over (without what judging adds: read back from JSON)
  const taken = new Map<string, number>();
  // (known deviations left out: they name expectations of a file this recorder was not given)
  const pick = recorded.results.filter((r) => {
    if (r.verdict === 'known-deviation') return false;
    const n = taken.get(r.verdict) ?? 0;
    taken.set(r.verdict, n + 1);
    return n < 800;
  });
  // what enrichment adds taken off (rule trails, allowed sets, explanations), so that it has work to do
  const bare = () =>
    (JSON.parse(JSON.stringify(pick)) as (EntryResult & { explanation?: unknown })[]).map((r) => {
      delete r.explanation;
      if (r.case) (r.case as { allowed: object }).allowed = {};
      (r.catalog as unknown as { rules: string[] }).rules = [];
      return r as EntryResult;
    });
  const raw = bare();
  expect([...new Set(raw.map((r) => r.verdict))].sort()).toEqual(['observed', 'pass', 'skipped']);
  const all = judgeRun(bare()).results;
  // the judging changes some of them: a report that skipped it would differ
  const changed = all.filter((r, i) => JSON.stringify(r.case?.allowed) !== JSON.stringify(raw[i]!.case?.allowed) || r.catalog.rules.length > 0);
  expect(changed.length).toBeGreaterThan(100);

  const rec = new RunRecorder(join(dir, 'r'), { startedAt: new Date().toISOString(), command: ['test'], arch: 'sm_90', filter: null, seed: 0 }, [], null);
  // the first half with turns between (enriched meanwhile), the second just before the report (enriched then)
  const half = raw.length >> 1;
  for (let i = 0; i < half; i += 500) {
    rec.add(raw.slice(i, Math.min(half, i + 500)));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 2));
  }
  rec.add(raw.slice(half));
  const w = rec.finish();
  const back = await loadReport(w.json);
  expect(back.results.length).toBe(all.length);
  expect(JSON.stringify(back.results)).toBe(JSON.stringify(JSON.parse(JSON.stringify(all))));
});

it(
  'a result enriched already (a gpu worker enriches what it keeps) is enriched no further: the same object, what one enrichment gives',
  { timeout: 60_000 },
  async () => {
    const recorded = await loadReport(fromRoot('reports', 'baselines', 'h200-sm_90-gpu-run', 'report.json.gz'));
    const pick = recorded.results.filter((r) => r.verdict === 'observed' || r.verdict === 'pass').slice(0, 6000);
    const bare = (JSON.parse(JSON.stringify(pick)) as (EntryResult & { explanation?: unknown })[]).map((r) => {
      delete r.explanation;
      if (r.case) {
        const c = r.case as { allowed: object; nan?: unknown; subnormals?: unknown };
        c.allowed = {};
        delete c.nan;
        delete c.subnormals;
      }
      (r.catalog as unknown as { rules: string[] }).rules = [];
      return r as EntryResult;
    });
    const once = bare.map(enrichResult);
    // what a worker's results look like after the IPC (plain objects), enriched again on the run's thread
    const sent = JSON.parse(JSON.stringify(once, (_, v) => (typeof v === 'bigint' ? String(v) : v))) as EntryResult[];
    const twice = sent.map(enrichResult);
    expect(JSON.stringify(twice)).toBe(JSON.stringify(sent));
    // the observed ones with their NaN or subnormal behaviour found: handed back as they are, not recomputed
    const done = sent.filter((r) => r.verdict === 'observed' && (r.case?.nan !== undefined || r.case?.subnormals !== undefined));
    expect(done.length).toBeGreaterThan(20);
    for (const r of done) expect(enrichResult(r)).toBe(r);
  },
);

it(
  "the report's facts of hardware cases worked out while the run goes (edition verdicts, page tables) give the same report as at the end",
  { timeout: 120_000 },
  async () => {
    // a default gpu run's kept results on an H200 (observed bits, edition-dependent bulk cases among them)
    const recorded = await loadReport(fromRoot('reports', 'baselines', 'h200-sm_90-gpu-run', '2026-11-29-session8', 'warm-report.json.gz'));
    const raw = () => (JSON.parse(JSON.stringify(recorded.results)) as EntryResult[]).filter((r) => r.verdict !== 'known-deviation');
    const meta = { startedAt: '2026-11-29T00:00:00.000Z', command: ['test'], arch: 'sm_90', filter: null, seed: 0 };
    // each report from modules of its own (vi.resetModules): the memos of one do not serve the other
    const write = async (name: string, going: boolean) => {
      vi.resetModules();
      const { RunRecorder: Recorder } = await import('../../harness/report/recorder.js');
      (await import('../../harness/families/index.js')).registerAllFamilies();
      const rec = new Recorder(join(dir, name), meta, [], null);
      const rs = raw();
      if (going) {
        for (let i = 0; i < rs.length; i += 400) {
          rec.add(rs.slice(i, i + 400));
          await new Promise((r) => setTimeout(r, 5));
        }
      } else rec.add(rs);
      const w = await rec.finishAsync();
      const timeless = (t: string) => t.replace(/"(finishedAt|elapsedMs)":("[^"]*"|\d+)/g, '');
      const page = readFileSync(w.html, 'utf8');
      return { json: timeless(readFileSync(w.json, 'utf8')), html: timeless(page), page, report: w.report };
    };
    const going = await write('going', true);
    const end = await write('end', false);
    expect(going.report.editionCheck?.judged ?? 0).toBeGreaterThan(20);
    expect(going.html).toContain('"tables":{"inputs"');
    expect(going.json).toBe(end.json);
    expect(going.html).toBe(end.html);
    // and each row's tables are its own case's: every input cell of one lane is that input's value
    const data = JSON.parse(/<script type="application\/json" id="data">(.*?)<\/script>/s.exec(going.page)![1]!) as {
      rows: { r: [string, ...unknown[]][] };
    };
    const byId = new Map(going.report.results.map((r) => [r.id, r]));
    let cells = 0;
    for (const row of data.rows.r) {
      const x = row[7] as { tables?: { inputs: { w: string; c: { h: string } }[] } } | undefined;
      const input = byId.get(row[0])?.case?.input as Record<string, unknown> | undefined;
      for (const { w, c } of x?.tables?.inputs ?? []) {
        const m = /^(\w+)((?:\[\d+\])+)$/.exec(w);
        if (!m || !input) continue;
        const v = [...m[2]!.matchAll(/\d+/g)].reduce<unknown>((a, i) => (a as unknown[])[Number(i[0])], input[m[1]!]);
        expect(BigInt(c.h), `${row[0]} ${w}`).toBe(BigInt(v as string));
        cells++;
      }
    }
    expect(cells).toBeGreaterThan(1000);
  },
);
