/**
 * Issue 26, deliverable 2: a standalone reproducer of one litmus test as the GPU runner ran it. The
 * folder holds the runner's module (kernel.ptx: the same text, written in the lowest PTX ISA version
 * the target needs), params.h (the launch: grid, block, cluster, instances per launch, iterations,
 * stride, seed of the permutations, the locations' initial values, the outcome table with the
 * model's verdict of each row), host.cpp (host-litmus.cpp: the CUDA driver API through dlopen, as
 * the project's other reproducers), driver.h, build.sh (nvcc only, PTXAS= override) and README.md
 * (the test's source, the outcome, the model's reason, the command).
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../util/errors.js';
import type { Judgement } from '../memory-model/events.js';
import { buildScript } from '../repro/common.js';
import { SAMPLES, type Plant, type StressOptions, keyWords, launchGeometry, litmusModule, regWords } from './kernel.js';
import { type TestPlan, tensorMapGeometry } from './plan.js';
import { keyInit, onDevice, outcomeTable, verdictOf } from './outcomes.js';
import type { GpuLitmusRun } from './run.js';
import { fromRoot } from '../util/paths.js';

/** A folder of this package, in the source tree or beside the bundle (the bundle runs from the repository root). */
const here = (name: string, dir: string) =>
  [join(import.meta.dirname, '..', dir), fromRoot('harness', dir)].find((d) => existsSync(join(d, name))) ?? fromRoot('harness', dir);

export interface LitmusReproInput {
  /** The test's file (a mutant: file#name) and name. */
  readonly file: string;
  readonly name: string;
  readonly plan: TestPlan;
  readonly judgement: Pick<Judgement, 'outcomes'>;
  readonly arch: string;
  /** The PTX ISA version kernel.ptx declares: the target's lowest, or the run's where ptxas refused the module at the lowest (`lowestRefused`). */
  readonly ptx: string;
  readonly lowestRefused?: string;
  readonly stress: StressOptions & { readonly stride: number };
  readonly smCount: number;
  /** Instances per launch asked for (undefined: one fill of the GPU), launches, seed. */
  readonly perLaunch?: number;
  readonly iterations: number;
  readonly seed: number;
  readonly plant: Plant;
  /** What the run saw (undefined: the folder was asked for before or without a run). */
  readonly run?: GpuLitmusRun;
  /** The command that reruns the test as the run did, and how the folder was asked for. */
  readonly command: string;
  readonly device?: string;
  readonly toolchain?: string;
}

const cstr = (s: string) => JSON.stringify(s); // a C string literal (JSON escapes are C escapes for this text)

/** The files of the reproducer folder. */
export function litmusRepro(x: LitmusReproInput): Record<string, string> {
  const { plan } = x;
  const geo = launchGeometry(plan.placement, x.smCount, x.stress, x.perLaunch);
  const keys = plan.keys;
  const initOf = keyInit(plan.test);
  const judgement = onDevice(x.judgement, initOf);
  const bits = plan.keyBits ?? keys.map(() => 32);
  const table = outcomeTable(judgement, keys, initOf, bits);
  const verdicts = table.map((v) => verdictOf(judgement, keys, v, bits));
  // a row as the device's words (a 64-bit key: low word, then high), as run.ts writes the table
  const toWords = (values: readonly string[]) => values.flatMap((v, i) => (bits[i] === 64 ? [BigInt(v) & 0xffffffffn, BigInt(v) >> 32n] : [BigInt(v)]));
  const forbiddenRows = table.filter((_, k) => !verdicts[k]!.allowed);
  const seen = x.run?.histogram.filter((h) => !h.allowed && h.count) ?? [];
  const outcome = (rows: readonly { values: readonly string[]; why?: string }[]) =>
    rows.map((r) => `${keys.map((k, i) => `${k}=${r.values[i]}`).join(' ')} (${r.why})`).join('; ');
  const outcomeText = seen.length
    ? outcome(seen)
    : forbiddenRows.length
      ? outcome(forbiddenRows.map((values, i) => ({ values, why: verdicts[table.indexOf(values)]!.why ?? '' })).slice(0, 4)) +
        (forbiddenRows.length > 4 ? `; and ${forbiddenRows.length - 4} more` : '')
      : 'none: the model forbids no outcome in the table';
  const recorded = x.run ? `${x.run.forbiddenSeen} of ${x.run.instances} instances showed a forbidden outcome${x.device ? ` on ${x.device}` : ''}` : 'not run';
  const stressText = `stress: ${x.stress.warps} warp(s) x ${x.stress.iters} iteration(s) on ${x.stress.lines} lines, alignment ${x.stress.align ? 'on' : 'off'}${x.plant === 'hoist' ? "; the self-test's planted fault (thread 0's instructions reversed, 2 us apart)" : ''}`;
  const words = (xs: readonly (number | string | bigint)[]) => (xs.length ? xs.map((v) => `${BigInt.asUintN(32, BigInt(v))}u`).join(', ') : '0u');
  const V = keyWords(plan);
  const module = litmusModule(plan, x.arch, x.ptx, x.stress, geo.warpGroups, x.plant);
  const params = [
    '// Written by `litmus --backend gpu` (ptx-reduction-conformance): the launches the GPU runner made for one litmus test.',
    '#pragma once',
    `static const char* TEST_NAME = ${cstr(x.name)};`,
    `static const char* TEST_FILE = ${cstr(x.file)};`,
    `static const char* OUTCOME = ${cstr(outcomeText)};`,
    `static const char* RECORDED = ${cstr(recorded)};`,
    `static const char* STRESS_TEXT = ${cstr(stressText)};`,
    `static const char* KEYS_TEXT = ${cstr(keys.join('  '))};`,
    `#define CLUSTER_TEXT "${plan.placement.clusterSize}"`,
    `static const unsigned SEED = ${x.seed >>> 0}u;`,
    `enum { GRID = ${geo.grid}, BLOCK = ${geo.block}, CLUSTER = ${plan.placement.clusterSize}, NI = ${geo.instances}, ITERATIONS = ${x.iterations}, STRIDE = ${x.stress.stride}, SAMPLES = ${SAMPLES},`,
    `       N_LOCS = ${plan.locs.length}, SLOT_BYTES = ${plan.slotBytes ?? 4}, N_REG_WORDS = ${regWords(plan)}, N_WORDS = ${V}, N_ROWS = ${table.length}, SCRATCH_WORDS = ${x.stress.lines * 32},`,
    `       ALIAS_VIEWS = ${plan.aliases ? Math.max(...plan.aliases.map((a) => a?.view ?? 0)) : 0}, LOOPS = ${plan.loops ? 1 : 0}, N_TMAPS = ${plan.tensorMaps?.length ?? 0} };  // virtual aliases: mem mapped once more per alias; loops: a give-up word per instance; tensor maps`,
    `// each tensor map's initial target (a location index of mem), and its geometry (the runner's tensorMapGeometry: rank, dims, strides in bytes, box)`,
    `static const int TMAP_TARGET[${Math.max(1, plan.tensorMaps?.length ?? 0)}] = {${(plan.tensorMaps ?? []).map((m) => m.targets[0]).join(', ') || '0'}};`,
    ...tmapGeometry(plan, geo.instances * x.stress.stride),
    `// the locations' initial values, in the order of the module's memory (${plan.locs.join(', ')})`,
    `static const uint32_t INIT[${Math.max(1, plan.locs.length)}] = {${words(plan.init)}};`,
    `// where each location's value lies in an instance's copies: the location whose copies hold it (an array's element: its array's) and its byte offset there`,
    `static const int INIT_LOC[${Math.max(1, plan.locs.length)}] = {${plan.locs.map((_, j) => plan.elements?.[j]?.of ?? j).join(', ') || '0'}};`,
    `static const int INIT_OFFSET[${Math.max(1, plan.locs.length)}] = {${plan.locs.map((_, j) => plan.elements?.[j]?.offset ?? 0).join(', ') || '0'}};`,
    `// the outcome table lt_count looks each instance up in (keys: ${keys.join(', ')}; ${V} word(s) a row, a 64-bit key low word first), each row as text, the model's verdict of each row`,
    `static const uint32_t TABLE[${Math.max(1, table.length * V)}] = {${words(table.flatMap(toWords))}};`,
    `static const char* ROW_TEXT[${Math.max(1, table.length)}] = {${table.map((r) => cstr(r.join('  '))).join(', ') || '""'}};`,
    `static const unsigned char FORBIDDEN[${Math.max(1, table.length)}] = {${verdicts.map((v) => (v.allowed ? 0 : 1)).join(', ') || '0'}};`,
    `static const char* WHY[${Math.max(1, table.length)}] = {${verdicts.map((v) => cstr(v.why ?? '')).join(', ') || '""'}};`,
    '',
  ].join('\n');
  const hostDir = here('host-litmus.cpp', 'litmus-gpu');
  const driverDir = here('driver.h', 'repro');
  const hist = x.run
    ? [
        '',
        '## What the run saw',
        '',
        `${recorded}; ${x.run.iterations} launches of ${x.run.perLaunch} instances (grid ${x.run.geometry.grid} x block ${x.run.geometry.block}, clusters of ${x.run.geometry.cluster}).`,
        '',
        `| ${keys.join(' | ')} | count | verdict |`,
        `|${keys.map(() => '---').join('|')}|---|---|`,
        ...x.run.histogram.map((h) => `| ${h.values.join(' | ')} | ${h.count} | ${h.allowed ? 'allowed' : `forbidden: ${h.why}`} |`),
        ...(x.run.other.count ? ['', `${x.run.other.count} outcome(s) outside the table (${x.run.other.samples} sampled above).`] : []),
      ]
    : [];
  const readme = [
    `# Reproducer: ${x.name}`,
    '',
    `Written by \`litmus --backend gpu\` (harness/litmus-gpu/repro.ts) from \`${x.file}\`. It makes the launches the GPU runner made for this test and counts the outcomes the model forbids.`,
    '',
    '## The test',
    '',
    '```',
    plan.text.trimEnd(),
    '```',
    '',
    '## The outcome, and why the model forbids it',
    '',
    `${seen.length ? 'Seen in the run' : 'The outcomes the model forbids'}: ${outcomeText}. The reason is the axiom of the PTX memory model (PTX ISA section 8.10) the forbidden candidate executions violate, as the harness's model (harness/memory-model/) reports it.`,
    ...hist,
    '',
    '## What runs',
    '',
    `kernel.ptx is the runner's module (\`lt_test\`, \`lt_count\`; harness/litmus-gpu/kernel.ts), identical but for its \`.version ${x.ptx}\` line (${x.lowestRefused ? `the run's: ptxas refused the module at ${x.lowestRefused}, the lowest PTX ISA version target ${x.arch} takes` : `the lowest PTX ISA version target ${x.arch} takes`}). ${x.iterations} launch(es) of \`lt_test\`, grid ${geo.grid} x block ${geo.block}${plan.placement.clusterSize > 1 ? ` in clusters of ${plan.placement.clusterSize} CTAs` : ''}, ${geo.instances} instances per launch (${geo.warpGroups} warp group(s) of ${plan.placement.threadsPerCta} test warp(s) per CTA, ${x.stress.warps} stress warp(s)), each followed by \`lt_count\` (grid ${Math.ceil(geo.instances / 256)} x block 256), on one stream, synchronised once. Each launch's instance-to-slot permutation is the runner's (xorshift32 seeded with ${x.seed}, one Fisher-Yates shuffle per launch); locations are ${x.stress.stride} word(s) apart between instances; ${stressText}.`,
    '',
    `Run's device: ${x.device ?? 'not recorded'}; toolchain: ${x.toolchain ?? 'not recorded'}.`,
    '',
    '## Build and run',
    '',
    '```sh',
    'sh build.sh     # nvcc only: kernel.cubin and ./repro',
    'PTXAS=/path/to/ptxas sh build.sh   # the kernel by another ptxas',
    `./repro         # REPRODUCED n of N instances (exit 1) or NOT REPRODUCED in N instances (exit 0); exit 2: no CUDA driver or a CUDA error (said on stderr); ./repro 100 makes 100 launches`,
    '```',
    '',
    `The same test through the harness: \`${x.command}\``,
    '',
  ].join('\n');
  return {
    'kernel.ptx': module,
    'params.h': params,
    'host.cpp': readFileSync(join(hostDir, 'host-litmus.cpp'), 'utf8'),
    'driver.h': readFileSync(join(driverDir, 'driver.h'), 'utf8'),
    'build.sh': buildScript(x.arch),
    'README.md': readme,
  };
}

/**
 * Checks --out before any work: not a file, and its nearest existing folder writable; a UsageError
 * naming it otherwise. Folders are made level by level (a recursive mkdir loops under /proc).
 */
export function checkOutDir(dir: string): void {
  let at = resolve(dir);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  const bad = (why: string) => new UsageError(`--out ${dir}: ${why}; name a folder you can write to (or leave --out out: REPORT/repro/<test>)`);
  if (!statSync(at).isDirectory()) throw bad(`${at} is a file, not a folder`);
  try {
    accessSync(at, constants.W_OK);
  } catch {
    throw bad(`${at} is not writable`);
  }
}

/** Writes the folder; returns its path. */
export function writeLitmusRepro(dir: string, files: Record<string, string>): string {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.unshift(at);
  for (const m of missing) mkdirSync(m);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text, f.endsWith('.sh') ? { mode: 0o755 } : {});
  return dir;
}

/** A folder name for a test (its file's base name, mutant included). */
export const reproName = (file: string) =>
  file
    .split('/')
    .pop()!
    .replace(/\.litmus/, '')
    .replace(/[^A-Za-z0-9._+-]/g, '_');

/** The reproducer's tensor map geometry arrays (TMAP_RANK, TMAP_DIM, TMAP_STRIDE, TMAP_BOX), five entries a map. */
function tmapGeometry(plan: TestPlan, instances: number): string[] {
  const gs = (plan.tensorMaps ?? []).map((m) => tensorMapGeometry(m.rank, instances, plan.slotBytes));
  const five = (xs: readonly number[]) => `{${[...xs, ...Array<number>(5 - xs.length).fill(0)].join(', ')}}`;
  const n = Math.max(1, gs.length);
  return [
    `static const int TMAP_IM2COL[${n}] = {${(plan.tensorMaps ?? []).map((m) => (m.mode === 'im2col' ? 1 : 0)).join(', ') || '0'}};  // 1: an .im2col map (corners 0, four channels a pixel, one pixel a column)`,
    `static const int TMAP_RANK[${n}] = {${gs.map((g) => g.dims.length).join(', ') || '1'}};`,
    `static const cuuint64_t TMAP_DIM[${n}][5] = {${gs.map((g) => five(g.dims)).join(', ') || five([])}};`,
    `static const cuuint64_t TMAP_STRIDE[${n}][5] = {${gs.map((g) => five(g.strides)).join(', ') || five([])}};`,
    `static const cuuint32_t TMAP_BOX[${n}][5] = {${gs.map((g) => five(g.box)).join(', ') || five([])}};`,
  ];
}
