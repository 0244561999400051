/**
 * The litmus reader (harness/memory-model/extended.ts, the one parser; Dat3M's syntax is a subset of
 * the language) on wrong input in Dat3M's syntax: each problem is located at file:line:col and says
 * what to write instead; a good test parses with none.
 */
import { describe, expect, it } from 'vitest';
import { parseLitmus } from '../../harness/memory-model/index.js';

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
    const r = parseLitmus(good, 'mp.litmus');
    expect(r.problems).toEqual([]);
    expect(r.test).toBeDefined();
  });
  it.each([
    [
      'an unknown instruction',
      good.replace('ld.acquire.gpu r0, y', 'ldx.acquire.gpu r0, y'),
      6,
      /'ldx\.acquire\.gpu' is not an instruction of the litmus language; see docs\/litmus\.md/,
    ],
    ['no PTX header', good.replace('PTX MP', 'XYZ MP'), 1, /a litmus test starts with "PTX <name>" \(Dat3M's header\); found 'XYZ MP'/],
    [
      'a broken final condition',
      good.replace('exists (P1:r0 == 1 /\\ P1:r1 == 0)', 'exists (P1:r0 == )'),
      8,
      /'\)' is not a value: write an integer \(42, -1, 0x7f\) or a float with its type/,
    ],
    [
      'a row with another number of columns than the header',
      good.replace(' P0@cta 0,gpu 0      | P1@cta 1,gpu 0        ;', ' P0@cta 0,gpu 0 ;'),
      6,
      /this row has 2 columns; the header names 1 threads/,
    ],
  ])('%s: no test, one located problem saying what to write', (_what, text, line, message) => {
    const r = parseLitmus(text, 'bad.litmus');
    expect(r.test).toBeUndefined();
    expect(r.problems.length).toBeGreaterThan(0);
    expect(r.problems[0]).toMatchObject({ file: 'bad.litmus', line, message: expect.stringMatching(message) });
    expect(r.problems[0]!.col).toBeGreaterThan(0);
  });
});
