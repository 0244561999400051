/**
 * The commands that read reports rather than run anything: diff, render, merge and export. Each
 * usage text below is the one the command table (commands.ts) shows for `X --help`.
 */
import { moveTally } from '../report/tally.js';
import { expectationsPath, undoJudgementOf } from '../compare/expectations.js';
import { judgeRun } from '../compare/judge-run.js';
import { editionCheck, findingsWithEditions, verdictUnder } from '../compare/editions.js';
import { diffReports, formatDiff, regressions } from '../report/diff.js';
import { buildReport } from '../report/json.js';
import { mergeReports } from '../report/merge.js';
import { loadReport } from '../report/load.js';
import { writeReportFiles } from '../report/recorder.js';
import { prepareReportDir } from '../report/dir.js';
import { type Edition, parseEdition, withEdition } from '../catalog/editions.js';
import { UsageError } from '../util/errors.js';
import { readExpectations } from './expectations-file.js';
import { exitCode, printSummary, printWritten } from './summary.js';
import type { Io } from './io.js';

export const DIFF_USAGE = `npm run conformance -- diff OLD.json NEW.json [--fail-on any|regressions]

  The results whose verdict, observed bits or ptxas answer changed between two reports (report.json
  of two runs; .json.gz too), the results only one has, and the findings that appeared or went away
  (a finding whose text differs only in the GPU's name is the same finding).

  --fail-on any          exit 1 on any change (default)
  --fail-on regressions  exit 1 only on new mismatches, compile-mismatches or errors and changed
                         bits: what the nightly job fails on (.ci/nightly-gpu)

  Exit 0 no change (or no regression), 1 changes (regressions), 2 an unreadable report or a bad option.`;

export const RENDER_USAGE = `npm run conformance -- render REPORT.json [--report DIR] [--expectations FILE] [--spec-edition E]

  Judges a recorded report again (under another expectations file, or another PTX ISA edition: every
  kept case with observed bits is judged again from its bits) and writes every format: report.json,
  report.html, junit.xml.

  --report DIR         where the new report goes (default reports/out/render-<time>/)
  --overwrite          replace a report already in --report DIR (without it that folder is refused, exit 2)
  --expectations FILE  known deviations (default cases/expectations/<arch>.yaml)
  --spec-edition E     the edition to judge against (default the report's own)

  Exit codes as a run's: 0, 1 on failures, 2 on bad input.`;

export const MERGE_USAGE = `npm run conformance -- merge S0/report.json S1/report.json ... [--report DIR] [--allow-missing]

  The reports of the shards of one run (--shard 0/N .. N-1/N) as the report of the whole run.

  --report DIR       where the merged report goes (default reports/out/merge-<time>/)
  --overwrite        replace a report already in --report DIR (without it that folder is refused, exit 2)
  --allow-missing    merge though a shard's report is missing (the report says which)

  Exit codes as a run's: 0, 1 on failures, 2 on bad input (shards of different runs, a shard twice).`;

export const EXPORT_USAGE = `npm run conformance -- export REPORT.json --format jsonl|testfloat --out FILE [--filter F]

  Golden vectors of a gpu run: each kept case's inputs, observed bits, SASS and verdict, as JSON lines
  (readable again with --vectors) or TestFloat lines. FILE.gz is compressed.

  --format jsonl|testfloat   the format (default jsonl)
  --out FILE                 where they go (required)
  --filter F                 only the cases whose id matches F

  Exit 0 written, 2 on bad input.`;

/**
 * `diff OLD NEW [--fail-on any|regressions]`: exit 1 when something changed (any, the default) or
 * when the new run regressed (new mismatches or errors, changed bits: what a nightly job fails on);
 * else 0; 2 on unreadable input.
 */
export async function diffCommand(args: readonly string[], io: Io): Promise<number> {
  let failOn = 'any';
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--fail-on') {
      failOn = args[++i] ?? '';
      if (failOn !== 'any' && failOn !== 'regressions')
        throw new UsageError(
          `diff --fail-on takes any (every change fails) or regressions (new mismatches, compile-mismatches and errors, changed bits), got '${failOn}'`,
        );
    } else if (args[i]!.startsWith('--')) throw new UsageError(`diff: unknown option ${args[i]}; it takes --fail-on any|regressions`);
    else files.push(args[i]!);
  }
  if (files.length !== 2)
    throw new UsageError(
      'diff takes two reports: npm run conformance -- diff OLD.json NEW.json [--fail-on any|regressions] (report.json of two runs; .json.gz too)',
    );
  const [a, b] = await Promise.all(files.map((f) => loadReport(f)));
  const d = diffReports(a!, b!);
  for (const l of formatDiff(d, a!, b!)) io.out(l);
  if (failOn === 'any') return d.changes.length || d.appeared.length || d.disappeared.length ? 1 : 0;
  const bad = regressions(d);
  io.out(`regressions (new mismatches, compile-mismatches or errors; changed bits): ${bad.length}`);
  for (const c of bad.slice(0, 50)) io.out(`  ${c.id}: ${c.what === 'added' ? `new result, ${c.new}` : `${c.what} ${c.old} -> ${c.new}`}`);
  if (bad.length > 50) io.out(`  ... ${bad.length - 50} more`);
  return bad.length ? 1 : 0;
}

/**
 * `render REPORT [--report DIR] [--expectations F] [--spec-edition E]`: judge a recorded report
 * again and write every format. Under --spec-edition (default: the edition the report was judged
 * against; 9.1 for reports before editions) every kept case with observed bits is judged again from
 * its bits; the passes the run only counted keep their verdict (said in the output and the stats).
 */
export async function renderCommand(args: readonly string[], io: Io): Promise<number> {
  const file = args[0];
  if (!file || file.startsWith('--'))
    throw new UsageError('render takes a report: npm run conformance -- render REPORT.json [--report DIR] [--expectations FILE] [--spec-edition E]');
  const flag = (name: string) => {
    const i = args.indexOf(name);
    if (i < 0) return undefined;
    const v = args[i + 1];
    if (!v || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
    return v;
  };
  const known = ['--report', '--expectations', '--spec-edition'];
  const bad = args.slice(1).filter((x, i, xs) => x.startsWith('--') && x !== '--overwrite' && !known.includes(x) && !known.includes(xs[i - 1] ?? ''));
  if (bad.length) throw new UsageError(`render: unknown option ${bad[0]}; it takes --report DIR, --overwrite, --expectations FILE and --spec-edition E`);
  const asked = flag('--spec-edition');
  const old = await loadReport(file);
  const was: Edition = old.specEdition ?? '9.1';
  const edition = asked !== undefined ? parseEdition(asked) : was;
  // the rest judged against that edition (the run's context, catalog/editions.ts)
  return withEdition(edition, async () => {
    const exFile = flag('--expectations') ?? expectationsPath(old.arch);
    const expectations = await readExpectations(exFile, flag('--expectations') !== undefined, io);
    if (!expectations) return 2;
    // back to the backend's verdicts; hardware cases judged again from their bits under the edition
    let rejudged = 0;
    let changed = 0;
    // a contend report keeps each group's outcomes in `contention`: its known deviations were mismatches
    const contended = new Set((old.contention ?? []).map((c) => c.id));
    const raw = old.results.map((r) => {
      const u = undoJudgementOf(r, contended.has(r.id));
      if (edition === was || r.kind !== 'case' || !u.case?.observed) return u;
      rejudged++;
      const v = verdictUnder(u, edition);
      if (v.verdict === u.verdict) return u;
      changed++;
      return { ...u, verdict: v.verdict, reason: v.reason, case: { ...u.case, unspecified: v.unspecified, allowed: {} } };
    });
    if (edition !== was)
      io.err(
        `render: judged against PTX ISA ${edition} (the report was judged against ${was}): ${rejudged} kept cases with observed bits judged again from their bits, ${changed} changed verdict; the passes the run only counted are not re-judged`,
      );
    const judged = judgeRun(raw, expectations, [], [], contended);
    // the run's counts over every case move with the kept results whose verdict changed
    const stats = { ...old.stats };
    judged.results.forEach((r, i) => {
      const before = old.results[i]!;
      if (r.verdict === before.verdict || r.kind !== 'case') return;
      moveTally(stats, 'total', r.family, before.verdict, r.verdict);
    });
    if (edition !== was) Object.assign(stats, { rejudgedCases: rejudged, rejudgedChanged: changed });
    const ed = judged.results.some((r) => r.case?.observed) ? editionCheck(judged.results) : undefined;
    const { schema: _s, version: _v, counts: _c, rules: _r, catalog, machine: _m, editionCheck: _e, ...rest } = old;
    const report = {
      ...buildReport({
        ...rest,
        stats,
        specEdition: edition,
        catalogEntries: catalog.entries,
        results: judged.results,
        findings: ed ? findingsWithEditions(judged.findings, judged.results, ed.byResult) : judged.findings,
        expectations: { file: expectations.length ? exFile : null, outcomes: judged.outcomes },
        ...(ed?.check.judged ? { editionCheck: ed.check } : {}),
      }),
      machine: old.machine,
    };
    const dir = prepareReportDir(flag('--report'), 'render-', new Date(), (l) => io.err(l), { overwrite: args.includes('--overwrite') });
    printSummary(io, report);
    printWritten(io, writeReportFiles(dir, report));
    return exitCode(report);
  });
}

/** `merge REPORT... [--report DIR] [--allow-missing]`: the shards' reports as the report of the whole run. */
export async function mergeCommand(args: readonly string[], io: Io): Promise<number> {
  const files: string[] = [];
  let dirArg: string | undefined;
  let allowMissing = false;
  let overwrite = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--report') {
      dirArg = args[++i];
      if (!dirArg || dirArg.startsWith('--')) throw new UsageError('--report needs a folder');
    } else if (a === '--allow-missing') allowMissing = true;
    else if (a === '--overwrite') overwrite = true;
    else if (a.startsWith('--')) throw new UsageError(`merge: unknown option ${a}; it takes --report DIR, --overwrite and --allow-missing`);
    else files.push(a);
  }
  if (!files.length)
    throw new UsageError(
      'merge takes the report.json of every shard: npm run conformance -- merge S0/report.json S1/report.json S2/report.json [--report DIR]',
    );
  const shards = [];
  for (const f of files) shards.push({ file: f, report: await loadReport(f) });
  const report = mergeReports(shards, { allowMissing });
  io.err(`merged ${shards.length} shard report(s) of ${report.command.join(' ')}: ${report.results.length} results kept`);
  const dir = prepareReportDir(dirArg, 'merge-', new Date(), (l) => io.err(l), { overwrite });
  printSummary(io, report);
  printWritten(io, writeReportFiles(dir, report));
  return exitCode(report);
}

/** `export REPORT --format jsonl|testfloat --out FILE [--filter F]`: golden vectors of a hardware run. */
export async function exportCommand(args: readonly string[], io: Io): Promise<number> {
  const { EXPORT_FORMATS, writeExport } = await import('../report/export.js');
  const usage =
    'export takes a report of a gpu run: npm run conformance -- export REPORT.json --format jsonl|testfloat --out FILE [--filter F] (FILE.gz is compressed)';
  let file: string | undefined;
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (['--format', '--out', '--filter'].includes(a)) {
      const v = args[++i];
      if (!v || v.startsWith('--')) throw new UsageError(`${a} needs a value; ${usage}`);
      flags[a] = v;
    } else if (a.startsWith('--')) throw new UsageError(`export: unknown option ${a}; ${usage}`);
    else if (file === undefined) file = a;
    else throw new UsageError(`export takes one report, got ${file} and ${a}; ${usage}`);
  }
  if (!file) throw new UsageError(usage);
  if (!flags['--out'])
    throw new UsageError(
      `export needs --out FILE (where the golden vectors go; FILE.gz is compressed): npm run conformance -- export ${file} --format ${flags['--format'] ?? 'jsonl'} --out FILE`,
    );
  const format = flags['--format'] ?? 'jsonl';
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`export --format takes ${EXPORT_FORMATS.join(' or ')}, got '${format}'`);
  const report = await loadReport(file);
  const out = flags['--out'];
  try {
    const w = writeExport(report, file, format as 'jsonl' | 'testfloat', out, flags['--filter']);
    io.out(`${out}: ${w.cases} cases, ${w.lines} ${format === 'jsonl' ? 'case lines after the provenance line' : 'vector lines'} (${format})`);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && !(e instanceof UsageError))
      throw new UsageError(`--out ${out}: cannot write it (${code}); give a file in a folder that exists and is writable`);
    throw e;
  }
  return 0;
}
