/**
 * Element operations of the reductions, on bit patterns. Integer operations follow the Semantics
 * blocks of atom/red (inc, dec, cas, exch) with wrap-around add; floating-point add rounds to nearest
 * even with the flushing the rules table says; min/max follow PTX ISA 9.7.4.7/9.7.4.8. Results are
 * sets (`Allowed`): one value where the spec decides, several where it does not.
 */
import { decodeTable, encoderFor, overflowed } from './encode.js';
import { addBitsExact } from './exact.js';
import { type FloatFormat, type IntFormat, classify, maxFiniteBits } from './formats.js';
import { type Ftz, UNSPECIFIED } from './rules.js';

/** The outcomes allowed for one scalar (one lane). */
export interface Allowed {
  /** Exact bit patterns allowed. */
  readonly bits: readonly bigint[];
  /** Any NaN encoding of the format is allowed (the payload is not specified). */
  readonly anyNaN: boolean;
  /** Ids of the `unspecified` rules that widened the set. */
  readonly unspecified: readonly string[];
}

export const exactly = (b: bigint): Allowed => ({ bits: [b], anyNaN: false, unspecified: [] });

export function union(sets: readonly Allowed[]): Allowed {
  const bits = [...new Set(sets.flatMap((s) => s.bits))];
  return { bits, anyNaN: sets.some((s) => s.anyNaN), unspecified: [...new Set(sets.flatMap((s) => s.unspecified))] };
}

/** Whether observed bits `x` are in the set. */
export function allows(f: FloatFormat | IntFormat, s: Allowed, x: bigint): boolean {
  if (s.bits.includes(x)) return true;
  return s.anyNaN && f.kind === 'float' && classify(f, x) === 'nan';
}

// ---------------------------------------------------------------- integers

const mask = (w: number) => (1n << BigInt(w)) - 1n;
const asSigned = (f: IntFormat, v: bigint) => (f.signed && v >> BigInt(f.bits - 1) ? v - (1n << BigInt(f.bits)) : v);

export type IntOp = 'add' | 'min' | 'max' | 'and' | 'or' | 'xor' | 'inc' | 'dec' | 'exch' | 'cas';

/**
 * `*a = op(*a, b)` (cas: op(*a, b, c)) on `f`'s bit patterns, per the Semantics of atom (9.7.13.5):
 * inc(r, s) = (r >= s) ? 0 : r+1; dec(r, s) = (r == 0 || r > s) ? s : r-1; exch(r, s) = s;
 * cas(r, s, t) = (r == s) ? t : r. Comparisons are signed for .s types, unsigned otherwise.
 */
export function intOp(op: IntOp, f: IntFormat, r: bigint, s: bigint, t = 0n): bigint {
  const m = mask(f.bits);
  switch (op) {
    case 'add':
      return (r + s) & m;
    case 'min':
      return cmp(f, r, s) <= 0 ? r : s;
    case 'max':
      return cmp(f, r, s) >= 0 ? r : s;
    case 'and':
      return r & s;
    case 'or':
      return r | s;
    case 'xor':
      return r ^ s;
    case 'inc':
      return cmp(f, r, s) >= 0 ? 0n : (r + 1n) & m;
    case 'dec':
      return r === 0n || cmp(f, r, s) > 0 ? s : (r - 1n) & m;
    case 'exch':
      return s;
    case 'cas':
      return r === s ? t : r;
  }
}

/**
 * x against y as integers of `f` (signed where it is): -1, 0, 1. A module function, not a closure
 * made per call: under tsx (esbuild's keepNames) every named closure costs a defineProperty call.
 */
function cmp(f: IntFormat, x: bigint, y: bigint): number {
  const a = asSigned(f, x);
  const b = asSigned(f, y);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Wrap-around add of two 32-bit patterns held as numbers (the hot-path form of intOp('add') for u32/s32). */
export const addInt32 = (a: number, b: number): number => (a + b) >>> 0;

// ---------------------------------------------------------------- floating point

/** Flags of the last fast add: the result is NaN (payload unspecified) / overflowed the finite range. */
export const lastAdd = { nan: false, overflow: false };

export type FastAdd = (a: number, b: number) => number;
const fastAdders = new Map<string, FastAdd>();

/**
 * a + b on bit patterns of `f` (<= 32 bits), rounded to nearest even, flushing subnormal inputs and
 * results to sign-preserving zero when `ftz`. Sets `lastAdd`. Overflow gives infinity (for e4m3 its
 * NaN encoding). 8-bit formats answer from a 2^16-entry table built by the same arithmetic.
 */
export function fastAdder(f: FloatFormat, ftz: boolean): FastAdd {
  const key = `${f.name}:${ftz}`;
  const cached = fastAdders.get(key);
  if (cached) return cached;
  const enc = encoderFor(f);
  const signBit = f.bits === 32 ? 0x80000000 : 1 << (f.bits - 1);
  const expMask = ((1 << f.expBits) - 1) * 2 ** f.fracBits;
  let decode: (b: number) => number;
  if (f.bits === 32) {
    const fv = new Float32Array(1);
    const uv = new Uint32Array(fv.buffer);
    decode = ftz
      ? (b) => {
          if ((b & 0x7f800000) === 0) return b & 0x80000000 ? -0 : 0;
          uv[0] = b;
          return fv[0]!;
        }
      : (b) => {
          uv[0] = b;
          return fv[0]!;
        };
  } else decode = () => NaN; // 8- and 16-bit formats read their tables directly below
  // Specialised closures: this is the hot path of exhaustive sweeps and of the benchmark.
  let add: FastAdd;
  if (f.bits === 32) {
    add = ftz
      ? (a, b) => {
          const x = decode(a) + decode(b);
          let r = enc(x);
          if ((r & expMask) === 0) r = (r & signBit) >>> 0;
          lastAdd.overflow = overflowed;
          lastAdd.nan = x !== x;
          return r;
        }
      : (a, b) => {
          const x = decode(a) + decode(b);
          const r = enc(x);
          lastAdd.overflow = overflowed;
          lastAdd.nan = x !== x;
          return r;
        };
  } else if (f.name === 'bf16' || f.name === 'f16') {
    // Written out per format so that each call site sees one function: a shared closure body
    // across formats made V8's calls megamorphic and halved the rate. 16-bit values decode
    // arithmetically through a binary32 view (a 512 KB table misses the cache on random operands):
    // bf16 is the top half of a binary32; f16 normals re-bias into one, subnormals are m x 2^-24.
    const fv = new Float32Array(1);
    const uv = new Uint32Array(fv.buffer);
    const z = (b: number) => (b & 0x8000 ? -0 : 0);
    if (f.name === 'bf16') {
      const d = (b: number) => ((uv[0] = b << 16), fv[0]!);
      add = ftz
        ? (a, b) => {
            const x = ((a & 0x7f80) === 0 ? z(a) : d(a)) + ((b & 0x7f80) === 0 ? z(b) : d(b));
            let r = enc(x);
            if ((r & 0x7f80) === 0) r &= 0x8000;
            lastAdd.overflow = overflowed;
            lastAdd.nan = x !== x;
            return r;
          }
        : (a, b) => {
            const x = d(a) + d(b);
            const r = enc(x);
            lastAdd.overflow = overflowed;
            lastAdd.nan = x !== x;
            return r;
          };
    } else {
      const d = (b: number) => {
        const e = b & 0x7c00;
        if (e === 0) return (b & 0x8000 ? -1 : 1) * (b & 0x3ff) * 5.960464477539063e-8;
        const sign = (b & 0x8000) << 16;
        uv[0] = e === 0x7c00 ? sign | 0x7f800000 | ((b & 0x3ff) << 13) : sign | (((b & 0x7fff) + 0x1c000) << 13);
        return fv[0]!;
      };
      add = ftz
        ? (a, b) => {
            const x = ((a & 0x7c00) === 0 ? z(a) : d(a)) + ((b & 0x7c00) === 0 ? z(b) : d(b));
            let r = enc(x);
            if ((r & 0x7c00) === 0) r &= 0x8000;
            lastAdd.overflow = overflowed;
            lastAdd.nan = x !== x;
            return r;
          }
        : (a, b) => {
            const x = d(a) + d(b);
            const r = enc(x);
            lastAdd.overflow = overflowed;
            lastAdd.nan = x !== x;
            return r;
          };
    }
  } else {
    const t = decodeTable(f);
    const ft = ftz ? Float64Array.from(t, (v, i) => ((i & expMask) === 0 ? (i & signBit ? -0 : 0) : v)) : t;
    const noInf = !f.hasInf;
    add = (a, b) => {
      const x = ft[a]! + ft[b]!;
      let r = enc(x);
      if (ftz && (r & expMask) === 0) r &= signBit;
      lastAdd.overflow = overflowed;
      lastAdd.nan = x !== x || (noInf && overflowed);
      return r;
    };
  }
  if (f.bits === 8) {
    const table = new Uint16Array(1 << 16);
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        const r = add(a, b);
        table[(a << 8) | b] = r | (lastAdd.overflow ? 0x100 : 0) | (lastAdd.nan ? 0x200 : 0);
      }
    }
    add = (a, b) => {
      const v = table[(a << 8) | b]!;
      lastAdd.overflow = (v & 0x100) !== 0;
      lastAdd.nan = (v & 0x200) !== 0;
      return v & 0xff;
    };
  }
  fastAdders.set(key, add);
  return add;
}

export type FastMinMax = (a: number, b: number) => number;

/**
 * min/max on bit patterns of a format of <= 16 bits, for bulk checks and benchmarks: -1 stands for
 * "NaN, payload unspecified". Same rules as minmaxAllowed.
 */
export function fastMinMax(f: FloatFormat, op: 'min' | 'max'): FastMinMax {
  const t = decodeTable(f);
  const signBit = 1 << (f.bits - 1);
  return (a, b) => {
    const x = t[a]!;
    const y = t[b]!;
    if (x !== x) return y !== y ? -1 : b;
    if (y !== y) return a;
    if (x === 0 && y === 0) {
      const aNeg = (a & signBit) !== 0;
      return op === 'min' ? (aNeg ? a : b) : aNeg ? b : a;
    }
    return op === 'min' ? (x < y ? a : b) : x > y ? a : b;
  };
}

function flushBits(f: FloatFormat, b: bigint): bigint {
  return classify(f, b) === 'subnormal' ? b & (1n << BigInt(f.bits - 1)) : b;
}

/** a + b for any float format under one flushing mode: result bits, and whether NaN/overflow. */
export function addOnce(f: FloatFormat, a: bigint, b: bigint, ftz: boolean): { bits: bigint; nan: boolean; overflow: boolean } {
  if (f.bits === 64) {
    const x = ftz ? flushBits(f, a) : a;
    const y = ftz ? flushBits(f, b) : b;
    const r = addBitsExact(f, x, y);
    const rc = classify(f, r);
    const inf = (v: bigint) => classify(f, v) === 'inf';
    return { bits: ftz ? flushBits(f, r) : r, nan: rc === 'nan', overflow: rc === 'inf' && !inf(x) && !inf(y) };
  }
  const r = fastAdder(f, ftz)(Number(a), Number(b));
  return { bits: BigInt(r), nan: lastAdd.nan || classify(f, r) === 'nan', overflow: lastAdd.overflow };
}

/** The outcomes of a + b under the rules: flushing (or both ways if unspecified), NaN, fp8 overflow. */
export function addAllowed(f: FloatFormat, a: bigint, b: bigint, ftz: Ftz): Allowed {
  const modes = ftz === 'unspecified' ? [false, true] : [ftz];
  const sets: Allowed[] = [];
  for (const m of modes) {
    const r = addOnce(f, a, b, m);
    const uns = ftz === 'unspecified' ? ['fp.ftz-unstated'] : [];
    if (r.nan && !(r.overflow && (f.name === 'e4m3' || f.name === 'e5m2'))) {
      sets.push({ bits: [], anyNaN: true, unspecified: [...uns, UNSPECIFIED.nanPayload.id] });
    } else if (r.overflow && (f.name === 'e4m3' || f.name === 'e5m2')) {
      const sign = r.bits & (1n << BigInt(f.bits - 1));
      sets.push({ bits: [r.bits, sign | maxFiniteBits(f)], anyNaN: f.name === 'e4m3', unspecified: [...uns, UNSPECIFIED.fp8Overflow.id] });
    } else sets.push({ bits: [r.bits], anyNaN: false, unspecified: uns });
  }
  return union(sets);
}

/** min/max per PTX ISA 9.7.4.7/9.7.4.8 (and by analogy for fp8): NaN handling and -0.0 < +0.0. */
export function minmaxAllowed(f: FloatFormat, op: 'min' | 'max', a: bigint, b: bigint): Allowed {
  const uns = f.bits === 8 ? [UNSPECIFIED.fp8MinMax.id] : [];
  const an = classify(f, a) === 'nan';
  const bn = classify(f, b) === 'nan';
  if (an && bn) return { bits: [], anyNaN: true, unspecified: [...uns, UNSPECIFIED.nanPayload.id] };
  if (an) return { bits: [b], anyNaN: false, unspecified: uns };
  if (bn) return { bits: [a], anyNaN: false, unspecified: uns };
  const x = f.bits === 64 ? new Float64Array(new BigUint64Array([a]).buffer)[0]! : decodeNumberAny(f, a);
  const y = f.bits === 64 ? new Float64Array(new BigUint64Array([b]).buffer)[0]! : decodeNumberAny(f, b);
  let pick: bigint;
  if (x === 0 && y === 0) {
    const aNeg = a >> BigInt(f.bits - 1) === 1n;
    pick = op === 'min' ? (aNeg ? a : b) : aNeg ? b : a;
  } else pick = op === 'min' ? (x < y ? a : b) : x > y ? a : b;
  return { bits: [pick], anyNaN: false, unspecified: uns };
}

function decodeNumberAny(f: FloatFormat, b: bigint): number {
  if (f.bits === 32) return new Float32Array(new Uint32Array([Number(b)]).buffer)[0]!;
  return decodeTable(f)[Number(b)]!;
}
