/**
 * A GPU worker process: generates the cases of a range of planned variants, runs them and judges
 * them with the reference model itself, so that judging (the slow part: ~25k cases/s per core)
 * spreads over the host's cores. It returns totals per family and verdict and the results worth
 * keeping. A launch that fails ends the worker with the CUDA error; the parent then runs that range
 * through the isolating path. Usage: node worker.mjs JOB.json OUT.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { EntryResult } from '../../report/types.js';
import { casesFor, keepCase, resultFor } from './cases.js';
import { openModule } from './driver.js';
import { BLOCK, SLOT } from './emit.js';
import { readSlot as get, writeSlot as put } from './slots.js';
import { judge } from './observations.js';
import { gpuPlans } from './plan.js';

export interface WorkerJob {
  readonly cubin: string;
  readonly arch: string;
  readonly ptx: string;
  readonly plans: readonly number[];
  readonly seed: number;
  readonly generated: number;
  readonly sass: Readonly<Record<string, string>>;
}

export interface WorkerOut {
  readonly totals: Record<string, number>;
  readonly results: EntryResult[];
  readonly cases: number;
}

export function runWorker(job: WorkerJob): WorkerOut {
  const { launcher: l, module: mod } = openModule(readFileSync(job.cubin));
  const { plans } = gpuPlans(job.arch, job.ptx);
  const totals: Record<string, number> = {};
  const results: EntryResult[] = [];
  let count = 0;
  for (const pi of job.plans) {
    const p = plans[pi]!;
    const e = p.entry;
    const cases = casesFor(p, job.seed, job.generated);
    const n = cases.length;
    const bufs = [Buffer.alloc(n * SLOT), Buffer.alloc(n * SLOT), Buffer.alloc(n * SLOT), Buffer.alloc(n * SLOT, 0xa5)];
    cases.forEach((c, i) => {
      put(bufs[0]!, i, p.width, c.input.memory!);
      put(bufs[1]!, i, p.width, (c.input.b ?? c.input.source)!);
      if (c.input.c) put(bufs[2]!, i, p.width, c.input.c);
    });
    const clustered = e.family === 'cp.reduce.async.bulk' && e.q.dst === 'shared::cluster';
    try {
      const ptrs = bufs.map((b) => l.memAlloc(b.length));
      ptrs.forEach((q, k) => l.copyToDevice(q, bufs[k]!));
      const blocks = Math.ceil(n / BLOCK);
      l.launch(l.getFunction(mod, p.name), [clustered ? blocks + (blocks % 2) : blocks, 1, 1], [Math.min(n, BLOCK), 1, 1], 0, clustered ? [2, 1, 1] : [1, 1, 1], [...ptrs, BigInt(n)]);
      l.synchronize();
      l.copyFromDevice(bufs[0]!, ptrs[0]!);
      l.copyFromDevice(bufs[3]!, ptrs[3]!);
      for (const q of ptrs) l.memFree(q);
    } catch (err) {
      process.stderr.write(`CUDA_ERROR ${(err as { cuResult?: string }).cuResult ?? 'CUDA_ERROR_UNKNOWN'} ${p.name}\n`);
      process.exit(3);
    }
    const returns = e.family === 'atom' && (e.q.d ?? '') !== '_';
    cases.forEach((c, j) => {
      count++;
      const observed = { memory: get(bufs[0]!, j, p.width, p.lanes), ...(returns ? { returned: get(bufs[3]!, j, p.width, p.lanes) } : {}) };
      const v = judge(c.id, { family: e.family, q: e.q }, c.input, observed);
      totals[`${e.family}.${v.verdict}`] = (totals[`${e.family}.${v.verdict}`] ?? 0) + 1;
      if (keepCase(e, c.id, v.verdict, j, job.seed)) results.push(resultFor(p, c, v, observed, job.ptx, job.sass[p.name] ?? 'no SASS evidence (cuobjdump missing)'));
    });
  }
  l.unloadModule(mod);
  return { totals, results, cases: count };
}

if (process.argv[1] && /worker\.(m?js|ts)$/.test(process.argv[1])) {
  const [jobPath, outPath] = process.argv.slice(2);
  const out = runWorker(JSON.parse(readFileSync(jobPath!, 'utf8')) as WorkerJob);
  writeFileSync(outPath!, JSON.stringify(out));
}
