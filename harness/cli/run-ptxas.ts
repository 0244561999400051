/**
 * The ptxas executor: the catalog's entries for the target classified by ptxas (accept, reject,
 * crash, against each entry's expectation), and beside it the case library on the reference model
 * (unless --no-cases): for the whole library in a child process started at once, which selects and
 * judges it while this thread enumerates the catalog and ptxas classifies it (ptxas in helper
 * processes: on two cores every core stays busy); else on this thread beside ptxas. Either way the
 * cases' results are added after the entries'. Without ptxas: nothing but the catalog.
 */
import { CATALOG_PTX_ISA, modulePtxFor } from '../arch/targets.js';
import { type KnownCrash, prepareVerdicts, runPtxasBackend } from '../backends/ptxas/backend.js';
import type { Expectation } from '../compare/expectations.js';
import { compileFilter } from '../util/filter.js';
import { selectEntriesAsync } from '../catalog/select.js';
import { knowOpAndType } from '../catalog/parse.js';
import type { RunRecorder } from '../report/recorder.js';
import type { EntryResult } from '../report/types.js';
import { Tally } from '../report/tally.js';
import { shardSlice, shardText } from '../util/shard.js';
import { ptxasFields } from './gpu-command.js';
import type { Io } from './io.js';
import { type CaseChild, judgeShared, mergeShared, startCaseChild } from './library-cases.js';
import { Progress } from './progress.js';
import type { Executor, RunContext } from './run-context.js';
import { type CaseSelection, libraryProblems, runCasesInto, selectCases } from './run-cases.js';

type CaseRun = { cases: number; totals: Record<string, number>; dropped: number };

export const runPtxas: Executor = async (ctx) => {
  const { opts, backend } = ctx;
  // PTXCONF_CASES_CHILD: 1 always a child, 0 never; unset: a child for the whole library
  const env = process.env.PTXCONF_CASES_CHILD;
  const childWanted = env === undefined || env === '' ? opts.filter === undefined : env === '1';
  const cases = new CaseResults();
  const child =
    !opts.noCases && backend.ptxas && childWanted
      ? startCaseChild(
          {
            seed: opts.seed,
            ...(opts.filter !== undefined ? { filter: opts.filter } : {}),
            ...(opts.shard ? { shard: opts.shard } : {}),
            cacheDir: opts.cacheDir,
            keepPasses: opts.keepPasses,
            specEdition: opts.specEdition,
          },
          (kept, n, verdicts) => {
            for (const r of kept) cases.results.push(r);
            cases.progress?.tick(n, verdicts);
          },
        )
      : undefined;
  try {
    return await runPtxasAndCases(ctx, child, cases);
  } finally {
    child?.stop();
  }
};

/** The library cases' results as they come (from the child or this thread), and their progress line. */
class CaseResults {
  readonly results: EntryResult[] = [];
  /** Those this thread judged of the child's share, until they are tallied with the child's (a partial report keeps them). */
  readonly shared: EntryResult[] = [];
  progress: Progress | undefined;
}

async function runPtxasAndCases(ctx: RunContext, child: CaseChild | undefined, caseResults: CaseResults): Promise<RunRecorder | number> {
  const { opts, target, io, backend, hooks } = ctx;
  const ptx = (backend.ptxas ? modulePtxFor(target, backend.ptxas.maxPtx) : undefined) ?? modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA;
  // in a toolchain matrix, the entries its classification answered (enumerated once there)
  const selected = hooks.matrix?.entries ?? (await selectEntriesAsync(opts, target, ptx, opts.cacheDir));
  const entries = hooks.matrix?.entries ? [...selected] : shardSlice(selected, opts.shard);
  let sel: CaseSelection | number | undefined;
  if (child) {
    // while the child selects the cases: the verdict file read and the entries' keys worked out, and
    // the operation and type the report's page reads of each entry
    if (backend.ptxas && opts.cacheDir && !hooks.matrix?.precomputed) prepareVerdicts(entries, target, backend.ptxas, opts.cacheDir);
    knowOpAndType(entries);
    const s = await child.selected;
    if (s.problemCount) return libraryProblems(io, s);
    sel = { total: s.total, counts: s.counts, batches: () => [] };
  } else sel = opts.noCases || !backend.ptxas ? undefined : await selectCases(opts, io);
  if (typeof sel === 'number') return sel;
  io.err(
    `catalog: ${entries.length} entries for ${target.name}${opts.filter ? ` matching '${opts.filter}'` : ''}${opts.shard ? ` (${shardText(opts.shard)}: ${entries.length} of ${selected.length})` : ''}, compiled as PTX ISA ${ptx} modules (.version ${ptx}: the newest this ptxas reads for ${target.name}; the verdicts are judged against the spec edition above)`,
  );
  const rec = ctx.startRecorder(opts.keepPasses);
  rec.set({
    toolchain: backend.ptxas ? { ptxas: ptxasFields(backend.ptxas) } : {},
    modulePtx: ptx,
    backend: { name: backend.name, reason: backend.reason, passedOver: backend.passedOver },
    catalogEntries: entries.length,
  });
  let stats: Record<string, number> = {};
  let cases: Promise<CaseRun> | undefined;
  let childStarted = false;
  const startCases = () => {
    if (!sel?.total || cases || childStarted) return;
    io.err(`cases on the reference model: ${sel.total} (${sel.counts}); --no-cases leaves them out`);
    // beside the ptxas progress: plain lines, not a second bar on the same terminal line
    const beside: Io = { ...io, isTTY: false };
    if (child) {
      caseResults.progress = new Progress(beside, sel.total, 'cases evaluated');
      caseResults.progress.tick(0);
      childStarted = true;
    } else cases = runCasesInto(rec, sel, beside, opts.keepPasses, (rs) => void caseResults.results.push(...rs));
  };
  if (backend.ptxas) {
    const progress = new Progress(io, entries.length, 'entries classified');
    // decided results are held for a partial report (an interrupt keeps them); added in entry order at the end
    const decided: EntryResult[] = [];
    rec.pending = () => [...decided, ...caseResults.results, ...caseResults.shared];
    // in a toolchain matrix, classified before any report was written (matrix.ts)
    const pre = hooks.matrix?.precomputed;
    const classifying = pre
      ? undefined
      : runPtxasBackend(
          entries,
          target,
          backend.ptxas,
          (n) => progress.tick(n),
          (r) => decided.push(r),
          { cacheDir: opts.cacheDir, knownCrashes: knownCrashes(rec.expectations) },
        );
    startCases();
    const run = pre ?? (await classifying!);
    if (!pre) progress.done();
    // the entries kept now, while the case child still judges (not after the cases, when this thread alone is left)
    stats = {
      ...keepEntries(rec, run.results, opts.keepPasses, hooks.matrix?.alsoKeep),
      ...run.stats,
      variantsPerSecond: run.stats.classified / Math.max(run.stats.classifyMs / 1000, 1e-9),
    };
    rec.pending = () => [...caseResults.results, ...caseResults.shared];
    const caseRun = childStarted ? await shareWithChild(io, child!, caseResults, opts.keepPasses, (sel as CaseSelection).total) : await cases;
    rec.pending = undefined;
    io.err(
      `ptxas: ${run.stats.classified} entries classified in ${(run.stats.classifyMs / 1000).toFixed(1)} s ` +
        `(${Math.round(stats.variantsPerSecond!)} /s; ${run.stats.cachedVerdicts !== undefined ? `${run.stats.cachedVerdicts} from the verdict cache; ` : ''}${run.stats.ptxasCalls} ptxas calls: ${run.stats.scanCalls} scan, ${run.stats.confirmCalls} confirm; ${run.stats.crashes} crashes, ${run.stats.splits} splits${run.stats.crashesFromExpectations ? `; ${run.stats.crashesFromExpectations} entries of crashes the expectations name answered from the few asked` : ''}), ${run.stats.skipped} skipped`,
    );
    if (caseRun) {
      rec.add(caseResults.results);
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

/**
 * The entries into the report: every one that is not a plain pass, and the first `keepPasses`
 * passes; the others are counted and covered (replay any by --filter with its id). The counts.
 */
function keepEntries(rec: RunRecorder, results: readonly EntryResult[], keepPasses: number, alsoKeep: ReadonlySet<string> | undefined): Record<string, number> {
  let passes = 0;
  const kept: EntryResult[] = [];
  const tally = new Tally();
  const droppedIds: string[] = [];
  for (const r of results) {
    tally.checked(r.family, r.verdict);
    if (r.verdict !== 'pass' || alsoKeep?.has(r.id) || passes++ < keepPasses) kept.push(r);
    else {
      droppedIds.push(r.id);
      tally.dropped(r.family, 'entries');
    }
  }
  rec.add(kept);
  if (!droppedIds.length) return {};
  rec.cover(droppedIds, 'entries');
  return tally.stats();
}

/** Once ptxas is done: every other case of what the child has left judged here, then one tally of both in case order. */
async function shareWithChild(io: Io, child: CaseChild, caseResults: CaseResults, keepPasses: number, total: number): Promise<CaseRun> {
  const part = await judgeShared(child, (batch, verdicts) => {
    for (const r of batch) caseResults.shared.push(r);
    caseResults.progress!.tick(batch.length, verdicts);
  });
  const done = await child.finished;
  caseResults.progress!.done();
  const m = mergeShared(done, part, keepPasses, total);
  caseResults.shared.length = 0; // tallied: what is kept of them goes with the child's results
  for (const r of m.kept) caseResults.results.push(r);
  if (part.results.length)
    io.err(`cases: ${done.cases + done.rest.length} judged by the case child, ${part.results.length} by this thread once ptxas was done`);
  return m;
}

/** The ptxas crashes the run's expectations name (verdict `error`, explained by a crash): the ptxas backend asks each on a few entries only. */
function knownCrashes(expectations: readonly Expectation[]): KnownCrash[] {
  return expectations
    .filter((e) => e.verdict === 'error' && /crash/i.test(typeof e.explanation === 'string' ? e.explanation : e.explanation.join(' ')))
    .map((e) => ({ id: e.id, covers: compileFilter(e.pattern) }));
}
