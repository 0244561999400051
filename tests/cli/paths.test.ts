/**
 * Paths are the user's: `npm run conformance` runs the CLI in the package root and names the
 * directory npm was run from in INIT_CWD; a user's relative path (a litmus file, --vectors,
 * --report) resolves there, the harness's own defaults (cases/litmus, reports/out) in the package
 * root, and a case id printed from there replays from there. Spawned as npm spawns it (cwd the
 * package root, INIT_CWD the user's folder), and from a folder of its own without INIT_CWD.
 * An input that holds nothing (an empty vector file, a folder with no litmus test) is named.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tsxImport } from '../../harness/util/paths.js';
import { ROOT } from '../helpers/cli.js';

const MAIN = join(ROOT, 'harness', 'cli', 'main.ts');
const LITMUS = 'MP+atom.release+atom.acquire.gpu';
const user = realpathSync(mkdtempSync(join(tmpdir(), 'ptxconf-user-dir-')));
const sub = join(user, 'sub');
mkdirSync(join(sub, 'nothing-here'), { recursive: true });
copyFileSync(join(ROOT, 'cases', 'litmus', `${LITMUS}.litmus`), join(sub, 'mp.litmus'));
writeFileSync(join(sub, 'v.jsonl'), '{"instruction": "atom.global.add.f32"}\n{"name": "one", "memory": ["0x3f800000"], "operands": {"b": ["0x3f800000"]}}\n');
writeFileSync(join(sub, 'empty.jsonl'), '');
const madeInRoot: string[] = [];
afterAll(() => {
  rmSync(user, { recursive: true, force: true });
  for (const d of madeInRoot) rmSync(d, { recursive: true, force: true });
});

/** The CLI as `npm run conformance` starts it from `from` (cwd the package root, INIT_CWD `from`), or in `from` itself without INIT_CWD. */
function cli(args: string[], from: string, how: 'npm' | 'own'): { code: number | null; out: string; err: string } {
  const env = { ...process.env };
  delete env.INIT_CWD;
  if (how === 'npm') env.INIT_CWD = from;
  // tsx by its file: a bare 'tsx' is looked up from the child's directory, which may be outside the package
  const r = spawnSync(process.execPath, [...tsxImport(), MAIN, ...args], { cwd: how === 'npm' ? ROOT : from, env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The report.json path a command printed. */
const reportOf = (out: string) => /^report: (.*report\.json)/m.exec(out)?.[1];

describe('run through npm from a folder of the user (INIT_CWD)', () => {
  it("finds a litmus file named relative to it; the default report goes to the package's reports/out", () => {
    const r = cli(['litmus', 'mp.litmus'], sub, 'npm');
    expect(r.err).not.toContain('no such file');
    expect(r.code).toBe(0);
    const report = reportOf(r.out + r.err)!;
    expect(report).toBeDefined();
    madeInRoot.push(dirname(report));
    expect(dirname(dirname(report))).toBe(join(ROOT, 'reports', 'out'));
    expect(existsSync(report)).toBe(true);
  });

  it('reads --vectors and writes --report relative to it; the printed case id replays from there', () => {
    const r = cli(['--vectors', 'v.jsonl', '--backend', 'reference', '--report', 'rep'], sub, 'npm');
    expect(r.code).toBe(0);
    expect(reportOf(r.out + r.err)).toBe(join(sub, 'rep', 'report.json'));
    expect(existsSync(join(sub, 'rep', 'report.json'))).toBe(true);
    const listed = cli(['--list', '--vectors', 'v.jsonl'], sub, 'npm');
    expect(listed.code).toBe(0);
    const id = listed.out.split('\t')[0]!;
    expect(id).toBe('atom.global.add.f32/v.jsonl:one');
    const again = cli(['--case', id, '--vectors', 'v.jsonl', '--backend', 'reference', '--report', 'rep-case'], sub, 'npm');
    expect(again.code).toBe(0);
    expect(existsSync(join(sub, 'rep-case', 'report.json'))).toBe(true);
  });

  it('names an empty vector file as the user wrote it (exit 2)', () => {
    const r = cli(['--vectors', 'empty.jsonl', '--backend', 'reference', '--report', 'rep-empty'], sub, 'npm');
    expect(r.code).toBe(2);
    expect(r.err).toContain('empty.jsonl:1:1: holds no case (empty file)');
  });

  it('names a folder that holds no litmus test, and what it looked for (exit 2)', () => {
    const r = cli(['litmus', 'nothing-here'], sub, 'npm');
    expect(r.code).toBe(2);
    expect(r.err).toContain('nothing-here: the folder holds no litmus test (looked for files named *.litmus');
    expect(r.err).not.toMatch(/^\s+at /m);
  });
});

describe('run in a folder of its own, without INIT_CWD', () => {
  it("finds the user's files there and the package's own litmus tests by default", () => {
    const mine = cli(['litmus', 'mp.litmus', '--report', 'rep-own'], sub, 'own');
    expect(mine.code).toBe(0);
    expect(existsSync(join(sub, 'rep-own', 'report.json'))).toBe(true);
    const listed = cli(['litmus', '--list', '--filter', LITMUS], sub, 'own');
    expect(listed.err).not.toContain('no such file');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`${LITMUS}.litmus\t${LITMUS}`);
  });
});
