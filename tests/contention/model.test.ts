/**
 * The contention model (harness/contention/model.ts) against independent arithmetic: every order of
 * f32 adds computed with Math.fround over all permutations; linearisations built from a chosen
 * order and reconstructed; impossible outcomes rejected; lost updates allowed only under split
 * read/write semantics; per-lane orders of packed forms; cas chains; the order-free test.
 */
import { describe, expect, it } from 'vitest';
import { parseInstruction } from '../../harness/catalog/parse.js';
import { type ContentionCase, MAX_ORDER_N, judgeContention, lanesOf, linearise, orderFree, orderSet, splitSet } from '../../harness/contention/model.js';
import { elementFormat } from '../../harness/numerics/formats.js';

const variant = (ptx: string) => {
  const p = parseInstruction(ptx);
  return { family: p.family.id, q: p.q };
};
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const bits = (x: number) => {
  f32[0] = x;
  return BigInt(u32[0]!);
};
const val = (b: bigint) => {
  u32[0] = Number(b);
  return f32[0]!;
};
function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]));
}
/** Sequential f32 adds in `order` from m0: the returned values (state before each op, by op index) and the final state. */
function run(m0: number, xs: readonly number[], order: readonly number[]) {
  const ret: bigint[] = new Array(xs.length);
  let s = m0;
  for (const i of order) {
    ret[i] = bits(s);
    s = Math.fround(s + xs[i]!);
  }
  return { ret, final: bits(s) };
}
const addCase = (ptx: string, m0: number, xs: readonly number[]): ContentionCase => ({
  variant: variant(ptx),
  memory: [bits(m0)],
  ops: xs.map((x) => ({ b: [bits(x)] })),
});

describe('four f32 adds whose order changes the result (1e8, 1, -1e8, 1 from 0)', () => {
  const xs = [1e8, 1, -1e8, 1];
  const c = addCase('red.global.add.f32', 0, xs);
  const want = new Set(permutations(4).map((o) => run(0, xs, o).final));
  it('the order set is exactly the results of the 24 permutations', () => {
    const [l] = lanesOf(c);
    expect(new Set(orderSet(l!, 4))).toEqual(want);
    expect([...want].map(val).sort((a, b) => a - b)).toEqual([0, 1, 2]);
  });
  it('each allowed final passes; any other value is a mismatch', () => {
    for (const f of want) expect(judgeContention(c, { memory: [f] }, true).verdict).toBe('pass');
    const r = judgeContention(c, { memory: [bits(3)] }, true);
    expect(r.verdict).toBe('mismatch');
    expect(r.reason).toMatch(/final 0x40400000 is not the result of any order of the 4 operations \(3 allowed\)/);
  });
  it("atom: every permutation's returned values reconstruct an order that reproduces them; a returned value off by one ulp is none", () => {
    const a = addCase('atom.global.add.f32', 0, xs);
    const [l] = lanesOf(a);
    for (const o of permutations(4)) {
      const { ret, final } = run(0, xs, o);
      const got = linearise(l!, 4, ret, final)!;
      expect(got).toBeDefined();
      expect(run(0, xs, got)).toEqual({ ret, final });
      const j = judgeContention(a, { memory: [final], returned: ret.map((r) => [r]) }, true);
      expect([j.verdict, j.reason]).toEqual(['pass', `one linearisation: order ${got.join(' ')}`]);
      const bad = [...ret];
      bad[o[2]!] = bad[o[2]!]! + 1n;
      expect(linearise(l!, 4, bad, final)).toBeUndefined();
      expect(judgeContention(a, { memory: [final], returned: bad.map((r) => [r]) }, true).verdict).toBe('mismatch');
    }
  });
});

describe('atomicity and scopes', () => {
  const c = addCase('red.global.add.f32', 0, [1, 1, 1]);
  it('a lost update is not atomic (mismatch, "not atomic") under a scope including everyone, and allowed (observed) under split read/write', () => {
    const [l] = lanesOf(c);
    expect(new Set(orderSet(l!, 3))).toEqual(new Set([bits(3)]));
    expect(new Set(splitSet(l!, 3))).toEqual(new Set([bits(1), bits(2), bits(3)]));
    const full = judgeContention(c, { memory: [bits(2)] }, true);
    expect([full.verdict, full.lostUpdate]).toEqual(['mismatch', true]);
    expect(full.reason).toMatch(/^not atomic: final 0x40000000 is not the result of any order .* a split read\/write interleaving gives it \(an update lost\)/);
    const narrow = judgeContention(c, { memory: [bits(2)] }, false);
    expect([narrow.verdict, narrow.lostUpdate]).toEqual(['observed', true]);
    expect(judgeContention(c, { memory: [bits(3)] }, false).verdict).toBe('pass');
    // 5 is no interleaving of three +1 steps from 0
    expect(judgeContention(c, { memory: [bits(5)] }, false).verdict).toBe('mismatch');
  });
  it('atom under split semantics: reads that returned a stale value are allowed only with the matching final', () => {
    const a = addCase('atom.global.add.f32', 0, [1, 1]);
    // both read 0: each writes 1
    expect(judgeContention(a, { memory: [bits(1)], returned: [[bits(0)], [bits(0)]] }, false).verdict).toBe('observed');
    expect(judgeContention(a, { memory: [bits(2)], returned: [[bits(0)], [bits(0)]] }, false).verdict).toBe('mismatch');
    expect(judgeContention(a, { memory: [bits(2)], returned: [[bits(0)], [bits(1)]] }, true).verdict).toBe('pass');
  });
});

describe('cas, exch, packed and vector forms, large N', () => {
  it('cas.b32 chain: each successful cas returns what the previous wrote; a failed one returns the current value', () => {
    const v = variant('atom.global.cas.b32');
    const c: ContentionCase = {
      variant: v,
      memory: [0n],
      ops: [
        { b: [1n], c: [2n] },
        { b: [0n], c: [1n] },
        { b: [2n], c: [3n] },
        { b: [0n], c: [9n] },
      ],
    };
    // order 1 (0->1), 0 (1->2), 3 (fails at 2), 2 (2->3)
    const j = judgeContention(c, { memory: [3n], returned: [[1n], [0n], [2n], [2n]] }, true);
    expect(j.verdict).toBe('pass');
    expect(j.lanes[0]!.order).toEqual([1, 0, 3, 2]);
    // the value 0 returned twice would need two writes of 0
    expect(judgeContention(c, { memory: [3n], returned: [[1n], [0n], [2n], [0n]] }, true).verdict).toBe('mismatch');
  });
  it('exch.b32: every value written is returned exactly once along the chain', () => {
    const c: ContentionCase = { variant: variant('atom.global.exch.b32'), memory: [7n], ops: [10n, 11n, 12n].map((x) => ({ b: [x] })) };
    expect(judgeContention(c, { memory: [11n], returned: [[7n], [12n], [10n]] }, true).lanes[0]!.order).toEqual([0, 2, 1]);
    expect(judgeContention(c, { memory: [11n], returned: [[7n], [12n], [7n]] }, true).verdict).toBe('mismatch');
  });
  it('packed f16x2: each lane its own order (atomic per scalar element)', () => {
    const v = variant('atom.global.add.noftz.f16x2');
    // lanes: 1.0 and 2.0 (f16 0x3c00, 0x4000) added to 0; lane 0 in order 0,1 and lane 1 in order 1,0
    const pack = (lo: number, hi: number) => BigInt(lo) | (BigInt(hi) << 16n);
    const c: ContentionCase = { variant: v, memory: [0n], ops: [{ b: [pack(0x3c00, 0x3c00)] }, { b: [pack(0x4000, 0x4000)] }] };
    // lane 0: op0 sees 0, op1 sees 1.0 (0x3c00); lane 1: op1 sees 0, op0 sees 2.0 (0x4000); final 3.0 (0x4200) in both
    const j = judgeContention(c, { memory: [pack(0x4200, 0x4200)], returned: [[pack(0, 0x4000)], [pack(0x3c00, 0)]] }, true);
    expect(j.verdict).toBe('pass');
    expect(j.lanes.map((l) => l.order)).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(j.rules.map((r) => r.id)).toContain('contention.per-element');
  });
  it(`more than ${MAX_ORDER_N} operations: only with operands whose every order gives one result`, () => {
    const ones = addCase('red.global.add.f32', 0, new Array(32).fill(1));
    expect(judgeContention(ones, { memory: [bits(32)] }, true).verdict).toBe('pass');
    expect(judgeContention(ones, { memory: [bits(31)] }, true).verdict).toBe('mismatch');
    const mixed = addCase('red.global.add.f32', 0, [1e8, ...new Array(9).fill(1)]);
    expect(() => judgeContention(mixed, { memory: [bits(1e8)] }, true)).toThrow(/every order of 10 operations is not enumerated/);
  });
  it('orderFree: exact partial sums yes; 1e8 + 1, subnormals, infinities, signed zeros in min/max no; integers yes', () => {
    const f = elementFormat('f32');
    expect(orderFree(f, 'add', [0, 1, 2, 3, -5, 0.5].map(bits))).toBe(true);
    expect(orderFree(f, 'add', [1e8, 1].map(bits))).toBe(false);
    expect(orderFree(f, 'add', [bits(1), 1n])).toBe(false);
    expect(orderFree(f, 'add', [bits(Infinity), bits(1)])).toBe(false);
    expect(orderFree(f, 'min', [bits(-0), bits(1)])).toBe(false);
    expect(orderFree(f, 'max', [bits(-3), bits(1)])).toBe(true);
    expect(orderFree(elementFormat('u32'), 'add', [0xffffffffn, 5n])).toBe(true);
  });
});

describe("integer min under contention: the 'falling' operand set (the CUDA C++ lens)", () => {
  const minCase = (m0: bigint, xs: readonly bigint[]): ContentionCase => ({
    variant: variant('red.shared::cluster.min.u64'),
    memory: [m0],
    ops: xs.map((x) => ({ b: [x] })),
  });
  it("'bits' (every operand above the start) cannot show a lost min: every final is the start", () => {
    const c = minCase(0x0fn, [0x11n, 0x22n, 0x44n, 0x88n]);
    expect(judgeContention(c, { memory: [0x0fn] }, true).verdict).toBe('pass');
  });
  it("'falling' shows one: a final above the least operand is a mismatch when atomic, allowed as a split read/write", () => {
    const c = minCase(0xffn, [0x88n, 0x44n, 0x22n, 0x11n]);
    expect(judgeContention(c, { memory: [0x11n] }, true).verdict).toBe('pass');
    // the 0x11 store overwritten by a stale 0x88: an update lost
    const lost = judgeContention(c, { memory: [0x88n] }, true);
    expect(lost.verdict).toBe('mismatch');
    expect(lost.lostUpdate).toBe(true);
  });
});
