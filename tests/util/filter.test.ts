/**
 * --filter and expectation patterns: a glob is matched without a regular expression (globMatcher),
 * exactly as its regular expression (globRegExp) decides.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFilter, globMatcher, globRegExp } from '../../harness/util/filter.js';

const chars = fc.constantFrom(...'ab.:/-_*?'.split(''));
const idChars = fc.constantFrom(...'ab.:/-_*?'.split(''));

describe('globs', () => {
  it('fast-check: globMatcher decides as the glob regular expression, on ids made of the glob letters (seed 31)', () => {
    let hits = 0;
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 9 }).map((a) => a.join('')), fc.array(idChars, { maxLength: 14 }).map((a) => a.join('')), (glob, id) => {
        const want = globRegExp(glob).test(id);
        expect(globMatcher(glob)(id), `${glob} ~ ${id}`).toBe(want);
        if (want) hits++;
      }),
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
