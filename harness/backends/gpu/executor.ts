/**
 * The child side of GPU fault isolation: runs the launches of one job file and writes what each
 * case's slots held afterwards. A CUDA error (illegal address, trap, ...) poisons the context, so the
 * child reports it on stderr as `CUDA_ERROR <name> <kernel>` and exits with code 3; the parent
 * (isolate.ts) splits the job until the culprit is alone. Usage: node executor.mjs JOB.json OUT.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { openModule } from './driver.js';
import { SLOT, encodeTensorMap } from './family.js';
import { DEFAULT_DYNAMIC_SHARED, launchShape, readSlot, writeSlot } from './batch.js';
import { hexBits } from '../../numerics/hex.js';

export interface LaunchJob {
  readonly kernel: string;
  /** Bytes per element lane and lanes per case slot. */
  readonly width: number;
  readonly lanes: number;
  readonly clustered: boolean;
  /** The kernel reads a tensor map over the launch's memory slots (family.ts KernelShape.tensorMap). */
  readonly tensorMap?: { readonly dataType: number; readonly rank: number; readonly im2col?: boolean };
  /** A wide kernel's cases (family.ts KernelShape): bytes per case and the per-CTA launch. */
  readonly caseBytes?: number;
  readonly perCta?: { readonly threads: number; readonly sharedBytes: number };
  /** 1: a generic-addressing kernel lands in shared memory. */
  readonly mode?: 0 | 1;
  /** Per case: memory, b, c lanes as hex strings (c may be empty). */
  readonly cases: readonly { memory: string[]; b: string[]; c?: string[] }[];
}

export interface JobFile {
  readonly cubin: string;
  readonly launches: readonly LaunchJob[];
}

export interface LaunchResult {
  readonly memory: string[][];
  readonly returned: string[][];
}

const put = (buf: Buffer, slot: number, width: number, vals: readonly string[]) =>
  writeSlot(
    buf,
    slot,
    width,
    vals.map((h) => BigInt(h)),
  );
const get = (buf: Buffer, slot: number, width: number, lanes: number) => readSlot(buf, slot, width, lanes).map((v) => hexBits(width, v));

export function executeJob(job: JobFile): LaunchResult[] {
  const { launcher: l, module: mod } = openModule(readFileSync(job.cubin));
  const out: LaunchResult[] = [];
  for (const j of job.launches) {
    const n = j.cases.length;
    const spc = (j.caseBytes ?? SLOT) / SLOT;
    const bufs = [Buffer.alloc(n * spc * SLOT), Buffer.alloc(n * spc * SLOT), Buffer.alloc(n * spc * SLOT), Buffer.alloc(n * spc * SLOT, 0xa5)];
    j.cases.forEach((c, i) => {
      put(bufs[0]!, i * spc, j.width, c.memory);
      put(bufs[1]!, i * spc, j.width, c.b);
      if (c.c) put(bufs[2]!, i * spc, j.width, c.c);
    });
    try {
      const ptrs = bufs.map((b) => l.memAlloc(b.length));
      ptrs.forEach((p, k) => l.copyToDevice(p, bufs[k]!));
      const params = [...ptrs];
      if (j.tensorMap) {
        // the map over this launch's memory slots, in its own allocation, as the kernel's pc
        const map = encodeTensorMap(l, j.tensorMap, ptrs[0]!, j.lanes, n);
        params[2] = l.memAlloc(map.length);
        l.copyToDevice(params[2], map);
        ptrs.push(params[2]);
      }
      const f = l.getFunction(mod, j.kernel);
      const { grid, block, shared } = launchShape(
        { clustered: j.clustered, ...(j.perCta ? { perCta: j.perCta } : {}) } as Parameters<typeof launchShape>[0],
        n,
      );
      if (j.perCta) {
        params[2] = BigInt(j.caseBytes!);
        if (shared > DEFAULT_DYNAMIC_SHARED) l.funcMaxDynamicShared(f, shared);
      }
      l.launch(f, grid, block, shared, j.clustered ? [2, 1, 1] : [1, 1, 1], [...params, BigInt(n), BigInt(j.mode ?? 0)]);
      l.synchronize();
      l.copyFromDevice(bufs[0]!, ptrs[0]!);
      l.copyFromDevice(bufs[3]!, ptrs[3]!);
      for (const p of ptrs) l.memFree(p);
    } catch (e) {
      const name = (e as { cuResult?: string }).cuResult ?? 'CUDA_ERROR_UNKNOWN';
      process.stderr.write(`CUDA_ERROR ${name} ${j.kernel}: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(3);
    }
    out.push({
      memory: j.cases.map((_, i) => get(bufs[0]!, i * spc, j.width, j.lanes)),
      returned: j.cases.map((_, i) => get(bufs[3]!, i * spc, j.width, j.lanes)),
    });
  }
  return out;
}

if (process.argv[1] && /executor\.(m?js|ts)$/.test(process.argv[1])) {
  const [jobPath, outPath] = process.argv.slice(2);
  const res = executeJob(JSON.parse(readFileSync(jobPath!, 'utf8')) as JobFile);
  writeFileSync(outPath!, JSON.stringify(res));
}
