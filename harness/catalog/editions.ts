/**
 * PTX ISA editions the catalog encodes, and the one a run is judged against (`--spec-edition`).
 * A rule row that carries `editions` holds only in that range (the text changed); a row without it
 * encodes text that is the same in every edition here (9.1 to 9.4; the excerpts ../shared/ptx-spec-newer list what
 * 9.2-9.4 changed for these instructions). The edition travels with the run: the CLI runs each
 * command and run inside `withEdition(e, ...)` (an AsyncLocalStorage context, not a global), and a
 * child process that judges gets it in its spawn environment (childEnv, editionFromEnv).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { UsageError } from '../util/errors.js';

export const EDITIONS = ['9.1', '9.2', '9.3', '9.4'] as const;
export type Edition = (typeof EDITIONS)[number];
/** The newest edition the catalog has: the default. */
export const NEWEST_EDITION: Edition = '9.4';

export interface EditionRange {
  /** First edition whose text says this (default 9.1, the oldest here). */
  readonly from?: Edition;
  /** Last edition whose text says this (default the newest). */
  readonly until?: Edition;
}

const rank = (e: Edition) => EDITIONS.indexOf(e);

export function inEdition(r: EditionRange | undefined, e: Edition): boolean {
  if (!r) return true;
  return rank(e) >= rank(r.from ?? EDITIONS[0]) && rank(e) <= rank(r.until ?? NEWEST_EDITION);
}

/** "9.1-9.3", "9.4", "9.1-9.4" */
export function rangeText(r: EditionRange | undefined): string {
  const from = r?.from ?? EDITIONS[0];
  const until = r?.until ?? NEWEST_EDITION;
  return from === until ? from : `${from}-${until}`;
}

/** Editions as a reader says them: ['9.1','9.2','9.3'] -> "9.1-9.3"; gaps with commas. */
export function editionsText(es: readonly Edition[]): string {
  const sorted = [...es].sort((a, b) => rank(a) - rank(b));
  const runs: Edition[][] = [];
  for (const e of sorted) {
    const last = runs.at(-1);
    if (last && rank(e) === rank(last.at(-1)!) + 1) last.push(e);
    else runs.push([e]);
  }
  return runs.map((r) => (r.length > 1 ? `${r[0]}-${r.at(-1)}` : r[0]!)).join(', ');
}

export function parseEdition(text: string, what = '--spec-edition'): Edition {
  if ((EDITIONS as readonly string[]).includes(text)) return text as Edition;
  throw new UsageError(`${what} '${text}': the catalog has PTX ISA editions ${EDITIONS.join(', ')} (default ${NEWEST_EDITION}, the newest)`);
}

/** An edition range in an expectations file or a table: "9.1-9.3", "9.4", "9.2-". */
export function parseRange(text: string): EditionRange | undefined {
  const m = /^\s*(\d+\.\d+)?\s*(-)?\s*(\d+\.\d+)?\s*$/.exec(text);
  if (!m || (!m[1] && !m[3])) return undefined;
  const ok = (x: string | undefined) => x === undefined || (EDITIONS as readonly string[]).includes(x);
  if (!ok(m[1]) || !ok(m[3])) return undefined;
  if (!m[2]) return m[1] ? { from: m[1] as Edition, until: m[1] as Edition } : undefined;
  return { ...(m[1] ? { from: m[1] as Edition } : {}), ...(m[3] ? { until: m[3] as Edition } : {}) };
}

/** The environment variable that gives a child process (a gpu worker, an executor) its run's edition. */
export const EDITION_ENV = 'PTXCONF_SPEC_EDITION';

/**
 * In a child process: the edition its parent gave it in EDITION_ENV (set in the child's spawn
 * environment by childEnv, never in the parent's own), else the newest.
 */
export function editionFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): Edition {
  const e = env[EDITION_ENV];
  return e !== undefined && (EDITIONS as readonly string[]).includes(e) ? (e as Edition) : NEWEST_EDITION;
}

/** The process's own edition: its parent's (a child), else the newest. Read once; never written. */
const processEdition = editionFromEnv();

/**
 * The run's context: the edition `withEdition` set around the code running now (and everything it
 * awaits or starts), so that two runs in one process, or a comparison across editions, each see
 * their own; there is no process-wide setting.
 */
const context = new AsyncLocalStorage<Edition>();

/** The edition the code running now is judged against: its run's (withEdition), else the process's. */
export function specEdition(): Edition {
  return context.getStore() ?? processEdition;
}

/** Runs `f` (and what it awaits and starts) judged against `e`: a run, a command, a comparison across editions. */
export function withEdition<T>(e: Edition, f: () => T): T {
  return context.run(e, f);
}

/**
 * For a test framework's hooks only (tests/helpers/spec.ts `judgedAgainst`): what runs after it in
 * this asynchronous context is judged against `e` (undefined: the process's edition again). The
 * harness itself scopes runs with withEdition; tests/house/one-definition.test.ts holds it to that.
 */
export function enterEdition(e: Edition | undefined): void {
  context.enterWith(e as Edition);
}

/** The environment of a child process that judges for this run: this process's, with the run's edition. */
export function childEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return { ...process.env, [EDITION_ENV]: specEdition(), ...extra };
}
