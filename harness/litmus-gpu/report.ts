/**
 * The GPU litmus command's results as reports: one item's results under two stress settings merged,
 * the mutation score and its lines, and the report files (report.json through the shared litmus
 * writer, JUnit, HTML).
 */
import type { Io } from '../cli/io.js';
import { statusCounts, writeLitmusReports } from '../cli/litmus-files.js';
import { xmlText } from '../report/junit.js';
import type { StressOptions } from './kernel.js';
import { renderGpuHtml } from './html.js';
import { type ClassScore, MUTANT_CLASSES, mutationScores } from './mutants.js';
import type { GpuLitmusResult, MutationReport } from './results.js';
import type { ReplayRecord } from './replay.js';
import { mergeRuns } from './run.js';

/** One item's results under two stress settings as one: histograms added up, the first setting kept as `stress`, the others in `stressAlso`. */
export function mergeResults(a: GpuLitmusResult, b: GpuLitmusResult): GpuLitmusResult {
  const r: GpuLitmusResult = {
    ...a,
    stressAlso: [...(a.stressAlso ?? []), ...(b.stress ? [b.stress] : [])],
    ...(a.runs || b.runs ? { runs: [...(a.runs ?? []), ...(b.runs ?? [])] } : {}),
  };
  if (a.gpu && b.gpu) r.gpu = mergeRuns(a.gpu, b.gpu);
  else r.gpu = a.gpu ?? b.gpu;
  if (a.status === 'error' || b.status === 'error') {
    r.status = 'error';
    r.reason = [a.reason, b.reason].filter(Boolean).join('; ');
  } else r.status = r.gpu?.forbiddenSeen ? 'failed' : a.status === 'skipped' ? 'skipped' : 'passed';
  if (a.mutant || b.mutant) r.mutant = { ...(a.mutant ?? b.mutant)!, weak: (a.mutant?.weak ?? 0) + (b.mutant?.weak ?? 0) };
  return r;
}

/** The mutation score of a run's mutant results (errors are not counted as mutants run). */
export function scoreOf(results: readonly GpuLitmusResult[]): MutationReport {
  // a mutant of a test that itself showed a forbidden outcome (a known deviation, or a failure) is
  // not scored: its weak outcome seen says nothing of the mutation (the hardware shows it unmutated)
  const showsItself = new Set(results.filter((r) => !r.mutant && (r.status === 'known-deviation' || r.status === 'failed')).map((r) => r.file));
  const notScored = results.filter((r) => r.mutant && r.gpu && showsItself.has(r.mutant.of)).map((r) => r.file);
  const ms = results.filter((r) => r.mutant && r.gpu && !showsItself.has(r.mutant.of));
  const { perClass, all } = mutationScores(ms.map((r) => ({ cls: r.mutant!.cls, instances: r.gpu!.instances, weak: r.mutant!.weak })));
  const notKilled: MutationReport['notKilled'] = {};
  for (const c of MUTANT_CLASSES) notKilled[c] = ms.filter((r) => r.mutant!.cls === c && !r.mutant!.weak).map((r) => `${r.file}: ${r.mutant!.change}`);
  return { perClass, all, notKilled, ...(notScored.length ? { notScored } : {}) };
}

export function mutationLines(m: MutationReport): string[] {
  const pct = (c: ClassScore) => (c.mutants ? `${((100 * c.killed) / c.mutants).toFixed(1)} %` : 'no mutants');
  const out = [
    `mutation score (mutants whose weak outcome was seen / mutants run): ${m.perClass.map((c) => `${c.cls} ${c.killed}/${c.mutants} (${pct(c)})`).join(', ')}; all ${m.all.killed}/${m.all.mutants} (${pct(m.all)}), target >= 85 %: ${m.all.mutants && m.all.score >= 0.85 ? 'met' : 'NOT met'}`,
  ];
  if (m.notScored?.length)
    out.push(
      `  not scored: ${m.notScored.length} mutant(s) of tests that showed a forbidden outcome themselves (the hardware shows their weak outcome unmutated), e.g. ${m.notScored.slice(0, 3).join('; ')}`,
    );
  for (const c of m.perClass) {
    if (!c.mutants || c.score >= 0.5) continue;
    const nk = m.notKilled[c.cls] ?? [];
    out.push(`  class ${c.cls} below 50 %: ${nk.length} mutant(s) never showed the weak outcome, e.g. ${nk.slice(0, 5).join('; ')}`);
  }
  return out;
}

const GPU_STATUSES = ['passed', 'failed', 'known-deviation', 'skipped', 'unparsed', 'error'] as const;

export function writeGpuReports(
  dir: string,
  io: Io,
  results: readonly GpuLitmusResult[],
  started: Date,
  argv: readonly string[],
  run: {
    device: string;
    seconds: number;
    stress: StressOptions;
    seed: number;
    stride: number;
    selfTest: boolean;
    stressFile?: string;
    mutation?: MutationReport;
    replay?: ReplayRecord;
    replayOf?: string;
    repros?: Record<string, string>;
  },
): void {
  const counts = statusCounts(results, GPU_STATUSES);
  const cases = results.map((r) => ({
    name: r.file,
    seconds: r.gpu?.seconds ?? 0,
    body:
      r.status === 'failed'
        ? `<failure message="${xmlText(`forbidden outcome seen ${r.gpu!.forbiddenSeen} times`)}"/>`
        : r.status === 'skipped'
          ? `<skipped message="${xmlText(r.reason ?? '')}"/>`
          : r.status === 'error' || r.status === 'unparsed'
            ? `<error message="${xmlText(r.reason ?? r.status)}"/>`
            : '',
  }));
  writeLitmusReports(dir, io, {
    backend: 'gpu',
    argv,
    started,
    run,
    counts,
    results,
    html: renderGpuHtml(results, { ...run, arch: run.replay?.arch }),
    junit: { suite: 'litmus-gpu', failures: counts.failed, errors: counts.error + counts.unparsed, skipped: counts.skipped, cases },
  });
}
