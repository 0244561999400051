/**
 * `npm run conformance -- sweep [--arch A] [--filter F] [--report DIR] [--cache-dir DIR] [--cells N]
 * [--budget S] [--self-test] [--workers N]`: every pair of 16-bit operand patterns, and every 32-bit
 * pattern of one f32 add operand against named values (as far as the budget allows), through each
 * swept variant on the GPU (harness/sweep/), judged against the reference model; writes the usual
 * report files with a map per sweep and the seconds per stage. Exit codes as a run: 0 clean, 1 a
 * mismatch (a self-test expects them), 2 usage or no GPU.
 */
import { Tally, addTally } from '../report/tally.js';
import { existsSync } from 'node:fs';
import { modulePtxFor } from '../arch/targets.js';
import { childCommand } from '../backends/gpu/backend.js';
import { type Expectation, expectationsPath } from '../compare/expectations.js';
import { judgeRun } from '../compare/judge-run.js';
import type { SweepReport } from '../report/json.js';
import { RunRecorder } from '../report/recorder.js';
import { prepareReportDir } from '../report/dir.js';
import type { EntryResult } from '../report/types.js';
import { cellClasses, pictureDataUri } from '../sweep/picture.js';
import { type SweepOutcome, runSweeps } from '../sweep/run.js';
import { CELLS, SPECIALS32 } from '../sweep/space.js';
import { resolveCacheDir } from '../util/cache-dir.js';
import { DEFAULT_ARCH } from './args.js';
import { UsageError } from '../util/errors.js';
import { readExpectations } from './expectations-file.js';
import { checkGpuOnly, gpuFor, parseGpuCommand, toolchainOf } from './gpu-command.js';
import type { Io } from './io.js';
import { exitCode, printSummary, printWritten } from './summary.js';

/** Seconds the 32-bit sweeps may take when --budget is not given. */
export const DEFAULT_BUDGET = 60;

export const SWEEP_USAGE = `npm run conformance -- sweep [options]
  exhaustive sweeps on the GPU, judged against the reference model, 2^32 pairs each:
  - every pair of 16-bit operand patterns through each atom/red add/min/max variant with 16-bit
    float lanes (.f16, .bf16, x2, vectors), cp.reduce.async.bulk add/min/max on .f16/.bf16, and
    atom.cas.b16 with swap values 0x0000, 0xffff, 0x5a5a: one per shape, a generic one also in
    shared memory, each ordering, scope and cache hint on the family's .add.noftz.f16 (atom.exch
    has no 16-bit type);
  - then 32-bit float add (atom, red, cp.reduce.async.bulk .add.f32; global, shared, generic): every
    32-bit pattern of one operand against each of ${SPECIALS32.length} named values (${SPECIALS32.slice(0, 4)
      .map((x) => x.name)
      .join(', ')}, ...) in
    both roles, value by value, as far as --budget allows
  --arch A          target (default ${DEFAULT_ARCH})
  --filter F        only variants whose id matches (as elsewhere)
  --shard I/N       shard I (from 0) of N, balanced by cost; merge puts the reports together
  --spec-edition E  the PTX ISA edition to judge against (9.1-9.4; default the newest, 9.4)
  --report DIR      where the reports go (default reports/out/sweep-<timestamp>/)
  --overwrite       replace a report already in --report DIR (without it that folder is refused, exit 2)
  --cache-dir DIR   cubins and the reference's cell records (default as elsewhere)
  --ptxas PATH      the ptxas that compiles the kernels (default: the one found); repeatable: the
                    command once per ptxas, each report in a folder named after it, compared in
                    matrix.json/matrix.txt (docs/toolchains.md)
  --cells N         only the first N of the 65,536 cells of 65,536 pairs each (a partial sweep)
  --budget S        seconds the 32-bit sweeps may take (default ${DEFAULT_BUDGET}; 0: none). Their reference
                    records are cached, so a second run gets further in the same budget
  --self-test       run kernels that flip the lowest result bit where operand b (32-bit: the swept
                    operand) is subnormal: the run must report exactly those pairs as mismatches
  --workers N       processes computing reference records (default: one per core)
  --backend B       gpu or auto (the same: a sweep needs the GPU)
  --expectations F  known deviations (default cases/expectations/<arch>.yaml); a group of mismatching
                    pairs whose kept example one explains is a known deviation with its count`;

function cellsSparse(xs: Uint32Array): [number, number][] {
  const out: [number, number][] = [];
  for (let c = 0; c < xs.length; c++) if (xs[c]) out.push([c, xs[c]!]);
  return out;
}

/**
 * The mismatch groups an expectation explains: a group is a known deviation when the case kept as
 * its example is one once the expectations are applied (the same judgement the recorder makes).
 */
function knownGroups(o: SweepOutcome, expectations: readonly Expectation[]): Map<string, string> {
  const known = new Map<string, string>();
  if (!expectations.length || !o.groups.length) return known;
  const judged = judgeRun(o.results, expectations).results;
  const byId = new Map(judged.map((r) => [r.id, r]));
  for (const g of o.groups) {
    const r = byId.get(g.example);
    if (r?.verdict === 'known-deviation' && r.expectation) known.set(g.signature, r.expectation);
  }
  return known;
}

/** The variant's summary result: its counts as one entry (the pairs' verdicts are in stats and the sweep section). */
function summary(o: SweepOutcome, selftest: boolean, modulePtx: string, known: Map<string, string>): EntryResult {
  const knownPairs = o.groups.filter((g) => known.has(g.signature)).reduce((t, g) => t + g.count, 0);
  const verdict = o.mismatch > knownPairs ? 'mismatch' : knownPairs ? 'known-deviation' : o.observed ? 'observed' : 'pass';
  const ex = [...new Set(known.values())];
  return {
    id: `${o.id}/sweep${o.tag}${selftest ? ':self-test' : ''}`,
    family: o.family,
    kind: 'case',
    ptx: o.id.replace(/\(_\)$/, ''),
    modulePtx,
    catalog: { status: 'valid', expect: 'accept', reason: 'an exhaustive sweep of a catalog variant', rules: [] },
    verdict,
    ...(verdict === 'known-deviation' ? { expectation: ex[0]! } : {}),
    reason:
      `${knownPairs ? `${knownPairs} of the ${o.mismatch} mismatching pairs are known deviations (${ex.join(', ')}); ` : ''}${o.pairs} pairs (${o.domain}${o.pairs < 2 ** 32 ? `, the first ${o.pairs / 65536} cells` : ''}): pass ${o.pass}, observed ${o.observed} (NaN where the model allows any NaN; ` +
      `${o.nonCanonicalNaN ? `${o.nonCanonicalNaN} NaN results are not the canonical ${canonical(o)}` : `every NaN result the canonical ${canonical(o)}`}), mismatch ${o.mismatch}` +
      `${o.returnedMismatch ? ` (${o.returnedMismatch} with a returned value that is not the memory before)` : ''}` +
      `${
        o.groups.length
          ? `; by what went wrong: ${o.groups
              .slice(0, 8)
              .map((g) => `${g.count} ${g.signature}${known.has(g.signature) ? ` (known: ${known.get(g.signature)})` : ''}`)
              .join('; ')}${o.groups.length > 8 ? `; and ${o.groups.length - 8} more kinds` : ''}`
          : ''
      }` +
      `${o.mismatch ? ` (${o.results.length} kept whole as cases)` : ''}`,
  };
}

const canonical = (o: SweepOutcome) => (o.laneBits === 32 ? '0x7fffffff' : '0x7fff');

export async function sweepCommand(argv: readonly string[], io: Io): Promise<number> {
  // --keep is the main run's (issue 28: honoured on every path that takes it, refused here in words)
  if (argv.some((a) => a === '--keep' || a.startsWith('--keep='))) {
    throw new UsageError(
      "--keep is not an option of sweep: a sweep judges every pair and keeps, per variant, one result with its counts and up to 100 mismatching pairs whole (10 of each kind of what went wrong); the counts per cell are in the report's sweep section. --keep sets what a run keeps (npm run conformance -- --keep N)",
    );
  }
  const parsed = parseGpuCommand(
    argv,
    { cells: { type: 'string' }, budget: { type: 'string' }, expectations: { type: 'string' }, 'self-test': { type: 'boolean' }, workers: { type: 'string' } },
    SWEEP_USAGE,
    io.out,
  );
  if (!parsed) return 0;
  const { v, target, shard, edition } = parsed;
  const cells = v.cells === undefined ? CELLS : Number(v.cells);
  if (!Number.isInteger(cells) || cells < 1 || cells > CELLS) throw new UsageError(`--cells takes 1 to ${CELLS}, got '${v.cells}'`);
  const budget = v.budget === undefined ? DEFAULT_BUDGET : Number(v.budget);
  if (!Number.isFinite(budget) || budget < 0 || v.budget?.trim() === '') throw new UsageError(`--budget takes seconds (0 or more), got '${v.budget}'`);
  const workers = v.workers === undefined ? undefined : Number(v.workers);
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 1)) throw new UsageError(`--workers takes a positive integer, got '${v.workers}'`);
  checkGpuOnly(
    v.backend,
    'a sweep',
    "it compares the GPU's results with the reference model; the reference model's own results need no sweep, and ptxas checks are the main run's (npm run conformance -- --backend ptxas)",
  );
  const startup = performance.now() / 1000;
  const backend = await gpuFor(
    target,
    'sweeps run',
    `Run a sweep on a machine with a CUDA driver and an sm_90 (or newer) GPU; reports recorded elsewhere open here with \`render\``,
    v.ptxas?.[0],
  );
  const probe = performance.now() / 1000 - startup;
  const ptx = modulePtxFor(target, backend.ptxas!.maxPtx)!;
  const selftest = v['self-test'] ?? false;
  const exFile = v.expectations ?? expectationsPath(target.name);
  const expectations = await readExpectations(exFile, v.expectations !== undefined, io);
  if (!expectations) return 2;
  if (!existsSync(exFile))
    io.err(
      `sweep: no expectations file at ${exFile} (a path relative to the working directory; --expectations FILE names one): every deviation counts as a mismatch`,
    );
  const started = new Date();
  const dir = prepareReportDir(v.report, 'sweep-', started, (l) => io.err(l), { overwrite: v.overwrite ?? false });
  io.err(
    `sweep on ${backend.device!.name}: ${cells === CELLS ? 'every pair' : `the first ${cells} cells (${cells * 65536} pairs)`} per variant${selftest ? ', SELF-TEST kernels (results perturbed where b is subnormal)' : ''}`,
  );
  const r = await runSweeps({
    arch: target.name,
    ptx,
    ptxas: backend.ptxas!,
    cacheDir: resolveCacheDir(v['cache-dir']),
    ...(v.filter ? { filter: v.filter } : {}),
    cells,
    budget,
    selftest,
    worker: childCommand('worker'),
    ...(workers ? { workers } : {}),
    ...(shard ? { shard } : {}),
    onProgress: (m) => io.err(m),
  });
  if (!r.outcomes.length && !shard)
    throw new UsageError(`no variant to sweep${v.filter ? ` matches --filter '${v.filter}'` : ''}: sweeps cover atom/red add, min, max on .f16/.bf16 lanes`);
  const tm = performance.now();
  const rec = new RunRecorder(
    dir,
    {
      startedAt: started.toISOString(),
      command: ['npm', 'run', 'conformance', '--', 'sweep', ...argv],
      arch: target.name,
      filter: v.filter ?? null,
      seed: 0,
      specEdition: edition,
      ...(shard ? { shard: { ...shard, keepPasses: null } } : {}),
    },
    expectations,
    expectations.length ? exFile : null,
  );
  // the totals below count pairs, known deviations already apart
  rec.totalsCountResults = false;
  const stats: Record<string, number> = { sweepCompileSeconds: r.profile.compile, sweepBudgetSeconds: budget, sweepsNotRun: r.notRun.length };
  const sweeps: SweepReport[] = [];
  for (const o of r.outcomes) {
    const known = knownGroups(o, expectations);
    const knownPairs = o.groups.filter((g) => known.has(g.signature)).reduce((t, g) => t + g.count, 0);
    const sum = summary(o, selftest, ptx, known);
    rec.add([sum, ...o.results]);
    // every pair was judged: an expectation over this variant that no kept case shows is an unexpected pass
    rec.cover([sum.id]);
    const judged = new Tally();
    for (const [k, n] of [
      ['pass', o.pass],
      ['observed', o.observed],
      ['mismatch', o.mismatch - knownPairs],
      ['known-deviation', knownPairs],
    ] as const)
      if (n || k !== 'known-deviation') judged.judged(o.family, k, n);
    addTally(stats, judged);
    stats.sweepPairs = (stats.sweepPairs ?? 0) + o.pairs;
    stats.sweepSeconds = (stats.sweepSeconds ?? 0) + o.seconds.total;
    sweeps.push({
      variant: o.variant,
      domain: o.domain,
      laneBits: o.laneBits,
      family: o.family,
      lanes: o.lanes,
      pairs: o.pairs,
      pass: o.pass,
      observed: o.observed,
      mismatch: o.mismatch,
      returnedMismatch: o.returnedMismatch,
      groups: o.groups.map((g) => ({
        signature: g.signature,
        count: g.count,
        example: g.example,
        ...(known.has(g.signature) ? { expectation: known.get(g.signature)! } : {}),
      })),
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
    toolchain: toolchainOf(backend),
    modulePtx: ptx,
    backend: { name: 'gpu', reason: `sweep: ${backend.reason}`, passedOver: [] },
    stats,
    catalogEntries: r.outcomes.length,
    sweeps,
    ...(r.notRun.length ? { sweepsNotRun: r.notRun } : {}),
  });
  const tw = performance.now();
  const w = rec.finish();
  const p = r.profile;
  const line = (x: number) => x.toFixed(2);
  // where the seconds went: before the command (node, loading the CLI), probing the GPU and ptxas, and each stage
  io.err(
    `sweep seconds: start-up ${line(startup)}, GPU and ptxas probe ${line(probe)}, plan ${line(p.plan)}, compile ${line(p.compile)}, module and buffers ${line(p.load)}, ` +
      `worker start ${line(p.workers)}, reference ${line(p.reference)}, GPU ${line(p.gpu)}, judging ${line(p.judge)}, maps and summaries ${line((tw - tm) / 1000)}, report ${line((performance.now() - tw) / 1000)}; ` +
      `command ${line(performance.now() / 1000)} since the process began`,
  );
  if (r.notRun.length)
    io.err(
      `sweep: ${r.notRun.length} 32-bit sweeps not run within --budget ${budget} s (listed in report.json sweepsNotRun); their cached references make the next run faster`,
    );
  printSummary(io, w.report);
  printWritten(io, w);
  return exitCode(w.report);
}
