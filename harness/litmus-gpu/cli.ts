/**
 * `npm run conformance -- litmus --backend gpu [PATH...] [--iterations N] [--instances N] [--self-test] ...`
 * (issue 26, first slice): each runnable litmus test (global memory; ld/st/atom/red/fences, 32-bit)
 * compiled to one module (kernel.ts), run over every SM, its outcome histogram counted on the device
 * and every observed outcome judged against the model. Exit 1 when a forbidden outcome was seen
 * (or, with --self-test, when the planted one was NOT seen), 2 on bad usage or a file that does not
 * parse.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { findTarget, modulePtxFor } from '../arch/targets.js';
import { compileModules } from '../backends/gpu/cache.js';
import { loadLauncher, probeDevices } from '../backends/gpu/driver.js';
import { DEFAULT_ARCH } from '../cli/args.js';
import { UsageError } from '../cli/errors.js';
import { gpuFor } from '../cli/gpu-command.js';
import type { Io } from '../cli/main.js';
import { parseLitmus } from '../memory-model/extended.js';
import { judge } from '../memory-model/index.js';
import { prepareReportDir } from '../report/dir.js';
import { xmlText } from '../report/junit.js';
import { resolveCacheDir } from '../util/cache-dir.js';
import { compileFilter } from '../util/filter.js';
import type { Judgement } from '../memory-model/events.js';
import { DEFAULT_STRESS, type Plant, type StressOptions, type TestPlan, launchGeometry, litmusModule, planTest } from './kernel.js';
import { type GpuLitmusRun, runPlanned } from './run.js';
import { type ClassScore, type MutantClass, MUTANT_CLASSES, mutantsOf, mutationScores, weakCount } from './mutants.js';
import { type StressFile, type StressSetting, SEARCH_GRID, STRIDES, pickBest, readStressFile, sampleMutants, stressFor, testClass } from './stress.js';

export const STRESS_FILE = 'cases/litmus/gpu-stress.json';

export const LITMUS_GPU_USAGE = `npm run conformance -- litmus --backend gpu [PATH...] [options]
  runs each runnable litmus test on the GPU (issue 26, first slice: global memory; ld, st, atom, red
  and fences on 32-bit values; other tests are skipped with the reason), many instances at once over
  every SM, the outcomes counted on the device, every observed outcome judged against the model
  --iterations N    launches per test (default: enough for --total instances)
  --instances N     instances per launch (default: as many as fill the GPU once)
  --total N         instances per test when --iterations is not given (default 1000000)
  --stress-warps N  extra warps per CTA hammering scratch lines (default ${DEFAULT_STRESS.warps}; 0: none)
  --stress-iters N  store/load pairs per stress thread (default ${DEFAULT_STRESS.iters})
  --stride N        words between instances' copies of a location (default 1)
  --align           the threads of an instance meet on a barrier word before their code (default off)
  --seed N          seed of the per-iteration permutations (default 1)
  --mutants         also run every test's mutants (mutants.ts: the model forbids the test's weak
                    outcome, allows the mutant's) and report the mutation score per class
  --search-stress   try stress settings (align off/on x warps 0/2/8 x iters 16/64/256 at stride 1,
                    then strides 4 and 32 at the best) per test class on a sample of mutants; write the best by mutation score
                    to --stress-file, then run with them
  --stress-file F   per-class stress settings read by default (default ${STRESS_FILE}; given
                    --stress-warps, --stress-iters or --stride, those apply to every test)
  --self-test       run a planted kernel (MP with the flag write hoisted above the data write) whose
                    forbidden outcome must be seen; exit 1 if it is not
  --filter F, --arch A, --cache-dir D, --report DIR
  exit: 0 no forbidden outcome seen; 1 a forbidden outcome seen (or a test failed to run); 2 bad usage
  or a file that does not parse`;

export const SELF_TEST_FILE = 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus';

export interface GpuLitmusResult {
  file: string;
  name: string;
  status: 'passed' | 'failed' | 'skipped' | 'unparsed' | 'error';
  reason?: string;
  gpu?: GpuLitmusRun;
  /** For a mutant: the test it mutates, its class and change, and how many instances showed its weak outcome. */
  mutant?: { of: string; cls: MutantClass; name: string; change: string; weak: number };
  /** The stress settings it ran with. */
  stress?: { warps: number; iters: number; stride: number; align: boolean; from: string };
}

function files(paths: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    if (statSync(p).isDirectory()) for (const e of readdirSync(p).sort()) (statSync(join(p, e)).isDirectory() || e.endsWith('.litmus')) && walk(join(p, e));
    else out.push(p);
  };
  for (const p of paths) {
    if (!existsSync(p)) throw new UsageError(`${p}: no such file or folder; give litmus files or folders (default cases/litmus/)`);
    walk(p);
  }
  return out;
}

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
      options: { backend: { type: 'string' }, iterations: { type: 'string' }, instances: { type: 'string' }, total: { type: 'string' }, 'stress-warps': { type: 'string' }, 'stress-iters': { type: 'string' }, stride: { type: 'string' }, align: { type: 'boolean' }, seed: { type: 'string' }, 'self-test': { type: 'boolean' }, mutants: { type: 'boolean' }, 'search-stress': { type: 'boolean' }, 'stress-file': { type: 'string' }, filter: { type: 'string' }, arch: { type: 'string' }, 'cache-dir': { type: 'string' }, report: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    throw new UsageError(`${e instanceof Error ? e.message : String(e)}\n\n${LITMUS_GPU_USAGE}`);
  }
  const o = v.values;
  if (o.help) {
    io.out(LITMUS_GPU_USAGE);
    return 0;
  }
  const iterations = posInt('iterations', o.iterations, 1, 100000);
  const perLaunch = posInt('instances', o.instances, 32, 1 << 24);
  const total = posInt('total', o.total, 1, 1e10) ?? 1_000_000;
  const cliWarps = posInt('stress-warps', o['stress-warps'], 0, 16);
  const cliIters = posInt('stress-iters', o['stress-iters'], 0, 1 << 20);
  const cliStride = posInt('stride', o.stride, 1, 64);
  const fixed = cliWarps !== undefined || cliIters !== undefined || cliStride !== undefined || o.align !== undefined;
  const stress: StressOptions = { warps: cliWarps ?? DEFAULT_STRESS.warps, iters: cliIters ?? DEFAULT_STRESS.iters, lines: DEFAULT_STRESS.lines, align: o.align ?? false };
  const stride = cliStride ?? 1;
  const seed = posInt('seed', o.seed, 0, 2 ** 32 - 1) ?? 1;
  const selfTest = o['self-test'] ?? false;
  const withMutants = (o.mutants ?? false) || (o['search-stress'] ?? false);
  const search = o['search-stress'] ?? false;
  if (selfTest && v.positionals.length) throw new UsageError(`--self-test runs its own planted test (${SELF_TEST_FILE}); give no PATH with it`);
  if (selfTest && withMutants) throw new UsageError('--self-test runs only its planted test; give --mutants or --search-stress without it');
  if (search && fixed) throw new UsageError('--search-stress chooses --stress-warps, --stress-iters, --stride and --align itself; give none of them with it');
  const stressPath = o['stress-file'] ?? STRESS_FILE;
  let stressFile: StressFile | undefined;
  try {
    stressFile = fixed || selfTest ? undefined : readStressFile(stressPath);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const target = findTarget(o.arch ?? DEFAULT_ARCH);
  if (!target) throw new UsageError(`unknown --arch '${o.arch}'`);
  const paths = files(selfTest ? [SELF_TEST_FILE] : v.positionals.length ? v.positionals : ['cases/litmus']);
  const keep = compileFilter(o.filter);
  const backend = await gpuFor(target, 'litmus --backend gpu runs litmus tests', 'The judge of GPU histograms is tested on CPU (tests/litmus-gpu/); `--backend reference` judges the tests under the model alone');
  const ptx = modulePtxFor(target, backend.ptxas!.maxPtx)!;
  const loaded = loadLauncher();
  if (!('launcher' in loaded)) throw new UsageError(loaded.reason);
  const l = loaded.launcher;
  const info = probeDevices(l);
  l.useDevice(0);
  const smCount = info.devices[0]?.smCount || 132;
  const cacheDir = resolveCacheDir(o['cache-dir']);
  const started = new Date();
  const results: GpuLitmusResult[] = [];
  let unparsed = 0;
  const t0 = performance.now();
  const plant: Plant = selfTest ? 'hoist' : 'none';
  // parse and plan every test (and its mutants); modules are built and compiled per stress setting
  interface Item { file: string; name: string; plan: TestPlan; j: Judgement; mutant?: Omit<NonNullable<GpuLitmusResult['mutant']>, 'weak'> }
  const items: Item[] = [];
  for (const file of paths) {
    const shown = relative(process.cwd(), file) || file;
    const text = readFileSync(file, 'utf8');
    const p = parseLitmus(text, shown);
    const name = p.test?.name ?? shown;
    if (o.filter && !keep(shown) && !keep(name)) continue;
    if (!p.test) {
      unparsed++;
      const msg = p.problems.map((x) => `${x.file}:${x.line}:${x.col}: ${x.message}`).join('; ');
      io.err(msg);
      results.push({ file: shown, name, status: 'unparsed', reason: msg });
      continue;
    }
    const plan = planTest(p.test, text);
    if (!plan.ok) {
      results.push({ file: shown, name, status: 'skipped', reason: plan.reason });
      continue;
    }
    const j = judge(p.test);
    items.push({ file: shown, name, plan: plan.plan, j });
    if (!withMutants) continue;
    for (const m of mutantsOf(p.test, text, j, shown)) {
      const mp = planTest(m.test, m.text);
      if (!mp.ok) continue; // a mutant this slice cannot run (none in the corpus: mutants keep the test's instructions)
      items.push({ file: `${shown}#${m.name}`, name: `${name}#${m.name}`, plan: mp.plan, j: m.judgement, mutant: { of: shown, cls: m.cls, name: m.name, change: m.change } });
    }
  }
  if (!results.length && !items.length) throw new UsageError(`no litmus test selected${o.filter ? ` by --filter '${o.filter}'` : ''}`);
  /** Builds, compiles (in parallel) and runs items under their settings; one result per item. */
  const runItems = async (batch: readonly { item: Item; set: StressSetting; from: string; total: number }[]): Promise<GpuLitmusResult[]> => {
    const built = batch.map(({ item, set, total: tot }) => {
      const st: StressOptions = { warps: set.warps, iters: set.iters, lines: DEFAULT_STRESS.lines, align: set.align };
      const geo = launchGeometry(item.plan.placement, smCount, st, perLaunch);
      return { st, geo, its: iterations ?? Math.max(1, Math.ceil(tot / geo.instances)), module: litmusModule(item.plan, target.name, ptx, st, geo.warpGroups, plant) };
    });
    // one compile per distinct module (identical modules compiled at once race on the cache file)
    const once = new Map<string, Promise<string | Error>>();
    for (const b of built) if (!once.has(b.module)) once.set(b.module, compileModules([b.module], { ptxas: backend.ptxas!, arch: target.name, cacheDir }).then((c) => c.modules[0]!.cubin, (e: unknown) => (e instanceof Error ? e : new Error(String(e)))));
    const compiled: (string | Error)[] = await Promise.all(built.map((b) => once.get(b.module)!));
    return batch.map(({ item, set, from }, i) => {
      const r: GpuLitmusResult = { file: item.file, name: item.name, status: 'passed', stress: { warps: set.warps, iters: set.iters, stride: set.stride, align: set.align, from } };
      const c = compiled[i]!;
      if (c instanceof Error) {
        r.status = 'error';
        r.reason = `ptxas rejected its kernel: ${c.message.split('\n').slice(0, 4).join(' ')}`;
        return r;
      }
      let m: bigint | undefined;
      try {
        m = l.loadModule(readFileSync(c));
        const run = runPlanned(l, { test: l.getFunction(m, 'lt_test'), count: l.getFunction(m, 'lt_count') }, item.plan, item.j, { instances: built[i]!.geo.instances, iterations: built[i]!.its, stress: built[i]!.st, smCount, seed, stride: set.stride });
        r.gpu = run;
        r.status = run.forbiddenSeen ? 'failed' : 'passed';
        if (item.mutant) r.mutant = { ...item.mutant, weak: weakCount(item.plan.test, run.keys, run.histogram) };
      } catch (e) {
        r.status = 'error';
        r.reason = (e as Error).message;
      } finally {
        if (m !== undefined) l.unloadModule(m);
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
      const sample = sampleMutants(ms, 4);
      const tryAll = async (sets: readonly StressSetting[]) => {
        const rs = await runItems(sets.flatMap((set) => sample.map((item) => ({ item, set, from: 'search', total: searchTotal }))));
        return sets.map((set, si) => {
          const part = rs.slice(si * sample.length, (si + 1) * sample.length);
          return { ...set, killed: part.filter((r) => (r.mutant?.weak ?? 0) > 0).length, mutants: sample.length, weakPerM: Math.round(part.reduce((s, r) => s + (r.gpu ? ((r.mutant?.weak ?? 0) / r.gpu.instances) * 1e6 : 0), 0)) };
        });
      };
      const tried = await tryAll(SEARCH_GRID);
      const b = pickBest(tried);
      tried.push(...(await tryAll(STRIDES.map((stride) => ({ warps: b.warps, iters: b.iters, stride, align: b.align })))));
      const best = pickBest(tried);
      classes[cls] = { ...best, tried };
      io.out(`stress search ${cls}: ${sample.length} mutant(s) x ${tried.length} settings x ${searchTotal} instances; best align ${best.align ? 'on' : 'off'}, warps ${best.warps}, iters ${best.iters}, stride ${best.stride}: ${best.killed}/${best.mutants} killed, ${best.weakPerM} weak per M`);
    }
    stressFile = { schema: 'ptx-reduction-conformance/litmus-gpu-stress', version: 1, measuredOn: info.devices[0]?.name ?? '', measuredAt: new Date().toISOString(), instances: searchTotal, classes };
    writeFileSync(stressPath, `${JSON.stringify(stressFile, null, 1)}\n`);
    io.out(`stress settings written to ${stressPath}`);
  }
  results.push(
    ...(await runItems(
      items.map((item) => {
        const s = fixed ? { warps: stress.warps, iters: stress.iters, stride, align: stress.align ?? false, from: 'command line' } : stressFor(item.mutant?.of ?? item.file, stressFile);
        return { item, set: s, from: s.from, total };
      }),
    )),
  );
  const seconds = (performance.now() - t0) / 1000;
  // print
  for (const r of results) {
    if (!r.gpu) {
      io.out(`${r.file}  ${r.status}  ${r.reason ?? ''}`);
      continue;
    }
    const g = r.gpu;
    if (r.mutant && r.status !== 'failed') {
      io.out(`${r.file}  mutant (${r.mutant.cls}: ${r.mutant.change})  weak outcome ${r.mutant.weak ? `seen ${r.mutant.weak} times` : 'NOT seen'} in ${g.instances} instances`);
      continue;
    }
    io.out(`${r.file}  ${r.status === 'failed' ? `FORBIDDEN OUTCOME SEEN (${g.forbiddenSeen} of ${g.instances})` : 'no forbidden outcome seen'}  ${g.instances} instances (${g.iterations} x ${g.perLaunch}), ${(g.instancesPerSecond / 1e6).toFixed(1)} M/s`);
    io.out(`    ${[...g.keys, 'count', 'verdict'].join('  ')}`);
    for (const h of g.histogram) io.out(`    ${[...h.values, String(h.count), h.allowed ? (h.count ? 'allowed' : `allowed, NEVER SEEN in ${g.instances} instances`) : `forbidden (${h.why})${h.count ? '  <- SEEN' : ''}`].join('  ')}`);
    if (g.other.count) io.out(`    ${g.other.count} outcome(s) outside the table; ${g.other.samples} sampled above`);
  }
  const ran = results.filter((r) => r.gpu);
  const forbidden = results.filter((r) => r.status === 'failed').length;
  const errors = results.filter((r) => r.status === 'error').length;
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const inst = ran.reduce((s, r) => s + r.gpu!.instances, 0);
  io.out(`${results.length} test(s): ${ran.length} ran on ${info.devices[0]?.name ?? 'the GPU'} (${inst} instances), ${skipped} skipped, ${unparsed} unparsed, ${errors} errors; ${forbidden} with a forbidden outcome seen; ${seconds.toFixed(1)} s`);
  const mutation = withMutants ? scoreOf(results) : undefined;
  if (mutation) for (const line of mutationLines(mutation)) io.out(line);
  const dir = prepareReportDir(o.report, 'litmus-gpu-', started, (s) => io.err(s));
  writeGpuReports(dir, results, started, argv, { device: info.devices[0]?.name ?? '', seconds, stress, seed, stride, selfTest, stressFile: fixed ? 'command line' : stressFile ? stressPath : 'defaults', ...(mutation ? { mutation } : {}) });
  io.out(`report: ${join(dir, 'report.json')} (also report.html, junit.xml)`);
  if (unparsed) return 2;
  if (selfTest) {
    const seen = ran[0]?.gpu?.forbiddenSeen ?? 0;
    io.out(seen ? `self-test: the planted forbidden outcome was flagged, ${seen} times` : 'self-test FAILED: the planted kernel showed no forbidden outcome');
    return seen && !errors ? 0 : 1;
  }
  return forbidden || errors ? 1 : 0;
}

export interface MutationReport {
  perClass: ClassScore[];
  all: ClassScore;
  /** Per class below 50 %: the mutants not killed (file#name: change). */
  notKilled: Partial<Record<MutantClass, string[]>>;
}

/** The mutation score of a run's mutant results (errors are not counted as mutants run). */
export function scoreOf(results: readonly GpuLitmusResult[]): MutationReport {
  const ms = results.filter((r) => r.mutant && r.gpu);
  const { perClass, all } = mutationScores(ms.map((r) => ({ cls: r.mutant!.cls, instances: r.gpu!.instances, weak: r.mutant!.weak })));
  const notKilled: MutationReport['notKilled'] = {};
  for (const c of MUTANT_CLASSES) notKilled[c] = ms.filter((r) => r.mutant!.cls === c && !r.mutant!.weak).map((r) => `${r.file}: ${r.mutant!.change}`);
  return { perClass, all, notKilled };
}

export function mutationLines(m: MutationReport): string[] {
  const pct = (c: ClassScore) => (c.mutants ? `${((100 * c.killed) / c.mutants).toFixed(1)} %` : 'no mutants');
  const out = [`mutation score (mutants whose weak outcome was seen / mutants run): ${m.perClass.map((c) => `${c.cls} ${c.killed}/${c.mutants} (${pct(c)})`).join(', ')}; all ${m.all.killed}/${m.all.mutants} (${pct(m.all)}), target >= 85 %: ${m.all.mutants && m.all.score >= 0.85 ? 'met' : 'NOT met'}`];
  for (const c of m.perClass) {
    if (!c.mutants || c.score >= 0.5) continue;
    const nk = m.notKilled[c.cls] ?? [];
    out.push(`  class ${c.cls} below 50 %: ${nk.length} mutant(s) never showed the weak outcome, e.g. ${nk.slice(0, 5).join('; ')}`);
  }
  return out;
}

export function writeGpuReports(dir: string, results: readonly GpuLitmusResult[], started: Date, argv: readonly string[], run: { device: string; seconds: number; stress: StressOptions; seed: number; stride: number; selfTest: boolean; stressFile?: string; mutation?: MutationReport }): void {
  const counts = { tests: results.length, passed: 0, failed: 0, skipped: 0, unparsed: 0, error: 0 };
  for (const r of results) counts[r.status]++;
  writeFileSync(join(dir, 'report.json'), `${JSON.stringify({ schema: 'ptx-reduction-conformance/litmus-report', version: 1, startedAt: started.toISOString(), command: ['litmus', ...argv], backend: 'gpu', run, counts, results })}\n`);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = results
    .map((r) => {
      const g = r.gpu;
      const hist = g
        ? `<table><tr>${g.keys.map((k) => `<th>${esc(k)}</th>`).join('')}<th>count</th><th>verdict</th></tr>${g.histogram.map((h) => `<tr class="${h.allowed ? '' : h.count ? 'failed' : 'forb'}">${h.values.map((x) => `<td>${x}</td>`).join('')}<td>${h.count}</td><td>${h.allowed ? 'allowed' : `forbidden (${esc(h.why ?? '')})`}</td></tr>`).join('')}</table><p>${g.instances} instances, ${(g.instancesPerSecond / 1e6).toFixed(1)} M/s</p>`
        : esc(r.reason ?? '');
      return `<tr class="${r.status}"><td>${esc(r.file)}</td><td>${r.status}</td><td>${hist}</td></tr>`;
    })
    .join('\n');
  writeFileSync(join(dir, 'report.html'), `<!doctype html><meta charset="utf-8"><title>litmus on the GPU</title><style>body{font-family:sans-serif}td{padding:2px 6px;border-bottom:1px solid #ddd;vertical-align:top}.failed,.error{background:#fdd}.skipped{color:#888}</style><h1>Litmus tests on ${esc(run.device)}</h1>${run.mutation ? `<h2>Mutation score</h2><table><tr><th>class</th><th>mutants</th><th>killed</th><th>score</th></tr>${[...run.mutation.perClass, run.mutation.all].map((c) => `<tr><td>${c.cls}</td><td>${c.mutants}</td><td>${c.killed}</td><td>${c.mutants ? ((100 * c.killed) / c.mutants).toFixed(1) : '-'} %</td></tr>`).join('')}</table>` : ''}<p>${counts.tests} tests: ${counts.passed} no forbidden outcome seen, ${counts.failed} forbidden outcome seen, ${counts.skipped} skipped, ${counts.error} errors, ${counts.unparsed} unparsed; ${run.seconds.toFixed(1)} s.</p><table>\n${body}\n</table>\n`);
  const cases = results
    .map((r) => `  <testcase classname="litmus-gpu" name="${xmlText(r.file)}" time="${(r.gpu?.seconds ?? 0).toFixed(3)}">${r.status === 'failed' ? `<failure message="${xmlText(`forbidden outcome seen ${r.gpu!.forbiddenSeen} times`)}"/>` : r.status === 'skipped' ? `<skipped message="${xmlText(r.reason ?? '')}"/>` : r.status === 'error' || r.status === 'unparsed' ? `<error message="${xmlText(r.reason ?? r.status)}"/>` : ''}</testcase>`)
    .join('\n');
  writeFileSync(join(dir, 'junit.xml'), `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="litmus-gpu" tests="${counts.tests}" failures="${counts.failed}" errors="${counts.error + counts.unparsed}" skipped="${counts.skipped}">\n${cases}\n</testsuite></testsuites>\n`);
}
