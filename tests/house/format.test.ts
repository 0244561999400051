/**
 * One formatter with a fixed line width: every TypeScript file of the project is as prettier
 * (.prettierrc.json: 160 columns) writes it, so `npm run format` changes nothing. Long string
 * literals and comments are what prettier leaves longer. A planted badly formatted file fails.
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const OPTIONS = JSON.parse(readFileSync(join(ROOT, '.prettierrc.json'), 'utf8')) as prettier.Options;

/** The files prettier is asked about: git's TypeScript files that .prettierignore does not leave out. */
function files(): string[] {
  const all = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.cts', '*.mts'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  return all;
}

/** The files whose text is not prettier's. */
export async function unformatted(list: readonly { path: string; text: string }[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of list) if (!(await prettier.check(f.text, { ...OPTIONS, filepath: f.path }))) out.push(f.path);
  return out;
}

describe('one formatter', () => {
  it('every TypeScript file is formatted (npm run format)', async () => {
    const list = files().map((p) => ({ path: p, text: readFileSync(join(ROOT, p), 'utf8') }));
    expect(list.length).toBeGreaterThan(300);
    expect(await unformatted(list)).toEqual([]);
  }, 120_000);
  it('a planted long line and a missing semicolon are found', async () => {
    const long = `export const x = [${Array.from({ length: 40 }, (_, i) => i * 1000).join(', ')}];\n`;
    expect(
      await unformatted([
        { path: 'a.ts', text: long },
        { path: 'b.ts', text: 'export const y = 1\n' },
        { path: 'c.ts', text: 'export const z = 1;\n' },
      ]),
    ).toEqual(['a.ts', 'b.ts']);
  });
});
