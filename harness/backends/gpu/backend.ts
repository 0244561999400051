/**
 * The gpu backend: runs cases from any source on one GPU. The plan (plan.ts) names every variant
 * the executor can run for --arch; the modules holding the variants a run needs are compiled by
 * ptxas or found in the cubin cache (cache.ts); a pool of long-lived workers (pool.ts, worker.ts)
 * runs the jobs, one variant's cases each: the cases given (vector files, --case), and, for a
 * library run, every selected variant's probes, level-1/2 cases and `generated` level-3 cases. A
 * job whose worker dies goes through the isolating path (isolate.ts), case by case if need be.
 * Cases of families this executor cannot run (multimem needs a multicast object, which this
 * backend never creates) are reported as skipped with the reason.
 */
import { type Shard, shardSlice } from '../../util/shard.js';
import { tsxImport } from '../../util/paths.js';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Target } from '../../arch/targets.js';
import { type CaseBatch, PackedCases, SPACE_GLOBAL, SPACE_SHARED, isPacked, unpack } from '../../case-readers/packed.js';
import type { Case } from '../../case-readers/types.js';
import { enumerateCatalog } from '../../catalog/enumerate.js';
import { cachedCatalog } from '../../catalog/cache.js';
import { families } from '../../registry/index.js';
import { gpuFamily } from '../../registry/gpu.js';
import { KEEP_WHOLE } from '../../report/recorder.js';
import type { EntryResult } from '../../report/types.js';
import type { Ptxas } from '../ptxas/toolchain.js';
import { GEN, ModuleCompiler, SASS_LATER } from './module-set.js';
import { genModule } from './gen-kernel.js';
import type { DeviceInfo } from './driver.js';
import { type Group, WIDE_LIBRARY_BYTES, inPlan, notKept, ownCases, placeCase, skippedCase, variantOf, wideShape } from './placement.js';
import { type GpuPlan, type GpuVariant, GivenPlan, gpuPlan, moduleIdentity, moduleText } from './plan.js';
import { WorkerPool } from './pool.js';
import { slotsPerCase } from './family.js';
import type { GpuJob } from './worker.js';
import { isolateJob } from './isolate-job.js';
import { librarySamples } from './library.js';
import { MEMORY_DEVICE_ENV } from '../../peer/guard.js';
import { childEnv } from '../../catalog/editions.js';
import { addTally } from '../../report/tally.js';

/** How to start a child: the bundled .mjs beside this code, or the TS source through tsx. */
export function childCommand(name: 'executor' | 'worker'): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const mjs = join(here, `${name}.mjs`);
  return existsSync(mjs) ? [process.execPath, mjs] : [process.execPath, ...tsxImport(), join(here, `${name}.ts`)];
}

export interface GpuRunOptions {
  readonly target: Target;
  readonly ptx: string;
  readonly ptxas: Ptxas;
  readonly device: DeviceInfo;
  readonly keep: (variantId: string) => boolean;
  /** --shard: this shard's part of the library's variants (and of its skipped entries); the given cases come already sharded. */
  readonly shard?: Shard;
  readonly seed: number;
  /** Library run: every selected variant's probes, level-1/2 cases and this many level-3 cases. */
  readonly library: boolean;
  readonly generated: number;
  /** Cases from files or --case, in batches (of objects, or packed blocks that go to the workers as slots). */
  readonly cases?: AsyncIterable<CaseBatch> | Iterable<CaseBatch>;
  /**
   * Given cases kept whole in the report (--keep N: the first N, counted across jobs in the order
   * they are made; Infinity, --keep all: every one; default KEEP_WHOLE); past them a given case is
   * kept only when its result is not a plain pass, and the passes are counted (stats dropped.<family>.cases).
   */
  readonly keepWhole?: number;
  readonly cacheDir: string;
  readonly executor: readonly string[];
  readonly worker: readonly string[];
  readonly workers?: number;
  /** Workers the caller started before the backend was chosen (prestartGpuWorkers): the default run takes them (startEarly), any other closes them. */
  readonly pool?: WorkerPool;
  /**
   * Start the workers (each with its CUDA context) before the first case is read, up to
   * STREAM_WORKERS: for a big input, whose reading (a vector file's validation) they wait out
   * instead of the run waiting for them.
   */
  readonly prestart?: boolean;
  /**
   * A library run of every variant (no --filter): its workers start, and start their CUDA contexts, before
   * the plan is made and the modules compiled or loaded (a context takes about 2 s when 16 start at once on
   * one GPU), one per core.
   */
  readonly startEarly?: boolean;
  /** The device that holds the cases' memory (the peer command), given to each worker in its environment; default device 0. */
  readonly memoryDevice?: number;
  readonly onProgress?: (msg: string) => void;
  /** Called with each batch of results as it is judged (for streaming to results.jsonl). */
  readonly onResults?: (rs: readonly EntryResult[]) => void;
}

/** Cases per job for cases given by the caller. */
const FILE_JOB = 1 << 14;
/** Given cases buffered before a run starts compiling every module and running while it reads (PTXCONF_STREAM_ABOVE changes it). */
const streamAbove = () => Number(process.env.PTXCONF_STREAM_ABOVE ?? 100_000) || 100_000;
/**
 * Workers of a streamed run at most: the one reader in the parent feeds them, and each worker
 * starting its CUDA context costs the run its first seconds (32 workers on a 32-core H100 host: the
 * first of 1.3 M file cases came back 7.1 s after the pool started, the last 2.2 s after that).
 */
const STREAM_WORKERS = 8;
/**
 * Workers of any run at most, unless --workers says otherwise: CUDA contexts on one GPU start one after
 * another (about 0.13 s each on an H200), and every worker waits for all of them. The default run on
 * a 16-core H200 host: 16 workers 6.8 s warm (33.8 worker-s starting contexts), 8 workers 6.0 s (8.4).
 */
const GPU_WORKERS = 8;
const defaultWorkers = () => Math.min(availableParallelism(), GPU_WORKERS);

/** The default run's workers, their CUDA contexts starting now (prestart.ts). */
export function startGpuWorkers(workers?: number): WorkerPool {
  const pool = new WorkerPool(childCommand('worker'), Math.max(1, workers ?? defaultWorkers()), 600_000, childEnv());
  pool.warm();
  return pool;
}
/**
 * Vector files of at least this many bytes together (8 MiB, about 50,000 JSON-lines cases;
 * PTXCONF_PRESTART_BYTES changes it) start the workers before they are read (GpuRunOptions.prestart).
 */
export const prestartBytes = () => Number(process.env.PTXCONF_PRESTART_BYTES ?? 8 << 20);
/**
 * Memory for the cases of vector files read once on the gpu backend (1 GiB; PTXCONF_HOLD_BYTES
 * changes it): files that fit (validateAndHold: about 128 bytes a packed case, 1 KB a case object;
 * 1.3 M JSON-lines cases take about 170 MB) are validated with their cases held, then run; bigger
 * ones are validated, then read again to run, in bounded memory.
 */
export const holdBytes = () => Number(process.env.PTXCONF_HOLD_BYTES ?? 2 ** 30);
/** Generated cases per job at most (a job per variant below that; worker.ts CHUNK bounds a job). */
const GEN_JOB = 1 << 19;
/** A batch's jobs in four batches (fewer where it has fewer jobs), in order. */
function quarters(b: readonly number[]): number[][] {
  const n = Math.ceil(b.length / 4);
  const out: number[][] = [];
  for (let i = 0; i < b.length; i += n) out.push(b.slice(i, i + n));
  return out;
}

/** A batch (one set of launches in one worker) holds jobs up to this many cases, or one larger job. */
const BATCH_CASES = 1 << 18;
const BATCH_JOBS = 256;

export async function runGpuBackend(opts: GpuRunOptions): Promise<{ stats: Record<string, number>; variantIds: string[]; results: number }> {
  const started = performance.now();
  const poolEnv = childEnv(opts.memoryDevice !== undefined ? { [MEMORY_DEVICE_ENV]: String(opts.memoryDevice) } : {});
  // the default run: the workers and their CUDA contexts start while the plan is made and the modules compiled (startEarly)
  let early: WorkerPool | undefined;
  if (opts.startEarly && opts.library) {
    early = opts.pool ?? new WorkerPool(opts.worker, Math.max(1, opts.workers ?? defaultWorkers()), 600_000, poolEnv);
    early.warm();
  } else opts.pool?.close();
  const t0 = performance.now();
  // a library run plans every variant (its modules the same for every run); given cases alone
  // (vector files, --case) look up only their own variants, as they come (GivenPlan)
  const plan = opts.library ? gpuPlan(opts.target.name, opts.ptx, undefined, opts.cacheDir) : undefined;
  const given = plan ? undefined : new GivenPlan(opts.target.name, opts.ptx);
  const find = (c: Case) => (plan ? inPlan(plan, c) : given!.get(c.variant.id, c.variant.family));
  const planMs = performance.now() - t0;
  const multicastWhy = opts.device.multicastSupported
    ? 'multimem needs a multicast object bound to several GPUs; this backend never creates one (the multicast backend, with its explicit flag, does)'
    : `device reports no multicast support (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0 on ${opts.device.name})`;
  let resultCount = 0;
  // the case passes kept in the report, per family: the others judged are stats dropped.<family>.cases
  const keptPasses: Record<string, number> = {};
  // and the `observed` cases kept: the others judged are stats droppedObserved.<family>.cases
  const keptObserved: Record<string, number> = {};
  const emit = (rs: readonly EntryResult[]) => {
    if (!rs.length) return;
    resultCount += rs.length;
    for (const r of rs) {
      if (r.kind !== 'case') continue;
      if (r.verdict === 'pass') keptPasses[r.family] = (keptPasses[r.family] ?? 0) + 1;
      else if (r.verdict === 'observed') keptObserved[r.family] = (keptObserved[r.family] ?? 0) + 1;
    }
    opts.onResults?.(rs);
  };
  const base = (e: GpuPlan['skipped'][number]['entry']) => ({
    id: e.id,
    family: e.family,
    kind: 'variant' as const,
    ptx: e.ptx,
    modulePtx: opts.ptx,
    catalog: { status: e.status, expect: e.expect, reason: e.reason, rules: [] },
  });

  // the jobs: library runs of the selected variants, then the given cases grouped by variant and mode
  const jobs: Omit<GpuJob, 'id' | 'cubin' | 'sass'>[] = [];
  const jobVariant: GpuVariant[] = [];
  const ran = new Set<string>();
  let givenCases = opts.cases;
  if (plan) {
    // --shard: this shard's library variants; the directed library's file cases go with their variant
    // (those of variants the library does not run, e.g. multimem's, by ordinal), so no case runs twice
    const selected = plan.variants.filter((v) => opts.keep(v.entry.id));
    const shardVariants = shardSlice(selected, opts.shard);
    if (opts.shard && opts.cases)
      givenCases = ownCases(opts.cases, new Set(shardVariants.map((v) => v.entry.id)), new Set(selected.map((v) => v.entry.id)), opts.shard);
    emit(
      shardSlice(
        plan.skipped.filter((s) => opts.keep(s.entry.id)),
        opts.shard,
      ).map((s) => ({ ...base(s.entry), verdict: 'skipped' as const, reason: s.reason })),
    );
    for (const gv of shardVariants) {
      ran.add(gv.entry.id);
      for (let from = 0, first = true; first || from < opts.generated; from += GEN_JOB, first = false) {
        jobs.push({
          kernel: gv.name,
          variant: variantOf(gv),
          shape: gv.shape,
          modulePtx: opts.ptx,
          mode: 0,
          cases: [],
          library: first,
          generated: Math.min(GEN_JOB, Math.max(0, opts.generated - from)),
          generatedFrom: from,
          seed: opts.seed,
        });
        jobVariant.push(gv);
      }
      // a family with wide cases: generated cases of each WIDE_LIBRARY_BYTES size, one job per size
      if (gv.gpu.wide) {
        for (const bytes of WIDE_LIBRARY_BYTES) {
          const w = wideShape(gv, bytes, opts.device);
          if ('why' in w) continue;
          jobs.push({
            kernel: w.kernel,
            variant: variantOf(gv),
            shape: w.shape,
            modulePtx: opts.ptx,
            mode: 0,
            cases: [],
            library: true,
            generated: 0,
            generatedFrom: 0,
            seed: opts.seed,
          });
          jobVariant.push(gv);
        }
      }
    }
  }
  // Compiling, the pool and dispatching, ready before the given cases are read: a big vector file
  // starts running once STREAM_ABOVE of its cases are buffered, with at most 2 jobs per worker in
  // flight, so that memory stays bounded whatever the file's size.
  // verdict counts per family (report/tally.ts), as the workers send them
  const totals: Record<string, number> = {};
  const add = (t: Record<string, number>) => addTally(totals, t);
  const ms = { start: 0, make: 0, gpu: 0, judge: 0 };
  let samplesMs = 0;
  let cases = 0;
  let fast = 0;
  let deviceMade = 0;
  let isolated = 0;
  let done = 0;
  let dispatched = 0;
  let lastNote = 0;
  let tr = performance.now();
  // the modules: the plan's (MODULE_SIZE variants each), or those GivenPlan makes of the variants the cases use
  const moduleOf = (v: GpuVariant): number | undefined => (plan ? v.module : given!.moduleOf(v));
  const compiler = new ModuleCompiler(
    {
      count: () => (plan ? plan.modules.length : given!.modules.length),
      text: (i) => (plan ? moduleText(plan, i) : given!.text(i)),
      assign: (vs) => given?.assign(vs),
      moduleOf,
      genText: () => genModule(opts.target.name, opts.ptx),
      identity: (i) => (plan ? moduleIdentity(plan, i) : undefined),
    },
    { ptxas: opts.ptxas, arch: opts.target.name, cacheDir: opts.cacheDir, onProgress: opts.onProgress, gen: process.env.PTXCONF_DEVICE_GEN !== '0' },
  );
  const { mods } = compiler;
  const isCompiled = (v: GpuVariant) => mods.ready(moduleOf(v));
  const compile = (vs: readonly GpuVariant[], generates: boolean) => compiler.compile(vs, generates);
  // one worker per core (4 more measured no faster on the H100: 47.8 vs 47.2 M/s)
  let workers = 0;
  let pool: WorkerPool | undefined;
  const startPool = (jobCount: number) => {
    tr = performance.now();
    if (pool) return; // started before the cases were read (prestart)
    if (early) {
      // started with the run (startEarly)
      workers = early.size;
      pool = early;
      return;
    }
    workers = Math.max(1, Math.min(opts.workers ?? defaultWorkers(), Math.ceil(jobCount / 8)));
    // the peer command's memory device goes to the workers in their environment (peer/guard.ts reads it there)
    pool = new WorkerPool(opts.worker, workers, 600_000, poolEnv);
  };
  // jobs sent before their module's SASS was read: their results wait for it (fillSass)
  const sassLater = new Map<number, { m: number; kernel: string; name: string }>();
  const full = (j: Omit<GpuJob, 'id' | 'cubin' | 'sass'>, gv: GpuVariant, id: number): GpuJob => {
    const m = moduleOf(gv)!;
    const sass = mods.sassOf(m, j.kernel, gv.name);
    if (sass === SASS_LATER) sassLater.set(id, { m, kernel: j.kernel, name: gv.name });
    const genCubin = j.generated > 0 ? mods.cubinOf(GEN) : undefined;
    return { ...j, id, cubin: mods.cubinOf(m)!, sass, ...(genCubin ? { genCubin } : {}) };
  };
  /** A job's results with the SASS its module's disassembly found, once it has (they are held until then). */
  const fillSass = async (id: number, rs: EntryResult[]): Promise<EntryResult[]> => {
    const at = sassLater.get(id);
    if (!at) return rs;
    sassLater.delete(id);
    await mods.sassRead(at.m);
    const sass = mods.sassOf(at.m, at.kernel, at.name);
    return rs.map((r) => (r.sass === SASS_LATER ? { ...r, sass } : r));
  };
  const inflight = new Set<Promise<void>>();
  const failures: unknown[] = [];
  const dispatch = (batch: GpuJob[]): Promise<void> => {
    dispatched += batch.length;
    const run = (async () => {
      const o = await pool!.run(batch);
      if ('outs' in o) {
        for (const out of o.outs) {
          add(out.totals);
          cases += out.cases;
          fast += out.fast;
          deviceMade += out.deviceMade ?? 0;
          ms.start += out.ms.start;
          ms.make += out.ms.make;
          ms.gpu += out.ms.gpu;
          ms.judge += out.ms.judge;
          emit(await fillSass(out.id, out.results));
        }
      } else {
        opts.onProgress?.(`gpu: a worker failed (${o.failed}) on a batch of ${batch.length} jobs (${batch[0]!.variant.id}...); isolating each`);
        for (const job of batch) {
          isolated++;
          const r = await isolateJob(job, opts.executor, o.failed);
          add(r.totals);
          cases += r.cases;
          emit(await fillSass(job.id, r.results));
        }
      }
      done += batch.length;
      const now = performance.now();
      if (now - lastNote > 2000) {
        lastNote = now;
        opts.onProgress?.(
          `gpu: ${done}/${dispatched} jobs, ${cases} cases judged in ${((now - tr) / 1000).toFixed(1)} s (${(cases / Math.max((now - tr) / 1000, 1e-9) / 1e6).toFixed(2)} M/s; worker seconds: starting the GPU ${(ms.start / 1000).toFixed(1)}, making ${(ms.make / 1000).toFixed(1)}, GPU ${(ms.gpu / 1000).toFixed(1)}, judging ${(ms.judge / 1000).toFixed(1)}; ${fast} by the fast judge)`,
        );
      }
    })();
    inflight.add(run);
    run.then(
      () => inflight.delete(run),
      (e: unknown) => {
        inflight.delete(run);
        failures.push(e); // rethrown once everything in flight has ended
      },
    );
    return run;
  };

  let given0 = 0;
  let streaming = false;
  const STREAM_ABOVE = streamAbove();
  // a library run's modules are known: compiled from now, while the given cases are read (an error comes again below)
  if (plan && jobVariant.length)
    compile(
      [...new Set(jobVariant)],
      jobs.some((j) => j.generated > 0),
    ).catch(() => undefined);
  if (plan) {
    // the accepted variants of the families this backend does not run (multimem), skipped: enumerated once the compilation has started
    const otherFamilies = families().filter((f) => !gpuFamily(f.id));
    const others = shardSlice(
      cachedCatalog(
        opts.cacheDir,
        { what: 'gpu-others', target: opts.target.name, ptx: opts.ptx, families: otherFamilies.map((f) => f.id) },
        () => enumerateCatalog({ target: opts.target, ptx: opts.ptx, neighbours: false, isaNeighbours: false, spellings: false, families: otherFamilies }),
        true,
      ).filter((e) => e.expect === 'accept' && opts.keep(e.id)),
      opts.shard,
    );
    emit(others.map((e) => ({ ...base(e), verdict: 'skipped' as const, reason: multicastWhy })));
  }
  try {
    if (opts.prestart && givenCases) {
      // the workers start their CUDA contexts while the cases are read
      startPool(8 * STREAM_WORKERS);
      pool!.warm();
    }
    if (givenCases) {
      // objects grouped by variant and mode; packed cases by variant, mode and file (a block is one file's)
      const groups = new Map<string, Group>();
      let flushed = 0;
      let buffered = 0;
      const keepWhole = opts.keepWhole ?? KEEP_WHOLE;
      const flush = async (g: Group) => {
        const k = g.cases.length + (g.packed?.n ?? 0);
        // the first keepWhole given cases of the run kept whole, counted over the jobs in order (a count, never Infinity: the job goes as JSON)
        const keepFirst = Math.min(k, Math.max(0, keepWhole - flushed));
        const job = {
          kernel: g.kernel,
          variant: variantOf(g.gv),
          shape: g.shape,
          modulePtx: opts.ptx,
          mode: g.mode,
          cases: g.cases,
          ...(g.packed ? { packed: g.packed.data() } : {}),
          library: false,
          generated: 0,
          generatedFrom: 0,
          seed: opts.seed,
          keepFirst,
        };
        flushed += k;
        buffered -= k;
        g.cases = [];
        g.packed = undefined;
        if (!streaming) {
          jobs.push(job);
          jobVariant.push(g.gv);
          return;
        }
        // a module is compiled when a case of one of its variants first comes (a file of one variant
        // compiles one module); the variants of every group waiting then go with it; the job goes once its cubin is there
        if (!isCompiled(g.gv)) {
          void compile(
            [...new Set([g.gv, ...[...groups.values()].map((x) => x.gv)])].filter((v) => !isCompiled(v)),
            false,
          ).catch(() => undefined); // cubinsFor rejects with its error
          await compiler.cubinsFor([moduleOf(g.gv)!]);
        }
        while (inflight.size >= 2 * workers) await Promise.race(inflight);
        void dispatch([full(job, g.gv, jobs.length + dispatched)]);
      };
      for await (const batch of givenCases) {
        const skipped: EntryResult[] = [];
        if (isPacked(batch)) {
          // the block's variants looked up at once (a given run's plan grows as they come)
          given?.prepare(batch.variants.map((p) => p.variant).filter((v) => gpuFamily(v.family)));
          // one placement, and so one group, per (variant, space) of the block: it depends on the
          // variant and the lengths, which the variant fixes (found once, not per case: 1.3 M cases
          // built a group key each, 0.4 s of the parent on the H100 host)
          const placed: ({ why: string } | { g: Group } | undefined)[] = [];
          given0 += batch.n;
          for (let i = 0; i < batch.n; i++) {
            const key = batch.vidx[i]! * 16 + (batch.bits[i]! & (SPACE_GLOBAL | SPACE_SHARED));
            let at = placed[key];
            if (!at) {
              const p = placeCase(find, unpack(batch, i), multicastWhy, opts.device);
              if ('why' in p) at = { why: p.why };
              else {
                ran.add(p.gv.entry.id);
                const k = `${p.gv.index}:${p.mode}:${batch.idFile}`;
                let g = groups.get(k);
                if (!g) groups.set(k, (g = { gv: p.gv, mode: p.mode, kernel: p.gv.name, shape: p.gv.shape, cases: [] }));
                at = { g };
              }
              placed[key] = at;
            }
            if ('why' in at) {
              skipped.push(skippedCase(unpack(batch, i), at.why));
              continue;
            }
            const g = at.g;
            (g.packed ??= new PackedCases(batch.idFile, batch.cite, FILE_JOB)).append(batch, i);
            buffered++;
            if (g.packed.n >= FILE_JOB) await flush(g);
          }
        } else given?.prepare(batch.map((c) => c.variant).filter((v) => gpuFamily(v.family)));
        for (const c of isPacked(batch) ? [] : batch) {
          given0++;
          const p = placeCase(find, c, multicastWhy, opts.device);
          if ('why' in p) {
            skipped.push(skippedCase(c, p.why));
            continue;
          }
          ran.add(p.gv.entry.id);
          // wide cases group by size too: a launch's cases all have its shape
          const k = `${p.gv.index}:${p.mode}${p.wide ? `:${p.wide.shape.caseBytes}` : ''}`;
          let g = groups.get(k);
          if (!g) groups.set(k, (g = { gv: p.gv, mode: p.mode, kernel: p.wide?.kernel ?? p.gv.name, shape: p.wide?.shape ?? p.gv.shape, cases: [] }));
          g.cases.push(c);
          buffered++;
          if (g.cases.length >= FILE_JOB) await flush(g);
        }
        emit(skipped);
        if (!streaming && buffered + flushed > STREAM_ABOVE) {
          // a big input: compile the modules of what is buffered now (the others when their cases
          // come), start the pool, and run what is buffered
          streaming = true;
          opts.onProgress?.(`gpu: more than ${STREAM_ABOVE} cases given: running while reading, each module compiled when its first case comes`);
          await compile(
            [...new Set([...jobVariant, ...[...groups.values()].map((g) => g.gv)])],
            jobs.some((j) => j.generated > 0),
          );
          startPool(8 * STREAM_WORKERS);
          const early = jobs.splice(0);
          const earlyGv = jobVariant.splice(0);
          for (const [i, j] of early.entries()) {
            while (inflight.size >= 2 * workers) await Promise.race(inflight);
            void dispatch([full(j, earlyGv[i]!, dispatched)]);
          }
          for (const g of groups.values()) if (g.cases.length >= FILE_JOB || (g.packed?.n ?? 0) >= FILE_JOB) await flush(g);
        }
      }
      for (const g of groups.values()) if (g.cases.length || g.packed?.n) await flush(g);
    }

    // not streaming: the modules compile while the batches wait for theirs (the run starts on the first one ready)
    const compiled = streaming
      ? compiler.pending()
      : compile(
          [...new Set(jobVariant)],
          jobs.some((j) => j.generated > 0),
        );
    compiled.catch(() => mods.abandon()); // awaited below, after what is in flight
    if (!streaming && jobs.length) startPool(jobs.length);
    // the library's sampled level-1/2 inputs, made once here for every worker (each sampled them itself before)
    const narrow = [...new Set(jobs.flatMap((j, id) => (j.library && j.shape.caseBytes === undefined ? [jobVariant[id]!] : [])))];
    if (pool && !streaming && narrow.length) {
      const t = performance.now();
      pool.preamble({ type: 'samples', entries: librarySamples(narrow, opts.seed) });
      samplesMs += performance.now() - t;
    }
    // batches of the remaining jobs in plan order (neighbouring variants share a module)
    const order = jobs.map((_, id) => id).sort((x, y) => jobVariant[x]!.index - jobVariant[y]!.index);
    const size = (id: number) =>
      (jobs[id]!.cases.length + (jobs[id]!.packed?.n ?? 0) + jobs[id]!.generated + (jobs[id]!.library ? 64 : 0)) * slotsPerCase(jobs[id]!.shape);
    const batches: number[][] = [];
    let cur: number[] = [];
    let curSize = 0;
    for (const id of order) {
      if (cur.length && (curSize + size(id) > BATCH_CASES || cur.length >= BATCH_JOBS)) {
        batches.push(cur);
        cur = [];
        curSize = 0;
      }
      cur.push(id);
      curSize += size(id);
    }
    if (cur.length) batches.push(cur);
    // a run of many batches has its last ones in quarters: a worker given one of the last whole
    // batches kept the others waiting for it (0.1-0.45 s between the first and last worker's end on the H200)
    const w = Math.max(1, workers);
    if (batches.length > 4 * w) batches.splice(batches.length - 2 * w, 2 * w, ...batches.slice(-2 * w).flatMap((b) => quarters(b)));
    const offset = dispatched;
    // Promise.all once: racing a set of thousands of batches again after each one ended cost the
    // parent O(batches^2) and left the workers waiting (31 M/s instead of 67 M/s on the H100); each
    // batch goes once its modules' cubins (and the generator's, when it generates) are ready
    const rest = batches.map(async (ids) => {
      const need = [...new Set(ids.map((id) => moduleOf(jobVariant[id]!)!)), ...(compiler.gen && ids.some((id) => jobs[id]!.generated > 0) ? [GEN] : [])];
      await compiler.cubinsFor(need);
      return dispatch(ids.map((id) => full(jobs[id]!, jobVariant[id]!, offset + id)));
    });
    await Promise.allSettled([...inflight, ...rest]);
    // a ptxas failure first (the batches waiting on its module never went), then a worker's
    await Promise.allSettled([...inflight]);
    await compiled;
    if (failures.length) throw failures[0];
    opts.onProgress?.(`gpu: ${done}/${dispatched} jobs, ${cases} cases judged`);
  } finally {
    // everything in flight ends first (an error thrown while reading leaves no batch behind), then the workers go
    await Promise.allSettled([...inflight]);
    (pool ?? early)?.close();
  }
  const compileSeconds = compiler.stats.ms / 1000;
  const runSeconds = (performance.now() - tr) / 1000;
  return {
    variantIds: [...ran],
    results: resultCount,
    stats: {
      variants: ran.size,
      jobs: dispatched,
      cases,
      givenCases: given0,
      fastJudged: fast,
      deviceGenerated: deviceMade,
      workers,
      workersStarted: pool?.started ?? 0,
      isolatedJobs: isolated,
      modulesCompiled: compiler.stats.compiled,
      modulesCached: compiler.stats.cached,
      planSeconds: (plan ? planMs : given!.ms) / 1000,
      plannedVariants: plan ? plan.variants.length : given!.variants.length,
      compileSeconds,
      runSeconds,
      casesPerSecond: cases / Math.max(runSeconds, 1e-9),
      workerStartSeconds: ms.start / 1000,
      workerMakeSeconds: ms.make / 1000,
      samplesSeconds: samplesMs / 1000,
      workerGpuSeconds: ms.gpu / 1000,
      workerJudgeSeconds: ms.judge / 1000,
      seconds: (performance.now() - started) / 1000,
      ...totals,
      // the passes (and observed results) judged and not kept whole, per family: the summary table counts them (the kept sample said apart)
      ...notKept(totals, keptPasses, keptObserved),
    },
  };
}
