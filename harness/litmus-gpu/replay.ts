/**
 * Deterministic replay of a GPU litmus run (issue 26, deliverable 2): the report records every
 * parameter the run needed (report.run.replay: seed, arch, SM count the geometry was computed for,
 * module PTX ISA version, toolchain, self-test, mutants, every file with the sha256 of its source;
 * per result, `runs`: each stress setting it ran under with its iterations, instances per launch,
 * geometry and the sha256 of its module). `litmus --backend gpu --replay REPORT.json [--only TEST]`
 * reruns exactly those launches. The permutation tables are a function of (seed, instances per
 * launch, iterations) only (run.ts `permutations`), so a test replayed alone gets the tables it had.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { UsageError } from '../util/errors.js';
import type { StressSetting } from './stress.js';
import { LITMUS_REPORT_SCHEMA } from '../cli/litmus-files.js';

export interface ReplayRecord {
  readonly version: 1;
  readonly seed: number;
  readonly arch: string;
  /** The SM count launch geometries were computed for (replays compute them for it, whatever the GPU). */
  readonly smCount: number;
  readonly modulePtx: string;
  readonly toolchain: string;
  readonly selfTest: boolean;
  readonly mutants: boolean;
  /** Every test file the run read (selected ones), with the sha256 of its source. */
  readonly files: readonly { readonly file: string; readonly sha256: string }[];
}

/** One stress setting a result ran under: the setting, its launches and what it saw. */
export interface RunRecord extends StressSetting {
  readonly from: string;
  readonly iterations: number;
  /** Instances per launch asked for (absent: one fill of the GPU) and the instances per launch made. */
  readonly asked?: number;
  readonly perLaunch: number;
  readonly grid: number;
  readonly block: number;
  readonly cluster: number;
  /** sha256 of the module's PTX text. */
  readonly module: string;
  readonly instances: number;
  readonly forbiddenSeen: number;
}

export interface LoadedReplay {
  readonly path: string;
  readonly record: ReplayRecord;
  readonly device: string;
  /** The recorded runs of every result that ran, by result file (a mutant: file#name). */
  readonly runs: ReadonlyMap<string, readonly RunRecord[]>;
}

export const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** Reads a report written by `litmus --backend gpu` (report.json, or .json.gz) for a replay; a UsageError names what is wrong. */
export function loadReplay(path: string, only: readonly string[] = []): LoadedReplay {
  const what = `--replay ${path}`;
  if (!existsSync(path)) throw new UsageError(`${what}: no such file; give the report.json a \`litmus --backend gpu\` run wrote`);
  let rep: { schema?: string; backend?: string; run?: { replay?: ReplayRecord; device?: string }; results?: { file: string; runs?: RunRecord[] }[] };
  try {
    const raw = readFileSync(path);
    rep = JSON.parse((raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8'));
  } catch (e) {
    throw new UsageError(`${what}: not a JSON report (${(e as Error).message}); give the report.json a \`litmus --backend gpu\` run wrote`);
  }
  if (rep?.schema !== LITMUS_REPORT_SCHEMA || rep.backend !== 'gpu' || !Array.isArray(rep.results))
    throw new UsageError(
      `${what}: not a litmus-gpu report (schema ${JSON.stringify(rep?.schema)}, backend ${JSON.stringify(rep?.backend)}); give the report.json a \`litmus --backend gpu\` run wrote`,
    );
  const rec = rep.run?.replay;
  if (!rec || rec.version !== 1 || !Array.isArray(rec.files))
    throw new UsageError(`${what}: the report records no replay parameters (run.replay): it was written before replay existed; run the tests afresh`);
  const runs = new Map<string, RunRecord[]>();
  for (const r of rep.results) if (r.runs?.length) runs.set(r.file, r.runs);
  let keep = runs;
  if (only.length) {
    keep = new Map([...runs].filter(([f]) => only.includes(f)));
    const missing = only.filter((t) => !runs.has(t));
    if (missing.length)
      throw new UsageError(
        `${what}: --only ${missing.join(', ')}: no result of that file ran in the report; name a result's file as the report has it (e.g. ${[...runs.keys()].slice(0, 3).join(', ')})`,
      );
  }
  return { path, record: rec, device: rep.run?.device ?? '', runs: keep };
}

/** Refuses (UsageError) when a file the replay reads is gone or its source changed since the run. */
export function checkSources(rp: LoadedReplay): void {
  const wanted = new Set([...rp.runs.keys()].map((f) => f.replace(/#.*$/, '')));
  for (const { file, sha256: h } of rp.record.files) {
    if (!wanted.has(file)) continue;
    if (!existsSync(file))
      throw new UsageError(`--replay ${rp.path}: ${file} is gone; a replay reads the sources the run read (run it from the same checkout)`);
    const now = sha256(readFileSync(file));
    if (now !== h)
      throw new UsageError(
        `--replay ${rp.path}: ${file} changed since the run (sha256 ${now.slice(0, 12)}..., the report has ${h.slice(0, 12)}...); a replay needs the source the run read: restore it, or run the test afresh without --replay`,
      );
  }
  for (const f of wanted)
    if (!rp.record.files.some((x) => x.file === f))
      throw new UsageError(`--replay ${rp.path}: ${f} ran but the report has no hash of its source; the report is damaged`);
}

/** The options a replay fixes itself; giving one with --replay is a usage error. */
export const REPLAY_FIXES = [
  'iterations',
  'instances',
  'total',
  'stress-warps',
  'stress-iters',
  'stride',
  'align',
  'preload',
  'stress-target',
  'seed',
  'mutants',
  'search-stress',
  'stress-file',
  'self-test',
  'filter',
  'arch',
] as const;
