/**
 * Number formats, one descriptor each. Bit patterns are the truth; a value is decoded only to
 * compute. Every floating-point format states its exponent and fraction widths, bias, whether it has
 * infinities, and which encodings are NaN (after ml_dtypes' class comments).
 */

export interface FloatFormat {
  readonly kind: 'float';
  readonly name: 'f16' | 'bf16' | 'f32' | 'f64' | 'e4m3' | 'e5m2';
  readonly bits: 8 | 16 | 32 | 64;
  readonly expBits: number;
  /** Stored fraction bits (the significand has one more, implicit, for normal numbers). */
  readonly fracBits: number;
  readonly bias: number;
  /** IEEE-style: exponent all ones with fraction 0 is infinity. e4m3 has none. */
  readonly hasInf: boolean;
  /**
   * NaN encodings: 'ieee' = exponent all ones and fraction non-zero; 'e4m3' = S.1111.111 only
   * (OCP 8-bit E4M3: exponent 1111 with other fractions are normal numbers up to 448).
   */
  readonly nan: 'ieee' | 'e4m3';
  /** The NaN that PTX calls canonical for the format (sign 0, quiet, all fraction bits set). */
  readonly canonicalNaN: number | bigint;
  readonly doc: string;
}

export interface IntFormat {
  readonly kind: 'int';
  readonly name: 'b16' | 'b32' | 'b64' | 'b128' | 'u32' | 'u64' | 's32' | 's64';
  readonly bits: 16 | 32 | 64 | 128;
  readonly signed: boolean;
  readonly doc: string;
}

export type ScalarFormat = FloatFormat | IntFormat;

export const F16: FloatFormat = {
  kind: 'float',
  name: 'f16',
  bits: 16,
  expBits: 5,
  fracBits: 10,
  bias: 15,
  hasInf: true,
  nan: 'ieee',
  canonicalNaN: 0x7fff,
  doc: 'IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits; subnormals; +-inf; NaN = exponent 11111, fraction != 0',
};
export const BF16: FloatFormat = {
  kind: 'float',
  name: 'bf16',
  bits: 16,
  expBits: 8,
  fracBits: 7,
  bias: 127,
  hasInf: true,
  nan: 'ieee',
  canonicalNaN: 0x7fff,
  doc: 'bfloat16: 1 sign, 8 exponent (bias 127), 7 fraction bits; the top half of a binary32; subnormals; +-inf; NaN as binary32',
};
export const F32: FloatFormat = {
  kind: 'float',
  name: 'f32',
  bits: 32,
  expBits: 8,
  fracBits: 23,
  bias: 127,
  hasInf: true,
  nan: 'ieee',
  canonicalNaN: 0x7fffffff,
  doc: 'IEEE 754 binary32',
};
export const F64: FloatFormat = {
  kind: 'float',
  name: 'f64',
  bits: 64,
  expBits: 11,
  fracBits: 52,
  bias: 1023,
  hasInf: true,
  nan: 'ieee',
  canonicalNaN: 0x7fffffffffffffffn,
  doc: 'IEEE 754 binary64; values travel as BigInt bit patterns',
};
export const E4M3: FloatFormat = {
  kind: 'float',
  name: 'e4m3',
  bits: 8,
  expBits: 4,
  fracBits: 3,
  bias: 7,
  hasInf: false,
  nan: 'e4m3',
  canonicalNaN: 0x7f,
  doc: 'OCP 8-bit E4M3 (FN): 1 sign, 4 exponent (bias 7), 3 fraction bits; subnormals; no infinities; NaN = S.1111.111 only; largest finite 448',
};
export const E5M2: FloatFormat = {
  kind: 'float',
  name: 'e5m2',
  bits: 8,
  expBits: 5,
  fracBits: 2,
  bias: 15,
  hasInf: true,
  nan: 'ieee',
  canonicalNaN: 0x7f,
  doc: 'OCP 8-bit E5M2: 1 sign, 5 exponent (bias 15), 2 fraction bits; IEEE-like: subnormals, +-inf, NaN = exponent 11111, fraction != 0; largest finite 57344',
};

export const FLOAT_FORMATS = { f16: F16, bf16: BF16, f32: F32, f64: F64, e4m3: E4M3, e5m2: E5M2 } as const;

const int = (name: IntFormat['name'], bits: IntFormat['bits'], signed: boolean): IntFormat => ({
  kind: 'int',
  name,
  bits,
  signed,
  doc: `${bits}-bit ${name.startsWith('b') ? 'bit pattern' : signed ? "two's complement integer" : 'unsigned integer'}`,
});
export const INT_FORMATS = {
  b16: int('b16', 16, false),
  b32: int('b32', 32, false),
  b64: int('b64', 64, false),
  b128: int('b128', 128, false),
  u32: int('u32', 32, false),
  u64: int('u64', 64, false),
  s32: int('s32', 32, true),
  s64: int('s64', 64, true),
} as const;

/** A `.type` of the instructions: a scalar format, or `lanes` of one packed into one element. */
export interface ElementFormat {
  readonly name: string;
  readonly bits: number;
  readonly lane: ScalarFormat;
  readonly lanes: 1 | 2 | 4;
}

const el = (name: string, lane: ScalarFormat, lanes: 1 | 2 | 4 = 1): ElementFormat => ({ name, bits: lane.bits * lanes, lane, lanes });

export const ELEMENT_FORMATS: Readonly<Record<string, ElementFormat>> = {
  ...Object.fromEntries(Object.values(INT_FORMATS).map((f) => [f.name, el(f.name, f)])),
  ...Object.fromEntries(Object.values(FLOAT_FORMATS).map((f) => [f.name, el(f.name, f)])),
  f16x2: el('f16x2', F16, 2),
  bf16x2: el('bf16x2', BF16, 2),
  e4m3x2: el('e4m3x2', E4M3, 2),
  e4m3x4: el('e4m3x4', E4M3, 4),
  e5m2x2: el('e5m2x2', E5M2, 2),
  e5m2x4: el('e5m2x4', E5M2, 4),
};

export function elementFormat(type: string): ElementFormat {
  const f = ELEMENT_FORMATS[type];
  if (!f) throw new Error(`no element format '${type}' (harness/numerics/formats.ts)`);
  return f;
}

/** Splits an element into its lanes, lane 0 in the low bits (PTX packs .f16x2 as a[0:15], a[16:31]). */
export function splitLanes(f: ElementFormat, bits: bigint): bigint[] {
  const w = BigInt(f.lane.bits);
  const mask = (1n << w) - 1n;
  return Array.from({ length: f.lanes }, (_, i) => (bits >> (w * BigInt(i))) & mask);
}

export function joinLanes(f: ElementFormat, lanes: readonly bigint[]): bigint {
  const w = BigInt(f.lane.bits);
  return lanes.reduce((acc, v, i) => acc | (v << (w * BigInt(i))), 0n);
}

/** Classification of a float bit pattern. */
export type FloatClass = 'zero' | 'subnormal' | 'normal' | 'inf' | 'nan';

export function classify(f: FloatFormat, bits: number | bigint): FloatClass {
  const b = BigInt(bits);
  const fracMask = (1n << BigInt(f.fracBits)) - 1n;
  const expMax = (1n << BigInt(f.expBits)) - 1n;
  const e = (b >> BigInt(f.fracBits)) & expMax;
  const m = b & fracMask;
  if (f.nan === 'e4m3') {
    if (e === expMax && m === fracMask) return 'nan';
  } else if (e === expMax) return m === 0n ? 'inf' : 'nan';
  if (e === 0n) return m === 0n ? 'zero' : 'subnormal';
  return 'normal';
}

export function signBit(f: { bits: number }, bits: number | bigint): 0 | 1 {
  return ((BigInt(bits) >> BigInt(f.bits - 1)) & 1n) === 1n ? 1 : 0;
}

/** Largest finite magnitude's bit pattern (sign 0). */
export function maxFiniteBits(f: FloatFormat): bigint {
  const expMax = (1n << BigInt(f.expBits)) - 1n;
  const fracMask = (1n << BigInt(f.fracBits)) - 1n;
  if (f.nan === 'e4m3') return (expMax << BigInt(f.fracBits)) | (fracMask - 1n);
  return ((expMax - 1n) << BigInt(f.fracBits)) | fracMask;
}

export function infBits(f: FloatFormat, sign: 0 | 1): bigint | undefined {
  if (!f.hasInf) return undefined;
  const expMax = (1n << BigInt(f.expBits)) - 1n;
  return (BigInt(sign) << BigInt(f.bits - 1)) | (expMax << BigInt(f.fracBits));
}

export function zeroBits(f: { bits: number }, sign: 0 | 1): bigint {
  return BigInt(sign) << BigInt(f.bits - 1);
}
