/**
 * The closing summary: counts per family and verdict, then the findings (one behaviour, one line
 * with its count and explanation), the expectations' outcomes, and where the reports are.
 */
import type { RunReport } from '../report/json.js';
import { VERDICTS } from '../report/types.js';
import type { Io } from './main.js';

export function table(rows: string[][]): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  '));
}

export function printSummary(io: Io, report: RunReport, maxFindings = 40): void {
  const { byFamily, total } = report.counts;
  const used = VERDICTS.filter((v) => total[v]);
  const rows = [['family', ...used, 'total']];
  for (const [fam, c] of Object.entries(byFamily)) {
    rows.push([fam, ...used.map((v) => String(c[v] ?? 0)), String(Object.values(c).reduce((a, b) => a + (b ?? 0), 0))]);
  }
  rows.push(['all', ...used.map((v) => String(total[v] ?? 0)), String(report.results.length)]);
  io.out('');
  for (const l of table(rows)) io.out(l);
  const judged = Object.entries(report.stats).filter(([k]) => k.startsWith('total.'));
  if (judged.length) io.out(`\nevery case judged (the report keeps a sample of the passes): ${judged.map(([k, v]) => `${k.slice(6)} ${v}`).join(', ')}`);

  if (report.findings.length) {
    io.out(`\nfindings (${report.findings.length}; key | verdict | count | subject | explanation | e.g.):`);
    for (const f of report.findings.slice(0, maxFindings)) {
      io.out(`  ${f.key.padEnd(4)} ${f.verdict.padEnd(16)} ${String(f.count).padStart(7)}  ${f.subject} | ${f.text}${f.expectation ? ` [expectation ${f.expectation}]` : ''} | e.g. ${f.examples[0] ?? ''}`);
    }
    if (report.findings.length > maxFindings) io.out(`  ... ${report.findings.length - maxFindings} more in the report`);
  }
  const outs = report.expectations.outcomes;
  if (outs.length) {
    io.out(`\nexpectations (${report.expectations.file}):`);
    for (const o of outs) {
      const what = o.status === 'occurred' ? `occurred: ${o.matched} known deviation(s)` : o.status === 'unexpected-pass' ? `UNEXPECTED PASS: ${o.ran} matching result(s) ran and none deviated; remove or narrow it (${o.where})` : 'not run: nothing this run checked matches its pattern';
      io.out(`  ${o.id}: ${what}`);
    }
  }
}

/** 0 when everything passed or is known/observed/skipped; 1 for mismatches, compile-mismatches, errors or an unexpected pass. */
export function exitCode(report: RunReport): number {
  const t = report.counts.total;
  const bad = (t.mismatch ?? 0) + (t['compile-mismatch'] ?? 0) + (t.error ?? 0);
  const stale = report.expectations.outcomes.some((o) => o.status === 'unexpected-pass');
  return bad > 0 || stale ? 1 : 0;
}
