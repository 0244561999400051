/**
 * `npm run bench:vector-file`: one big vector file end to end, stage by stage (issue 27, deliverable
 * 5). Writes the TestFloat-style f16 add file (scripts/gen-testfloat-f16.ts: 1.3 M cases, ~220 MB,
 * ~12 % NaN results) unless given one, runs the CLI on it in a child process exactly as a user would
 * (`--vectors FILE --backend gpu`; `--backend reference` for the model alone), timestamps each line
 * it prints, and says where the seconds went:
 *   start    process start to the backend chosen (node, modules, ptxas and device probes)
 *   read     the validation pass over the file (every problem before anything runs)
 *   plan     the gpu plan (report stats.planSeconds)
 *   compile  ptxas or the cubin cache (stats.compileSeconds)
 *   run      reading the file again, the GPU and the judging, overlapped (stats.runSeconds), with
 *            the workers' own seconds beside it: GPU (launches and copies) and judging
 *   report   the last case judged to the process's end (comparator, report.json, html, junit, gzip)
 * From the bundle on a GPU host (no node there): `.bundle/bench-vector-file.mjs` (npm run gpu:pack).
 *
 * Usage: bench-vector-file [--file F] [--cases N] [--backend gpu|reference] [--standin] [--report DIR] [--cli CLI.mjs]
 * --file F: the file to run (written there first, and kept, when it does not exist); --cli: another
 * build of the CLI (a bundle's cli.mjs) to compare with.
 * --standin runs the gpu backend against the stand-in launcher (tests/fixtures/standin-launcher.cts,
 * a CPU "GPU" computing the model per case: its GPU seconds mean nothing, the other stages do).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTestFloatFile } from './gen-testfloat-f16.js';

const args = process.argv.slice(2);
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
  file ??= join(work, 'testfloat-f16-add.jsonl');
  const t0 = performance.now();
  const g = writeTestFloatFile(file, Number(flag('--cases') ?? 1_300_000));
  genSeconds = (performance.now() - t0) / 1000;
  console.log(`generated ${file}: ${g.cases} cases, ${g.nan} NaN results (${((100 * g.nan) / g.cases).toFixed(1)} %), ${(g.bytes / 1e6).toFixed(1)} MB in ${genSeconds.toFixed(2)} s`);
}

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
const tCases = when(/^cases: /) ?? when(/^reference: |^streaming results/) ?? tBackend;
const tJudged = when(/^gpu: \d+ cases of \d+ variants judged/) ?? when(/cases evaluated|every case judged/) ?? wall;
const f = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(2));
console.log(`\nexit ${code}; ${st.cases ?? st.givenCases} cases; report.json keeps ${rep.results.length} results`);
console.log('stage     seconds');
console.log(`start     ${f(tBackend)}   (process start to the backend chosen)`);
console.log(`read      ${f(tCases - tBackend)}   (validation pass over the file)`);
if (backend === 'gpu') {
  console.log(`plan      ${f(st.planSeconds)}   (${st.plannedVariants ?? '?'} variants planned)`);
  console.log(`compile   ${f(st.compileSeconds)}   (${st.modulesCompiled ?? 0} modules compiled, ${st.modulesCached ?? 0} from the cubin cache)`);
  console.log(`run       ${f(st.runSeconds)}   (second read, GPU and judging overlapped; worker seconds: GPU ${f(st.workerGpuSeconds)}, judging ${f(st.workerJudgeSeconds)}, ${st.workers} workers; ${st.fastJudged} cases decided by the fast judge)`);
}
console.log(`report    ${f(wall - tJudged)}   (last case judged to the end: comparator, report files)`);
console.log(`total     ${f(wall)}   end to end${genSeconds ? ` (generating the file, ${genSeconds.toFixed(2)} s, not counted)` : ''}`);
if (!keepFile) rmSync(file, { force: true });
rmSync(work, { recursive: true, force: true });
process.exitCode = code;
