/**
 * The relation algebra under the chapter-8 model (harness/memory-model/relations.ts): each operation
 * on cases a wrong implementation gets wrong (a closure that stops after one step, a sequence
 * composed the wrong way round, an acyclicity test that misses a self-loop or a cycle behind a
 * chain), across the 32-bit word boundary of a row, and against a plain set-of-pairs reading of
 * every operation on random relations.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EvSet, Rel } from '../../harness/memory-model/relations.js';

const pairsOf = (r: Rel): Array<[number, number]> => {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < r.n; i++) for (const j of r.succ(i)) out.push([i, j]);
  return out;
};
const chain = (n: number) =>
  Rel.pairs(
    n,
    Array.from({ length: n - 1 }, (_, i) => [i, i + 1] as const),
  );

describe('relations', () => {
  it('the transitive closure of a chain relates every earlier event to every later one, and no later to an earlier', () => {
    for (const n of [4, 33, 70]) {
      const c = chain(n).plus();
      expect(c.has(0, n - 1)).toBe(true);
      expect(c.has(1, n - 2)).toBe(true);
      expect(c.has(n - 1, 0)).toBe(false);
      expect(c.has(2, 2)).toBe(false);
      expect(pairsOf(c).length).toBe((n * (n - 1)) / 2);
      const s = chain(n).star();
      expect(s.has(2, 2) && s.has(n - 1, n - 1)).toBe(true);
      expect(pairsOf(s).length).toBe((n * (n + 1)) / 2);
    }
  });

  it('a closure follows edges listed against the order Warshall visits them (3 -> 2 -> 1 -> 0)', () => {
    const r = Rel.pairs(4, [
      [3, 2],
      [2, 1],
      [1, 0],
    ]).plus();
    expect(r.has(3, 0)).toBe(true);
    expect(r.has(0, 3)).toBe(false);
  });

  it('sequence composes left then right, unlike its reverse', () => {
    const a = Rel.pairs(3, [[0, 1]]);
    const b = Rel.pairs(3, [[1, 2]]);
    expect(pairsOf(a.seq(b))).toEqual([[0, 2]]);
    expect(b.seq(a).isEmpty()).toBe(true);
    // across words: 5 -> 40 -> 65
    const c = Rel.pairs(70, [[5, 40]]).seq(Rel.pairs(70, [[40, 65]]));
    expect(pairsOf(c)).toEqual([[5, 65]]);
  });

  it('acyclic: false on a cycle (also one behind a chain, and a self-loop), true on a DAG', () => {
    expect(chain(5).acyclic()).toBe(true);
    expect(chain(5).add(4, 0).acyclic()).toBe(false);
    expect(chain(5).add(4, 2).acyclic()).toBe(false); // 0 -> 1 lead into the cycle 2 -> 3 -> 4 -> 2
    expect(Rel.empty(3).add(1, 1).acyclic()).toBe(false);
    expect(
      Rel.pairs(40, [
        [0, 39],
        [39, 33],
        [33, 0],
      ]).acyclic(),
    ).toBe(false);
    expect(
      Rel.pairs(4, [
        [0, 1],
        [0, 2],
        [1, 3],
        [2, 3],
      ]).acyclic(),
    ).toBe(true);
  });

  it('irreflexive, empty, inverse, restriction, identity and cross product', () => {
    const r = Rel.pairs(35, [
      [0, 1],
      [1, 0],
      [2, 34],
    ]);
    expect(r.irreflexive()).toBe(true);
    expect(r.seq(r).irreflexive()).toBe(false); // 0 -> 1 -> 0
    expect(r.isEmpty()).toBe(false);
    expect(Rel.empty(35).isEmpty()).toBe(true);
    expect(pairsOf(r.inv())).toEqual([
      [0, 1],
      [1, 0],
      [34, 2],
    ]);
    const s = EvSet.of(35, [1, 2]);
    expect(pairsOf(r.restrict(s, undefined))).toEqual([
      [1, 0],
      [2, 34],
    ]);
    expect(pairsOf(r.restrict(undefined, s))).toEqual([[0, 1]]);
    expect(pairsOf(r.restrict(s, s))).toEqual([]);
    expect(pairsOf(Rel.id(s))).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(pairsOf(Rel.cross(EvSet.of(35, [0]), EvSet.of(35, [3, 33])))).toEqual([
      [0, 3],
      [0, 33],
    ]);
    expect(pairsOf(Rel.order(5, [3, 1, 4]))).toEqual([
      [1, 4],
      [3, 1],
      [3, 4],
    ]);
    expect(r.domain().ids()).toEqual([0, 1, 2]);
    expect(EvSet.all(33).ids().length).toBe(33);
    expect(EvSet.all(32).ids().length).toBe(32);
  });

  it('every operation agrees with a set-of-pairs reading on random relations', () => {
    const key = (i: number, j: number) => `${i},${j}`;
    const naive = {
      seq: (n: number, a: Set<string>, b: Set<string>) => {
        const out = new Set<string>();
        for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) if (a.has(key(i, k)) && b.has(key(k, j))) out.add(key(i, j));
        return out;
      },
      plus: (n: number, a: Set<string>) => {
        let c = new Set(a);
        for (;;) {
          const next = new Set([...c, ...naive.seq(n, c, a)]);
          if (next.size === c.size) return c;
          c = next;
        }
      },
    };
    const relArb = fc
      .integer({ min: 1, max: 40 })
      .chain((n) =>
        fc.tuple(
          fc.constant(n),
          fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 2 * n }),
          fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 2 * n }),
          fc.array(fc.nat(n - 1)),
        ),
      );
    fc.assert(
      fc.property(relArb, ([n, pa, pb, ids]) => {
        const a = Rel.pairs(n, pa);
        const b = Rel.pairs(n, pb);
        const A = new Set(pa.map(([i, j]) => key(i, j)));
        const B = new Set(pb.map(([i, j]) => key(i, j)));
        const S = new Set(ids);
        const asSet = (r: Rel) => new Set(pairsOf(r).map(([i, j]) => key(i, j)));
        const sorted = (s: Set<string>) => [...s].sort();
        expect(sorted(asSet(a.or(b)))).toEqual(sorted(new Set([...A, ...B])));
        expect(sorted(asSet(a.and(b)))).toEqual(sorted(new Set([...A].filter((p) => B.has(p)))));
        expect(sorted(asSet(a.minus(b)))).toEqual(sorted(new Set([...A].filter((p) => !B.has(p)))));
        expect(sorted(asSet(a.seq(b)))).toEqual(sorted(naive.seq(n, A, B)));
        expect(sorted(asSet(a.inv()))).toEqual(sorted(new Set(pa.map(([i, j]) => key(j, i)))));
        expect(sorted(asSet(a.restrict(EvSet.of(n, ids), undefined)))).toEqual(sorted(new Set(pa.filter(([i]) => S.has(i)).map(([i, j]) => key(i, j)))));
        const plus = naive.plus(n, A);
        expect(sorted(asSet(a.plus()))).toEqual(sorted(plus));
        const cyclic = [...plus].some((p) => p.split(',')[0] === p.split(',')[1]);
        expect(a.acyclic()).toBe(!cyclic);
        expect(a.irreflexive()).toBe(![...A].some((p) => p.split(',')[0] === p.split(',')[1]));
      }),
      { numRuns: 200, seed: 41 },
    );
  });
});
