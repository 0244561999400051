/**
 * `npm run conformance`: the entry point. `--list` (and a usage error in the options) is answered
 * here with the catalog alone; everything else loads run.ts (backends, cases, comparator, reports)
 * on demand, so that listing does not load the backends (1.2-1.4 s with a --filter on the 2-core
 * machine, 2026-11-28: docs/usage.md).
 *
 * Exit codes: 0 when every result passes or is known, observed or skipped; 1 on mismatches,
 * compile-mismatches, errors or an unexpected pass; 2 on usage or input errors (nothing is run);
 * 130/143 when interrupted (a partial report is written first); 3 on an internal error (likewise).
 *
 * Stdout into a reader that goes away (`--list | head -1`, a run piped into `head`): the harness
 * stops writing to stdout quietly (no EPIPE stack trace). `--list` exits 0, like Unix tools piped
 * into `head`; a run goes on to its end, writes its report and exits with its own code (0, 1, ...),
 * so a pipeline that reads a few lines loses neither; the report's paths go to stderr when stdout is
 * known to be gone by then.
 */
import { pathToFileURL } from 'node:url';
import { registerAllFamilies } from '../families/index.js';
import type { parseOptions } from './args.js';
import type { Io } from './io.js';
import { answerList } from './list.js';
import { stdio } from './stdio.js';
import { enterUserDir } from '../util/paths.js';

/** The process's stdout and stderr; quiet once a reader goes away (stdio.ts). */
const defaultIo: Io = stdio;

/**
 * `--list --vectors PATH`: the cases of the vector files that --filter keeps, one a line (id and
 * instruction), the files validated first (every problem located, exit 2).
 */
async function listVectors(opts: ReturnType<typeof parseOptions>, io: Io): Promise<number> {
  const { streamVectors, validateVectors } = await import('../case-readers/vectors.js');
  const { problemLines } = await import('../case-readers/types.js');
  const { compileFilter } = await import('../util/filter.js');
  const v = await validateVectors(opts.vectors, process.cwd());
  if (v.problems.length) {
    for (const l of problemLines(v.problems)) io.err(l);
    io.err(`${v.problems.length} problem(s) in the vector files; fix them and list again`);
    return 2;
  }
  let n = 0;
  for await (const batch of streamVectors(opts.vectors, process.cwd(), { keep: compileFilter(opts.filter) })) {
    for (const c of batch) io.out(`${c.id}\t${c.variant.ptx}`);
    n += batch.length;
  }
  if (!n && opts.filter) {
    io.err(`error: no case selected by --filter '${opts.filter}' of the ${v.cases} in the vector files; --list without --vectors shows the catalog's variants`);
    return 2;
  }
  io.err(
    `${n} case(s) in ${v.files.length} vector file(s)${opts.filter ? ` selected by --filter '${opts.filter}' of ${v.cases}` : ''}: --list with --vectors lists the files' cases, not the catalog's entries (without --vectors it lists those); replay one with --case ID --vectors PATH`,
  );
  return 0;
}

export async function main(argv: readonly string[], io: Io = defaultIo): Promise<number> {
  // the program is put together here: the core asks harness/registry/ for the families
  registerAllFamilies();
  const listed = await answerList(argv, io, listVectors); // --list: the entries the options select (list.ts); with --vectors, the files' cases
  if (listed !== undefined) return listed;
  const run = await import('./run.js');
  return run.main(argv, io);
}

/**
 * Stops the run as on SIGTERM (a partial report, exit 143) when the process that started it goes
 * away: a supervisor or CI system signals the top process (npm), which may die without passing the
 * signal down (npm's `sh -c` does not), and the harness must not run on as an orphan.
 */
export function watchParent(interval = 500): NodeJS.Timeout {
  const parent = process.ppid;
  const t = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(t);
    process.stderr.write(`the process that started this run (pid ${parent}) is gone: stopping as on SIGTERM\n`);
    process.kill(process.pid, 'SIGTERM');
  }, interval);
  t.unref();
  return t;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // npm runs us in the package root: the user's paths are relative to where they ran npm (paths.ts).
  // Done here, for the process, not in main(): a caller in the same process keeps its own directory.
  enterUserDir();
  watchParent();
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e: unknown) => {
      process.stderr.write(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 3;
    },
  );
}
