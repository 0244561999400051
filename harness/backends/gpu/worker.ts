/**
 * A long-lived gpu worker process: one CUDA context for the whole run, cubins loaded once, jobs
 * over the IPC channel. A job is one variant's cases: cases given by the parent (vector files,
 * --case), the variant's probes and level-1/2 cases, and `generated` level-3 cases written straight
 * into typed arrays. The worker launches them in chunks, runs the fast judge over every case, sends
 * the cases it flags through the full reference judge, and returns verdict totals and the results
 * worth keeping. A CUDA error poisons the context: the worker reports it on stderr as
 * `CUDA_ERROR <name> <kernel>` and exits with code 3; the parent isolates that job.
 */
import { readFileSync } from 'node:fs';
import { generateCases, randomShape } from '../../../cases/generators/cases.js';
import { directedCases } from '../../../cases/generators/directed.js';
import { laneTable, stringKey } from '../../../cases/generators/random.js';
import type { Case, CaseVariant } from '../../cases/types.js';
import { elementFormat } from '../../numerics/formats.js';
import { fastChecker } from '../../reference/fast.js';
import type { ReferenceCase } from '../../reference/model.js';
import type { EntryResult } from '../../report/types.js';
import { type Launcher, loadLauncher } from './driver.js';
import { BLOCK, type KernelShape, SLOT } from './family.js';
import { WORDS, decodeCase, encodeCase, fillGenerated, readSlot } from './batch.js';
import { caseResult, keepCase } from './results.js';
import { judge } from './observations.js';

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
  /** Cases from files or --case: always judged in full and kept. */
  readonly cases: readonly Case[];
  /** Whether to add the variant's directed probes and 8 level-1 and 8 level-2 cases. */
  readonly library: boolean;
  /** Level-3 generated cases from index `generatedFrom`. */
  readonly generated: number;
  readonly generatedFrom: number;
  readonly seed: number;
}

export interface WorkerOut {
  readonly id: number;
  readonly totals: Record<string, number>;
  readonly results: EntryResult[];
  readonly cases: number;
  /** Milliseconds per stage: making cases, on the GPU (copies, launch, sync), judging. */
  readonly ms: { make: number; gpu: number; judge: number };
  /** Cases the fast judge passed without the full reference. */
  readonly fast: number;
}

/** Cases per launch at most (buffers of 16 MiB each). */
export const CHUNK = 1 << 20;

/** The variant's library cases: directed probes, 8 level-1 and 8 level-2 generated cases. */
export function libraryCases(v: CaseVariant, seed: number): Case[] {
  const big = (xs: unknown) => (xs as string[]).map((x) => BigInt(x));
  const probes: Case[] = directedCases(v).map((c) => {
    const ops = c.fields.operands as { b?: string[]; c?: string[] } | undefined;
    return {
      id: `${v.id}/probe:${c.name}`,
      variant: v,
      input: { memory: big(c.fields.memory), ...(ops?.b ? { b: big(ops.b) } : {}), ...(ops?.c ? { c: big(ops.c) } : {}), ...(c.fields.source ? { source: big(c.fields.source) } : {}) },
      origin: { kind: 'gen', seed: 0, level: 0, index: 0 },
    } as Case;
  });
  return [...probes, ...generateCases(v, seed, 1, 8), ...generateCases(v, seed, 2, 8)];
}

class Gpu {
  private readonly l: Launcher;
  private readonly modules = new Map<string, bigint>();
  private readonly fns = new Map<string, bigint>();
  private ptrs: bigint[] = [];
  private capacity = 0;

  constructor() {
    const loaded = loadLauncher();
    if (!('launcher' in loaded)) throw new Error(loaded.reason);
    this.l = loaded.launcher;
    this.l.init();
    this.l.useDevice(0);
  }

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

  /** Runs n cases: copies buffers 0-3 in, launches, copies memory and returned back into bufs. */
  run(f: bigint, shape: KernelShape, mode: number, bufs: readonly Buffer[], n: number, returns: boolean): void {
    if (n > this.capacity) {
      for (const p of this.ptrs) this.l.memFree(p);
      this.capacity = Math.max(n, 4096);
      this.ptrs = [0, 1, 2, 3].map(() => this.l.memAlloc(this.capacity * SLOT));
    }
    for (let k = 0; k < 4; k++) this.l.copyToDevice(this.ptrs[k]!, bufs[k]!);
    const blocks = Math.ceil(n / BLOCK);
    this.l.launch(f, [shape.clustered ? blocks + (blocks % 2) : blocks, 1, 1], [Math.min(n, BLOCK), 1, 1], 0, shape.clustered ? [2, 1, 1] : [1, 1, 1], [...this.ptrs, BigInt(n), BigInt(mode)]);
    this.l.synchronize();
    this.l.copyFromDevice(bufs[0]!, this.ptrs[0]!);
    if (returns) this.l.copyFromDevice(bufs[3]!, this.ptrs[3]!);
  }
}

let gpu: Gpu | undefined;

export function runJob(job: GpuJob): WorkerOut {
  gpu ??= new Gpu();
  const t0 = performance.now();
  const ms = { make: 0, gpu: 0, judge: 0 };
  const v = job.variant;
  const shape = job.shape;
  const fmt = elementFormat(v.q.type ?? '');
  const explicit = job.cases;
  const library = job.library ? libraryCases(v, job.seed) : [];
  const objects = [...explicit, ...library];
  const total = objects.length + job.generated;
  const genShape = job.generated ? randomShape(v) : undefined;
  const t = laneTable(fmt.lane);
  const vkey = stringKey(v.id);
  const space = job.mode === 1 ? 'shared' : ((v.q.space ?? v.q.dst ?? '').startsWith('shared') ? 'shared' : 'global');
  const checker = fastChecker(v, shape.elements, space, shape.returns);
  const f = gpu.fn(job.cubin, job.kernel);
  const totals: Record<string, number> = {};
  const results: EntryResult[] = [];
  let fast = 0;
  ms.make += performance.now() - t0;
  for (let start = 0; start < total; start += CHUNK) {
    const ta = performance.now();
    const n = Math.min(CHUNK, total - start);
    const bufs = [Buffer.alloc(n * SLOT), Buffer.alloc(n * SLOT), Buffer.alloc(n * SLOT), Buffer.alloc(n * SLOT, 0xa5)];
    const inputs = bufs.map((b) => Buffer.from(b)); // the inputs as they went in (memory is overwritten)
    const words = inputs.map((b) => new Uint32Array(b.buffer, b.byteOffset, b.length / 4));
    const objEnd = Math.max(0, Math.min(n, objects.length - start));
    for (let i = 0; i < objEnd; i++) encodeCase(inputs, i, shape.width, objects[start + i]!.input);
    if (n > objEnd) fillGenerated(words, objEnd, n - objEnd, genShape!, t, shape.width, fmt.lanes, job.seed, vkey, job.generatedFrom + start + objEnd - objects.length);
    for (let k = 0; k < 3; k++) inputs[k]!.copy(bufs[k]!);
    const tb = performance.now();
    ms.make += tb - ta;
    try {
      gpu.run(f, shape, job.mode, bufs, n, shape.returns);
    } catch (err) {
      process.stderr.write(`CUDA_ERROR ${(err as { cuResult?: string }).cuResult ?? 'CUDA_ERROR_UNKNOWN'} ${job.kernel}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(3);
    }
    const tc = performance.now();
    ms.gpu += tc - tb;
    const flags = new Uint8Array(n);
    if (checker) {
      const w = (b: Buffer) => new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
      checker({ mem: words[0]!, b: words[1]!, c: words[2]!, memOut: w(bufs[0]!), ...(shape.returns ? { ret: w(bufs[3]!) } : {}), n }, flags);
    } else flags.fill(1);
    const count = (verdict: string, k = 1) => (totals[`${v.family}.${verdict}`] = (totals[`${v.family}.${verdict}`] ?? 0) + k);
    let passes = 0;
    for (let i = 0; i < n; i++) {
      const j = start + i;
      const obj = j < objects.length ? objects[j] : undefined;
      const isFile = obj !== undefined && j < explicit.length;
      const probe = obj !== undefined && obj.id.includes('/probe:');
      if (!flags[i] && !isFile && !keepCase(v.q, probe, 'pass', j, job.seed)) {
        passes++;
        continue;
      }
      const input: ReferenceCase = obj ? obj.input : { ...decodeCase(inputs, i, shape.width, genShape!), ...(job.mode === 1 ? { space: 'shared' as const } : {}) };
      const observed = { memory: readSlot(bufs[0]!, i, shape.width, shape.elements), ...(shape.returns ? { returned: readSlot(bufs[3]!, i, shape.width, shape.elements) } : {}) };
      const verdict = flags[i] || isFile ? judge('', v, input, observed) : { verdict: 'pass' as const, reason: 'the one outcome the spec allows', unspecified: [] };
      count(verdict.verdict);
      if (isFile || keepCase(v.q, probe, verdict.verdict, j, job.seed)) {
        const c: Case = obj ?? { id: `${v.id}/gen:seed=${job.seed}:level=3:i=${job.generatedFrom + j - objects.length}`, variant: v, input, origin: { kind: 'gen', seed: job.seed, level: 3, index: job.generatedFrom + j - objects.length } };
        results.push(caseResult(c, verdict, observed, { modulePtx: job.modulePtx, sass: job.sass, full: isFile }));
      }
    }
    fast += passes;
    count('pass', passes);
    if (!totals[`${v.family}.pass`]) delete totals[`${v.family}.pass`];
    ms.judge += performance.now() - tc;
  }
  return { id: job.id, totals, results, cases: total, ms, fast };
}

if (process.argv[1] && /worker\.(m?js|ts)$/.test(process.argv[1]) && process.send) {
  process.on('message', (m: { type: 'job'; job: GpuJob } | { type: 'exit' }) => {
    if (m.type === 'exit') process.exit(0);
    const out = runJob(m.job);
    process.send!({ type: 'done', out });
  });
  process.send({ type: 'ready' });
}
