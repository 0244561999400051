/**
 * Bit-pattern sources per format: the named edge values the directed library is built from, and
 * fast-check arbitraries in the manner of TestFloat's levels:
 * - level 1: special exponents (zero, subnormal, smallest normals, around 1, largest normals, all
 *   ones) x a few significand patterns (zero, one, half, all ones, all but one);
 * - level 2: every exponent x many more significand patterns (single bits, runs of ones, ties);
 * - random: uniform bit patterns, weighted with level-1 values so specials keep showing up.
 * Arbitraries shrink toward simpler values (toward the start of each list, toward zero bits).
 */
import fc from 'fast-check';
import type { FloatFormat, IntFormat, ScalarFormat } from '../../harness/numerics/formats.js';

export interface Edge {
  readonly name: string;
  readonly bits: bigint;
}

const sgn = (f: { bits: number }) => 1n << BigInt(f.bits - 1);

/** Named edge values of a float format, positive and negative. */
export function floatEdges(f: FloatFormat): Edge[] {
  const p = BigInt(f.fracBits);
  const one = BigInt(f.bias) << p;
  const fracAll = (1n << p) - 1n;
  const expMax = (1n << BigInt(f.expBits)) - 1n;
  const maxFinite = f.nan === 'e4m3' ? (expMax << p) | (fracAll - 1n) : ((expMax - 1n) << p) | fracAll;
  const pos: Edge[] = [
    { name: 'zero', bits: 0n },
    { name: 'smallest-subnormal', bits: 1n },
    { name: 'largest-subnormal', bits: fracAll },
    { name: 'smallest-normal', bits: 1n << p },
    { name: 'one', bits: one },
    { name: 'one-plus-ulp', bits: one | 1n },
    { name: 'half-ulp-of-one', bits: BigInt(f.bias - f.fracBits - 1) << p },
    { name: 'largest-finite', bits: maxFinite },
  ];
  if (f.hasInf) pos.push({ name: 'inf', bits: expMax << p });
  if (f.nan === 'ieee') {
    pos.push({ name: 'qnan', bits: (expMax << p) | (1n << (p - 1n)) });
    pos.push({ name: 'qnan-payload', bits: (expMax << p) | (1n << (p - 1n)) | 1n });
    if (p > 1n) pos.push({ name: 'snan-payload', bits: (expMax << p) | 1n });
  } else pos.push({ name: 'nan', bits: (expMax << p) | fracAll });
  return [...pos, ...pos.map((e) => ({ name: `neg-${e.name}`, bits: e.bits | sgn(f) }))];
}

/** Named edge values of an integer format. */
export function intEdges(f: IntFormat): Edge[] {
  const w = BigInt(f.bits);
  const all = (1n << w) - 1n;
  const out: Edge[] = [
    { name: 'zero', bits: 0n },
    { name: 'one', bits: 1n },
    { name: 'two', bits: 2n },
    { name: 'all-ones', bits: all },
    { name: 'high-bit', bits: 1n << (w - 1n) },
    { name: 'max-signed', bits: (1n << (w - 1n)) - 1n },
    { name: 'alternating', bits: all / 3n },
    { name: 'alternating-inverse', bits: (all / 3n) ^ all },
  ];
  return out;
}

export function edges(f: ScalarFormat): Edge[] {
  return f.kind === 'float' ? floatEdges(f) : intEdges(f);
}

/** Level-1 values: special exponents x a few significands, both signs. */
export function level1(f: ScalarFormat): bigint[] {
  if (f.kind === 'int') return intEdges(f).map((e) => e.bits);
  const p = BigInt(f.fracBits);
  const expMax = (1n << BigInt(f.expBits)) - 1n;
  const exps = [...new Set([0n, 1n, 2n, BigInt(f.bias) - 1n, BigInt(f.bias), BigInt(f.bias) + 1n, expMax - 1n, expMax])];
  const fracAll = (1n << p) - 1n;
  const fracs = [...new Set([0n, 1n, 1n << (p - 1n), fracAll, fracAll - 1n])];
  const out: bigint[] = [];
  for (const s of [0n, sgn(f)]) for (const e of exps) for (const m of fracs) out.push(s | (e << p) | m);
  return out;
}

/** Level-2 values: every exponent x single-bit, run and tie significands, both signs (capped). */
export function level2(f: ScalarFormat): bigint[] {
  if (f.kind === 'int') {
    const w = BigInt(f.bits);
    const out = new Set<bigint>(intEdges(f).map((e) => e.bits));
    for (let i = 0n; i < w; i++) {
      out.add(1n << i);
      out.add((1n << i) - 1n);
      out.add(((1n << w) - 1n) ^ (1n << i));
    }
    return [...out];
  }
  const p = BigInt(f.fracBits);
  const expMax = (1n << BigInt(f.expBits)) - 1n;
  const fracs = new Set<bigint>([0n, (1n << p) - 1n]);
  for (let i = 0n; i < p; i++) {
    fracs.add(1n << i);
    fracs.add((1n << i) - 1n);
    fracs.add(((1n << p) - 1n) ^ ((1n << i) - 1n));
  }
  const step = expMax > 64n ? expMax / 64n : 1n;
  const out: bigint[] = [];
  for (const s of [0n, sgn(f)]) for (let e = 0n; e <= expMax; e += e < 3n || e > expMax - 3n ? 1n : step) for (const m of fracs) out.push(s | (e << p) | m);
  return out;
}

export type Level = 1 | 2 | 3;
export const LEVELS: Readonly<Record<Level, string>> = {
  1: 'level 1: special exponents x 5 significand patterns',
  2: 'level 2: exponents x single bits, runs and ties',
  3: 'random: uniform bits weighted with level-1 values',
};

/**
 * An arbitrary of bit patterns of `f` at a level; shrinks toward the first values and zero bits. Made
 * once per format and level: an arbitrary is immutable (what it generates depends on the random
 * source alone), and building the level-2 list is most of a GPU worker's case making.
 */
export function bitsArbitrary(f: ScalarFormat, level: Level): fc.Arbitrary<bigint> {
  const key = `${JSON.stringify(f, (_, x) => (typeof x === 'bigint' ? `${x}n` : x))}/${level}`;
  let a = madeArbitraries.get(key);
  if (!a) madeArbitraries.set(key, (a = makeBitsArbitrary(f, level)));
  return a;
}
const madeArbitraries = new Map<string, fc.Arbitrary<bigint>>();

function makeBitsArbitrary(f: ScalarFormat, level: Level): fc.Arbitrary<bigint> {
  if (level === 1) return fc.constantFrom(...level1(f));
  if (level === 2) return fc.constantFrom(...level2(f));
  return fc.oneof({ arbitrary: fc.bigInt({ min: 0n, max: (1n << BigInt(f.bits)) - 1n }), weight: 3 }, { arbitrary: fc.constantFrom(...level1(f)), weight: 1 });
}
