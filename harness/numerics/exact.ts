/**
 * Exact arithmetic on floating-point values as integers: a value is sign x m x 2^e with m a BigInt,
 * decoded straight from the bit fields; a sum is computed exactly and rounded once, to nearest even,
 * with BigInt shifts. Slow and simple. It is the model's f64 path and, for the smaller formats, the
 * independent oracle the fast path (encode.ts) is checked against.
 */
import { type FloatFormat, classify, maxFiniteBits } from './formats.js';

export type ExactValue =
  | { readonly kind: 'finite'; readonly sign: 0 | 1; readonly m: bigint; readonly e: number }
  | { readonly kind: 'inf'; readonly sign: 0 | 1 }
  | { readonly kind: 'nan' };

export function decodeExact(f: FloatFormat, bits: bigint): ExactValue {
  const sign = ((bits >> BigInt(f.bits - 1)) & 1n) === 1n ? 1 : 0;
  const c = classify(f, bits);
  if (c === 'nan') return { kind: 'nan' };
  if (c === 'inf') return { kind: 'inf', sign };
  const frac = bits & ((1n << BigInt(f.fracBits)) - 1n);
  const E = Number((bits >> BigInt(f.fracBits)) & ((1n << BigInt(f.expBits)) - 1n));
  if (c === 'zero') return { kind: 'finite', sign, m: 0n, e: 0 };
  if (c === 'subnormal') return { kind: 'finite', sign, m: frac, e: 1 - f.bias - f.fracBits };
  return { kind: 'finite', sign, m: frac | (1n << BigInt(f.fracBits)), e: E - f.bias - f.fracBits };
}

/** The exact sum; a zero sum of opposite signs is +0 (round to nearest), -0 + -0 is -0. */
export function addExact(a: ExactValue, b: ExactValue): ExactValue {
  if (a.kind === 'nan' || b.kind === 'nan') return { kind: 'nan' };
  if (a.kind === 'inf' && b.kind === 'inf') return a.sign === b.sign ? a : { kind: 'nan' };
  if (a.kind === 'inf') return a;
  if (b.kind === 'inf') return b;
  if (a.m === 0n && b.m === 0n) return { kind: 'finite', sign: a.sign === 1 && b.sign === 1 ? 1 : 0, m: 0n, e: 0 };
  if (a.m === 0n) return b;
  if (b.m === 0n) return a;
  const e = Math.min(a.e, b.e);
  const ma = (a.sign ? -a.m : a.m) << BigInt(a.e - e);
  const mb = (b.sign ? -b.m : b.m) << BigInt(b.e - e);
  const s = ma + mb;
  if (s === 0n) return { kind: 'finite', sign: 0, m: 0n, e: 0 };
  return { kind: 'finite', sign: s < 0n ? 1 : 0, m: s < 0n ? -s : s, e };
}

/** Exact comparison of finite values (for min/max): negative, zero or positive. */
export function compareExact(a: ExactValue & { kind: 'finite' }, b: ExactValue & { kind: 'finite' }): number {
  const d = addExact(a, { ...b, sign: b.sign ? 0 : 1 });
  if (d.kind !== 'finite' || d.m === 0n) return 0;
  return d.sign ? -1 : 1;
}

function bitLength(m: bigint): number {
  return m.toString(2).length;
}

/** What to do when the rounded magnitude exceeds the largest finite value. */
export type Overflow = 'inf' | 'nan' | 'satfinite';

/** IEEE rounding directions: to nearest (ties to even / away), toward zero, up, down. */
export type Rounding = 'rn' | 'rna' | 'rz' | 'ru' | 'rd';

/**
 * Rounds an exact value to `f`, to nearest, ties to even. Overflow gives infinity ('inf'; for a
 * format without infinities the NaN encoding), or the largest finite value ('satfinite').
 * A NaN input gives the format's canonical NaN.
 */
export function roundExact(f: FloatFormat, v: ExactValue, overflow: Overflow = 'inf', rounding: Rounding = 'rn'): bigint {
  const signShift = BigInt(f.bits - 1);
  const p = f.fracBits;
  const expMax = (1n << BigInt(f.expBits)) - 1n;
  if (v.kind === 'nan') return BigInt(f.canonicalNaN);
  const sign = BigInt(v.sign) << signShift;
  const over = () => {
    // directed roundings that move toward zero never reach infinity
    const towardZero = rounding === 'rz' || (rounding === 'ru' && v.sign === 1) || (rounding === 'rd' && v.sign === 0);
    if (overflow === 'satfinite' || (towardZero && v.kind !== 'inf')) return sign | maxFiniteBits(f);
    if (f.hasInf && overflow === 'inf') return sign | (expMax << BigInt(p));
    return sign | (f.nan === 'e4m3' ? (expMax << BigInt(p)) | ((1n << BigInt(p)) - 1n) : BigInt(f.canonicalNaN));
  };
  if (v.kind === 'inf') return over();
  if (v.m === 0n) return sign;
  const emin = 1 - f.bias;
  const E = v.e + bitLength(v.m) - 1;
  const q = E < emin ? emin - p : E - p;
  const shift = q - v.e;
  let r: bigint;
  if (shift <= 0) r = v.m << BigInt(-shift);
  else {
    const sh = BigInt(shift);
    r = v.m >> sh;
    const rem = v.m - (r << sh);
    const half = 1n << (sh - 1n);
    const up =
      rounding === 'rn'
        ? rem > half || (rem === half && (r & 1n) === 1n)
        : rounding === 'rna'
          ? rem >= half
          : rounding === 'rz'
            ? false
            : rounding === 'ru'
              ? rem > 0n && v.sign === 0
              : rem > 0n && v.sign === 1;
    if (up) r += 1n;
  }
  let mag: bigint;
  if (E < emin)
    mag = r; // subnormal units; r = 2^p lands on the smallest normal
  else {
    let Ex = E;
    if (r === 1n << BigInt(p + 1)) {
      r >>= 1n;
      Ex += 1;
    }
    mag = (BigInt(Ex + f.bias) << BigInt(p)) | (r - (1n << BigInt(p)));
  }
  return mag > maxFiniteBits(f) ? over() : sign | mag;
}

/** a + b for two bit patterns of `f`, exactly rounded (the oracle). */
export function addBitsExact(f: FloatFormat, a: bigint, b: bigint, overflow: Overflow = 'inf', rounding: Rounding = 'rn'): bigint {
  const s = addExact(decodeExact(f, a), decodeExact(f, b));
  // an exact zero sum of opposite signs is -0 when rounding down
  if (
    rounding === 'rd' &&
    s.kind === 'finite' &&
    s.m === 0n &&
    !(decodeExact(f, a).kind === 'finite' && (decodeExact(f, a) as { m: bigint }).m === 0n && (decodeExact(f, b) as { m: bigint }).m === 0n)
  ) {
    return BigInt(1) << BigInt(f.bits - 1);
  }
  return roundExact(f, s, overflow, rounding);
}
