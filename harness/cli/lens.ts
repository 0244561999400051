/**
 * `npm run conformance -- lens [--nvcc PATH]... [--prebuilt DIR] [--reps R] [--filter F] [--arch A]
 * [--report DIR] [--cache-dir DIR] | --compile-only [--out DIR] | --list`: the CUDA C++ lens
 * (harness/lens/, cases/cuda-lens/, docs/cuda-lens.md). CUDA C++ atomics as users write them, compiled
 * by each nvcc, launched as contention kernels and judged by the contention model, with the
 * expectations file as every run; the report every command writes (harness/lens/report.ts). Exit 0
 * when every group is allowed or a known deviation, 1 on a mismatch, an error or an unexpected pass,
 * 2 on bad input.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { findTarget } from '../arch/targets.js';
import { loadLauncher, probeDevices } from '../backends/gpu/driver.js';
import { type CompiledToolchain, compileLens, findNvcc, readPrebuilt, writePrebuilt } from '../lens/compile.js';
import { MEMORY, lensKernels, loadManifest } from '../lens/manifest.js';
import { type LensRow, lensPlan, lensRows, runLens } from '../lens/run.js';
import { type LensSection, writeLensReport } from '../lens/report.js';
import { expectationsPath } from '../compare/expectations.js';
import { readExpectations } from './expectations-file.js';
import { exitCode, printSummary, printWritten } from './summary.js';
import { prepareReportDir } from '../report/dir.js';
import { resolveCacheDir } from '../util/cache-dir.js';
import { DEFAULT_ARCH, missingValue } from './args.js';
import { UsageError } from '../util/errors.js';
import type { Io } from './io.js';

export const LENS_USAGE = `npm run conformance -- lens [options]
  the CUDA C++ lens: CUDA C++ atomics as users write them (atomicOr/And/Xor/Max/Min on unsigned long
  long, atomicAdd on float, double, __half2, __nv_bfloat162, cuda::atomic_ref fetch_or/fetch_max/
  fetch_add, and controls), on distributed shared memory (cluster.map_shared_rank), the CTA's own
  shared memory and global memory (cases/cuda-lens/), compiled by nvcc and run under contention;
  every outcome judged by the contention model as the catalog variant each call stands for
  --nvcc PATH       an nvcc to compile with (repeatable: one toolchain each; default nvcc on PATH,
                    $CUDA_HOME/bin, /usr/local/cuda/bin)
  --prebuilt DIR    run the cubins of a folder written by --compile-only (each toolchain in it), for a
                    host without that nvcc; with --nvcc, those toolchains too
  --compile-only    compile (and disassemble) only, no GPU: prints each kernel's SASS atomic lines
  --out DIR         with --compile-only: write the cubins as a prebuilt folder
  --list            the kernels, their C++ calls and the catalog variants they stand for
  --filter F        only kernels whose name, call, variant or file matches (comma-separated, * and ?)
  --reps R          addresses per launch (default 256; a multiple of 32, at most 1024); every group
                    is launched twice
  --arch A          target (default ${DEFAULT_ARCH})
  --report DIR      where the report goes (default reports/out/lens-<timestamp>/): report.json (its
                    contention and lens sections), report.html, junit.xml, the results stream, and
                    summary.txt (the table per C++ call, memory and nvcc)
  --overwrite       replace a report already in --report DIR (without it that folder is refused, exit 2)
  --expectations F  known deviations (default cases/expectations/<arch>.yaml): a group they explain
                    (the .shared::cluster finding on Hopper) is a known deviation, not a failure
  --cache-dir DIR   cubins (default as elsewhere)
  exit: 0 every group allowed or explained by an expectation; 1 a mismatch, an error or an
  expectation that no longer occurs; 2 bad input, or no GPU (but --compile-only and --list)`;

const VALUE_OF: Record<string, string> = {
  '--nvcc': 'the path of an nvcc, e.g. --nvcc /usr/local/cuda/bin/nvcc',
  '--prebuilt': 'a folder written by lens --compile-only --out DIR',
  '--out': 'a folder for the prebuilt cubins',
  '--reps': 'a multiple of 32 from 32 to 1024, e.g. --reps 256',
};

function table(rows: readonly LensRow[]): string[] {
  const head = ['C++ call', 'memory', 'toolchain', 'status', 'addresses wrong', 'groups wrong'];
  const body = rows.map((r) => [
    r.call,
    r.memory,
    r.toolchain.replace(/^Cuda compilation tools, /, ''),
    r.status,
    r.status === 'skipped' ? '-' : `${r.addressesMismatching} of ${r.addresses}`,
    r.status === 'skipped' ? '-' : `${r.groupsMismatching} of ${r.groups}${r.where.length ? ` (${r.where.join(', ')})` : ''}`,
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  return [head, ...body].map((r) =>
    r
      .map((c, i) => c.padEnd(w[i]!))
      .join('  ')
      .trimEnd(),
  );
}

export async function lensCommand(argv: readonly string[], io: Io): Promise<number> {
  let v;
  try {
    v = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        nvcc: { type: 'string', multiple: true },
        prebuilt: { type: 'string' },
        'compile-only': { type: 'boolean' },
        out: { type: 'string' },
        list: { type: 'boolean' },
        filter: { type: 'string' },
        reps: { type: 'string' },
        arch: { type: 'string' },
        report: { type: 'string' },
        overwrite: { type: 'boolean' },
        'cache-dir': { type: 'string' },
        expectations: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw missingValue(msg, argv, VALUE_OF) ?? new UsageError(`${msg}\n\n${LENS_USAGE}`);
  }
  if (v.help) {
    io.out(LENS_USAGE);
    return 0;
  }
  const arch = v.arch ?? DEFAULT_ARCH;
  if (!findTarget(arch)) throw new UsageError(`unknown --arch '${arch}'`);
  const reps = v.reps === undefined ? 256 : Number(v.reps);
  if (!Number.isInteger(reps) || reps < 32 || reps > 1024 || reps % 32) throw new UsageError(`--reps takes a multiple of 32 from 32 to 1024, got '${v.reps}'`);
  if (v.out !== undefined && !v['compile-only'])
    throw new UsageError('--out goes with --compile-only (it writes the prebuilt cubins); for the report give --report DIR');
  if (v.prebuilt !== undefined && v['compile-only']) throw new UsageError('--prebuilt runs cubins compiled before; --compile-only compiles: give one of them');
  const kernels = lensKernels(loadManifest(), v.filter);
  if (!kernels.length) throw new UsageError(`no lens kernel matches --filter '${v.filter}'; --list lists them`);
  const groups = lensPlan(kernels, arch);
  if (v.list) {
    for (const k of kernels)
      io.out(
        `${k.kernel}  ${k.call.call} on ${MEMORY[k.memory].what}  (${k.call.file}; as ${k.variant}; ${groups
          .filter((g) => g.kernel === k)
          .map((g) => `${g.group.layout}/${g.group.set.name}`)
          .join(' ')})`,
      );
    io.err(`${kernels.length} kernels, ${groups.length} contention groups`);
    return 0;
  }
  const cacheDir = resolveCacheDir(v['cache-dir']);
  const toolchains: CompiledToolchain[] = v.prebuilt !== undefined ? readPrebuilt(v.prebuilt, arch) : [];
  const t0 = performance.now();
  if (v.nvcc?.length || v.prebuilt === undefined) {
    for (const p of v.nvcc?.length ? v.nvcc : [undefined]) {
      const nvcc = await findNvcc(p);
      if (toolchains.some((t) => t.nvcc.slug === nvcc.slug)) {
        io.err(`lens: ${nvcc.versionLine} (${nvcc.path}) is in the prebuilt folder too: compiled here, the prebuilt one dropped`);
        toolchains.splice(
          toolchains.findIndex((t) => t.nvcc.slug === nvcc.slug),
          1,
        );
      }
      const t = await compileLens(nvcc, arch, cacheDir);
      toolchains.push(t);
      io.err(
        `lens: ${nvcc.versionLine} (${nvcc.path}): ${t.files.filter((f) => f.cubin).length} of ${t.files.length} files compiled (${t.files.filter((f) => f.cached).length} cached)${t.files
          .filter((f) => f.error)
          .map((f) => `; ${f.file} rejected: ${f.error}`)
          .join('')}`,
      );
    }
  }
  const compileSeconds = (performance.now() - t0) / 1000;
  if (v['compile-only']) {
    for (const t of toolchains) {
      io.out(`== ${t.nvcc.versionLine} (${t.nvcc.path}), ${t.flags.join(' ')}`);
      for (const k of kernels) {
        const f = t.files.find((x) => x.file === k.call.file)!;
        if (!f.cubin) io.out(`  ${k.kernel}: not compiled: ${f.error}`);
        else io.out(`  ${k.kernel}: ${f.sassBy ? (f.sass[k.kernel] ?? []).join(' / ') || '(no atomic line)' : '(no cuobjdump read this cubin)'}`);
      }
      if (v.out !== undefined) io.err(`lens: prebuilt cubins in ${writePrebuilt(t, v.out)}`);
    }
    return 0;
  }
  // the expectations as every run reads them, before anything runs (a broken file: exit 2)
  const exFile = v.expectations ?? expectationsPath(arch);
  const expectations = await readExpectations(exFile, v.expectations !== undefined, io);
  if (!expectations) return 2;
  const loaded = loadLauncher();
  if (!('launcher' in loaded))
    throw new UsageError(
      `the lens runs on a GPU, and there is none to use here: ${loaded.reason}. Compile and disassemble without one: lens --compile-only [--out DIR] (then lens --prebuilt DIR on a GPU host)`,
    );
  const l = loaded.launcher;
  let device;
  try {
    const p = probeDevices(l);
    if (!p.devices.length) throw new Error('no CUDA device');
    device = { name: p.devices[0]!.name, cc: p.devices[0]!.cc, driverVersion: p.driverVersion };
  } catch (e) {
    throw new UsageError(`the lens runs on a GPU, and there is none to use here: ${(e as Error).message}. Compile without one: lens --compile-only`);
  }
  l.useDevice(0);
  const started = new Date();
  const dir = prepareReportDir(v.report, 'lens-', started, (s) => io.err(s), { overwrite: v.overwrite ?? false });
  io.err(
    `lens on ${device.name} (driver ${device.driverVersion}): ${kernels.length} kernels x ${toolchains.length} toolchain(s), ${reps} addresses per launch, 2 launches per group`,
  );
  const t1 = performance.now();
  const { results, skipped } = await runLens({ toolchains, kernels, arch, reps, launcher: l, onProgress: (m) => io.err(m) });
  const seconds = (performance.now() - t1) / 1000;
  const rows = lensRows(results, skipped);
  const lens: LensSection = {
    reps,
    device,
    toolchains: toolchains.map((t) => ({
      ...t.nvcc,
      flags: [...t.flags],
      files: t.files.map((f) => ({ file: f.file, compiled: Boolean(f.cubin), ...(f.error ? { error: f.error } : {}), sassBy: f.sassBy })),
    })),
    seconds: { compile: compileSeconds, gpuAndJudge: seconds },
    rows,
    results,
    skipped,
  };
  // the report every command writes, judged with the expectations (a known finding is no failure)
  const w = writeLensReport(
    dir,
    { startedAt: started.toISOString(), command: ['npm', 'run', 'conformance', '--', 'lens', ...argv], arch, filter: v.filter ?? null },
    lens,
    expectations,
    expectations.length ? exFile : null,
  );
  const lines = table(rows);
  writeFileSync(join(dir, 'summary.txt'), `${lines.join('\n')}\n`);
  for (const x of lines) io.out(x);
  io.out(
    `\n${results.length} groups on ${device.name}; ${skipped.length} kernels skipped; ${seconds.toFixed(1)} s on the GPU and judging (the lens table: ${join(dir, 'summary.txt')})`,
  );
  printSummary(io, w.report);
  printWritten(io, w);
  return exitCode(w.report);
}

/** The report the lens wrote before it wrote the common one (lens-report.json.gz of the recorded H100 run): the lens section and the run's header. */
export type LensReport = LensSection & {
  readonly schema: 'ptx-reduction-conformance/cuda-lens';
  readonly startedAt: string;
  readonly command: readonly string[];
  readonly arch: string;
};
