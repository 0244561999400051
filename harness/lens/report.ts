/**
 * The lens's results as the report every other command writes (report.json, report.html, junit.xml,
 * the results stream), judged with the expectations file as the main run and `contend` are: each
 * group a result whose id names its catalog variant and contention group, so that an expectation
 * over `contend` groups (`*.shared::cluster.or.b64*\/contend-cluster-*`) covers the same group when a
 * CUDA C++ call compiles to it. A group's outcomes go into the report's `contention` section (they
 * are contention groups); what only the lens knows (the C++ call, memory, nvcc, the table per call)
 * into its `lens` section. No GPU is needed here: a recorded run's results are judged the same way.
 */
import { parseInstruction } from '../catalog/parse.js';
import { specEdition } from '../catalog/editions.js';
import type { Expectation } from '../compare/expectations.js';
import type { ContentionReport } from '../report/json.js';
import { RunRecorder, type WrittenReport } from '../report/recorder.js';
import type { EntryResult } from '../report/types.js';
import type { LensResult, LensRow, LensSkip } from './run.js';

/** What only the lens records (the `lens` section of report.json). */
export interface LensSection {
  readonly reps: number;
  readonly device: { readonly name: string; readonly cc: string; readonly driverVersion: number };
  readonly toolchains: readonly {
    path: string;
    versionLine: string;
    slug: string;
    flags: readonly string[];
    files: readonly { file: string; compiled: boolean; error?: string; sassBy: string }[];
  }[];
  readonly seconds: { readonly compile: number; readonly gpuAndJudge: number };
  readonly rows: readonly LensRow[];
  readonly results: readonly LensResult[];
  readonly skipped: readonly LensSkip[];
}

/** A lens group's result id: its variant's contention group, then the C++ kernel and the nvcc that built it. */
export function lensResultId(r: Pick<LensResult, 'variant' | 'layout' | 'set' | 'kernel' | 'toolchainSlug'>): string {
  return `${r.variant}/contend-${r.layout}-${r.set}/lens-${r.kernel}@${r.toolchainSlug}`;
}

/** One group as a result of the run (the verdict before expectations; judgeRun applies them). */
export function lensEntryResult(r: LensResult): EntryResult {
  const hist = r.outcomes
    .slice(0, 6)
    .map((o) => `${o.count}x ${o.verdict}: memory ${o.memory.join(' ')}`)
    .join('; ');
  const first = r.verdict !== 'pass' ? r.outcomes.find((o) => o.verdict === r.verdict)?.reason : undefined;
  return {
    id: lensResultId(r),
    family: parseInstruction(r.variant).family.id,
    kind: 'case',
    ptx: r.variant,
    modulePtx: '-',
    catalog: {
      status: 'valid',
      expect: 'accept',
      reason: `${r.call} on ${r.memory}, compiled by ${r.toolchain}: the catalog variant it stands for, under contention`,
      rules: [],
    },
    verdict: r.verdict,
    toolchain: r.toolchain,
    ...(r.sass?.length ? { sass: r.sass.join(' / ') } : {}),
    reason:
      `${r.call} (${r.kernel}, ${r.memory}) by ${r.toolchain}: ${r.n} participants (${r.layout}, operands '${r.set}'), ${r.reps} addresses x 2 launches, ` +
      `${r.atomic ? 'scopes include every participant (atomic)' : 'a scope that does not include every participant'}: ${r.distinct} distinct outcomes; ` +
      `${r.deterministic ? 'the two launches gave identical bits' : 'the two launches differed'}; ${r.lostUpdates ? `${r.lostUpdates} addresses lost an update; ` : ''}${hist}${first ? `; first: ${first}` : ''}`,
  };
}

/** The group's outcomes as the report's contention section keeps them. */
function contentionOf(r: LensResult): ContentionReport {
  return {
    id: lensResultId(r),
    variant: r.variant,
    layout: r.layout as ContentionReport['layout'],
    set: r.set,
    n: r.n,
    reps: r.reps,
    atomic: r.atomic,
    verdict: r.verdict,
    ...(r.allowed !== undefined ? { allowed: r.allowed } : {}),
    deterministic: r.deterministic,
    lostUpdates: r.lostUpdates,
    selftest: false,
    outcomes: r.outcomes.slice(0, 16),
    distinct: r.distinct,
    counts: r.counts,
  };
}

export interface LensRunMeta {
  readonly startedAt: string;
  readonly command: readonly string[];
  readonly arch: string;
  readonly filter: string | null;
}

/**
 * Writes the lens's report into `dir`: every group judged with `expectations` (a known deviation is
 * `known-deviation`, not a failure), the formats every run writes. The exit code is the run's
 * (summary.ts exitCode of the report).
 */
export function writeLensReport(
  dir: string,
  meta: LensRunMeta,
  lens: LensSection,
  expectations: readonly Expectation[],
  expectationsFile: string | null,
): WrittenReport {
  // judged against the edition this process judges (the newest unless set): the lens takes no --spec-edition
  const rec = new RunRecorder(dir, { ...meta, seed: 0, specEdition: specEdition() }, expectations, expectationsFile);
  const results = lens.results.map(lensEntryResult);
  rec.set({
    toolchain: { gpu: { device: lens.device, driverVersion: lens.device.driverVersion } },
    modulePtx: '-',
    backend: {
      name: 'gpu',
      reason: `lens: CUDA C++ compiled by ${lens.toolchains.map((t) => t.versionLine).join(' and ')}, run on ${lens.device.name}`,
      passedOver: [],
    },
    stats: {
      lensGroups: lens.results.length,
      lensKernelsSkipped: lens.skipped.length,
      lensCompileSeconds: lens.seconds.compile,
      lensGpuAndJudgeSeconds: lens.seconds.gpuAndJudge,
      contentionLostUpdates: lens.results.reduce((t, r) => t + r.lostUpdates, 0),
    },
    catalogEntries: new Set(lens.results.map((r) => r.variant)).size,
    contention: lens.results.map(contentionOf),
    lens: { ...lens },
  });
  rec.add(results);
  return rec.finish();
}
