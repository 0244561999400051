/**
 * `npm run bench:vectors`: vector files at scale. Writes (to the OS temp directory) a YAML file and a
 * JSON-lines file of N mixed simple cases (atom.global.add.f32, red.global.add.u32,
 * atom.global.cas.b32, atom.global.add.noftz.f16; default N = 1,000,000, `--cases N` changes it) and
 * a ~50 MB YAML file, then measures each in its own child process (so peak RSS is per format):
 * loading (validate + stream, as a run does), reference-model evaluation of the streamed cases, and
 * peak RSS. Rates are per core: cases per CPU-second of the one process (user + system), and per
 * wall second beside it. Prints figures next to their targets; asserts nothing.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCaseOnReference } from '../harness/backends/reference/cases.js';
import { streamVectors, validateVectors } from '../harness/cases/vectors.js';

const KINDS = [
  { instruction: 'atom.global.add.f32', digits: 8, c: false },
  { instruction: 'red.global.add.u32', digits: 8, c: false },
  { instruction: 'atom.global.cas.b32', digits: 8, c: true },
  { instruction: 'atom.global.add.noftz.f16', digits: 4, c: false },
];

let seed = 12345;
function rnd(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed;
}
const hex = (digits: number) => `0x${(rnd() >>> (32 - digits * 4)).toString(16).padStart(digits, '0')}`;

async function writeLines(path: string, n: number, line: (i: number) => string, head: string): Promise<void> {
  const out = createWriteStream(path);
  const write = (s: string) => (out.write(s) ? undefined : new Promise<void>((r) => out.once('drain', () => r())));
  await write(head);
  let chunk = '';
  for (let i = 0; i < n; i++) {
    chunk += line(i);
    if (chunk.length > 1 << 16) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
}

function yamlCase(i: number): string {
  const k = KINDS[i % KINDS.length]!;
  const ops = k.c ? `{ b: ["${hex(k.digits)}"], c: ["${hex(k.digits)}"] }` : `{ b: ["${hex(k.digits)}"] }`;
  return `  - name: case-${i}\n    instruction: ${k.instruction}\n    memory: ["${hex(k.digits)}"]\n    operands: ${ops}\n`;
}

function jsonCase(i: number): string {
  const k = KINDS[i % KINDS.length]!;
  const ops = k.c ? `{"b": ["${hex(k.digits)}"], "c": ["${hex(k.digits)}"]}` : `{"b": ["${hex(k.digits)}"]}`;
  return `{"name": "case-${i}", "instruction": "${k.instruction}", "memory": ["${hex(k.digits)}"], "operands": ${ops}}\n`;
}

const HEAD_YAML = '# bench-vectors: mixed simple cases\ncite: "bench"\ncases:\n';
const HEAD_JSONL = '{"cite": "bench"}\n';

/** A child: loads (and with `eval`, evaluates) one file and prints one JSON line of figures. */
async function child(mode: string, file: string): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let lastProgress = '';
  const v = await validateVectors([file], tmpdir(), (files, cases, done, total) => {
    lastProgress = `${files} file(s), ${cases} cases, ${(done / 2 ** 20).toFixed(0)}/${(total / 2 ** 20).toFixed(0)} MB`;
  });
  const t1 = performance.now();
  const cpu1 = process.cpuUsage(cpu0);
  let streamed = 0;
  let batches = 0;
  let maxBatch = 0;
  let evalMs = 0;
  let pass = 0;
  const evalCpu0 = { user: 0, system: 0 };
  for await (const batch of streamVectors([file], tmpdir())) {
    streamed += batch.length;
    batches++;
    maxBatch = Math.max(maxBatch, batch.length);
    if (mode === 'eval') {
      const c0 = process.cpuUsage();
      const e0 = performance.now();
      for (const c of batch) if (runCaseOnReference(c).verdict === 'pass') pass++;
      evalMs += performance.now() - e0;
      const c1 = process.cpuUsage(c0);
      evalCpu0.user += c1.user;
      evalCpu0.system += c1.system;
    }
  }
  const t2 = performance.now();
  const cpu2 = process.cpuUsage(cpu0);
  const cpuS = (u: { user: number; system: number }) => (u.user + u.system) / 1e6;
  console.log(
    JSON.stringify({
      mode,
      file,
      problems: v.problems.length,
      firstProblem: v.problems[0] ? `${v.problems[0].line}:${v.problems[0].col}: ${v.problems[0].message.slice(0, 160)}` : undefined,
      cases: v.cases,
      streamed,
      batches,
      maxBatch,
      validateWall: (t1 - t0) / 1000,
      validateCpu: cpuS(cpu1),
      totalWall: (t2 - t0) / 1000,
      totalCpu: cpuS(cpu2),
      evalWall: evalMs / 1000,
      evalCpu: cpuS(evalCpu0),
      pass,
      maxRssMB: process.resourceUsage().maxRSS / 1024,
      lastProgress,
    }),
  );
}

interface Figures {
  mode: string;
  problems: number;
  firstProblem?: string;
  cases: number;
  streamed: number;
  batches: number;
  maxBatch: number;
  validateWall: number;
  validateCpu: number;
  totalWall: number;
  totalCpu: number;
  evalWall: number;
  evalCpu: number;
  pass: number;
  maxRssMB: number;
  lastProgress: string;
}

function runChild(mode: string, file: string): Figures {
  const out = execFileSync(process.execPath, [...process.execArgv, import.meta.filename, '--child', mode, file], { encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').pop()!) as Figures;
}

const k = (x: number) => `${(x / 1000).toFixed(0)} k/s`;

async function main(): Promise<void> {
  const arg = process.argv.indexOf('--cases');
  const n = arg > 0 ? Number(process.argv[arg + 1]) : 1_000_000;
  const dir = join(tmpdir(), 'ptx-bench-vectors');
  mkdirSync(dir, { recursive: true });
  const yaml = join(dir, `mixed-${n}.yaml`);
  const jsonl = join(dir, `mixed-${n}.jsonl`);
  const big50 = join(dir, 'mixed-50mb.yaml');
  const flow50 = join(dir, 'flow-50mb.yaml');
  const t0 = performance.now();
  if (!existsSync(yaml)) await writeLines(yaml, n, yamlCase, HEAD_YAML);
  if (!existsSync(jsonl)) await writeLines(jsonl, n, jsonCase, HEAD_JSONL);
  const n50 = Math.round((50 * 2 ** 20) / 125);
  if (!existsSync(big50)) await writeLines(big50, n50, yamlCase, HEAD_YAML);
  if (!existsSync(flow50)) await writeLines(flow50, n50, (i) => `${i ? ',' : ''}{name: f${i}, instruction: red.global.add.u32, memory: ["${hex(8)}"], operands: {b: ["${hex(8)}"]}}\n`, 'cases: [\n');
  const mb = (f: string) => `${(statSync(f).size / 2 ** 20).toFixed(0)} MB`;
  console.log(`files in ${dir} (written in ${((performance.now() - t0) / 1000).toFixed(1)} s): ${n} cases YAML ${mb(yaml)}, JSONL ${mb(jsonl)}; 50 MB YAML ${mb(big50)} (${n50} cases); flow-style YAML ${mb(flow50)}`);
  console.log('each line: one child process; rates per core = cases / CPU-seconds of that process (wall-clock rate beside it)\n');

  const load = (label: string, f: Figures, target?: number) => {
    const rate = f.cases / f.totalCpu;
    const met = target === undefined ? '' : rate >= target ? '  [target met]' : '  [target NOT met]';
    console.log(
      `${label.padEnd(28)} ${String(f.cases).padStart(8)} cases  validate ${f.validateCpu.toFixed(2)} s + stream ${(f.totalCpu - f.validateCpu).toFixed(2)} s CPU  ` +
        `-> ${k(rate)}/core (wall ${k(f.cases / f.totalWall)})${target ? `  target >= ${k(target)}` : ''}${met}  peak RSS ${f.maxRssMB.toFixed(0)} MB (target <= 2048)${f.maxRssMB <= 2048 ? '' : ' NOT met'}  ` +
        `batches ${f.batches} of <= ${f.maxBatch}${f.problems ? `  problems ${f.problems}` : ''}`,
    );
  };
  load(`YAML ${n}`, runChild('load', yaml), 200e3);
  load(`JSONL ${n}`, runChild('load', jsonl), 1e6);
  const ev = runChild('eval', jsonl);
  console.log(
    `${'reference eval (JSONL)'.padEnd(28)} ${String(ev.streamed).padStart(8)} cases  ${ev.evalCpu.toFixed(2)} s CPU in runCaseOnReference -> ${k(ev.streamed / ev.evalCpu)}/core (wall ${k(ev.streamed / ev.evalWall)})  target >= 200 k/s${ev.streamed / ev.evalCpu >= 200e3 ? ' [met]' : ' [NOT met]'};  ` +
      `load + eval end to end ${k(ev.streamed / ev.totalCpu)}/core, ${ev.pass} pass, peak RSS ${ev.maxRssMB.toFixed(0)} MB`,
  );
  load('YAML 50 MB', runChild('load', big50), 200e3);
  const fl = runChild('load', flow50);
  console.log(`${'YAML 50 MB, flow style'.padEnd(28)} not the simple layout: ${fl.problems} located problem in ${fl.totalCpu.toFixed(2)} s CPU, peak RSS ${fl.maxRssMB.toFixed(0)} MB: ${fl.firstProblem}`);
  console.log(`\nprogress callback (last call): ${ev.lastProgress}`);
}

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!);
else await main();
