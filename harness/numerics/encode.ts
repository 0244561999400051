/**
 * The fast path for formats of 32 bits and less: decode through a table (or a Float32Array view)
 * to a JS number, add in binary64, and round that number to the format once, to nearest even.
 *
 * Why this is exact: the values of f16, bf16, f32, e4m3 and e5m2 are binary64 values, and their
 * sum rounded to binary64 (53 bits) and then to a format of p <= 24 bits equals the sum rounded once
 * to p bits, because 53 >= 2p + 2 (Figueroa, "When is double rounding innocuous?", 1995); for f16
 * and the fp8 formats the binary64 sum is even exact. The rounding below uses only operations that
 * are exact in binary64 (scaling by powers of two, floor, subtraction of close values), so the one
 * rounding decision is made on exact quantities. tests/numerics/*.test.ts hold it to exact.ts and
 * to independent implementations.
 */
import { type FloatFormat, F32 } from './formats.js';

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const f32v = new Float32Array(1);
const f32u = new Uint32Array(f32v.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HI = LITTLE ? 1 : 0;

/** Binary exponent of a finite, non-zero binary64 magnitude (floor(log2(a)), exactly). */
function exponentOf(a: number): number {
  f64[0] = a;
  const e = (u32[HI]! >>> 20) & 0x7ff;
  if (e !== 0) return e - 1023;
  f64[0] = a * 2 ** 64; // binary64 subnormal: scale into the normal range
  return ((u32[HI]! >>> 20) & 0x7ff) - 1023 - 64;
}

const decodeCache = new Map<string, Float64Array>();

/** Every value of an 8- or 16-bit format as a number (NaN for NaN encodings). */
export function decodeTable(f: FloatFormat): Float64Array {
  let t = decodeCache.get(f.name);
  if (t) return t;
  if (f.bits > 16) throw new Error(`no decode table for ${f.name}`);
  const n = 1 << f.bits;
  t = new Float64Array(n);
  const fracMask = (1 << f.fracBits) - 1;
  const expMax = (1 << f.expBits) - 1;
  for (let b = 0; b < n; b++) {
    const s = b >>> (f.bits - 1) ? -1 : 1;
    const E = (b >>> f.fracBits) & expMax;
    const m = b & fracMask;
    let v: number;
    if (f.nan === 'e4m3' && E === expMax && m === fracMask) v = NaN;
    else if (f.nan === 'ieee' && E === expMax) v = m ? NaN : Infinity;
    else if (E === 0) v = m * 2 ** (1 - f.bias - f.fracBits);
    else v = (m + 2 ** f.fracBits) * 2 ** (E - f.bias - f.fracBits);
    t[b] = s * v;
  }
  decodeCache.set(f.name, t);
  return t;
}

/** A bit pattern of `f` (<= 32 bits) as a number. */
export function decodeNumber(f: FloatFormat, bits: number): number {
  if (f.bits === 32) {
    f32u[0] = bits;
    return f32v[0]!;
  }
  return decodeTable(f)[bits]!;
}

/** Set by the encoders: the last result overflowed the format's finite range. */
export let overflowed = false;

/** 2^k for k in [-1100, 1100], read from a table: Math.pow on the hot path costs more than the rest. */
const POW2 = new Float64Array(2201);
for (let k = -1100; k <= 1100; k++) POW2[k + 1100] = 2 ** k;

export type Encoder = (x: number) => number;
const encoders = new Map<string, Encoder>();

/**
 * A rounding function number -> bits for `f` (<= 32 bits), to nearest even. NaN gives the canonical
 * NaN; overflow gives infinity, or for e4m3 (no infinity) its NaN encoding, and sets `overflowed`.
 */
export function encoderFor(f: FloatFormat): Encoder {
  const cached = encoders.get(f.name);
  if (cached) return cached;
  const signBit = f.bits === 32 ? 0x80000000 : 1 << (f.bits - 1);
  const nan = f.canonicalNaN as number;
  const p = f.fracBits;
  const two_p = 2 ** p;
  const two_p1 = 2 ** (p + 1);
  const expMax = (1 << f.expBits) - 1;
  const maxField = f.nan === 'e4m3' ? expMax : expMax - 1;
  const ovfMag = f.hasInf ? expMax * two_p : expMax * two_p + (two_p - 1);
  const e4m3NaNMag = expMax * two_p + (two_p - 1);
  const isE4m3 = f.nan === 'e4m3';
  const emin = 1 - f.bias;
  const bias = f.bias;
  const enc: Encoder = (x) => {
    overflowed = false;
    if (x !== x) return nan;
    let sign = 0;
    let a = x;
    if (x < 0 || (x === 0 && 1 / x < 0)) {
      sign = signBit;
      a = -x;
    }
    if (a === 0) return sign >>> 0;
    if (a === Infinity) {
      overflowed = true;
      return (sign + ovfMag) >>> 0;
    }
    const E = exponentOf(a);
    const quantumExp = E < emin ? emin - p : E - p;
    const q = a * POW2[1100 - quantumExp]!; // exact scaling by a power of two
    let r = Math.floor(q);
    const d = q - r; // exact
    if (d > 0.5 || (d === 0.5 && r % 2 === 1)) r += 1;
    if (E < emin) return (sign + r) >>> 0; // r = 2^p is the smallest normal's encoding
    let Ex = E;
    if (r === two_p1) {
      r = two_p;
      Ex += 1;
    }
    let mag = (Ex + bias) * two_p + (r - two_p);
    if (Ex + bias > maxField || (isE4m3 && mag === e4m3NaNMag)) {
      overflowed = true;
      mag = ovfMag;
    }
    return (sign + mag) >>> 0;
  };
  encoders.set(f.name, enc);
  return enc;
}

/** Rounds a number to `f` (see encoderFor). */
export function encodeNumber(f: FloatFormat, x: number): number {
  return encoderFor(f)(x);
}

/** f32 bits of a number rounded by this module (not by Math.fround): the model's f32 path. */
export const encodeF32: Encoder = encoderFor(F32);

const F64 = new Float64Array(1);
const U64 = new BigUint64Array(F64.buffer);
/**
 * The bits of a number in `f`: rounded to nearest even by encoderFor (<= 32 bits), binary64 as the
 * number is. The one float encoder of the project (vector files, litmus literals, contention
 * operands).
 */
export function floatBits(f: FloatFormat, x: number): bigint {
  if (f.bits === 64) {
    F64[0] = x;
    return U64[0]!;
  }
  return BigInt(encoderFor(f)(x));
}
