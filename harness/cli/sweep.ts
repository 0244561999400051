/**
 * `npm run conformance -- sweep [--arch A] [--filter F] [--report DIR] [--cache-dir DIR] [--cells N]
 * [--self-test] [--workers N]`: every pair of 16-bit operand patterns through each swept variant on
 * the GPU (harness/sweep/), judged against the reference model; writes the usual report files with a
 * map per variant. Exit codes as a run: 0 clean, 1 a mismatch (a self-test expects them), 2 usage or
 * no GPU.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { findTarget, modulePtxFor } from '../arch/targets.js';
import { childCommand } from '../backends/gpu/backend.js';
import { selectBackend } from '../backends/select.js';
import { type Expectation, expectationsPath, loadExpectations } from '../compare/expectations.js';
import type { SweepReport } from '../report/json.js';
import { RunRecorder } from '../report/recorder.js';
import type { EntryResult } from '../report/types.js';
import { cellClasses, pictureDataUri } from '../sweep/picture.js';
import { type SweepOutcome, runSweeps } from '../sweep/run.js';
import { CELLS } from '../sweep/space.js';
import { resolveCacheDir } from '../util/cache-dir.js';
import { compileFilter } from '../util/filter.js';
import { DEFAULT_ARCH } from './args.js';
import { UsageError } from './errors.js';
import type { Io } from './main.js';
import { exitCode, printSummary } from './summary.js';

export const SWEEP_USAGE = `npm run conformance -- sweep [options]
  every pair of 16-bit operand patterns (2^32 per variant) through each atom/red add/min/max variant
  with 16-bit float lanes (.f16, .bf16, x2, vectors; one per shape, and each ordering, scope and
  cache hint on atom.global.add.noftz.f16), on the GPU, judged against the reference model
  --arch A          target (default ${DEFAULT_ARCH})
  --filter F        only variants whose id matches (as elsewhere)
  --report DIR      where the reports go (default reports/out/sweep-<timestamp>/)
  --cache-dir DIR   cubins and the reference's cell records (default as elsewhere)
  --cells N         only the first N of the 65,536 cells of 65,536 pairs each (a partial sweep)
  --self-test       run kernels that flip the lowest result bit where b is subnormal: the run must
                    report exactly those pairs as mismatches
  --workers N       processes computing reference records (default: one per core)`;

function cellsSparse(xs: Uint32Array): [number, number][] {
  const out: [number, number][] = [];
  for (let c = 0; c < xs.length; c++) if (xs[c]) out.push([c, xs[c]!]);
  return out;
}

/** The variant's summary result: its counts as one entry (the pairs' verdicts are in stats and the sweep section). */
function summary(o: SweepOutcome, selftest: boolean, modulePtx: string): EntryResult {
  const verdict = o.mismatch ? 'mismatch' : o.observed ? 'observed' : 'pass';
  return {
    id: `${o.id}/sweep${o.space === 'shared' && o.variant.endsWith('(generic, in shared memory)') ? '-shared' : ''}${/\(swap (0x[0-9a-f]+)\)/.exec(o.variant)?.[1] ? `-swap${/\(swap (0x[0-9a-f]+)\)/.exec(o.variant)![1]}` : ''}${selftest ? ':self-test' : ''}`,
    family: o.family,
    kind: 'case',
    ptx: o.id.replace(/\(_\)$/, ''),
    modulePtx,
    catalog: { status: 'valid', expect: 'accept', reason: 'an exhaustive sweep of a catalog variant', rules: [] },
    verdict,
    reason:
      `${o.pairs} pairs (every 16-bit a x b${o.pairs < 2 ** 32 ? `, the first ${o.pairs / 65536} cells` : ''}): pass ${o.pass}, observed ${o.observed} (NaN where the model allows any NaN; ` +
      `${o.nonCanonicalNaN ? `${o.nonCanonicalNaN} NaN results are not the canonical 0x7fff` : 'every NaN result the canonical 0x7fff'}), mismatch ${o.mismatch}` +
      `${o.returnedMismatch ? ` (${o.returnedMismatch} with a returned value that is not the memory before)` : ''}` +
      `${o.groups.length ? `; by what went wrong: ${o.groups.slice(0, 8).map((g) => `${g.count} ${g.signature}`).join('; ')}${o.groups.length > 8 ? `; and ${o.groups.length - 8} more kinds` : ''}` : ''}` +
      `${o.mismatch ? ` (${o.results.length} kept whole as cases)` : ''}`,
  };
}

export async function sweepCommand(argv: readonly string[], io: Io): Promise<number> {
  let v;
  try {
    v = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        arch: { type: 'string' },
        filter: { type: 'string' },
        report: { type: 'string' },
        'cache-dir': { type: 'string' },
        cells: { type: 'string' },
        'self-test': { type: 'boolean' },
        workers: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    throw new UsageError(`${e instanceof Error ? e.message : String(e)}\n\n${SWEEP_USAGE}`);
  }
  if (v.help) {
    io.out(SWEEP_USAGE);
    return 0;
  }
  const arch = v.arch ?? DEFAULT_ARCH;
  const target = findTarget(arch);
  if (!target) throw new UsageError(`unknown --arch '${arch}'`);
  const cells = v.cells === undefined ? CELLS : Number(v.cells);
  if (!Number.isInteger(cells) || cells < 1 || cells > CELLS) throw new UsageError(`--cells takes 1 to ${CELLS}, got '${v.cells}'`);
  const workers = v.workers === undefined ? undefined : Number(v.workers);
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 1)) throw new UsageError(`--workers takes a positive integer, got '${v.workers}'`);
  let backend;
  try {
    backend = await selectBackend('gpu', target);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new UsageError(`sweeps run on a GPU, and there is none to use here: ${e.message.replace(/\s*Use --backend ptxas or --backend reference\.?$/, '').replace(/\.$/, '')}. Run a sweep on a machine with a CUDA driver and an sm_90 (or newer) GPU; reports recorded elsewhere open here with \`render\``);
  }
  const ptx = modulePtxFor(target, backend.ptxas!.maxPtx)!;
  const selftest = v['self-test'] ?? false;
  const exFile = expectationsPath(target.name);
  const ex = await loadExpectations(exFile, false);
  const expectations: Expectation[] = ex.problems.length ? [] : ex.expectations;
  const started = new Date();
  const dir = resolve(v.report ?? join('reports', 'out', `sweep-${started.toISOString().replace(/[:]/g, '-').replace(/\..*$/, 'Z')}`));
  io.err(`sweep on ${backend.device!.name}: ${cells === CELLS ? 'every pair' : `the first ${cells} cells (${cells * 65536} pairs)`} per variant${selftest ? ', SELF-TEST kernels (results perturbed where b is subnormal)' : ''}`);
  const r = await runSweeps({
    arch: target.name,
    ptx,
    ptxas: backend.ptxas!,
    cacheDir: resolveCacheDir(v['cache-dir']),
    keep: compileFilter(v.filter),
    cells,
    selftest,
    worker: childCommand('worker'),
    ...(workers ? { workers } : {}),
    onProgress: (m) => io.err(m),
  });
  if (!r.outcomes.length) throw new UsageError(`no variant to sweep${v.filter ? ` matches --filter '${v.filter}'` : ''}: sweeps cover atom/red add, min, max on .f16/.bf16 lanes`);
  const rec = new RunRecorder(dir, { startedAt: started.toISOString(), command: ['npm', 'run', 'conformance', '--', 'sweep', ...argv], arch: target.name, filter: v.filter ?? null, seed: 0 }, expectations, expectations.length ? exFile : null);
  const stats: Record<string, number> = { sweepCompileSeconds: r.compileSeconds };
  const sweeps: SweepReport[] = [];
  for (const o of r.outcomes) {
    rec.add([summary(o, selftest, ptx), ...o.results]);
    for (const [k, n] of [['pass', o.pass], ['observed', o.observed], ['mismatch', o.mismatch]] as const) stats[`total.${o.family}.${k}`] = (stats[`total.${o.family}.${k}`] ?? 0) + n;
    stats.sweepPairs = (stats.sweepPairs ?? 0) + o.pairs;
    stats.sweepSeconds = (stats.sweepSeconds ?? 0) + o.seconds.total;
    sweeps.push({
      variant: o.variant,
      family: o.family,
      lanes: o.lanes,
      pairs: o.pairs,
      pass: o.pass,
      observed: o.observed,
      mismatch: o.mismatch,
      returnedMismatch: o.returnedMismatch,
      groups: o.groups.map((g) => ({ signature: g.signature, count: g.count, example: g.example })),
      space: o.space,
      nonCanonicalNaN: o.nonCanonicalNaN,
      differingCells: o.differingCells,
      referenceCached: o.referenceCached,
      selftest,
      seconds: o.seconds,
      picture: pictureDataUri(cellClasses(o.cellMismatch, o.cellNaN)),
      cells: { mismatch: cellsSparse(o.cellMismatch), nan: cellsSparse(o.cellNaN) },
    });
  }
  rec.set({
    toolchain: { ptxas: { path: backend.ptxas!.path, foundVia: backend.ptxas!.foundVia, release: backend.ptxas!.release, versionLine: backend.ptxas!.versionLine, maxPtx: backend.ptxas!.maxPtx, targets: backend.ptxas!.targets }, gpu: { device: backend.device, driverVersion: backend.driverVersion } },
    modulePtx: ptx,
    backend: { name: 'gpu', reason: `sweep: ${backend.reason}`, passedOver: [] },
    stats,
    catalogEntries: r.outcomes.length,
    sweeps,
  });
  const w = rec.finish();
  printSummary(io, w.report);
  io.out(`\nreport: ${w.json}\nhtml:   ${w.html}\njunit:  ${w.junit}`);
  return exitCode(w.report);
}
