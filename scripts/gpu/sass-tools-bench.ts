/**
 * Issue 43's cold-run profile, on the GPU host: what each tool the gpu backend's cold run calls costs per
 * module, alone and all modules P at a time, and whether nvdisasm reads the same SASS mnemonics as
 * `cuobjdump -sass` (both parsed by harness/backends/gpu/sass.ts sassMnemonics). Bundled by `npm run gpu:pack`.
 *
 *   node .bundle/sass-tools-bench.mjs PTXDIR OUTDIR [P]   (PTXDIR: m0.ptx ... as the plan writes them)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sassMnemonics } from '../../harness/backends/gpu/sass.js';

const run = promisify(execFile);
const [ptxDir, out, p0] = process.argv.slice(2);
if (!ptxDir || !out) {
  console.error('usage: node sass-tools-bench.mjs PTXDIR OUTDIR [P]');
  process.exit(2);
}
const P = Number(p0 ?? availableParallelism());
mkdirSync(out, { recursive: true });
const mods = readdirSync(ptxDir)
  .filter((f) => f.endsWith('.ptx'))
  .map((f) => f.slice(0, -4))
  .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
const cubin = (m: string) => join(out, `${m}.cubin`);

/** Runs f on every item, P at a time: the wall time and each item's. */
async function pool(items: readonly string[], f: (m: string) => Promise<unknown>): Promise<{ wall: number; each: number[] }> {
  let next = 0;
  const t0 = performance.now();
  const each: number[] = [];
  await Promise.all(
    Array.from({ length: Math.min(P, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        const t = performance.now();
        await f(items[i]!);
        each[i] = performance.now() - t;
      }
    }),
  );
  return { wall: performance.now() - t0, each };
}

const lines: string[] = [];
const say = (s: string) => {
  console.log(s);
  lines.push(s);
};
const stat = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[s.length >> 1]!.toFixed(0)} ms, max ${s.at(-1)!.toFixed(0)}, sum ${(s.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s`;
};
const ptxas = (m: string) => run('ptxas', ['-arch', 'sm_90', join(ptxDir, `${m}.ptx`), '-o', cubin(m)]);
const probe = [mods[0]!, mods[Math.floor(mods.length / 2)]!];

say(`${mods.length} modules, ${P} at a time, node ${process.version}`);
for (const m of probe) {
  const t = performance.now();
  await ptxas(m);
  say(`ptxas ${m} alone: ${(performance.now() - t).toFixed(0)} ms`);
}
const c = await pool(mods, ptxas);
say(`ptxas, all ${mods.length}, ${P} at a time: wall ${(c.wall / 1000).toFixed(2)} s; each ${stat(c.each)}`);

const tools: Record<string, (m: string) => [string, string[]]> = {
  cuobjdump: (m) => ['cuobjdump', ['-sass', cubin(m)]],
  'nvdisasm -c -ndf': (m) => ['nvdisasm', ['-c', '-ndf', cubin(m)]],
};
let base: Record<string, Record<string, string>> | undefined;
for (const [name, cmd] of Object.entries(tools)) {
  for (const m of probe) {
    const t = performance.now();
    try {
      await run(...cmd(m), { maxBuffer: 1 << 30 });
      say(`${name} ${m} alone: ${(performance.now() - t).toFixed(0)} ms`);
    } catch (e) {
      say(`${name} ${m}: failed (${String((e as Error).message ?? e).split('\n')[0]})`);
    }
  }
  const got: Record<string, Record<string, string>> = {};
  let bytes = 0;
  let failed = '';
  const r = await pool(mods, async (m) => {
    try {
      const { stdout } = await run(...cmd(m), { maxBuffer: 1 << 30 });
      bytes += stdout.length;
      got[m] = sassMnemonics(stdout);
    } catch (e) {
      failed ||= String((e as Error).message ?? e).split('\n')[0]!;
    }
  });
  base ??= got;
  const same = mods.filter((m) => got[m] && JSON.stringify(got[m]) === JSON.stringify(base![m])).length;
  const kernels = mods.reduce((a, m) => a + Object.keys(got[m] ?? {}).length, 0);
  say(
    `${name}, all ${mods.length}, ${P} at a time: wall ${(r.wall / 1000).toFixed(2)} s; each ${stat(r.each)}; ${kernels} kernels, ` +
      `${(bytes / 1e6).toFixed(0)} MB of text; the same mnemonics as ${Object.keys(tools)[0]} in ${same}/${mods.length} modules${failed ? `; failed: ${failed}` : ''}`,
  );
}
writeFileSync(join(out, 'sass-tools.txt'), `${lines.join('\n')}\n`);
