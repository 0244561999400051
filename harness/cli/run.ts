/**
 * The whole of `npm run conformance` past `--help` and `--list` (main.ts answers those without
 * loading this module): enumerate the catalog for --arch, run the selected backend, judge every
 * result (comparator, expectations, findings), stream results to results.jsonl, write report.json,
 * report.html and junit.xml, print the closing summary.
 *
 * Exit codes: 0 when every result passes or is known, observed or skipped; 1 on mismatches,
 * compile-mismatches, errors or an unexpected pass; 2 on usage or input errors (nothing is run);
 * 130/143 when interrupted (a partial report is written first); 3 on an internal error (likewise).
 */
import { type Target, CATALOG_PTX_ISA, findTarget, modulePtxFor } from '../arch/targets.js';
import { runPtxasBackend } from '../backends/ptxas/backend.js';
import { GPU_UNAVAILABLE, type Selected, selectBackend } from '../backends/select.js';
import { childCommand, holdBytes, prestartBytes, runGpuBackend } from '../backends/gpu/backend.js';
import { runVectorsOnReference } from '../backends/reference/vectors.js';
import { GENERATED_PER_LEVEL, collectCases, findCase } from '../case-readers/sources.js';
import { type CaseBatch, unpackAll } from '../case-readers/packed.js';
import { streamVectors, validateAndHold, validateVectors, vectorFilesByEdition, vectorFilesSize } from '../case-readers/vectors.js';
import { type Case, problemLines } from '../case-readers/types.js';
import type { CatalogEntry } from '../catalog/enumerate.js';
import { filterGuess, selectEntries as selectCatalogEntries, selectEntriesAsync as selectCatalogEntriesAsync } from '../catalog/select.js';
import { expectationsPath } from '../compare/expectations.js';
import { caseLines } from '../report/case-text.js';
import { KEEP_WHOLE, RunRecorder } from '../report/recorder.js';
import { prepareReportDir, pruneRuns, removeEmptyReportDirs } from '../report/dir.js';
import { ptxasFields, toolchainOf, withPtxas } from './gpu-command.js';
import { choosePtxas } from '../backends/ptxas/toolchain.js';
import type { RunHooks } from './matrix.js';
import type { EntryResult } from '../report/types.js';
import { VERDICTS, VERDICT_MEANING } from '../report/types.js';
import { compileFilter } from '../util/filter.js';
import { NEWEST_EDITION, setSpecEdition } from '../catalog/editions.js';
import { shardSlice, shardStream, shardText } from '../util/shard.js';
import { type Options, USAGE, parseOptions } from './args.js';
import { UsageError } from '../util/errors.js';
import { EXIT_CODES, asksHelp, commandsHelp, findCommand, unknownCommand } from './commands.js';
import { readExpectations } from './expectations-file.js';
import { Progress } from './progress.js';
import { exitCode, printSummary, printWritten } from './summary.js';
import { CaseTally, judgeFor, judgeShared, mergeShared, selectLibrary, startCaseChild } from './library-cases.js';
import { stdio } from './stdio.js';

import type { Io } from './io.js';

const defaultIo: Io = stdio;

/** '. Did you mean ...?' where a misspelt --filter qualifier has a likely spelling, else ';' (before "--list shows the variants"). */
function orGuess(filter: string | undefined): string {
  const g = filterGuess(filter);
  return g ? `.${g}` : ';';
}

/** Selects catalog entries for the options (throws a UsageError when nothing matches). */
export function selectEntries(opts: Options, target: Target, ptx: string): CatalogEntry[] {
  return selectCatalogEntries(opts, target, ptx);
}

/** Cases a run checks: a list, or batches streamed from vector files (validated first). */
interface CaseSelection {
  readonly total: number;
  readonly counts: string;
  /** Batches of cases: objects, and packed blocks from vector files. */
  batches(): AsyncIterable<CaseBatch> | Iterable<CaseBatch>;
}

/**
 * The cases a run checks: one by --case; the --vectors files, validated whole (every problem of
 * every file, exit 2 before anything runs) and then streamed in batches; or the library and
 * generators.
 */
async function selectCases(opts: Options, io: Io): Promise<CaseSelection | number> {
  if (opts.case !== undefined) {
    if (opts.shard) throw new UsageError('--case replays one case; it is not split into shards: leave out --shard');
    const r = await findCase(opts.case, opts.vectors);
    if (r.problems.length || !r.case) {
      for (const l of problemLines(r.problems)) io.err(l);
      throw new UsageError(`--case ${opts.case}: ${r.why ?? 'the file has problems'}`);
    }
    const one = r.case;
    return { total: 1, counts: 'one, by --case', batches: () => [[one]] };
  }
  const keep = compileFilter(opts.filter);
  if (opts.vectors.length) {
    const v = await validateVectors(opts.vectors, process.cwd(), loadingProgress(io));
    if (v.problems.length) {
      for (const l of problemLines(v.problems)) io.err(l);
      io.err(`${v.problems.length} problem(s) in the vector files; nothing was run. Fix them and run again.`);
      return 2;
    }
    return {
      total: opts.shard ? Math.ceil(v.cases / opts.shard.count) : v.cases,
      counts: `from --vectors ${v.cases} in ${v.files.length} file(s)${opts.filter ? `, before --filter` : ''}${opts.shard ? `; ${shardText(opts.shard)}: every ${opts.shard.count}th from the ${opts.shard.index}th` : ''}`,
      batches: () => streamVectors(opts.vectors, process.cwd(), { keep: shardStream(keep, opts.shard), packed: true }),
    };
  }
  const sel = await selectLibrary({ seed: opts.seed, ...(opts.filter !== undefined ? { filter: opts.filter } : {}), ...(opts.shard ? { shard: opts.shard } : {}) });
  if (sel.problemCount) return libraryProblems(io, sel);
  return { total: sel.total, counts: sel.counts, batches: () => [sel.cases] };
}

/** The problems of the directed library's files: every one printed; exit 2, nothing run. */
function libraryProblems(io: Io, sel: { problems: readonly string[]; problemCount: number }): number {
  for (const l of sel.problems) io.err(l);
  io.err(`${sel.problemCount} problem(s) in the vector files; nothing was run. Fix them and run again.`);
  return 2;
}

/** The progress line of a read of vector files: every 2 s, and once at the end. */
function loadingProgress(io: Io): (files: number, cases: number, bytes: number, total: number) => void {
  let last = 0;
  return (files, cases, bytes, total) => {
    const now = performance.now();
    if (now - last < 2000 && bytes < total) return;
    last = now;
    io.err(`loading vector files: ${filesText(files, bytes, total)}, ${cases} cases, ${(bytes / 2 ** 20).toFixed(1)}/${(total / 2 ** 20).toFixed(1)} MB`);
  };
}

/** The files part of a progress line: the file being read counts (not "0 file(s)" while one is read). */
export function filesText(filesDone: number, bytesDone: number, bytesTotal: number): string {
  return bytesDone < bytesTotal ? `file ${filesDone + 1} (${filesDone} done)` : `${filesDone} file(s) done`;
}

/**
 * Cases through the reference model into the recorder (or `into`, a sink of their own), yielding to
 * the event loop every few milliseconds so a signal, and the ptxas helpers' answers when the two run
 * side by side, get in; every result that is not a plain pass is kept, and the first `keepPasses`
 * passes; the rest are counted (`totals`, per family and verdict, and `dropped`).
 */
async function runCasesInto(rec: RunRecorder, sel: CaseSelection, io: Io, keepPasses = KEEP_WHOLE, into: (rs: EntryResult[]) => void = (rs) => rec.add(rs)): Promise<{ cases: number; totals: Record<string, number>; dropped: number }> {
  const progress = new Progress(io, sel.total, 'cases evaluated');
  const tally = new CaseTally(keepPasses);
  for await (const b of sel.batches()) {
    const cases = unpackAll(b);
    for (let i = 0; i < cases.length; ) {
      const { batch, verdicts, next } = judgeFor(cases, i, 1, 20, 1000);
      i = next;
      into(tally.keep(batch));
      progress.tick(batch.length, verdicts);
      await new Promise((r) => setImmediate(r));
    }
  }
  progress.done();
  return { cases: tally.cases, totals: tally.totals, dropped: tally.dropped };
}

/**
 * --vectors on the gpu backend: every file validated in one read that also holds the good cases
 * (files of at most HOLD_BYTES together; bigger ones are streamed again after it), then handed on
 * in batches. Any problem: every one printed, `onBad(2)`, and nothing is handed on or recorded, as
 * if the run had validated first. A clean read prints the count and starts the recorder
 * (`recorder`) before the first case runs.
 */
async function* gpuVectors(opts: Options, io: Io, keep: (id: string) => boolean, bytes: number, recorder: () => RunRecorder, onBad: (code: number) => void): AsyncGenerator<CaseBatch> {
  const v = await validateAndHold(opts.vectors, process.cwd(), { keep: shardStream(keep, opts.shard), holdBytes: holdBytes(), onProgress: loadingProgress(io) });
  if (v.problems.length) {
    for (const l of problemLines(v.problems)) io.err(l);
    io.err(`${v.problems.length} problem(s) in the vector files; nothing was run. Fix them and run again.`);
    onBad(2);
    return;
  }
  const total = opts.shard ? Math.ceil(v.cases / opts.shard.count) : v.cases;
  if (!total && !opts.shard) throw new UsageError(`no case selected${opts.filter ? ` by --filter '${opts.filter}'` : ''}${orGuess(opts.filter)} --list shows the variants`);
  io.err(`cases: ${total} (from --vectors ${v.cases} in ${v.files.length} file(s)${opts.filter ? `, before --filter` : ''}${opts.shard ? `; ${shardText(opts.shard)}: every ${opts.shard.count}th from the ${opts.shard.index}th` : ''}), on the GPU${v.held ? '' : ` (${(bytes / 2 ** 20).toFixed(0)} MB of files: read again to run them)`}`);
  recorder();
  if (v.held) {
    yield* v.held;
    return;
  }
  yield* streamVectors(opts.vectors, process.cwd(), { keep: shardStream(keep, opts.shard), packed: true });
}

/**
 * --vectors on the reference backend: one pass that validates and judges (results held until the
 * read ends clean; any problem: exit 2 with every problem, nothing recorded).
 */
async function runVectorFiles(opts: Options, backend: Selected, target: Target, io: Io, startRecorder: (keepPasses?: number) => RunRecorder): Promise<RunRecorder | number> {
  let last = performance.now();
  const t0 = last;
  const r = await runVectorsOnReference(opts.vectors, process.cwd(), {
    keep: shardStream(compileFilter(opts.filter), opts.shard),
    // --keep N: the first N cases kept whole (and every result that is not a plain pass); all: every one
    keepWhole: opts.keepGiven ? opts.keepPasses : KEEP_WHOLE,
    onProgress: (files, read, bytes, total, verdicts) => {
      const now = performance.now();
      if (now - last < 2000) return;
      last = now;
      const counts = Object.entries(verdicts).map(([v, k]) => `${v} ${k}`).join(' ');
      io.err(`reading and judging vector files: ${filesText(files, bytes, total)}, ${read} cases, ${(bytes / 2 ** 20).toFixed(1)}/${(total / 2 ** 20).toFixed(1)} MB${counts ? ` | ${counts}` : ''}`);
    },
  });
  if (r.problems.length) {
    for (const l of problemLines(r.problems)) io.err(l);
    io.err(`${r.problems.length} problem(s) in the vector files; nothing was run. Fix them and run again.`);
    return 2;
  }
  if (!r.cases && !opts.shard) throw new UsageError(`no case selected${opts.filter ? ` by --filter '${opts.filter}'` : ''} of the ${r.read} in the vector files${orGuess(opts.filter)} --list shows the variants`);
  const s = (performance.now() - t0) / 1000;
  io.err(`cases: ${r.cases} (from --vectors ${r.read} in ${r.files.length} file(s)${opts.filter ? ', before --filter' : ''}) read and judged on the reference model in ${s.toFixed(1)} s (${Math.round(r.cases / Math.max(s, 1e-9))}/s; ${r.fastPasses} passed by the fast judge)`);
  const rec = startRecorder();
  rec.set({ toolchain: {}, modulePtx: modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA, backend: { name: 'reference', reason: backend.reason, passedOver: backend.passedOver }, catalogEntries: 0 });
  for (let i = 0; i < r.kept.length; i += 10_000) rec.add(r.kept.slice(i, i + 10_000));
  // the passes judged and not kept whole, per family: the summary table counts them (the kept sample said apart)
  const keptPasses: Record<string, number> = {};
  for (const x of r.kept) if (x.verdict === 'pass') keptPasses[x.family] = (keptPasses[x.family] ?? 0) + 1;
  const dropped: Record<string, number> = {};
  for (const [k, n] of Object.entries(r.totals)) {
    const m = /^total\.(.+)\.pass$/.exec(k);
    if (m && n > (keptPasses[m[1]!] ?? 0)) dropped[`dropped.${m[1]!}.cases`] = n - (keptPasses[m[1]!] ?? 0);
  }
  rec.set({ stats: { cases: r.cases, fastJudged: r.fastPasses, ...(r.cases > r.kept.length ? r.totals : {}), ...dropped } });
  return rec;
}

/**
 * Why --generated, when given, does not apply to this run (it sets the gpu backend's random cases
 * per variant), and what runs instead; undefined where it applies.
 */
function generatedIgnored(opts: Options, backend: string, wantsCases: boolean): string | undefined {
  if (!opts.generatedGiven) return undefined;
  const head = `--generated ${opts.generated} is ignored: it sets the random generated cases per variant of the gpu backend`;
  if (wantsCases) return `${head}, and --vectors/--case run only the cases given`;
  if (backend === 'gpu') return undefined;
  if (backend === 'multicast') return `${head}; the multicast backend runs its library and every accepted variant over 2, 4 and 8 replicas`;
  const lib = `the reference model runs the case library as always: the directed cases and, per representative variant, ${GENERATED_PER_LEVEL[1]} level-1, ${GENERATED_PER_LEVEL[2]} level-2 and ${GENERATED_PER_LEVEL[3]} random generated cases (seed ${opts.seed}; --seed gives other values)`;
  if (backend === 'ptxas') return `${head}; this run uses the ptxas backend${opts.noCases ? ' with --no-cases: no case runs' : `, and ${lib}`}`;
  return `${head}; this run uses the ${backend} backend: ${lib}`;
}

/** Runs the backend the options choose into `rec` (the recorder is made once the run is sure to start). */
async function runBackend(opts: Options, target: Target, io: Io, startRecorder: (keepPasses?: number) => RunRecorder, hooks: RunHooks = {}): Promise<RunRecorder | number> {
  if (opts.backend === 'multicast') {
    const why = generatedIgnored(opts, 'multicast', opts.vectors.length > 0);
    if (why) io.err(why);
    return (await import('./multicast.js')).runMulticastCommand(opts, target, io, () => startRecorder());
  }
  const wantsCases = opts.vectors.length > 0 || opts.case !== undefined;
  if (wantsCases && opts.backend === 'ptxas') throw new UsageError('--vectors and --case run cases, which the ptxas backend (compile acceptance only) cannot; use --backend reference or --backend gpu');
  let backend: Selected = await selectBackend(opts.backend, target);
  if (wantsCases && backend.name === 'ptxas') {
    backend = { name: 'reference', reason: `auto: --vectors/--case run cases: the gpu backend would run them on hardware, but ${GPU_UNAVAILABLE.replace(/^gpu backend: /, '')}; the reference model runs them here`, passedOver: [GPU_UNAVAILABLE] };
  }
  io.err(`backend: ${backend.name} (${backend.reason})`);
  const ignored = generatedIgnored(opts, backend.name, wantsCases);
  if (ignored) io.err(ignored);
  if (opts.vectors.length) {
    // files whose editions: header names other PTX ISA editions: their expect: values follow another text
    const { files, leftOut } = await vectorFilesByEdition(opts.vectors);
    for (const l of leftOut) io.err(`--vectors: left out ${l.file}: its editions: header says ${l.editions}, this run is judged against PTX ISA ${opts.specEdition} (--spec-edition)`);
    if (!files.length) throw new UsageError(`--vectors: every file is for other PTX ISA editions (${leftOut.map((l) => `${l.file}: ${l.editions}`).join('; ')}); run with --spec-edition set to one of them`);
  }

  if (backend.name === 'reference' && opts.vectors.length && opts.case === undefined) return runVectorFiles(opts, backend, target, io, startRecorder);
  if (backend.name === 'reference') {
    const sel = await selectCases(opts, io);
    if (typeof sel === 'number') return sel;
    if (!sel.total && !opts.shard) throw new UsageError(`no case selected${opts.filter ? ` by --filter '${opts.filter}'` : ''}${orGuess(opts.filter)} --list shows the variants`);
    io.err(`cases: ${sel.total} (${sel.counts})`);
    const rec = startRecorder();
    rec.set({ toolchain: {}, modulePtx: modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA, backend: { name: 'reference', reason: backend.reason, passedOver: backend.passedOver }, stats: { cases: sel.total }, catalogEntries: 0 });
    const r = await runCasesInto(rec, sel, io);
    if (!r.cases && !opts.shard) throw new UsageError(`no case selected by --filter '${opts.filter ?? ''}'${orGuess(opts.filter)} --list shows the variants`);
    rec.set({ stats: { cases: r.cases, ...(r.dropped ? r.totals : {}) } });
    return rec;
  }

  if (backend.name === 'gpu') {
    const ptx = modulePtxFor(target, backend.ptxas!.maxPtx)!;
    const keep = compileFilter(opts.filter);
    let rec: RunRecorder | undefined;
    const recorder = () => {
      if (!rec) {
        rec = startRecorder();
        rec.set({ toolchain: toolchainOf(backend), modulePtx: ptx, backend: { name: 'gpu', reason: backend.reason, passedOver: backend.passedOver } });
      }
      return rec;
    };
    // the cases given (--vectors, --case), or for the default run the directed library's files
    let given: AsyncIterable<CaseBatch> | Iterable<CaseBatch>;
    let bad: number | undefined;
    let prestart = false;
    if (opts.vectors.length && opts.case === undefined) {
      // vector files: one read validates them and holds their cases (a second read streams files
      // too big to hold); the workers start while it goes, the recorder once it ended clean
      const size = await vectorFilesSize(opts.vectors);
      prestart = size.bytes >= prestartBytes();
      given = gpuVectors(opts, io, keep, size.bytes, recorder, (code) => (bad = code));
    } else if (wantsCases) {
      const sel = await selectCases(opts, io);
      if (typeof sel === 'number') return sel;
      if (!sel.total && !opts.shard) throw new UsageError(`no case selected${opts.filter ? ` by --filter '${opts.filter}'` : ''}${orGuess(opts.filter)} --list shows the variants`);
      io.err(`cases: ${sel.total} (${sel.counts}), on the GPU`);
      given = sel.batches();
      recorder();
    } else {
      const lib = await collectCases({ seed: opts.seed, directed: true, generated: false, keep });
      if (lib.problems.length) {
        for (const l of problemLines(lib.problems)) io.err(l);
        return 2;
      }
      given = [lib.cases];
      io.err(`cases: the directed library's ${lib.cases.length} file cases, and for every variant its probes, 16 level-1/2 and ${opts.generated} level-3 generated cases`);
      recorder();
    }
    const r = await runGpuBackend({
      target,
      ptx,
      ptxas: backend.ptxas!,
      device: backend.device!,
      keep,
      ...(opts.shard ? { shard: opts.shard } : {}),
      seed: opts.seed,
      library: !wantsCases,
      generated: opts.generated,
      cases: given,
      // --keep N: the first N given cases kept whole (and every result that is not a plain pass); all: every one
      keepWhole: opts.keepGiven ? opts.keepPasses : KEEP_WHOLE,
      cacheDir: opts.cacheDir,
      executor: childCommand('executor'),
      worker: childCommand('worker'),
      prestart,
      onProgress: (m) => io.err(m),
      onResults: (rs) => recorder().add(rs),
    });
    if (bad !== undefined) return bad;
    if (!r.results && !r.stats.cases && !opts.shard) throw new UsageError(`--filter '${opts.filter ?? ''}' selects no variant the gpu backend runs (atom, red, cp.reduce.async.bulk)${filterGuess(opts.filter)}`);
    io.err(
      `gpu: ${r.stats.cases} cases of ${r.stats.variants} variants judged in ${r.stats.runSeconds!.toFixed(1)} s (${(r.stats.casesPerSecond! / 1e6).toFixed(2)} M cases/s, ${r.stats.workers} workers; ` +
        `${r.stats.fastJudged} passed by the fast judge); modules: ${r.stats.modulesCompiled} compiled, ${r.stats.modulesCached} from the cubin cache in ${r.stats.compileSeconds!.toFixed(1)} s; ` +
        `worker time: making cases ${r.stats.workerMakeSeconds!.toFixed(1)} s, GPU ${r.stats.workerGpuSeconds!.toFixed(1)} s, judging ${r.stats.workerJudgeSeconds!.toFixed(1)} s`,
    );
    const out = recorder();
    out.cover(r.variantIds);
    out.set({ stats: r.stats, catalogEntries: r.variantIds.length });
    return out;
  }

  // ptxas (with the case library on the reference model, unless --no-cases), or nothing but the catalog
  const ptx = (backend.ptxas ? modulePtxFor(target, backend.ptxas.maxPtx) : undefined) ?? modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA;
  // the case library on the reference model: with the whole library (no --filter), in a child
  // process started now, which selects and judges it while this thread enumerates the catalog and
  // ptxas classifies it (ptxas in helper processes: on two cores every core stays busy); else on
  // this thread beside ptxas. Either way the cases' results are added after the entries'.
  const caseResults: EntryResult[] = [];
  let caseProgress: Progress | undefined;
  // PTXCONF_CASES_CHILD: 1 always a child, 0 never; unset: a child for the whole library
  const childWanted = process.env.PTXCONF_CASES_CHILD === undefined || process.env.PTXCONF_CASES_CHILD === '' ? opts.filter === undefined : process.env.PTXCONF_CASES_CHILD === '1';
  const child =
    !opts.noCases && backend.ptxas && childWanted
      ? startCaseChild({ seed: opts.seed, ...(opts.filter !== undefined ? { filter: opts.filter } : {}), ...(opts.shard ? { shard: opts.shard } : {}), keepPasses: opts.keepPasses, specEdition: opts.specEdition }, (kept, n, verdicts) => {
          for (const r of kept) caseResults.push(r);
          caseProgress?.tick(n, verdicts);
        })
      : undefined;
  try {
    return await runPtxasAndCases();
  } finally {
    child?.stop();
  }

  async function runPtxasAndCases(): Promise<RunRecorder | number> {
    // in a toolchain matrix, the entries its classification answered (enumerated once there)
    const selected = hooks.matrix?.entries ?? (await selectCatalogEntriesAsync(opts, target, ptx));
    const entries = hooks.matrix?.entries ? [...selected] : shardSlice(selected, opts.shard);
    let sel: CaseSelection | number | undefined;
    if (child) {
      const s = await child.selected;
      if (s.problemCount) return libraryProblems(io, s);
      sel = { total: s.total, counts: s.counts, batches: () => [] };
    } else sel = opts.noCases || !backend.ptxas ? undefined : await selectCases(opts, io);
    if (typeof sel === 'number') return sel;
    io.err(`catalog: ${entries.length} entries for ${target.name}${opts.filter ? ` matching '${opts.filter}'` : ''}${opts.shard ? ` (${shardText(opts.shard)}: ${entries.length} of ${selected.length})` : ''}, compiled as PTX ISA ${ptx} modules (.version ${ptx}: the newest this ptxas reads for ${target.name}; the verdicts are judged against the spec edition above)`);
    const rec = startRecorder(opts.keepPasses);
    rec.set({ toolchain: backend.ptxas ? { ptxas: ptxasFields(backend.ptxas) } : {}, modulePtx: ptx, backend: { name: backend.name, reason: backend.reason, passedOver: backend.passedOver }, catalogEntries: entries.length });
    let stats: Record<string, number> = {};
    let cases: Promise<{ cases: number; totals: Record<string, number>; dropped: number }> | undefined;
    // the child's results, and the cases it hands this thread once ptxas is done, judged here (in the
    // order judged until they are tallied with the child's: an interrupt's partial report keeps them)
    let childStarted = false;
    const sharedSoFar: EntryResult[] = [];
    const startCases = () => {
      if (!sel?.total || cases || childStarted) return;
      io.err(`cases on the reference model: ${sel.total} (${sel.counts}); --no-cases leaves them out`);
      // beside the ptxas progress: plain lines, not a second bar on the same terminal line
      const beside: Io = { ...io, isTTY: false };
      if (child) {
        caseProgress = new Progress(beside, sel.total, 'cases evaluated');
        caseProgress.tick(0);
        childStarted = true;
      } else cases = runCasesInto(rec, sel, beside, opts.keepPasses, (rs) => void caseResults.push(...rs));
    };
    /** Once ptxas is done: every other case of what the child has left judged here, then one tally of both in case order. */
    const shareWithChild = async () => {
      const part = await judgeShared(child!, (batch, verdicts) => {
        for (const r of batch) sharedSoFar.push(r);
        caseProgress!.tick(batch.length, verdicts);
      });
      const done = await child!.finished;
      caseProgress!.done();
      const m = mergeShared(done, part, opts.keepPasses, sel!.total);
      sharedSoFar.length = 0; // tallied: what is kept of them goes with the child's results
      for (const r of m.kept) caseResults.push(r);
      if (part.results.length) io.err(`cases: ${done.cases + done.rest.length} judged by the case child, ${part.results.length} by this thread once ptxas was done`);
      return m;
    };
    if (backend.ptxas) {
      const progress = new Progress(io, entries.length, 'entries classified');
      // decided results are held for a partial report (an interrupt keeps them); added in entry order at the end
      const decided: EntryResult[] = [];
      rec.pending = () => [...decided, ...caseResults, ...sharedSoFar];
      // in a toolchain matrix, classified before any report was written (matrix.ts)
      const pre = hooks.matrix?.precomputed;
      const classifying = pre ? undefined : runPtxasBackend(entries, target, backend.ptxas, (n) => progress.tick(n), (r) => decided.push(r), { cacheDir: opts.cacheDir });
      startCases();
      const run = pre ?? (await classifying!);
      const caseRun = childStarted ? await shareWithChild() : await cases;
      rec.pending = undefined;
      if (!pre) progress.done();
      const alsoKeep = hooks.matrix?.alsoKeep;
      // every entry that is not a plain pass, and the first --keep passes; the others are counted and
      // covered (replay any by --filter with its id)
      let passes = 0;
      const kept: EntryResult[] = [];
      const entryTotals: Record<string, number> = {};
      const droppedIds: string[] = [];
      for (const r of run.results) {
        entryTotals[`entries.${r.family}.${r.verdict}`] = (entryTotals[`entries.${r.family}.${r.verdict}`] ?? 0) + 1;
        if (r.verdict !== 'pass' || alsoKeep?.has(r.id) || passes++ < opts.keepPasses) kept.push(r);
        else {
          droppedIds.push(r.id);
          entryTotals[`dropped.${r.family}.entries`] = (entryTotals[`dropped.${r.family}.entries`] ?? 0) + 1;
        }
      }
      rec.add(kept);
      if (droppedIds.length) {
        rec.cover(droppedIds, 'entries');
        stats = { ...stats, ...entryTotals };
      }
      stats = { ...stats, ...run.stats, variantsPerSecond: run.stats.classified / Math.max(run.stats.classifyMs / 1000, 1e-9) };
      io.err(
        `ptxas: ${run.stats.classified} entries classified in ${(run.stats.classifyMs / 1000).toFixed(1)} s ` +
          `(${Math.round(stats.variantsPerSecond!)} /s; ${run.stats.cachedVerdicts !== undefined ? `${run.stats.cachedVerdicts} from the verdict cache; ` : ''}${run.stats.ptxasCalls} ptxas calls: ${run.stats.scanCalls} scan, ${run.stats.confirmCalls} confirm; ${run.stats.crashes} crashes, ${run.stats.splits} splits), ${run.stats.skipped} skipped`,
      );
      if (caseRun) {
        rec.add(caseResults);
        stats = { ...stats, cases: caseRun.cases, ...(caseRun.dropped ? caseRun.totals : {}) };
      }
    }
    if (sel?.total && !cases && !childStarted) {
      io.err(`cases on the reference model: ${sel.total} (${sel.counts}); --no-cases leaves them out`);
      const r = await runCasesInto(rec, sel, io, opts.keepPasses);
      stats = { ...stats, cases: r.cases, ...(r.dropped ? r.totals : {}) };
    }
    rec.set({ stats });
    return rec;
  }
}

/** Runs a command: a usage or input error is said in one line and exits 2 (never a stack trace); empty default report folders go. */
async function exit2OnUsageError(io: Io, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      return 2;
    }
    throw e;
  } finally {
    removeEmptyReportDirs();
  }
}

export async function main(argv: readonly string[], io: Io = defaultIo, hooks: RunHooks = {}): Promise<number> {
  const command = findCommand(argv[0]);
  if (command) {
    return exit2OnUsageError(io, async () => {
      if (!asksHelp(command, argv.slice(1))) return command.run(argv.slice(1), io, { main: (a, sub) => main(a, sub) });
      io.out(await command.usage());
      return 0;
    });
  }
  // a first word that is neither a command nor an option: a misspelt command, said in two lines
  const word = argv[0];
  if (word !== undefined && !word.startsWith('-')) {
    io.err(`error: ${unknownCommand(word)}`);
    io.err('npm run conformance -- --help lists the commands and options');
    return 2;
  }
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
    io.out(`\n${commandsHelp()}`);
    io.out(`\n${EXIT_CODES}`);
    io.out('\nverdicts:');
    for (const v of VERDICTS) io.out(`  ${v.padEnd(17)} ${VERDICT_MEANING[v]}`);
    return 0;
  }
  // --ptxas twice or more: the same run under each ptxas (matrix.ts), each a run of its own
  if (opts.ptxas.length > 1 && !hooks.matrix && !opts.list) {
    return exit2OnUsageError(io, async () => (await import('./matrix.js')).matrixCommand(argv, opts, io, main));
  }
  choosePtxas(opts.ptxas[0]);
  try {
    return await runOne(argv, opts, io, hooks);
  } finally {
    choosePtxas(undefined);
  }
}

/** One run (under the ptxas --ptxas chose, or the one found): the report and its exit code. */
async function runOne(argv: readonly string[], opts: Options, io: Io, hooks: RunHooks): Promise<number> {
  const target = findTarget(opts.arch)!;
  setSpecEdition(opts.specEdition);
  const started = new Date();
  let rec: RunRecorder | undefined;
  // a signal: the results so far as a partial report under the run's keep rule, or, before the
  // first result, no report at all (the stream's header removed, a default folder too, and said)
  const onSignal = (sig: NodeJS.Signals) => {
    const n = rec?.recorded ?? 0;
    if (rec?.done) {
      // the run was writing its report: what it had not finished (report.json, the stream's compression) is done now
      rec.completeReport();
      io.err(`\n${sig}: stopped after the report was written.`);
    }
    else if (rec && n) {
      const w = rec.finishPartial(`interrupted by ${sig} after ${n} results`)!;
      const counted = n - w.report.results.length;
      io.err(`\n${sig}: stopped. A partial report of the ${n} results so far (${w.report.results.length} kept whole${counted ? `, ${counted} passes counted` : ''}):`);
      printWritten(io, w);
    } else {
      rec?.discard();
      const gone = removeEmptyReportDirs();
      io.err(`\n${sig}: stopped before any result was recorded: no report written${gone.length ? `; the empty folder ${gone.join(', ')} removed` : opts.report !== undefined ? ` in ${opts.report}` : ''}.`);
    }
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  try {
    if (opts.list) {
      const entries = selectEntries(opts, target, modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA);
      for (const e of entries) io.out(`${e.id}\t${e.kind}\t${e.expect}${e.expect === 'accept' ? '' : `\t${e.reason}`}`);
      io.err(`${entries.length} entries for ${target.name}`);
      return 0;
    }
    const exFile = opts.expectations ?? expectationsPath(target.name);
    const expectations = await readExpectations(exFile, opts.expectations !== undefined, io);
    if (!expectations) return 2;
    for (const [from, to] of opts.filterRespelled ?? []) io.err(`--filter: '${from}' read as '${to}' (ids spell qualifiers in the grammar's order; ptxas accepts any order)`);
    io.err(`spec: judged against the PTX ISA ${opts.specEdition} text${opts.specEdition === NEWEST_EDITION ? ' (the newest the catalog has; --spec-edition picks another)' : ' (--spec-edition)'}`);
    if (expectations.length) io.err(`expectations: ${expectations.length} known deviation(s) from ${exFile}`);
    const dir = prepareReportDir(opts.report, '', started, (l) => io.err(l), { overwrite: opts.overwrite });
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // keepPasses: the ptxas + reference run keeps the first --keep passes whole, which merge applies again to the whole run
    const out = await runBackend(opts, target, io, (keepPasses?: number) => {
      const shard = opts.shard ? { shard: { ...opts.shard, keepPasses: keepPasses !== undefined && Number.isFinite(keepPasses) ? keepPasses : null } } : {};
      rec = new RunRecorder(dir, { startedAt: started.toISOString(), command: ['npm', 'run', 'conformance', '--', ...argv], arch: target.name, filter: opts.filter ?? null, seed: opts.seed, specEdition: opts.specEdition, ...shard }, expectations, expectations.length ? exFile : null);
      // the keep rule a partial report applies: the run's (entries and library cases: --keep; vector files and gpu cases: --keep, else KEEP_WHOLE)
      rec.keepPasses = keepPasses ?? (opts.keepGiven ? opts.keepPasses : KEEP_WHOLE);
      io.err(`streaming results to ${rec.jsonl}`);
      return rec;
    }, hooks);
    if (typeof out === 'number') return out;
    const w = await out.finishAsync();
    hooks.onReport?.(w.report);
    // --case: the case itself (inputs, bits, allowed results, verdict and why), not only its count
    if (opts.case !== undefined) for (const r of w.report.results) for (const l of caseLines(r, w.report.rules, w.report)) io.out(l);
    printSummary(io, w.report);
    printWritten(io, w);
    if (opts.report === undefined) {
      const gone = pruneRuns(opts.keepRuns);
      if (gone.runs.length) io.err(`removed the ${gone.runs.length} oldest report folder(s) in reports/out/ (keeping ${opts.keepRuns}; --keep-runs 0 keeps all)`);
      if (gone.empty.length) io.err(`removed ${gone.empty.length} empty report folder(s) in reports/out/ that earlier runs left`);
    }
    return exitCode(w.report);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      const w = rec?.finishPartial(`stopped by an input error: ${e.message}`);
      if (w) printWritten(io, w);
      return 2;
    }
    const w = rec?.finishPartial(`internal error: ${e instanceof Error ? e.message : String(e)}`);
    if (w) {
      io.err(`internal error; a partial report with the ${rec!.results.length} results so far:`);
      printWritten(io, w);
    }
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // a default folder the run wrote nothing into (exit 2, --plan-only) goes
    removeEmptyReportDirs();
  }
}
