// Issue 43's cold-run profile, on the GPU host: what each tool the gpu backend's cold run calls costs per
// module, alone and 16 at a time, and whether another disassembler reads the same SASS mnemonics as
// `cuobjdump -sass` (harness/backends/gpu/cache.ts sassByKernel). Plain node (the bundle's), no harness code.
// Usage: node sass-tools-bench.mjs PTXDIR OUTDIR [P]   (PTXDIR: m0.ptx ... as the plan writes them)
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const [ptxDir, out, p0] = process.argv.slice(2);
const P = Number(p0 ?? availableParallelism());
mkdirSync(out, { recursive: true });
const mods = readdirSync(ptxDir)
  .filter((f) => f.endsWith('.ptx'))
  .map((f) => f.slice(0, -4))
  .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
const ATOMIC = /^(ATOM|RED|UBLKRED|SYNCS|UBLKCP|UTMA)/;

/** kernel -> mnemonics, from cuobjdump (Function : NAME) or nvdisasm (.text.NAME:) text. */
function parse(text) {
  const o = {};
  let cur = '';
  for (const line of text.split('\n')) {
    const f = /Function : (\S+)/.exec(line) ?? /^\s*\.text\.([A-Za-z_$][\w$]*):/.exec(line);
    if (f) {
      cur = f[1];
      o[cur] ??= [];
      continue;
    }
    const m = /\/\*[0-9a-f]+\*\/\s+(?:@!?U?P\d+\s+)?([A-Z][A-Z0-9_.]*)/.exec(line);
    if (cur && m && ATOMIC.test(m[1]) && !o[cur].includes(m[1])) o[cur].push(m[1]);
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v.join(' ')]));
}

async function pool(items, f) {
  let next = 0;
  const t0 = performance.now();
  const each = [];
  await Promise.all(
    Array.from({ length: Math.min(P, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        const t = performance.now();
        await f(items[i]);
        each[i] = performance.now() - t;
      }
    }),
  );
  return { wall: performance.now() - t0, each };
}

const lines = [];
const say = (s) => {
  console.log(s);
  lines.push(s);
};
const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[s.length >> 1].toFixed(0)} ms, max ${s[s.length - 1].toFixed(0)}, sum ${(s.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s`;
};
say(`${mods.length} modules, ${P} at a time, node ${process.version}`);
// alone: three modules, one after another
for (const m of [mods[0], mods[Math.floor(mods.length / 2)]]) {
  const t = performance.now();
  await run('ptxas', ['-arch', 'sm_90', join(ptxDir, `${m}.ptx`), '-o', join(out, `${m}.cubin`)]);
  say(`ptxas ${m} alone: ${(performance.now() - t).toFixed(0)} ms`);
}
const c = await pool(mods, (m) => run('ptxas', ['-arch', 'sm_90', join(ptxDir, `${m}.ptx`), '-o', join(out, `${m}.cubin`)]));
say(`ptxas, all ${mods.length}, ${P} at a time: wall ${(c.wall / 1000).toFixed(2)} s; each ${stat(c.each)}`);
// several cubins to a call: a fat binary of them (fatbinary), its output cut at each cubin's
// `code for sm_NN` line (harness/backends/gpu/cache.ts sassByKernels does the same)
const groupOf = (m, k) => {
  const i = mods.indexOf(m);
  return i % k ? undefined : mods.slice(i, i + k);
};
const fat = (m, k) => {
  const g = groupOf(m, k);
  if (!g) return undefined;
  const f = join(out, `g${m}-${k}.fatbin`);
  return ['sh', ['-c', `fatbinary --create=${f} -64 ${g.map((x) => `--image3=kind=elf,sm=90,file=${join(out, `${x}.cubin`)}`).join(' ')} && cuobjdump -sass ${f}`], g];
};
const tools = {
  cuobjdump: (m) => ['cuobjdump', ['-sass', join(out, `${m}.cubin`)]],
  'fatbinary + cuobjdump x2': (m) => fat(m, 2),
  'fatbinary + cuobjdump x4': (m) => fat(m, 4),
  'fatbinary + cuobjdump x8': (m) => fat(m, 8),
  'nvdisasm -c -ndf': (m) => ['nvdisasm', ['-c', '-ndf', join(out, `${m}.cubin`)]],
};
const base = {};
for (const [name, cmd] of Object.entries(tools)) {
  for (const m of [mods[0], mods[Math.floor(mods.length / 2)]]) {
    const t = performance.now();
    if (!cmd(m)) continue;
    try {
      const [b, a] = cmd(m);
      await run(b, a, { maxBuffer: 1 << 30 });
      say(`${name} ${m} alone: ${(performance.now() - t).toFixed(0)} ms`);
    } catch (e) {
      say(`${name} ${m}: failed (${String(e.message ?? e).split('\n')[0]})`);
    }
  }
  const got = {};
  let failed = '';
  const r = await pool(mods, async (m) => {
    if (!cmd(m)) return;
    const [b, a, group] = cmd(m);
    try {
      const t = performance.now();
      const { stdout } = await run(b, a, { maxBuffer: 1 << 30 });
      const tp = performance.now();
      const parts = group ? stdout.split(/^(?=[ \t]*code for sm_\w+[ \t]*$)/m).filter((p) => /^[ \t]*code for sm_/.test(p)) : [stdout];
      if (group && parts.length !== group.length) failed ||= `${parts.length} parts for ${group.length} cubins`;
      (group ?? [m]).forEach((g, n) => {
        got[g] = parse(parts[n] ?? '');
        got[g].__parseMs = (performance.now() - tp) / parts.length;
        got[g].__bytes = (parts[n] ?? '').length;
        got[g].__ms = tp - t;
      });
    } catch (e) {
      failed ||= String(e.message ?? e).split('\n')[0];
    }
  });
  let same = 0;
  let diff = '';
  let kernels = 0;
  for (const m of mods) {
    const g = got[m];
    if (!g) continue;
    if (name === 'cuobjdump') base[m] = g;
    const b = base[m];
    const keys = Object.keys(g).filter((k) => !k.startsWith('__'));
    kernels += keys.length;
    const ok = b && keys.length === Object.keys(b).filter((k) => !k.startsWith('__')).length && keys.every((k) => g[k] === b[k]);
    if (ok) same++;
    else if (!diff && b) diff = `${m}: ${keys.find((k) => g[k] !== b[k]) ?? 'kernel count'} ${JSON.stringify(g[keys.find((k) => g[k] !== b[k])])} vs ${JSON.stringify(b[keys.find((k) => g[k] !== b[k])])}`;
  }
  const bytes = mods.reduce((a, m) => a + (got[m]?.__bytes ?? 0), 0);
  const parseMs = mods.reduce((a, m) => a + (got[m]?.__parseMs ?? 0), 0);
  say(
    `${name}, all ${mods.length}, ${P} at a time: wall ${(r.wall / 1000).toFixed(2)} s; each ${stat(r.each)}; ${kernels} kernels, ${(bytes / 1e6).toFixed(0)} MB of text, parsing ${(parseMs / 1000).toFixed(1)} s; the same mnemonics as cuobjdump in ${same}/${mods.length} modules${diff ? `; first difference ${diff}` : ''}${failed ? `; failed: ${failed}` : ''}`,
  );
}
writeFileSync(join(out, 'sass-tools.txt'), `${lines.join('\n')}\n`);
