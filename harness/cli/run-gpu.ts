/**
 * The gpu executor: the cases given (--vectors, --case) or the default plan (the directed library's
 * cases and, per variant, probes and generated cases) run on the device by the gpu backend's workers.
 */
import { modulePtxFor } from '../arch/targets.js';
import { childCommand, holdBytes, prestartBytes, runGpuBackend } from '../backends/gpu/backend.js';
import { wholeLibraryRun } from '../backends/gpu/prestart.js';
import type { CaseBatch } from '../case-readers/packed.js';
import { streamVectors, validateAndHold, vectorFilesSize } from '../case-readers/vectors.js';
import { filterGuess } from '../catalog/select.js';
import { KEEP_WHOLE, type RunRecorder } from '../report/recorder.js';
import { compileFilter } from '../util/filter.js';
import { UsageError } from '../util/errors.js';
import { shardStream, shardText } from '../util/shard.js';
import type { Options } from './args.js';
import { toolchainOf } from './gpu-command.js';
import type { Io } from './io.js';
import type { Executor } from './run-context.js';
import { libraryProblems, loadingProgress, noCaseSelected, selectCases, vectorProblems } from './run-cases.js';
import { selectLibrary } from './library-cases.js';

export const runGpu: Executor = async ({ opts, target, io, backend, wantsCases, hooks, startRecorder }) => {
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
    if (!sel.total && !opts.shard) throw noCaseSelected(opts);
    io.err(`cases: ${sel.total} (${sel.counts}), on the GPU`);
    given = sel.batches();
    recorder();
  } else {
    // (kept between runs in the cache folder, as the CPU run's library: library-cases.ts)
    const lib = await selectLibrary({
      seed: opts.seed,
      ...(opts.filter !== undefined ? { filter: opts.filter } : {}),
      cacheDir: opts.cacheDir,
      directedOnly: true,
    });
    if (lib.problemCount) return libraryProblems(io, lib);
    given = [lib.cases];
    io.err(
      `cases: the directed library's ${lib.cases.length} file cases, and for every variant its probes, 16 level-1/2 and ${opts.generated} level-3 generated cases`,
    );
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
    ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
    executor: childCommand('executor'),
    worker: childCommand('worker'),
    prestart,
    // the default run (every variant, no shard): workers and CUDA contexts start while the plan is made
    startEarly: wholeLibraryRun(opts),
    ...(hooks.gpuPool ? { pool: hooks.gpuPool } : {}),
    ...(hooks.memoryDevice !== undefined ? { memoryDevice: hooks.memoryDevice } : {}),
    onProgress: (m) => io.err(m),
    onResults: (rs) => recorder().add(rs),
  });
  if (bad !== undefined) return bad;
  if (!r.results && !r.stats.cases && !opts.shard)
    throw new UsageError(
      `--filter '${opts.filter ?? ''}' selects no variant the gpu backend runs (atom, red, cp.reduce.async.bulk)${filterGuess(opts.filter)}`,
    );
  io.err(
    `gpu: ${r.stats.cases} cases of ${r.stats.variants} variants judged in ${r.stats.runSeconds!.toFixed(1)} s (${(r.stats.casesPerSecond! / 1e6).toFixed(2)} M cases/s, ${r.stats.workers} workers; ` +
      `${r.stats.fastJudged} passed by the fast judge); modules: ${r.stats.modulesCompiled} compiled, ${r.stats.modulesCached} from the cubin cache in ${r.stats.compileSeconds!.toFixed(1)} s; ` +
      `worker time: starting the GPU ${(r.stats.workerStartSeconds ?? 0).toFixed(1)} s, making cases ${r.stats.workerMakeSeconds!.toFixed(1)} s${r.stats.samplesSeconds ? ` (and ${r.stats.samplesSeconds.toFixed(2)} s on the run's thread sampling the level-1/2 inputs once for all)` : ''}, GPU ${r.stats.workerGpuSeconds!.toFixed(1)} s, judging ${r.stats.workerJudgeSeconds!.toFixed(1)} s`,
  );
  const out = recorder();
  out.cover(r.variantIds);
  out.set({ stats: r.stats, catalogEntries: r.variantIds.length });
  return out;
};

/**
 * --vectors on the gpu backend: every file validated in one read that also holds the good cases
 * (files of at most HOLD_BYTES together; bigger ones are streamed again after it), then handed on
 * in batches. Any problem: every one printed, `onBad(2)`, and nothing is handed on or recorded, as
 * if the run had validated first. A clean read prints the count and starts the recorder
 * (`recorder`) before the first case runs.
 */
async function* gpuVectors(
  opts: Options,
  io: Io,
  keep: (id: string) => boolean,
  bytes: number,
  recorder: () => RunRecorder,
  onBad: (code: number) => void,
): AsyncGenerator<CaseBatch> {
  const v = await validateAndHold(opts.vectors, process.cwd(), {
    keep: shardStream(keep, opts.shard),
    holdBytes: holdBytes(),
    onProgress: loadingProgress(io),
  });
  if (v.problems.length) {
    onBad(vectorProblems(io, v.problems));
    return;
  }
  const total = opts.shard ? Math.ceil(v.cases / opts.shard.count) : v.cases;
  if (!total && !opts.shard) throw noCaseSelected(opts);
  io.err(
    `cases: ${total} (from --vectors ${v.cases} in ${v.files.length} file(s)${opts.filter ? `, before --filter` : ''}${opts.shard ? `; ${shardText(opts.shard)}: every ${opts.shard.count}th from the ${opts.shard.index}th` : ''}), on the GPU${v.held ? '' : ` (${(bytes / 2 ** 20).toFixed(0)} MB of files: read again to run them)`}`,
  );
  recorder();
  if (v.held) {
    yield* v.held;
    return;
  }
  yield* streamVectors(opts.vectors, process.cwd(), { keep: shardStream(keep, opts.shard), packed: true });
}
