/**
 * Tests drive the CLI in their own process through one helper, tests/helpers/cli.ts (`runCli`:
 * output, extra environment and working directory for the run only), and the stand-in launcher
 * through tests/helpers/standin.ts, which calls it; there is one stand-in launcher,
 * tests/fixtures/standin-launcher.cts (its litmus kernels and second device included). Twelve test
 * files wrote their own runner and three files were launchers before. The checks read the test
 * sources; planted copies show that they fail.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const TESTS = join(import.meta.dirname, '..');
const HELPER = 'helpers/cli.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : /\.(ts|cts|mts)$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

/** Files other than the helper that import the CLI's entry (main.ts or run.ts) to call it in-process. */
export function ownRunners(files: readonly { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (f.path === HELPER) continue;
    f.text.split('\n').forEach((line, i) => {
      if (/(?:from|import\()\s*['"][./]*harness\/cli\/(main|run)\.js['"]/.test(line)) out.push(`${f.path}:${i + 1}`);
    });
  }
  return out;
}

const LAUNCHER = 'fixtures/standin-launcher.cts';

/** Files other than the stand-in launcher that implement the launcher's interface (a module with getFunction and launch). */
export function otherLaunchers(files: readonly { path: string; text: string }[]): string[] {
  return files
    .filter(
      (f) => f.path !== LAUNCHER && /\bgetFunction\s*[:(]/.test(f.text) && /\blaunch\s*[:(]/.test(f.text) && /module\.exports|export default/.test(f.text),
    )
    .map((f) => f.path);
}

describe('one stand-in launcher', () => {
  const files = sources(TESTS)
    .map((p) => ({ path: relative(TESTS, p).split('\\').join('/'), text: readFileSync(p, 'utf8') }))
    .filter((f) => f.path !== 'house/test-helpers.test.ts');
  it('only tests/fixtures/standin-launcher.cts is one', () => {
    expect(files.some((f) => f.path === LAUNCHER)).toBe(true);
    expect(otherLaunchers(files)).toEqual([]);
  });
  it('a planted second launcher is found', () => {
    const planted = { path: 'fixtures/peer.cts', text: 'module.exports = { getFunction: () => 1n, launch: () => undefined };' };
    expect(otherLaunchers([...files, planted])).toEqual(['fixtures/peer.cts']);
  });
});

describe('one CLI test helper', () => {
  it('no test imports the CLI entry but the helper', () => {
    const files = sources(TESTS)
      .map((p) => ({ path: relative(TESTS, p).split('\\').join('/'), text: readFileSync(p, 'utf8') }))
      .filter((f) => f.path !== 'house/test-helpers.test.ts'); // its planted lines below
    expect(files.some((f) => f.path === HELPER)).toBe(true);
    expect(ownRunners(files)).toEqual([]);
  });
  it('a planted runner is found, with its file and line', () => {
    expect(
      ownRunners([
        { path: 'cli/x.test.ts', text: "import { a } from 'b';\nimport { main } from '../../harness/cli/main.js';" },
        { path: 'y.test.ts', text: "const { main } = await import('../../harness/cli/run.js');" },
        { path: HELPER, text: "import { main } from '../../harness/cli/main.js';" },
      ]),
    ).toEqual(['cli/x.test.ts:2', 'y.test.ts:1']);
  });
});
