/**
 * The cases a run checks (by --case, from --vectors files, or the library and generators) and their
 * run through the reference model, shared by the executors (run-reference.ts, run-gpu.ts,
 * run-ptxas.ts).
 */
import { findCase } from '../case-readers/sources.js';
import { type CaseBatch, unpackAll } from '../case-readers/packed.js';
import { streamVectors, validateVectors } from '../case-readers/vectors.js';
import { problemLines } from '../case-readers/types.js';
import { filterGuess } from '../catalog/select.js';
import { KEEP_WHOLE, type RunRecorder } from '../report/recorder.js';
import type { EntryResult } from '../report/types.js';
import { compileFilter } from '../util/filter.js';
import { UsageError } from '../util/errors.js';
import { shardStream, shardText } from '../util/shard.js';
import type { Options } from './args.js';
import type { Io } from './io.js';
import { CaseTally, judgeFor, selectLibrary } from './library-cases.js';
import { Progress } from './progress.js';

/** '. Did you mean ...?' where a misspelt --filter qualifier has a likely spelling, else ';' (before "--list shows the variants"). */
export function orGuess(filter: string | undefined): string {
  const g = filterGuess(filter);
  return g ? `.${g}` : ';';
}

/** The usage error of a run that selected no case (`of`: what it selected from, e.g. " of the 20 in the vector files"). */
export function noCaseSelected(opts: Options, of = ''): UsageError {
  return new UsageError(`no case selected${opts.filter ? ` by --filter '${opts.filter}'` : ''}${of}${orGuess(opts.filter)} --list shows the variants`);
}

/** Cases a run checks: a list, or batches streamed from vector files (validated first). */
export interface CaseSelection {
  readonly total: number;
  readonly counts: string;
  /** Batches of cases: objects, and packed blocks from vector files. */
  batches(): AsyncIterable<CaseBatch> | Iterable<CaseBatch>;
}

/** The files' problems, every one, and that nothing ran: exit 2. */
export function vectorProblems(io: Io, problems: Parameters<typeof problemLines>[0]): number {
  for (const l of problemLines(problems)) io.err(l);
  io.err(`${problems.length} problem(s) in the vector files; nothing was run. Fix them and run again.`);
  return 2;
}

/**
 * The cases a run checks: one by --case; the --vectors files, validated whole (every problem of
 * every file, exit 2 before anything runs) and then streamed in batches; or the library and
 * generators.
 */
export async function selectCases(opts: Options, io: Io): Promise<CaseSelection | number> {
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
    if (v.problems.length) return vectorProblems(io, v.problems);
    return {
      total: opts.shard ? Math.ceil(v.cases / opts.shard.count) : v.cases,
      counts: `from --vectors ${v.cases} in ${v.files.length} file(s)${opts.filter ? `, before --filter` : ''}${opts.shard ? `; ${shardText(opts.shard)}: every ${opts.shard.count}th from the ${opts.shard.index}th` : ''}`,
      batches: () => streamVectors(opts.vectors, process.cwd(), { keep: shardStream(keep, opts.shard), packed: true }),
    };
  }
  const sel = await selectLibrary({
    seed: opts.seed,
    ...(opts.filter !== undefined ? { filter: opts.filter } : {}),
    ...(opts.shard ? { shard: opts.shard } : {}),
    cacheDir: opts.cacheDir,
  });
  if (sel.problemCount) return libraryProblems(io, sel);
  return { total: sel.total, counts: sel.counts, batches: () => [sel.cases] };
}

/** The problems of the directed library's files: every one printed; exit 2, nothing run. */
export function libraryProblems(io: Io, sel: { problems: readonly string[]; problemCount: number }): number {
  for (const l of sel.problems) io.err(l);
  io.err(`${sel.problemCount} problem(s) in the vector files; nothing was run. Fix them and run again.`);
  return 2;
}

/** The progress line of a read of vector files: every 2 s, and once at the end. */
export function loadingProgress(io: Io): (files: number, cases: number, bytes: number, total: number) => void {
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
export async function runCasesInto(
  rec: RunRecorder,
  sel: CaseSelection,
  io: Io,
  keepPasses = KEEP_WHOLE,
  into: (rs: EntryResult[]) => void = (rs) => rec.add(rs),
): Promise<{ cases: number; totals: Record<string, number>; dropped: number }> {
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
