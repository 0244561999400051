/**
 * --filter and expectation patterns: a glob is matched without a regular expression (globMatcher),
 * exactly as its regular expression (globRegExp) decides.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFilter, compileFilterPrefix, globMatcher, globRegExp } from '../../harness/util/filter.js';

const chars = fc.constantFrom(...'ab.:/-_*?'.split(''));
const idChars = fc.constantFrom(...'ab.:/-_*?'.split(''));

describe('globs', () => {
  it('fast-check: globMatcher decides as the glob regular expression, on ids made of the glob letters (seed 31)', () => {
    let hits = 0;
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 9 }).map((a) => a.join('')),
        fc.array(idChars, { maxLength: 14 }).map((a) => a.join('')),
        (glob, id) => {
          const want = globRegExp(glob).test(id);
          expect(globMatcher(glob)(id), `${glob} ~ ${id}`).toBe(want);
          if (want) hits++;
        },
      ),
      { numRuns: 20000, seed: 31 },
    );
    expect(hits).toBeGreaterThan(300);
  });

  it('the expectations file shapes', () => {
    const m = compileFilter('*.shared::cluster.and.b64*/contend-cluster-*,*.shared::cluster.max.?64*/contend-cluster-*');
    expect(m('atom.shared::cluster.and.b64/contend-cluster-bits')).toBe(true);
    expect(m('atom.shared::cluster.max.u64.acq_rel/contend-cluster-x')).toBe(true);
    expect(m('atom.shared::cluster.max.u32/contend-cluster-x')).toBe(false);
    expect(m('atom.shared::cluster.and.b64/contend-cta-bits')).toBe(false);
    expect(compileFilter('a?c')('abc')).toBe(true);
    expect(compileFilter('a?c')('abbc')).toBe(false);
    expect(compileFilter('*ab*ab')('xabab')).toBe(true);
    expect(compileFilter('*ab*ab')('xab')).toBe(false);
    expect(compileFilter('ab*ba')('aba')).toBe(false);
  });
});

describe('the name gate (compileFilterNameGate): may an id <prefix><name> match at all', () => {
  const gateOf = async () => (await import('../../harness/util/filter.js')).compileFilterNameGate;

  it('never says no where an id of that prefix and a name matches (fast-check over patterns, prefixes and names)', async () => {
    const gate = await gateOf();
    const ch = fc.constantFrom('a', 't', 'o', 'm', '.', '/', ':', '-', '_', '1', '*', '?', 'c');
    const nameCh = fc.constantFrom('a', 't', '1', '.', '-', '_', 'c', 'm');
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: ch, minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 }),
        fc.string({ unit: ch.filter((c) => c !== '*' && c !== '?'), maxLength: 12 }),
        fc.string({ unit: nameCh, minLength: 1, maxLength: 6 }),
        (alts, prefix, name) => {
          const pattern = alts.join(',');
          if (compileFilter(pattern)(prefix + name)) expect(gate(pattern)(prefix)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('says no for the shipped expectations against a vector file prefix, and yes where a name could match', async () => {
    const gate = await gateOf();
    const prefix = 'atom.global.add.u32/cases.yaml:';
    expect(gate('*.shared::cluster.and.b64*/contend-cluster-*')(prefix)).toBe(false);
    expect(gate('cp.reduce.async.bulk.global.*add.f32*')(prefix)).toBe(false);
    expect(gate('atom.global.add.u32/cases.yaml:case-1?')(prefix)).toBe(true);
    expect(gate('*case-1*')(prefix)).toBe(true); // the name may hold it
    expect(gate('add.u32')(prefix)).toBe(true); // a substring already in the prefix
    expect(gate('contend-cluster')(prefix)).toBe(true); // a substring of name characters: a name could hold it
    expect(gate('/contend-')(prefix)).toBe(false); // needs a '/' after the prefix, which no name has
  });
});

describe('the prefix test (compileFilterPrefix): may an id that starts so match', () => {
  /** Whether some text that starts with `prefix` matches the glob, by brute force (memoised recursion). */
  const viableRef = (glob: string, prefix: string): boolean => {
    const memo = new Map<number, boolean>();
    const f = (i: number, j: number): boolean => {
      if (j === prefix.length) return true; // the rest of the glob matches some text
      if (i === glob.length) return false;
      const k = i * (prefix.length + 1) + j;
      let r = memo.get(k);
      if (r !== undefined) return r;
      const g = glob[i]!;
      r = g === '*' ? f(i + 1, j) || f(i, j + 1) : (g === '?' || g === prefix[j]) && f(i + 1, j + 1);
      memo.set(k, r);
      return r;
    };
    return f(0, 0);
  };
  it('agrees with the brute force on random globs and prefixes (the literal head compared as text, the rest by the automaton)', () => {
    const ch = fc.constantFrom('a', 'b', '.', '*', '?');
    const text = fc.array(fc.constantFrom('a', 'b', '.'), { maxLength: 8 }).map((c) => c.join(''));
    fc.assert(
      fc.property(
        fc.array(ch, { minLength: 1, maxLength: 8 }).map((c) => c.join('')),
        text,
        (glob, prefix) => {
          const g = glob.includes('*') || glob.includes('?') ? glob : `${glob}*`; // a glob alternative (a plain one is a substring)
          expect(compileFilterPrefix(g)(prefix), `${g} / ${prefix}`).toBe(viableRef(g, prefix));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});
