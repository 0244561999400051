/**
 * Dat3M's litmus reader (harness/memory-model/dat3m.ts) on wrong input: each problem is located at
 * file:line:col and says what to write instead; a good test parses with none.
 */
import { describe, expect, it } from 'vitest';
import { parseDat3m } from '../../harness/memory-model/index.js';

const good = `PTX MP
{
x=0; y=0; P1:r0=0; P1:r1=0;
}
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0        ;
 st.weak x, 1        | ld.acquire.gpu r0, y  ;
 st.release.gpu y, 1 | ld.weak r1, x         ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
`;

describe("Dat3M's syntax, wrong input", () => {
  it('a good test parses with no problem', () => {
    const r = parseDat3m(good, 'mp.litmus');
    expect(r.problems).toEqual([]);
    expect(r.test).toBeDefined();
  });
  it.each([
    ['an unknown instruction', good.replace('ld.acquire.gpu r0, y', 'ldx.acquire.gpu r0, y'), 6, /unknown instruction 'ldx\.acquire\.gpu'/],
    ['no PTX header', good.replace('PTX MP', 'XYZ MP'), 1, /expected 'PTX <name>' on the first line/],
    ['a broken final condition', good.replace('exists (P1:r0 == 1 /\\ P1:r1 == 0)', 'exists (P1:r0 == )'), 8, /expected 'P0:r0', a location or an integer/],
    ['a row with another number of columns than the header', good.replace(' P0@cta 0,gpu 0      | P1@cta 1,gpu 0        ;', ' P0@cta 0,gpu 0 ;'), 6, /row has 2 columns, the header 1/],
  ])('%s: no test, one located problem saying what to write', (_what, text, line, message) => {
    const r = parseDat3m(text, 'bad.litmus');
    expect(r.test).toBeUndefined();
    expect(r.problems.length).toBeGreaterThan(0);
    expect(r.problems[0]).toMatchObject({ file: 'bad.litmus', line, message: expect.stringMatching(message) });
    expect(r.problems[0]!.col).toBeGreaterThan(0);
  });
});
