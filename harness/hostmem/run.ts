/**
 * Runs the host-memory jobs on the GPU: per job, the word under test (in one kind of host memory)
 * set to the job's initial value, the CPU workers started (native/src/hostmem.cc: they and the
 * kernel's threads wait on one `go` word), the kernel launched, the workers joined, the kernel
 * synchronised; the final word, the returned values and the overlap counts judged (judge.ts).
 * Single-thread float cases run the same way with no CPU worker, on host and on device memory, and
 * are judged by the reference model.
 */
import { openModule } from '../backends/gpu/cache.js';
import type { Launcher } from '../backends/gpu/driver.js';
import { gpuPlan } from '../backends/gpu/plan.js';
import type { CatalogEntry } from '../catalog/enumerate.js';
import { reference } from '../reference/model.js';
import { compileFilter } from '../util/filter.js';
import { type HostJob, type HostJudgement, type HostObservation, type MemoryKind, MEMORY_KINDS, judgeHost } from './judge.js';
import { hostmemKernelName, hostmemModule, kernelKey } from './kernel.js';
import { type PlannedJob, type SingleCase, hostmemPlan, neededIds, singleCases } from './plan.js';
import { hexBits } from '../numerics/hex.js';
import { familyPlugin } from '../registry/index.js';

/** The addon's host-memory calls (native/src/hostmem.cc), beside the launcher's. */
export interface HostAddon extends Launcher {
  hostmemInfo(ordinal: number): { attributes: Record<string, number | null>; hostAtomicCapabilities: number[] | null; capabilitiesError?: string };
  hostmemAlloc(kind: number, bytes: number): [bigint, bigint];
  hostmemFree(kind: number, host: bigint): void;
  hostmemRead(host: bigint, bytes: number): Buffer;
  hostmemWrite(host: bigint, b: Buffer): void;
  hostmemAddressOf(b: Buffer): bigint;
  hostmemCpuStart(c: CpuConfig): bigint;
  hostmemCpuJoin(h: bigint): { returned: Buffer; successes: number; sawGpuMid: number; startTimedOut: boolean; arrivedAtGo: number; cpuNs: number };
}

export interface CpuConfig {
  data: bigint;
  ctrl: bigint;
  threads: number;
  iters: number;
  width: number;
  op: number;
  mode: number;
  fmt: number;
  signed: number;
  unit: bigint;
  stride: bigint;
  offset: bigint;
  gpuArrivals: number;
  gpuIters: number;
}

export const KIND_CODE: Record<MemoryKind, number> = { hostalloc: 0, registered: 1, managed: 2 };
const OP_CODE = { add: 0, fadd: 0, inc: 0, dec: 1, cas: 8, min: 2, max: 3, or: 4, and: 5, xor: 6, exch: 7 } as const;
const FMT_CODE: Record<string, number> = { f32: 1, f64: 2, f16: 3, bf16: 4 };

/** The CPU workers' configuration of a job (the same operands judge.ts expects). */
export function cpuConfig(job: HostJob, data: bigint, ctrl: bigint): CpuConfig {
  return {
    data,
    ctrl,
    threads: job.cpu.threads,
    iters: job.cpu.iters,
    width: job.width,
    op: OP_CODE[job.cls],
    mode: job.cpuMode === 'plain' ? 1 : 0,
    fmt: FMT_CODE[job.type] ?? 0,
    signed: job.signed ? 1 : 0,
    unit: job.cpu.unit,
    stride: job.cls === 'exch' ? job.cpu.offset : job.stride,
    offset: job.cls === 'exch' ? 0n : job.cpu.offset,
    gpuArrivals: job.gpu.threads,
    gpuIters: job.gpu.iters,
  };
}

export interface JobResult {
  readonly job: HostJob;
  readonly obs?: HostObservation;
  readonly judgement?: HostJudgement;
  readonly skip?: string;
  readonly error?: string;
  readonly cpuNs?: number;
}

export interface SingleResult {
  readonly c: SingleCase;
  readonly final?: bigint;
  readonly returned?: bigint;
  readonly allowed?: { bits: bigint[]; anyNaN: boolean };
  readonly verdict: 'pass' | 'mismatch' | 'skipped' | 'error';
  readonly reason: string;
}

const readWord = (b: Buffer, w: number, at = 0) => (w === 16 ? BigInt(b.readUInt16LE(at)) : w === 32 ? BigInt(b.readUInt32LE(at)) : b.readBigUInt64LE(at));
function wordBuf(x: bigint, w: number): Buffer {
  const b = Buffer.alloc(8);
  if (w === 16) b.writeUInt16LE(Number(x));
  else if (w === 32) b.writeUInt32LE(Number(x));
  else b.writeBigUInt64LE(x);
  return b;
}

/** The single-thread judgement: the reference model's allowed set for the operation on global memory. */
export function judgeSingle(
  c: SingleCase,
  entry: CatalogEntry,
  final: bigint,
): { verdict: 'pass' | 'mismatch'; allowed: { bits: bigint[]; anyNaN: boolean }; reason: string } {
  const out = reference({ family: entry.family, q: entry.q }, { memory: [c.init], b: [c.b], source: [c.b] });
  const a = out.memory?.[0]?.[0];
  if (!a) throw new Error(`${c.id}: the model gives no memory outcome`);
  const ok = a.bits.includes(final);
  const w = c.type.endsWith('16') ? 16 : c.type.endsWith('32') ? 32 : 64;
  const h = (x: bigint) => hexBits(w, x);
  return {
    verdict: ok ? 'pass' : 'mismatch',
    allowed: { bits: [...a.bits], anyNaN: a.anyNaN },
    reason: `${c.what} on ${c.memory} memory: ${h(c.init)} + ${h(c.b)} = ${h(final)}; the model (global memory) allows ${a.bits.map(h).join(', ')}`,
  };
}

export interface HostmemRun {
  readonly jobs: JobResult[];
  readonly singles: SingleResult[];
  readonly info: ReturnType<HostAddon['hostmemInfo']>;
  readonly seconds: { compile: number; run: number };
}

export function planFor(
  arch: string,
  ptx: string,
  filter?: string,
  kinds: readonly MemoryKind[] = MEMORY_KINDS,
): { jobs: PlannedJob[]; singles: { c: SingleCase; entry?: CatalogEntry }[] } {
  const plan = gpuPlan(arch, ptx, neededIds().join(','));
  const lookup = (id: string) => plan.byId.get(id)?.entry;
  const keep = filter ? compileFilter(filter) : () => true;
  return {
    jobs: hostmemPlan(lookup, keep, kinds),
    singles: singleCases(keep)
      .filter((c) => c.memory === 'device' || kinds.includes(c.memory))
      .map((c) => ({ c, ...(lookup(c.variant) ? { entry: lookup(c.variant)! } : {}) })),
  };
}

export async function runHostmem(opts: {
  arch: string;
  ptx: string;
  ptxas: { path: string; versionLine: string };
  cacheDir: string;
  filter?: string;
  kinds?: readonly MemoryKind[];
  onProgress?: (m: string) => void;
}): Promise<HostmemRun> {
  const kinds = opts.kinds ?? MEMORY_KINDS;
  const { jobs, singles } = planFor(opts.arch, opts.ptx, opts.filter, kinds);
  const kernels = [
    ...jobs.filter((j) => !j.skip).map((j) => ({ cls: j.job.cls, entry: j.entry!, ...(j.partnerEntry ? { partner: j.partnerEntry } : {}) })),
    ...singles.filter((s) => s.entry).map((s) => ({ cls: 'single' as const, entry: s.entry! })),
  ];
  const text = hostmemModule(opts.arch, opts.ptx, kernels);
  const { l: launcher, m, compileSeconds } = await openModule(text, { ptxas: opts.ptxas, arch: opts.arch, cacheDir: opts.cacheDir });
  const l = launcher as HostAddon;
  if (typeof l.hostmemAlloc !== 'function')
    throw new Error('this cuda_launcher.node has no host-memory calls (built before native/src/hostmem.cc): run npm rebuild');
  const t0 = performance.now();
  const info = l.hostmemInfo(0);
  // the CPU may touch managed memory while a kernel runs only where the device says so (attribute 89)
  const managedConcurrent = info.attributes['89'] === 1;
  let timeouts = 0;
  const [ctrlHost, ctrlDev] = l.hostmemAlloc(KIND_CODE.hostalloc, 4096);
  const words = new Map<MemoryKind, [bigint, bigint]>();
  for (const k of kinds) words.set(k, l.hostmemAlloc(KIND_CODE[k], 4096));
  const maxOps = Math.max(1, ...jobs.map((j) => j.job.gpu.threads * j.job.gpu.iters));
  const outBytes = 64 + maxOps * 8;
  const out = l.memAlloc(outBytes);
  const dev = l.memAlloc(4096);
  const zeros = Buffer.alloc(outBytes);
  const results: JobResult[] = [];
  const singleResults: SingleResult[] = [];
  const fn = new Map<string, bigint>();
  const fnOf = (key: string) => {
    let f = fn.get(key);
    if (f === undefined) fn.set(key, (f = l.getFunction(m, hostmemKernelName(key))));
    return f;
  };
  const launchOne = (f: bigint, blocks: number, threads: number, data: bigint, iters: number, cpuTotal: number, unit: bigint, stride: bigint, off: bigint) =>
    l.launch(f, [blocks, 1, 1], [threads / blocks, 1, 1], 0, [1, 1, 1], [data, ctrlDev, out, BigInt(iters), BigInt(cpuTotal), unit, stride, off]);
  try {
    for (const p of jobs) {
      const job = p.job;
      if (p.skip || (job.memory === 'managed' && !managedConcurrent) || timeouts >= 3) {
        results.push({
          job,
          skip:
            p.skip ??
            (timeouts >= 3
              ? 'three jobs in a row started without every GPU thread (the start flag did not reach both sides): the rest is not run'
              : 'the device has no concurrent managed access (CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS 0): the CPU may not touch managed memory while a kernel runs'),
        });
        continue;
      }
      const [host, devPtr] = words.get(job.memory)!;
      try {
        l.hostmemWrite(host, wordBuf(job.init, job.width));
        l.hostmemWrite(ctrlHost, Buffer.alloc(256));
        l.copyToDevice(out, zeros);
        const f = fnOf(kernelKey(job.cls, p.entry!, p.partnerEntry));
        const h = l.hostmemCpuStart(cpuConfig(job, host, ctrlHost));
        let launchError: unknown;
        try {
          launchOne(f, job.gpu.blocks, job.gpu.threads, devPtr, job.gpu.iters, job.cpu.threads * job.cpu.iters, job.gpu.unit, job.stride, job.gpu.offset);
        } catch (e) {
          launchError = e;
        }
        const cpu = l.hostmemCpuJoin(h);
        if (launchError) throw launchError;
        l.synchronize();
        const final = readWord(l.hostmemRead(host, 8), job.width);
        const ob = Buffer.alloc(outBytes);
        l.copyFromDevice(ob, out);
        const nG = job.gpu.threads * job.gpu.iters;
        const obs: HostObservation = {
          final,
          ...(job.cls === 'exch'
            ? {
                gpuReturned: Array.from({ length: nG }, (_, i) => readWord(ob, job.width, 64 + i * 8)),
                cpuReturned: Array.from({ length: job.cpu.threads * job.cpu.iters }, (_, i) => cpu.returned.readBigUInt64LE(i * 8)),
              }
            : {}),
          ...(job.cls === 'cas' ? { gpuSuccesses: Number(ob.readBigUInt64LE(8)), cpuSuccesses: cpu.successes } : {}),
          gpuSawCpuMid: ob.readUInt32LE(0),
          cpuSawGpuMid: cpu.sawGpuMid,
          startTimedOut: cpu.startTimedOut,
          spinTimeouts: ob.readUInt32LE(4),
        };
        timeouts = obs.startTimedOut || obs.spinTimeouts ? timeouts + 1 : 0;
        const judgement = judgeHost(job, obs);
        results.push({ job, obs, judgement, cpuNs: cpu.cpuNs });
        if (judgement.verdict === 'mismatch') opts.onProgress?.(`hostmem ${job.id}: MISMATCH: ${judgement.reason}`.slice(0, 400));
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        results.push({ job, error: msg });
        opts.onProgress?.(`hostmem ${job.id}: error: ${msg}`);
        if (/ILLEGAL|LAUNCH_FAILED|MISALIGNED|UNKNOWN/.test(msg)) break; // the context is gone
      }
    }
    for (const s of singles) {
      const c = s.c;
      if (!s.entry || (c.memory === 'managed' && !managedConcurrent)) {
        singleResults.push({ c, verdict: 'skipped', reason: `${c.variant} is not runnable here` });
        continue;
      }
      const w = c.type.endsWith('16') ? 16 : c.type.endsWith('32') ? 32 : 64;
      try {
        const [host, devPtr] = c.memory === 'device' ? [0n, dev] : words.get(c.memory)!;
        if (c.memory === 'device') l.copyToDevice(dev, wordBuf(c.init, w));
        else l.hostmemWrite(host, wordBuf(c.init, w));
        l.hostmemWrite(ctrlHost, Buffer.alloc(256));
        l.copyToDevice(out, zeros);
        const h = l.hostmemCpuStart({
          data: host || ctrlHost,
          ctrl: ctrlHost,
          threads: 0,
          iters: 0,
          width: 32,
          op: 0,
          mode: 0,
          fmt: 0,
          signed: 0,
          unit: 0n,
          stride: 0n,
          offset: 0n,
          gpuArrivals: 1,
          gpuIters: 1,
        });
        launchOne(fnOf(kernelKey('single', s.entry)), 1, 1, devPtr, 1, 0, c.b, 0n, 0n);
        l.hostmemCpuJoin(h);
        l.synchronize();
        let final: bigint;
        if (c.memory === 'device') {
          const b = Buffer.alloc(8);
          l.copyFromDevice(b, dev);
          final = readWord(b, w);
        } else final = readWord(l.hostmemRead(host, 8), w);
        const ob = Buffer.alloc(72);
        l.copyFromDevice(ob, out);
        const j = judgeSingle(c, s.entry, final);
        const returns = familyPlugin(s.entry.family).shape.returns(s.entry.q);
        singleResults.push({ c, final, ...(returns ? { returned: readWord(ob, w, 64) } : {}), allowed: j.allowed, verdict: j.verdict, reason: j.reason });
      } catch (e) {
        singleResults.push({ c, verdict: 'error', reason: e instanceof Error ? e.message : String(e) });
      }
    }
  } finally {
    l.memFree(out);
    l.memFree(dev);
    for (const [k, [host]] of words) l.hostmemFree(KIND_CODE[k], host);
    l.hostmemFree(KIND_CODE.hostalloc, ctrlHost);
    l.unloadModule(m);
  }
  return { jobs: results, singles: singleResults, info, seconds: { compile: compileSeconds, run: (performance.now() - t0) / 1000 } };
}
