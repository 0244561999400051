/**
 * Second implementations, built differently from the model, that the tests compare it with:
 * - exact rational arithmetic (harness/numerics/exact.ts: BigInt significands decoded from the bit
 *   fields, one BigInt rounding), with flushing applied on the side;
 * - min/max by the sign-magnitude total order of the bit patterns, with the spec's NaN rules;
 * - f16 through @petamoriken/float16 (a library's decoding and rounding);
 * - bf16 through Math.fround and the integer round-to-nearest-even of the top half of a binary32;
 * - f32 through Math.fround, f64 through JS addition.
 */
import { f16round, getFloat16, setFloat16 } from '@petamoriken/float16';
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

// ---- fast forms of the same oracles, for 2^32-pair sweeps (no BigInt, no DataView per call)

/** f16 values decoded by the library, once. */
let libF16: Float64Array | undefined;
function libF16Table(): Float64Array {
  if (!libF16) {
    libF16 = new Float64Array(65536);
    const d = new DataView(new ArrayBuffer(2));
    for (let b = 0; b < 65536; b++) {
      d.setUint16(0, b);
      libF16[b] = getFloat16(d, 0);
    }
  }
  return libF16;
}

/** f16 a + b as a value, rounded by the library's f16round (NaN for NaN). */
export function addF16LibraryValue(a: number, b: number): number {
  const t = libF16Table();
  return f16round(t[a]! + t[b]!);
}

const o32 = new Float32Array(1);
const u32o = new Uint32Array(o32.buffer);
let bf16Vals: Float64Array | undefined;

/** bf16 a + b as bits via Math.fround and integer rounding of the binary32 pattern; -1 for NaN. */
export function addBf16ViaF32Fast(a: number, b: number): number {
  if (!bf16Vals) {
    bf16Vals = new Float64Array(65536);
    for (let x = 0; x < 65536; x++) {
      u32o[0] = x << 16;
      bf16Vals[x] = o32[0]!;
    }
  }
  const s = Math.fround(bf16Vals[a]! + bf16Vals[b]!);
  if (s !== s) return -1;
  o32[0] = s;
  const u = u32o[0]!;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** min/max of 16-bit patterns by sign-magnitude order; -1 for NaN. `expMask`/`fracMask` of the format. */
export function minmaxOrderFast(expMask: number, fracMask: number, op: 'min' | 'max', a: number, b: number): number {
  const an = (a & expMask) === expMask && (a & fracMask) !== 0;
  const bn = (b & expMask) === expMask && (b & fracMask) !== 0;
  if (an) return bn ? -1 : b;
  if (bn) return a;
  const ka = a & 0x8000 ? 0x7fff - (a & 0x7fff) : 0x8000 + a;
  const kb = b & 0x8000 ? 0x7fff - (b & 0x7fff) : 0x8000 + b;
  if (ka === kb) return a;
  return op === 'min' ? (ka < kb ? a : b) : ka < kb ? b : a;
}
