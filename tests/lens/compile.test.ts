/**
 * Every lens kernel compiled by nvcc (compile only, -cubin -arch=sm_90): each .cu file either gives
 * a cubin holding every kernel of its calls, or nvcc's message, which skips its kernels; a second
 * compile finds every file in the cache; a prebuilt folder written from it reads back. Skips with the
 * reason where nvcc is missing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileLens, findNvcc, lensSources, readPrebuilt, writePrebuilt } from '../../harness/lens/compile.js';
import { lensKernels, loadManifest } from '../../harness/lens/manifest.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-lens-cc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lens kernels under nvcc', async () => {
  const nvcc = await findNvcc(process.env.LENS_NVCC).catch((e: Error) => e.message);
  if (typeof nvcc === 'string') console.log(`[skip] lens compile tests: ${nvcc}`);
  it.skipIf(typeof nvcc === 'string')(
    "every file compiles or is rejected with nvcc's message; every kernel of a compiled file is in its cubin; cached the second time; prebuilt round trip",
    async () => {
      const n = nvcc as Exclude<typeof nvcc, string>;
      const t = await compileLens(n, 'sm_90', dir);
      expect(t.files.map((f) => f.file)).toEqual(lensSources());
      const kernels = lensKernels(loadManifest());
      for (const f of t.files) {
        const mine = kernels.filter((k) => k.call.file === f.file);
        expect(mine.length, f.file).toBeGreaterThan(0);
        if (f.cubin) {
          const bytes = readFileSync(f.cubin).toString('latin1');
          for (const k of mine) expect(bytes.includes(`${k.kernel}\0`), `${k.kernel} in ${f.file}`).toBe(true);
        } else expect(f.error, f.file).toMatch(/error/);
      }
      // the compilable core: every atomicXxx file (the libcu++ ones depend on the toolchain's version)
      for (const f of ['u64.cu', 'u32.cu', 'float.cu']) expect(t.files.find((x) => x.file === f)!.cubin, f).toBeTruthy();
      const again = await compileLens(n, 'sm_90', dir);
      expect(again.files.every((f) => f.cached)).toBe(true);
      writePrebuilt(t, join(dir, 'pre'));
      const [back] = readPrebuilt(join(dir, 'pre'), 'sm_90');
      expect(back!.nvcc.versionLine).toBe(n.versionLine);
      expect(back!.files.map((f) => [f.file, Boolean(f.cubin)])).toEqual(t.files.map((f) => [f.file, Boolean(f.cubin)]));
    },
    120_000,
  );
});
