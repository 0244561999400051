/**
 * `--backend multicast` (issue 15): the guard first (multicastGuard: the flag, the hosts's vetoes,
 * two or more devices with multicast support), then the executor on the native binding. `--plan-only`
 * prints what a run would allocate, bind and launch, and what the guard would say; it creates
 * nothing and needs no flag. Cases: --vectors, or the multimem vector files of the library and
 * every accepted variant over 2, 4 and 8 replicas (library.ts).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { multicastJobs } from '../backends/multicast/backend.js';
import { jobKernel } from '../backends/multicast/executor.js';
import { type DeviceSurvey, multicastGuard } from '../backends/multicast/guard.js';
import { surveyDevices } from '../backends/multicast/survey.js';
import { loadVectors } from '../case-readers/vectors.js';
import { problemLines } from '../case-readers/types.js';
import { compileFilter } from '../util/filter.js';
import { multicastFamilyIds } from '../registry/multicast.js';
import { probePtxas } from '../backends/ptxas/toolchain.js';
import { encodeCases } from '../backends/multicast/wire.js';
import { runMulticastChild } from '../backends/multicast/isolate.js';
import { loadMulticastBinding } from '../backends/multicast/native.js';
import type { RunRecorder } from '../report/recorder.js';
import type { Options } from './args.js';
import { CATALOG_PTX_ISA, type Target, modulePtxFor } from '../arch/targets.js';
import { multicastLibrary } from '../backends/multicast/library.js';
import { UsageError } from '../util/errors.js';
import { printWritten } from './summary.js';
import type { Io } from './io.js';
import type { Executor } from './run-context.js';

/** The library's multimem vector files (the families the executor runs). */
function libraryFiles(root: string): string[] {
  const dir = join(root, 'cases', 'vectors');
  const prefixes = multicastFamilyIds().map((id) => id.replace(/\./g, '-'));
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && (prefixes.some((p) => f.startsWith(`${p}-`)) || f === 'multimem-accumulation.yaml'))
    .sort()
    .map((f) => join(dir, f));
}

/** The multicast executor (run-backend.ts's table): the cases of `root`'s library or --vectors over replicas. */
export const runMulticast: Executor = (ctx) => runMulticastCommand(ctx.opts, ctx.target, ctx.io, () => ctx.startRecorder());

async function runMulticastCommand(
  opts: Options,
  target: Target,
  io: Io,
  startRecorder: () => RunRecorder,
  root = process.cwd(),
): Promise<number | RunRecorder> {
  const files = opts.vectors.length ? [...opts.vectors] : libraryFiles(root);
  const { cases: all, problems } = await loadVectors(files, root);
  if (problems.length) {
    for (const l of problemLines(problems)) io.err(l);
    io.err(`${problems.length} problem(s) in the vector files; nothing was run. Fix them and run again.`);
    return 2;
  }
  const keep = compileFilter(opts.filter);
  // a library run adds every accepted variant of the families over 2, 4 and 8 replicas
  const generated = opts.vectors.length ? [] : multicastLibrary(target, modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA, opts.seed, 2, keep);
  const cases = [...all.filter((c) => keep(c.variant.id)), ...generated];
  if (!cases.length)
    throw new UsageError(
      `--filter '${opts.filter ?? ''}' leaves no multimem case of ${files.length} file(s) for the multicast backend (it runs ${multicastFamilyIds().join(', ')})`,
    );
  let surveyed: DeviceSurvey | undefined;
  const survey = () => (surveyed ??= surveyDevices());
  const guard = multicastGuard({ allowed: opts.allowMulticast, env: process.env, survey });

  if (opts.planOnly) {
    const devices =
      'devices' in guard
        ? guard.devices.length
        : surveyed && 'devices' in surveyed
          ? Math.max(surveyed.devices.filter((d) => d.multicastSupported).length, 0)
          : 8;
    const assumed =
      'devices' in guard
        ? `${devices} device(s) with multicast support`
        : `${devices} device(s) (${surveyed ? 'those this machine reports with multicast support' : 'assumed: the devices were not asked'})`;
    // asking ptxas which PTX ISA it writes creates nothing (without one, no family is held back)
    const probed = await probePtxas().catch(() => undefined);
    const { jobs, skipped } = multicastJobs(cases, devices, probed?.maxPtx);
    io.out(
      `multicast plan for ${target.name}: ${cases.length} case(s) (${cases.length - generated.length} of ${files.length} file(s)${generated.length ? `, ${generated.length} generated: every accepted variant over 2, 4 and 8 replicas` : ''}), ${jobs.length} job(s) on ${assumed}; each job launched ${opts.launches} time(s) from the same values`,
    );
    io.out('nothing below is created by --plan-only');
    const SHOWN = 12;
    for (const r of [...new Set(jobs.map((j) => j.replicas))].sort((a, b) => a - b)) {
      const group = jobs.filter((j) => j.replicas === r);
      const kernels = group.map((j) => jobKernel(j, '9.0', target.name));
      const bytes = Math.max(...kernels.map((k) => k.slotBytes * k.threads));
      io.out(
        `  ${r} replicas, devices 0-${r - 1}: cuMulticastCreate(${r} devices, ${bytes} bytes rounded up to the granularity), cuMulticastAddDevice x${r}, ` +
          `cuMemCreate + cuMulticastBindMem on each device, 1 multicast and ${r} unicast mappings, operand and result buffers on device 0; then ${group.length} job(s), each: ` +
          `load its kernel, ${opts.launches} x (write ${r} replicas, launch, read back), unload; then release everything in reverse`,
      );
      group
        .slice(0, SHOWN)
        .forEach((j, k) =>
          io.out(
            `    ${j.variant.ptx}: ${kernels[k]!.threads} case(s), one thread each, ${kernels[k]!.slotBytes} bytes a case; reads back ${j.family.returns ? 'the returned values' : `${r} replicas`}`,
          ),
        );
      if (group.length > SHOWN) io.out(`    ... and ${group.length - SHOWN} more job(s) (--filter narrows the run)`);
    }
    // skipped cases, by reason: how many, and the first few
    const why = new Map<string, string[]>();
    for (const s of skipped) why.set(s.why, [...(why.get(s.why) ?? []), s.c.id]);
    for (const [w, ids] of why) {
      io.out(`  skipped ${ids.length} case(s): ${w}`);
      for (const id of ids.slice(0, 3)) io.out(`    ${id}`);
      if (ids.length > 3) io.out(`    ... and ${ids.length - 3} more`);
    }
    io.out('refused' in guard ? `a run would be refused (exit 2): ${guard.refused.reason}` : `a run would bind devices ${guard.devices.join(', ')}`);
    return 0;
  }
  if ('refused' in guard) throw new UsageError(`--backend multicast: ${guard.refused.reason}`);
  const binding = loadMulticastBinding();
  if ('reason' in binding) throw new UsageError(`--backend multicast: ${binding.reason}. Nothing was created.`);
  const ptxas = await probePtxas().catch((e: Error) => {
    throw new UsageError(`--backend multicast compiles its kernels with ptxas: ${e.message}`);
  });
  io.err(
    `multicast: ${cases.length} case(s) on devices ${guard.devices.join(', ')}, each job launched ${opts.launches} time(s); the executor runs in a child process`,
  );
  const rec = startRecorder();
  rec.set({
    toolchain: {
      ptxas: {
        path: ptxas.path,
        foundVia: ptxas.foundVia,
        release: ptxas.release,
        versionLine: ptxas.versionLine,
        maxPtx: ptxas.maxPtx,
        targets: ptxas.targets,
      },
    },
    modulePtx: ptxas.maxPtx,
    backend: {
      name: 'multicast',
      reason: `requested with --backend multicast and --allow-multicast; devices ${guard.devices.join(', ')} report multicast support; binding ${binding.path}`,
      passedOver: [],
    },
    catalogEntries: 0,
  });
  const { result, code, signalled } = await runMulticastChild({
    cases: encodeCases(cases),
    devices: guard.devices,
    launches: opts.launches,
    ptxIsa: ptxas.maxPtx,
    target: target.name,
    ptxasPath: ptxas.path,
    allowed: true,
  });
  rec.add(result.results);
  rec.set({ stats: result.stats });
  for (const e of result.releaseErrors) io.err(`multicast: ${e}`);
  if (result.interrupted) {
    io.err(`multicast: ${result.interrupted}; everything the run created was released (child exit ${code})`);
    const w = rec.finishPartial(`interrupted: ${result.interrupted}`);
    if (w) printWritten(io, w);
    return signalled === 'SIGTERM' ? 143 : 130;
  }
  return rec;
}
