/**
 * What a GPU litmus run gives per test and per mutation class: the types cli.ts fills and html.ts
 * renders, in a module of their own so that the two do not import each other.
 */
import type { ClassScore, MutantClass } from './mutants.js';
import type { RunRecord } from './replay.js';
import type { GpuLitmusRun } from './run.js';

export interface GpuLitmusResult {
  file: string;
  name: string;
  status: 'passed' | 'failed' | 'known-deviation' | 'skipped' | 'unparsed' | 'error';
  /** For a known deviation: the forbidden instances seen, per finding folder (findings.ts) that explains them. */
  known?: { finding: string; count: number }[];
  reason?: string;
  gpu?: GpuLitmusRun;
  /** For a mutant: the test it mutates, its class and change, and how many instances showed its weak outcome. */
  mutant?: { of: string; cls: MutantClass; name: string; change: string; weak: number };
  /** The stress settings it ran with (the first, when it ran under several; the others in stressAlso, its histogram the sum). */
  stress?: { warps: number; iters: number; stride: number; align: boolean; preload?: boolean; target?: 'test'; from: string };
  stressAlso?: NonNullable<GpuLitmusResult['stress']>[];
  /** Every setting it ran under, with its launches (what --replay reruns). */
  runs?: RunRecord[];
}

export interface MutationReport {
  perClass: ClassScore[];
  all: ClassScore;
  /** Per class below 50 %: the mutants not killed (file#name: change). */
  notKilled: Partial<Record<MutantClass, string[]>>;
  /** Mutants not scored: their test itself showed a forbidden outcome (a known deviation or a failure). */
  notScored?: string[];
}
