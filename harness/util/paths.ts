/**
 * The two directories every path of the harness is relative to, in one place:
 * - the package root, where the harness's own files are (cases/, reports/out, harness/): every
 *   internal default is anchored there (`fromRoot`);
 * - the user's directory, where the user ran the command: every path the user gives resolves there.
 *
 * `npm run conformance` runs the CLI in the package root whatever directory npm was run from, and
 * says that directory in INIT_CWD. The CLI's entry (cli/main.ts) therefore moves the process to the
 * user's directory before anything else (`enterUserDir`), so that a user's relative path, and a path
 * printed relative to process.cwd(), are the user's.
 */
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The package root: two folders above this module where package.json is there (the source tree),
 * else PTXCONF_PACKAGE_ROOT (set by scripts/conformance.cjs for its bundle in .cache/bundle/), else
 * the directory the process started in (a bundle of scripts/gpu/pack.mjs, which sits apart from the
 * package and is run from the folder holding cases/).
 */
export const PACKAGE_ROOT: string = ((up) => (existsSync(join(up, 'package.json')) ? up : (process.env.PTXCONF_PACKAGE_ROOT ?? process.cwd())))(
  resolve(import.meta.dirname, '..', '..'),
);

/** A path inside the package root (an internal default: cases/litmus, reports/out, ...); an absolute one as it is. */
export function fromRoot(...parts: string[]): string {
  return resolve(PACKAGE_ROOT, ...parts);
}

/**
 * A path as printed to the user: relative to the process's directory (the user's, see enterUserDir)
 * when it lies there, else absolute (not a climb of '../' out of it).
 */
export function shown(path: string): string {
  const abs = resolve(path);
  const rel = relative(process.cwd(), abs);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? abs : rel;
}

/** The same directory, symlinks and all (a path that cannot be read compares as itself). */
function sameDir(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return resolve(a) === resolve(b) || real(a) === real(b);
}

/**
 * The user's directory: INIT_CWD when it is set and the process runs in the package root (npm moved
 * it there), else the process's own directory (a program, or a test, that starts the CLI in some
 * other folder with an INIT_CWD inherited from an npm above it).
 */
export function userDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd(), root: string = PACKAGE_ROOT): string {
  const init = env.INIT_CWD;
  return init && sameDir(cwd, root) ? resolve(init) : cwd;
}

/**
 * Moves the process to the user's directory (see userDir), when that is elsewhere and exists;
 * returns the directory the process is in afterwards. Called once, by the CLI's entry.
 */
export function enterUserDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = userDir(env);
  if (dir !== process.cwd() && existsSync(dir)) {
    try {
      process.chdir(dir);
    } catch {
      // a folder that cannot be entered: the paths stay relative to where npm ran us
    }
  }
  return process.cwd();
}

let tsx: readonly string[] | undefined;

/**
 * `--import` of tsx for a child node process that runs TypeScript: the loader's own file, so that
 * it is found whatever directory the child starts in (a bare 'tsx' is looked up from there). Looked
 * up when first asked (a bundle's `--list` starts no child).
 */
export function tsxImport(): readonly string[] {
  if (tsx) return tsx;
  let loader = 'tsx';
  try {
    loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  } catch {
    // not installed where this file is: a bare 'tsx', found from the child's directory if anywhere
  }
  return (tsx = ['--import', loader]);
}
