/**
 * `litmus --backend gpu --replay` and `--repro` on CPU, with the stand-in launcher (which logs every
 * launch: geometry, scalars, and each buffer's size and hash at launch, the permutation table
 * included): a replay makes the launches the run made; a test replayed alone (--only) gets the
 * launches it had in the full run; a changed source, a report of another kind and options the
 * replay fixes are refused (exit 2). A reproducer folder builds with nvcc here, and its host program,
 * run against a stand-in libcuda.so.1 (fixtures/fake-libcuda-litmus.c: device memory is host memory,
 * the two kernels simulated as the stand-in launcher simulates them, launches logged in the same
 * format), makes the runner's launches and says REPRODUCED for a planted forbidden outcome, NOT
 * REPRODUCED for a clean run. What the stand-in cannot show: that the PTX itself behaves on a GPU as
 * simulated (the H100 run in docs/litmus.md does that).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/cjs/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { permutations } from '../../harness/litmus-gpu/run.js';
import { tensorMapGeometry } from '../../harness/litmus-gpu/plan.js';
import { sha256 } from '../../harness/litmus-gpu/replay.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runWithStandin } from '../helpers/standin.js';
import { shown } from '../../harness/util/paths.js';

const MP = 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus';
const SB = 'cases/litmus/SB+fence.sc.cluster-other-cluster.litmus';
const dir = mkdtempSync(join(tmpdir(), 'litmus-replay-'));
let noPtxas: string | undefined;
const nvcc = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' }).status === 0;
const cc = spawnSync('sh', ['-c', 'command -v cc'], { encoding: 'utf8' }).status === 0;
let fakeLib = '';
beforeAll(async () => {
  register();
  const p = await ptxasOrReason();
  noPtxas = typeof p === 'string' ? p : undefined;
  if (cc) {
    fakeLib = join(dir, 'fakecuda');
    mkdirSync(fakeLib, { recursive: true });
    const b = spawnSync(
      'cc',
      ['-shared', '-fPIC', '-O1', '-o', join(fakeLib, 'libcuda.so.1'), join(import.meta.dirname, 'fixtures', 'fake-libcuda-litmus.c')],
      { encoding: 'utf8' },
    );
    if (b.status !== 0) throw new Error(b.stderr);
  }
});

let n = 0;
/** Runs the CLI with the stand-in; returns exit code, output, the report and the launch log. */
async function run(args: string[], rows: string) {
  const report = join(dir, `report-${++n}`);
  const log = join(dir, `log-${n}`);
  const r = await runWithStandin(['litmus', '--backend', 'gpu', ...args, '--report', report], { PTXCONF_LITMUS_ROWS: rows, PTXCONF_LITMUS_LOG: log });
  const rep = existsSync(join(report, 'report.json')) ? JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')) : undefined;
  return { ...r, report, rep, log: existsSync(log) ? readFileSync(log, 'utf8') : '' };
}

describe('litmus --backend gpu --replay', () => {
  it('the permutation tables are a function of (seed, instances, iterations) alone; a launch prefix does not depend on how many follow', () => {
    const a = permutations(1024, 3, 7);
    expect(Buffer.from(a.buffer).equals(Buffer.from(permutations(1024, 3, 7).buffer))).toBe(true);
    expect(Buffer.from(a.buffer).equals(Buffer.from(permutations(1024, 3, 8).buffer))).toBe(false);
    expect(Buffer.from(permutations(1024, 2, 7).buffer).equals(Buffer.from(a.subarray(0, 2048).slice().buffer))).toBe(true);
    for (let it = 0; it < 3; it++) expect([...a.subarray(it * 1024, (it + 1) * 1024)].sort((x, y) => x - y)).toEqual([...Array(1024).keys()]);
  });
  it("records every parameter, and a replay makes the same launches (geometry, scalars, buffers, permutation tables); --only makes that test's launches alone", async (ctx) => {
    if (noPtxas) ctx.skip();
    // a stress file that runs class MP under two settings (the second an alternate, with the preload and the stress on the test's lines): each is recorded and replayed
    const stress = join(dir, 'stress.json');
    const set = (o: object) => ({ warps: 2, iters: 64, stride: 1, align: false, killed: 1, mutants: 4, weakPerM: 3, ...o });
    writeFileSync(
      stress,
      JSON.stringify({
        schema: 'ptx-reduction-conformance/litmus-gpu-stress',
        version: 1,
        measuredOn: 'test',
        measuredAt: '',
        instances: 1,
        classes: {
          MP: { ...set({ align: true }), tried: [], alternates: [set({ warps: 8, stride: 4, preload: true, target: 'test' })] },
          SB: { ...set({ iters: 16 }), tried: [] },
        },
      }),
    );
    const a = await run([MP, SB, '--iterations', '2', '--instances', '2048', '--seed', '5', '--stress-file', stress], '0,0;1,1;0,1');
    expect(a.code, a.out).toBe(0);
    const rec = a.rep.run.replay;
    expect(rec).toMatchObject({ version: 1, seed: 5, arch: 'sm_90', smCount: 132, selfTest: false, mutants: false });
    expect(rec.files).toEqual([MP, SB].map((file) => ({ file, sha256: sha256(readFileSync(file)) })));
    for (const r of a.rep.results) {
      expect(r.runs.length).toBeGreaterThanOrEqual(1);
      for (const x of r.runs) expect(x).toMatchObject({ iterations: 2, asked: 2048, perLaunch: 2048, instances: 4096 });
    }
    expect(
      a.rep.results[0].runs.map((x: { align: boolean; preload?: boolean; target?: string; stride: number }) => [
        x.align,
        x.preload ?? false,
        x.target ?? 'scratch',
        x.stride,
      ]),
    ).toEqual([
      [true, false, 'scratch', 1],
      [false, true, 'test', 4],
    ]);
    const launches = a.rep.results.reduce((s: number, r: { runs: unknown[] }) => s + r.runs.length, 0) * 2 * 2;
    expect(a.log.trim().split('\n').length).toBe(launches);
    const b = await run(['--replay', join(a.report, 'report.json')], '0,0;1,1;0,1');
    expect(b.code, b.out).toBe(0);
    expect(b.log).toBe(a.log);
    expect(b.rep.run.replayOf).toBe(join(a.report, 'report.json'));
    expect(b.rep.results.map((r: { gpu: { histogram: unknown } }) => r.gpu.histogram)).toEqual(
      a.rep.results.map((r: { gpu: { histogram: unknown } }) => r.gpu.histogram),
    );
    expect(b.rep.results.map((r: { runs: { module: string }[] }) => r.runs.map((x) => x.module))).toEqual(
      a.rep.results.map((r: { runs: { module: string }[] }) => r.runs.map((x) => x.module)),
    );
    // SB alone: the same launches it had in the full run (its permutation tables included)
    const c = await run(['--replay', join(a.report, 'report.json'), '--only', SB], '0,0;1,1;0,1');
    expect(c.code, c.out).toBe(0);
    expect(c.rep.results.map((r: { file: string }) => r.file)).toEqual([SB]);
    expect(c.log.length).toBeGreaterThan(0);
    expect(c.log.length).toBeLessThan(a.log.length);
    expect(a.log.endsWith(c.log)).toBe(true);
    // and a run with another seed makes other launches (the log tells them apart)
    const d = await run([MP, SB, '--iterations', '2', '--instances', '2048', '--seed', '6', '--stress-file', stress], '0,0;1,1;0,1');
    expect(d.log).not.toBe(a.log);
  }, 120_000);
  it('a run with --mutants: the replay regenerates the mutants by name and makes the same launches; --only picks one mutant', async (ctx) => {
    if (noPtxas) ctx.skip();
    const a = await run([MP, '--mutants', '--iterations', '1', '--instances', '1024', '--stress-warps', '2'], '0,0;1,1');
    expect(a.code, a.out).toBe(0);
    expect(a.rep.run.replay.mutants).toBe(true);
    const ms = a.rep.results.filter((r: { mutant?: unknown }) => r.mutant);
    expect(ms.length).toBeGreaterThan(1);
    const b = await run(['--replay', join(a.report, 'report.json')], '0,0;1,1');
    expect(b.code, b.out).toBe(0);
    expect(b.log).toBe(a.log);
    expect(b.rep.results.map((r: { file: string }) => r.file)).toEqual(a.rep.results.map((r: { file: string }) => r.file));
    const one = ms[ms.length - 1].file as string;
    const c = await run(['--replay', join(a.report, 'report.json'), '--only', one], '0,0;1,1');
    expect(c.rep.results.map((r: { file: string }) => r.file)).toEqual([one]);
    expect(c.log.length).toBeGreaterThan(0);
    expect(a.log.endsWith(c.log)).toBe(true);
  }, 120_000);
  it('refuses (exit 2, naming the file) a changed source, a report of another kind, an old report and the options a replay fixes', async (ctx) => {
    if (noPtxas) ctx.skip();
    const src = join(dir, 'MP-copy.litmus');
    copyFileSync(MP, src);
    const a = await run([src, '--iterations', '1', '--instances', '1024'], '0,0');
    expect(a.code, a.out).toBe(0);
    const path = join(a.report, 'report.json');
    const ok = await run(['--replay', path], '0,0');
    expect(ok.code, ok.out).toBe(0);
    writeFileSync(src, `${readFileSync(src, 'utf8')}\n(* edited *)\n`);
    const changed = await run(['--replay', path], '0,0');
    expect(changed.code).toBe(2);
    // the source as the harness shows paths (util/paths.ts shown: relative inside the working directory, else absolute)
    expect(changed.out).toContain(`--replay ${path}: ${shown(src)} changed since the run`);
    expect(changed.out).toMatch(/changed since the run \(sha256 [0-9a-f]{12}\.\.\., the report has [0-9a-f]{12}\.\.\.\)/);
    expect(changed.log).toBe('');
    const other = join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ schema: 'ptx-reduction-conformance/report', backend: 'gpu', results: [] }));
    const o = await run(['--replay', other], '0,0');
    expect(o.code).toBe(2);
    expect(o.out).toMatch(/not a litmus-gpu report/);
    const old = join(dir, 'old.json');
    writeFileSync(old, JSON.stringify({ ...a.rep, run: { ...a.rep.run, replay: undefined } }));
    expect((await run(['--replay', old], '0,0')).out).toMatch(/records no replay parameters/);
    writeFileSync(join(dir, 'bad.json'), '{');
    expect((await run(['--replay', join(dir, 'bad.json')], '0,0')).out).toMatch(/not a JSON report/);
    const seed = await run(['--replay', path, '--seed', '3'], '0,0');
    expect(seed.code).toBe(2);
    expect(seed.out).toMatch(/--replay reruns the recorded run's files and parameters; give --seed without it/);
    const only = await run(['--replay', path, '--only', 'cases/litmus/nothing.litmus'], '0,0');
    expect(only.code).toBe(2);
    expect(only.out).toMatch(/--only cases\/litmus\/nothing\.litmus: no result of that file ran in the report/);
    expect((await run([MP, '--only', MP], '0,0')).code).toBe(2);
  }, 120_000);
});

describe('litmus --backend gpu reproducers', () => {
  /** Builds a reproducer folder with its build.sh (nvcc) and runs ./repro against the stand-in driver. */
  const buildAndRun = (folder: string, rows: string) => {
    const b = spawnSync('sh', [join(folder, 'build.sh')], { encoding: 'utf8', timeout: 120_000 });
    expect(b.status, b.stderr).toBe(0);
    const log = join(folder, `fake-${rows.replace(/[^0-9]/g, '')}.log`);
    const r = spawnSync('./repro', [], {
      cwd: folder,
      encoding: 'utf8',
      env: { ...process.env, LD_LIBRARY_PATH: fakeLib, FAKE_LITMUS_ROWS: rows, FAKE_LITMUS_LOG: log, FAKE_TMAP_LOG: `${log}.tmap` },
    });
    const tmaps = existsSync(`${log}.tmap`) ? readFileSync(`${log}.tmap`, 'utf8') : '';
    return { code: r.status, out: r.stdout + r.stderr, log: existsSync(log) ? readFileSync(log, 'utf8') : '', tmaps };
  };
  it("a forbidden outcome seen writes a reproducer, linked from the HTML; its kernel is the runner's module; built with nvcc, it makes the runner's launches and says REPRODUCED with the count, and NOT REPRODUCED for a clean run", async (ctx) => {
    if (noPtxas || !nvcc || !cc) ctx.skip();
    const a = await run([MP, '--iterations', '2', '--instances', '3072', '--stress-warps', '2'], '0,0;1,1;1,0');
    expect(a.code, a.out).toBe(1);
    const g = a.rep.results[0].gpu;
    const folder = join(a.report, 'repro', 'MP+atom.release+atom.acquire.gpu');
    expect(a.out).toContain(`reproducer of ${MP}: ${folder}`);
    for (const f of ['kernel.ptx', 'params.h', 'host.cpp', 'driver.h', 'build.sh', 'README.md']) expect(existsSync(join(folder, f)), f).toBe(true);
    expect(readFileSync(join(a.report, 'report.html'), 'utf8')).toContain('href="repro/MP+atom.release+atom.acquire.gpu/README.md"');
    expect(a.rep.run.repros).toEqual({ [MP]: 'repro/MP+atom.release+atom.acquire.gpu' });
    // the runner's module but for the .version line (the target's lowest PTX ISA)
    const ptx = readFileSync(join(folder, 'kernel.ptx'), 'utf8');
    expect(ptx).toMatch(/^\.version 7\.8\n\.target sm_90\n/);
    expect(sha256(ptx.replace(/^\.version 7\.8\n/, `.version ${a.rep.run.replay.modulePtx}\n`))).toBe(a.rep.results[0].runs[0].module);
    const readme = readFileSync(join(folder, 'README.md'), 'utf8');
    expect(readme).toContain(readFileSync(MP, 'utf8').trimEnd());
    expect(readme).toContain('P1:r0=1 P1:r1=0 (8.10.6 Causality)');
    expect(readme).toContain(`--replay ${join(a.report, 'report.json')} --only ${MP}`);
    const planted = buildAndRun(folder, '0,0;1,1;1,0');
    expect(planted.code, planted.out).toBe(1);
    expect(planted.out).toContain(`REPRODUCED ${g.forbiddenSeen} of ${g.instances} instances`);
    expect(planted.log).toBe(a.log);
    const clean = buildAndRun(folder, '0,0;1,1;0,1');
    expect(clean.code, clean.out).toBe(0);
    expect(clean.out).toContain(`NOT REPRODUCED in ${g.instances} instances`);
    // an outcome outside the table (no candidate execution has it) counts as forbidden too
    const other = buildAndRun(folder, '0,0;7,7');
    expect(other.code, other.out).toBe(1);
    expect(other.out).toContain(`REPRODUCED ${g.instances / 2} of ${g.instances} instances`);
  }, 180_000);
  it("the recorded H100 self-test (reports/baselines/h100-sm_90-litmus/selftest-repro/): its reproducer's kernel is the module the H100 ran, and a replay of its report writes the same reproducer (same launch parameters)", async (ctx) => {
    if (noPtxas) ctx.skip();
    const D = 'reports/baselines/h100-sm_90-litmus/selftest-repro';
    const rep = JSON.parse(readFileSync(join(D, 'report.json'), 'utf8'));
    const ptx = readFileSync(join(D, 'repro-asked', 'kernel.ptx'), 'utf8');
    expect(sha256(ptx.replace(/^\.version 7\.8\n/, `.version ${rep.run.replay.modulePtx}\n`))).toBe(rep.results[0].runs[0].module);
    expect(readFileSync(join(D, 'h100-run.txt'), 'utf8')).toContain(
      `FORBIDDEN OUTCOME SEEN (${rep.results[0].gpu.forbiddenSeen} of ${rep.results[0].gpu.instances})`,
    );
    const out = join(dir, 'h100-again');
    const r = await run(['--replay', join(D, 'report.json'), '--repro', MP, '--out', out], '0,0;1,0');
    expect(r.code, r.out).toBe(0); // the self-test flagged the planted outcome (the stand-in's rows)
    expect(readFileSync(join(out, 'kernel.ptx'), 'utf8')).toBe(ptx);
    // the launch parameters (the stored params.h is the one the H100 ran; later generators add lines)
    const launch = (f: string) => {
      const t = readFileSync(f, 'utf8');
      const num = (k: string) => new RegExp(`\\b${k} = (\\d+)`).exec(t)?.[1];
      const arr = (k: string) => new RegExp(`${k}\\[\\d+\\] = \\{([^}]*)\\}`).exec(t)?.[1];
      return {
        ...Object.fromEntries(['GRID', 'BLOCK', 'CLUSTER', 'NI', 'ITERATIONS', 'STRIDE', 'N_LOCS', 'N_ROWS', 'SCRATCH_WORDS'].map((k) => [k, num(k)])),
        seed: /SEED = (\d+)u/.exec(t)?.[1],
        init: arr('INIT'),
        table: arr('TABLE'),
        forbidden: arr('FORBIDDEN'),
      };
    };
    const stored = launch(join(D, 'repro-asked', 'params.h'));
    expect(
      Object.values(stored).every((x) => x !== undefined),
      JSON.stringify(stored),
    ).toBe(true);
    expect(launch(join(out, 'params.h'))).toEqual(stored);
    expect(readFileSync(join(out, 'params.h'), 'utf8')).toMatch(/GRID = 264, BLOCK = 576, CLUSTER = 1, NI = 67584, ITERATIONS = 15, STRIDE = 1/);
  }, 120_000);
  it("a 64-bit key on shared memory (a .shared::cluster atomicity test): the table in words, low word first, each row's text beside it; the folder (mapa, barrier.cluster) builds with nvcc", async (ctx) => {
    if (noPtxas || !nvcc) ctx.skip();
    const T = 'cases/litmus/Atomicity+atom.or.b64.cluster-shared.litmus';
    const out = join(dir, 'b64');
    // the stand-in simulates register keys only: its histogram here is meaningless, the folder is what is checked
    const a = await run([T, '--iterations', '1', '--instances', '1024', '--stress-warps', '0', '--repro', T, '--out', out], '0');
    expect(existsSync(join(out, 'params.h')), a.out).toBe(true);
    const p = readFileSync(join(out, 'params.h'), 'utf8');
    expect(p).toMatch(/SLOT_BYTES = 8, N_REG_WORDS = 0, N_WORDS = 2,/);
    const rowsText = JSON.parse(`[${/ROW_TEXT\[\d+\] = \{(.*)\};/.exec(p)![1]}]`) as string[];
    const words = /TABLE\[\d+\] = \{([^}]*)\}/
      .exec(p)![1]!
      .split(',')
      .map((w) => BigInt(w.trim().replace(/u$/, '')));
    expect(words.length).toBe(2 * rowsText.length);
    expect(rowsText).toContain(String(0x100000001n));
    rowsText.forEach((v, k) => expect(words[2 * k]! | (words[2 * k + 1]! << 32n), v).toBe(BigInt(v)));
    expect(readFileSync(join(out, 'kernel.ptx'), 'utf8')).toMatch(/mapa\.shared::cluster/);
    const b = spawnSync('sh', [join(out, 'build.sh')], { encoding: 'utf8', timeout: 120_000 });
    expect(b.status, b.stderr).toBe(0);
  }, 120_000);
  it('--repro TEST --out DIR writes one for a clean run too (clusters: the launch carries the cluster dimension); an unknown TEST exits 2 before anything runs', async (ctx) => {
    if (noPtxas || !nvcc || !cc) ctx.skip();
    const T = 'cases/litmus/MP+red.release.cluster+atom.acquire.cluster-same-cluster.litmus';
    const out = join(dir, 'asked');
    const a = await run([T, '--iterations', '1', '--instances', '1024', '--stress-warps', '0', '--repro', T, '--out', out], '0,0;1,1');
    expect(a.code, a.out).toBe(0);
    const g = a.rep.results[0].gpu;
    expect(g.geometry.cluster).toBeGreaterThan(1);
    expect(readFileSync(join(out, 'params.h'), 'utf8')).toContain(`CLUSTER = ${g.geometry.cluster}`);
    const r = buildAndRun(out, '0,0;1,1');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`NOT REPRODUCED in ${g.instances} instances`);
    expect(r.log).toBe(a.log);
    expect(r.log).toContain(`cluster=${g.geometry.cluster}x1x1`);
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const notDir = await run([MP, '--repro', MP, '--out', join(file, 'sub'), '--iterations', '1', '--instances', '1024'], '0,0');
    expect(notDir.code).toBe(2);
    expect(notDir.out).toContain(`--out ${join(file, 'sub')}: ${file} is a file, not a folder`);
    expect(notDir.log).toBe('');
    expect((await run([MP, '--out', out], '0,0')).out).toMatch(/--out names the folder of a --repro reproducer/);
    const bad = await run([MP, '--repro', 'cases/litmus/nothing.litmus', '--iterations', '1', '--instances', '1024'], '0,0');
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/--repro cases\/litmus\/nothing\.litmus: not a test this run runs/);
    expect(bad.log).toBe('');
  }, 180_000);
  it("a virtual-alias test: the runner maps mem twice (one view's bytes at launch, lt_test's eighth parameter the bytes between views), and the reproducer maps it the same way (cuMemCreate once, cuMemMap per view) and makes the runner's launches; a tensor-map test's reproducer encodes its maps and hands them to both kernels", async (ctx) => {
    if (noPtxas || !nvcc || !cc) ctx.skip();
    const T = 'cases/litmus/Alias+MP+fence.proxy.alias-writer.litmus';
    const out = join(dir, 'alias');
    const a = await run([T, '--iterations', '2', '--instances', '1024', '--stress-warps', '0', '--repro', T, '--out', out], '0,0;1,1;1,0');
    expect(a.code, a.out).toBe(1); // (1, 0): forbidden with the writer's alias fence
    const tests = a.log.split('\n').filter((l) => l.startsWith('lt_test'));
    expect(tests.length).toBe(2);
    // mem, regs, perm, iter, ni, stride, scratch, then the bytes between views (2 MiB: the stand-in's granularity)
    for (const l of tests) expect(l.split(' ').slice(5)).toEqual([expect.stringMatching(/^2097152:/), ...Array(6).fill(expect.anything()), '2097152']);
    expect(readFileSync(join(out, 'params.h'), 'utf8')).toMatch(/ALIAS_VIEWS = 1, LOOPS = 0, N_TMAPS = 0 \}/);
    const r = buildAndRun(out, '0,0;1,1;1,0');
    expect(r.code, r.out).toBe(1);
    expect(r.log).toBe(a.log);
    // a tensor-map test: the reproducer encodes the maps as the runner does and hands them to both kernels (sm_90a)
    const TM = 'cases/litmus/Tensormap+MP+fence.release+fence.acquire.litmus';
    const tout = join(dir, 'tensormap');
    const tr = await run([TM, '--iterations', '1', '--instances', '1024', '--stress-warps', '0', '--repro', TM, '--out', tout], '0');
    expect(readFileSync(join(tout, 'params.h'), 'utf8')).toMatch(/N_TMAPS = 1 \};[^\n]*\n[^\n]*\nstatic const int TMAP_TARGET\[1\] = \{\d+\};/);
    expect(readFileSync(join(tout, 'build.sh'), 'utf8')).toContain('-arch=sm_90a');
    const tb = buildAndRun(tout, '0');
    expect(tb.code, tb.out).not.toBe(2);
    const [lt, lc] = tb.log.trim().split('\n');
    const tl = tr.log.trim().split('\n');
    expect(lt!.split(' ').length).toBe(tl[0]!.split(' ').length); // lt_test: eight parameters, the maps last
    expect(lc!.split(' ').length).toBe(tl[1]!.split(' ').length); // lt_count: ten
    // a 3-D map: the reproducer encodes it with the runner's geometry (tensorMapGeometry: rank 3, the instances last)
    const T3 = 'cases/litmus/Tensormap+3d+load+replace-no-fence.litmus';
    const t3 = join(dir, 'tensormap3');
    await run([T3, '--iterations', '1', '--instances', '1024', '--stress-warps', '0', '--repro', T3, '--out', t3], '0');
    const b3 = buildAndRun(t3, '0');
    expect(b3.code, b3.out).not.toBe(2);
    const params = readFileSync(join(t3, 'params.h'), 'utf8');
    // where the initial values lie: every location its own copy (no arrays here)
    expect(params).toMatch(/static const int INIT_OFFSET\[\d+\] = \{0(, 0)*\};/);
    // an array's elements: in its array's copy at their offsets
    const V = 'cases/litmus/Vector+atom.v4+returns.litmus';
    const vout = join(dir, 'vector');
    await run([V, '--iterations', '1', '--instances', '1024', '--stress-warps', '0', '--repro', V, '--out', vout], '0');
    const vp = readFileSync(join(vout, 'params.h'), 'utf8');
    expect(vp).toContain('static const int INIT_LOC[4] = {0, 0, 0, 0};');
    expect(vp).toContain('static const int INIT_OFFSET[4] = {0, 4, 8, 12};');
    expect(buildAndRun(vout, '0').code).not.toBe(2);
    const ni = Number(/NI = (\d+)/.exec(params)![1]) * Number(/STRIDE = (\d+)/.exec(params)![1]);
    const g = tensorMapGeometry(3, ni, 128);
    expect(b3.tmaps.trim()).toBe(`rank=3 dims=${g.dims.join(',')} strides=${g.strides.join(',')} box=${g.box.join(',')}`);
    // an .im2col map: the reproducer encodes it with cuTensorMapEncodeIm2col (corners 0, four channels a pixel, one pixel a column)
    const TI = 'cases/litmus/Tensormap+3d+im2col+replace-no-fence.litmus';
    const ti = join(dir, 'tensormap-im2col');
    await run([TI, '--iterations', '1', '--instances', '1024', '--stress-warps', '0', '--repro', TI, '--out', ti], '0');
    const bi = buildAndRun(ti, '0');
    expect(bi.code, bi.out).not.toBe(2);
    expect(bi.tmaps.trim()).toBe(`im2col rank=3 dims=${tensorMapGeometry(3, ni, 128).dims.join(',')} corners=0:0 channels=4 pixels=1`);
    expect(tb.tmaps.trim()).toBe(`rank=1 dims=${(ni * 128) / 4} strides= box=4`);
    // a test without aliases keeps the seven parameters
    const mp = await run([MP, '--iterations', '1', '--instances', '1024', '--stress-warps', '0'], '0,0');
    expect(mp.log.split('\n')[0]!.split(' ').length).toBe(5 + 7);
  }, 180_000);
});
