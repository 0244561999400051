/**
 * `npm run conformance -- litmus [PATH...] [--filter F] [--backend reference] [--list] [--report DIR]`:
 * judges litmus tests (docs/litmus.md; Dat3M's files and the project's extended ones) under the
 * chapter-8 model (harness/memory-model/). Prints per test its outcome table and one summary line
 * `<path>  allowed|forbidden  <axiom or "no axiom forbids it">`; writes report.json, report.html and
 * junit.xml. Exit 0 when every file parsed and every stated intent agrees with the model's verdict,
 * 1 when an intent disagrees (or judging a test failed), 2 when a file did not parse (the others
 * still run) or on bad usage.
 */
import { parseArgs } from 'node:util';
import { condHolds } from '../memory-model/condition.js';
import { intentOf } from '../memory-model/intent.js';
import { judge, type Judgement } from '../memory-model/index.js';
import { prepareReportDir } from '../report/dir.js';
import { xmlText } from '../report/junit.js';
import { litmusFiles, readLitmusFiles, statusCounts, writeLitmusReports } from './litmus-files.js';
import { UsageError } from '../util/errors.js';
import type { Io } from './io.js';

export const LITMUS_USAGE = `npm run conformance -- litmus [PATH...] [options]
  judges litmus tests under the PTX memory model (chapter 8; docs/litmus.md): Dat3M's PTX litmus
  files and the project's extended ones (default: cases/litmus/). Per test: its outcome table (each
  final outcome allowed, or forbidden and by which axiom) and a summary line
  <path>  allowed|forbidden  <axiom or "no axiom forbids it">
  --filter F        only tests whose path or name matches (comma-separated, * and ?)
  --backend B       reference (the model) or gpu (run on the GPU: litmus --backend gpu --help)
  --list            list the tests (path, name, stated intent) without judging
  --report DIR      where report.json, report.html and junit.xml go (default reports/out/litmus-<timestamp>/)
  --overwrite       replace a report already in --report DIR (without it that folder is refused, exit 2)
  exit: 0 all parsed and every stated intent agrees; 1 an intent disagrees; 2 a file did not parse or bad usage`;

/** The word of the summary line: about the outcome `exists` describes, or the outcomes violating `~exists`/`forall`. */
export function verdictWord(j: Pick<Judgement, 'quantifier' | 'holds'>): 'allowed' | 'forbidden' {
  if (j.quantifier === 'exists') return j.holds ? 'allowed' : 'forbidden';
  return j.holds ? 'forbidden' : 'allowed';
}

/** The axioms forbidding the outcomes the word is about ("no axiom forbids it" when allowed). */
export function verdictAxioms(j: Judgement, holdsFor: (values: Record<string, string>) => boolean): string {
  if (verdictWord(j) === 'allowed') return 'no axiom forbids it';
  const about = j.outcomes.filter((o) => !o.allowed && (j.quantifier === 'exists' ? holdsFor(o.values) : !holdsFor(o.values)));
  // rows with '*' values stand for executions an axiom rejected before their final values were settled
  const wild = j.outcomes.filter((o) => !o.allowed && Object.values(o.values).includes('*'));
  const axioms = [...new Set((about.length ? about : wild).map((o) => o.axiom ?? '?'))];
  return axioms.length ? axioms.join(', ') : 'no candidate execution has it';
}

export interface LitmusResult {
  file: string;
  name: string;
  status: 'passed' | 'failed' | 'unparsed' | 'error';
  word?: 'allowed' | 'forbidden';
  axioms?: string;
  quantifier?: string;
  intent?: { verdict: string; text: string };
  outcomes?: { values: Record<string, string>; allowed: boolean; axiom?: string; described: boolean }[];
  executions?: number;
  ms?: number;
  problems?: string[];
}

function outcomeTable(r: LitmusResult): string[] {
  const rows = r.outcomes ?? [];
  if (!rows.length) return ['    (no final outcome)'];
  const keys = [...new Set(rows.flatMap((o) => Object.keys(o.values)))];
  const head = [...keys, 'verdict', ''];
  const body = rows.map((o) => [
    ...keys.map((k) => o.values[k] ?? '-'),
    o.allowed ? 'allowed' : `forbidden (${o.axiom ?? '?'})`,
    o.described ? '<- condition' : '',
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  return [head, ...body].map(
    (row) =>
      `    ${row
        .map((c, i) => c.padEnd(w[i]!))
        .join('  ')
        .trimEnd()}`,
  );
}

export async function litmusCommand(argv: readonly string[], io: Io): Promise<number> {
  // --backend gpu: the GPU runner (issue 26, first slice) parses its own options
  if (argv.some((a, i) => a === '--backend=gpu' || (a === '--backend' && argv[i + 1] === 'gpu')))
    return (await import('../litmus-gpu/cli.js')).litmusGpuCommand(argv, io);
  let v;
  try {
    v = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        filter: { type: 'string' },
        backend: { type: 'string' },
        list: { type: 'boolean' },
        report: { type: 'string' },
        overwrite: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(`${e instanceof Error ? e.message : String(e)}\n\n${LITMUS_USAGE}`);
  }
  const o = v.values;
  if (o.help) {
    io.out(LITMUS_USAGE);
    return 0;
  }
  if (o.backend !== undefined && o.backend !== 'reference')
    throw new UsageError(
      `--backend ${o.backend}: litmus tests run under the reference model (--backend reference) or on the GPU (--backend gpu; issue 26, first slice)`,
    );
  const files = litmusFiles(v.positionals);
  const results: LitmusResult[] = [];
  let unparsed = 0;
  const started = new Date();
  // the folder is checked before any test runs: a --report holding a report costs nothing (exit 2)
  const dir = o.list ? '' : prepareReportDir(o.report, 'litmus-', started, (s) => io.err(s), { overwrite: o.overwrite ?? false });
  for (const f of readLitmusFiles(files, o.filter, io)) {
    const { file: shown, name } = f;
    if (!f.test) {
      unparsed++;
      results.push({ file: shown, name, status: 'unparsed', problems: f.problems });
      continue;
    }
    const test = f.test;
    const intent = intentOf(test);
    if (o.list) {
      io.out(`${shown}\t${test.name}\t${intent ? intent.verdict : '(no intent)'}`);
      continue;
    }
    try {
      const j = judge(test);
      const holdsFor = (values: Record<string, string>) => condHolds(test.cond, values) === true;
      const word = verdictWord(j);
      const axioms = verdictAxioms(j, holdsFor);
      const agrees = !intent || intent.verdict === word;
      const r: LitmusResult = {
        file: shown,
        name: test.name,
        status: agrees ? 'passed' : 'failed',
        word,
        axioms,
        quantifier: j.quantifier,
        ...(intent ? { intent: { verdict: intent.verdict, text: intent.text } } : {}),
        outcomes: j.outcomes.map((x) => ({ values: x.values, allowed: x.allowed, ...(x.axiom ? { axiom: x.axiom } : {}), described: holdsFor(x.values) })),
        executions: j.executions,
        ms: j.ms,
      };
      results.push(r);
      io.out(`${shown}  (${test.name}, ${j.quantifier}, ${j.executions} candidate executions)`);
      for (const l of outcomeTable(r)) io.out(l);
      if (!agrees) io.out(`    INTENT DISAGREES: the test states '${intent!.verdict}' (${intent!.text}); the model says ${word} (${axioms})`);
    } catch (e) {
      results.push({ file: shown, name: test.name, status: 'error', problems: [(e as Error).message] });
      io.err(`${shown}: the model could not judge it: ${(e as Error).message}`);
    }
  }
  if (o.list) return unparsed ? 2 : 0;
  if (!results.length)
    throw new UsageError(`no litmus test selected${o.filter ? ` by --filter '${o.filter}'` : ''} in ${files.length} file(s); --list shows them`);
  io.out('');
  const w = Math.max(...results.map((r) => r.file.length));
  for (const r of results) {
    if (r.status === 'unparsed') io.out(`${r.file.padEnd(w)}  unparsed   ${r.problems?.[0] ?? ''}`);
    else if (r.status === 'error') io.out(`${r.file.padEnd(w)}  error      ${r.problems?.[0] ?? ''}`);
    else io.out(`${r.file.padEnd(w)}  ${r.word!.padEnd(9)}  ${r.axioms}${r.status === 'failed' ? `  [intent: ${r.intent!.verdict}: DISAGREES]` : ''}`);
  }
  const failed = results.filter((r) => r.status === 'failed' || r.status === 'error').length;
  const withIntent = results.filter((r) => r.intent).length;
  const agreeing = results.filter((r) => r.intent && r.status === 'passed').length;
  io.out(
    `${results.length} test(s): ${results.length - unparsed} judged, ${unparsed} unparsed; ${agreeing} of ${withIntent} stated intents agree with the model${failed ? `; ${failed} failed` : ''}`,
  );
  writeLitmusReports(dir, io, {
    backend: 'reference',
    argv,
    started,
    counts: statusCounts(results, STATUSES),
    results,
    indent: 1,
    html: referenceHtml(results, started),
    junit: junitOf(results),
  });
  if (unparsed) return 2;
  return failed ? 1 : 0;
}

const STATUSES = ['passed', 'failed', 'unparsed', 'error'] as const;

/** The reference command's report.html: one row per test. */
function referenceHtml(results: readonly LitmusResult[], started: Date): string {
  const counts = statusCounts(results, STATUSES);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const rows = results
    .map(
      (r) =>
        `<tr class="${r.status}"><td>${esc(r.file)}</td><td>${esc(r.name)}</td><td>${r.status}</td><td>${r.word ?? ''}</td><td>${esc(r.axioms ?? (r.problems ?? []).join('; '))}</td><td>${esc(r.intent?.text ?? '')}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html><meta charset="utf-8"><title>litmus report</title><style>body{font-family:sans-serif}td{padding:2px 8px;border-bottom:1px solid #ddd}.failed,.error,.unparsed{background:#fdd}</style><h1>Litmus tests under the PTX memory model</h1><p>${counts.tests} tests: ${counts.passed} passed, ${counts.failed} failed (intent disagrees), ${counts.unparsed} unparsed, ${counts.error} errors. Started ${started.toISOString()}.</p><table><tr><th>file</th><th>test</th><th>status</th><th>verdict</th><th>axiom</th><th>intent</th></tr>\n${rows}\n</table>\n`;
}

/** The reference command's JUnit suite: a disagreeing intent a failure, a file that does not parse or a test the model could not judge an error. */
function junitOf(results: readonly LitmusResult[]): Parameters<typeof writeLitmusReports>[2]['junit'] {
  const counts = statusCounts(results, STATUSES);
  const cases = results.map((r) => ({
    name: r.file,
    seconds: (r.ms ?? 0) / 1000,
    body:
      r.status === 'passed'
        ? ''
        : r.status === 'failed'
          ? `<failure message="${xmlText(`intent ${r.intent!.verdict}, model ${r.word}`)}">${xmlText(r.intent!.text)}</failure>`
          : `<error message="${xmlText(r.status)}">${xmlText((r.problems ?? []).join('\n'))}</error>`,
  }));
  return { suite: 'litmus', failures: counts.failed, errors: counts.error + counts.unparsed, cases };
}
