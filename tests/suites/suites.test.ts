/**
 * `npm test` + `npm run test:long` run every test file, each exactly once: the files vitest itself
 * selects under vitest.config.ts and vitest.long.config.ts (`vitest list --filesOnly`), against
 * every tests/**\/*.test.ts on disk. suiteProblems is the check; it is shown to fail on a file in
 * both suites, in neither, and on a long-suite name with no file.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONG_TEST_FILES } from './long.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** What is wrong with a split of `all` into `quick` and `long` (empty: each file in exactly one). */
export function suiteProblems(all: readonly string[], quick: readonly string[], long: readonly string[], named: readonly string[]): string[] {
  const out: string[] = [];
  const q = new Set(quick);
  const l = new Set(long);
  for (const f of all) {
    if (q.has(f) && l.has(f)) out.push(`${f}: in both npm test and npm run test:long`);
    if (!q.has(f) && !l.has(f)) out.push(`${f}: in neither npm test nor npm run test:long`);
  }
  const known = new Set(all);
  for (const f of [...quick, ...long]) if (!known.has(f)) out.push(`${f}: run by a suite but not a tests/**/*.test.ts file`);
  for (const f of named) if (!known.has(f)) out.push(`${f}: named in tests/suites/long.ts but no such test file`);
  return out;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.test.ts'))
    .map((d) => relative(ROOT, join(d.parentPath, d.name)))
    .filter((f) => !f.split('/').includes('node_modules'))
    .sort();
}

function listed(config: string): string[] {
  const out = execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'list', '--filesOnly', '--json', '--config', config], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  return (JSON.parse(out.slice(out.indexOf('['))) as { file: string }[]).map((x) => relative(ROOT, x.file)).sort();
}

describe('the two test suites', () => {
  it('every test file is in exactly one of npm test and npm run test:long, as vitest resolves them', () => {
    const all = testFiles(join(ROOT, 'tests'));
    const quick = listed('vitest.config.ts');
    const long = listed('vitest.long.config.ts');
    expect(suiteProblems(all, quick, long, LONG_TEST_FILES)).toEqual([]);
    expect(long.length).toBe(LONG_TEST_FILES.length);
    expect(quick.length + long.length).toBe(all.length);
  }, 120_000);

  it('the check fails on a file in both, in neither, and on a long name without a file', () => {
    const all = ['tests/a.test.ts', 'tests/b.test.ts', 'tests/c.test.ts'];
    expect(suiteProblems(all, ['tests/a.test.ts', 'tests/b.test.ts'], ['tests/c.test.ts'], ['tests/c.test.ts'])).toEqual([]);
    expect(suiteProblems(all, ['tests/a.test.ts', 'tests/b.test.ts'], ['tests/b.test.ts', 'tests/c.test.ts'], [])).toEqual([
      'tests/b.test.ts: in both npm test and npm run test:long',
    ]);
    expect(suiteProblems(all, ['tests/a.test.ts'], ['tests/c.test.ts'], [])).toEqual(['tests/b.test.ts: in neither npm test nor npm run test:long']);
    expect(suiteProblems(all, ['tests/a.test.ts', 'tests/b.test.ts'], ['tests/c.test.ts'], ['tests/gone.test.ts'])).toEqual([
      'tests/gone.test.ts: named in tests/suites/long.ts but no such test file',
    ]);
  });

  it('.ci/run calls exactly npm test; test:long is its own script', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toBe('tsc --noEmit && vitest run');
    expect(pkg.scripts['test:long']).toBe('vitest run --config vitest.long.config.ts');
  });
});
