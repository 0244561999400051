/**
 * `npm run conformance -- hostmem [options]`: atom/red with .sys, the default scope and .gpu on host
 * memory (cuMemHostAlloc DEVICEMAP, cuMemHostRegister, cuMemAllocManaged) while CPU threads update
 * the same word (harness/hostmem/). Exit 0 when nothing is a mismatch or an error, 1 otherwise, 2 on
 * usage errors.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { modulePtxFor } from '../arch/targets.js';
import { probePtxas } from '../backends/ptxas/toolchain.js';
import { type MemoryKind, MEMORY_KINDS } from '../hostmem/judge.js';
import { type HostmemRun, planFor, runHostmem } from '../hostmem/run.js';
import { resolveCacheDir } from '../util/cache-dir.js';
import { prepareReportDir } from '../report/dir.js';
import { UsageError } from '../util/errors.js';
import { checkGpuOnly, gpuFor, parseGpuCommand, toolchainOf } from './gpu-command.js';
import type { Io } from './io.js';
import { hexBits } from '../numerics/hex.js';

export const HOSTMEM_USAGE = `npm run conformance -- hostmem [options]
  atom and red on host memory against CPU threads (PTX ISA 8.1.1, "Limitations on atomicity at
  system scope"): every op and type the GPU runs on global memory, with .sys, the default scope and
  .gpu, on memory from cuMemHostAlloc (DEVICEMAP), cuMemHostRegister and cuMemAllocManaged, while
  CPU threads update the same word with atomic instructions (a few jobs with plain CPU loads and
  stores: the contrast); both sides start on one flag, overlap is recorded; each final value is
  judged against every serial order of all GPU and CPU operations, lost updates counted.
  Single-thread float adds with a subnormal on host and device memory are judged by the model.
  --plan-only       list the jobs and exit (no GPU needed)
  --memory K[,K]    memory kinds: hostalloc, registered, managed (default all)
  --filter F        only variants (or job ids) that match (as elsewhere)
  --arch A          target (default sm_90)
  --report DIR      where hostmem.json.gz goes (default reports/out/hostmem-<timestamp>/)
  --overwrite       replace a report already in --report DIR (without it that folder is refused, exit 2)
  --cache-dir DIR   cubins (default as elsewhere)
  --ptxas PATH      the ptxas that compiles the kernels
  --backend B       gpu or auto`;

const hx = (x: bigint) => hexBits(0, x);

/** The run as JSON (bigints as hex strings). */
export function hostmemJson(r: HostmemRun, meta: Record<string, unknown>): unknown {
  return {
    ...meta,
    info: r.info,
    seconds: r.seconds,
    jobs: r.jobs.map((x) => ({
      job: JSON.parse(JSON.stringify(x.job, (_k, v) => (typeof v === 'bigint' ? hx(v) : v))),
      ...(x.skip ? { skip: x.skip } : {}),
      ...(x.error ? { error: x.error } : {}),
      ...(x.obs ? { obs: JSON.parse(JSON.stringify(x.obs, (_k, v) => (typeof v === 'bigint' ? hx(v) : v))) } : {}),
      ...(x.judgement
        ? {
            judgement: {
              verdict: x.judgement.verdict,
              serial: x.judgement.serial,
              split: x.judgement.split,
              lost: x.judgement.lost,
              overlapped: x.judgement.overlapped,
              expected: x.judgement.expected,
              reason: x.judgement.reason,
              rules: x.judgement.rules.map((y) => y.id),
            },
          }
        : {}),
      ...(x.cpuNs !== undefined ? { cpuMs: x.cpuNs / 1e6 } : {}),
    })),
    singles: r.singles.map((s) => ({
      id: s.c.id,
      variant: s.c.variant,
      memory: s.c.memory,
      what: s.c.what,
      init: hx(s.c.init),
      b: hx(s.c.b),
      ...(s.final !== undefined ? { final: hx(s.final) } : {}),
      ...(s.returned !== undefined ? { returned: hx(s.returned) } : {}),
      ...(s.allowed ? { allowed: s.allowed.bits.map(hx) } : {}),
      verdict: s.verdict,
      reason: s.reason,
    })),
  };
}

export async function hostmemCommand(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parseGpuCommand(argv, { 'plan-only': { type: 'boolean' }, memory: { type: 'string' } }, HOSTMEM_USAGE, io.out);
  if (!parsed) return 0;
  const { v, target } = parsed;
  checkGpuOnly(v.backend, 'hostmem', 'it runs atomics on the hardware against CPU threads');
  const kinds = (v.memory ?? MEMORY_KINDS.join(',')).split(',').map((s) => s.trim());
  for (const k of kinds)
    if (!(MEMORY_KINDS as readonly string[]).includes(k)) throw new UsageError(`--memory takes ${MEMORY_KINDS.join(', ')} (comma-separated), got '${k}'`);
  if (v['plan-only']) {
    const ptxas = await probePtxas(v.ptxas?.[0]).catch(() => undefined);
    const ptx = modulePtxFor(target, ptxas?.maxPtx ?? target.maxPtx ?? '9.0') ?? target.minPtx;
    const p = planFor(target.name, ptx, v.filter, kinds as MemoryKind[]);
    if (!p.jobs.length && !p.singles.length) throw new UsageError(`no hostmem job matches --filter '${v.filter}'`);
    for (const j of p.jobs) {
      const x = j.job;
      io.out(`${x.id}\t${x.cls}\tGPU ${x.gpu.threads}x${x.gpu.iters}\tCPU ${x.cpu.threads}x${x.cpu.iters} ${x.cpuMode}${j.skip ? `\tSKIP: ${j.skip}` : ''}`);
    }
    for (const s of p.singles) io.out(`${s.c.id}\tsingle\t${s.c.what}${s.entry ? '' : '\tSKIP: not runnable here'}`);
    io.out(
      `${p.jobs.length} jobs (${p.jobs.filter((j) => j.skip).length} skipped), ${p.singles.length} single-thread cases (PTX ISA ${ptx}${ptxas ? `, ${ptxas.versionLine}` : ', no ptxas found'})`,
    );
    return 0;
  }
  const backend = await gpuFor(target, 'hostmem runs', 'Its judge is tested on CPU (tests/hostmem/); --plan-only lists the jobs without a GPU', v.ptxas?.[0]);
  const ptx = modulePtxFor(target, backend.ptxas!.maxPtx)!;
  const started = new Date();
  const dir = prepareReportDir(v.report, 'hostmem-', started, (l) => io.err(l), { overwrite: v.overwrite ?? false });
  io.err(`hostmem on ${backend.device!.name}: memory ${kinds.join(', ')}`);
  const t0 = performance.now();
  const r = await runHostmem({
    arch: target.name,
    ptx,
    ptxas: backend.ptxas!,
    cacheDir: resolveCacheDir(v['cache-dir']),
    ...(v.filter ? { filter: v.filter } : {}),
    kinds: kinds as MemoryKind[],
    onProgress: (m) => io.err(m),
  });
  const seconds = (performance.now() - t0) / 1000;
  if (!r.jobs.length && !r.singles.length) throw new UsageError(`no hostmem job matches --filter '${v.filter}'`);
  const json = hostmemJson(r, {
    startedAt: started.toISOString(),
    command: ['npm', 'run', 'conformance', '--', 'hostmem', ...argv],
    arch: target.name,
    modulePtx: ptx,
    toolchain: toolchainOf(backend),
    totalSeconds: seconds,
  });
  const file = join(dir, 'hostmem.json.gz');
  writeFileSync(file, gzipSync(JSON.stringify(json)));
  // the table: per memory kind, scope and CPU mode: jobs, serial, updates lost, overlapped
  const rows = new Map<
    string,
    { n: number; pass: number; observed: number; mismatch: number; error: number; skipped: number; lostJobs: number; lost: number; overlapped: number }
  >();
  for (const x of r.jobs) {
    const key = `${x.job.memory.padEnd(10)} ${(x.job.scope || 'default').padEnd(7)} ${x.job.cpuMode.padEnd(6)}`;
    const row = rows.get(key) ?? { n: 0, pass: 0, observed: 0, mismatch: 0, error: 0, skipped: 0, lostJobs: 0, lost: 0, overlapped: 0 };
    row.n++;
    if (x.skip) row.skipped++;
    else if (x.error) row.error++;
    else if (x.judgement) {
      row[x.judgement.verdict]++;
      if (!x.judgement.serial) row.lostJobs++;
      row.lost += x.judgement.lost.total;
      if (x.judgement.overlapped) row.overlapped++;
    }
    rows.set(key, row);
  }
  io.out('memory     scope   cpu     jobs  pass  observed  mismatch  error  skipped  jobs-losing  updates-lost  overlapped');
  for (const [k, x] of rows)
    io.out(
      `${k} ${String(x.n).padStart(5)} ${String(x.pass).padStart(5)} ${String(x.observed).padStart(9)} ${String(x.mismatch).padStart(9)} ${String(x.error).padStart(6)} ${String(x.skipped).padStart(8)} ${String(x.lostJobs).padStart(12)} ${String(x.lost).padStart(13)} ${String(x.overlapped).padStart(11)}`,
    );
  for (const s of r.singles) io.out(`single ${s.c.id}: ${s.verdict}: ${s.reason}`);
  io.out(
    `hostmem seconds: ${seconds.toFixed(2)} (compile ${r.seconds.compile.toFixed(2)}, run and judge ${r.seconds.run.toFixed(2)}); attributes ${JSON.stringify(r.info.attributes)}; host atomic capabilities ${JSON.stringify(r.info.hostAtomicCapabilities)}`,
  );
  io.out(`report: ${file}`);
  const bad = r.jobs.some((x) => x.error || x.judgement?.verdict === 'mismatch') || r.singles.some((s) => s.verdict === 'mismatch' || s.verdict === 'error');
  return bad ? 1 : 0;
}
