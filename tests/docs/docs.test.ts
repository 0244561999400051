/**
 * The documentation: a README that fits on a page, every option of every `--help`
 * documented under docs/, relative links that resolve, and measured figures that come from a real
 * run through scripts/docs-numbers.ts (docs/numbers.json renders docs/numbers.md and the README's
 * console excerpt exactly). Each check is also shown failing on wrong input.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENTRY_KINDS, USAGE } from '../../harness/cli/args.js';
import { COMMANDS } from '../../harness/cli/commands.js';
import { BACKENDS } from '../../harness/backends/names.js';
import { EDITIONS } from '../../harness/catalog/editions.js';
import { writeReportFiles } from '../../harness/report/recorder.js';
import { type Figures, REGIONS, readRegion, renderRegion, staleRegions, update, writeRegion } from '../../scripts/docs-numbers.js';
import { sampleReport } from '../helpers/sample-report.js';
import { brokenLinks, docFiles, longCells, optionValues, optionsIn, undocumentedCommands, undocumentedOptions, undocumentedValues } from './check.js';

const root = join(import.meta.dirname, '..', '..');
const docsDir = join(root, 'docs');
const docList = readdirSync(docsDir);
const docs = docList
  .filter((f) => f.endsWith('.md'))
  .map((f) => readFileSync(join(docsDir, f), 'utf8'))
  .join('\n');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const cliDir = join(root, 'harness', 'cli');
const cliSources = readdirSync(cliDir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(join(cliDir, f), 'utf8'))
  .join('\n');

const tmp = mkdtempSync(join(tmpdir(), 'docs-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the README', () => {
  it('fits on a page (at most 150 lines)', () => {
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(150);
  });

  it('gives the two set-up commands, the browser set-up step, and links to docs/', () => {
    expect(readme).toContain('npm install && npm run conformance');
    expect(readme).toMatch(/^npm test$/m);
    expect(readme).toContain('npm run setup:browser');
    expect(readme).toContain('(docs/README.md)');
  });
});

describe('every option of every --help is documented in docs/', () => {
  const usage = readFileSync(join(docsDir, 'usage.md'), 'utf8');
  it('npm run conformance -- --help', () => {
    expect(optionsIn(USAGE).length).toBeGreaterThan(5);
    expect(undocumentedOptions(USAGE, docs)).toEqual([]);
  });

  // every command of the table (harness/cli/commands.ts): its --help's options, and a section of docs/usage.md
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s --help', async (name, c) => {
    const text = await c.usage();
    expect(text).toContain(`npm run conformance -- ${name}`);
    expect(undocumentedOptions(text, docs)).toEqual([]);
    expect(undocumentedCommands([name], usage)).toEqual([]);
  });
  it('a command without a section of docs/usage.md is reported', () => {
    expect(undocumentedCommands(['litmus', 'frobnicate'], usage)).toEqual(['frobnicate']);
  });

  it('and every option the CLI modules parse, including those of diff, render, merge and export', () => {
    const opts = optionsIn(cliSources);
    expect(opts).toEqual(expect.arrayContaining(['--fail-on', '--allow-missing', '--format', '--out']));
    expect(undocumentedOptions(cliSources, docs)).toEqual([]);
  });

  it('every --kind, --backend and --spec-edition value', () => {
    const kinds = optionValues(USAGE, '--kind');
    expect(kinds).toEqual([...ENTRY_KINDS]);
    expect(kinds).toContain('spelling');
    const backends = optionValues(USAGE, '--backend');
    expect(backends).toEqual([...BACKENDS]);
    expect(undocumentedValues([...kinds, ...backends, ...EDITIONS], docs)).toEqual([]);
  });

  it('reports an option the docs do not name (a synthetic usage text)', () => {
    const usage = `usage: tool [options]\n  --arch ARCH   target\n  --bogus-option N   not documented anywhere\n  --keep-runs N  kept`;
    expect(optionsIn(usage)).toEqual(['--arch', '--bogus-option', '--keep-runs']);
    expect(undocumentedOptions(usage, docs)).toEqual(['--bogus-option']);
    // a longer option does not document a shorter one, nor the reverse
    expect(undocumentedOptions('  --keep N  x', 'only `--keep-runs` here')).toEqual(['--keep']);
    expect(undocumentedOptions('  --keep-runs N  x', 'only `--keep` here')).toEqual(['--keep-runs']);
    expect(undocumentedValues(['variant', 'bogus-kind'], docs)).toEqual(['bogus-kind']);
    expect(optionValues('  --kind LIST   kinds (default all): a,b,c', '--kind')).toEqual(['a', 'b', 'c']);
  });
});

describe('links', () => {
  it('every relative link in README.md and docs/*.md points to an existing file (and heading)', () => {
    const files = docFiles(root, docList);
    expect(files.length).toBeGreaterThan(10);
    const broken = files.flatMap((f) => brokenLinks(f).map((b) => `${f.slice(root.length + 1)}: ${b}`));
    expect(broken).toEqual([]);
  });

  it('every relative link of the findings pages (reports/findings/README.md and the README of each finding) resolves', () => {
    const fr = join(root, 'reports', 'findings');
    const files = [
      join(fr, 'README.md'),
      ...readdirSync(fr, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(fr, d.name, 'README.md')),
    ];
    expect(files.length).toBeGreaterThan(5);
    const broken = files.flatMap((f) => brokenLinks(f).map((b) => `${f.slice(root.length + 1)}: ${b}`));
    expect(broken).toEqual([]);
  });

  it('reports a link to a missing file and to a missing heading', () => {
    const f = join(docsDir, 'x.md');
    const md =
      '[a](usage.md) [b](nowhere.md) [c](usage.md#verdicts) [d](usage.md#no-such-heading) [e](https://example.com/x) `[f](in-code.md)`\n```\n[g](in-fence.md)\n```\n';
    expect(brokenLinks(f, md)).toEqual(['nowhere.md: no such file or folder', "usage.md#no-such-heading: no heading '#no-such-heading' in usage.md"]);
  });

  it('no table cell is a wall of text (at most 400 characters: longer goes into prose or lists)', () => {
    for (const f of docFiles(root, docList)) expect(longCells(readFileSync(f, 'utf8'), 400), f).toEqual([]);
    expect(longCells(`| a | ${'x'.repeat(401)} |\n`, 400)).toHaveLength(1);
  });
});

describe('numbers come from a real run (scripts/docs-numbers.ts)', () => {
  const figures = JSON.parse(readFileSync(join(docsDir, 'numbers.json'), 'utf8')) as Figures;

  it('docs/numbers.md and the README console excerpt are exactly what docs/numbers.json renders', () => {
    expect(staleRegions(root)).toEqual([]);
  });

  it('docs/numbers.json names the whole run it came from: report and sha256, date, machine, toolchain', () => {
    expect(figures.source.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(figures.source.report).toMatch(/report\.json$/);
    expect(figures.source.command).toMatch(/^npm run conformance\b/);
    expect(figures.run.partial).toBe(false);
    expect(figures.run.startedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(figures.machine.cpus).toBeGreaterThan(0);
    expect(figures.catalogEntries).toBeGreaterThan(10_000);
    expect(figures.table.reduce((a, r) => a + r.total, 0)).toBe(Object.values(figures.totals).reduce((a, b) => a + b, 0));
    const run = readRegion(readFileSync(join(docsDir, 'numbers.md'), 'utf8'), 'run')!;
    expect(run).toContain(figures.source.sha256.slice(0, 16));
    expect(run).toContain(`| catalog entries for \`${figures.run.arch}\` | ${figures.catalogEntries.toLocaleString('en-US')} |`);
  });

  it('a hand edit of a generated figure is caught', () => {
    const copy = join(tmp, 'edited');
    for (const f of ['README.md', 'docs/numbers.md', 'docs/numbers.json']) {
      mkdirSync(join(copy, 'docs'), { recursive: true });
      cpSync(join(root, f), join(copy, f));
    }
    expect(staleRegions(copy)).toEqual([]);
    const md = readFileSync(join(copy, 'docs/numbers.md'), 'utf8');
    const n = figures.catalogEntries.toLocaleString('en-US');
    writeFileSync(join(copy, 'docs/numbers.md'), md.replace(`| ${n} |`, `| ${(figures.catalogEntries + 18).toLocaleString('en-US')} |`));
    expect(staleRegions(copy)).toEqual([expect.stringMatching(/docs\/numbers\.md: region 'run' differs/)]);
    expect(() => writeRegion('no markers here', 'run', 'x')).toThrow(/no region 'run'/);
  });

  it('the script reads a report folder and rewrites every region from it', async () => {
    const dir = join(tmp, 'run');
    writeReportFiles(dir, sampleReport());
    const copy = join(tmp, 'fresh');
    mkdirSync(join(copy, 'docs'), { recursive: true });
    for (const r of REGIONS) writeFileSync(join(copy, r.file), `# x\n\n<!-- numbers:begin ${r.name} -->\nold\n<!-- numbers:end ${r.name} -->\n\ntail\n`);
    const f = await update(join(dir, 'report.json'), copy);
    expect(staleRegions(copy)).toEqual([]);
    expect(f.files.map((x) => x.name)).toEqual(['junit.xml', 'report.html', 'report.json']);
    expect(f.totals.mismatch).toBe(2);
    const md = readFileSync(join(copy, 'docs/numbers.md'), 'utf8');
    expect(md).not.toContain('\nold\n');
    expect(md).toMatch(/\ntail\n$/);
    expect(readRegion(md, 'run')).toBe(renderRegion('run', f));
    expect(readRegion(readFileSync(join(copy, 'README.md'), 'utf8'), 'console')).toContain('report: reports/out/<time>/report.json');
  });
});
