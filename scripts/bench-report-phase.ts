/**
 * `npm run bench:report-phase`: the report's part of a run's end (issue 43: "the report written while
 * the run goes"), on a recorded GPU run's kept results (reports/baselines/h200-sm_90-gpu-run/2026-11-29-session8/warm-report.json.gz,
 * 16,000-odd results of a default run) fed to the run's recorder (harness/report/recorder.ts):
 *
 *   at the end     every result added at once, then the report written: all of its CPU after the run;
 *   while it goes  the results added in batches with the event loop free between them, as a gpu run's
 *                  thread is while its workers run (1.5 s of it), then the report written: the tail
 *                  a run waits for after its last case.
 *
 * Prints the median of RUNS of each, in turn, in ms.
 *   npm run bench:report-phase [-- --runs N] [-- --report FILE]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadReport } from '../harness/report/load.js';
import { RunRecorder } from '../harness/report/recorder.js';
import { loadExpectations } from '../harness/compare/expectations.js';
import { registerAllFamilies } from '../harness/families/index.js';
import type { EntryResult } from '../harness/report/types.js';

const { values } = parseArgs({ options: { runs: { type: 'string' }, report: { type: 'string' } } });
const RUNS = Number(values.runs ?? 5);
const file = values.report ?? join(import.meta.dirname, '..', 'reports', 'baselines', 'h200-sm_90-gpu-run', '2026-11-29-session8', 'warm-report.json.gz');
registerAllFamilies();
const doc = await loadReport(file);
const expectations = (await loadExpectations(join(import.meta.dirname, '..', 'cases', 'expectations', `${doc.arch}.yaml`))).expectations;
// the results as a run adds them: before the expectations (a known deviation is the verdict it covers)
const raw: EntryResult[] = doc.results.map((r) => {
  if (r.verdict !== 'known-deviation' || !r.expectation) return r;
  const e = expectations.find((x) => x.id === r.expectation);
  const { expectation: _drop, ...rest } = r as EntryResult & { expectation?: string };
  return { ...rest, verdict: e?.verdict ?? 'mismatch' } as EntryResult;
});
const scratch = mkdtempSync(join(tmpdir(), 'bench-report-phase-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function once(mode: 'end' | 'going', k: number): Promise<number> {
  const rec = new RunRecorder(
    join(scratch, `${mode}-${k}`),
    { startedAt: new Date().toISOString(), command: 'bench', arch: doc.arch, filter: null, seed: doc.seed, shard: null } as never,
    expectations,
    null,
  );
  rec.set({ toolchain: doc.toolchain, modulePtx: doc.modulePtx, backend: doc.backend, stats: doc.stats, catalogEntries: doc.catalog?.entries ?? 0 } as never);
  if (mode === 'going') {
    const batch = 256;
    const gap = 1500 / Math.ceil(raw.length / batch);
    for (let i = 0; i < raw.length; i += batch) {
      rec.add(raw.slice(i, i + batch));
      await sleep(gap);
    }
  } else rec.add(raw);
  const t = performance.now();
  await rec.finishAsync();
  return performance.now() - t;
}

const times: Record<string, number[]> = { end: [], going: [] };
for (let k = 0; k < RUNS; k++)
  for (const mode of (process.env.BENCH_MODE ? [process.env.BENCH_MODE] : ['end', 'going']) as ('end' | 'going')[]) times[mode]!.push(await once(mode, k));
rmSync(scratch, { recursive: true, force: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`${raw.length} results of ${file}`);
console.log(`report written at the end:      median ${median(times.end!).toFixed(0)} ms (${times.end!.map((x) => x.toFixed(0)).join(' ')})`);
console.log(`report after a run's last case: median ${median(times.going!).toFixed(0)} ms (${times.going!.map((x) => x.toFixed(0)).join(' ')})`);
