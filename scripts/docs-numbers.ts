/**
 * `npm run docs:numbers -- [REPORT_DIR | report.json]`: the figures the documentation quotes, taken
 * from a real run's report, so that they cannot go stale silently.
 *
 * It reads the report (default: the newest `reports/out/<time>/report.json`), writes what it took
 * from it to `docs/numbers.json`, and rewrites the generated regions of the documentation from that
 * file: `docs/numbers.md` (region `run`: the run, the machine and toolchain, catalog entries and
 * cases per family and verdict, ptxas's work, findings, expectations, the report files' sizes) and
 * `README.md` (region `console`: an excerpt of the closing summary). A region lies between
 *
 *   <!-- numbers:begin NAME ... -->  and  <!-- numbers:end NAME -->
 *
 * and is rendered from `docs/numbers.json` alone, so `--check` (and tests/docs/docs.test.ts) can
 * tell whether a region was edited by hand or the JSON changed without the documents following.
 *
 *   npx tsx scripts/docs-numbers.ts [REPORT_DIR | report.json] [--root DIR]
 *   npx tsx scripts/docs-numbers.ts --check [--root DIR]      exit 1 when a region is not what the script writes
 *
 * Figures a report cannot hold (how long `npm test` takes, GPU timings) are written by hand in the
 * documents, each with when and where it was measured.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { printSummary } from '../harness/cli/summary.js';
import type { RunReport } from '../harness/report/json.js';
import { loadReport } from '../harness/report/load.js';
import { VERDICTS } from '../harness/report/types.js';
import { registerAllFamilies } from '../harness/families/index.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

/** What the documents quote from one run; docs/numbers.json holds it. */
export interface Figures {
  /** The report the figures come from: path as given, its sha256, and the run's command. */
  readonly source: { readonly report: string; readonly sha256: string; readonly command: string };
  readonly run: {
    readonly startedAt: string;
    readonly elapsedS: number;
    readonly partial: boolean;
    readonly arch: string;
    readonly specEdition: string;
    readonly catalogPtxIsa: string;
    readonly modulePtx: string;
    readonly seed: number;
    readonly backend: string;
    readonly backendReason: string;
  };
  readonly machine: {
    readonly hostname: string;
    readonly platform: string;
    readonly osRelease: string;
    readonly cpu: string;
    readonly cpus: number;
    readonly node: string;
  };
  readonly ptxas: { readonly versionLine: string; readonly maxPtx: string } | null;
  readonly catalogEntries: number;
  /** Per family, catalog entries and cases by verdict (kept results plus the passes only counted), as the console's table. */
  readonly table: readonly {
    readonly family: string;
    readonly what: 'catalog entries' | 'cases';
    readonly verdicts: Readonly<Record<string, number>>;
    readonly total: number;
  }[];
  readonly totals: Readonly<Record<string, number>>;
  readonly resultsKept: number;
  readonly passesCounted: number;
  /** The ptxas backend's own counts (stats), where it ran. */
  readonly ptxasWork: {
    readonly classified: number;
    readonly skipped: number;
    readonly crashes: number;
    readonly calls: number;
    readonly classifyS: number;
  } | null;
  readonly cases: number | null;
  readonly findings: readonly {
    readonly key: string;
    readonly verdict: string;
    readonly count: number;
    readonly subject: string;
    readonly text: string;
    readonly expectation?: string;
    readonly example?: string;
  }[];
  readonly expectations: {
    readonly file: string | null;
    readonly outcomes: readonly { readonly id: string; readonly status: string; readonly matched: number; readonly ran: number; readonly editions?: string }[];
  };
  /** The files of the report's folder, with their sizes in bytes. */
  readonly files: readonly { readonly name: string; readonly bytes: number }[];
  /** The closing summary as the run prints it (printSummary, 100 columns), without the report paths. */
  readonly console: readonly string[];
}

const ROUND = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** The figures of a loaded report; `file` is its path as given, `dirFiles` the files beside it. */
export function figuresOf(report: RunReport, file: string, sha256: string, dirFiles: readonly { name: string; bytes: number }[]): Figures {
  const groups = new Map<string, Record<string, number>>();
  const key = (family: string, cases: boolean) => `${family}\u0000${cases ? 'cases' : 'catalog entries'}`;
  for (const r of report.results) {
    const g = groups.get(key(r.family, r.kind === 'case')) ?? {};
    g[r.verdict] = (g[r.verdict] ?? 0) + 1;
    groups.set(key(r.family, r.kind === 'case'), g);
  }
  let passesCounted = 0;
  for (const [k, n] of Object.entries(report.stats)) {
    const m = /^dropped\.(.+)\.(cases|entries)$/.exec(k);
    if (!m) continue;
    const g = groups.get(key(m[1]!, m[2] === 'cases')) ?? {};
    g.pass = (g.pass ?? 0) + n;
    groups.set(key(m[1]!, m[2] === 'cases'), g);
    passesCounted += n;
  }
  const table = [...groups]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => {
      const [family, what] = k.split('\u0000') as [string, 'catalog entries' | 'cases'];
      const verdicts = Object.fromEntries(VERDICTS.filter((x) => v[x]).map((x) => [x, v[x]!]));
      return { family, what, verdicts, total: Object.values(verdicts).reduce((a, b) => a + b, 0) };
    });
  const totals: Record<string, number> = {};
  for (const row of table) for (const [v, n] of Object.entries(row.verdicts)) totals[v] = (totals[v] ?? 0) + n;
  const lines: string[] = [];
  printSummary({ out: (s) => lines.push(...s.split('\n')), err: () => {}, isTTY: false, columns: 100 }, report, 40, 100);
  while (lines[0] === '') lines.shift();
  const s = report.stats;
  const p = report.toolchain.ptxas;
  return {
    source: { report: file, sha256, command: report.command.join(' ').replace(/ --$/, '') },
    run: {
      startedAt: report.startedAt,
      elapsedS: ROUND(report.elapsedMs / 1000),
      partial: report.partial,
      arch: report.arch,
      specEdition: report.specEdition ?? '9.1',
      catalogPtxIsa: report.catalog.ptxIsa,
      modulePtx: report.modulePtx,
      seed: report.seed,
      backend: report.backend.name,
      backendReason: report.backend.reason,
    },
    machine: { ...report.machine },
    ptxas: p ? { versionLine: p.versionLine, maxPtx: p.maxPtx } : null,
    catalogEntries: report.catalog.entries,
    table,
    totals,
    resultsKept: report.results.length,
    passesCounted,
    ptxasWork:
      s.classified !== undefined
        ? { classified: s.classified, skipped: s.skipped ?? 0, crashes: s.crashes ?? 0, calls: s.ptxasCalls ?? 0, classifyS: ROUND((s.classifyMs ?? 0) / 1000) }
        : null,
    cases: s.cases ?? null,
    findings: report.findings.map((f) => ({
      key: f.key,
      verdict: f.verdict,
      count: f.count,
      subject: f.subject,
      text: f.text,
      ...(f.expectation ? { expectation: f.expectation } : {}),
      ...(f.examples[0] ? { example: f.examples[0] } : {}),
    })),
    expectations: {
      file: report.expectations.file,
      outcomes: report.expectations.outcomes.map((o) => ({
        id: o.id,
        status: o.status,
        matched: o.matched,
        ran: o.ran,
        ...(o.editions ? { editions: o.editions } : {}),
      })),
    },
    files: [...dirFiles].sort((a, b) => (a.name < b.name ? -1 : 1)),
    console: lines,
  };
}

const n = (x: number) => x.toLocaleString('en-US');
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
const cell = (t: string) => t.replace(/\|/g, '\\|');

/** Where the run was measured, in words. */
export function measuredAt(f: Figures): string {
  const m = f.machine;
  return `${f.run.startedAt.slice(0, 10)} on \`${m.hostname}\` (${m.cpus} cores, ${m.cpu}, ${m.platform} ${m.osRelease}, node ${m.node.replace(/^v/, '')})`;
}

/** The body of region `run` of docs/numbers.md. */
function renderRun(f: Figures): string[] {
  const out: string[] = [];
  const verdicts = VERDICTS.filter((v) => f.totals[v]);
  out.push(
    `Measured ${measuredAt(f)}, with \`${f.source.command}\`${f.run.partial ? ' (a partial report)' : ''}.`,
    `Report: \`${f.source.report}\` (sha256 \`${f.source.sha256.slice(0, 16)}…\`).`,
    '',
    '| figure | value |',
    '|---|---|',
    `| target, edition judged against | \`${f.run.arch}\`, PTX ISA ${f.run.specEdition} |`,
    `| backend | \`${f.run.backend}\` |`,
    `| ptxas | ${f.ptxas ? `${f.ptxas.versionLine} (PTX ISA up to ${f.ptxas.maxPtx})` : 'none'} |`,
    `| catalog entries for \`${f.run.arch}\` | ${n(f.catalogEntries)} |`,
  );
  if (f.ptxasWork) {
    const w = f.ptxasWork;
    out.push(
      `| entries ptxas classified | ${n(w.classified)} in ${w.classifyS} s (${n(w.calls)} ptxas calls; ${n(w.crashes)} entries on which ptxas crashed) |`,
      `| entries skipped (PTX ISA newer than ptxas writes, or no target) | ${n(w.skipped)} |`,
    );
  }
  if (f.cases !== null) out.push(`| cases on the reference model (seed ${f.run.seed}) | ${n(f.cases)} |`);
  out.push(
    `| results, all verdicts | ${n(Object.values(f.totals).reduce((a, b) => a + b, 0))}: ${verdicts.map((v) => `${n(f.totals[v]!)} ${v}`).join(', ')} |`,
    `| results kept whole in report.json | ${n(f.resultsKept)} (the other ${n(f.passesCounted)} passes are counted, replayable by id) |`,
    `| findings | ${n(f.findings.length)} |`,
    `| whole run, as the report records it | ${f.run.elapsedS} s |`,
    '',
    '### Results per family and verdict',
    '',
    `| family | what | ${verdicts.join(' | ')} | total |`,
    `|---|---|${verdicts.map(() => '---:|').join('')}---:|`,
  );
  for (const r of f.table)
    out.push(`| ${r.family} | ${r.what} | ${verdicts.map((v) => (r.verdicts[v] ? n(r.verdicts[v]!) : '')).join(' | ')} | ${n(r.total)} |`);
  out.push(`| **all** | | ${verdicts.map((v) => `**${n(f.totals[v]!)}**`).join(' | ')} | **${n(Object.values(f.totals).reduce((a, b) => a + b, 0))}** |`);
  out.push('', '### Report files', '', '| file | size |', '|---|---:|');
  for (const x of f.files) out.push(`| \`${x.name}\` | ${mb(x.bytes)} |`);
  out.push(`| in all | ${mb(f.files.reduce((a, b) => a + b.bytes, 0))} |`);
  if (f.expectations.outcomes.length) {
    out.push('', '### Expectations', '', `From \`${f.expectations.file}\`.`, '', '| expectation | outcome | matched | ran |', '|---|---|---:|---:|');
    for (const o of f.expectations.outcomes)
      out.push(`| \`${o.id}\` | ${o.status}${o.editions ? ` (for ${o.editions})` : ''} | ${n(o.matched)} | ${n(o.ran)} |`);
  }
  out.push(
    '',
    '### Findings',
    '',
    `${f.findings.length} findings, as the console lists them (key, verdict, count, subject, what, an example id).`,
    '',
    '| key | verdict | count | subject | what | example |',
    '|---|---|---:|---|---|---|',
  );
  for (const x of f.findings)
    out.push(
      `| ${x.key} | ${x.verdict} | ${n(x.count)} | ${cell(x.subject)} | ${cell(x.text)}${x.expectation ? ` [\`${x.expectation}\`]` : ''} | ${x.example ? `\`${cell(x.example)}\`` : ''} |`,
    );
  out.push('', '### The closing summary as printed (100 columns)', '', '```', ...f.console, '```');
  return out;
}

/** The body of region `console` of README.md: an excerpt of the closing summary and where the reports went. */
function renderConsole(f: Figures): string[] {
  const c = f.console;
  const tableEnd = c.indexOf('');
  const rows = c.slice(0, tableEnd);
  const pick = [rows[0]!, ...rows.slice(1, 3), '...', rows[rows.length - 1]!];
  const findingsAt = c.findIndex((l) => l.startsWith('findings ('));
  const expAt = c.findIndex((l) => l.startsWith('expectations ('));
  const out = [`\`\`\``, ...pick];
  const counted = c.find((l) => /passes are counted above/.test(l));
  if (counted) out.push('', counted);
  if (findingsAt >= 0) out.push('', ...c.slice(findingsAt, findingsAt + 3), '...');
  if (expAt >= 0) {
    let end = c.indexOf('', expAt);
    if (end < 0) end = c.length;
    out.push('', ...c.slice(expAt, end));
  }
  const dir = 'reports/out/<time>';
  const has = (x: string) => f.files.some((y) => y.name === x);
  out.push('', `report: ${dir}/report.json`, `html:   ${dir}/report.html`, `junit:  ${dir}/junit.xml`);
  if (has('results.jsonl.gz') || has('results.jsonl')) out.push(`stream: ${dir}/${has('results.jsonl.gz') ? 'results.jsonl.gz' : 'results.jsonl'}`);
  out.push('```', `(${f.run.arch}, measured ${f.run.startedAt.slice(0, 10)}; every figure of that run: [docs/numbers.md](docs/numbers.md))`);
  return out;
}

export const REGIONS = [
  { file: join('docs', 'numbers.md'), name: 'run', render: renderRun },
  { file: 'README.md', name: 'console', render: renderConsole },
] as const;

const BEGIN = (name: string) => new RegExp(`^<!-- numbers:begin ${name}\\b[^\\n]*-->\\n`, 'm');
const END = (name: string) => `<!-- numbers:end ${name} -->`;

/** The text between a region's markers, or undefined where the document has no such region. */
export function readRegion(doc: string, name: string): string | undefined {
  const b = BEGIN(name).exec(doc);
  if (!b) return undefined;
  const start = b.index + b[0].length;
  const end = doc.indexOf(END(name), start);
  return end < 0 ? undefined : doc.slice(start, end);
}

/** The document with region `name` holding `body` (a document without the region is an error). */
export function writeRegion(doc: string, name: string, body: string): string {
  const b = BEGIN(name).exec(doc);
  const start = b ? b.index + b[0].length : -1;
  const end = b ? doc.indexOf(END(name), start) : -1;
  if (!b || end < 0) throw new Error(`no region '${name}' (between '<!-- numbers:begin ${name} ... -->' and '${END(name)}')`);
  return doc.slice(0, start) + body + doc.slice(end);
}

export function renderRegion(name: (typeof REGIONS)[number]['name'], f: Figures): string {
  return `${REGIONS.find((r) => r.name === name)!
    .render(f)
    .join('\n')}\n`;
}

/** The regions under `root` that are not what docs/numbers.json renders (empty: all current). */
export function staleRegions(root: string): string[] {
  const f = JSON.parse(readFileSync(join(root, 'docs', 'numbers.json'), 'utf8')) as Figures;
  const stale: string[] = [];
  for (const r of REGIONS) {
    const doc = readFileSync(join(root, r.file), 'utf8');
    const have = readRegion(doc, r.name);
    if (have === undefined) stale.push(`${r.file}: no region '${r.name}'`);
    else if (have !== renderRegion(r.name, f))
      stale.push(`${r.file}: region '${r.name}' differs from what scripts/docs-numbers.ts renders from docs/numbers.json`);
  }
  return stale;
}

/** The report a path names (a folder holding report.json, or the file), else the newest of reports/out/. */
export function findReport(arg: string | undefined, root: string): string {
  if (arg) {
    const p = existsSync(arg) && statSync(arg).isDirectory() ? join(arg, 'report.json') : arg;
    if (!existsSync(p)) throw new Error(`${arg}: no report.json there; give a report folder or its report.json`);
    return p;
  }
  const out = join(root, 'reports', 'out');
  const runs = existsSync(out)
    ? readdirSync(out)
        .filter((d) => existsSync(join(out, d, 'report.json')))
        .sort()
    : [];
  if (!runs.length) throw new Error(`no report under ${out}; run \`npm run conformance\` first, or give a report folder`);
  return join(out, runs.at(-1)!, 'report.json');
}

/** Reads the report, writes docs/numbers.json and every region; returns the figures. */
export async function update(reportFile: string, root: string): Promise<Figures> {
  const report = await loadReport(reportFile);
  const dir = dirname(reportFile);
  const files = readdirSync(dir)
    .filter((x) => statSync(join(dir, x)).isFile() && !x.includes('.tmp-'))
    .map((name) => ({ name, bytes: statSync(join(dir, name)).size }));
  const shown = relative(root, resolve(reportFile));
  const f = figuresOf(report, shown.startsWith('..') ? resolve(reportFile) : shown, createHash('sha256').update(readFileSync(reportFile)).digest('hex'), files);
  writeFileSync(join(root, 'docs', 'numbers.json'), `${JSON.stringify(f, null, 1)}\n`);
  for (const r of REGIONS) {
    const file = join(root, r.file);
    writeFileSync(file, writeRegion(readFileSync(file, 'utf8'), r.name, renderRegion(r.name, f)));
  }
  return f;
}

async function main(argv: readonly string[]): Promise<number> {
  let root = join(import.meta.dirname, '..');
  let check = false;
  let arg: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--check') check = true;
    else if (a === '--root') root = argv[++i] ?? root;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        'npx tsx scripts/docs-numbers.ts [REPORT_DIR | report.json] [--root DIR]   (default: the newest reports/out/<time>/)\nnpx tsx scripts/docs-numbers.ts --check [--root DIR]\n',
      );
      return 0;
    } else if (a.startsWith('--')) {
      process.stderr.write(`docs-numbers: unknown option ${a} (it takes a report, --check and --root DIR)\n`);
      return 2;
    } else arg = a;
  }
  if (check) {
    const stale = staleRegions(root);
    for (const s of stale) process.stderr.write(`${s}; run npm run docs:numbers -- REPORT\n`);
    if (!stale.length)
      process.stdout.write(`the generated regions (${REGIONS.map((r) => `${r.file}#${r.name}`).join(', ')}) are what docs/numbers.json renders\n`);
    return stale.length ? 1 : 0;
  }
  let file: string;
  try {
    file = findReport(arg, root);
  } catch (e) {
    process.stderr.write(`docs-numbers: ${(e as Error).message}\n`);
    return 2;
  }
  const f = await update(file, root);
  process.stdout.write(
    `docs-numbers: ${basename(dirname(file))}/report.json (${f.run.arch}, ${f.catalogEntries} catalog entries, measured ${measuredAt(f)}) -> docs/numbers.json, ${REGIONS.map((r) => `${r.file}#${r.name}`).join(', ')}\n`,
  );
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e: unknown) => {
      process.stderr.write(`docs-numbers: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 3;
    },
  );
}
