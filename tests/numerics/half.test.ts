/**
 * f16 and bf16 add/min/max: every pair of special values, and 10^6 seeded random pairs per format
 * and operation, model against second implementations (exact rationals; for f16 also the
 * @petamoriken/float16 library, for bf16 Math.fround plus integer rounding). `npm run
 * verify:exhaustive` checks all 2^32 pairs.
 */
import { describe, expect, it } from 'vitest';
import { BF16, F16, type FloatFormat, classify } from '../../harness/numerics/formats.js';
import { fastAdder, fastMinMax, lastAdd } from '../../harness/numerics/ops.js';
import { addBf16ViaF32, addF16Library, addRational, minmaxOrder } from './oracles.js';

const SEED = 0x5eed1234;
const RANDOM_PAIRS = 1_000_000;

/** xorshift32, seeded; its seed is printed with any failure. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

/** Zeros, smallest/largest subnormals, smallest/largest normals, one, infinities, NaNs, near-ties. */
function specials(f: FloatFormat): number[] {
  const p = f.fracBits;
  const expMax = (1 << f.expBits) - 1;
  const pos = [
    0,
    1,
    2,
    3,
    (1 << p) - 1,
    1 << p,
    (1 << p) + 1,
    ((expMax - 1) << p) | ((1 << p) - 1),
    ((expMax - 1) << p) | ((1 << p) - 2),
    f.bias << p,
    (f.bias << p) | 1,
    ((f.bias - 1) << p) | ((1 << p) - 1),
    (f.bias + p) << p,
    ((f.bias + p + 1) << p) | 1,
    expMax << p,
    (expMax << p) | 1,
    (expMax << p) | (1 << (p - 1)),
    (expMax << p) | ((1 << p) - 1),
  ];
  return [...pos, ...pos.map((x) => x | (1 << (f.bits - 1)))];
}

const ORACLES: Record<string, (a: number, b: number) => number | null> = { f16: addF16Library, bf16: addBf16ViaF32 };

describe.each([F16, BF16])('$name', (f) => {
  const add = fastAdder(f, false);
  const check = (a: number, b: number, bad: string[]) => {
    const got = add(a, b);
    const nan = lastAdd.nan || classify(f, got) === 'nan';
    for (const [name, want] of [
      ['exact', addRational(f, a, b, false)],
      ['second', ORACLES[f.name]!(a, b)],
    ] as const) {
      const ok = want === null ? nan : !nan && got === want;
      if (!ok && bad.length < 5) bad.push(`${a.toString(16)}+${b.toString(16)}: model ${got.toString(16)}, ${name} ${want?.toString(16)} (seed ${SEED})`);
    }
  };

  it('add: every pair of special values', () => {
    const s = specials(f);
    const bad: string[] = [];
    for (const a of s) for (const b of s) check(a, b, bad);
    expect(bad).toEqual([]);
  });

  it(`add: ${RANDOM_PAIRS} seeded random pairs (seed ${SEED})`, () => {
    const r = rng(SEED);
    const bad: string[] = [];
    for (let i = 0; i < RANDOM_PAIRS; i++) {
      const x = r();
      check(x & 0xffff, x >>> 16, bad);
    }
    expect(bad).toEqual([]);
  });

  it.each(['min', 'max'] as const)(`%s: special pairs and ${RANDOM_PAIRS} seeded random pairs`, (op) => {
    const mm = fastMinMax(f, op);
    const r = rng(SEED ^ (op === 'min' ? 1 : 2));
    const bad: string[] = [];
    const one = (a: number, b: number) => {
      const got = mm(a, b);
      const want = minmaxOrder(f, op, a, b);
      if ((got === -1 ? null : got) !== want && bad.length < 5) bad.push(`${op}(${a.toString(16)}, ${b.toString(16)}): model ${got}, oracle ${want}`);
    };
    const s = specials(f);
    for (const a of s) for (const b of s) one(a, b);
    for (let i = 0; i < RANDOM_PAIRS; i++) {
      const x = r();
      one(x & 0xffff, x >>> 16);
    }
    expect(bad).toEqual([]);
  });
});
