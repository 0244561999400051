/**
 * The edition travels with the run (catalog/editions.ts): withEdition scopes it to what runs inside,
 * awaits included, so two runs in one process judged against different editions each see their own
 * while they interleave, and a child process is handed the run's edition in its environment. A
 * process-wide setting (what stood here: globalThis and process.env) fails the interleaving test.
 */
import { describe, expect, it } from 'vitest';
import { EDITION_ENV, NEWEST_EDITION, childEnv, editionFromEnv, specEdition, withEdition } from '../../harness/catalog/editions.js';
import { judgeObservation } from '../../harness/compare/judge-case.js';

// a kept subnormal sum: flushed by the 9.1-9.3 text, kept by 9.4
const o = {
  id: 'x',
  variant: 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32',
  input: { memory: ['0x00000001'], source: ['0x00000001'] },
  observed: { memory: ['0x00000002'] },
};
const turn = () => new Promise((r) => setTimeout(r, 1));

describe('the edition of a run', () => {
  it('two runs interleaved in one process each judge against their own edition', async () => {
    const run = (e: '9.3' | '9.4') =>
      withEdition(e, async () => {
        const seen: string[] = [];
        for (let i = 0; i < 5; i++) {
          await turn();
          seen.push(`${specEdition()} ${judgeObservation(o).verdict}`);
        }
        return seen;
      });
    const [a, b] = await Promise.all([run('9.3'), run('9.4')]);
    expect(a).toEqual(Array(5).fill('9.3 mismatch'));
    expect(b).toEqual(Array(5).fill('9.4 pass'));
    // and outside both: the process's edition
    expect(specEdition()).toBe(editionFromEnv());
  });
  it('a child is handed the run edition in its environment; the process environment is not written', () => {
    const before = process.env[EDITION_ENV];
    const env = withEdition('9.2', () => childEnv({ X: '1' }));
    expect(env[EDITION_ENV]).toBe('9.2');
    expect(env.X).toBe('1');
    expect(editionFromEnv(env)).toBe('9.2');
    expect(process.env[EDITION_ENV]).toBe(before);
    expect(editionFromEnv({ [EDITION_ENV]: '7.0' })).toBe(NEWEST_EDITION);
  });
});
