/**
 * The catalog entries a run or `--list` selects: `--filter` and `--kind` applied to the catalog of
 * one target. Enumerates only what the filter can reach (enumerateMatching), which gives exactly
 * the entries of the full enumeration filtered afterwards (tests/catalog/select.test.ts).
 */
import type { Target } from '../arch/targets.js';
import { UsageError } from '../cli/errors.js';
import { compileFilter, compileFilterPrefix } from '../util/filter.js';
import { type CatalogEntry, type EntryKind, enumerateCatalog, enumerateMatching } from './enumerate.js';

export interface SelectOptions {
  readonly filter?: string;
  readonly kinds: readonly EntryKind[];
}

/** Selects catalog entries for the options (throws a UsageError when nothing matches). */
export function selectEntries(opts: SelectOptions, target: Target, ptx: string): CatalogEntry[] {
  const sel = enumerateMatching({
    target,
    ptx,
    kinds: opts.kinds,
    keep: compileFilter(opts.filter),
    viable: compileFilterPrefix(opts.filter),
  });
  if (!sel.length) throw noMatch(opts, target, ptx);
  return sel;
}

/** The error for an empty selection; counts the whole catalog, which only this path pays for. */
function noMatch(opts: SelectOptions, target: Target, ptx: string): UsageError {
  const all = enumerateCatalog({ target, ptx, neighbours: opts.kinds.includes('neighbour'), isaNeighbours: opts.kinds.includes('isa-neighbour') });
  const fams = [...new Set(all.map((e) => e.family))].join(', ');
  return new UsageError(
    `--filter '${opts.filter ?? ''}'${opts.kinds.length < 3 ? ` with --kind ${opts.kinds.join(',')}` : ''} selects no entry of the ${target.name} catalog (${all.length} entries). ` +
      `Ids look like 'atom.global.add.f32' or 'red.shared::cta.min.u32'; families: ${fams}. Run with --list to see them.`,
  );
}
