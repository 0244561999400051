/**
 * Second implementations, built differently from the model, that the tests compare it with:
 * - exact rational arithmetic (harness/numerics/exact.ts: BigInt significands decoded from the bit
 *   fields, one BigInt rounding), with flushing applied on the side;
 * - min/max by the sign-magnitude total order of the bit patterns, with the spec's NaN rules;
 * - f16 through @petamoriken/float16 (a library's decoding and rounding);
 * - bf16 through Math.fround and the integer round-to-nearest-even of the top half of a binary32;
 * - f32 through Math.fround, f64 through JS addition.
 */
import { getFloat16, setFloat16 } from '@petamoriken/float16';
import { addBitsExact } from '../../harness/numerics/exact.js';
import { type FloatFormat, classify } from '../../harness/numerics/formats.js';

export function flushOracle(f: FloatFormat, b: bigint): bigint {
  return classify(f, b) === 'subnormal' ? b & (1n << BigInt(f.bits - 1)) : b;
}

/** a + b by exact rational arithmetic; null for a NaN result. */
export function addRational(f: FloatFormat, a: number, b: number, ftz: boolean): number | null {
  let x = BigInt(a);
  let y = BigInt(b);
  if (ftz) [x, y] = [flushOracle(f, x), flushOracle(f, y)];
  let r = addBitsExact(f, x, y);
  if (ftz) r = flushOracle(f, r);
  return classify(f, r) === 'nan' ? null : Number(r);
}

/** min/max by total order of sign-magnitude bit patterns (-0 below +0), NaN rules of 9.7.4.7/8. */
export function minmaxOrder(f: FloatFormat, op: 'min' | 'max', a: number, b: number): number | null {
  const an = classify(f, a) === 'nan';
  const bn = classify(f, b) === 'nan';
  if (an && bn) return null;
  if (an) return b;
  if (bn) return a;
  const sign = 2 ** (f.bits - 1);
  const key = (v: number) => (v >= sign ? sign - 1 - (v - sign) : sign + v);
  const lt = key(a) < key(b);
  if (key(a) === key(b)) return a;
  return op === 'min' ? (lt ? a : b) : lt ? b : a;
}

const dv = new DataView(new ArrayBuffer(8));

/** f16 add through @petamoriken/float16: decode with getFloat16, round with setFloat16. */
export function addF16Library(a: number, b: number): number | null {
  dv.setUint16(0, a);
  const x = getFloat16(dv, 0);
  dv.setUint16(0, b);
  const y = getFloat16(dv, 0);
  const s = x + y;
  if (Number.isNaN(s)) return null;
  setFloat16(dv, 0, s);
  return dv.getUint16(0);
}

/** bf16 add: Math.fround of the binary64 sum, then integer round-to-nearest-even to the top half. */
export function addBf16ViaF32(a: number, b: number): number | null {
  dv.setUint32(0, a << 16);
  const x = dv.getFloat32(0);
  dv.setUint32(0, b << 16);
  const y = dv.getFloat32(0);
  const s = Math.fround(x + y);
  if (Number.isNaN(s)) return null;
  dv.setFloat32(0, s);
  const u = dv.getUint32(0);
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}
