/**
 * JUnit XML for CI systems: one <testsuite> per family; one <testcase> per catalog entry, and one
 * per variant for its cases (failing with the first 20 failing cases listed, when any fails).
 * mismatch and compile-mismatch are failures, error is <error>, skipped is <skipped> with its
 * reason; known-deviation and observed pass, with what they are in <system-out>. A gpu run that
 * judged more cases than it keeps adds one testcase per family for the whole count.
 */
import { tallyRows, tallyText } from './tally.js';
import type { RunReport } from './json.js';
import type { EntryResult } from './types.js';
import { caseLines } from './case-text.js';

/** XML text: escaped, without the control characters XML 1.0 cannot carry. */
export function xmlText(s: string): string {
  return s
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A failing result's whole text (bits, rule with citation, file:line, the replay command): as the console shows it. */
const failText = (r: EntryResult, report: RunReport) => caseLines(r, report.rules, report).join('\n').trim();

function testcase(r: EntryResult, report: RunReport): string {
  const name = xmlText(r.id);
  const cls = xmlText(`${r.family}.${r.kind}`);
  const msg = xmlText(`${r.reason}${r.explanation ? ` | explanation: ${r.explanation.text}` : ''}${r.finding ? ` | finding ${r.finding}` : ''}`);
  switch (r.verdict) {
    case 'mismatch':
    case 'compile-mismatch':
      return `<testcase name="${name}" classname="${cls}"><failure type="${r.verdict}" message="${msg}">${xmlText(failText(r, report))}</failure></testcase>`;
    case 'error':
      return `<testcase name="${name}" classname="${cls}"><error type="error" message="${msg}">${xmlText(failText(r, report))}</error></testcase>`;
    case 'skipped':
      return `<testcase name="${name}" classname="${cls}"><skipped message="${msg}"/></testcase>`;
    case 'known-deviation':
    case 'observed':
      return `<testcase name="${name}" classname="${cls}"><system-out>${xmlText(r.verdict)}: ${msg}</system-out></testcase>`;
    default:
      return `<testcase name="${name}" classname="${cls}"/>`;
  }
}

/** The cases of one variant as one testcase. */
function variantCases(ptx: string, rs: readonly EntryResult[], report: RunReport): string {
  const name = xmlText(`${ptx}: ${rs.length} case(s)`);
  const cls = xmlText(`${rs[0]!.family}.cases`);
  const count = (v: string) => rs.filter((r) => r.verdict === v).length;
  const summary = ['pass', 'observed', 'known-deviation', 'mismatch', 'error', 'skipped']
    .filter((v) => count(v))
    .map((v) => `${v} ${count(v)}`)
    .join(', ');
  const bad = rs.filter((r) => r.verdict === 'mismatch' || r.verdict === 'error');
  const body = bad
    .slice(0, 20)
    .map((r) => `${failText(r, report)}${r.finding ? `\n  finding: ${r.finding}` : ''}`)
    .join('\n\n');
  if (bad.some((r) => r.verdict === 'mismatch'))
    return `<testcase name="${name}" classname="${cls}"><failure type="mismatch" message="${xmlText(summary)}">${xmlText(body)}</failure></testcase>`;
  if (bad.length) return `<testcase name="${name}" classname="${cls}"><error type="error" message="${xmlText(summary)}">${xmlText(body)}</error></testcase>`;
  if (rs.every((r) => r.verdict === 'skipped')) return `<testcase name="${name}" classname="${cls}"><skipped message="${xmlText(rs[0]!.reason)}"/></testcase>`;
  return `<testcase name="${name}" classname="${cls}"><system-out>${xmlText(summary)}</system-out></testcase>`;
}

/** Entries as testcases, cases grouped per variant. */
function testcases(rs: readonly EntryResult[], report: RunReport): { xml: string[]; failures: number; errors: number; skipped: number } {
  const xml: string[] = [];
  const byVariant = new Map<string, EntryResult[]>();
  for (const r of rs) {
    if (r.kind === 'case') {
      const l = byVariant.get(r.ptx);
      if (l) l.push(r);
      else byVariant.set(r.ptx, [r]);
    } else xml.push(testcase(r, report));
  }
  for (const [ptx, cs] of byVariant) xml.push(variantCases(ptx, cs, report));
  return {
    xml,
    failures: xml.filter((x) => x.includes('<failure')).length,
    errors: xml.filter((x) => x.includes('<error')).length,
    skipped: xml.filter((x) => x.includes('<skipped')).length,
  };
}

export function renderJunit(report: RunReport): string {
  const byFamily = new Map<string, EntryResult[]>();
  for (const r of report.results) {
    const l = byFamily.get(r.family);
    if (l) l.push(r);
    else byFamily.set(r.family, [r]);
  }
  const props = [
    `<property name="arch" value="${xmlText(report.arch)}"/>`,
    `<property name="backend" value="${xmlText(report.backend.name)}"/>`,
    `<property name="partial" value="${report.partial}"/>`,
    ...(report.partialReason ? [`<property name="partialReason" value="${xmlText(report.partialReason)}"/>`] : []),
  ].join('');
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  for (const [fam, rs] of byFamily) {
    const extra: string[] = [];
    const judged = tallyRows(report.stats, 'total', fam).filter((t) => t.n > 0);
    if (judged.length) {
      const n = judged.reduce((a, t) => a + t.n, 0);
      const bad = judged.filter((t) => t.what === 'mismatch' || t.what === 'error').reduce((a, t) => a + t.n, 0);
      const text = xmlText(tallyText(judged));
      extra.push(
        `<testcase name="${xmlText(`${fam}: all ${n} cases judged`)}" classname="${xmlText(`${fam}.run`)}">${bad ? `<failure type="mismatch" message="${text}">${text}</failure>` : `<system-out>${text}</system-out>`}</testcase>`,
      );
    }
    // catalog entries counted but not all kept whole (a default run keeps a sample of the passes)
    const checked = tallyRows(report.stats, 'entries', fam).filter((t) => t.n > 0);
    if (checked.length) {
      const n = checked.reduce((a, t) => a + t.n, 0);
      const bad = checked.filter((t) => t.what === 'compile-mismatch' || t.what === 'mismatch' || t.what === 'error').reduce((a, t) => a + t.n, 0);
      const text = xmlText(tallyText(checked));
      extra.push(
        `<testcase name="${xmlText(`${fam}: all ${n} catalog entries checked`)}" classname="${xmlText(`${fam}.catalog`)}">${bad ? `<failure type="compile-mismatch" message="${text}">${text}</failure>` : `<system-out>${text}</system-out>`}</testcase>`,
      );
    }
    const t = testcases(rs, report);
    const all = [...extra, ...t.xml];
    const f = all.filter((x) => x.includes('<failure')).length;
    tests += all.length;
    failures += f;
    errors += t.errors;
    skipped += t.skipped;
    suites.push(
      `<testsuite name="${xmlText(`${report.arch} ${report.backend.name} ${fam}`)}" tests="${all.length}" failures="${f}" errors="${t.errors}" skipped="${t.skipped}" timestamp="${xmlText(report.startedAt)}">\n<properties>${props}</properties>\n${all.join('\n')}\n</testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="ptx-reduction-conformance" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${(report.elapsedMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
