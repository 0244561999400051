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
  readonly classes: Readonly<Record<string, StressChoice & { readonly tried: readonly StressChoice[] }>>;
}

/** Alignment off/on x stress warps x stress iterations, at stride 1; then these strides at the best. */
export const SEARCH_GRID: readonly StressSetting[] = [false, true].flatMap((align) => [0, 2, 8].flatMap((warps) => [16, 64, 256].map((iters) => ({ warps, iters, stride: 1, align }))));
export const STRIDES: readonly number[] = [4, 32];

/** The test class: the shape before the first '+' of the file's base name ('2+2W' kept whole). */
export function testClass(file: string): string {
  const base = file.split('/').pop()!.replace(/\.litmus$/, '').replace(/#.*$/, '');
  return /^2\+2W/.test(base) ? '2+2W' : (base.split('+')[0] ?? base);
}

/** Reads a stress file; undefined when there is none; throws on a malformed one. */
export function readStressFile(path: string): StressFile | undefined {
  if (!existsSync(path)) return undefined;
  const f = JSON.parse(readFileSync(path, 'utf8')) as StressFile;
  if (f.schema !== 'ptx-reduction-conformance/litmus-gpu-stress' || typeof f.classes !== 'object') throw new Error(`${path}: not a litmus-gpu stress file`);
  for (const [k, c] of Object.entries(f.classes)) {
    if (![c.warps, c.iters, c.stride].every((n) => Number.isInteger(n) && n >= 0) || c.stride < 1 || c.stride > 64 || c.warps > 16 || typeof c.align !== 'boolean') throw new Error(`${path}: class ${k} has a bad setting ${JSON.stringify({ warps: c.warps, iters: c.iters, stride: c.stride, align: c.align })}`);
  }
  return f;
}

/**
 * The setting a test runs with: the file's for its class, else the defaults. A class where the
 * search caught no mutant and saw no weak outcome under any setting chose nothing (its "best" is only
 * the cheapest): it runs with the defaults, and says so.
 */
export function stressFor(file: string, f: StressFile | undefined): StressSetting & { from: string } {
  const cls = testClass(file);
  const c = f?.classes[cls];
  const defaults = { warps: DEFAULT_STRESS.warps, iters: DEFAULT_STRESS.iters, stride: 1, align: false };
  if (!c) return { ...defaults, from: 'defaults' };
  if (c.killed === 0 && c.weakPerM === 0) return { ...defaults, from: `defaults (the stress search caught nothing for class ${cls})` };
  return { warps: c.warps, iters: c.iters, stride: c.stride, align: c.align, from: `stress file, class ${cls}` };
}

/** Up to n items spread evenly over xs (deterministic). */
export function sampleMutants<T>(xs: readonly T[], n: number): T[] {
  if (xs.length <= n) return xs.slice();
  return Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]!);
}

/** The best choice: most killed, then most weak outcomes per million, then the cheapest (no alignment, fewest warps, iterations, stride). */
export function pickBest(tried: readonly StressChoice[]): StressChoice {
  return tried.slice().sort((a, b) => b.killed / (b.mutants || 1) - a.killed / (a.mutants || 1) || b.weakPerM - a.weakPerM || Number(a.align) - Number(b.align) || a.warps - b.warps || a.iters - b.iters || a.stride - b.stride)[0]!;
}
