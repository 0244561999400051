/**
 * The gpu backend: ptxas compiles every planned atom/red/cp.reduce.async.bulk kernel for --arch,
 * cuobjdump names the SASS each variant became, the launches run in child processes (isolate.ts),
 * and every case is judged by the reference model. multimem variants are skipped with the device's
 * multicast attribute as the reason: this backend never creates a multicast object.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Target } from '../../arch/targets.js';
import { FAMILIES } from '../../families/index.js';
import { enumerateCatalog } from '../../catalog/enumerate.js';
import type { EntryResult } from '../../report/types.js';
import type { Ptxas } from '../ptxas/toolchain.js';
import type { DeviceInfo } from './driver.js';
import { gpuModule, type KernelPlan } from './emit.js';
import type { LaunchJob } from './executor.js';
import { runIsolated } from './isolate.js';
import { judge } from './observations.js';
import { casesFor, keepCase, resultFor } from './cases.js';
import type { WorkerJob, WorkerOut } from './worker.js';
import { readFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';

/** Children still running: killed when this process exits (Ctrl-C, an error), so none keeps the GPU. */
const running = new Set<ReturnType<typeof spawn>>();
process.on('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

function runChild(cmd: readonly string[], timeoutMs: number): Promise<{ code: number | null; why: string }> {
  return new Promise((resolve) => {
    const c = spawn(cmd[0]!, cmd.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
    running.add(c);
    let err = '';
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const t = setTimeout(() => c.kill('SIGKILL'), timeoutMs);
    c.on('exit', (code, signal) => {
      running.delete(c);
      clearTimeout(t);
      resolve({ code, why: /CUDA_ERROR (\S+)/.exec(err)?.[1] ?? (signal ? `killed by ${signal}` : `exit ${code}: ${err.trim().split('\n').pop() ?? ''}`) });
    });
  });
}
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How to start a child: the bundled .mjs beside this code, or the TS source through tsx. */
export function childCommand(name: 'executor' | 'worker'): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const mjs = join(here, `${name}.mjs`);
  return existsSync(mjs) ? [process.execPath, mjs] : [process.execPath, '--import', 'tsx', join(here, `${name}.ts`)];
}
import { gpuPlans } from './plan.js';

const run = promisify(execFile);
const hex = (bits: number, v: bigint) => `0x${v.toString(16).padStart(bits / 4, '0')}`;

export interface GpuRunOptions {
  readonly target: Target;
  readonly ptx: string;
  readonly ptxas: Ptxas;
  readonly device: DeviceInfo;
  readonly keep: (variantId: string) => boolean;
  readonly seed: number;
  /** Generated cases per variant at level 3 (levels 1 and 2 take 8 each). */
  readonly generated: number;
  /** How to start the executor child: [node, (loader args,) executor path]. */
  readonly executor: readonly string[];
  /** How to start a worker child (worker.ts), and how many at once (default: one per core). */
  readonly worker: readonly string[];
  readonly workers?: number;
  readonly onProgress?: (msg: string) => void;
  /** Called with each batch of results as it is judged (for streaming to results.jsonl). */
  readonly onResults?: (rs: readonly EntryResult[]) => void;
}

/** SASS mnemonics per kernel from `cuobjdump -sass`, the lines that touch memory atomically. */
export async function sassByKernel(cubin: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  try {
    const { stdout } = await run('cuobjdump', ['-sass', cubin], { maxBuffer: 1 << 30 });
    let cur = '';
    for (const line of stdout.split('\n')) {
      const f = /Function : (\S+)/.exec(line);
      if (f) {
        cur = f[1]!;
        out.set(cur, []);
        continue;
      }
      const m = /\/\*[0-9a-f]+\*\/\s+(?:@!?U?P\d+\s+)?([A-Z][A-Z0-9_.]*)/.exec(line);
      if (cur && m && /^(ATOM|RED|UBLKRED|SYNCS|UBLKCP)/.test(m[1]!)) {
        const l = out.get(cur)!;
        if (!l.includes(m[1]!)) l.push(m[1]!);
      }
    }
  } catch {
    // cuobjdump missing: no evidence, said in the results
  }
  return out;
}

export async function runGpuBackend(opts: GpuRunOptions): Promise<{ results: EntryResult[]; stats: Record<string, number>; variantIds: string[] }> {
  const started = performance.now();
  const { plans: allPlans, skipped } = gpuPlans(opts.target.name, opts.ptx);
  const plans = allPlans.filter((p) => opts.keep(p.entry.id));
  const all: EntryResult[] = [];
  const results = {
    push: (...rs: EntryResult[]) => {
      all.push(...rs);
      opts.onResults?.(rs);
      return all.length;
    },
  };
  const base = (id: string, family: EntryResult['family'], ptx: string) => ({ id, family, kind: 'variant' as const, ptx, modulePtx: opts.ptx });
  for (const s of skipped.filter((x) => opts.keep(x.entry.id))) {
    results.push({ ...base(s.entry.id, s.entry.family, s.entry.ptx), catalog: { status: s.entry.status, expect: s.entry.expect, reason: s.entry.reason, rules: [] }, verdict: 'skipped', reason: s.reason });
  }
  // multimem: never run here
  const multimem = enumerateCatalog({ target: opts.target, ptx: opts.ptx, neighbours: false, isaNeighbours: false, families: FAMILIES.filter((f) => f.id.startsWith('multimem.')) }).filter((e) => e.expect === 'accept' && opts.keep(e.id));
  const why = opts.device.multicastSupported
    ? 'multimem needs a multicast object bound to several GPUs; this backend never creates one (the multicast backend, with its explicit flag, does)'
    : `device reports no multicast support (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0 on ${opts.device.name})`;
  for (const e of multimem) results.push({ ...base(e.id, e.family, e.ptx), catalog: { status: e.status, expect: e.expect, reason: e.reason, rules: [] }, verdict: 'skipped', reason: why });

  const dir = await mkdtemp(join(tmpdir(), 'ptxconf-gpu-build-'));
  try {
    // compile in modules of 1000 kernels, several ptxas at once
    const chunks: KernelPlan[][] = [];
    for (let i = 0; i < plans.length; i += 1000) chunks.push(plans.slice(i, i + 1000));
    const cubins: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.max(1, availableParallelism()) }, async () => {
        while (next < chunks.length) {
          const k = next++;
          const ptx = join(dir, `m${k}.ptx`);
          cubins[k] = join(dir, `m${k}.cubin`);
          await writeFile(ptx, gpuModule(chunks[k]!, opts.target.name, opts.ptx));
          await run(opts.ptxas.path, ['-arch', opts.target.name, ptx, '-o', cubins[k]!], { maxBuffer: 1 << 26 });
          opts.onProgress?.(`compiled module ${k + 1}/${chunks.length}`);
        }
      }),
    );
    let cases = 0;
    const totals: Record<string, number> = {};
    const add = (t: Record<string, number>) => {
      for (const [k2, v] of Object.entries(t)) totals[k2] = (totals[k2] ?? 0) + v;
    };
    const workers = Math.max(1, opts.workers ?? availableParallelism());
    for (const [k, chunk] of chunks.entries()) {
      const sassMap = await sassByKernel(cubins[k]!);
      const sass = Object.fromEntries([...sassMap].map(([name, ops]) => [name, ops.join(' ')]));
      // split the module's variants over worker processes that generate, run and judge
      const ranges: KernelPlan[][] = Array.from({ length: Math.min(workers, chunk.length) }, () => []);
      chunk.forEach((p, i) => ranges[i % ranges.length]!.push(p));
      await Promise.all(
        ranges.map(async (range, w) => {
          const job: WorkerJob = { cubin: cubins[k]!, arch: opts.target.name, ptx: opts.ptx, plans: range.map((p) => Number(p.name.slice(1))), seed: opts.seed, generated: opts.generated, sass };
          const jobPath = join(dir, `w${k}-${w}.json`);
          const outPath = join(dir, `w${k}-${w}.out.json`);
          await writeFile(jobPath, JSON.stringify(job));
          const r = await runChild([...opts.worker, jobPath, outPath], 600_000);
          if (r.code === 0) {
            const out = JSON.parse(await readFile(outPath, 'utf8')) as WorkerOut;
            add(out.totals);
            results.push(...out.results);
            cases += out.cases;
            return;
          }
          // a launch failed or hung: run this range through the isolating path, case by case if need be
          opts.onProgress?.(`worker ${w} of module ${k + 1} failed (${r.why}); isolating its ${range.length} variants`);
          const perPlan = range.map((p) => casesFor(p, opts.seed, opts.generated));
          const launches: LaunchJob[] = range.map((p, i) => ({
            kernel: p.name,
            width: p.width,
            lanes: p.lanes,
            clustered: p.entry.family === 'cp.reduce.async.bulk' && p.entry.q.dst === 'shared::cluster',
            cases: perPlan[i]!.map((c) => ({
              memory: c.input.memory!.map((x) => hex(p.width, x)),
              b: (c.input.b ?? c.input.source)!.map((x) => hex(p.width, x)),
              ...(c.input.c ? { c: c.input.c.map((x) => hex(p.width, x)) } : {}),
            })),
          }));
          const iso = await runIsolated(launches, { executor: opts.executor, cubin: cubins[k]!, timeoutMs: 120_000 });
          range.forEach((p, i) => {
            const e = p.entry;
            const returns = e.family === 'atom' && (e.q.d ?? '') !== '_';
            perPlan[i]!.forEach((c, j) => {
              const o = iso.outcomes[i]![j]!;
              cases++;
              if ('error' in o) {
                add({ [`${e.family}.error`]: 1 });
                results.push({ id: c.id, family: e.family, kind: 'case', ptx: e.ptx, modulePtx: opts.ptx, catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules: [] }, sass: sass[p.name] ?? '?', verdict: 'error', reason: `the launch failed for this case alone: ${o.error}` });
                return;
              }
              const observed = { memory: o.memory.map((x) => BigInt(x)), ...(returns ? { returned: o.returned.map((x) => BigInt(x)) } : {}) };
              const v = judge(c.id, { family: e.family, q: e.q }, c.input, observed);
              add({ [`${e.family}.${v.verdict}`]: 1 });
              if (keepCase(e, c.id, v.verdict, j, opts.seed)) results.push(resultFor(p, c, v, observed, opts.ptx, sass[p.name] ?? '?'));
            });
          });
        }),
      );
      opts.onProgress?.(`ran module ${k + 1}/${chunks.length}: ${cases} cases so far`);
    }
    return { results: all, variantIds: plans.map((p) => p.entry.id), stats: { variants: plans.length, cases, workers, recordedCases: all.filter((r) => r.kind === 'case').length, seconds: (performance.now() - started) / 1000, ...Object.fromEntries(Object.entries(totals).map(([k2, v]) => [`total.${k2}`, v])) } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
