/**
 * The closing summary: counts per family and verdict, then the findings (one behaviour, one line
 * with its count and explanation), the expectations' outcomes, and where the reports are.
 */
import { tallyRows, tallyText } from '../report/tally.js';
import type { RunReport } from '../report/json.js';
import { familyVerdictRows } from '../report/types.js';
import { skipAccount } from '../report/skips.js';
import { caseLines } from '../report/case-text.js';
import { failingResults } from '../report/replay.js';
import { editionsText } from '../catalog/editions.js';
import type { Io } from './io.js';
import type { WrittenReport } from '../report/recorder.js';

export function table(rows: string[][]): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  '));
}

/** Wraps `parts` (joined by ", ") after `head` into lines of at most `width`, continued with an indent. */
function wrap(head: string, parts: readonly string[], width: number): string[] {
  const out: string[] = [];
  let line = head;
  for (const [i, p] of parts.entries()) {
    const piece = `${p}${i < parts.length - 1 ? ',' : ''}`;
    if (line.length + 1 + piece.length > width && line.trim() !== '') {
      out.push(line);
      line = `    ${piece}`;
    } else line = line.endsWith(':') || line === '    ' ? `${line} ${piece}` : `${line} ${piece}`;
  }
  out.push(line);
  return out;
}

/** Cuts a line to `width` columns (an ellipsis marks the cut). */
function fit(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, Math.max(1, width - 1))}…`;
}

/**
 * The closing summary on stdout, fitted to `columns` (the terminal's width; 100 for a log, where
 * lines are not cut: finding lines and examples are printed whole):
 * verdict counts per family, catalog entries and cases apart (they are different things: a
 * compile check of an entry, a judged case), as a table where it fits and as one line per row
 * where it does not; the findings, one line each (the example on its own line); the expectations.
 */
export function printSummary(io: Io, report: RunReport, maxFindings = 40, columns = io.columns ?? 100): void {
  // cut to the terminal's width on a terminal; whole in a log or CI output (no width: not a terminal)
  const fitTo = (line: string, width: number) => (io.columns === undefined ? line : fit(line, width));
  const { rows, used, every } = familyVerdictRows(report);
  const droppedAll = every.notKept.all;
  const droppedPasses = every.notKept.entries + every.notKept.cases;
  io.out('');
  const lines = table(rows);
  if (lines.every((l) => l.length <= columns)) for (const l of lines) io.out(l);
  else
    for (const r of rows.slice(1))
      for (const l of wrap(`${r[0]}:`, [...used.map((v, i) => `${v} ${r[i + 1]}`).filter((x) => !x.endsWith(' 0')), `total ${r[r.length - 1]}`], columns))
        io.out(l);
  const judged = tallyRows(report.stats, 'total');
  if (droppedAll) {
    const what = [droppedPasses ? `${droppedPasses} passes` : '', every.notKept.observed ? `${every.notKept.observed} observed results` : '']
      .filter(Boolean)
      .join(' and ');
    io.out(
      fitTo(
        `\n${what} are counted above but not kept whole in the report (--keep all keeps every catalog entry and every case given in files or by --case; generated cases are sampled); replay any by its id`,
        columns + 1,
      ),
    );
  }
  if (judged.length) io.out(fitTo(`\nevery case judged (the report keeps a sample of the passes): ${tallyText(judged)}`, columns + 1));
  printSkips(io, report, fitTo, columns);

  if (report.findings.length) {
    io.out(`\nfindings (${report.findings.length}; key, verdict, count, subject: explanation; then an example id):`);
    for (const f of report.findings.slice(0, maxFindings)) {
      io.out(
        fitTo(
          `  ${f.key.padEnd(4)} ${f.verdict.padEnd(15)} ${String(f.count).padStart(7)}  ${f.subject}: ${f.text}${f.expectation ? ` [expectation ${f.expectation}]` : ''}`,
          columns,
        ),
      );
      if (f.examples[0]) io.out(fitTo(`       e.g. ${f.examples[0]}`, columns));
    }
    if (report.findings.length > maxFindings) io.out(`  ... ${report.findings.length - maxFindings} more in the report`);
  }
  const ed = report.editionCheck?.subjects.filter((x) => x.against.length);
  if (ed?.length) {
    io.out(`\nwhere the PTX ISA edition decides (judged against ${report.specEdition ?? '9.1'}; each kept hardware case judged under every edition):`);
    for (const x of ed)
      io.out(
        fitTo(
          `  ${x.subject}: ${x.cases} cases; as ${editionsText(x.agrees) || 'no edition'} says${x.against.length ? `, against ${editionsText(x.against)}` : ''}`,
          columns,
        ),
      );
  }
  const outs = report.expectations.outcomes;
  if (outs.length) {
    io.out(`\nexpectations (${report.expectations.file}):`);
    for (const o of outs) {
      const what =
        o.status === 'occurred'
          ? `occurred: ${o.matched} known deviation(s)`
          : o.status === 'unexpected-pass'
            ? report.shard
              ? `did not occur in this shard (${o.ran} matching result(s) ran); merge judges it over the whole run`
              : `UNEXPECTED PASS: ${o.ran} matching result(s) ran and none deviated; remove or narrow it (${o.where})${o.why ? `; ${o.why}` : ''}`
            : o.status === 'other-edition'
              ? `not applied: it is for PTX ISA ${o.editions}, this run is judged against ${report.specEdition ?? '9.1'}`
              : o.status === 'not-applicable'
                ? `not applied: its pattern matched ${o.seen} result(s), none of which could show ${/^[aeiou]/.test(o.verdict) ? 'an' : 'a'} ${o.verdict}: ${o.why}`
                : 'not run: nothing this run checked matches its pattern';
      io.out(`  ${o.id}: ${what}`);
    }
  }
  printFailing(io, report);
}

/**
 * The results that fail the run, each whole (never cut to the terminal's width): instruction and
 * origin (file:line for a vector file's case), the bits observed or expected beside what the model
 * allows, the verdict and why, the rules with their citations, and the command that replays it.
 */
export function printFailing(io: Io, report: RunReport, max = 10): void {
  const bad = failingResults(report);
  // --case printed its case whole already
  if (!bad.length || report.command?.includes('--case')) return;
  io.out(`\nfailing results (${bad.length}${bad.length > max ? `; the first ${max} here, every one in report.json, junit.xml and report.html` : ''}):`);
  for (const r of bad.slice(0, max)) for (const l of caseLines(r, report.rules, report)) io.out(l);
}

/** The skip account (report.skips; computed from the results for a report before it): each group's count and its most frequent reasons. */
function printSkips(io: Io, report: RunReport, fitTo: (line: string, width: number) => string, columns: number): void {
  const a = report.skips ?? skipAccount(report.results);
  if (!a.total) return;
  io.out(`\nskipped ${a.total}, by what running them needs (report.json: skips):`);
  const w = Math.max(...a.groups.map((g) => g.label.length));
  for (const g of a.groups) {
    io.out(fitTo(`  ${g.label.padEnd(w)} ${String(g.count).padStart(7)}`, columns));
    for (const r of g.reasons.slice(0, 3)) io.out(fitTo(`    ${String(r.count).padStart(7)}  ${r.reason} (e.g. ${r.example})`, columns));
    if (g.reasons.length > 3) io.out(`    ... ${g.reasons.length - 3} more reason(s) in the report`);
  }
}

/** 0 when everything passed or is known/observed/skipped; 1 for mismatches, compile-mismatches, errors or an unexpected pass. */
export function exitCode(report: RunReport): number {
  const t = report.counts.total;
  const bad = (t.mismatch ?? 0) + (t['compile-mismatch'] ?? 0) + (t.error ?? 0);
  // a shard sees part of the run: whether an expectation no longer occurs is for merge to say
  const stale = !report.shard && report.expectations.outcomes.some((o) => o.status === 'unexpected-pass');
  return bad > 0 || stale ? 1 : 0;
}

/**
 * Where the report went: on stdout, or on stderr once stdout's reader is gone (a pipe into head), so
 * that the paths are never lost. Every command that writes a report prints them through this.
 */
export function printWritten(io: Io, w: Pick<WrittenReport, 'json' | 'html' | 'junit'> & { jsonl?: string }): void {
  const say = io.outGone?.() ? io.err : io.out;
  say(`\nreport: ${w.json}`);
  say(`html:   ${w.html}`);
  say(`junit:  ${w.junit}`);
  if (w.jsonl) say(`stream: ${w.jsonl}`);
}
