/**
 * Every qualifier value any family uses, per slot name, plus a few values no family allows. Invalid
 * neighbours take their replacement values from here, and the parser uses it to recognise a value
 * that is real PTX but wrong for the instruction (".acquire" on red) from one that is no PTX at all.
 */
import { families } from '../registry/index.js';

/** Values that exist in PTX for the slot but in none of the catalogued families. */
const FOREIGN: Readonly<Record<string, readonly string[]>> = {
  space: ['local'],
  ss: ['shared::cta'],
  src: ['global'],
};

let cache: Map<string, string[]> | undefined;
let cacheOf: readonly unknown[] | undefined;

/** slot name -> every value ('' included) seen in any family's slot of that name, plus foreign ones. */
export function vocabulary(): Map<string, string[]> {
  const fams = families();
  if (cache && cacheOf === fams) return cache;
  cacheOf = fams;
  const m = new Map<string, Set<string>>();
  for (const f of fams) {
    for (const s of f.slots) {
      if (s.operand || s.descriptor) continue;
      const set = m.get(s.name) ?? new Set<string>(['']);
      for (const v of s.values) set.add(v);
      for (const v of FOREIGN[s.name] ?? []) set.add(v);
      m.set(s.name, set);
    }
  }
  cache = new Map([...m].map(([k, v]) => [k, [...v]]));
  return cache;
}

/** Every non-empty qualifier token known anywhere, for "did you mean" suggestions. */
export function allTokens(): string[] {
  return [...new Set([...vocabulary().values()].flat().filter((v) => v !== ''))].sort();
}
