/**
 * The catalog entries a run or `--list` selects: `--filter` and `--kind` applied to the catalog of
 * one target. Enumerates only what the filter can reach (enumerateMatching), which gives exactly
 * the entries of the full enumeration filtered afterwards (tests/catalog/select.test.ts).
 */
import type { Target } from '../arch/targets.js';
import { UsageError } from '../cli/errors.js';
import { compileFilter, compileFilterPrefix } from '../util/filter.js';
import { type CatalogEntry, type EntryKind, enumerateCatalog, enumerateMatching } from './enumerate.js';
import { parseInstruction } from './parse.js';

/**
 * A --filter with its alternatives that spell an instruction in another qualifier order (ptxas
 * accepts any order: `atom.global.f32.add`) put in the canonical order that ids use, and which were.
 * Globs and substrings are left as they are.
 */
export function canonicalFilter(filter: string | undefined): { filter: string | undefined; changed: [string, string][] } {
  if (filter === undefined) return { filter, changed: [] };
  const changed: [string, string][] = [];
  const alts = filter.split(',').map((a) => {
    const t = a.trim();
    if (!t || /[*?]/.test(t) || !t.includes('.')) return a;
    try {
      const p = parseInstruction(t.replace(/\(_\)$/, ''));
      const id = `${p.ptx}${t.endsWith('(_)') ? '(_)' : ''}`;
      if (id !== t && p.ptx.split('.').length === t.replace(/\(_\)$/, '').split('.').length) {
        changed.push([t, id]);
        return id;
      }
    } catch {
      // not a whole instruction: a substring of ids
    }
    return a;
  });
  return { filter: alts.join(','), changed };
}

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
  const all = enumerateCatalog({ target, ptx, neighbours: opts.kinds.includes('neighbour'), isaNeighbours: opts.kinds.includes('isa-neighbour'), spellings: opts.kinds.includes('spelling') });
  const fams = [...new Set(all.map((e) => e.family))].join(', ');
  return new UsageError(
    `--filter '${opts.filter ?? ''}'${opts.kinds.length < 4 ? ` with --kind ${opts.kinds.join(',')}` : ''} selects no entry of the ${target.name} catalog (${all.length} entries). ` +
      `Ids look like 'atom.global.add.f32' or 'red.shared::cta.min.u32'; families: ${fams}. Run with --list to see them.`,
  );
}
