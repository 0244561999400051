/**
 * The closing summary: counts per family and verdict, then the compile-mismatches and observations
 * grouped by (expectation, rule, toolchain message), so one behaviour shows as one line with a count.
 */
import { type EntryResult, VERDICTS, type Verdict, countResults } from '../report/types.js';
import type { Io } from './main.js';

function table(rows: string[][]): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  '));
}

/** The message ptxas gave, without the register names and numbers that vary between lines. */
function toolMessage(r: EntryResult): string {
  if (!r.ptxas) return '';
  if (r.ptxas.crashed) return `ptxas crashed (${r.ptxas.crashed})`;
  if (r.ptxas.accepted) return 'ptxas accepts';
  const errs = r.ptxas.messages.filter((m) => !m.startsWith('warning'));
  return (errs[0] ?? r.ptxas.messages[0] ?? 'rejected').replace(/%r\d+_\d+/g, '%r');
}

export interface Finding {
  readonly verdict: Verdict;
  readonly expect: string;
  readonly rule: string;
  readonly tool: string;
  readonly count: number;
  readonly examples: string[];
}

/** Groups non-pass results that carry a toolchain answer. */
export function groupFindings(results: readonly EntryResult[], verdicts: readonly Verdict[]): Finding[] {
  const groups = new Map<string, Finding>();
  for (const r of results) {
    if (!verdicts.includes(r.verdict)) continue;
    const rule = r.catalog.rules[0] ?? '';
    const tool = toolMessage(r);
    const key = `${r.verdict}|${r.catalog.expect}|${rule}|${tool}`;
    const g = groups.get(key) ?? { verdict: r.verdict, expect: r.catalog.expect, rule, tool, count: 0, examples: [] };
    (g as { count: number }).count++;
    if (g.examples.length < 3) g.examples.push(r.id);
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule));
}

export function printSummary(io: Io, results: readonly EntryResult[]): void {
  const { byFamily, total } = countResults(results);
  const used = VERDICTS.filter((v) => total[v]);
  const rows = [['family', ...used, 'total']];
  for (const [fam, c] of Object.entries(byFamily)) {
    rows.push([fam, ...used.map((v) => String(c[v] ?? 0)), String(Object.values(c).reduce((a, b) => a + (b ?? 0), 0))]);
  }
  rows.push(['all', ...used.map((v) => String(total[v] ?? 0)), String(results.length)]);
  io.out('');
  for (const l of table(rows)) io.out(l);

  const skipped = new Map<string, number>();
  for (const r of results) if (r.verdict === 'skipped') skipped.set(r.reason, (skipped.get(r.reason) ?? 0) + 1);
  if (skipped.size) {
    io.out('\nskipped:');
    for (const [why, n] of [...skipped].sort((a, b) => b[1] - a[1])) io.out(`  ${String(n).padStart(6)}  ${why}`);
  }
  for (const v of ['error', 'compile-mismatch', 'observed'] as const) {
    const f = groupFindings(results, [v]);
    if (!f.length) continue;
    io.out(`\n${v} (${total[v]} entries in ${f.length} groups: catalog expectation | catalog rule | ptxas):`);
    for (const g of f) io.out(`  ${String(g.count).padStart(6)}  expect ${g.expect} | ${g.rule} | ${g.tool}   e.g. ${g.examples.join(', ')}`);
  }
}
