/**
 * `--backend multicast` (issue 15): the guard first (multicastGuard: the flag, the hosts's vetoes,
 * two or more devices with multicast support), then the executor on the native binding. `--plan-only`
 * prints what a run would allocate, bind and launch, and what the guard would say; it creates
 * nothing and needs no flag. Cases: --vectors, or the multimem vector files of the library.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadLauncher, probeDevices } from '../backends/gpu/driver.js';
import { multicastJobs } from '../backends/multicast/backend.js';
import { jobKernel } from '../backends/multicast/executor.js';
import { type DeviceSurvey, multicastGuard } from '../backends/multicast/guard.js';
import { loadVectors } from '../cases/vectors.js';
import { formatProblem } from '../cases/types.js';
import { compileFilter } from '../util/filter.js';
import { MULTICAST_FAMILY_IDS } from '../families/multicast-index.js';
import { probePtxas } from '../backends/ptxas/toolchain.js';
import { encodeCases } from '../backends/multicast/wire.js';
import { runMulticastChild } from '../backends/multicast/isolate.js';
import { loadMulticastBinding } from '../backends/multicast/native.js';
import type { RunRecorder } from '../report/recorder.js';
import type { Options } from './args.js';
import { UsageError } from './errors.js';
import type { Io } from './main.js';

/** Attribute queries only: loads the driver, asks each device; creates no context and no object. */
export function surveyDevices(): DeviceSurvey {
  const l = loadLauncher();
  if (!('launcher' in l)) return { unavailable: l.reason };
  const st = l.launcher.status();
  if (!st.driver) return { unavailable: st.reason ?? 'no CUDA driver' };
  try {
    return { devices: probeDevices(l.launcher).devices };
  } catch (e) {
    return { unavailable: `the driver failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** The library's multimem vector files (the families the executor runs). */
function libraryFiles(root: string): string[] {
  const dir = join(root, 'cases', 'vectors');
  const prefixes = MULTICAST_FAMILY_IDS.map((id) => id.replace(/\./g, '-'));
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && (prefixes.some((p) => f.startsWith(`${p}-`)) || f === 'multimem-accumulation.yaml'))
    .sort()
    .map((f) => join(dir, f));
}

export async function runMulticastCommand(opts: Options, target: { name: string }, io: Io, startRecorder: () => RunRecorder, root = process.cwd()): Promise<number | RunRecorder> {
  const files = opts.vectors.length ? [...opts.vectors] : libraryFiles(root);
  const { cases: all, problems } = await loadVectors(files, root);
  if (problems.length) {
    for (const p of problems) io.err(formatProblem(p));
    io.err(`${problems.length} problem(s) in the vector files; nothing was run. Fix them and run again.`);
    return 2;
  }
  const keep = compileFilter(opts.filter);
  const cases = all.filter((c) => keep(c.variant.id));
  if (!cases.length) throw new UsageError(`--filter '${opts.filter ?? ''}' leaves no multimem case of ${files.length} file(s) for the multicast backend (it runs ${MULTICAST_FAMILY_IDS.join(', ')})`);
  let surveyed: DeviceSurvey | undefined;
  const survey = () => (surveyed ??= surveyDevices());
  const guard = multicastGuard({ allowed: opts.allowMulticast, env: process.env, survey });

  if (opts.planOnly) {
    const devices = 'devices' in guard ? guard.devices.length : surveyed && 'devices' in surveyed ? Math.max(surveyed.devices.filter((d) => d.multicastSupported).length, 0) : 8;
    const assumed = 'devices' in guard ? `${devices} device(s) with multicast support` : `${devices} device(s) (${surveyed ? 'those this machine reports with multicast support' : 'assumed: the devices were not asked'})`;
    const { jobs, skipped } = multicastJobs(cases, devices);
    io.out(`multicast plan for ${target.name}: ${cases.length} case(s) of ${files.length} file(s), ${jobs.length} job(s) on ${assumed}; each job launched ${opts.launches} time(s) from the same values`);
    io.out('nothing below is created by --plan-only');
    for (const j of jobs) {
      const k = jobKernel(j, '9.0', target.name);
      const bytes = k.slotBytes * j.cases.length;
      io.out(
        `  ${j.variant.ptx} on devices 0-${j.replicas - 1}: cuMulticastCreate(${j.replicas} devices, ${bytes} bytes rounded up to the granularity) + cuMulticastAddDevice x${j.replicas}; ` +
          `cuMemCreate + cuMulticastBindMem per device; 1 multicast and ${j.replicas} unicast mappings; operand and result buffers on device 0; ` +
          `kernel of ${j.cases.length} thread(s); write ${j.replicas} replica(s), launch, read ${j.family.returns ? 'the returned values' : `${j.replicas} replica(s)`} x${opts.launches}; release all in reverse`,
      );
    }
    for (const s of skipped) io.out(`  skipped ${s.c.id}: ${s.why}`);
    io.out('refused' in guard ? `a run would be refused (exit 2): ${guard.refused.reason}` : `a run would bind devices ${guard.devices.join(', ')}`);
    return 0;
  }
  if ('refused' in guard) throw new UsageError(`--backend multicast: ${guard.refused.reason}`);
  const binding = loadMulticastBinding();
  if ('reason' in binding) throw new UsageError(`--backend multicast: ${binding.reason}. Nothing was created.`);
  const ptxas = await probePtxas().catch((e: Error) => {
    throw new UsageError(`--backend multicast compiles its kernels with ptxas: ${e.message}`);
  });
  io.err(`multicast: ${cases.length} case(s) on devices ${guard.devices.join(', ')}, each job launched ${opts.launches} time(s); the executor runs in a child process`);
  const rec = startRecorder();
  rec.set({
    toolchain: { ptxas: { path: ptxas.path, foundVia: ptxas.foundVia, release: ptxas.release, versionLine: ptxas.versionLine, maxPtx: ptxas.maxPtx, targets: ptxas.targets } },
    modulePtx: ptxas.maxPtx,
    backend: { name: 'multicast', reason: `requested with --backend multicast and --allow-multicast; devices ${guard.devices.join(', ')} report multicast support; binding ${binding.path}`, passedOver: [] },
    catalogEntries: 0,
  });
  const { result, code } = await runMulticastChild({ cases: encodeCases(cases), devices: guard.devices, launches: opts.launches, ptxIsa: ptxas.maxPtx, target: target.name, ptxasPath: ptxas.path });
  rec.add(result.results);
  rec.set({ stats: result.stats });
  for (const e of result.releaseErrors) io.err(`multicast: ${e}`);
  if (result.interrupted) io.err(`multicast: ${result.interrupted}; everything the run created was released (child exit ${code})`);
  return rec;
}
