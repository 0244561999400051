/**
 * `--list` of the catalog: the entries the options select, one a line (id, kind, expectation and
 * why), answered with the catalog alone. main.ts answers `--list` with it (and `--list --vectors`
 * itself); scripts/conformance.cjs runs it from a bundle of its own (list-main.ts), a few modules
 * where the CLI's bundle loads dozens, and starts the CLI only where it does not answer.
 */
import { CATALOG_PTX_ISA, findTarget, modulePtxFor } from '../arch/targets.js';
import { withEdition } from '../catalog/editions.js';
import { selectEntries } from '../catalog/select.js';
import { UsageError } from '../util/errors.js';
import { parseOptions } from './args.js';
import { findCommand } from './commands.js';
import type { Io } from './io.js';

/** The options of a `--list` this answers (with main.ts's listVectors), or undefined: a subcommand's, --help, or options run.ts rejects (it says why, with the usage text). */
export function listOptions(argv: readonly string[]): ReturnType<typeof parseOptions> | undefined {
  // a subcommand (the table in commands.ts) answers --list itself, if it has one
  if (findCommand(argv[0]) || !argv.includes('--list')) return undefined;
  let opts;
  try {
    opts = parseOptions(argv);
  } catch (e) {
    if (e instanceof UsageError) return undefined;
    throw e;
  }
  return opts.list && !opts.help ? opts : undefined;
}

/** The catalog's entries the options select (under the options' edition: the caller's withEdition). */
export function listCatalog(opts: ReturnType<typeof parseOptions>, io: Io): number {
  if (opts.case !== undefined) io.err(`--list lists the catalog's entries; --case ${opts.case} is not listed (run without --list to replay it)`);
  const target = findTarget(opts.arch)!;
  try {
    const entries = selectEntries(opts, target, modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA);
    for (const e of entries) io.out(`${e.id}\t${e.kind}\t${e.expect}${e.expect === 'accept' ? '' : `\t${e.reason}`}`);
    io.err(`${entries.length} entries for ${target.name}`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

/**
 * A `--list` answered under the options' edition: the catalog's (listCatalog), or with --vectors the
 * files' cases by `vectors` (main.ts); undefined where this is no such `--list`, or it names vector
 * files and no `vectors` is given (list-main.ts: the CLI answers it).
 */
export function answerList(
  argv: readonly string[],
  io: Io,
  vectors?: (opts: ReturnType<typeof parseOptions>, io: Io) => Promise<number>,
): number | Promise<number> | undefined {
  const opts = listOptions(argv);
  if (!opts || (opts.vectors.length && !vectors)) return undefined;
  return withEdition(opts.specEdition, () => (opts.vectors.length ? vectors!(opts, io) : listCatalog(opts, io)));
}
