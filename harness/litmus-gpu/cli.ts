/**
 * `npm run conformance -- litmus --backend gpu [PATH...] [--iterations N] [--instances N] [--self-test] ...`
 * (issue 26, first slice): each runnable litmus test (global memory; ld/st/atom/red/fences, 32-bit)
 * compiled to one module (kernel.ts), run over every SM, its outcome histogram counted on the device
 * and every observed outcome judged against the model. Exit 1 when a forbidden outcome was seen
 * (or, with --self-test, when the planted one was NOT seen), 2 on bad usage or a file that does not
 * parse.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { findTarget, modulePtxFor } from '../arch/targets.js';
import { compileModules } from '../backends/gpu/cache.js';
import { loadLauncher, probeDevices } from '../backends/gpu/driver.js';
import { DEFAULT_ARCH } from '../cli/args.js';
import { UsageError } from '../util/errors.js';
import { gpuFor } from '../cli/gpu-command.js';
import type { Io } from '../cli/io.js';
import { judge } from '../memory-model/index.js';
import { prepareReportDir } from '../report/dir.js';

import { resolveCacheDir } from '../util/cache-dir.js';
import { fromRoot, shown as shownPath } from '../util/paths.js';
import { litmusFiles, readLitmusFiles } from '../cli/litmus-files.js';
import type { Judgement } from '../memory-model/events.js';
import { DEFAULT_STRESS, type Plant, type StressOptions, LOOP_BOUND, launchGeometry, litmusModule } from './kernel.js';
import { type TestPlan, moduleArch, planTest } from './plan.js';
import { runPlanned } from './run.js';
import { type FindingsFile, FINDINGS_FILE, explain, findingName, readFindingsFile } from './findings.js';
import { mutantsOf, weakCount } from './mutants.js';

import type { GpuLitmusResult } from './results.js';
import { type LoadedReplay, type ReplayRecord, REPLAY_FIXES, checkSources, loadReplay, sha256 } from './replay.js';
import { LITMUS_GPU_USAGE, SELF_TESTS, SELF_TEST_FILE, STRESS_FILE } from './usage.js';
import { checkOutDir, litmusRepro, reproName, writeLitmusRepro } from './repro.js';
import { mergeResults, mutationLines, scoreOf, writeGpuReports } from './report.js';

export type { GpuLitmusResult, MutationReport } from './results.js';
import {
  type StressFile,
  type StressSetting,
  SEARCH_GRID,
  SEARCH_SAMPLE,
  STRIDES,
  pickAlternates,
  pickBest,
  readStressFile,
  sampleMutants,
  stressesFor,
  testClass,
} from './stress.js';

export { FINDINGS_FILE };

const posInt = (name: string, s: string | undefined, min: number, max: number): number | undefined => {
  if (s === undefined) return undefined;
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < min || n > max) throw new UsageError(`--${name} takes a whole number from ${min} to ${max}, got '${s}'`);
  return n;
};

export async function litmusGpuCommand(argv: readonly string[], io: Io): Promise<number> {
  let v;
  try {
    v = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        replay: { type: 'string' },
        only: { type: 'string', multiple: true },
        repro: { type: 'string', multiple: true },
        out: { type: 'string' },
        preload: { type: 'boolean' },
        'stress-target': { type: 'string' },
        backend: { type: 'string' },
        iterations: { type: 'string' },
        instances: { type: 'string' },
        total: { type: 'string' },
        'stress-warps': { type: 'string' },
        'stress-iters': { type: 'string' },
        stride: { type: 'string' },
        align: { type: 'boolean' },
        seed: { type: 'string' },
        'self-test': { type: 'boolean' },
        mutants: { type: 'boolean' },
        'search-stress': { type: 'boolean' },
        'stress-file': { type: 'string' },
        findings: { type: 'string' },
        filter: { type: 'string' },
        arch: { type: 'string' },
        'cache-dir': { type: 'string' },
        report: { type: 'string' },
        overwrite: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(`${e instanceof Error ? e.message : String(e)}\n\n${LITMUS_GPU_USAGE}`);
  }
  const o = v.values;
  if (o.help) {
    io.out(LITMUS_GPU_USAGE);
    return 0;
  }
  // --replay: the recorded run's parameters stand in for the options it fixes
  let replay: LoadedReplay | undefined;
  if (o.replay !== undefined) {
    const given = REPLAY_FIXES.filter((k) => o[k] !== undefined);
    if (given.length || v.positionals.length)
      throw new UsageError(
        `--replay reruns the recorded run's files and parameters; give ${[...given.map((k) => `--${k}`), ...(v.positionals.length ? ['PATH'] : [])].join(', ')} without it (--only TEST picks results)`,
      );
    replay = loadReplay(o.replay, o.only ?? []);
    checkSources(replay);
    const rec = replay.record;
    Object.assign(o, { seed: String(rec.seed), arch: rec.arch, ...(rec.selfTest ? { 'self-test': true } : {}), ...(rec.mutants ? { mutants: true } : {}) });
    if (!rec.selfTest) v.positionals.push(...new Set([...replay.runs.keys()].map((f) => f.replace(/#.*$/, ''))));
  } else if (o.only) throw new UsageError('--only picks results of a --replay; give --replay REPORT.json with it (or give the test files as PATHs)');
  const iterations = posInt('iterations', o.iterations, 1, 100000);
  const perLaunch = posInt('instances', o.instances, 32, 1 << 24);
  const total = posInt('total', o.total, 1, 1e10) ?? 1_000_000;
  const cliWarps = posInt('stress-warps', o['stress-warps'], 0, 16);
  const cliIters = posInt('stress-iters', o['stress-iters'], 0, 1 << 20);
  const cliStride = posInt('stride', o.stride, 1, 64);
  if (o['stress-target'] !== undefined && o['stress-target'] !== 'scratch' && o['stress-target'] !== 'test')
    throw new UsageError(`--stress-target takes 'scratch' or 'test', got '${o['stress-target']}'`);
  const fixed =
    cliWarps !== undefined ||
    cliIters !== undefined ||
    cliStride !== undefined ||
    o.align !== undefined ||
    o.preload !== undefined ||
    o['stress-target'] !== undefined;
  const stress: StressOptions = {
    warps: cliWarps ?? DEFAULT_STRESS.warps,
    iters: cliIters ?? DEFAULT_STRESS.iters,
    lines: DEFAULT_STRESS.lines,
    align: o.align ?? false,
    preload: o.preload ?? false,
    target: (o['stress-target'] as 'scratch' | 'test' | undefined) ?? 'scratch',
  };
  if (stress.target === 'test' && (cliStride ?? 1) < 2)
    throw new UsageError("--stress-target test hammers the words between instances' copies of a location; give --stride 2 or more");
  const stride = cliStride ?? 1;
  const seed = posInt('seed', o.seed, 0, 2 ** 32 - 1) ?? 1;
  const selfTest = o['self-test'] ?? false;
  const withMutants = (o.mutants ?? false) || (o['search-stress'] ?? false);
  const search = o['search-stress'] ?? false;
  if (selfTest && v.positionals.length)
    throw new UsageError(`--self-test runs its own planted tests (${SELF_TESTS.map((s) => s.file).join(', ')}); give no PATH with it`);
  if (selfTest && withMutants) throw new UsageError('--self-test runs only its planted test; give --mutants or --search-stress without it');
  if (search && fixed)
    throw new UsageError(
      '--search-stress chooses --stress-warps, --stress-iters, --stride, --align, --preload and --stress-target itself; give none of them with it',
    );
  const stressPath = o['stress-file'] ?? shownPath(fromRoot(STRESS_FILE));
  let stressFile: StressFile | undefined;
  try {
    stressFile = fixed || selfTest ? undefined : readStressFile(stressPath);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  let findings: FindingsFile | undefined;
  try {
    findings = selfTest ? undefined : readFindingsFile(o.findings ?? fromRoot(FINDINGS_FILE));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (o.findings && !selfTest && !findings) throw new UsageError(`--findings ${o.findings}: no such file`);
  const target = findTarget(o.arch ?? DEFAULT_ARCH);
  if (!target) throw new UsageError(`unknown --arch '${o.arch}'`);
  // the self-test's planted tests (a replay of one: those its report ran)
  const selfTests = SELF_TESTS.filter((s) => !replay || [...replay.runs.keys()].some((f) => f.replace(/#.*$/, '') === s.file));
  const paths = litmusFiles(selfTest ? selfTests.map((s) => fromRoot(s.file)) : v.positionals);
  const backend = await gpuFor(
    target,
    'litmus --backend gpu runs litmus tests',
    'The judge of GPU histograms is tested on CPU (tests/litmus-gpu/); `--backend reference` judges the tests under the model alone',
  );
  const ptx = modulePtxFor(target, backend.ptxas!.maxPtx)!;
  const loaded = loadLauncher();
  if (!('launcher' in loaded)) throw new UsageError(loaded.reason);
  const l = loaded.launcher;
  const info = probeDevices(l);
  l.useDevice(0);
  const smCount = replay?.record.smCount ?? (info.devices[0]?.smCount || 132);
  const cacheDir = resolveCacheDir(o['cache-dir']);
  const started = new Date();
  const results: GpuLitmusResult[] = [];
  let unparsed = 0;
  const t0 = performance.now();
  const plantOf = (file: string): Plant => (selfTest ? (SELF_TESTS.find((s) => file.endsWith(s.file))?.plant ?? 'none') : 'none');
  // parse and plan every test (and its mutants); modules are built and compiled per stress setting
  interface Item {
    file: string;
    name: string;
    plan: TestPlan;
    j: Judgement;
    mutant?: Omit<NonNullable<GpuLitmusResult['mutant']>, 'weak'>;
  }
  const items: Item[] = [];
  for (const f of readLitmusFiles(paths, o.filter, io)) {
    const { file: shown, text, name } = f;
    if (!f.test) {
      unparsed++;
      results.push({ file: shown, name: shown, status: 'unparsed', reason: f.problems.join('; ') }); // named by its path, as GPU reports have it
      continue;
    }
    const test = f.test;
    const plan = planTest(test, text);
    if (!plan.ok) {
      results.push({ file: shown, name, status: 'skipped', reason: plan.reason });
      continue;
    }
    const j = judge(test);
    items.push({ file: shown, name, plan: plan.plan, j });
    if (!withMutants) continue;
    for (const m of mutantsOf(test, text, j, shown)) {
      const mp = planTest(m.test, m.text);
      if (!mp.ok) continue; // a mutant this slice cannot run (none in the corpus: mutants keep the test's instructions)
      items.push({
        file: `${shown}#${m.name}`,
        name: `${name}#${m.name}`,
        plan: mp.plan,
        j: m.judgement,
        mutant: { of: shown, cls: m.cls, name: m.name, change: m.change },
      });
    }
  }
  if (replay) items.splice(0, items.length, ...items.filter((it) => replay.runs.has(it.file)));
  if (!results.length && !items.length) throw new UsageError(`no litmus test selected${o.filter ? ` by --filter '${o.filter}'` : ''}`);
  const reproWanted = o.repro ?? [];
  if (o.out !== undefined && !reproWanted.length) throw new UsageError('--out names the folder of a --repro reproducer; give --repro TEST with it');
  if (o.out !== undefined) checkOutDir(o.out);
  for (const t of reproWanted)
    if (!items.some((it) => it.file === t || it.name === t))
      throw new UsageError(
        `--repro ${t}: not a test this run runs; name a test file (or file#mutant) given or selected, e.g. ${
          items
            .slice(0, 2)
            .map((it) => it.file)
            .join(', ') || SELF_TEST_FILE
        }`,
      );
  /** Set when a test's kernel faulted: the context is lost and no later test runs (each says so). */
  let lost: string | undefined;
  /** Builds, compiles (in parallel) and runs items under their settings; one result per item. */
  const runItems = async (
    batch: readonly { item: Item; set: StressSetting; from: string; total: number; its?: number; per?: number }[],
  ): Promise<GpuLitmusResult[]> => {
    const built = batch.map(({ item, set, total: tot, its: fixedIts, per }) => {
      const st: StressOptions = {
        warps: set.warps,
        iters: set.iters,
        lines: DEFAULT_STRESS.lines,
        align: set.align,
        preload: set.preload ?? false,
        target: set.target ?? 'scratch',
      };
      const geo = launchGeometry(item.plan.placement, smCount, st, per ?? perLaunch);
      return {
        st,
        geo,
        asked: per ?? perLaunch,
        its: fixedIts ?? iterations ?? Math.max(1, Math.ceil(tot / geo.instances)),
        arch: moduleArch(item.plan, target.name),
        module: litmusModule(item.plan, moduleArch(item.plan, target.name), ptx, st, geo.warpGroups, plantOf(item.file)),
      };
    });
    // one compile per distinct module (identical modules compiled at once race on the cache file)
    const once = new Map<string, Promise<string | Error>>();
    for (const b of built)
      if (!once.has(b.module))
        once.set(
          b.module,
          compileModules([b.module], { ptxas: backend.ptxas!, arch: b.arch, cacheDir }).then(
            (c) => c.modules[0]!.cubin,
            (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
          ),
        );
    const compiled: (string | Error)[] = await Promise.all(built.map((b) => once.get(b.module)!));
    return batch.map(({ item, set, from }, i) => {
      const r: GpuLitmusResult = {
        file: item.file,
        name: item.name,
        status: 'passed',
        stress: {
          warps: set.warps,
          iters: set.iters,
          stride: set.stride,
          align: set.align,
          ...(set.preload ? { preload: true } : {}),
          ...(set.target === 'test' ? { target: 'test' as const } : {}),
          from,
        },
      };
      const c = compiled[i]!;
      if (lost) {
        // a kernel fault is sticky: the context runs nothing more in this process
        r.status = 'error';
        r.reason = `not run: the GPU context was lost when ${lost} (every later test of this run is not run)`;
        return r;
      }
      if (c instanceof Error) {
        r.status = 'error';
        r.reason = `ptxas rejected its kernel: ${c.message.split('\n').slice(0, 4).join(' ')}`;
        return r;
      }
      let m: bigint | undefined;
      try {
        m = l.loadModule(readFileSync(c));
        const run = runPlanned(l, { test: l.getFunction(m, 'lt_test'), count: l.getFunction(m, 'lt_count') }, item.plan, item.j, {
          instances: built[i]!.geo.instances,
          iterations: built[i]!.its,
          stress: built[i]!.st,
          smCount,
          seed,
          stride: set.stride,
        });
        r.gpu = run;
        r.status = run.forbiddenSeen ? 'failed' : 'passed';
        const b = built[i]!;
        r.runs = [
          {
            ...r.stress!,
            iterations: b.its,
            ...(b.asked !== undefined ? { asked: b.asked } : {}),
            perLaunch: run.perLaunch,
            grid: run.geometry.grid,
            block: run.geometry.block,
            cluster: run.geometry.cluster,
            module: sha256(b.module),
            instances: run.instances,
            forbiddenSeen: run.forbiddenSeen,
          },
        ];
        if (item.mutant) r.mutant = { ...item.mutant, weak: weakCount(item.plan.test, run.keys, run.histogram) };
      } catch (e) {
        r.status = 'error';
        r.reason = (e as Error).message;
        // a kernel that faulted (an illegal instruction or address) leaves the context unusable: say which test did it
        if (/CUDA_ERROR_(ILLEGAL|LAUNCH_FAILED|MISALIGNED|HARDWARE_STACK|INVALID_PC|ASSERT)/.test(r.reason))
          lost = `${item.file}'s kernel faulted (${r.reason})`;
      } finally {
        try {
          if (m !== undefined) l.unloadModule(m);
        } catch (e) {
          // the fault surfaces here when the launches were only queued: it is this test's
          if (r.status !== 'error') (r.status = 'error'), (r.reason = (e as Error).message);
          lost ??= `${item.file}'s kernel faulted (${(e as Error).message})`;
        }
      }
      return r;
    });
  };
  if (search) {
    const searchTotal = Math.max(1, Math.round(total / 5));
    const byClass = new Map<string, Item[]>();
    for (const it of items) if (it.mutant) byClass.set(testClass(it.mutant.of), [...(byClass.get(testClass(it.mutant.of)) ?? []), it]);
    const classes: Record<string, StressFile['classes'][string]> = { ...(stressFile?.classes ?? {}) };
    for (const [cls, ms] of [...byClass].sort()) {
      const sample = sampleMutants(ms, SEARCH_SAMPLE);
      const tryAll = async (sets: readonly StressSetting[]) => {
        const rs = await runItems(sets.flatMap((set) => sample.map((item) => ({ item, set, from: 'search', total: searchTotal }))));
        return sets.map((set, si) => {
          const part = rs.slice(si * sample.length, (si + 1) * sample.length);
          killedBy.push(part.flatMap((r, mi) => ((r.mutant?.weak ?? 0) > 0 ? [mi] : [])));
          return {
            ...set,
            killed: part.filter((r) => (r.mutant?.weak ?? 0) > 0).length,
            mutants: sample.length,
            weakPerM: Math.round(part.reduce((s, r) => s + (r.gpu ? ((r.mutant?.weak ?? 0) / r.gpu.instances) * 1e6 : 0), 0)),
          };
        });
      };
      const killedBy: number[][] = [];
      const tried = await tryAll(SEARCH_GRID);
      const b = pickBest(tried);
      tried.push(
        ...(await tryAll(
          STRIDES.map((stride) => ({
            warps: b.warps,
            iters: b.iters,
            stride,
            align: b.align,
            ...(b.preload ? { preload: true } : {}),
            ...(b.target === 'test' ? { target: 'test' as const } : {}),
          })),
        )),
      );
      const best = pickBest(tried);
      const alternates = pickAlternates(tried, killedBy, tried.indexOf(best), 2).map((i) => tried[i]!);
      classes[cls] = { ...best, tried, ...(alternates.length ? { alternates } : {}) };
      io.out(
        `stress search ${cls}: ${sample.length} mutant(s) x ${tried.length} settings x ${searchTotal} instances; best align ${best.align ? 'on' : 'off'}, warps ${best.warps}, iters ${best.iters}, stride ${best.stride}: ${best.killed}/${best.mutants} killed, ${best.weakPerM} weak per M`,
      );
    }
    stressFile = {
      schema: 'ptx-reduction-conformance/litmus-gpu-stress',
      version: 1,
      measuredOn: info.devices[0]?.name ?? '',
      measuredAt: new Date().toISOString(),
      instances: searchTotal,
      classes,
    };
    writeFileSync(stressPath, `${JSON.stringify(stressFile, null, 1)}\n`);
    io.out(`stress settings written to ${stressPath}`);
  }
  {
    // every item under each of its settings (the class's best, then its alternates); histograms added up
    const batch = items.flatMap((item): { item: Item; set: StressSetting; from: string; total: number; its?: number; per?: number }[] => {
      const recorded = replay?.runs.get(item.file);
      if (recorded)
        return recorded.map((rr) => ({
          item,
          set: {
            warps: rr.warps,
            iters: rr.iters,
            stride: rr.stride,
            align: rr.align,
            ...(rr.preload ? { preload: true } : {}),
            ...(rr.target === 'test' ? { target: 'test' as const } : {}),
          },
          from: rr.from,
          total,
          its: rr.iterations,
          ...(rr.asked !== undefined ? { per: rr.asked } : {}),
        }));
      const sets = fixed
        ? [
            {
              warps: stress.warps,
              iters: stress.iters,
              stride,
              align: stress.align ?? false,
              ...(stress.preload ? { preload: true } : {}),
              ...(stress.target === 'test' ? { target: 'test' as const } : {}),
              from: 'command line',
            },
          ]
        : stressesFor(item.mutant?.of ?? item.file, stressFile);
      return sets.map((s) => ({ item, set: s, from: s.from, total }));
    });
    const rs = await runItems(batch);
    const byItem = new Map<Item, GpuLitmusResult>();
    batch.forEach((b, i) => byItem.set(b.item, byItem.has(b.item) ? mergeResults(byItem.get(b.item)!, rs[i]!) : rs[i]!));
    results.push(...items.map((it) => byItem.get(it)!));
  }
  const seconds = (performance.now() - t0) / 1000;
  // explained findings: a test whose every forbidden outcome seen is named by the findings file is a known deviation
  for (const r of results) {
    if (r.status !== 'failed' || !r.gpu || r.mutant) continue;
    const x = explain(findings, r.file, r.gpu);
    if (x.known.length && !x.unexplained) {
      r.status = 'known-deviation';
      r.known = x.known;
    }
  }
  // print
  for (const r of results) {
    if (!r.gpu) {
      io.out(`${r.file}  ${r.status}  ${r.reason ?? ''}`);
      continue;
    }
    const g = r.gpu;
    if (r.mutant && r.status !== 'failed') {
      io.out(
        `${r.file}  mutant (${r.mutant.cls}: ${r.mutant.change})  weak outcome ${r.mutant.weak ? `seen ${r.mutant.weak} times` : 'NOT seen'} in ${g.instances} instances`,
      );
      continue;
    }
    io.out(
      `${r.file}  ${r.status === 'failed' ? `FORBIDDEN OUTCOME SEEN (${g.forbiddenSeen} of ${g.instances})` : r.status === 'known-deviation' ? r.known!.map((k) => `known deviation (finding ${findingName(k.finding)}): ${k.count} of ${g.instances}`).join('; ') : 'no forbidden outcome seen'}  ${g.instances} instances (${g.iterations} x ${g.perLaunch}), ${(g.instancesPerSecond / 1e6).toFixed(1)} M/s`,
    );
    io.out(`    ${[...g.keys, 'count', 'verdict'].join('  ')}`);
    for (const h of g.histogram)
      io.out(
        `    ${[...h.values, String(h.count), h.allowed ? (h.count ? 'allowed' : `allowed, NEVER SEEN in ${g.instances} instances`) : `forbidden (${h.why})${h.count ? '  <- SEEN' : ''}`].join('  ')}`,
      );
    if (g.other.count) io.out(`    ${g.other.count} outcome(s) outside the table; ${g.other.samples} sampled above`);
    if (g.gaveUp) io.out(`    ${g.gaveUp} instance(s) not judged: a thread's loop ran ${LOOP_BOUND} times and gave up`);
  }
  const ran = results.filter((r) => r.gpu);
  const forbidden = results.filter((r) => r.status === 'failed').length;
  const errors = results.filter((r) => r.status === 'error').length;
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const knownDeviations = results.filter((r) => r.status === 'known-deviation').length;
  const inst = ran.reduce((s, r) => s + r.gpu!.instances, 0);
  io.out(
    `${results.length} test(s): ${ran.length} ran on ${info.devices[0]?.name ?? 'the GPU'} (${inst} instances), ${skipped} skipped, ${unparsed} unparsed, ${errors} errors; ${forbidden} with a forbidden outcome seen${knownDeviations ? `, ${knownDeviations} with only known deviations (explained findings)` : ''}; ${seconds.toFixed(1)} s`,
  );
  const mutation = withMutants ? scoreOf(results) : undefined;
  if (mutation) for (const line of mutationLines(mutation)) io.out(line);
  const dir = prepareReportDir(o.report, 'litmus-gpu-', started, (s) => io.err(s), { overwrite: o.overwrite ?? false });
  // reproducers: every result with a forbidden outcome seen, and each --repro
  const repros: Record<string, string> = {};
  for (const r of results) {
    const want = reproWanted.find((t) => t === r.file || t === r.name);
    if (!r.gpu || !r.runs?.length || (!r.gpu.forbiddenSeen && !want)) continue; // a known deviation (explained finding) gets one too
    const item = items.find((it) => it.file === r.file)!;
    const rr = r.runs.slice().sort((a, b) => b.forbiddenSeen - a.forbiddenSeen)[0]!; // the setting that saw the most
    const folder = want && o.out ? (reproWanted.length > 1 ? join(o.out, reproName(r.file)) : o.out) : join(dir, 'repro', reproName(r.file));
    const input = {
      file: r.file,
      name: r.name,
      plan: item.plan,
      judgement: item.j,
      arch: moduleArch(item.plan, target.name),
      ptx: target.minPtx,
      stress: {
        warps: rr.warps,
        iters: rr.iters,
        lines: DEFAULT_STRESS.lines,
        align: rr.align,
        preload: rr.preload ?? false,
        target: rr.target ?? 'scratch',
        stride: rr.stride,
      },
      smCount,
      ...(rr.asked !== undefined ? { perLaunch: rr.asked } : {}),
      iterations: rr.iterations,
      seed,
      plant: plantOf(r.file),
      run: r.gpu,
      command: `npm run conformance -- litmus --backend gpu --replay ${join(dir, 'report.json')} --only ${r.file}`,
      device: info.devices[0]?.name ?? '',
      toolchain: backend.ptxas!.versionLine,
    };
    let files = litmusRepro(input);
    // kernel.ptx at the target's lowest PTX ISA version, if this ptxas takes it there; else at the run's
    const low = await compileModules([files['kernel.ptx']!], { ptxas: backend.ptxas!, arch: input.arch, cacheDir }).then(
      () => true,
      () => false,
    );
    if (!low) files = litmusRepro({ ...input, ptx, lowestRefused: target.minPtx });
    try {
      writeLitmusRepro(folder, files);
    } catch (e) {
      throw new UsageError(
        `${o.out && want ? `--out ${o.out}` : folder}: the reproducer could not be written (${(e as Error).message}); name a folder you can write to`,
      );
    }
    repros[r.file] = relative(dir, folder) || '.';
    io.out(`reproducer of ${r.file}: ${folder} (sh build.sh && ./repro)`);
  }
  const replayRecord: ReplayRecord = {
    version: 1,
    seed,
    arch: target.name,
    smCount,
    modulePtx: ptx,
    toolchain: backend.ptxas!.versionLine,
    selfTest,
    mutants: withMutants,
    files: [...new Set(items.map((it) => it.mutant?.of ?? it.file))].map((file) => ({ file, sha256: sha256(readFileSync(file)) })),
  };
  writeGpuReports(dir, io, results, started, argv, {
    device: info.devices[0]?.name ?? '',
    seconds,
    stress,
    seed,
    stride,
    selfTest,
    stressFile: replay ? `the replayed report ${replay.path}` : fixed ? 'command line' : stressFile ? stressPath : 'defaults',
    ...(mutation ? { mutation } : {}),
    replay: replayRecord,
    ...(replay ? { replayOf: replay.path } : {}),
    ...(Object.keys(repros).length ? { repros } : {}),
  });
  if (unparsed) return 2;
  if (selfTest) {
    // every planted kernel must show its forbidden outcome
    const seen = selfTests.map((s) => ({ ...s, n: ran.find((r) => r.file.endsWith(s.file))?.gpu?.forbiddenSeen ?? 0 }));
    for (const s of seen)
      io.out(
        s.n
          ? `self-test (${s.plant}, ${s.file}): the planted forbidden outcome was flagged, ${s.n} times`
          : `self-test FAILED (${s.plant}, ${s.file}): the planted kernel showed no forbidden outcome`,
      );
    return seen.every((s) => s.n > 0) && !errors ? 0 : 1;
  }
  return forbidden || errors ? 1 : 0;
}
