/**
 * `repro` of the newer kinds: a sweep cell, a case launched in clusters or through a tensor map (and
 * the observed-behaviour check of the tensor subnormal finding), a toolchain entry where the text is
 * silent (spelling). Their numbers are checked against the reports, computed here apart from the
 * generator; each folder builds with nvcc alone (compile only); and the host programs judge bits
 * given them by a stand-in libcuda.so.1 (fixtures/fake-libcuda.c: device memory is host memory, a
 * launch writes given "observed" bits), so the failing path is shown on a machine without a GPU: a
 * folder whose expected bits are wrong does not say NOT REPRODUCED.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runAtRoot } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'repro-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const gz = (f: string) => JSON.parse(gunzipSync(readFileSync(join(ROOT, f))).toString('utf8'));

const nvcc = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' }).status === 0;
const cc = spawnSync('sh', ['-c', 'command -v cc'], { encoding: 'utf8' }).status === 0;
if (!nvcc) console.warn('[skip] repro-kinds build: no nvcc on PATH');
if (!cc) console.warn('[skip] repro-kinds fake-driver runs: no cc on PATH');

const SELFTEST = 'reports/baselines/h100-sm_90-sweeps/f16-add-self-test-report.json.gz';
const NEW = 'reports/baselines/h100-sm_90-new-families/default-gpu-run-report.json.gz';
const T = 'cp.reduce.async.bulk.tensor';
const TENSOR_F32 = `${T}.1d.global.shared::cta.add.bulk_group(f32)/probe:${T}.1d.global.shared__cta.add.bulk_group_f32_-smallest-subnormal-doubled`;
const CONTROL = 'atom.global.add.f32/probe:atom.global.add.f32-smallest-subnormal-doubled';
const CLUSTER =
  'red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32/vectors/red-async-int.yaml:red.async.relaxed.cluster.shared__cluster.mbarrier__complete_tx__bytes.inc.u32-at-zero';

let fakeLib = '';
beforeAll(() => {
  if (!cc) return;
  const libDir = join(dir, 'fakecuda');
  mkdirSync(libDir, { recursive: true });
  const b = spawnSync('cc', ['-shared', '-fPIC', '-O1', '-o', join(libDir, 'libcuda.so.1'), join(ROOT, 'tests/repro/fixtures/fake-libcuda.c')], {
    encoding: 'utf8',
  });
  if (b.status !== 0) throw new Error(b.stderr);
  fakeLib = libDir;
});

/** Builds a folder with its build.sh (nvcc), then runs ./repro against the stand-in driver with the given observed files. */
function build(folder: string) {
  const b = spawnSync('sh', [join(folder, 'build.sh')], { encoding: 'utf8', timeout: 120_000 });
  expect(b.status, b.stderr).toBe(0);
}
function runFake(folder: string, arg0: Buffer, arg1?: Buffer, arg3?: Buffer) {
  writeFileSync(join(dir, 'arg0.bin'), arg0);
  if (arg1) writeFileSync(join(dir, 'arg1.bin'), arg1);
  if (arg3) writeFileSync(join(dir, 'arg3.bin'), arg3);
  return spawnSync('./repro', [], {
    cwd: folder,
    encoding: 'utf8',
    env: {
      ...process.env,
      LD_LIBRARY_PATH: fakeLib,
      FAKE_ARG0: join(dir, 'arg0.bin'),
      ...(arg1 ? { FAKE_ARG1: join(dir, 'arg1.bin') } : {}),
      ...(arg3 ? { FAKE_ARG3: join(dir, 'arg3.bin') } : {}),
    },
  });
}

describe('repro of a sweep cell', () => {
  const out = join(dir, 'cell');
  const id = 'atom.global.add.noftz.f16/sweep:self-test';
  it("a sweep result names its first mismatching cell; the folder holds 4,096 of its pairs, the model's bits as data, the README the report's counts", async () => {
    const r = await runAtRoot(['repro', SELFTEST, '--case', id, '--out', out]);
    expect(r.code, r.out).toBe(0);
    const rep = gz(SELFTEST);
    const sweep = rep.sweeps.find((s: { selftest: boolean }) => s.selftest);
    const [cell, count] = sweep.cells.mismatch[0] as [number, number];
    expect(r.out).toContain(`repro: ${id}:cell=0x${cell.toString(16).padStart(4, '0')}`);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain(`the cell's 65536 pairs: ${count} mismatching`);
    expect(readme).toContain(`mismatch ${sweep.mismatch}, in ${sweep.differingCells} differing cells`);
    expect(readme).toContain('4096 of its 65536 pairs (the other 61440 are left out');
    expect(readFileSync(join(out, 'params.h'), 'utf8')).toMatch(
      /PAIRS = 4096, THREADS = 4096, BLOCK_X = 256, GRID_X = 16, CLUSTER_X = 1, MODE = 0, SELFTEST = 1, RETURNS = 1/,
    );
    // cell 0: a and b are both small positive f16 subnormals (a < 0x10, b < 0x100), whose .noftz sum
    // is exact: the integer sum of the patterns
    const bin = readFileSync(join(out, 'expected.bin'));
    expect(bin.length).toBe(4096 * 2 + 4096 / 8);
    for (let p = 0; p < 4096; p++) expect(bin.readUInt16LE(2 * p), `pair ${p}`).toBe((p >> 8) + (p & 0xff));
    expect(bin.subarray(8192).every((x) => x === 0)).toBe(true); // no NaN allowed here
    expect(readFileSync(join(out, 'kernel.ptx'), 'utf8')).toMatch(/atom\.global\.add\.noftz\.f16/);
  });
  it('--pairs 65536 writes the whole cell; a NaN cell of the full run starts at its first any-NaN pair', async () => {
    const whole = await runAtRoot(['repro', SELFTEST, '--case', `${id}:cell=0x0001`, '--pairs', '65536', '--out', join(dir, 'whole')]);
    expect(whole.code, whole.out).toBe(0);
    expect(readFileSync(join(dir, 'whole', 'expected.bin')).length).toBe(65536 * 2 + 65536 / 8);
    expect(readFileSync(join(dir, 'whole', 'README.md'), 'utf8')).toContain(
      "--case 'atom.global.add.noftz.f16/sweep:self-test:cell=0x0001' --spec-edition 9.1 --pairs 65536 --out DIR",
    );
    const all = 'reports/baselines/h100-sm_90-sweeps/all16-sm_90-report.json.gz';
    const nan = await runAtRoot(['repro', all, '--case', 'atom.global.add.noftz.f16/sweep', '--out', join(dir, 'nan')]);
    expect(nan.code, nan.out).toBe(0);
    const s = gz(all).sweeps.find((x: { variant: string }) => x.variant === 'atom.global.add.noftz.f16');
    const [cell, n] = s.cells.nan[0] as [number, number];
    expect(nan.out).toContain(`:cell=0x${cell.toString(16).padStart(4, '0')}`);
    expect(nan.out).toContain(`0 mismatching, ${n} NaN results`);
    const bits = readFileSync(join(dir, 'nan', 'expected.bin')).subarray(8192);
    expect(bits.some((x) => x !== 0)).toBe(true);
  });
  it.skipIf(!nvcc || !cc)(
    "builds with nvcc; the host judges every pair: the model's bits pass, one wrong expected bit fails",
    () => {
      build(out);
      const bin = readFileSync(join(out, 'expected.bin'));
      const results = bin.subarray(0, 8192);
      const a = Buffer.alloc(8192);
      for (let p = 0; p < 4096; p++) a.writeUInt16LE(p >> 8, 2 * p); // returned old value: the memory before
      const ok = runFake(out, results, a);
      expect([ok.status, ok.stdout]).toEqual([0, expect.stringMatching(/NOT REPRODUCED: all 4096 pairs as the model gives them \(4096 pass/)]);
      const bad = Buffer.from(results);
      bad.writeUInt16LE(bad.readUInt16LE(2 * 77) ^ 1, 2 * 77);
      const r = runFake(out, bad, a);
      expect([r.status, r.stdout]).toEqual([1, expect.stringMatching(/REPRODUCED: 1 of 4096 pairs differ from the model/)]);
      // the expected bits corrupted, the results the model's: it must not say NOT REPRODUCED
      writeFileSync(join(out, 'expected.bin'), Buffer.concat([bad, bin.subarray(8192)]));
      const c = runFake(out, results, a);
      expect(c.stdout).not.toMatch(/NOT REPRODUCED/);
      expect(c.status).toBe(1);
      writeFileSync(join(out, 'expected.bin'), bin);
    },
    180_000,
  );
  it('bad input: exit 2, what to do, no stack trace', async () => {
    const cases: [string[], RegExp][] = [
      [['repro', SELFTEST, '--case', 'atom.global.add.noftz.f16/sweep:self-test:cell=0x1ffff', '--out', join(dir, 'b1')], /not a sweep cell|0x0000-0xffff/],
      [['repro', SELFTEST, '--case', 'atom.global.add.noftz.f16/sweep', '--out', join(dir, 'b2')], /no sweep result 'atom\.global\.add\.noftz\.f16\/sweep'/],
      [['repro', SELFTEST, '--case', id, '--pairs', '100', '--out', join(dir, 'b3')], /a power of two from 2048 to 65536/],
      [['repro', NEW, '--case', `${CONTROL}:cell=0x0000`, '--out', join(dir, 'b4')], /not a sweep cell of this report/],
      [['repro', NEW, '--case', CONTROL, '--pairs', '4096', '--out', join(dir, 'b5')], /only for a sweep cell/],
      [
        ['repro', NEW, '--case', 'multimem.ld_reduce.min.u32', '--out', join(dir, 'b6')],
        /multicast object bound to several GPUs; repro does not write that launch and never creates a multicast object/,
      ],
    ];
    for (const [args, msg] of cases) {
      const r = await runAtRoot(args);
      expect([r.code, r.out], args.join(' ')).toEqual([2, expect.stringMatching(msg)]);
      expect(r.out).not.toMatch(/\n\s+at /);
    }
  });
});

describe('repro of a case in clusters or through a tensor map', () => {
  const tensor = join(dir, 'tensor');
  const control = join(dir, 'control');
  it("the tensor .add.f32 case: the tensor map geometry, the lanes telling keeping from flushing (computed here), the report's bits", async () => {
    const r = await runAtRoot(['repro', NEW, '--case', TENSOR_F32, '--out', tensor]);
    expect(r.code, r.out).toBe(0);
    const res = gz(NEW).results.find((x: { id: string }) => x.id === TENSOR_F32);
    expect(res.case.subnormals).toBe('kept');
    const p = readFileSync(join(tensor, 'params.h'), 'utf8');
    expect(p).toMatch(/GRID_X = 1, CLUSTER_X = 1, TENSOR_RANK = 1, TENSOR_DATA_TYPE = 7, N_SUB_LANES = 3/);
    expect(p).toContain('static const unsigned long long TENSOR_DIMS[5] = {4, 0, 0, 0, 0};');
    // memory 1, 0x7fffff, 0x800000; source 1, 1, -1 (f32 bits): kept 2, 0x800000, 0x7fffff; flushed 0, 0, 0x800000
    expect(p).toContain('{0, 4, 0, 32, 0x2ull, 0x0ull}');
    expect(p).toContain('{4, 4, 0, 32, 0x800000ull, 0x0ull}');
    expect(p).toContain('{8, 4, 0, 32, 0x7fffffull, 0x800000ull}');
    const readme = readFileSync(join(tensor, 'README.md'), 'utf8');
    expect(readme).toContain(`- memory after: ${res.case.observed.memory.join(', ')}`);
    expect(readme).toContain('the recorded run kept subnormals on all 3 lanes');
    expect(readme).toMatch(/cuTensorMapEncodeTiled/);
    expect(readFileSync(join(tensor, 'host.cpp'), 'utf8')).toContain('cuTensorMapEncodeTiled');
    const c = await runAtRoot(['repro', NEW, '--case', CONTROL, '--out', control]);
    expect(c.out).toContain('the recorded run: every lane allowed under PTX ISA 9.4 (verdict in the report: pass)');
    const cl = await runAtRoot(['repro', NEW, '--case', CLUSTER, '--out', join(dir, 'cluster')]);
    expect(cl.code, cl.out).toBe(0);
    expect(readFileSync(join(dir, 'cluster', 'params.h'), 'utf8')).toMatch(/GRID_X = 2, CLUSTER_X = 2, TENSOR_RANK = 0/);
  });
  it.skipIf(!nvcc || !cc)(
    "build with nvcc; the host judges: the report's bits reproduce, a control's allowed bits do not, corrupted allowed bits do",
    () => {
      for (const f of [tensor, control, join(dir, 'cluster')]) build(f);
      const res = gz(NEW).results.find((x: { id: string }) => x.id === TENSOR_F32);
      const slot = (els: string[]) => {
        const b = Buffer.alloc(1024);
        els.forEach((x, i) => b.writeUInt32LE(Number(x), 4 * i));
        return b;
      };
      const kept = runFake(tensor, slot(res.case.observed.memory));
      expect([kept.status, kept.stdout]).toEqual([1, expect.stringMatching(/REPRODUCED: 1 of 1 launches kept subnormals on all 3 lanes/)]);
      const flushed = runFake(tensor, slot(['0x00000000', '0x00000000', '0x00800000', '0x7f800000']));
      expect([flushed.status, flushed.stdout]).toEqual([0, expect.stringMatching(/NOT REPRODUCED: 0 of 1 launches kept subnormals/)]);
      const ctl = gz(NEW).results.find((x: { id: string }) => x.id === CONTROL);
      const ret = slot(ctl.case.observed.returned).subarray(0, 16);
      const ok = runFake(control, slot(ctl.case.observed.memory), undefined, ret);
      expect([ok.status, ok.stdout]).toEqual([0, expect.stringMatching(/NOT REPRODUCED/)]);
      // the allowed bits corrupted (lane 0 allows 0x1 instead of the flushed 0x0): the report's bits must not pass
      const params = readFileSync(join(control, 'params.h'), 'utf8');
      writeFileSync(join(control, 'params.h'), params.replace(/MEM_LANES_ALLOWED\[(\d+)\] = \{0x0ull/, 'MEM_LANES_ALLOWED[$1] = {0x1ull'));
      build(control);
      const bad = runFake(control, slot(ctl.case.observed.memory), undefined, ret);
      expect([bad.status, bad.stdout]).toEqual([1, expect.stringMatching(/REPRODUCED: 1 of 1 launches gave bits the PTX ISA 9\.4 text does not allow/)]);
      const cl = runFake(join(dir, 'cluster'), slot(['0x00000001']));
      expect(cl.stdout).toMatch(/in clusters of 2 CTAs/);
    },
    240_000,
  );
});

describe('repro of a spelling entry (the text silent): check.sh asks whether ptxas still answers as recorded', () => {
  const SP = 'reports/baselines/ptxas-13.0-catalog/sm_90-spelling-report.json.gz';
  it("accepts recorded: accept -> REPRODUCED, reject -> NOT REPRODUCED; the README has the report's answer", async () => {
    const out = join(dir, 'spell');
    const r = await runAtRoot(['repro', SP, '--case', 'atom.and.L2::cache_hint.b32~reversed', '--out', out]);
    expect(r.code, r.out).toBe(0);
    const rec = gz(SP).results.find((x: { id: string }) => x.id === 'atom.and.L2::cache_hint.b32~reversed');
    expect(rec.ptxas.accepted).toBe(true);
    expect(readFileSync(join(out, 'entry.ptx'), 'utf8')).toContain(rec.ptxas.line);
    const fake = (name: string, body: string) => {
      const f = join(dir, name);
      writeFileSync(f, `#!/bin/sh\n[ "$1" = --version ] && { echo "fake ${name}"; exit 0; }\n${body}\n`, { mode: 0o755 });
      return f;
    };
    const check = (p: string) => spawnSync('sh', [join(out, 'check.sh')], { encoding: 'utf8', env: { ...process.env, PTXAS: p } });
    expect([check(fake('acc', 'exit 0')).status, check(fake('acc', 'exit 0')).stdout]).toEqual([
      1,
      expect.stringMatching(/REPRODUCED: ptxas answers accept .* as the recorded run did/),
    ]);
    expect([check(fake('rej', 'exit 255')).status, check(fake('rej', 'exit 255')).stdout]).toEqual([
      0,
      expect.stringMatching(/NOT REPRODUCED: ptxas answers reject/),
    ]);
  });
});

describe('the committed folders of the new kinds are byte for byte what repro writes', () => {
  it('expected.bin compared as bytes (the text comparison of repro.test.ts decodes it)', async () => {
    const root = join(ROOT, 'reports/findings');
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => readdirSync(join(root, d.name)).map((x) => join(root, d.name, x)))
      .filter((f) => existsSync(join(f, 'expected.bin')));
    expect(folders.length).toBeGreaterThanOrEqual(1);
    for (const f of folders) {
      const m = /Written by: `npm run conformance -- repro (\S+) --case '([^']+)'(?: --spec-edition (\S+))?(?: --pairs (\d+))? --out DIR`/.exec(
        readFileSync(join(f, 'README.md'), 'utf8'),
      )!;
      const out = join(dir, 'again-bin', f.slice(root.length + 1).replace(/\//g, '__'));
      const r = await runAtRoot(['repro', m[1]!, '--case', m[2]!, ...(m[3] ? ['--spec-edition', m[3]] : []), ...(m[4] ? ['--pairs', m[4]] : []), '--out', out]);
      expect(r.code, r.out).toBe(0);
      expect(readFileSync(join(f, 'expected.bin')).equals(readFileSync(join(out, 'expected.bin'))), f).toBe(true);
    }
  }, 120_000);
});
