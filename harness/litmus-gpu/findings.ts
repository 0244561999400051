/**
 * Explained findings of the GPU litmus runner (issue 26: "0 forbidden outcomes observed other than
 * explained findings"): a file (default cases/litmus/gpu-findings.json) that names, per test, the
 * forbidden outcomes a documented finding (a folder under reports/findings/) explains. A forbidden
 * outcome seen that an entry matches is a known deviation (reported with its finding and count, exit
 * 0); any other forbidden outcome seen still fails the run.
 *
 * {
 *   "schema": "ptx-reduction-conformance/litmus-gpu-findings", "version": 1,
 *   "explained": [{ "test": "cases/litmus/X.litmus", "outcomes": [{ "s": "*" }], "finding": "reports/findings/<folder>", "why": "..." }]
 * }
 * The paths of "test" and "finding" are relative to the package root (the folder of package.json),
 * whatever directory the command is run from.
 * An outcome names every key of the test's condition (`P1:r0`, `s`) with a value (decimal or 0x hex,
 * compared modulo 2^bits of the key) or `*` (any value). An outcome of `*` for every key also explains
 * the "other" outcomes beyond the kept samples (their values are not known; every value is explained).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { GpuLitmusRun } from './run.js';
import { fromRoot, shown } from '../util/paths.js';

export const FINDINGS_FILE = 'cases/litmus/gpu-findings.json';

export interface ExplainedEntry {
  readonly test: string;
  readonly outcomes: readonly Readonly<Record<string, string>>[];
  readonly finding: string;
  readonly why: string;
}

export interface FindingsFile {
  readonly schema: 'ptx-reduction-conformance/litmus-gpu-findings';
  readonly version: 1;
  readonly explained: readonly ExplainedEntry[];
}

/** Reads and checks a findings file (every test and finding folder must exist); undefined when there is none; throws a message on a bad one. */
export function readFindingsFile(path: string): FindingsFile | undefined {
  if (!existsSync(path)) return undefined;
  let f: FindingsFile;
  try {
    f = JSON.parse(readFileSync(path, 'utf8')) as FindingsFile;
  } catch (e) {
    throw new Error(`${path}: not JSON (${(e as Error).message})`);
  }
  if (f.schema !== 'ptx-reduction-conformance/litmus-gpu-findings' || f.version !== 1 || !Array.isArray(f.explained))
    throw new Error(`${path}: not a litmus-gpu findings file (schema ptx-reduction-conformance/litmus-gpu-findings, version 1, explained: [...])`);
  f.explained.forEach((e, i) => {
    const at = `${path}: explained[${i}]`;
    if (typeof e.test !== 'string' || !existsSync(fromRoot(e.test))) throw new Error(`${at}: test '${e.test}' is not a file`);
    if (typeof e.finding !== 'string' || !existsSync(fromRoot(e.finding)) || !statSync(fromRoot(e.finding)).isDirectory())
      throw new Error(`${at}: finding '${e.finding}' is not a folder (a finding under reports/findings/)`);
    if (typeof e.why !== 'string' || !e.why) throw new Error(`${at}: give 'why' (what the finding says about this outcome)`);
    if (!Array.isArray(e.outcomes) || !e.outcomes.length) throw new Error(`${at}: give 'outcomes' (one or more {key: value or "*"})`);
    for (const o of e.outcomes)
      for (const [k, v] of Object.entries(o))
        if (typeof v !== 'string' || !(v === '*' || /^(0x[0-9a-fA-F]+|-?\d+)$/.test(v)))
          throw new Error(`${at}: outcome value of ${k} is '${v}': write a decimal, 0x hex or "*"`);
  });
  // the paths as the run shows its tests' (relative to the user's directory), which explain() compares
  return { ...f, explained: f.explained.map((e) => ({ ...e, test: shown(fromRoot(e.test)), finding: shown(fromRoot(e.finding)) })) };
}

/** The finding folder's name (`reports/findings/x/` -> `x`). */
export const findingName = (folder: string): string => folder.replace(/\/+$/, '').split('/').pop() ?? folder;

export interface Explanation {
  /** Forbidden instances an entry explains, per finding folder. */
  readonly known: { finding: string; count: number }[];
  /** Forbidden instances no entry explains. */
  readonly unexplained: number;
}

/**
 * Splits a run's forbidden outcomes seen into explained (by finding) and unexplained. `file` is the
 * test's path as the run shows it; a mutant's `file#name` matches its test's entries.
 */
export function explain(
  f: FindingsFile | undefined,
  file: string,
  run: Pick<GpuLitmusRun, 'keys' | 'keyBits' | 'histogram' | 'other' | 'forbiddenSeen'>,
): Explanation {
  // a mutant (`test#name`) keeps its test's instructions, so the hardware behaviour an entry explains
  // for the test explains the same outcome in its mutants
  const entries = (f?.explained ?? []).filter((e) => e.test === file || file.startsWith(`${e.test}#`));
  const bits = run.keyBits ?? run.keys.map(() => 32);
  const matches = (o: Readonly<Record<string, string>>, values: readonly string[]) =>
    run.keys.every((k, x) => o[k] !== undefined && (o[k] === '*' || BigInt.asUintN(bits[x]!, BigInt(o[k]!)) === BigInt(values[x]!)));
  const known = new Map<string, number>();
  let explained = 0;
  for (const r of run.histogram) {
    if (r.allowed || !r.count) continue;
    const e = entries.find((x) => x.outcomes.some((o) => matches(o, r.values)));
    if (!e) continue;
    known.set(e.finding, (known.get(e.finding) ?? 0) + r.count);
    explained += r.count;
  }
  // the other outcomes beyond the samples (counted in forbiddenSeen only when every sample was forbidden): explained only by an all-'*' outcome
  const listed = run.histogram.filter((r) => !r.allowed).reduce((s, r) => s + r.count, 0);
  const beyond = run.forbiddenSeen - listed;
  if (beyond > 0) {
    const e = entries.find((x) => x.outcomes.some((o) => run.keys.every((k) => o[k] === '*')));
    if (e) {
      known.set(e.finding, (known.get(e.finding) ?? 0) + beyond);
      explained += beyond;
    }
  }
  return { known: [...known].map(([finding, count]) => ({ finding, count })), unexplained: run.forbiddenSeen - explained };
}
