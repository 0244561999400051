/**
 * `npm run conformance -- contend [--arch A] [--filter F] [--reps R] [--self-test] [--report DIR]
 * [--cache-dir DIR] [--backend gpu|auto]`: atom/red variants under contention on the GPU
 * (harness/contention/), every outcome judged exactly by the contention model. Exit codes as a run.
 */
import { modulePtxFor } from '../arch/targets.js';
import { expectationsPath } from '../compare/expectations.js';
import type { ContentionReport } from '../report/json.js';
import { RunRecorder } from '../report/recorder.js';
import { prepareReportDir } from '../report/dir.js';
import type { EntryResult } from '../report/types.js';
import { type ContentionOutcome, runContention } from '../contention/run.js';
import { resolveCacheDir } from '../util/cache-dir.js';
import { DEFAULT_ARCH } from './args.js';
import { UsageError } from '../util/errors.js';
import { readExpectations } from './expectations-file.js';
import { checkGpuOnly, gpuFor, parseGpuCommand, toolchainOf } from './gpu-command.js';
import type { Io } from './io.js';
import { exitCode, printSummary, printWritten } from './summary.js';

export const CONTEND_USAGE = `npm run conformance -- contend [options]
  atom and red under contention on the GPU: N participants on one address (one warp; one thread of
  each of N warps; one thread of each of N CTAs), each variant (one per op, type, vector, space,
  destination; .global.add.f32 with every scope) with operand sets whose order changes the result,
  whose partial sums are exact, and special values; judged exactly: atom's returned values must be
  one linearisation (the order is reconstructed), red's final value the result of some order;
  a scope that does not include every participant allows split reads and writes (lost updates)
  --arch A          target (default ${DEFAULT_ARCH})
  --filter F        only variants whose id matches (as elsewhere)
  --shard I/N       shard I (from 0) of N, balanced by cost; merge puts the reports together
  --spec-edition E  the PTX ISA edition to judge against (9.1-9.4; default the newest, 9.4)
  --reps R          addresses per launch, each the same operations (default 256; a multiple of 32,
                    at most 1024); every group is launched twice to compare the bits (determinism)
  --self-test       run red.global.add.f32 as a plain load, add and store (not atomic): it must be
                    judged a mismatch as red, and allowed under a narrow scope's split semantics
  --expectations F  known deviations (default cases/expectations/<arch>.yaml, as the main run): a
                    group they cover is a known deviation; one that no longer deviates, an
                    unexpected pass (exit 1); a broken file stops the command before it runs (exit 2)
  --report DIR      where the reports go (default reports/out/contend-<timestamp>/)
  --overwrite       replace a report already in --report DIR (without it that folder is refused, exit 2)
  --cache-dir DIR   cubins (default as elsewhere)
  --ptxas PATH      the ptxas that compiles the kernels (default: the one found); repeatable: the
                    command once per ptxas, each report in a folder named after it, compared in
                    matrix.json/matrix.txt (docs/toolchains.md)
  --backend B       gpu or auto (contention needs the GPU)`;

function summary(o: ContentionOutcome, modulePtx: string): EntryResult {
  const g = o.group;
  const e = g.gv.entry;
  const hist = o.outcomes
    .slice(0, 6)
    .map((x) => `${x.count}x ${x.verdict}${x.orders?.length ? ` (order ${x.orders[0]!.join(' ')})` : ''}: memory ${x.memory.join(' ')}`)
    .join('; ');
  return {
    id: o.id,
    family: e.family,
    kind: 'case',
    ptx: e.ptx,
    modulePtx,
    catalog: { status: 'valid', expect: 'accept', reason: 'a catalog variant under contention', rules: [] },
    verdict: o.verdict === 'error' ? 'error' : o.verdict,
    reason:
      `${o.n} participants (${g.layout}${g.mode === 1 ? ', generic address in shared memory' : ''}, operands '${g.set.name}'), ${o.reps} addresses x 2 launches, ` +
      `${g.atomic ? 'scopes include every participant (atomic)' : 'a scope that does not include every participant (split read/write allowed)'}${g.selftest ? ', SELF-TEST: plain load/add/store' : ''}: ` +
      `${o.outcomes.length} distinct outcomes${o.allowed !== undefined ? ` (${o.allowed} final values allowed by some order)` : ''}; ${o.deterministic ? 'the two launches gave identical bits' : 'the two launches differed'}; ` +
      `${o.lostUpdates ? `${o.lostUpdates} addresses lost an update; ` : g.atomic ? '' : `no address lost an update (the narrow scope would allow it); `}${hist}${o.outcomes[0] && o.verdict !== 'pass' ? `; first: ${o.outcomes.find((x) => x.verdict === o.verdict)?.reason ?? ''}` : ''}` +
      `${o.asSplit ? `; judged as a narrow scope (split read/write): ${o.asSplit.verdict}: ${o.asSplit.reason}` : ''}`,
  };
}

export async function contendCommand(argv: readonly string[], io: Io): Promise<number> {
  // --keep is the main run's (issue 28: honoured on every path that takes it, refused here in words)
  if (argv.some((a) => a === '--keep' || a.startsWith('--keep='))) {
    throw new UsageError(
      '--keep is not an option of contend: contend keeps one result for every group it runs (a variant, a layout of participants, an operand set), with its outcomes counted. --keep sets what a run keeps (npm run conformance -- --keep N)',
    );
  }
  const parsed = parseGpuCommand(argv, { reps: { type: 'string' }, 'self-test': { type: 'boolean' }, expectations: { type: 'string' } }, CONTEND_USAGE, io.out);
  if (!parsed) return 0;
  const { v, target, shard, edition } = parsed;
  const reps = v.reps === undefined ? 256 : Number(v.reps);
  if (!Number.isInteger(reps) || reps < 32 || reps > 1024 || reps % 32) throw new UsageError(`--reps takes a multiple of 32 from 32 to 1024, got '${v.reps}'`);
  checkGpuOnly(v.backend, 'contention', 'it runs atomics on the hardware');
  // the expectations as the main run reads them, before anything runs (a broken file: exit 2)
  const exFile = v.expectations ?? expectationsPath(target.name);
  const expectations = await readExpectations(exFile, v.expectations !== undefined, io);
  if (!expectations) return 2;
  const backend = await gpuFor(
    target,
    'contention runs',
    `The contention model's judgement is tested on CPU (tests/contention/); reports recorded elsewhere open here with \`render\``,
    v.ptxas?.[0],
  );
  const ptx = modulePtxFor(target, backend.ptxas!.maxPtx)!;
  const selftest = v['self-test'] ?? false;
  const started = new Date();
  const dir = prepareReportDir(v.report, 'contend-', started, (l) => io.err(l), { overwrite: v.overwrite ?? false });
  io.err(`contend on ${backend.device!.name}: ${reps} addresses per launch, 2 launches per group${selftest ? ', SELF-TEST (plain load/add/store)' : ''}`);
  if (expectations.length) io.err(`expectations: ${expectations.length} known deviation(s) from ${exFile}`);
  const t0 = performance.now();
  const r = await runContention({
    arch: target.name,
    ptx,
    ptxas: backend.ptxas!,
    cacheDir: resolveCacheDir(v['cache-dir']),
    ...(v.filter ? { filter: v.filter } : {}),
    ...(shard ? { shard } : {}),
    reps,
    selftest,
    onProgress: (m) => io.err(m),
  });
  if (!r.outcomes.length && !shard)
    throw new UsageError(
      `no variant to run under contention${v.filter ? ` matches --filter '${v.filter}'` : ''}: contention covers atom and red (not 128-bit types)`,
    );
  const rec = new RunRecorder(
    dir,
    {
      startedAt: started.toISOString(),
      command: ['npm', 'run', 'conformance', '--', 'contend', ...argv],
      arch: target.name,
      filter: v.filter ?? null,
      seed: 0,
      specEdition: edition,
      ...(shard ? { shard: { ...shard, keepPasses: null } } : {}),
    },
    expectations,
    expectations.length ? exFile : null,
  );
  rec.set({ toolchain: toolchainOf(backend), backend: { name: 'gpu', reason: `contend: ${backend.reason}`, passedOver: [] } });
  rec.add(r.outcomes.map((o) => summary(o, ptx)));
  const contention: ContentionReport[] = r.outcomes.map((o) => ({
    id: o.id,
    variant: o.group.gv.entry.id,
    layout: o.group.layout,
    set: o.group.set.name,
    n: o.n,
    reps: o.reps,
    atomic: o.group.atomic,
    verdict: o.verdict,
    ...(o.allowed !== undefined ? { allowed: o.allowed } : {}),
    deterministic: o.deterministic,
    lostUpdates: o.lostUpdates,
    selftest: o.group.selftest ?? false,
    ...(o.asSplit ? { asSplit: o.asSplit } : {}),
    outcomes: o.outcomes.slice(0, 16),
    distinct: o.outcomes.length,
    counts: o.outcomes.reduce<Record<string, number>>((t, x) => ({ ...t, [x.verdict]: (t[x.verdict] ?? 0) + x.count }), {}),
  }));
  const seconds = (performance.now() - t0) / 1000;
  rec.set({
    toolchain: toolchainOf(backend),
    modulePtx: ptx,
    backend: { name: 'gpu', reason: `contend: ${backend.reason}`, passedOver: [] },
    stats: {
      contentionGroups: r.outcomes.length,
      contentionSeconds: seconds,
      contentionCompileSeconds: r.seconds.compile,
      contentionGpuAndJudgeSeconds: r.seconds.gpu,
      contentionNondeterministic: r.outcomes.filter((o) => !o.deterministic).length,
      contentionLostUpdates: r.outcomes.reduce((t, o) => t + o.lostUpdates, 0),
    },
    catalogEntries: new Set(r.outcomes.map((o) => o.group.gv.entry.id)).size,
    contention,
  });
  const w = rec.finish();
  io.err(
    `contend seconds: ${seconds.toFixed(2)} (compile ${r.seconds.compile.toFixed(2)}, GPU and judging ${r.seconds.gpu.toFixed(2)}) for ${r.outcomes.length} groups; ${r.outcomes.filter((o) => !o.deterministic).length} groups whose two launches differed`,
  );
  printSummary(io, w.report);
  printWritten(io, w);
  return exitCode(w.report);
}
