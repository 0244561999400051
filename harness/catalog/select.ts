/**
 * The catalog entries a run or `--list` selects: `--filter` and `--kind` applied to the catalog of
 * one target. Enumerates only what the filter can reach (enumerateMatching), which gives exactly
 * the entries of the full enumeration filtered afterwards (tests/catalog/select.test.ts).
 */
import type { Target } from '../arch/targets.js';
import { UsageError } from '../util/errors.js';
import { compileFilter, compileFilterPrefix, compileFilterPrefixFor, compileFilterWords, idWords } from '../util/filter.js';
import { families } from '../registry/index.js';
import { type CatalogEntry, type EntryKind, type MatchOptions, enumerateMatching, enumerateMatchingAsync } from './enumerate.js';
import { SPELLINGS } from './spelling.js';
import type { FamilyDef } from './types.js';
import { vocabulary } from './vocabulary.js';
import { ParseError, parseInstruction } from './parse.js';
import { cachedCatalogAsync } from './cache.js';

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

const wordsMemo = new WeakMap<FamilyDef, readonly string[]>();

/**
 * Every word (util/filter.ts idWords) an id of the family can hold: its head's, its slots' values, the
 * values an invalid neighbour may take (the vocabulary of every family), a PTX ISA pin's
 * (`@ptx8.0`) and a spelling neighbour's kind (`~reversed`). A test enumerates the catalog and checks that every id's words are among these.
 */
export function familyWords(fam: FamilyDef): readonly string[] {
  const hit = wordsMemo.get(fam);
  if (hit) return hit;
  const w = new Set<string>(idWords(fam.head));
  for (const sl of fam.slots) for (const v of sl.values) for (const x of idWords(v)) w.add(x);
  for (const vs of vocabulary().values()) for (const v of vs) for (const x of idWords(v)) w.add(x);
  for (let d = 0; d <= 9; d++) w.add(`ptx${d}`), w.add(String(d));
  for (const sp of SPELLINGS) for (const x of idWords(sp.kind)) w.add(x); // a spelling neighbour's `~kind`
  const out = Object.freeze([...w]);
  wordsMemo.set(fam, out);
  return out;
}

/**
 * What a filter selects, as enumerateMatching's options: `keep` the ids it matches, prune the walk by
 * its prefix (`viable`), skip the families whose words cannot hold it (`mayHold`) and prune a family's
 * walk by an anchored substring (`viableFor`).
 */
export function filterOptions(filter: string | undefined): Pick<MatchOptions, 'keep' | 'viable' | 'mayHold' | 'viableFor'> {
  const mayHold = compileFilterWords(filter);
  return {
    keep: compileFilter(filter),
    viable: compileFilterPrefix(filter),
    mayHold: (fam) => mayHold(familyWords(fam)),
    viableFor: (fam) => compileFilterPrefixFor(filter, fam.head, familyWords(fam)),
  };
}

/** Selects catalog entries for the options (throws a UsageError when nothing matches). */
export function selectEntries(opts: SelectOptions, target: Target, ptx: string): CatalogEntry[] {
  const sel = enumerateMatching({ target, ptx, kinds: opts.kinds, ...filterOptions(opts.filter) });
  if (!sel.length) throw noMatch(opts, target, ptx);
  return sel;
}

/**
 * selectEntries, giving the event loop a turn now and then (a run's: a signal stops it within
 * moments). The whole catalog (no filter) comes from the catalog cache in `cacheDir` where it holds
 * it (0.3-0.4 s against 3-5 s to enumerate the 67,828 sm_90 entries), else is enumerated and kept
 * there once the caller has given the event loop a turn (encoding it costs 1.5 s).
 */
export async function selectEntriesAsync(opts: SelectOptions, target: Target, ptx: string, cacheDir?: string): Promise<CatalogEntry[]> {
  const enumerate = () => enumerateMatchingAsync({ target, ptx, kinds: opts.kinds, ...filterOptions(opts.filter) });
  const sel = opts.filter
    ? await enumerate()
    : await cachedCatalogAsync(cacheDir, { what: 'select', target: target.name, ptx, kinds: opts.kinds }, enumerate, true);
  if (!sel.length) throw noMatch(opts, target, ptx);
  return sel;
}

/**
 * A filter alternative with a misspelt qualifier (`atom.global.ad.f32`) spelled as the parser's
 * likeliest guess would have it, each unknown qualifier in turn (`atom.global.add.f32`); undefined
 * where it is no instruction or the guesses do not make one.
 */
export function respellFilter(alt: string): string | undefined {
  const t = alt.trim();
  if (/[*?]/.test(t) || !t.includes('.')) return undefined;
  const bb = t.endsWith('(_)') ? '(_)' : '';
  let s = bb ? t.slice(0, -3) : t;
  for (let tries = 0; tries < 4; tries++) {
    try {
      const p = parseInstruction(s);
      return s === (bb ? t.slice(0, -3) : t) ? undefined : `${p.ptx}${bb}`;
    } catch (e) {
      const next = e instanceof ParseError ? e.respelled?.[0] : undefined;
      if (!next) return undefined;
      s = next;
    }
  }
  return undefined;
}

/**
 * " Did you mean 'atom.global.add.f32' (for 'atom.global.ad.f32')?" for the alternatives of a
 * filter with a misspelt qualifier whose respelling `selects` something; '' where there is none.
 */
export function filterGuess(filter: string | undefined, selects: (respelled: string) => boolean = () => true): string {
  const respelled = (filter ?? '').split(',').flatMap((a) => {
    const r = respellFilter(a);
    return r && selects(r) ? [[a.trim(), r] as const] : [];
  });
  return respelled.length ? ` Did you mean ${respelled.map(([a, r]) => `'${r}' (for '${a}')`).join(', ')}?` : '';
}

/**
 * The error for an empty selection: the families, and a respelling of a misspelt qualifier where
 * the respelled filter selects something (asked of the pruned enumeration, not the whole catalog).
 */
function noMatch(opts: SelectOptions, target: Target, ptx: string): UsageError {
  const fams = families()
    .map((f) => f.id)
    .join(', ');
  const guess = filterGuess(opts.filter, (r) => enumerateMatching({ target, ptx, kinds: opts.kinds, ...filterOptions(r) }).length > 0);
  return new UsageError(
    `--filter '${opts.filter ?? ''}'${opts.kinds.length < 4 ? ` with --kind ${opts.kinds.join(',')}` : ''} selects no entry of the ${target.name} catalog.${guess} ` +
      `Ids look like 'atom.global.add.f32' or 'red.shared::cta.min.u32'; families: ${fams}. Run with --list to see them.`,
  );
}
