/**
 * Tests drive the CLI in their own process through one helper, tests/helpers/cli.ts (`runCli`:
 * output, extra environment and working directory for the run only), and the stand-in launcher
 * through tests/helpers/standin.ts, which calls it. Twelve test files wrote their own runner
 * before. The check reads the test sources; a planted runner shows that it fails.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const TESTS = join(import.meta.dirname, '..');
const HELPER = 'helpers/cli.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sources(join(dir, d.name)) : /\.(ts|cts|mts)$/.test(d.name) ? [join(dir, d.name)] : []));
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

describe('one CLI test helper', () => {
  it('no test imports the CLI entry but the helper', () => {
    const files = sources(TESTS)
      .map((p) => ({ path: relative(TESTS, p).split('\\').join('/'), text: readFileSync(p, 'utf8') }))
      .filter((f) => f.path !== 'house/one-cli-helper.test.ts'); // its planted lines below
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
