/**
 * The folder a command writes its reports into, checked and created before any work, so that a
 * wrong --report costs nothing and says why (exit 2), instead of failing (or, under /proc, looping)
 * when the results are written. A default folder is named to the millisecond and never shared:
 * a second run started in the same millisecond gets "-2". A folder named by --report that already
 * holds a report (REPORT_FILES) is refused (exit 2) unless --overwrite is given: a CI job that
 * reuses a folder by mistake loses nothing; an empty or new folder is written into. A default folder a run leaves empty (exit 2
 * on bad input, --plan-only, a signal before the first result) is removed when it ends
 * (removeEmptyReportDirs), and pruning removes the empty ones earlier versions left.
 */
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../util/errors.js';
import { fromRoot } from '../util/paths.js';

export function timestampName(d: Date): string {
  return d.toISOString().replace(/[:]/g, '-').replace(/Z$/, 'Z');
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'a read-only file system',
  ENOENT: 'cannot be created there',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'exists and is not a folder',
  ENOSPC: 'no space left on the device',
};

function fail(path: string, what: string): never {
  throw new UsageError(`--report ${path}: ${what}. Name a folder you can write to (or leave --report out: reports/out/<time>/)`);
}

/** Creates `dir` level by level (no recursive mkdir: under /proc that loops), as a UsageError on failure. */
function makeDir(dir: string, shown: string): void {
  const missing: string[] = [];
  let at = dir;
  while (!existsSync(at)) {
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  let st;
  try {
    st = statSync(at);
  } catch (e) {
    fail(shown, REASONS[(e as NodeJS.ErrnoException).code ?? ''] ?? String(e));
  }
  if (!st.isDirectory()) fail(shown, `${at === dir ? 'it' : at} is a file, not a folder`);
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      fail(shown, `${m} ${REASONS[code] ?? `cannot be created (${code || String(e)})`}`);
    }
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    fail(shown, 'the folder is not writable');
  }
}

/** Default folders this process made (prepareReportDir without --report), until removeEmptyReportDirs. */
const claimed = new Set<string>();

/**
 * Removes the default report folders this process made that are still empty (a run that ended
 * before writing anything); a folder with anything in it stays. Returns the folders removed.
 */
export function removeEmptyReportDirs(): string[] {
  const gone: string[] = [];
  for (const d of claimed) {
    claimed.delete(d);
    try {
      rmdirSync(d); // only an empty folder goes
      gone.push(d);
    } catch {
      // not empty, or already gone
    }
  }
  return gone;
}

/** The files whose presence makes a folder hold a report (of any command: run, litmus, lens, hostmem, peer). */
export const REPORT_FILES = ['report.json', 'results.jsonl', 'results.jsonl.gz', 'lens-report.json.gz', 'hostmem.json.gz', 'peer.json.gz'] as const;

/** How prepareReportDir places a folder: `base` of the default ones, and whether an existing report there may be written over. */
export interface ReportDirOptions {
  readonly base?: string;
  readonly overwrite?: boolean;
}

/** A default report folder's name: [prefix-]<ISO time, ':' as '-', with or without ms>Z[-k]. */
const RUN_FOLDER = /^(?:[a-z]+-)?\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?Z(?:-\d+)?$/;

/**
 * The report folder for a command: `requested` (--report), else reports/out/<prefix><time>, made
 * unique. A requested folder holding a report is a UsageError naming its files, unless
 * `overwrite`; then `say` gets a line that it is written over.
 */
export function prepareReportDir(requested: string | undefined, prefix: string, started: Date, say: (line: string) => void, o: ReportDirOptions = {}): string {
  const base = o.base ?? fromRoot('reports', 'out');
  if (requested !== undefined) {
    if (requested.trim() === '') throw new UsageError('--report needs a folder');
    const dir = resolve(requested);
    if (existsSync(dir) && !statSync(dir).isDirectory()) fail(requested, 'it is a file, not a folder');
    const held = REPORT_FILES.filter((f) => existsSync(join(dir, f)));
    if (held.length && !o.overwrite)
      throw new UsageError(
        `--report ${requested}: the folder already holds a report (${held.join(', ')}). Remove it, name another folder, or pass --overwrite to write over it`,
      );
    makeDir(dir, requested);
    if (held.length) {
      // the old report goes first: a run stopped early must not leave its partial results beside the old report.json
      for (const f of [...REPORT_FILES, 'report.html', 'junit.xml']) rmSync(join(dir, f), { force: true });
      say(`--report ${requested}: --overwrite: the report already there (${held.join(', ')}) removed; writing the new one`);
    }
    return dir;
  }
  const name = `${prefix}${timestampName(started)}`;
  const root = resolve(base);
  makeDir(root, base);
  // mkdir is the claim: two runs started in the same millisecond cannot both get one folder
  for (let k = 1; ; k++) {
    const dir = resolve(root, k === 1 ? name : `${name}-${k}`);
    try {
      mkdirSync(dir);
      claimed.add(dir);
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') fail(dir, REASONS[(e as NodeJS.ErrnoException).code ?? ''] ?? String(e));
    }
  }
}

/**
 * Removes the oldest report folders under `base` (folders holding a report.json or results.jsonl,
 * by modification time) so that `keep` remain; 0 keeps all. Also removes the empty folders named
 * like a default report folder (earlier versions left one for every run that stopped before
 * writing), whatever `keep` is; other folders are not touched, nor one this process still holds.
 * Only the default location is pruned; folders named with --report are the user's.
 */
export function pruneRuns(keep: number, base = fromRoot('reports', 'out')): { runs: string[]; empty: string[] } {
  if (!existsSync(base)) return { runs: [], empty: [] };
  const folders = readdirSync(base, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => ({ name: e.name, d: join(base, e.name) }));
  const empty: string[] = [];
  for (const { name, d } of folders) {
    if (!RUN_FOLDER.test(name) || claimed.has(resolve(d))) continue;
    try {
      if (readdirSync(d).length) continue;
      rmdirSync(d); // fails, and keeps it, if a run has just started writing into it
      empty.push(d);
    } catch {
      // gone, or no longer empty
    }
  }
  if (keep <= 0) return { runs: [], empty };
  const runs = folders
    .map((f) => f.d)
    .filter((d) => existsSync(join(d, 'report.json')) || existsSync(join(d, 'results.jsonl')))
    .map((d) => ({ d, t: statSync(d).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  const gone = runs.slice(keep).map((r) => r.d);
  for (const d of gone) rmSync(d, { recursive: true, force: true });
  return { runs: gone, empty };
}
