/**
 * `npm run conformance`: enumerate the catalog for --arch, run the selected backend, print counts
 * per family and verdict, write the JSON report. Exit 0 when every result passes or is
 * observed/skipped/known, 1 on mismatches, compile-mismatches or errors, 2 on usage errors.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Target, CATALOG_PTX_ISA, findTarget, modulePtxFor } from '../arch/targets.js';
import { runPtxasBackend } from '../backends/ptxas/backend.js';
import { GPU_UNAVAILABLE, type Selected, selectBackend } from '../backends/select.js';
import { childCommand, runGpuBackend } from '../backends/gpu/backend.js';
import { runCaseOnReference } from '../backends/reference/cases.js';
import { collectCases, findCase } from '../cases/sources.js';
import { type Case, formatProblem } from '../cases/types.js';
import { type CatalogEntry, enumerateCatalog } from '../catalog/enumerate.js';
import { type ReportInput, buildReport, writeJsonReport } from '../report/json.js';
import { type EntryResult, VERDICTS, VERDICT_MEANING, countResults } from '../report/types.js';
import { compileFilter } from '../util/filter.js';
import { type Options, USAGE, parseOptions } from './args.js';
import { UsageError } from './errors.js';
import { Progress } from './progress.js';
import { printSummary } from './summary.js';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
}

const defaultIo: Io = {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
  isTTY: Boolean(process.stderr.isTTY),
};

function timestamp(d: Date): string {
  return d.toISOString().replace(/[:]/g, '-').replace(/\..*$/, 'Z');
}

/** Selects catalog entries for the options (throws a UsageError when nothing matches). */
export function selectEntries(opts: Options, target: Target, ptx: string): CatalogEntry[] {
  const all = enumerateCatalog({ target, ptx, neighbours: opts.kinds.includes('neighbour'), isaNeighbours: opts.kinds.includes('isa-neighbour') });
  const keep = compileFilter(opts.filter);
  const sel = all.filter((e) => opts.kinds.includes(e.kind) && keep(e.id));
  if (!sel.length) {
    const fams = [...new Set(all.map((e) => e.family))].join(', ');
    throw new UsageError(
      `--filter '${opts.filter ?? ''}'${opts.kinds.length < 3 ? ` with --kind ${opts.kinds.join(',')}` : ''} selects no entry of the ${target.name} catalog (${all.length} entries). ` +
        `Ids look like 'atom.global.add.f32' or 'red.shared::cta.min.u32'; families: ${fams}. Run with --list to see them.`,
    );
  }
  return sel;
}

/** What differs between backends in a run's report. */
type RunFields = Pick<ReportInput, 'toolchain' | 'modulePtx' | 'backend' | 'stats' | 'results' | 'catalogEntries'>;

/** Builds the report of a finished run, prints the summary, writes report.json; returns its path. */
async function finishRun(opts: Options, target: Target, started: Date, argv: readonly string[], io: Io, f: RunFields): Promise<string> {
  const finished = new Date();
  const dir = resolve(opts.report ?? join('reports', 'out', timestamp(started)));
  const report = buildReport({
    partial: false,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    elapsedMs: finished.getTime() - started.getTime(),
    command: ['npm', 'run', 'conformance', '--', ...argv],
    arch: target.name,
    filter: opts.filter ?? null,
    seed: opts.seed,
    ...f,
  });
  printSummary(io, f.results);
  return writeJsonReport(dir, report);
}

/** The reference backend: cases (directed library, vector files, generators, or one by id) through the model. */
async function runCases(opts: Options, target: Target, started: Date, argv: readonly string[], io: Io, why?: string): Promise<number> {
  const reason = why ?? (opts.backend === 'reference' ? 'requested with --backend reference' : `auto: --vectors/--case run cases, and the reference model is the backend that runs them here (${GPU_UNAVAILABLE})`);
  io.err(`backend: reference (${reason})`);
  let cases: Case[];
  let counts = '';
  if (opts.case !== undefined) {
    const r = await findCase(opts.case, opts.vectors);
    if (r.problems.length || !r.case) {
      for (const p of r.problems) io.err(formatProblem(p));
      throw new UsageError(`--case ${opts.case}: ${r.why ?? 'the file has problems'}`);
    }
    cases = [r.case];
  } else {
    const keep = compileFilter(opts.filter);
    const sel = await collectCases({ vectors: opts.vectors, seed: opts.seed, directed: opts.vectors.length === 0, generated: opts.vectors.length === 0, keep });
    if (sel.problems.length) {
      for (const p of sel.problems) io.err(formatProblem(p));
      io.err(`${sel.problems.length} problem(s) in the vector files; nothing was run. Fix them and run again.`);
      return 2;
    }
    cases = sel.cases;
    counts = `directed ${sel.counts.directed}, from --vectors ${sel.counts.vectors}, generated (seed ${opts.seed}) level 1 ${sel.counts.generated[1]}, level 2 ${sel.counts.generated[2]}, random ${sel.counts.generated[3]}`;
    if (!cases.length) throw new UsageError(`no case selected${opts.filter ? ` by --filter '${opts.filter}'` : ''}; --list shows the variants`);
  }
  io.err(`cases: ${cases.length}${counts ? ` (${counts})` : ''}`);
  const progress = new Progress(io, cases.length, 'evaluated');
  const results: EntryResult[] = [];
  for (const c of cases) {
    results.push(runCaseOnReference(c));
    progress.tick(1);
  }
  progress.done();
  const file = await finishRun(opts, target, started, argv, io, {
    toolchain: {},
    modulePtx: modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA,
    backend: { name: 'reference', reason, passedOver: [GPU_UNAVAILABLE] },
    stats: { cases: cases.length },
    results,
    catalogEntries: 0,
  });
  for (const r of results.filter((x) => x.verdict !== 'pass').slice(0, 50)) io.out(`${r.verdict}: ${r.id}: ${r.reason}`);
  io.out(`report: ${file}`);
  const t = countResults(results).total;
  return (t.mismatch ?? 0) + (t.error ?? 0) > 0 ? 1 : 0;
}

/** The gpu backend: compile, run in child processes, judge every case; write the report. */
async function runGpu(opts: Options, target: Target, started: Date, argv: readonly string[], io: Io, backend: Selected): Promise<number> {
  const ptx = modulePtxFor(target, backend.ptxas!.maxPtx)!;
  const keep = compileFilter(opts.filter);
  const { results, stats } = await runGpuBackend({
    target,
    ptx,
    ptxas: backend.ptxas!,
    device: backend.device!,
    keep,
    seed: opts.seed,
    generated: opts.generated,
    executor: childCommand('executor'),
    worker: childCommand('worker'),
    onProgress: (m) => io.err(m),
  });
  if (!results.length) throw new UsageError(`--filter '${opts.filter ?? ''}' selects no variant the gpu backend runs (atom, red, cp.reduce.async.bulk)`);
  const reportFile = finishRun(opts, target, started, argv, io, {
    toolchain: {
      ptxas: { path: backend.ptxas!.path, foundVia: backend.ptxas!.foundVia, release: backend.ptxas!.release, versionLine: backend.ptxas!.versionLine, maxPtx: backend.ptxas!.maxPtx, targets: backend.ptxas!.targets },
      gpu: { device: backend.device, driverVersion: backend.driverVersion },
    },
    modulePtx: ptx,
    backend: { name: 'gpu', reason: backend.reason, passedOver: backend.passedOver },
    stats,
    results,
    catalogEntries: results.length,
  });
  for (const r of results.filter((x) => x.verdict === 'mismatch' || x.verdict === 'error').slice(0, 30)) io.out(`${r.verdict}: ${r.id}: ${r.reason}`);
  io.out(`all ${stats.cases} cases judged (the report keeps ${stats.recordedCases}: every mismatch and error, the probes of unqualified variants, a seeded sample): ${Object.entries(stats).filter(([k]) => k.startsWith('total.')).map(([k, v]) => `${k.slice(6)} ${v}`).join(', ')}`);
  io.out(`report: ${await reportFile}`);
  const bad = Object.entries(stats).filter(([k]) => /^total\..*\.(mismatch|error)$/.test(k)).reduce((n, [, v]) => n + v, 0);
  return bad > 0 ? 1 : 0;
}

export async function main(argv: readonly string[], io: Io = defaultIo): Promise<number> {
  let opts: Options;
  try {
    opts = parseOptions(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (opts.help) {
    io.out(USAGE);
    io.out('\nverdicts:');
    for (const v of VERDICTS) io.out(`  ${v.padEnd(17)} ${VERDICT_MEANING[v]}`);
    return 0;
  }
  const target = findTarget(opts.arch)!;
  const started = new Date();
  try {
    if (opts.list) {
      const entries = selectEntries(opts, target, modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA);
      for (const e of entries) io.out(`${e.id}\t${e.kind}\t${e.expect}${e.expect === 'accept' ? '' : `\t${e.reason}`}`);
      io.err(`${entries.length} entries for ${target.name}`);
      return 0;
    }

    const wantsCases = opts.vectors.length > 0 || opts.case !== undefined;
    if (wantsCases && opts.backend === 'ptxas') throw new UsageError('--vectors and --case run cases, which the ptxas backend (compile acceptance only) cannot; use --backend reference');
    if (opts.backend === 'reference' || wantsCases) return await runCases(opts, target, started, argv, io);
    const backend = await selectBackend(opts.backend, target);
    if (backend.name === 'reference') return await runCases(opts, target, started, argv, io, backend.reason);
    io.err(`backend: ${backend.name} (${backend.reason})`);
    if (backend.name === 'gpu') return await runGpu(opts, target, started, argv, io, backend);
    const ptx =
      (backend.ptxas ? modulePtxFor(target, backend.ptxas.maxPtx) : undefined) ??
      modulePtxFor(target, CATALOG_PTX_ISA) ??
      CATALOG_PTX_ISA;
    const entries = selectEntries(opts, target, ptx);
    io.err(`catalog: ${entries.length} entries for ${target.name}${opts.filter ? ` matching '${opts.filter}'` : ''}, judged under PTX ISA ${ptx}`);

    let results: EntryResult[] = [];
    let stats: Record<string, number> = {};
    if (backend.name === 'ptxas') {
      const progress = new Progress(io, entries.length, 'classified');
      const run = await runPtxasBackend(entries, target, backend.ptxas!, (n) => progress.tick(n));
      progress.done();
      results = run.results;
      stats = { ...run.stats, variantsPerSecond: run.stats.classified / Math.max(run.stats.classifyMs / 1000, 1e-9) };
      io.err(
        `ptxas: ${run.stats.classified} entries classified in ${(run.stats.classifyMs / 1000).toFixed(1)} s ` +
          `(${Math.round(stats.variantsPerSecond!)} /s; ${run.stats.ptxasCalls} ptxas calls: ${run.stats.scanCalls} scan, ${run.stats.confirmCalls} confirm; ${run.stats.crashes} crashes, ${run.stats.splits} splits), ${run.stats.skipped} skipped`,
      );
    }

    const file = await finishRun(opts, target, started, argv, io, {
      toolchain: backend.ptxas
        ? { ptxas: { path: backend.ptxas.path, foundVia: backend.ptxas.foundVia, release: backend.ptxas.release, versionLine: backend.ptxas.versionLine, maxPtx: backend.ptxas.maxPtx, targets: backend.ptxas.targets } }
        : {},
      modulePtx: ptx,
      backend: { name: backend.name, reason: backend.reason, passedOver: backend.passedOver },
      stats,
      results,
      catalogEntries: entries.length,
    });
    io.out(`report: ${file}`);
    const t = countResults(results).total;
    return (t.mismatch ?? 0) + (t['compile-mismatch'] ?? 0) + (t.error ?? 0) > 0 ? 1 : 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e: unknown) => {
      process.stderr.write(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 3;
    },
  );
}
