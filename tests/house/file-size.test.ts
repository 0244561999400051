/**
 * No file in harness/ over 600 lines, and the main run's module (cli/run.ts) at most 250: a module a
 * reader holds in one sitting (run.ts was 761 lines, and three modules crossed 600 once prettier
 * wrapped their long lines, before they were split). The check counts lines; planted files fail it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const HARNESS = join(import.meta.dirname, '..', '..', 'harness');
const LIMIT = 600;
const LIMITS: Readonly<Record<string, number>> = { 'cli/run.ts': 250 };

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

/** Files over their limit, with their line count. */
export function overLimit(files: readonly { path: string; lines: number }[]): string[] {
  return files.filter((f) => f.lines > (LIMITS[f.path] ?? LIMIT)).map((f) => `${f.path}: ${f.lines} lines (limit ${LIMITS[f.path] ?? LIMIT})`);
}

describe('module size', () => {
  it(`no harness/ file over ${LIMIT} lines; cli/run.ts at most 250`, () => {
    const files = sources(HARNESS).map((p) => ({ path: relative(HARNESS, p).split('\\').join('/'), lines: readFileSync(p, 'utf8').split('\n').length - 1 }));
    expect(files.length).toBeGreaterThan(200);
    expect(overLimit(files)).toEqual([]);
  });
  it('planted files over the limits are named', () => {
    expect(
      overLimit([
        { path: 'a/b.ts', lines: 601 },
        { path: 'a/c.ts', lines: 600 },
        { path: 'cli/run.ts', lines: 251 },
      ]),
    ).toEqual(['a/b.ts: 601 lines (limit 600)', 'cli/run.ts: 251 lines (limit 250)']);
  });
});
