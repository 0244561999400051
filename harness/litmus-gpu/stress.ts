/**
 * Issue 26, second slice: the stress settings of a GPU litmus run, per test class (the test's shape:
 * MP, SB, LB, 2+2W, IRIW, ...), read from a file (default cases/litmus/gpu-stress.json) that
 * `--search-stress` writes: for each class, a sample of its mutants run under each setting of a small
 * grid, and the setting that kills the most (then: the highest share of weak outcomes) kept.
 */
import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_STRESS } from './kernel.js';

export interface StressSetting {
  readonly warps: number;
  readonly iters: number;
  readonly stride: number;
  /** Threads of an instance meet on a barrier word before their code (kernel.ts `align`). */
  readonly align: boolean;
  /** Threads preload the locations they read later into L1 (kernel.ts `preload`; absent: off). */
  readonly preload?: boolean;
  /** Stress warps hammer the test's own lines instead of scratch lines (kernel.ts `target`; absent: scratch). */
  readonly target?: 'scratch' | 'test';
}

export interface StressChoice extends StressSetting {
  /** Mutants of the sample killed under this setting, of how many. */
  readonly killed: number;
  readonly mutants: number;
  /** Weak outcomes seen per million instances, summed over the sample. */
  readonly weakPerM: number;
}

export interface StressFile {
  readonly schema: 'ptx-reduction-conformance/litmus-gpu-stress';
  readonly version: 1;
  readonly measuredOn: string;
  readonly measuredAt: string;
  /** Instances per mutant per setting during the search. */
  readonly instances: number;
  readonly classes: Readonly<Record<string, StressChoice & { readonly tried: readonly StressChoice[]; readonly alternates?: readonly StressChoice[] }>>;
}

/**
 * Alignment off/on x stress warps x stress iterations, at stride 1 (18); the same with the preload
 * (align off/on x warps 0/2/8, 64 iterations: 6); stress on the test's own lines at stride 4 (align
 * off/on x preload off/on x warps 2/8 x iterations 64/256: 16). Then these strides at the best.
 */
export const SEARCH_GRID: readonly StressSetting[] = [
  ...[false, true].flatMap((align) => [0, 2, 8].flatMap((warps) => [16, 64, 256].map((iters) => ({ warps, iters, stride: 1, align })))),
  ...[false, true].flatMap((align) => [0, 2, 8].map((warps) => ({ warps, iters: 64, stride: 1, align, preload: true }))),
  ...[false, true].flatMap((align) =>
    [false, true].flatMap((preload) =>
      [2, 8].flatMap((warps) => [64, 256].map((iters) => ({ warps, iters, stride: 4, align, preload, target: 'test' as const }))),
    ),
  ),
];
export const STRIDES: readonly number[] = [4, 32];
/** Mutants per class the search runs under each setting. */
export const SEARCH_SAMPLE = 6;

/** The test class: the shape before the first '+' of the file's base name ('2+2W' kept whole). */
export function testClass(file: string): string {
  const base = file
    .split('/')
    .pop()!
    .replace(/\.litmus$/, '')
    .replace(/#.*$/, '');
  return /^2\+2W/.test(base) ? '2+2W' : (base.split('+')[0] ?? base);
}

/** Reads a stress file; undefined when there is none; throws on a malformed one. */
export function readStressFile(path: string): StressFile | undefined {
  if (!existsSync(path)) return undefined;
  const f = JSON.parse(readFileSync(path, 'utf8')) as StressFile;
  if (f.schema !== 'ptx-reduction-conformance/litmus-gpu-stress' || typeof f.classes !== 'object') throw new Error(`${path}: not a litmus-gpu stress file`);
  for (const [k, c] of Object.entries(f.classes)) {
    for (const s of [c, ...(c.alternates ?? [])]) {
      if (
        ![s.warps, s.iters, s.stride].every((n) => Number.isInteger(n) && n >= 0) ||
        s.stride < 1 ||
        s.stride > 64 ||
        s.warps > 16 ||
        typeof s.align !== 'boolean' ||
        (s.preload !== undefined && typeof s.preload !== 'boolean') ||
        (s.target !== undefined && s.target !== 'scratch' && s.target !== 'test')
      )
        throw new Error(
          `${path}: class ${k} has a bad setting ${JSON.stringify({ warps: s.warps, iters: s.iters, stride: s.stride, align: s.align, preload: s.preload, target: s.target })}`,
        );
      if (s.target === 'test' && s.stride < 2)
        throw new Error(
          `${path}: class ${k} puts the stress on the test's lines at stride ${s.stride}; that needs stride >= 2 (the words between instances' copies)`,
        );
    }
  }
  return f;
}

/**
 * The setting a test runs with: the file's for its class, else the defaults. A class where the
 * search caught no mutant and saw no weak outcome under any setting chose nothing (its "best" is only
 * the cheapest): it runs with the defaults, and says so.
 */
export function stressFor(file: string, f: StressFile | undefined): StressSetting & { from: string } {
  return stressesFor(file, f)[0]!;
}

const settingOf = (c: StressSetting): StressSetting => ({
  warps: c.warps,
  iters: c.iters,
  stride: c.stride,
  align: c.align,
  ...(c.preload ? { preload: true } : {}),
  ...(c.target === 'test' ? { target: 'test' as const } : {}),
});

/**
 * Every setting a test runs under: its class's best, then the class's alternates (settings that
 * killed sample mutants the best did not); each runs the full instance count and the histograms
 * add up. The defaults alone where the file names no class or the search caught nothing.
 */
export function stressesFor(file: string, f: StressFile | undefined): (StressSetting & { from: string })[] {
  const cls = testClass(file);
  const c = f?.classes[cls];
  const defaults = { warps: DEFAULT_STRESS.warps, iters: DEFAULT_STRESS.iters, stride: 1, align: false };
  if (!c) return [{ ...defaults, from: 'defaults' }];
  if (c.killed === 0 && c.weakPerM === 0) return [{ ...defaults, from: `defaults (the stress search caught nothing for class ${cls})` }];
  return [
    { ...settingOf(c), from: `stress file, class ${cls}` },
    ...(c.alternates ?? []).map((a, i) => ({ ...settingOf(a), from: `stress file, class ${cls}, alternate ${i + 1}` })),
  ];
}

/**
 * Alternates for a class (at most `max`): greedily, the tried setting that kills the most sample
 * mutants the chosen ones did not. `killedBy[s]` lists the sample mutants (indices) setting s killed.
 */
export function pickAlternates(tried: readonly StressChoice[], killedBy: readonly (readonly number[])[], best: number, max: number): number[] {
  const covered = new Set(killedBy[best] ?? []);
  const out: number[] = [];
  while (out.length < max) {
    let bi = -1;
    let gain = 0;
    tried.forEach((_, i) => {
      if (i === best || out.includes(i)) return;
      const g = (killedBy[i] ?? []).filter((m) => !covered.has(m)).length;
      if (g > gain) (bi = i), (gain = g);
    });
    if (bi < 0) break;
    out.push(bi);
    for (const m of killedBy[bi]!) covered.add(m);
  }
  return out;
}

/** Up to n items spread evenly over xs (deterministic). */
export function sampleMutants<T>(xs: readonly T[], n: number): T[] {
  if (xs.length <= n) return xs.slice();
  return Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]!);
}

/** The best choice: most killed, then most weak outcomes per million, then the cheapest (no alignment, fewest warps, iterations, stride). */
export function pickBest(tried: readonly StressChoice[]): StressChoice {
  return tried
    .slice()
    .sort(
      (a, b) =>
        b.killed / (b.mutants || 1) - a.killed / (a.mutants || 1) ||
        b.weakPerM - a.weakPerM ||
        Number(a.align) - Number(b.align) ||
        Number(!!a.preload) - Number(!!b.preload) ||
        Number(a.target === 'test') - Number(b.target === 'test') ||
        a.warps - b.warps ||
        a.iters - b.iters ||
        a.stride - b.stride,
    )[0]!;
}
