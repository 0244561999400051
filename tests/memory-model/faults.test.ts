/**
 * Planted faults: each ModelFault changes verdicts that the peer suite or this folder's fixtures
 * catch.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judge, parseLitmus, MODEL_FAULTS, type LitmusTest, type ModelFault } from '../../harness/memory-model/index.js';
import { listLitmus } from '../../scripts/peer-litmus.js';
import { peerRoot } from '../helpers/third-party.js';
import { asyncProxyTest, fixture } from './helpers.js';

const root = peerRoot('planted model faults against the Dat3M peer corpus');
const peer: LitmusTest[] = (root ? listLitmus(join(root, 'litmus')) : []).map((f) => parseLitmus(readFileSync(f, 'utf8'), f).test!);
const own: LitmusTest[] = ['MP-cluster-same.litmus', 'MP-cluster-diff.litmus', 'MP-red-fence.litmus', 'MP-atom-fence.litmus'].map(fixture);
own.push(asyncProxyTest(false), asyncProxyTest(true));
const all = [...peer, ...own];
const base = new Map(all.map((t) => [t, judge(t).holds]));

describe('the project fixtures', () => {
  const v = (name: string) => base.get(all.find((t) => t.name === name)!);
  it('MP at .cluster scope: forbidden within one cluster, allowed across two (8.5, 8.7)', () => {
    expect(v('MP-cluster-same')).toBe(false);
    expect(v('MP-cluster-diff')).toBe(true);
  });
  it('8.11.1: red + fence.acquire does not synchronize; atom does', () => {
    expect(v('MP-red-fence')).toBe(true);
    expect(v('MP-atom-fence')).toBe(false);
  });
  it('async proxy: a generic write is not seen by an async read without fence.proxy.async (8.6)', () => {
    expect(v('generic-write-then-async-read')).toBe(true);
    expect(v('generic-write-then-async-read+fence.proxy.async')).toBe(false);
  });
  it('reports the forbidding axiom by its section', () => {
    const j = judge(own[0]!);
    const bad = j.outcomes.find((o) => o.values['P1:r0'] === '1' && o.values['P1:r1'] === '0');
    expect(bad?.allowed).toBe(false);
    expect(bad?.axiom).toBe('8.10.6 Causality');
  });
});

/**
 * Faults no test here catches yet (docs/memory-model.md, "Planted faults"): 8.10.5 is implied by
 * 8.10.6 and 8.10.1 for every morally strong pair these tests hold, and the value domain (values
 * come only from writes some trace performs) keeps thin-air values out before 8.10.4 is asked.
 */
const NOT_CAUGHT: ModelFault[] = ['drop-no-thin-air', 'drop-sc-per-location'];

// caught by the peer corpus and the fixtures together: without the corpus, skipped (peerRoot printed why)
describe.skipIf(!root)('planted faults are caught', () => {
  for (const fault of MODEL_FAULTS) {
    it(fault, () => {
      const changed = all.filter((t) => judge(t, { faults: [fault as ModelFault] }).holds !== base.get(t)).map((t) => t.name);
      if (NOT_CAUGHT.includes(fault)) expect(changed, `${fault} is now caught: move it out of NOT_CAUGHT and update the docs`).toEqual([]);
      else expect(changed.length, `${fault} changed no verdict`).toBeGreaterThan(0);
    });
  }
});
