/**
 * A wrong --report or --vectors is a plain error and exit 2
 * before any work (before: /proc/x looped at 100% CPU, /sys/x, an existing file and a missing
 * --vectors path ended in exit 3 with a stack trace; a .txt or an empty folder said only "no case
 * selected"); default report folders are never shared by two runs started in the same second (or
 * millisecond). A --report folder that already holds a report is refused (exit 2, naming its files
 * and saying to remove it or pass --overwrite), for the run and for the other commands (before, it
 * was replaced silently); --overwrite writes over it; an empty or new folder is written into.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../harness/util/errors.js';
import { prepareReportDir, pruneRuns, timestampName } from '../../harness/report/dir.js';
import { fromRoot } from '../../harness/util/paths.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-dir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const said: string[] = [];
const say = (l: string) => said.push(l);

describe('prepareReportDir', () => {
  it.skipIf(!existsSync('/proc/self'))('/proc/x: a UsageError at once (a recursive mkdir there loops)', () => {
    const t0 = performance.now();
    expect(() => prepareReportDir('/proc/x', '', new Date(), say)).toThrow(UsageError);
    expect(() => prepareReportDir('/proc/x/y/z', '', new Date(), say)).toThrow(/--report \/proc\/x\/y\/z: .* Name a folder you can write to/);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
  it.skipIf(!existsSync('/sys/kernel'))('/sys/x: a UsageError', () => {
    expect(() => prepareReportDir('/sys/x', '', new Date(), say)).toThrow(UsageError);
  });
  it('an existing file, or a path through one: a UsageError naming it', () => {
    const f = join(dir, 'file');
    writeFileSync(f, 'x');
    expect(() => prepareReportDir(f, '', new Date(), say)).toThrow(/it is a file, not a folder/);
    expect(() => prepareReportDir(join(f, 'sub'), '', new Date(), say)).toThrow(new RegExp(`${f} is a file, not a folder`));
    expect(() => prepareReportDir('  ', '', new Date(), say)).toThrow(/--report needs a folder/);
  });
  it('default folders: two runs started in the same millisecond get two folders', () => {
    const t = new Date('2026-11-22T10:00:00.123Z');
    const a = prepareReportDir(undefined, 'x-', t, say, { base: join(dir, 'out') });
    const b = prepareReportDir(undefined, 'x-', t, say, { base: join(dir, 'out') });
    expect(a).not.toBe(b);
    expect(a.endsWith('x-2026-11-22T10-00-00.123Z')).toBe(true);
    expect(b.endsWith('x-2026-11-22T10-00-00.123Z-2')).toBe(true);
    expect(existsSync(a) && existsSync(b)).toBe(true);
  });
  it('--report naming a folder with a report: refused naming its files; with overwrite the old report goes', () => {
    const d = join(dir, 'named', 'deep');
    expect(prepareReportDir(d, '', new Date(), say)).toBe(d);
    expect(prepareReportDir(d, '', new Date(), say)).toBe(d); // empty: written into
    for (const f of ['report.json', 'results.jsonl', 'results.jsonl.gz', 'hostmem.json.gz']) {
      writeFileSync(join(d, f), '{}');
      expect(() => prepareReportDir(d, '', new Date(), say)).toThrow(
        new RegExp(
          `--report ${d}: the folder already holds a report \\(.*${f.replace(/\./g, '\\.')}.*\\)\\. Remove it, name another folder, or pass --overwrite`,
        ),
      );
    }
    writeFileSync(join(d, 'notes.txt'), 'mine');
    said.length = 0;
    expect(prepareReportDir(d, '', new Date(), say, { overwrite: true })).toBe(d);
    expect(said).toEqual([
      `--report ${d}: --overwrite: the report already there (report.json, results.jsonl, results.jsonl.gz, hostmem.json.gz) removed; writing the new one`,
    ]);
    expect(readdirSync(d)).toEqual(['notes.txt']);
  });
});

describe('the CLI', () => {
  const run = (args: string[]) => runCli(args);
  it('--report at a file: exit 2, a plain message, no stack trace', async () => {
    const f = join(dir, 'plain');
    writeFileSync(f, 'x');
    const r = await run(['--backend', 'reference', '--filter', 'atom.global.add.f32', '--report', f]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/--report .*plain: it is a file, not a folder/);
    expect(r.out).not.toMatch(/\n\s+at /);
  });
  it('--report into a folder holding a report: exit 2 naming it, the report untouched; --overwrite writes a new one', async () => {
    const d = join(dir, 'ci');
    const args = ['--backend', 'reference', '--filter', 'atom.global.add.f32', '--no-cases', '--report', d];
    expect((await run(args)).code).toBe(0);
    const first = readFileSync(join(d, 'report.json'), 'utf8');
    const again = await run(args);
    expect(again.code).toBe(2);
    expect(again.out).toContain(
      `error: --report ${d}: the folder already holds a report (report.json, results.jsonl.gz). Remove it, name another folder, or pass --overwrite to write over it`,
    );
    expect(again.out).not.toMatch(/\n\s+at /);
    expect(readFileSync(join(d, 'report.json'), 'utf8')).toBe(first);
    const over = await run([...args, '--overwrite']);
    expect(over.code).toBe(0);
    expect(JSON.parse(readFileSync(join(d, 'report.json'), 'utf8')).startedAt).not.toBe(JSON.parse(first).startedAt);
  });
  it('litmus --report into a folder holding a report: exit 2 before any test runs; --overwrite writes', async () => {
    const d = join(dir, 'litmus');
    mkdirSync(d);
    writeFileSync(join(d, 'report.json'), '{}');
    const r = await run(['litmus', 'cases/litmus/2+2W+atom.relaxed.litmus', '--report', d]);
    expect(r.code).toBe(2);
    expect(r.out).toContain(`--report ${d}: the folder already holds a report (report.json)`);
    expect(r.out).not.toMatch(/candidate executions/); // refused before judging anything
    expect(readFileSync(join(d, 'report.json'), 'utf8')).toBe('{}');
    const w = await run(['litmus', 'cases/litmus/2+2W+atom.relaxed.litmus', '--report', d, '--overwrite']);
    expect(w.code).not.toBe(2);
    expect(JSON.parse(readFileSync(join(d, 'report.json'), 'utf8')).schema).toBe('ptx-reduction-conformance/litmus-report');
  });
  it('--vectors: a missing path, a .txt, an empty folder: exit 2 naming it', async () => {
    const txt = join(dir, 'cases.txt');
    writeFileSync(txt, 'x');
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    for (const [p, msg] of [
      [join(dir, 'nope.yaml'), /no such file or folder/],
      [txt, /not a vector file; vector files are \*\.yaml, \*\.yml .* or \*\.jsonl/],
      [empty, /the folder holds no vector file/],
    ] as const) {
      const r = await run(['--backend', 'reference', '--vectors', p]);
      expect([p, r.code]).toEqual([p, 2]);
      expect(r.out).toMatch(msg);
      expect(r.out).not.toMatch(/\n\s+at /);
    }
  });
});

describe('runs do not pile up', () => {
  it('pruneRuns keeps the newest N run folders and nothing else is touched', () => {
    const base = join(dir, 'pile');
    mkdirSync(base);
    for (let i = 0; i < 5; i++) {
      const d = join(base, `run-${i}`);
      mkdirSync(d);
      writeFileSync(join(d, i % 2 ? 'report.json' : 'results.jsonl'), '{}');
      utimesSync(d, 1_700_000_000 + i, 1_700_000_000 + i);
    }
    mkdirSync(join(base, 'notes'));
    const gone = pruneRuns(2, base);
    expect(gone.runs.map((g) => g.slice(base.length + 1)).sort()).toEqual(['run-0', 'run-1', 'run-2']);
    expect(readdirSync(base).sort()).toEqual(['notes', 'run-3', 'run-4']);
    expect(pruneRuns(0, base)).toEqual({ runs: [], empty: [] });
  });
  it('pruning also removes the empty timestamp folders earlier versions left; other folders are untouched', () => {
    const base = join(dir, 'empties');
    mkdirSync(base);
    const full = join(base, '2026-11-20T10-00-00.000Z');
    mkdirSync(full);
    writeFileSync(join(full, 'report.json'), '{}');
    const empty = [
      '2026-11-20T09-00-00Z',
      '2026-11-20T09-00-01.123Z',
      '2026-11-20T09-00-01.123Z-2',
      'render-2026-11-20T09-00-02.000Z',
      'merge-2026-11-20T09-00-03.000Z',
    ];
    for (const e of empty) mkdirSync(join(base, e));
    mkdirSync(join(base, 'notes'));
    const gone = pruneRuns(5, base);
    expect(gone.runs).toEqual([]);
    expect(gone.empty.map((g) => g.slice(base.length + 1)).sort()).toEqual([...empty].sort());
    expect(readdirSync(base).sort()).toEqual(['2026-11-20T10-00-00.000Z', 'notes']);
  });
  it('--keep-runs takes a number', async () => {
    const r = await runCli(['--keep-runs', 'many']);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/--keep-runs takes a number of runs/);
  });
});

describe('no empty report folder is left behind', () => {
  // a working directory of its own; the default folders are the package's reports/out/ (util/paths.ts)
  // whatever it is, where other runs may write too: a run's own are those named in its time, new
  const cwd = join(dir, 'cwd');
  mkdirSync(cwd);
  symlinkSync(join(import.meta.dirname, '..', '..', 'cases'), join(cwd, 'cases'));
  const out = fromRoot('reports', 'out');
  const list = () => (existsSync(out) ? readdirSync(out) : []);
  let last = { before: new Set<string>(), from: '', to: '' };
  const runIn = async (args: string[]) => {
    const before = new Set(list());
    const from = timestampName(new Date());
    try {
      return await runCli(args, { cwd });
    } finally {
      last = { before, from, to: `${timestampName(new Date())}~` };
    }
  };
  const folders = () => list().filter((n) => !last.before.has(n) && n >= last.from && n <= last.to);
  afterAll(() => {
    for (const f of folders()) rmSync(join(out, f), { recursive: true, force: true });
  });
  it('a run that stops with exit 2 (a broken vector file) leaves no folder in reports/out/', async () => {
    const bad = join(dir, 'broken.yaml');
    writeFileSync(bad, 'cases:\n  - variant: atom.global.add.u32\n    input: {memory: [0x1\n');
    const r = await runIn(['--backend', 'reference', '--vectors', bad]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/problem\(s\) in the vector files; nothing was run/);
    expect(folders()).toEqual([]);
  });
  it('--backend multicast --plan-only leaves no folder in reports/out/', async () => {
    const r = await runIn(['--backend', 'multicast', '--plan-only', '--filter', 'multimem.ld_reduce.relaxed.sys.global.add.*']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/nothing below is created by --plan-only/);
    expect(folders()).toEqual([]);
  });
  it('a run that writes a report keeps its folder', async () => {
    const r = await runIn(['--backend', 'reference', '--filter', 'atom.global.add.u32']);
    expect(r.code).toBe(0);
    expect(folders()).toHaveLength(1);
    expect(readdirSync(join(out, folders()[0]!))).toContain('report.json');
  });
});
