/**
 * The package root and the user's directory (harness/util/paths.ts): npm runs the CLI in the
 * package root and says where the user was in INIT_CWD; a program that starts the CLI elsewhere
 * keeps its own directory whatever INIT_CWD it inherited.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, fromRoot, tsxImport, shown, userDir } from '../../harness/util/paths.js';
import { ROOT } from '../helpers/cli.js';

const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'ptxconf-paths-')));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the package root', () => {
  it('is the folder of package.json, wherever the process runs', () => {
    expect(realpathSync(PACKAGE_ROOT)).toBe(realpathSync(ROOT));
    expect(fromRoot('cases', 'litmus')).toBe(join(PACKAGE_ROOT, 'cases', 'litmus'));
    expect(existsSync(fromRoot('cases', 'expectations'))).toBe(true);
  });
  it('leaves an absolute path as it is', () => expect(fromRoot(tmp)).toBe(tmp));
});

describe("the user's directory", () => {
  it('is INIT_CWD when the process runs in the package root (npm moved it there)', () => {
    expect(userDir({ INIT_CWD: tmp }, PACKAGE_ROOT)).toBe(tmp);
  });
  it("is the process's own directory elsewhere, whatever INIT_CWD it inherited", () => {
    expect(userDir({ INIT_CWD: PACKAGE_ROOT }, tmp)).toBe(tmp);
    expect(userDir({ INIT_CWD: join(tmp, 'other') }, tmp)).toBe(tmp);
  });
  it("is the process's directory without INIT_CWD", () => {
    expect(userDir({}, PACKAGE_ROOT)).toBe(PACKAGE_ROOT);
    expect(userDir({}, tmp)).toBe(tmp);
  });
});

describe('a printed path', () => {
  const cwd = process.cwd();
  it('is relative when it lies in the directory, "." for the directory itself', () => {
    expect(shown(join(cwd, 'a', 'b.jsonl'))).toBe(`a${sep}b.jsonl`);
    expect(shown(cwd)).toBe('.');
  });
  it('is absolute outside it (no climb of ../)', () => {
    const outside = join(tmp, 'x.litmus');
    expect(shown(outside)).toBe(outside);
  });
});

describe('tsx for a child process', () => {
  it("names tsx's loader by its file, found from any directory", () => {
    expect(tsxImport()[0]).toBe('--import');
    const url = tsxImport()[1]!;
    expect(url.startsWith('file:')).toBe(true);
    expect(existsSync(fileURLToPath(url))).toBe(true);
  });
});
