/**
 * `merge REPORT...`: the reports of one run's shards (--shard 0/N .. N-1/N) put together into the
 * report of the whole run. Shards split every list into contiguous parts in the unsharded order
 * (harness/util/shard.ts), so their results, catalog entries first and then cases, shard by shard,
 * are the unsharded run's in order; the passes a ptxas + reference run keeps whole (--keep) are
 * trimmed again to the whole run's first N; findings are grouped again over the whole; expectation
 * outcomes and statistics are summed. Verdict counts, findings and expectation outcomes then equal
 * those of the run without --shard (tests/report/merge.test.ts).
 *
 * Refused (a UsageError naming the file): a report that is not a shard, shards of different runs
 * (command without --shard/--report, arch, backend, seed, filter, expectations file, toolchain), a
 * shard given twice, and a missing shard (named; merge the ones you have with --allow-missing).
 */
import { Tally, addCount, hasTally, tallyRows } from './tally.js';
import { findingsOf } from '../compare/compare.js';
import type { ExpectationOutcome } from '../compare/expectations.js';
import { UsageError } from '../util/errors.js';
import { type RunReport, buildReport } from './json.js';
import type { EntryResult } from './types.js';

export interface ShardFile {
  readonly file: string;
  readonly report: RunReport;
}

/** The command a shard ran, without the options that differ between shards. */
export function unshardedCommand(cmd: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < cmd.length; i++) {
    const a = cmd[i]!;
    if (a === '--shard' || a === '--report') {
      i++;
      continue;
    }
    if (a.startsWith('--shard=') || a.startsWith('--report=')) continue;
    out.push(a);
  }
  return out;
}

/** Stats that describe one process, not a count: not summed. */
const PER_PROCESS = /(PerSecond|^workers)$/;

export function mergeReports(shards: readonly ShardFile[], opts: { allowMissing?: boolean } = {}): RunReport {
  if (!shards.length) throw new UsageError('merge takes the report.json of every shard: npm run conformance -- merge S0/report.json S1/report.json ...');
  for (const s of shards)
    if (!s.report.shard)
      throw new UsageError(`${s.file}: not a shard's report (it was not run with --shard I/N); merge puts together the reports of --shard 0/N .. N-1/N`);
  const first = shards[0]!;
  const n = first.report.shard!.count;
  const same = (what: string, f: (r: RunReport) => unknown) => {
    const want = JSON.stringify(f(first.report));
    for (const s of shards) {
      const got = JSON.stringify(f(s.report));
      if (got !== want) throw new UsageError(`${s.file}: not a shard of the same run as ${first.file}: ${what} ${got} against ${want}`);
    }
  };
  same('shard count', (r) => r.shard!.count);
  same('command (without --shard and --report)', (r) => unshardedCommand(r.command));
  same('arch', (r) => r.arch);
  same('backend', (r) => r.backend.name);
  same('seed', (r) => r.seed);
  same('spec edition', (r) => r.specEdition ?? '9.1');
  same('filter', (r) => r.filter);
  same('--keep', (r) => r.shard!.keepPasses);
  same('expectations file', (r) => r.expectations.outcomes.map((o) => `${o.id}@${o.pattern}`));
  same('ptxas', (r) => r.toolchain.ptxas?.versionLine ?? null);
  const byIndex = new Map<number, ShardFile>();
  for (const s of shards) {
    const i = s.report.shard!.index;
    const dup = byIndex.get(i);
    if (dup) throw new UsageError(`${s.file}: shard ${i}/${n} again (also ${dup.file}); give each shard's report once`);
    byIndex.set(i, s);
  }
  const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length && !opts.allowMissing) {
    throw new UsageError(
      `shard(s) ${missing.map((i) => `${i}/${n}`).join(', ')} missing: the merged report would not be the whole run. Give every shard's report, or --allow-missing to merge these (the report is then partial and says which are missing)`,
    );
  }
  const ordered = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, s]) => s);

  // results in the unsharded order; the finding keys are given again over the whole
  const strip = (r: EntryResult): EntryResult => {
    const { finding: _f, ...rest } = r;
    return rest;
  };
  const entries = ordered.flatMap((s) => s.report.results.filter((r) => r.kind !== 'case').map(strip));
  const cases = ordered.flatMap((s) => s.report.results.filter((r) => r.kind === 'case').map(strip));

  // statistics: counts summed; each shard's counts of entries and cases derived from its results where it kept them all
  const stats: Record<string, number> = {};
  const add = (k: string, v: number) => (stats[k] = (stats[k] ?? 0) + v);
  const hasTotals = ordered.some((s) => hasTally(s.report.stats, 'total', undefined, true));
  const derived = new Tally();
  for (const s of ordered) {
    for (const [k, v] of Object.entries(s.report.stats)) if (!PER_PROCESS.test(k) && typeof v === 'number') add(k, v);
    const counted = { entries: hasTally(s.report.stats, 'entries', undefined, true), total: hasTally(s.report.stats, 'total', undefined, true) };
    for (const r of s.report.results) {
      const kind = r.kind === 'case' ? 'total' : 'entries';
      if (!counted[kind]) derived.add(kind, r.family, r.verdict);
    }
  }
  // the passes kept whole: the whole run's first --keep of entries and of cases
  const keep = first.report.shard!.keepPasses;
  const trim = (rs: EntryResult[], what: 'entries' | 'cases'): EntryResult[] => {
    if (keep === null) return rs;
    let passes = 0;
    return rs.filter((r) => {
      if (r.verdict !== 'pass' || passes++ < keep) return true;
      addCount(stats, 'dropped', r.family, what);
      return false;
    });
  };
  const results = [...trim(entries, 'entries'), ...trim(cases, 'cases')];
  const dropped = (what: string) => hasTally(stats, 'dropped', what);
  for (const t of tallyRows(derived.stats())) {
    if (t.kind === 'entries' ? dropped('entries') : hasTotals || dropped('cases')) addCount(stats, t.kind, t.family, t.what, t.n);
  }

  // expectations: per result already; outcomes summed
  const outcomes = first.report.expectations.outcomes.map((o, k): ExpectationOutcome => {
    const matched = ordered.reduce((t, s) => t + s.report.expectations.outcomes[k]!.matched, 0);
    const ran = ordered.reduce((t, s) => t + s.report.expectations.outcomes[k]!.ran, 0);
    const seen = ordered.reduce((t, s) => t + (s.report.expectations.outcomes[k]!.seen ?? 0), 0);
    const why = matched ? undefined : ordered.map((s) => s.report.expectations.outcomes[k]!.why).find(Boolean);
    const { seen: _s, why: _w, ...rest } = o;
    return {
      ...rest,
      matched,
      ran,
      ...(seen ? { seen } : {}),
      ...(why ? { why } : {}),
      status: o.status === 'other-edition' ? 'other-edition' : matched > 0 ? 'occurred' : ran > 0 ? 'unexpected-pass' : seen > 0 ? 'not-applicable' : 'not-run',
    };
  });
  const grouped = findingsOf(results);
  const partials = ordered
    .filter((s) => s.report.partial)
    .map((s) => `shard ${s.report.shard!.index}/${n} (${s.file}): ${s.report.partialReason ?? 'partial'}`);
  const partialReason = [...(missing.length ? [`merged without shard(s) ${missing.map((i) => `${i}/${n}`).join(', ')}`] : []), ...partials].join('; ');
  const started = Math.min(...ordered.map((s) => Date.parse(s.report.startedAt)));
  const finished = Math.max(...ordered.map((s) => Date.parse(s.report.finishedAt)));
  const sweeps = ordered.flatMap((s) => s.report.sweeps ?? []);
  const notRun = ordered.flatMap((s) => s.report.sweepsNotRun ?? []);
  const contention = ordered.flatMap((s) => s.report.contention ?? []);
  const r0 = first.report;
  return {
    ...buildReport({
      partial: partialReason !== '',
      ...(partialReason ? { partialReason } : {}),
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date(finished).toISOString(),
      elapsedMs: finished - started,
      command: unshardedCommand(r0.command),
      toolchain: r0.toolchain,
      arch: r0.arch,
      modulePtx: r0.modulePtx,
      backend: r0.backend,
      filter: r0.filter,
      seed: r0.seed,
      ...(r0.specEdition ? { specEdition: r0.specEdition } : {}),
      stats,
      catalogEntries: ordered.reduce((t, s) => t + s.report.catalog.entries, 0),
      results: grouped.results,
      findings: grouped.findings,
      expectations: { file: r0.expectations.file, outcomes },
      ...(sweeps.length ? { sweeps } : {}),
      ...(notRun.length ? { sweepsNotRun: notRun } : {}),
      ...(contention.length ? { contention } : {}),
      mergedFrom: ordered.map((s) => ({
        file: s.file,
        index: s.report.shard!.index,
        startedAt: s.report.startedAt,
        hostname: s.report.machine.hostname,
        partial: s.report.partial,
      })),
    }),
  };
}
