/**
 * A long-lived gpu worker process: one CUDA context for the whole run, cubins loaded once, jobs
 * over the IPC channel. A job is one variant's cases: cases given by the parent (vector files,
 * --case), the variant's probes and level-1/2 cases, and `generated` level-3 cases written straight
 * into typed arrays. The worker launches them in chunks, runs the fast judge over every case, sends
 * the cases it flags through the full reference judge, and returns verdict totals and the results
 * worth keeping. A CUDA error poisons the context: the worker reports it on stderr as
 * `CUDA_ERROR <name> <kernel>` and exits with code 3; the parent isolates that job.
 */
import { Tally } from '../../report/tally.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { preloadSamples, randomShape } from '../../../cases/generators/cases.js';
import { type LaneTable, laneTable, seedKey, stringKey } from '../../../cases/generators/random.js';
import { GEN_KERNEL } from './gen-kernel.js';
import { PackedCases, type PackedData, SLOT_WORDS, unpack } from '../../case-readers/packed.js';
import type { Case, CaseVariant } from '../../case-readers/types.js';
import { elementFormat } from '../../numerics/formats.js';
import { fastChecker } from '../../reference/fast.js';
import type { ReferenceCase } from '../../reference/model.js';
import type { EntryResult, Verdict } from '../../report/types.js';
import { type Launcher, loadLauncher } from './driver.js';
import { peerMemoryDevice } from '../../peer/guard.js';
import { BLOCK, type KernelShape, SLOT, encodeTensorMap, slotsPerCase } from './family.js';
import { DEFAULT_DYNAMIC_SHARED, WORDS, decodeCase, encodeCase, fillGenerated, launchShape, readSlot } from './batch.js';
import { lazyWideCases, libraryCases } from './library.js';
import { SAMPLE_WINDOW, caseResult, keepCase } from './results.js';
import { judge } from '../../compare/judge-case.js';
import { enrichResult } from '../../compare/compare.js';
import { type SweepRefRequest, referenceCells } from '../../sweep/reference.js';
import { registerAllFamilies } from '../../families/index.js';

export interface GpuJob {
  readonly id: number;
  readonly cubin: string;
  readonly kernel: string;
  readonly variant: CaseVariant;
  readonly shape: KernelShape;
  readonly sass: string;
  readonly modulePtx: string;
  /** 1: a generic variant lands in shared memory (every case of the job has space: shared). */
  readonly mode: 0 | 1;
  /** Cases from files or --case: judged in full and kept whole, the first `keepFirst` of them (all without it). */
  readonly cases: readonly Case[];
  /** More given cases, packed (one file's, this job's variant), after `cases` in the slots. */
  readonly packed?: PackedData;
  /** Whether to add the variant's directed probes and 8 level-1 and 8 level-2 cases. */
  readonly library: boolean;
  /** Level-3 generated cases from index `generatedFrom`. */
  readonly generated: number;
  readonly generatedFrom: number;
  readonly seed: number;
  /** Given cases of this job kept whole even when they pass (false: none); keepFirst, where present, decides instead. */
  readonly keepGiven?: boolean;
  /**
   * How many of this job's given cases (`cases`, then `packed`, in that order) are kept whole: the
   * run's --keep N counted across jobs in order (a finite count: a job travels as JSON). The others
   * are kept only when their result is not a plain pass. Absent: all of them (none where keepGiven is false).
   */
  readonly keepFirst?: number;
  /** The cubin of the level-3 generator kernel (gen-kernel.ts); absent: operands are made on the CPU. */
  readonly genCubin?: string;
}

export interface WorkerOut {
  readonly id: number;
  readonly totals: Record<string, number>;
  readonly results: EntryResult[];
  readonly cases: number;
  /**
   * Milliseconds per stage: starting the GPU (the worker's CUDA context, once: on its first batch's first
   * job), making cases (their inputs into the launch buffers), on the GPU (copies, module loads, launch,
   * sync), judging.
   */
  readonly ms: { start: number; make: number; gpu: number; judge: number };
  /** Cases the fast judge passed without the full reference. */
  readonly fast: number;
  /** Level-3 cases whose operands the device made (checked against the TypeScript generator). */
  readonly deviceMade?: number;
}

/** Cases per job at most (the parent splits larger ones); a batch's buffers hold its jobs one after another. */
export const CHUNK = 1 << 20;

class Gpu {
  private readonly l: Launcher;
  private readonly modules = new Map<string, bigint>();
  private readonly fns = new Map<string, bigint>();
  private ptrs: bigint[] = [];
  private readonly tables = new Map<LaneTable, bigint>();
  private capacity = 0;

  constructor() {
    const loaded = loadLauncher();
    if (!('launcher' in loaded)) throw new Error(loaded.reason);
    this.l = loaded.launcher;
    this.l.init();
    this.l.useDevice(0);
    // the peer command (harness/peer/): the cases' memory on another device, peer access both ways
    this.memDevice = peerMemoryDevice(this.l);
  }

  /** The device that holds buffer 0 (the cases' memory) when it is not device 0. */
  private readonly memDevice: number | undefined;

  fn(cubin: string, kernel: string): bigint {
    const key = `${cubin}#${kernel}`;
    let f = this.fns.get(key);
    if (f === undefined) {
      let m = this.modules.get(cubin);
      if (m === undefined) {
        m = this.l.loadModule(readFileSync(cubin));
        this.modules.set(cubin, m);
      }
      f = this.l.getFunction(m, kernel);
      this.fns.set(key, f);
    }
    return f;
  }

  /**
   * Runs a batch: the launches' cases sit one after another in buffers 0-3 (launch k from slot
   * first[k], n[k] cases); four copies in, one launch per kernel, one synchronisation, two copies
   * back. Few driver calls per batch keep several worker processes from queueing on the GPU.
   */
  /** A level-1 table on the device, once per lane format. */
  table(t: LaneTable): bigint {
    let p = this.tables.get(t);
    if (p === undefined) {
      p = this.l.memAlloc(t.values.byteLength);
      this.l.copyToDevice(p, Buffer.from(t.values.buffer, t.values.byteOffset, t.values.byteLength));
      this.tables.set(t, p);
    }
    return p;
  }

  /** Dynamic shared memory each wide kernel has been allowed (cuFuncSetAttribute). */
  private readonly sharedAllowed = new Map<bigint, number>();
  private mapBuf = 0n;
  private mapCapacity = 0;

  /** Encodes and copies the tensor map of every launch whose kernel reads one; its device address per launch. */
  tensorMaps(launches: readonly { shape: KernelShape; first: number; n: number }[]): (bigint | undefined)[] {
    const want = launches.filter((x) => x.shape.tensorMap).length;
    if (!want) return [];
    if (want > this.mapCapacity) {
      if (this.mapCapacity) this.l.memFree(this.mapBuf);
      this.mapCapacity = Math.max(want, 64);
      this.mapBuf = this.l.memAlloc(this.mapCapacity * TENSOR_MAP_BYTES);
    }
    const host = Buffer.alloc(want * TENSOR_MAP_BYTES);
    let k = 0;
    const out = launches.map((x) => {
      const tm = x.shape.tensorMap;
      if (!tm) return undefined;
      encodeTensorMap(this.l, tm, this.ptrs[0]! + BigInt(x.first * SLOT), x.shape.elements, x.n).copy(host, k * TENSOR_MAP_BYTES);
      return this.mapBuf + BigInt(TENSOR_MAP_BYTES * k++);
    });
    this.l.copyToDevice(this.mapBuf, host);
    return out;
  }

  run(
    launches: readonly { f: bigint; shape: KernelShape; mode: number; first: number; n: number }[],
    bufs: readonly Buffer[],
    total: number,
    gens: readonly GenLaunch[],
    inputs: readonly Buffer[],
  ): void {
    if (total > this.capacity) {
      for (const p of this.ptrs) this.l.memFree(p);
      this.capacity = Math.max(total, 1 << 16);
      this.ptrs = [0, 1, 2, 3].map((k) =>
        k === 0 && this.memDevice !== undefined ? this.l.memAllocOn!(this.memDevice, this.capacity * SLOT) : this.l.memAlloc(this.capacity * SLOT),
      );
    }
    for (let k = 0; k < 4; k++) if (bufs[k]!.length) this.l.copyToDevice(this.ptrs[k]!, bufs[k]!);
    if (gens.length) {
      // level-3 operands written on the device, then brought back as the judge's inputs
      for (const g of gens) {
        const off = BigInt(g.first * SLOT);
        const blocks = Math.ceil(g.n / BLOCK);
        this.l.launch(
          this.fn(g.cubin, GEN_KERNEL),
          [blocks, 1, 1],
          [Math.min(g.n, BLOCK), 1, 1],
          0,
          [1, 1, 1],
          [
            this.ptrs[0]! + off,
            this.ptrs[1]! + off,
            this.ptrs[2]! + off,
            BigInt(g.n),
            BigInt(g.index0 >>> 0),
            BigInt(g.sk >>> 0),
            this.table(g.t),
            BigInt(g.t.count),
            BigInt(g.t.words),
            BigInt(g.laneBits),
            BigInt(g.lanes),
            BigInt(g.width),
            ...g.elements.map((e) => BigInt(e)),
          ],
        );
      }
      this.l.synchronize();
      for (let k = 0; k < 3; k++) this.l.copyFromDevice(inputs[k]!, this.ptrs[k]!);
    }
    const maps = this.tensorMaps(launches);
    launches.forEach((x, j) => {
      const off = BigInt(x.first * SLOT);
      const params = this.ptrs.map((p) => p + off);
      if (maps[j] !== undefined) params[2] = maps[j]!;
      const { grid, block, shared } = launchShape(x.shape, x.n);
      if (x.shape.perCta) {
        // a wide kernel: one CTA per case, the case's bytes as pc, its dynamic shared memory allowed past 48 KiB
        params[2] = BigInt(x.shape.caseBytes!);
        if (shared > (this.sharedAllowed.get(x.f) ?? DEFAULT_DYNAMIC_SHARED)) {
          this.l.funcMaxDynamicShared(x.f, shared);
          this.sharedAllowed.set(x.f, shared);
        }
      }
      this.l.launch(x.f, grid, block, shared, x.shape.clustered ? [2, 1, 1] : [1, 1, 1], [...params, BigInt(x.n), BigInt(x.mode)]);
    });
    this.l.synchronize();
    this.l.copyFromDevice(bufs[0]!, this.ptrs[0]!);
    if (launches.some((x) => x.shape.returns)) this.l.copyFromDevice(bufs[3]!, this.ptrs[3]!);
  }
}

/** 128-byte tensor maps per launch that reads one (family.ts tensorMapGeometry), in device memory. */
export const TENSOR_MAP_BYTES = 128;

interface GenLaunch {
  readonly cubin: string;
  readonly first: number;
  readonly n: number;
  readonly index0: number;
  readonly sk: number;
  readonly t: LaneTable;
  readonly laneBits: number;
  readonly lanes: number;
  readonly width: number;
  /** Elements of fields 0, 1, 2 (0: absent). */
  readonly elements: readonly [number, number, number];
}

/** Whether level-3 operands are made on the device (false after one differed from the TypeScript fill). */
let deviceGen = process.env.PTXCONF_DEVICE_GEN !== '0';
/** Generated cases at each end of a job compared with the TypeScript fill when made on the device. */
const GEN_CHECK = 32;

let gpu: Gpu | undefined;
/** Milliseconds an init message spent starting the CUDA context, not yet counted in a batch's stage times. */
let startMs = 0;

interface Prepared {
  readonly job: GpuJob;
  readonly objects: readonly Case[];
  /** The job's packed given cases, in the slots after `objects`. */
  readonly packed?: PackedCases;
  readonly explicit: number;
  readonly n: number;
  readonly first: number;
  /** Slots per case (more than 1 in a wide job). */
  readonly spc: number;
  readonly genShape?: ReturnType<typeof randomShape>;
  /** A wide library job whose cases were written into the slots (fillGenerated: decodeWideCase), their objects reading them back lazily. */
  readonly wide?: true;
}

/** Runs a batch of jobs (each at most CHUNK cases) in one set of launches; one output per job. */
export function runBatch(jobs: readonly GpuJob[]): WorkerOut[] {
  const ts = performance.now();
  gpu ??= new Gpu();
  const t0 = performance.now();
  // the context's start: this batch's, or the one an init message made before (counted once, with the first batch)
  const start = t0 - ts + startMs;
  startMs = 0;
  const prepared: Prepared[] = [];
  let total = 0;
  // a wide library job (a bulk family's level-3 cases of caseBytes bytes): its cases' bits written straight into the slots
  // (fillGenerated), each case object reading its input back from them only when it is judged in full or kept
  let batchInputs: readonly Buffer[] = [];
  for (const job of jobs) {
    const wide = job.library && job.shape.caseBytes !== undefined && !job.cases.length && !job.packed;
    const objects = wide
      ? lazyWideCases(job.variant, job.seed, job.shape.caseBytes!, job.shape.width, total, () => batchInputs)
      : [...job.cases, ...(job.library ? libraryCases(job.variant, job.seed, job.shape.caseBytes) : [])];
    const packed = job.packed ? PackedCases.fromData(job.packed) : undefined;
    const n = objects.length + (packed?.n ?? 0) + job.generated;
    const spc = slotsPerCase(job.shape);
    if (spc > 1 && (packed || job.generated)) throw new Error(`a wide job (${job.kernel}) takes case objects only`);
    prepared.push({
      job,
      objects,
      ...(packed ? { packed } : {}),
      explicit: job.cases.length,
      n,
      first: total,
      spc,
      ...(job.generated || wide ? { genShape: randomShape(job.variant) } : {}),
      ...(wide ? { wide: true } : {}),
    });
    total += n * spc;
  }
  const inputs = [0, 1, 2].map(() => Buffer.alloc(total * SLOT));
  batchInputs = inputs;
  const returns = jobs.some((j) => j.shape.returns);
  const u32 = (b: Buffer) => new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
  const words = inputs.map(u32);
  const gens: GenLaunch[] = [];
  for (const p of prepared) {
    const { job, objects } = p;
    const fmt = elementFormat(job.variant.q.type ?? '');
    // a wide library job: its cases are the 16-byte level-3 cases laid end to end (generateCases' bulk cases), written as such
    if (p.wide)
      fillGenerated(
        words,
        p.first,
        (objects.length * job.shape.caseBytes!) / 16,
        p.genShape!,
        laneTable(fmt.lane),
        job.shape.width,
        fmt.lanes,
        job.seed,
        stringKey(job.variant.id),
        0,
      );
    else for (let i = 0; i < objects.length; i++) encodeCase(inputs, p.first + i * p.spc, job.shape.width, objects[i]!.input);
    if (p.packed) {
      // the slots as the readers made them (the same layout: element k at byte k * width / 8)
      const at = (p.first + objects.length) * SLOT_WORDS;
      const w = p.packed.n * SLOT_WORDS;
      words[0]!.set(p.packed.mem.subarray(0, w), at);
      words[1]!.set(p.packed.b.subarray(0, w), at);
      words[2]!.set(p.packed.c.subarray(0, w), at);
    }
    if (!job.generated) continue;
    const laneBits = job.shape.width / fmt.lanes;
    const t = laneTable(fmt.lane);
    if (deviceGen && job.genCubin && (laneBits === 16 || laneBits >= 32)) {
      const elements: [number, number, number] = [0, 0, 0];
      for (const f of p.genShape!.fields) elements[f.field] = f.elements;
      gens.push({
        cubin: job.genCubin,
        first: p.first + objects.length + (p.packed?.n ?? 0),
        n: job.generated,
        index0: job.generatedFrom,
        sk: seedKey(job.seed, stringKey(job.variant.id)),
        t,
        laneBits,
        lanes: fmt.lanes,
        width: job.shape.width,
        elements,
      });
    } else
      fillGenerated(
        words,
        p.first + objects.length + (p.packed?.n ?? 0),
        job.generated,
        p.genShape!,
        t,
        job.shape.width,
        fmt.lanes,
        job.seed,
        stringKey(job.variant.id),
        job.generatedFrom,
      );
  }
  // memory comes back over its buffer, so it travels in a copy; b and c go as they are
  const bufs = [Buffer.from(inputs[0]!), inputs[1]!, inputs[2]!, returns ? Buffer.alloc(total * SLOT, 0xa5) : Buffer.alloc(0)];
  const tb = performance.now();
  try {
    gpu.run(
      prepared.map((p) => ({ f: gpu!.fn(p.job.cubin, p.job.kernel), shape: p.job.shape, mode: p.job.mode, first: p.first, n: p.n })),
      bufs,
      total,
      gens,
      inputs,
    );
  } catch (err) {
    process.stderr.write(
      `CUDA_ERROR ${(err as { cuResult?: string }).cuResult ?? 'CUDA_ERROR_UNKNOWN'} ${jobs.map((j) => j.kernel).join(',')}: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(3);
  }
  const tc = performance.now();
  // the device's operands must be the generator's: the first and last cases of every job against the
  // TypeScript fill
  for (const g of gens) {
    const p = prepared.find((x) => x.first + x.objects.length + (x.packed?.n ?? 0) === g.first)!;
    const k = Math.min(GEN_CHECK, g.n);
    for (const from of [0, g.n - k]) {
      const want = [0, 1, 2].map(() => new Uint32Array(k * WORDS));
      fillGenerated(want, 0, k, p.genShape!, g.t, g.width, g.lanes, p.job.seed, stringKey(p.job.variant.id), g.index0 + from);
      for (let f = 0; f < 3; f++) {
        const got = words[f]!.subarray((g.first + from) * WORDS, (g.first + from + k) * WORDS);
        if (got.some((x, i) => x !== want[f]![i])) {
          deviceGen = false;
          process.stderr.write(`the device-made operands of ${p.job.variant.id} differ from the TypeScript generator; making them on the CPU from now on\n`);
          return runBatch(jobs);
        }
      }
    }
  }
  const share = (x: number, p: Prepared) => (x * p.n * p.spc) / Math.max(total, 1);
  return prepared.map((p) => {
    const tj = performance.now();
    const r = judgeJob(
      p,
      inputs,
      bufs,
      words.map((w) => w),
      u32(bufs[0]!),
      u32(bufs[3]!),
    );
    const made = gens.find((g) => g.first === p.first + p.objects.length + (p.packed?.n ?? 0))?.n ?? 0;
    return {
      ...r,
      deviceMade: made,
      ms: { start: p === prepared[0] ? start : 0, make: share(tb - t0, p), gpu: share(tc - tb, p), judge: performance.now() - tj },
    };
  });
}

/** The fast judge over a job's slots, the full judge for what it flags, the results worth keeping. */
function judgeJob(
  p: Prepared,
  inputs: readonly Buffer[],
  bufs: readonly Buffer[],
  inWords: readonly Uint32Array[],
  memOut: Uint32Array,
  ret: Uint32Array,
): Omit<WorkerOut, 'ms'> {
  const { job, objects, n, first, spc } = p;
  const v = job.variant;
  const shape = job.shape;
  const space = job.mode === 1 ? 'shared' : (v.q.space ?? v.q.dst ?? '').startsWith('shared') ? 'shared' : 'global';
  // a wide case (spc slots) is judged slot by slot: its family's operation is element by element
  // (GpuFamily.wide), so each slot is a one-slot case of the same variant; the case is flagged as
  // its worst slot (1 over 2 over 0)
  const checker = fastChecker(v, shape.elements / spc, space, shape.returns);
  const slotFlags = new Uint8Array(n * spc);
  const sub = (w: Uint32Array) => w.subarray(first * WORDS, (first + n * spc) * WORDS);
  if (checker)
    checker(
      { mem: sub(inWords[0]!), b: sub(inWords[1]!), c: sub(inWords[2]!), memOut: sub(memOut), ...(shape.returns ? { ret: sub(ret) } : {}), n: n * spc },
      slotFlags,
    );
  else slotFlags.fill(1);
  const flags = spc === 1 ? slotFlags : caseFlags(slotFlags, spc);
  const tally = new Tally();
  const count = (verdict: Verdict, k = 1) => tally.judged(v.family, verdict, k);
  const results: EntryResult[] = [];
  let passes = 0;
  let opens = 0; // observed: NaN lanes where the model allows any NaN (fast judge flag 2)
  const pk = p.packed;
  const po = objects.length;
  const pe = po + (pk?.n ?? 0);
  const ex = p.explicit;
  // given cases: slots [0, ex) and [po, pe); the first `keepFirst` of them (in that order) kept whole
  const kf = job.keepFirst ?? (job.keepGiven === false ? 0 : pe);
  // the slot past the last given case kept whole
  const wholeEnd = kf <= ex ? Math.max(0, kf) : po + Math.min(kf - ex, pe - po);
  const one = (i: number, f: number) => {
    const obj = i < po ? objects[i] : i < pe ? unpack(pk!, i - po) : undefined;
    // a given case (from a file or --case) is judged in full and kept whole (allowed set, expect,
    // agreement) while it is one of the first keepFirst; past them, only a result that is not a
    // plain pass is kept: what the fast judge decides is counted (a pass, or `observed`: NaN lanes
    // where the model allows any NaN, every other lane its one outcome), a flagged case judged in full
    const given = i < ex || (i >= po && i < pe);
    const whole = given && i < wholeEnd;
    if (given && !whole && f !== 1) {
      if (f === 2) opens++;
      else passes++;
      return;
    }
    const probe = obj !== undefined && obj.id.includes('/probe:');
    if (f !== 1 && !given && !keepCase(v.q, probe, f === 2 ? 'observed' : 'pass', i, job.seed)) {
      if (f === 2) opens++;
      else passes++;
      return;
    }
    const slot = first + i * spc;
    const genIndex = job.generatedFrom + i - pe;
    const input: ReferenceCase = obj
      ? obj.input
      : { ...decodeCase(inputs, slot, shape.width, p.genShape!), ...(job.mode === 1 ? { space: 'shared' as const } : {}) };
    const observed = {
      memory: readSlot(bufs[0]!, slot, shape.width, shape.elements),
      ...(shape.returns ? { returned: readSlot(bufs[3]!, slot, shape.width, shape.elements) } : {}),
    };
    const verdict = f || given ? judge('', v, input, observed) : { verdict: 'pass' as const, reason: 'the one outcome the spec allows', unspecified: [] };
    count(verdict.verdict);
    if (whole || (given ? verdict.verdict !== 'pass' : keepCase(v.q, probe, verdict.verdict, i, job.seed))) {
      const c: Case = obj ?? {
        id: `${v.id}/gen:seed=${job.seed}:level=3:i=${genIndex}`,
        variant: v,
        input,
        origin: { kind: 'gen', seed: job.seed, level: 3, index: genIndex },
      };
      // enriched here (rule trail, allowed sets, explanation, NaN behaviour: compare.ts), on the
      // workers in parallel, not on the run's thread, which records every worker's results
      results.push(enrichResult(caseResult(c, verdict, observed, { modulePtx: job.modulePtx, sass: job.sass })));
    }
  };
  // the given cases kept whole, the library cases and the sampled window case by case; past them
  // only flags matter (a given case there is not kept whole: only what the fast judge flags is judged)
  const tail = Math.min(n, Math.max(wholeEnd, po, SAMPLE_WINDOW));
  for (let i = 0; i < tail; i++) one(i, flags[i]!);
  for (let i = tail; i < n; i++) {
    const f = flags[i]!;
    if (f === 0) passes++;
    else if (f === 2) opens++;
    else one(i, f);
  }
  if (passes) count('pass', passes);
  if (opens) count('observed', opens);
  return { id: job.id, totals: tally.stats(), results, cases: n, fast: passes + opens };
}

/** Per case of `spc` slots, its worst slot flag: 1 (full judge) over 2 (observed NaN) over 0 (pass). */
export function caseFlags(slotFlags: Uint8Array, spc: number): Uint8Array {
  const out = new Uint8Array(slotFlags.length / spc);
  for (let i = 0; i < out.length; i++) {
    let f = 0;
    for (let k = i * spc; k < (i + 1) * spc && f !== 1; k++) {
      if (slotFlags[k] === 1) f = 1;
      else if (slotFlags[k] === 2) f = 2;
    }
    out[i] = f;
  }
  return out;
}

/** What the parent sends a worker: a batch of jobs, a sweep's reference cells to compute, start the CUDA context (init), or exit. */
export type WorkerMessage =
  | { type: 'jobs'; jobs: GpuJob[] }
  | SweepRefRequest
  | { type: 'init' }
  | { type: 'exit' }
  /** The library's sampled level-1/2 inputs, made once by the run's thread (library.ts librarySamples); no answer. */
  | { type: 'samples'; entries: [string, readonly ReferenceCase[]][] };

if (process.argv[1] && /worker\.(m?js|ts)$/.test(process.argv[1]) && process.send) {
  registerAllFamilies(); // a program of its own: the core asks harness/registry/
  // PTXCONF_WORKER_PROFILE=DIR: each worker writes a CPU profile of its life there (worker-<pid>.cpuprofile), for the per-worker
  // stage profile of issue 43 (NODE_OPTIONS may not carry --cpu-prof)
  const profile = process.env.PTXCONF_WORKER_PROFILE ? startProfile(process.env.PTXCONF_WORKER_PROFILE) : undefined;
  process.on('message', (m: WorkerMessage) => {
    if (m.type === 'exit') {
      if (profile) profile(() => process.exit(0));
      else process.exit(0);
      return;
    }
    if (m.type === 'init') {
      // the CUDA context now, before the first job comes (WorkerPool.warm); no answer
      const t = performance.now();
      try {
        gpu ??= new Gpu();
        startMs += performance.now() - t;
      } catch {
        // the first job meets the same failure and reports it
      }
      return;
    }
    if (m.type === 'samples') {
      preloadSamples(m.entries);
      return;
    }
    if (m.type === 'sweep-ref') {
      process.send!({ type: 'done', outs: [], cells: referenceCells(m) });
      return;
    }
    const outs = runBatch(m.jobs);
    process.send!({ type: 'done', outs });
  });
  process.send({ type: 'ready' });
}

/** Starts the V8 CPU profiler in this process; the function returned stops it, writes DIR/worker-<pid>.cpuprofile, then calls `done`. */
function startProfile(dir: string): (done: () => void) => void {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  return (done) =>
    session.post('Profiler.stop', (err, r) => {
      if (!err) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `worker-${process.pid}.cpuprofile`), JSON.stringify(r.profile));
      }
      done();
    });
}
