/**
 * Modules as they become ready (backends/gpu/cache.ts, module-set.ts): compileModules hands each
 * cubin over as ptxas writes it and reads the SASS only once nothing is left to compile, so a run
 * starts on its first module; the gpu backend sends a batch once its modules' cubins are there and
 * holds the results of a job sent before its module's SASS was read until it is, so every result
 * carries its kernel's SASS. With a stand-in cuobjdump (tests/fixtures/fake-cuobjdump.sh) that is
 * slow, and a real ptxas where there is one.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileModules } from '../../harness/backends/gpu/cache.js';
import { GEN, ModuleCompiler, ModuleSet, SASS_LATER } from '../../harness/backends/gpu/module-set.js';
import type { GpuVariant } from '../../harness/backends/gpu/plan.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const scratch = mkdtempSync(join(tmpdir(), 'ptxconf-modules-ready-'));
const bin = join(scratch, 'bin');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs f with the stand-in cuobjdump first on PATH (and the environment given). */
async function withFakeCuobjdump<T>(env: Record<string, string>, f: () => Promise<T>): Promise<T> {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(bin, { recursive: true });
  copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'fake-cuobjdump.sh'), join(bin, 'cuobjdump'));
  const saved = { ...process.env };
  Object.assign(process.env, { PATH: `${bin}:${process.env.PATH}`, ...env });
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
      const r = await withFakeCuobjdump({ FAKE_CUOBJDUMP_LOG: log, FAKE_KERNELS: String(3 * texts.length) }, () =>
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
      expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(n);
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
      expect((await pending).stats).toMatchObject({ compiled: 0, cached: n });
      expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(n);
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
        await withFakeCuobjdump({ FAKE_KERNELS: '1' }, () => c.compile(variants, false));
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
