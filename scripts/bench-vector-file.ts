/**
 * `npm run bench:vector-file`: one big vector file end to end, stage by stage (issue 27, deliverable
 * 5). Writes the TestFloat-style f16 add file (scripts/gen-testfloat-f16.ts: 1.3 M cases, ~220 MB,
 * ~12 % NaN results) unless given one, runs the CLI on it in a child process exactly as a user would
 * (`--vectors FILE --backend gpu`; `--backend reference` for the model alone), timestamps each line
 * it prints, and says where the seconds went:
 *   start    process start to the backend chosen (node, modules, ptxas and device probes)
 *   read     the one read of the file: validated, its cases held (every problem before anything
 *            runs), while the workers start their CUDA contexts
 *   plan     looking up the file's variants (report stats.planSeconds)
 *   compile  ptxas or the cubin cache (stats.compileSeconds)
 *   run      the GPU and the judging, overlapped (stats.runSeconds), with the workers' own seconds
 *            beside it: GPU (launches and copies) and judging; a file too big to hold is read again here
 *   other    the rest between the read and the last case judged
 *   report   the last case judged to the process's end (comparator, report.json, html, junit, gzip)
 * From the bundle on a GPU host (no node there): `.bundle/bench-vector-file.mjs` (npm run gpu:pack).
 *
 * Usage: bench-vector-file [--file F] [--mix] [--cases N] [--write-only] [--backend gpu|reference] [--standin] [--report DIR] [--cli CLI.mjs]
 * --file F: the file to run (written there first, and kept, when it does not exist); --mix: the file
 * written is one of 12 variants (writeMixedFile), as users' files are; --write-only: write it and
 * stop; --cli: another build of the CLI (a bundle's cli.mjs) to compare with.
 * scripts/gpu/vector-file-bench.sh runs it on a GPU host, two builds, cold and warm, both files.
 * --standin runs the gpu backend against the stand-in launcher (tests/fixtures/standin-launcher.cts,
 * a CPU "GPU" computing the model per case: its GPU seconds mean nothing, the other stages do).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTestFloatFile } from './gen-testfloat-f16.js';
import { variantFromId } from '../harness/case-readers/sources.js';
import { fastLaneOp } from '../harness/reference/fast.js';
import { registerAllFamilies } from '../harness/families/index.js';
import { mulberry32 } from '../harness/util/rng.js';

/**
 * A file of several variants, as users write them: JSON lines of 12 atom/red variants in turn (f16,
 * bf16, bf16x2 and f32 adds, integer add, and, max, cas, exch, 64-bit add, one of them on shared
 * memory), each case's `expect:` the model's one outcome (canonical NaN where it allows any NaN),
 * random operands with float specials (about 1 in 8 an infinity or NaN).
 */
export function writeMixedFile(path: string, n: number, seed = 7): { cases: number; variants: number; bytes: number } {
  registerAllFamilies();
  const next = mulberry32(seed);
  const h = (x: number | bigint, digits: number) => `0x${x.toString(16).padStart(digits, '0')}`;
  const lane = (id: string, space: 'global' | 'shared' = 'global') => {
    const f = fastLaneOp(variantFromId(id)!, space);
    if (!f) throw new Error(`no fast lane operation for ${id}`);
    return f;
  };
  const f16 = () => (next() >>> 28 === 0 ? 0x7c00 | (next() & 0x83ff) : next() & 0xffff);
  const f32 = () => (next() >>> 28 === 0 ? (0x7f800000 | (next() & 0x807fffff)) >>> 0 : next());
  const u64 = () => (BigInt(next()) << 32n) | BigInt(next());
  const nan16 = (x: number) => (x < 0 ? 0x7fff : x);
  type Kind = { id: string; make: () => { m: string; b: string; c?: string; em?: string; er?: string } };
  const kinds: Kind[] = [];
  const half = (id: string) => {
    const op = lane(id);
    kinds.push({
      id,
      make: () => {
        const a = f16(),
          b = f16();
        return { m: h(a, 4), b: h(b, 4), em: h(nan16(op(a, b)), 4), er: h(a, 4) };
      },
    });
  };
  half('atom.global.add.noftz.f16');
  half('atom.global.add.noftz.bf16');
  const addF32 = (id: string, space: 'global' | 'shared', returns: boolean) => {
    const op = lane(id, space);
    kinds.push({
      id,
      make: () => {
        const a = f32(),
          b = f32();
        const x = op(a, b);
        return { m: h(a, 8), b: h(b, 8), em: h(x < 0 ? 0x7fffffff : x, 8), ...(returns ? { er: h(a, 8) } : {}) };
      },
    });
  };
  addF32('atom.global.add.f32', 'global', true);
  addF32('red.global.add.f32', 'global', false);
  addF32('atom.shared::cta.add.f32', 'shared', true);
  const bf2 = lane('red.global.add.noftz.bf16x2');
  kinds.push({
    id: 'red.global.add.noftz.bf16x2',
    make: () => {
      const a = f32(),
        b = f32();
      const lo = nan16(bf2(a & 0xffff, b & 0xffff)),
        hi = nan16(bf2(a >>> 16, b >>> 16));
      return { m: h(a, 8), b: h(b, 8), em: h(((hi << 16) | lo) >>> 0, 8) };
    },
  });
  kinds.push({
    id: 'red.global.add.u32',
    make: () => {
      const a = next(),
        b = next();
      return { m: h(a, 8), b: h(b, 8), em: h((a + b) >>> 0, 8) };
    },
  });
  kinds.push({
    id: 'atom.global.and.b32',
    make: () => {
      const a = next(),
        b = next();
      return { m: h(a, 8), b: h(b, 8), em: h((a & b) >>> 0, 8), er: h(a, 8) };
    },
  });
  kinds.push({
    id: 'atom.global.max.s32',
    make: () => {
      const a = next() | 0,
        b = next() | 0;
      return { m: h(a >>> 0, 8), b: h(b >>> 0, 8), em: h(Math.max(a, b) >>> 0, 8), er: h(a >>> 0, 8) };
    },
  });
  kinds.push({
    id: 'atom.global.cas.b32',
    make: () => {
      const a = next(),
        b = next() & 1 ? a : next(),
        c = next();
      return { m: h(a, 8), b: h(b, 8), c: h(c, 8), em: h(a === b ? c : a, 8), er: h(a, 8) };
    },
  });
  kinds.push({
    id: 'atom.global.exch.b64',
    make: () => {
      const a = u64(),
        b = u64();
      return { m: h(a, 16), b: h(b, 16), em: h(b, 16), er: h(a, 16) };
    },
  });
  kinds.push({
    id: 'atom.global.add.u64',
    make: () => {
      const a = u64(),
        b = u64();
      return { m: h(a, 16), b: h(b, 16), em: h((a + b) & 0xffffffffffffffffn, 16), er: h(a, 16) };
    },
  });
  const fd = openSync(path, 'w');
  let chunk = '';
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const k = kinds[i % kinds.length]!;
    const x = k.make();
    chunk += `{"name":"mix-${i}","instruction":"${k.id}","memory":["${x.m}"],"operands":{"b":["${x.b}"]${x.c ? `,"c":["${x.c}"]` : ''}},"expect":{"memory":["${x.em}"]${x.er ? `,"returned":["${x.er}"]` : ''}}}\n`;
    if (chunk.length > 1 << 20) {
      bytes += writeSync(fd, chunk);
      chunk = '';
    }
  }
  bytes += writeSync(fd, chunk);
  closeSync(fd);
  return { cases: n, variants: kinds.length, bytes };
}

if (process.argv[1] && /bench-vector-file\.(m?js|ts)$/.test(process.argv[1])) void main(process.argv.slice(2)).then((code) => (process.exitCode = code));

async function main(args: readonly string[]): Promise<number> {
  const flag = (name: string) => {
    const k = args.indexOf(name);
    return k < 0 ? undefined : args[k + 1];
  };
  const here = dirname(fileURLToPath(import.meta.url));
  const bundled = existsSync(join(here, 'cli.mjs'));
  const root = resolve(here, '..');
  const work = mkdtempSync(join(tmpdir(), 'ptx-bench-vector-file-'));
  const backend = flag('--backend') ?? 'gpu';
  const report = resolve(flag('--report') ?? join(work, 'report'));

  let file = flag('--file');
  let genSeconds = 0;
  const keepFile = file !== undefined;
  if (!file || !existsSync(file)) {
    file ??= join(work, args.includes('--mix') ? 'mixed.jsonl' : 'testfloat-f16-add.jsonl');
    const t0 = performance.now();
    const n = Number(flag('--cases') ?? 1_300_000);
    if (args.includes('--mix')) {
      const g = writeMixedFile(file, n);
      genSeconds = (performance.now() - t0) / 1000;
      console.log(`generated ${file}: ${g.cases} cases of ${g.variants} variants, ${(g.bytes / 1e6).toFixed(1)} MB in ${genSeconds.toFixed(2)} s`);
    } else {
      const g = writeTestFloatFile(file, n);
      genSeconds = (performance.now() - t0) / 1000;
      console.log(
        `generated ${file}: ${g.cases} cases, ${g.nan} NaN results (${((100 * g.nan) / g.cases).toFixed(1)} %), ${(g.bytes / 1e6).toFixed(1)} MB in ${genSeconds.toFixed(2)} s`,
      );
    }
  }

  if (args.includes('--write-only')) return 0;
  const cli = flag('--cli') ? [resolve(flag('--cli')!)] : bundled ? [join(here, 'cli.mjs')] : ['--import', 'tsx', join(root, 'harness', 'cli', 'main.ts')];
  const env = { ...process.env, ...(args.includes('--standin') ? { PTX_CONFORMANCE_ADDON: join(root, 'tests', 'fixtures', 'standin-launcher.cts') } : {}) };
  const argv = ['--vectors', file, '--backend', backend, '--report', report];
  console.log(`$ ${bundled ? 'conformance.sh' : 'npm run conformance --'} ${argv.join(' ')}`);
  const t0 = performance.now();
  const lines: { t: number; s: string }[] = [];
  const code = await new Promise<number>((ok) => {
    const child = spawn(process.execPath, [...cli, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let rest = '';
    const take = (chunk: Buffer) => {
      const t = (performance.now() - t0) / 1000;
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop()!;
      for (const s of parts) lines.push({ t, s });
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (c) => ok(c ?? 1));
  });
  const wall = (performance.now() - t0) / 1000;
  const when = (re: RegExp) => lines.find((l) => re.test(l.s))?.t;
  for (const l of lines) if (!/^gpu modules: |^loading vector files: /.test(l.s) && l.s.trim()) console.log(`  [${l.t.toFixed(2)}] ${l.s}`);
  const rep = JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')) as { stats: Record<string, number>; results: unknown[] };
  const st = rep.stats;
  const tBackend = when(/^backend: /) ?? 0;
  const casesLine = lines.find((l) => /^cases: /.test(l.s));
  const tCases = casesLine?.t ?? when(/^reference: |^streaming results/) ?? tBackend;
  const readAgain = casesLine ? /read again to run them/.test(casesLine.s) : true;
  const tJudged = when(/^gpu: \d+ cases of \d+ variants judged/) ?? when(/cases evaluated|every case judged/) ?? wall;
  const f = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(2));
  console.log(`\nexit ${code}; ${st.cases ?? st.givenCases} cases; report.json keeps ${rep.results.length} results`);
  console.log('stage     seconds');
  console.log(`start     ${f(tBackend)}   (process start to the backend chosen)`);
  if (backend === 'gpu') {
    console.log(
      `read      ${f(tCases - tBackend)}   (the one read: every file validated, its cases held${readAgain ? '; too big to hold: read again in the run stage' : ''}; the workers start their CUDA contexts meanwhile)`,
    );
    console.log(`plan      ${f(st.planSeconds)}   (${st.plannedVariants ?? '?'} variants planned)`);
    console.log(`compile   ${f(st.compileSeconds)}   (${st.modulesCompiled ?? 0} modules compiled, ${st.modulesCached ?? 0} from the cubin cache)`);
    console.log(
      `run       ${f(st.runSeconds)}   (${readAgain ? 'second read, ' : ''}GPU and judging overlapped; worker seconds: GPU ${f(st.workerGpuSeconds)}, judging ${f(st.workerJudgeSeconds)}, ${st.workers} workers; ${st.fastJudged} cases decided by the fast judge)`,
    );
    console.log(
      `other     ${f(tJudged - tCases - (st.planSeconds ?? 0) - (st.compileSeconds ?? 0) - (st.runSeconds ?? 0))}   (between the read and the last case judged, outside plan, compile and run)`,
    );
  } else console.log(`read      ${f(tCases - tBackend)}   (validation pass over the file)`);
  console.log(`report    ${f(wall - tJudged)}   (last case judged to the end: comparator, report files)`);
  console.log(`total     ${f(wall)}   end to end${genSeconds ? ` (generating the file, ${genSeconds.toFixed(2)} s, not counted)` : ''}`);
  if (!keepFile) rmSync(file, { force: true });
  rmSync(work, { recursive: true, force: true });
  return code;
}
