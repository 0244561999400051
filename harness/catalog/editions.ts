/**
 * PTX ISA editions the catalog encodes, and the one a run is judged against (`--spec-edition`).
 * A rule row that carries `editions` holds only in that range (the text changed); a row without it
 * encodes text that is the same in every edition here (9.1 to 9.4; the excerpts ../shared/ptx-spec-newer list what
 * 9.2-9.4 changed for these instructions). The edition is process-wide: the CLI sets it once, and
 * child processes (gpu workers) inherit it through PTXCONF_SPEC_EDITION.
 */
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

/**
 * The edition lives on globalThis, not in this module: a module loaded twice in one process (an ES
 * module and a CommonJS copy, as the stand-in launcher loads it) must see one edition.
 */
const g = globalThis as { __ptxconfSpecEdition?: Edition };
g.__ptxconfSpecEdition ??= (EDITIONS as readonly string[]).includes(process.env.PTXCONF_SPEC_EDITION ?? '') ? (process.env.PTXCONF_SPEC_EDITION as Edition) : NEWEST_EDITION;

/** The edition this process judges against. */
export function specEdition(): Edition {
  return g.__ptxconfSpecEdition!;
}

/** Sets the edition for this process and the processes it starts. */
export function setSpecEdition(e: Edition): void {
  g.__ptxconfSpecEdition = e;
  process.env.PTXCONF_SPEC_EDITION = e;
}

/** Runs `f` judged against `e`, then restores the edition (comparisons across editions). */
export function withEdition<T>(e: Edition, f: () => T): T {
  const was = g.__ptxconfSpecEdition;
  const env = process.env.PTXCONF_SPEC_EDITION;
  setSpecEdition(e);
  try {
    return f();
  } finally {
    g.__ptxconfSpecEdition = was;
    if (env === undefined) delete process.env.PTXCONF_SPEC_EDITION;
    else process.env.PTXCONF_SPEC_EDITION = env;
  }
}
