/**
 * f32 add against Math.fround(a + b) (binary64 holds every f32 sum closely enough for one correct
 * rounding), with flushing applied on the side for the flushing rule; f64 add (the model's exact
 * BigInt path) against JS addition.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { F32, F64, classify } from '../../harness/numerics/formats.js';
import { addOnce } from '../../harness/numerics/ops.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const bitsToF32 = (b: number) => ((u32[0] = b), f32[0]!);
const f32ToBits = (x: number) => ((f32[0] = x), u32[0]!);
const isSub32 = (b: number) => (b & 0x7f800000) === 0 && (b & 0x7fffff) !== 0;
const flush32 = (b: number) => (isSub32(b) ? b & 0x80000000 : b) >>> 0;

function oracle32(a: number, b: number, ftz: boolean): number | null {
  const x = bitsToF32(ftz ? flush32(a) : a);
  const y = bitsToF32(ftz ? flush32(b) : b);
  const s = Math.fround(x + y);
  if (Number.isNaN(s)) return null;
  const r = f32ToBits(s);
  return ftz ? flush32(r) : r;
}

/** f32 bit patterns weighted toward the interesting: subnormals, extremes, specials, near ties. */
const f32bits = fc.oneof(
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.integer({ min: 0, max: 0x00ffffff }).map((x) => x >>> 0),
  fc.integer({ min: 0x80000000, max: 0x80ffffff }).map((x) => x >>> 0),
  fc.constantFrom(
    0,
    0x80000000,
    1,
    0x80000001,
    0x007fffff,
    0x00800000,
    0x7f7fffff,
    0xff7fffff,
    0x7f800000,
    0xff800000,
    0x7fc00000,
    0x7f800001,
    0x3f800000,
    0x33800000,
    0x34000000,
  ),
);

describe('f32 add', () => {
  it.each([false, true])('ftz=%s: equals Math.fround(a + b) on 200000 generated pairs (seed 7)', (ftz) => {
    fc.assert(
      fc.property(f32bits, f32bits, (a, b) => {
        const got = addOnce(F32, BigInt(a), BigInt(b), ftz);
        const want = oracle32(a, b, ftz);
        if (want === null) return got.nan;
        return !got.nan && Number(got.bits) === want;
      }),
      { numRuns: 200_000, seed: 7 },
    );
  });
  it('flushes a subnormal sum on the flushing path and keeps it otherwise', () => {
    expect(addOnce(F32, 1n, 1n, false).bits).toBe(2n);
    expect(addOnce(F32, 1n, 1n, true).bits).toBe(0n);
    expect(addOnce(F32, 0x80000001n, 0x80000001n, true).bits).toBe(0x80000000n);
    expect(addOnce(F32, 0x00800000n, 0x80000001n, true).bits).toBe(0x00800000n);
  });
});

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
const f64bits = fc.oneof(
  fc.bigInt({ min: 0n, max: 0xffffffffffffffffn }),
  fc.bigInt({ min: 0n, max: 0x001fffffffffffffn }),
  fc.constantFrom(
    0n,
    0x8000000000000000n,
    1n,
    0x000fffffffffffffn,
    0x0010000000000000n,
    0x7fefffffffffffffn,
    0x7ff0000000000000n,
    0xfff0000000000000n,
    0x7ff8000000000000n,
    0x3ff0000000000000n,
    0x3ca0000000000000n,
  ),
);

describe('f64 add', () => {
  it('equals JS addition on 100000 generated pairs (seed 11)', () => {
    fc.assert(
      fc.property(f64bits, f64bits, (a, b) => {
        u64[0] = a;
        const x = f64[0]!;
        u64[0] = b;
        const s = x + f64[0]!;
        const got = addOnce(F64, a, b, false);
        if (Number.isNaN(s)) return got.nan && classify(F64, got.bits) === 'nan';
        f64[0] = s;
        return got.bits === u64[0];
      }),
      { numRuns: 100_000, seed: 11 },
    );
  });
});
