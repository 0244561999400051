/**
 * Modules as they become ready (backends/gpu/cache.ts, module-set.ts): compileModules hands each
 * cubin over as ptxas writes it and reads the SASS only once nothing is left to compile, so a run
 * starts on its first module; the gpu backend sends a batch once its modules' cubins are there and
 * holds the results of a job sent before its module's SASS was read until it is, so every result
 * carries its kernel's SASS, from nvdisasm's or cuobjdump's layout. With stand-in disassemblers
 * (tests/fixtures/fake-disassembler.cjs) that read the cubins' kernel names, and a real ptxas where
 * there is one.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { compileModules } from '../../harness/backends/gpu/cache.js';
import { sassByKernel, sassMnemonics } from '../../harness/backends/gpu/sass.js';
import { GEN, ModuleCompiler, ModuleSet, SASS_LATER } from '../../harness/backends/gpu/module-set.js';
import type { GpuVariant } from '../../harness/backends/gpu/plan.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const scratch = mkdtempSync(join(tmpdir(), 'ptxconf-modules-ready-'));
const bin = join(scratch, 'bin');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs f with the stand-in disassemblers first on PATH, cuobjdump the one used (unless the environment given says otherwise). */
async function withFakeCuobjdump<T>(env: Record<string, string>, f: () => Promise<T>): Promise<T> {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(bin, { recursive: true });
  for (const tool of ['cuobjdump', 'nvdisasm']) copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'fake-disassembler.cjs'), join(bin, tool));
  const saved = { ...process.env };
  Object.assign(process.env, { PATH: `${bin}:${process.env.PATH}`, PTXCONF_DISASSEMBLER: 'cuobjdump', ...env });
  try {
    return await f();
  } finally {
    process.env = saved;
  }
}

const kernel = (n: number) =>
  `.visible .entry k${n}(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tatom.global.add.u32 %r1, [%rd1], 1;\n\tret;\n}\n`;

describe('compileModules: cubins as they come, SASS after', async () => {
  const p = await ptxasOrReason();
  it.skipIf(typeof p === 'string')(
    'each cubin is handed over before its SASS, and SASS is read only once no module is left to start compiling; a second call finds both in the cache at once',
    async () => {
      const ptxas = p as Exclude<typeof p, string>;
      const log = join(scratch, 'sass.log');
      // two more modules than ptxas run at once: at least three compiled before the first SASS is read
      const P = availableParallelism();
      const texts = Array.from({ length: P + 2 }, (_, i) => i * 3).map(
        (k) =>
          `.version 8.0\n.target sm_90\n.address_size 64\n${[0, 1, 2].map((i) => kernel(k + i).replace('.reg .b64 %rd<2>;', '.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;')).join('')}`,
      );
      const cacheDir = join(scratch, 'cache');
      const events: string[] = [];
      const r = await withFakeCuobjdump({ FAKE_CUOBJDUMP_LOG: log }, () =>
        compileModules([...texts, undefined], {
          ptxas,
          arch: 'sm_90',
          cacheDir,
          onCubin: (i) => events.push(`cubin ${i}`),
          onSass: (i, sass) => events.push(`sass ${i} ${sass[`k${i * 3}`]}`),
        }),
      );
      const n = texts.length;
      expect(r.stats.compiled).toBe(n);
      expect(events.filter((e) => e.startsWith('cubin')).sort()).toEqual(texts.map((_, i) => `cubin ${i}`).sort());
      expect(events.filter((e) => e.startsWith('sass')).sort()).toEqual(texts.map((_, i) => `sass ${i} ATOM.E.FAKE`).sort());
      // ptxas first: a SASS is read only once no module is left to start compiling
      expect(events.findIndex((e) => e.startsWith('sass'))).toBeGreaterThanOrEqual(n - (P - 1));
      for (let i = 0; i < n; i++) expect(events.indexOf(`cubin ${i}`)).toBeLessThan(events.indexOf(`sass ${i} ATOM.E.FAKE`));
      // every module read once
      const calls = () => readFileSync(log, 'utf8').trim().split('\n');
      expect(calls()).toEqual(texts.map(() => 'sass cuobjdump 1'));
      expect(r.modules[n]).toBeUndefined();
      expect(r.modules[2]!.sass.k7).toBe('ATOM.E.FAKE');
      // the cache: both callbacks before the call's first await, nothing compiled or disassembled
      const again: string[] = [];
      const pending = compileModules(texts, {
        ptxas,
        arch: 'sm_90',
        cacheDir,
        onCubin: (i) => again.push(`cubin ${i}`),
        onSass: (i) => again.push(`sass ${i}`),
      });
      expect(again).toHaveLength(2 * n);
      const before = calls().length;
      expect((await pending).stats).toMatchObject({ compiled: 0, cached: n });
      expect(calls()).toHaveLength(before);
    },
    60_000,
  );
});

describe('sassByKernel: the SASS of each kernel of a cubin, from nvdisasm or cuobjdump', async () => {
  const p = await ptxasOrReason();
  it.skipIf(typeof p === 'string')(
    "nvdisasm's layout and cuobjdump's give the cubin's own kernels; nvdisasm first where both are; none: no evidence",
    async () => {
      const ptxas = p as Exclude<typeof p, string>;
      const dir = join(scratch, 'disassemblers');
      const { mkdirSync, writeFileSync, symlinkSync } = await import('node:fs');
      mkdirSync(dir, { recursive: true });
      const text = `.version 8.0\n.target sm_90\n.address_size 64\n${[4, 5, 6].map((k) => kernel(k).replace('.reg .b64 %rd<2>;', '.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;')).join('')}`;
      writeFileSync(join(dir, 'm.ptx'), text);
      expect(spawnSync(ptxas.path, ['-arch', 'sm_90', join(dir, 'm.ptx'), '-o', join(dir, 'm.cubin')]).status).toBe(0);
      const cubin = join(dir, 'm.cubin');
      const want = { k4: 'ATOM.E.FAKE', k5: 'ATOM.E.FAKE', k6: 'ATOM.E.FAKE' };
      const log = join(dir, 'calls.log');
      const calls = () => readFileSync(log, 'utf8').trim().split('\n');
      for (const tool of ['nvdisasm', 'cuobjdump'])
        await withFakeCuobjdump({ FAKE_CUOBJDUMP_LOG: log, PTXCONF_DISASSEMBLER: tool }, async () => expect(await sassByKernel(cubin)).toEqual(want));
      // both on PATH, none named: nvdisasm
      await withFakeCuobjdump({ FAKE_CUOBJDUMP_LOG: log, PTXCONF_DISASSEMBLER: '' }, async () => expect(await sassByKernel(cubin)).toEqual(want));
      expect(calls()).toEqual(['sass nvdisasm 1', 'sass cuobjdump 1', 'sass nvdisasm 1']);
      // neither on PATH (only node, for the stand-ins): {}
      const bare = join(dir, 'bare');
      mkdirSync(bare, { recursive: true });
      if (!existsSync(join(bare, 'node'))) symlinkSync(process.execPath, join(bare, 'node'));
      await withFakeCuobjdump({ PATH: bare, PTXCONF_DISASSEMBLER: '' }, async () => expect(await sassByKernel(cubin)).toEqual({}));
      // the layouts, parsed: predicated lines, mnemonics once each, other lines not taken
      expect(
        sassMnemonics(
          [
            '\t.section\t.text.k9,"ax",@progbits',
            '.text.k9:',
            '        /*0000*/                   LDC R1, c[0x0][0x28] ;',
            '        /*0010*/              @!P0 RED.E.ADD.F32.FTZ.RN.STRONG.GPU [R2.64], R5 ;',
            '        /*0020*/                   RED.E.ADD.F32.FTZ.RN.STRONG.GPU [R2.64], R5 ;',
            '//--------------------- .text.k10 ---',
            '.text.k10:',
            '        /*0000*/                   ATOMG.E.EXCH.STRONG.GPU PT, R3, [R2.64], R5 ;',
          ].join('\n'),
        ),
      ).toEqual({ k9: 'RED.E.ADD.F32.FTZ.RN.STRONG.GPU', k10: 'ATOMG.E.EXCH.STRONG.GPU' });
    },
    60_000,
  );
});

describe('ModuleSet', () => {
  it('resolves a batch once all its cubins are there, SASS_LATER until the SASS is read, and refuses a module the compilation did not make', async () => {
    const m = new ModuleSet();
    let sent = false;
    const batch = m.cubinsReady([0, 2, GEN]).then(() => (sent = true));
    m.cubin(0, '/c/0.cubin');
    m.cubin(GEN, '/c/gen.cubin');
    await Promise.resolve();
    expect(sent).toBe(false);
    m.cubin(2, '/c/2.cubin');
    await batch;
    expect(sent).toBe(true);
    expect(m.sassOf(2, 'k512', 'k512')).toBe(SASS_LATER);
    let read = false;
    const waiting = m.sassRead(2).then(() => (read = true));
    m.sass(2, { k512: 'ATOM RED' });
    await waiting;
    expect(read).toBe(true);
    expect(m.sassOf(2, 'k512', 'k512')).toBe('ATOM RED');
    expect(m.sassOf(2, 'wide_k513', 'k513')).toBe('no SASS evidence (cuobjdump missing)');
    await expect(m.cubinsReady([0, 5], true)).rejects.toThrow(/module 5 was not compiled/);
    // a failed compilation lets whatever waits for a SASS go on
    const stuck = m.sassRead(0);
    m.abandon();
    await stuck;
  });
});

describe('ModuleCompiler: a plan module compiled before is found without its text', async () => {
  const p = await ptxasOrReason();
  it.skipIf(typeof p === 'string')(
    'a second run asks for no text; a module whose cubin is gone, or whose identity changed, is written and compiled again',
    async () => {
      const ptxas = p as Exclude<typeof p, string>;
      const cacheDir = join(scratch, 'indexed');
      const texts = [0, 1, 2].map(
        (m) => `.version 8.0\n.target sm_90\n.address_size 64\n${kernel(m).replace('.reg .b64 %rd<2>;', '.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;')}`,
      );
      const ident = ['plan a 0', 'plan a 1', 'plan a 2'];
      const variants = [0, 1, 2].map((module) => ({ module }) as unknown as GpuVariant);
      const run = async () => {
        const asked: number[] = [];
        const progress: string[] = [];
        const c = new ModuleCompiler(
          {
            count: () => 3,
            text: (i) => (asked.push(i), texts[i]!),
            assign: () => undefined,
            moduleOf: (v) => (v as unknown as { module: number }).module,
            genText: () => '',
            identity: (i) => ident[i],
          },
          { ptxas, arch: 'sm_90', cacheDir, onProgress: (m) => progress.push(m), gen: false },
        );
        await withFakeCuobjdump({}, () => c.compile(variants, false));
        const cubins = [0, 1, 2].map((i) => c.mods.cubinOf(i));
        return { asked, progress, cubins, stats: c.stats, sass: [0, 1, 2].map((i) => c.mods.sassOf(i, `k${i}`, `k${i}`)) };
      };
      const first = await run();
      expect(first.asked.sort()).toEqual([0, 1, 2]);
      expect(first.stats.compiled).toBe(3);
      const second = await run();
      expect(second.asked).toEqual([]);
      expect(second.stats).toMatchObject({ compiled: 0, cached: 3 });
      expect(second.cubins).toEqual(first.cubins);
      expect(second.sass).toEqual(first.sass);
      expect(second.progress.at(-1)).toBe('gpu modules: 3/3 ready (3 from the cubin cache)');
      // module 1's cubin gone: its text is written again (and its key found in the cache once more)
      rmSync(first.cubins[1]!);
      const third = await run();
      expect(third.asked).toEqual([1]);
      expect(third.progress.at(-1)).toBe('gpu modules: 3/3 ready (2 from the cubin cache)');
      // module 2 now made of other variants: its text is asked for
      ident[2] = 'plan a 2 with another variant';
      const fourth = await run();
      expect(fourth.asked).toEqual([2]);
      expect(fourth.stats).toMatchObject({ compiled: 0, cached: 3 }); // the same text: its cubin cached under its key
    },
  );
});

describe("a plan's module size", () => {
  it('two modules per core, 256 to 1024 kernels each', async () => {
    const { planModuleSize } = await import('../../harness/backends/gpu/plan.js');
    const saved = process.env.PTXCONF_MODULE_SIZE;
    delete process.env.PTXCONF_MODULE_SIZE;
    try {
      expect(planModuleSize(17936, 16)).toBe(561);
      expect(Math.ceil(17936 / planModuleSize(17936, 16))).toBe(32);
      expect(planModuleSize(17936, 2)).toBe(1024);
      expect(planModuleSize(17936, 64)).toBe(256);
      expect(planModuleSize(100, 16)).toBe(256);
    } finally {
      if (saved !== undefined) process.env.PTXCONF_MODULE_SIZE = saved;
    }
  });
});

describe('SassReader: each distinct kernel code disassembled once in a run, as a raw binary', async () => {
  const p = await ptxasOrReason();
  const { SassReader, kernelCode, rawMnemonics, rawBinaryArch } = await import('../../harness/backends/gpu/sass.js');
  // kernels of different codes (the op), and of the same code under another name
  const opKernel = (n: number, op: string) =>
    `.visible .entry k${n}(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\tld.param.u64 %rd1, [p];\n\tatom.global.${op}.u32 %r1, [%rd1], 1;\n\tst.global.u32 [%rd1+8], %r1;\n\tret;\n}\n`;
  const compile = (dir: string, name: string, kernels: [number, string][]) => {
    const ptxas = p as Exclude<typeof p, string>;
    writeFileSync(join(dir, `${name}.ptx`), `.version 8.0\n.target sm_90\n.address_size 64\n${kernels.map(([n, op]) => opKernel(n, op)).join('')}`);
    expect(spawnSync(ptxas.path, ['-arch', 'sm_90', join(dir, `${name}.ptx`), '-o', join(dir, `${name}.cubin`)]).status).toBe(0);
    return join(dir, `${name}.cubin`);
  };
  const dir = join(scratch, 'raw');
  mkdirSync(dir, { recursive: true });

  it('rawMnemonics: each line to the piece its address falls in, atomic mnemonics once each; a piece no line reaches: undefined', () => {
    const text = [
      '\t.headerflags\t@"EF_CUDA_SM90"',
      '        /*0000*/                   ATOMG.E.ADD.STRONG.GPU PT, R3, [R2.64], R5 ;',
      '        /*0010*/                   LDC R1, c[0x0][0x28] ;',
      '        /*0020*/              @!P0 RED.E.ADD.F32.FTZ.RN.STRONG.GPU [R2.64], R5 ;',
      '        /*0030*/                   RED.E.ADD.F32.FTZ.RN.STRONG.GPU [R2.64], R5 ;',
      '        /*0040*/                   EXIT ;',
      '        /*0050*/                   ATOMG.E.EXCH.STRONG.GPU PT, R3, [R2.64], R5 ;',
      '        /*0060*/                   NOP ;',
    ].join('\n');
    expect(
      rawMnemonics(text, [
        { start: 0, end: 0x20 },
        { start: 0x20, end: 0x50 },
        { start: 0x50, end: 0x60 },
        { start: 0x60, end: 0x70 },
      ]),
    ).toEqual(['ATOMG.E.ADD.STRONG.GPU', 'RED.E.ADD.F32.FTZ.RN.STRONG.GPU', 'ATOMG.E.EXCH.STRONG.GPU', '']);
    expect(rawMnemonics('nvdisasm: error\n', [{ start: 0, end: 16 }])).toBeUndefined();
    // a piece no line reaches (a disassembly that stopped short): undefined, not an empty SASS
    expect(
      rawMnemonics(text, [
        { start: 0, end: 0x70 },
        { start: 0x70, end: 0x80 },
      ]),
    ).toBeUndefined();
    expect([rawBinaryArch('sm_90'), rawBinaryArch('sm_90a'), rawBinaryArch('sm_100a'), rawBinaryArch('compute_90')]).toEqual([
      'SM90',
      'SM90a',
      'SM100a',
      undefined,
    ]);
  });

  it.skipIf(typeof p === 'string')("kernelCode: a real cubin's kernels and their code, in 16-byte instructions; anything but an ELF64 cubin: undefined", () => {
    const cubin = readFileSync(
      compile(dir, 'code', [
        [0, 'add'],
        [1, 'max'],
      ]),
    );
    const code = kernelCode(cubin)!;
    expect([...code.keys()].sort()).toEqual(['k0', 'k1']);
    for (const c of code.values()) expect(c.length > 0 && c.length % 16 === 0).toBe(true);
    expect(code.get('k0')!.equals(code.get('k1')!)).toBe(false);
    expect(kernelCode(Buffer.from('not an ELF at all, but long enough to be read as one if nothing checked the magic'))).toBeUndefined();
    expect(kernelCode(cubin.subarray(0, 200))).toBeUndefined();
  });

  it.skipIf(typeof p === 'string')(
    "gives each cubin's kernels the mnemonics the whole-cubin disassembly gives, each distinct code sent once; falls back to the whole cubin where -b fails",
    async () => {
      // a: k0 and k2 the same code; b: k3 that code again, k4 a new one
      const a = compile(dir, 'a', [
        [0, 'add'],
        [1, 'max'],
        [2, 'add'],
      ]);
      const b = compile(dir, 'b', [
        [3, 'add'],
        [4, 'min'],
      ]);
      const code = new Map([...kernelCode(readFileSync(a))!, ...kernelCode(readFileSync(b))!]);
      const log = join(dir, 'raw.log');
      writeFileSync(log, '');
      const calls = () => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
      const env = { FAKE_CUOBJDUMP_LOG: log, FAKE_SASS_BYTES: '1' };
      const whole = await withFakeCuobjdump({ ...env, PTXCONF_DISASSEMBLER: 'nvdisasm' }, async () => ({ a: await sassByKernel(a), b: await sassByKernel(b) }));
      expect(calls()).toEqual(['sass nvdisasm 1', 'sass nvdisasm 1']);
      // the stand-in's mnemonics follow the code: the same code, the same SASS; another, another
      expect(whole.a.k0).toBe(whole.a.k2);
      expect(whole.a.k0).not.toBe(whole.a.k1);
      expect(whole.b.k4).not.toBe(whole.a.k0);
      writeFileSync(log, '');
      const got = await withFakeCuobjdump({ ...env, PTXCONF_DISASSEMBLER: '' }, async () => {
        const r = new SassReader('sm_90');
        const ra = r.read(a, readFileSync(a));
        const rb = r.read(b, readFileSync(b));
        return { a: await ra.sass, b: await rb.sass, stats: r.stats };
      });
      expect(got.a).toEqual(whole.a);
      expect(got.b).toEqual(whole.b);
      // a's two codes in one call, b's new one in another: k3's code (k0's) not sent again
      const bytes = (...ks: string[]) => ks.reduce((n, k) => n + code.get(k)!.length, 0);
      // (the two calls run at once: in either order)
      expect(calls().sort()).toEqual([`sass nvdisasm raw ${bytes('k0', 'k1')}`, `sass nvdisasm raw ${bytes('k4')}`].sort());
      expect(got.stats).toEqual({ calls: 2, codes: 3, bytes: bytes('k0', 'k1', 'k4') });
      // an architecture the disassembler's -b refuses: each cubin whole, the same mnemonics
      writeFileSync(log, '');
      const refused = await withFakeCuobjdump({ ...env, PTXCONF_DISASSEMBLER: '' }, async () => {
        const r = new SassReader('sm_90x');
        return { a: await r.read(a, readFileSync(a)).sass, b: await r.read(b, readFileSync(b)).sass };
      });
      expect(refused).toEqual(whole);
      // (the stand-in refuses before it logs a call)
      expect(calls()).toEqual(['sass nvdisasm 1', 'sass nvdisasm 1']);
      // cuobjdump named: whole cubins only
      writeFileSync(log, '');
      await withFakeCuobjdump({ ...env, PTXCONF_DISASSEMBLER: 'cuobjdump' }, async () => {
        const r = new SassReader('sm_90');
        expect(Object.keys(await r.read(a, readFileSync(a)).sass).sort()).toEqual(['k0', 'k1', 'k2']);
      });
      expect(calls()).toEqual(['sass cuobjdump 1']);
    },
    60_000,
  );
  it.skipIf(typeof p === 'string')(
    'compileModules: modules whose codes another module has sent wait for its call; one call in all, every module its SASS',
    async () => {
      const ptxas = p as Exclude<typeof p, string>;
      const log = join(dir, 'modules.log');
      writeFileSync(log, '');
      // more modules than cores, each the same two codes under its own names
      const n = availableParallelism() + 2;
      const texts = Array.from(
        { length: n },
        (_, i) => `.version 8.0\n.target sm_90\n.address_size 64\n${opKernel(2 * i, 'add')}${opKernel(2 * i + 1, 'max')}`,
      );
      const sass: Record<string, string>[] = [];
      const r = await withFakeCuobjdump({ FAKE_CUOBJDUMP_LOG: log, FAKE_SASS_BYTES: '1', PTXCONF_DISASSEMBLER: '' }, () =>
        compileModules(texts, { ptxas, arch: 'sm_90', cacheDir: join(dir, 'cache'), onSass: (i, s) => (sass[i] = { ...s }) }),
      );
      expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
      expect(readFileSync(log, 'utf8')).toMatch(/^sass nvdisasm raw \d+\n$/);
      for (let i = 0; i < n; i++) {
        expect(r.modules[i]!.sass).toEqual(sass[i]);
        expect([sass[i]![`k${2 * i}`], sass[i]![`k${2 * i + 1}`]]).toEqual([sass[0]!.k0, sass[0]!.k1]);
      }
      expect(sass[0]!.k0).not.toBe(sass[0]!.k1);
      expect(sass[0]!.k0).toMatch(/^ATOM\.E\.FAKE_[0-9A-F]{4}/);
    },
    60_000,
  );
});
