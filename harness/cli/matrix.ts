/**
 * A toolchain matrix: `--ptxas A --ptxas B ...` runs the same plan under each ptxas. Each toolchain's
 * run writes its own report into a folder named after it (`ptxas-11.8/`, `ptxas-13.0/`) inside the
 * run's folder; `matrix.json` and `matrix.txt` there compare their answers entry by entry.
 *
 * The ptxas backend (the catalog): every toolchain classifies first, in this process, over the same
 * entries; then each report is written keeping, besides what a run keeps anyway, every entry whose
 * answers differ between toolchains, so `diff` of two of its reports shows each difference. An
 * entry a toolchain cannot compile (its PTX ISA is newer than that ptxas reads, or the target is
 * unknown to it) is skipped there with the reason, and counted apart from the differences. The case
 * library on the reference model compiles nothing: it runs once, in the first toolchain's report.
 *
 * The gpu backend: one full run per toolchain (each compiles its own kernels), compared by the
 * results the reports keep (verdicts and observed bits).
 */
import { existsSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG_PTX_ISA, type Target, findTarget, modulePtxFor } from '../arch/targets.js';
import { type PtxasRun, runPtxasBackend } from '../backends/ptxas/backend.js';
import { type Ptxas, ToolchainError, probePtxas } from '../backends/ptxas/toolchain.js';
import { selectBackend } from '../backends/select.js';
import { selectEntries } from '../catalog/select.js';
import type { WorkerPool } from '../backends/gpu/pool.js';
import type { CatalogEntry } from '../catalog/enumerate.js';
import { prepareReportDir } from '../report/dir.js';
import type { RunReport } from '../report/json.js';
import type { EntryResult } from '../report/types.js';
import { toolchainFolder, toolchainName } from '../util/toolchain-name.js';
import { shardSlice } from '../util/shard.js';
import type { Options } from './args.js';
import { UsageError } from '../util/errors.js';
import type { Io } from './io.js';
import { Progress } from './progress.js';

/** What a run inside a matrix gets from it. */
export interface MatrixMember {
  readonly index: number;
  readonly label: string;
  /** The ptxas backend's results for this toolchain, classified before any report was written. */
  readonly precomputed?: PtxasRun;
  /** Entries kept whole whatever their verdict: those whose answers differ between toolchains. */
  readonly alsoKeep?: ReadonlySet<string>;
  /** The catalog entries `precomputed` answers (enumerated once: 7 s for sm_90). */
  readonly entries?: readonly CatalogEntry[];
}

export interface RunHooks {
  readonly matrix?: MatrixMember;
  /** The finished report of the run (undefined when it wrote none) and its exit code. */
  readonly onReport?: (report: RunReport | undefined) => void;
  /** The peer command: the device that holds the cases' memory (the gpu workers are told in their spawn environment). */
  readonly memoryDevice?: number;
  /** The default gpu run's workers, started with the run (backends/gpu/backend.ts prestartGpuWorkers). */
  readonly gpuPool?: WorkerPool;
}

/** One entry's answer under one toolchain. */
export interface Answer {
  readonly verdict: string;
  /** accept, reject, crash SIGNAL, accept-with-warning; or the skip reason's gist; or the observed bits */
  readonly answer: string;
  readonly message?: string;
}

export interface MatrixDifference {
  readonly id: string;
  readonly family: string;
  readonly ptx: string;
  readonly answers: Record<string, Answer>;
}

/** A ptxas backend result's answer: what ptxas did with the line, or why nothing ran. */
export function answerOf(r: EntryResult): Answer {
  if (!r.ptxas) return { verdict: r.verdict, answer: r.verdict === 'skipped' ? 'skipped' : r.verdict, message: r.reason };
  const a = r.ptxas.crashed ? `crash ${r.ptxas.crashed}` : !r.ptxas.accepted ? 'reject' : (r.ptxas.answer ?? 'accept');
  const msgs = r.ptxas.messages.filter((m) => (a === 'reject' ? !/^warning/i.test(m) : true));
  return { verdict: r.verdict, answer: a, ...(msgs.length ? { message: msgs.join(' | ') } : {}) };
}

/** The gpu backend's answer of a kept result: its verdict and observed bits. */
export function gpuAnswerOf(r: EntryResult): Answer {
  const bits = r.case?.observed ? JSON.stringify(r.case.observed) : undefined;
  return { verdict: r.verdict, answer: bits ? `${r.verdict} ${bits}` : r.verdict, message: r.reason };
}

export interface MatrixComparison {
  /** Entries every toolchain checked, with answers that differ. */
  readonly differences: MatrixDifference[];
  /** Entries checked by both and answered alike. */
  readonly same: number;
  /** Entries some toolchain did not check (skipped there), by toolchain and reason. */
  readonly notChecked: { label: string; reason: string; count: number; example: string }[];
}

/** Why a toolchain has no result for an entry another one has. */
export const NOT_IN_REPORT =
  'not in its report: a plain pass the report did not keep whole, or a variant its plan left out (a PTX ISA newer than that ptxas writes)';

/** Compares the toolchains' results entry by entry (results of one plan, any order). */
export function compareAnswers(
  labels: readonly string[],
  runs: readonly (readonly EntryResult[])[],
  answer: (r: EntryResult) => Answer = answerOf,
): MatrixComparison {
  const byId = new Map<string, (EntryResult | undefined)[]>();
  runs.forEach((rs, t) => {
    for (const r of rs) {
      let row = byId.get(r.id);
      if (!row) byId.set(r.id, (row = new Array(labels.length).fill(undefined)));
      row[t] = r;
    }
  });
  const differences: MatrixDifference[] = [];
  const notChecked = new Map<string, { label: string; reason: string; count: number; example: string }>();
  let same = 0;
  for (const [id, row] of byId) {
    const skipped = row.map((r) => !r || r.verdict === 'skipped');
    if (skipped.some(Boolean)) {
      const count = (label: string, reason: string) => {
        const k = `${label}\u0000${reason}`;
        const g = notChecked.get(k);
        if (g) g.count++;
        else notChecked.set(k, { label, reason, count: 1, example: id });
      };
      // skipped by every toolchain, each with a result: one count, with the reason less the toolchain's name
      if (row.every((r) => r && r.verdict === 'skipped'))
        count(
          'every toolchain',
          row[0]!.reason.replace(/; ptxas \d+\.\d+ supports up to [\d.]+$/, '').replace(/, and this ptxas writes PTX ISA [\d.]+ at most$/, ''),
        );
      else row.forEach((r, t) => skipped[t] && count(labels[t]!, r ? r.reason : NOT_IN_REPORT));
      continue;
    }
    const as = row.map((r) => answer(r!));
    if (as.every((a) => a.answer === as[0]!.answer && a.verdict === as[0]!.verdict)) {
      same++;
      continue;
    }
    const r0 = row[0]!;
    differences.push({ id, family: r0.family, ptx: r0.ptx, answers: Object.fromEntries(labels.map((l, t) => [l, as[t]!])) });
  }
  return { differences, same, notChecked: [...notChecked.values()].sort((a, b) => b.count - a.count) };
}

/** The lines matrix.txt holds and the run prints: toolchains, then differences grouped, then what some did not check. */
export function matrixLines(
  toolchains: readonly { label: string; name: string; path: string; maxPtx: string; seconds: number; exit: number; report?: string; checked?: number }[],
  c: MatrixComparison,
  max = 40,
): string[] {
  const L: string[] = ['toolchain matrix:'];
  for (const t of toolchains) {
    L.push(
      `  ${t.label.padEnd(12)} ${t.name}, PTX ISA up to ${t.maxPtx}, ${t.path}: ${t.checked !== undefined ? `${t.checked} checked, ` : ''}${t.seconds.toFixed(1)} s, exit ${t.exit}${t.report ? `; ${t.report}` : ''}`,
    );
  }
  const labels = toolchains.map((t) => t.label);
  L.push(`answers: ${c.same} alike under every toolchain, ${c.differences.length} differ (entries every toolchain checked)`);
  const groups = new Map<string, { n: number; example: MatrixDifference }>();
  for (const d of c.differences) {
    const k = `${d.family}: ${labels.map((l) => `${l} ${d.answers[l]!.answer === d.answers[l]!.verdict ? d.answers[l]!.verdict : `${d.answers[l]!.answer} (${d.answers[l]!.verdict})`}`).join(', ')}`;
    const g = groups.get(k);
    if (g) g.n++;
    else groups.set(k, { n: 1, example: d });
  }
  const sorted = [...groups].sort((a, b) => b[1].n - a[1].n);
  for (const [k, g] of sorted.slice(0, max)) {
    L.push(`  ${String(g.n).padStart(6)}  ${k}`);
    L.push(`          e.g. ${g.example.id}`);
    for (const l of labels) if (g.example.answers[l]!.message) L.push(`          ${l}: ${g.example.answers[l]!.message!.slice(0, 200)}`);
  }
  if (sorted.length > max) L.push(`  ... ${sorted.length - max} more groups in matrix.json`);
  if (c.notChecked.length) {
    L.push('not checked by every toolchain (not counted as a difference):');
    for (const g of c.notChecked.slice(0, 12)) L.push(`  ${String(g.count).padStart(6)}  ${g.label}: ${g.reason.slice(0, 160)} (e.g. ${g.example})`);
    if (c.notChecked.length > 12) L.push(`  ... ${c.notChecked.length - 12} more reasons in matrix.json`);
  }
  return L;
}

/** argv without --ptxas and --report (a member's own are added). */
export function memberArgv(argv: readonly string[], ptxas: string, report: string, extra: readonly string[] = []): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--ptxas' || a === '--report') {
      i++;
      continue;
    }
    if (a.startsWith('--ptxas=') || a.startsWith('--report=')) continue;
    out.push(a);
  }
  return [...out, ...extra, '--ptxas', ptxas, '--report', report];
}

/**
 * The toolchain matrix of a GPU-only command (`contend`, `sweep`): the command once per ptxas, each
 * into its own folder, then the results compared (contention groups and sweep cells by id: verdict,
 * and the observed bits where a result has them).
 */
export async function commandMatrix(
  command: string,
  argv: readonly string[],
  paths: readonly string[],
  report: string | undefined,
  io: Io,
  runOne: (argv: readonly string[], io: Io) => Promise<number>,
): Promise<number> {
  const started = new Date();
  const toolchains = await probeToolchains(paths);
  const dir = prepareReportDir(report, `${command}-matrix-`, started, (l) => io.err(l), { overwrite: argv.includes('--overwrite') });
  const labels = toolchains.map((t) => t.label);
  const codes: number[] = [];
  const seconds: number[] = [];
  const results: (readonly EntryResult[])[] = [];
  const { loadReport } = await import('../report/load.js');
  for (const t of toolchains) {
    const t0 = performance.now();
    const sub = join(dir, t.label);
    io.err(`\n== ${command} under ${t.label}: ${toolchainName(t.ptxas)} (${t.path}) -> ${sub}`);
    const code = await runOne(memberArgv(argv, t.path, sub), io);
    codes.push(code);
    seconds.push((performance.now() - t0) / 1000);
    const file = join(sub, 'report.json');
    results.push(existsSync(file) ? (await loadReport(file)).results : []);
    if (code === 2 || code === 3 || code === 130 || code === 143) break;
  }
  if (!results.some((r) => r.length) && codes.some((c) => c !== 0 && c !== 1)) {
    // nothing ran (no GPU, a bad option): the member said why; no matrix of nothing is left behind
    for (const t of toolchains) removeIfEmpty(join(dir, t.label));
    removeIfEmpty(dir);
    return worst(codes);
  }
  const comparison = compareAnswers(labels.slice(0, results.length), results, gpuAnswerOf);
  const rows = toolchains.map((t, i) => ({
    label: t.label,
    name: toolchainName(t.ptxas),
    path: t.path,
    release: t.ptxas.release,
    versionLine: t.ptxas.versionLine,
    maxPtx: t.ptxas.maxPtx,
    seconds: seconds[i] ?? 0,
    exit: codes[i] ?? -1,
    ...(results[i]?.length ? { report: join(t.label, 'report.json'), checked: results[i]!.length } : {}),
  }));
  writeMatrix(dir, { command: ['npm', 'run', 'conformance', '--', command, ...argv], arch: null, backend: 'gpu', filter: null, started, rows, comparison }, io);
  return worst(codes);
}

/** Removes a folder only when it holds nothing (never a user's files). */
function removeIfEmpty(d: string): void {
  try {
    if (existsSync(d) && !readdirSync(d).length) rmdirSync(d);
  } catch {
    // left as it is
  }
}

function writeMatrix(
  dir: string,
  m: {
    command: string[];
    arch: string | null;
    backend: string;
    filter: string | null;
    started: Date;
    rows: Parameters<typeof matrixLines>[0];
    comparison: MatrixComparison;
  },
  io: Io,
): void {
  const lines = matrixLines(m.rows, m.comparison);
  const doc = {
    schema: 'ptx-reduction-conformance/toolchain-matrix',
    version: 1,
    startedAt: m.started.toISOString(),
    command: m.command,
    arch: m.arch,
    backend: m.backend,
    filter: m.filter,
    toolchains: m.rows,
    same: m.comparison.same,
    differences: m.comparison.differences,
    notChecked: m.comparison.notChecked,
  };
  writeFileSync(join(dir, 'matrix.json'), `${JSON.stringify(doc, null, 1)}\n`);
  writeFileSync(join(dir, 'matrix.txt'), `${lines.join('\n')}\n`);
  io.out('');
  for (const l of lines) io.out(l);
  const say = io.outGone?.() ? io.err : io.out;
  say(`\nmatrix: ${join(dir, 'matrix.json')}`);
  say(`        ${join(dir, 'matrix.txt')}`);
  const reps = m.rows.filter((r) => r.report);
  if (reps.length >= 2) say(`diff:   npm run conformance -- diff ${join(dir, reps[0]!.report!)} ${join(dir, reps[1]!.report!)}`);
}

/** Each --ptxas probed (a usage error where one is not a ptxas), with its folder name (`-2` for a second of one release). */
async function probeToolchains(paths: readonly string[]): Promise<{ path: string; ptxas: Ptxas; label: string }[]> {
  const toolchains: { path: string; ptxas: Ptxas; label: string }[] = [];
  try {
    for (const path of paths) {
      const p = await probePtxas(path);
      let label = toolchainFolder(p);
      for (let k = 2; toolchains.some((t) => t.label === label); k++) label = `${toolchainFolder(p)}-${k}`;
      toolchains.push({ path, ptxas: p, label });
    }
  } catch (e) {
    if (e instanceof ToolchainError) throw new UsageError(e.message);
    throw e;
  }
  return toolchains;
}

const worst = (codes: readonly number[]): number => [3, 143, 130, 2, 1].find((c) => codes.includes(c)) ?? codes.find((c) => c !== 0) ?? 0;

export async function matrixCommand(
  argv: readonly string[],
  opts: Options,
  io: Io,
  runOne: (argv: readonly string[], io: Io, hooks: RunHooks) => Promise<number>,
): Promise<number> {
  if (opts.backend === 'reference' || opts.backend === 'multicast') {
    throw new UsageError(
      `--ptxas given ${opts.ptxas.length} times: a toolchain matrix compares what each ptxas does, which the ${opts.backend} backend does not use; use --backend ptxas (the catalog) or --backend gpu (auto picks the richest)`,
    );
  }
  if (opts.vectors.length || opts.case !== undefined) {
    throw new UsageError(
      "--ptxas given several times with --vectors/--case: a toolchain matrix runs the catalog (ptxas backend) or the gpu backend's plan; run the cases under each ptxas with one --ptxas each",
    );
  }
  const target = findTarget(opts.arch)!;
  const started = new Date();
  // each toolchain, probed: it must be a ptxas this harness can read
  const toolchains = await probeToolchains(opts.ptxas);
  const labels = toolchains.map((t) => t.label);
  io.err(`toolchain matrix: ${toolchains.map((t) => `${t.label} (${toolchainName(t.ptxas)}, PTX ISA up to ${t.ptxas.maxPtx}, ${t.path})`).join('; ')}`);
  const backendName = (await selectBackend(opts.backend, target, toolchains[0]!.path)).name;
  const dir = prepareReportDir(opts.report, 'matrix-', started, (l) => io.err(l), { overwrite: opts.overwrite });

  // the ptxas backend: every toolchain classifies the same entries before any report is written
  const pre: PtxasRun[] = [];
  let sets: CatalogEntry[][] = [];
  const seconds: number[] = [];
  let comparison: MatrixComparison | undefined;
  if (backendName === 'ptxas') {
    // the toolchains classify at once: one ptxas run leaves a core idle much of the time (a crash
    // is answered before the entries after it are scanned again), so two overlap well on 2 cores
    sets = toolchains.map((t) => {
      const ptx = modulePtxFor(target, t.ptxas.maxPtx) ?? modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA;
      return shardSlice(selectEntries(opts, target, ptx), opts.shard);
    });
    const total = sets.reduce((n, e) => n + e.length, 0);
    const progress = new Progress(io, total, `entries classified by ${labels.join(' and ')}`);
    const t0 = performance.now();
    const runs = await Promise.all(
      toolchains.map(async (t, i) => {
        const r = await runPtxasBackend(sets[i]!, target as Target, t.ptxas, (n) => progress.tick(n), undefined, { cacheDir: opts.cacheDir });
        seconds[i] = (performance.now() - t0) / 1000;
        return r;
      }),
    );
    progress.done();
    pre.push(...runs);
    for (const [i, t] of toolchains.entries()) {
      const s = pre[i]!.stats;
      io.err(
        `${t.label}: ${s.classified} entries classified, ${s.skipped} skipped, in ${seconds[i]!.toFixed(1)} s (${s.ptxasCalls} ptxas calls, ${s.crashes} crashes)`,
      );
    }
    comparison = compareAnswers(
      labels,
      pre.map((r) => r.results),
    );
  }
  const alsoKeep = comparison ? new Set(comparison.differences.map((d) => d.id)) : undefined;

  // one report per toolchain
  const codes: number[] = [];
  const reports: (RunReport | undefined)[] = [];
  for (const [i, t] of toolchains.entries()) {
    const t0 = performance.now();
    const sub = join(dir, t.label);
    const extra = backendName === 'ptxas' && i > 0 && !opts.noCases ? ['--no-cases'] : [];
    if (extra.length) io.err(`${t.label}: the case library runs on the reference model, which compiles nothing: it ran once, in ${labels[0]}'s report`);
    io.err(`\n== ${t.label}: ${toolchainName(t.ptxas)} (${t.path}) -> ${sub}`);
    let report: RunReport | undefined;
    const code = await runOne(memberArgv(argv, t.path, sub, extra), io, {
      matrix: { index: i, label: t.label, ...(pre[i] ? { precomputed: pre[i], entries: sets[i] } : {}), ...(alsoKeep ? { alsoKeep } : {}) },
      onReport: (r) => (report = r),
    });
    codes.push(code);
    reports.push(report);
    if (backendName !== 'ptxas') seconds.push((performance.now() - t0) / 1000);
    else seconds[i]! += (performance.now() - t0) / 1000;
    if (code === 2 || code === 3 || code === 130 || code === 143) break;
  }
  if (!comparison) {
    const kept = reports.map((r) => r?.results ?? []);
    comparison = compareAnswers(labels.slice(0, kept.length), kept, gpuAnswerOf);
  }
  const rows = toolchains.map((t, i) => ({
    label: t.label,
    name: toolchainName(t.ptxas),
    path: t.path,
    release: t.ptxas.release,
    versionLine: t.ptxas.versionLine,
    maxPtx: t.ptxas.maxPtx,
    seconds: seconds[i] ?? 0,
    exit: codes[i] ?? -1,
    ...(reports[i] ? { report: join(t.label, 'report.json') } : {}),
    ...(pre[i] ? { checked: pre[i]!.stats.classified, skipped: pre[i]!.stats.skipped } : {}),
  }));
  writeMatrix(
    dir,
    { command: ['npm', 'run', 'conformance', '--', ...argv], arch: target.name, backend: backendName, filter: opts.filter ?? null, started, rows, comparison },
    io,
  );
  return worst(codes);
}
