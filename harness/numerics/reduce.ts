/**
 * Reductions over N values whose combining order the spec leaves open (multimem.ld_reduce over
 * replicas; later, unordered concurrent float reductions). Returns the set of results over every
 * association tree and order, each with one concrete tree that gives it and how many trees do.
 *
 * Addition and min/max of two values are commutative bit for bit, so a tree is a set partition
 * applied recursively; the sets are memoised per subset of the inputs (3^N splits for N inputs).
 */
import { decodeTable, floatBits } from './encode.js';
import { decodeExact, addExact, roundExact, type ExactValue } from './exact.js';
import { type FloatFormat, classify, maxFiniteBits } from './formats.js';
import { addOnce, fastAdder, lastAdd, minmaxAllowed } from './ops.js';

export interface OrderedResult {
  /** Result bits in the element type. */
  readonly bits: bigint;
  /** One concrete tree that produces it, e.g. "((r0+r2)+(r1+r3))". */
  readonly witness: string;
  /** How many of the (2N-3)!! trees produce it (an fp8 overflow also counts once as saturated). */
  readonly trees: number;
}

export interface ReductionSet {
  readonly results: readonly OrderedResult[];
  /** Some tree gives NaN (any payload allowed). */
  readonly nan: boolean;
  readonly overflow: boolean;
  readonly totalTrees: number;
}

function toNumber(f: FloatFormat, b: bigint): number {
  if (f.bits === 32) return new Float32Array(new Uint32Array([Number(b)]).buffer)[0]!;
  if (f.bits === 64) return new Float64Array(new BigUint64Array([b]).buffer)[0]!;
  return decodeTable(f)[Number(b)]!;
}

function flushType(f: FloatFormat, b: bigint, ftz: boolean): bigint {
  return ftz && classify(f, b) === 'subnormal' ? b & (1n << BigInt(f.bits - 1)) : b;
}

/** Converts bits of `from` to `to` with one rounding to nearest even (exact when `to` is wider). */
export function convert(from: FloatFormat, to: FloatFormat, b: bigint): bigint {
  if (from.name === to.name) return b;
  if (classify(from, b) === 'nan') return BigInt(to.canonicalNaN);
  // every format here is exact in a double: widening to f64 is the double's own bits
  return floatBits(to, toNumber(from, b));
}

/**
 * The arithmetic of one accumulation format, on bit patterns held as numbers (formats up to 32 bits)
 * or BigInts (f64): one step of the reduction, setting `step.nan`/`step.overflow`.
 */
interface Arith<K> {
  readonly fromBits: (b: bigint) => K;
  readonly toBits: (k: K) => bigint;
  readonly flush: (k: K) => K;
  /** x + y rounded to `acc`, its raw bits (an overflow's infinity or e4m3 NaN, sign kept); sets step.nan and step.overflow. */
  readonly add: (x: K, y: K) => K;
  /** min/max of x and y (the canonical NaN when both are NaN); sets step.nan. */
  readonly minmax: (x: K, y: K) => K;
  /** The largest finite value with the sign of k. */
  readonly saturate: (k: K) => K;
  readonly canonicalNaN: K;
  /** Whether k is subnormal in the accumulation format. */
  readonly subnormal: (k: K) => boolean;
  /** Where each value sits in the set being built (-1: not in it), one set at a time. */
  readonly slots: Slots<K>;
  /**
   * 8-bit formats' addition as `add` answers it, by table: entry (x << 8) | y holds the result (bits
   * 0-7), overflow (bit 8) and NaN (bit 9), 0xffff where not yet computed (addFill computes it).
   */
  readonly addTable?: Uint16Array;
  readonly addFill?: (x: number, y: number) => number;
}

const step = { nan: false, overflow: false };

/**
 * Where each value sits in the subset being built (-1: not in it): get, set, and clear for the next
 * subset. Bit patterns of at most 32 bits live in typed arrays, each entry stamped with the subset it
 * belongs to, so that clearing is one increment: indexed by the pattern up to 16 bits, an
 * open-addressing table (doubled when half full) for 32.
 */
interface Slots<K> {
  get(k: K): number;
  set(k: K, i: number): void;
  clear(): void;
}

export class NumberSlots implements Slots<number> {
  private keys: Int32Array;
  private vals: Int32Array;
  private stamps: Uint32Array;
  private stamp = 1;
  private used = 0;
  /** 32 - log2(the table's size): a key's entry is the top bits of its multiplicative hash (float patterns share their low bits). */
  private shift = 26;
  private readonly direct: boolean;
  constructor(bits: number) {
    this.direct = bits <= 16;
    const size = this.direct ? 1 << bits : 64;
    this.keys = new Int32Array(size);
    this.vals = new Int32Array(size);
    this.stamps = new Uint32Array(size);
  }
  /** The entry of k: where it is, or the free entry where it would go. */
  private find(k: number): number {
    if (this.direct) return k;
    const mask = this.keys.length - 1;
    const key = k | 0;
    let h = Math.imul(key, 0x9e3779b1) >>> this.shift;
    for (; this.stamps[h] === this.stamp && this.keys[h] !== key; h = (h + 1) & mask);
    return h;
  }
  get(k: number): number {
    const h = this.find(k);
    return this.stamps[h] === this.stamp ? this.vals[h]! : -1;
  }
  set(k: number, i: number): void {
    const h = this.find(k);
    if (this.stamps[h] !== this.stamp) {
      if (!this.direct && ++this.used * 2 > this.keys.length) {
        this.rehash();
        this.set(k, i);
        return;
      }
      this.stamps[h] = this.stamp;
      this.keys[h] = k | 0;
    }
    this.vals[h] = i;
  }
  clear(): void {
    this.used = 0;
    if (++this.stamp === 0xffffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }
  private rehash(): void {
    const { keys, vals, stamps, stamp } = this;
    this.keys = new Int32Array(keys.length * 2);
    this.vals = new Int32Array(keys.length * 2);
    this.stamps = new Uint32Array(keys.length * 2);
    this.used = 0;
    this.shift--;
    for (let h = 0; h < keys.length; h++) if (stamps[h] === stamp) this.set(keys[h]!, vals[h]!);
  }
}

class MapSlots<K> implements Slots<K> {
  private readonly m = new Map<K, number>();
  get(k: K): number {
    return this.m.get(k) ?? -1;
  }
  set(k: K, i: number): void {
    this.m.set(k, i);
  }
  clear(): void {
    this.m.clear();
  }
}

/**
 * Number arithmetic for accumulation formats of at most 32 bits: the operations of addOnce and
 * minmaxAllowed (ops.ts), without BigInts. 8-bit formats answer both from 2^16-entry tables filled
 * on first use from those same functions.
 */
function numberArith(acc: FloatFormat, op: 'add' | 'min' | 'max', ftz: boolean): Arith<number> {
  const sign = acc.bits === 32 ? 0x80000000 : 2 ** (acc.bits - 1);
  const expField = (2 ** acc.expBits - 1) * 2 ** acc.fracBits;
  const fracMask = 2 ** acc.fracBits - 1;
  const nanBits = Number(acc.canonicalNaN);
  const isNaN = acc.nan === 'e4m3' ? (k: number) => (k & 0x7f) === 0x7f : (k: number) => (k & expField) === expField && (k & fracMask) !== 0;
  const flush = ftz ? (k: number) => ((k & expField) === 0 && (k & fracMask) !== 0 ? (k & sign) >>> 0 : k) : (k: number) => k;
  const fast = fastAdder(acc, ftz);
  const maxFinite = Number(maxFiniteBits(acc));
  const minmaxOf = (x: number, y: number): number => {
    const o = minmaxAllowed(acc, op as 'min' | 'max', BigInt(x), BigInt(y));
    return o.anyNaN ? nanBits : flush(Number(o.bits[0]!));
  };
  let add = (x: number, y: number): number => {
    const r = fast(x, y);
    step.overflow = lastAdd.overflow;
    step.nan = lastAdd.nan || isNaN(r);
    return r;
  };
  let minmax: (x: number, y: number) => number;
  let addTable: Uint16Array | undefined;
  let addFill: ((x: number, y: number) => number) | undefined;
  if (acc.bits === 8) {
    // bits 0-7 the result, bit 8 overflow, bit 9 NaN; 0xffff: not yet computed
    const table = new Uint16Array(1 << 16).fill(0xffff);
    const fill = (x: number, y: number): number => {
      const r = fast(x, y);
      return (table[(x << 8) | y] = r | (lastAdd.overflow ? 0x100 : 0) | (lastAdd.nan || isNaN(r) ? 0x200 : 0));
    };
    if (op === 'add') {
      addTable = table;
      addFill = fill;
    }
    add = (x, y) => {
      let v = table[(x << 8) | y]!;
      if (v === 0xffff) v = fill(x, y);
      step.overflow = (v & 0x100) !== 0;
      step.nan = (v & 0x200) !== 0;
      return v & 0xff;
    };
    minmax = (x, y) => {
      let v = table[(x << 8) | y]!;
      if (v === 0xffff) v = table[(x << 8) | y] = minmaxOf(x, y);
      step.nan = isNaN(v);
      return v;
    };
  } else {
    // min/max sets stay small: each pair is answered once (up to a bound) by minmaxAllowed
    const pairs = new Map<number, number>();
    minmax = (x, y) => {
      // both 16-bit: one int32 (a small integer to the Map, where x * 2^16 + y past 2^31 would be a heap number)
      const key = (x << 16) | y;
      let r = acc.bits <= 16 ? pairs.get(key) : undefined;
      if (r === undefined) {
        r = minmaxOf(x, y);
        if (acc.bits <= 16) {
          if (pairs.size >= 1 << 20) pairs.clear();
          pairs.set(key, r);
        }
      }
      step.nan = isNaN(r);
      return r;
    };
  }
  const subnormal = (k: number) => (k & expField) === 0 && (k & fracMask) !== 0;
  return {
    fromBits: (b) => Number(b),
    toBits: (k) => BigInt(k),
    flush,
    add,
    minmax,
    saturate: (k) => ((k & sign) >>> 0) + maxFinite,
    canonicalNaN: nanBits,
    subnormal,
    slots: new NumberSlots(acc.bits),
    ...(addTable && addFill ? { addTable, addFill } : {}),
  };
}

/** BigInt arithmetic (f64 accumulation): addOnce and minmaxAllowed as they are. */
function bigintArith(acc: FloatFormat, op: 'add' | 'min' | 'max', ftz: boolean): Arith<bigint> {
  const flush = (b: bigint) => (ftz && classify(acc, b) === 'subnormal' ? b & (1n << BigInt(acc.bits - 1)) : b);
  const nanBits = BigInt(acc.canonicalNaN);
  return {
    fromBits: (b) => b,
    toBits: (k) => k,
    flush,
    add: (x, y) => {
      const o = addOnce(acc, x, y, ftz);
      step.nan = o.nan;
      step.overflow = o.overflow;
      return o.bits;
    },
    minmax: (x, y) => {
      const o = minmaxAllowed(acc, op as 'min' | 'max', x, y);
      step.nan = o.anyNaN;
      return o.anyNaN ? nanBits : flush(o.bits[0]!);
    },
    saturate: (k) => (k & (1n << BigInt(acc.bits - 1))) | maxFiniteBits(acc),
    canonicalNaN: nanBits,
    subnormal: (k) => classify(acc, k) === 'subnormal',
    slots: new MapSlots<bigint>(),
  };
}

const ariths = new Map<string, Arith<number> | Arith<bigint>>();

/**
 * The partial results of every subset, flat: subset m's distinct values (bits in `acc`, in the order
 * first found) are cells from[m] to to[m]-1; each cell has its tree count and how it was first made
 * (the left subset, 0 for an input; the two cells combined; saturated or not). Reused between calls.
 */
const store = { trees: new Float64Array(1024), left: new Int32Array(1024), li: new Int32Array(1024), ri: new Int32Array(1024), sat: new Uint8Array(1024) };

function grow(): void {
  const n = store.trees.length * 2;
  const up = <T extends Float64Array | Int32Array | Uint8Array>(a: T, b: T): T => (b.set(a), b);
  store.trees = up(store.trees, new Float64Array(n));
  store.left = up(store.left, new Int32Array(n));
  store.li = up(store.li, new Int32Array(n));
  store.ri = up(store.ri, new Int32Array(n));
  store.sat = up(store.sat, new Uint8Array(n));
}

/**
 * Every result of combining `values` (bits of `type`) with `op`, accumulating in `acc` (rounding
 * every step to `acc`) and rounding the final value to `type`, flushing subnormals when `ftz`.
 */
export function reductionSet(op: 'add' | 'min' | 'max', type: FloatFormat, acc: FloatFormat, values: readonly bigint[], ftz: boolean): ReductionSet {
  const key = `${acc.name}:${op}:${ftz}`;
  // the same reduction asked again (generated cases share special values: zeros, NaN, the extremes)
  // (values of at most 32 bits joined as numbers: the same text as the BigInts', made faster)
  const joined = type.bits <= 32 ? values.map(Number).join(',') : values.join(',');
  const whole = `${key}:${type.name}:${joined}`;
  const known = answered.get(whole);
  if (known) return known;
  let ar = ariths.get(key);
  if (!ar) ariths.set(key, (ar = acc.bits <= 32 ? numberArith(acc, op, ftz) : bigintArith(acc, op, ftz)));
  const r = reductionSetWith(ar as Arith<number>, op, type, acc, values, ftz);
  // handed out again: nobody may change it
  for (const x of r.results) Object.freeze(x);
  Object.freeze(r.results);
  Object.freeze(r);
  if (answered.size >= 1 << 16) answered.clear();
  answered.set(whole, r);
  // no subnormal among the inputs, the partial results (in acc) or the results (in type): flushing
  // changes nothing on the way, so the reduction with flushing is this one, step for step
  if (!ftz && !subnormalSeen) answered.set(`${acc.name}:${op}:true:${type.name}:${joined}`, r);
  return r;
}

/** Whether the last reductionSetWith met a subnormal: an input or partial result in acc, or a result in type. */
let subnormalSeen = false;

/** Reductions already answered, by operation, formats, flushing and values (bounded: cleared when full). */
const answered = new Map<string, ReductionSet>();

function reductionSetWith<K>(
  ar: Arith<K>,
  op: 'add' | 'min' | 'max',
  type: FloatFormat,
  acc: FloatFormat,
  values: readonly bigint[],
  ftz: boolean,
): ReductionSet {
  const n = values.length;
  if (n < 1 || n > 12) throw new Error(`reductionSet takes 1..12 values, got ${n}`);
  if (op !== 'add' && n > 2 && !exhaustiveOnly) return selectionSet(ar, op, type, acc, values, ftz);
  const sym = op === 'add' ? '+' : op;
  const from = new Int32Array(1 << n);
  const to = new Int32Array(1 << n);
  const keys: K[] = [];
  let nan = false;
  let overflow = false;
  const satBranch = op === 'add' && acc.bits === 8;
  let begin = 0;
  // the 8-bit addition table, where the format has one, read in place below (ar.add otherwise)
  const slots = ar.slots;
  const table = op === 'add' ? ar.addTable : undefined;
  const fill = ar.addFill!;
  const nanKey = ar.canonicalNaN;
  let trees = store.trees;
  /** Adds value k (t trees) to the subset being built, which starts at cell `begin`. */
  const put = (k: K, t: number, left: number, li: number, ri: number, sat: number) => {
    const i = slots.get(k);
    if (i >= 0) {
      trees[i]! += t;
      return;
    }
    const at = keys.length;
    if (at >= trees.length) {
      grow();
      trees = store.trees;
    }
    slots.set(k, at);
    keys.push(k);
    trees[at] = t;
    store.left[at] = left;
    store.li[at] = li;
    store.ri[at] = ri;
    store.sat[at] = sat;
  };
  const close = (m: number) => {
    from[m] = begin;
    to[m] = keys.length;
    slots.clear();
    begin = keys.length;
  };
  try {
    for (let i = 0; i < n; i++) {
      put(ar.flush(ar.fromBits(convert(type, acc, values[i]!))), 1, 0, i, 0, 0);
      close(1 << i);
    }
    for (let m = 1; m < 1 << n; m++) {
      if ((m & (m - 1)) === 0) continue;
      const low = m & -m;
      // the splits (a, m ^ a) with a holding the lowest value: a = low | r for r a proper submask of
      // the rest, in descending order
      const rest = m ^ low;
      for (let r = (rest - 1) & rest; ; r = (r - 1) & rest) {
        const a = low | r;
        const b = rest ^ r;
        const ae = to[a]!;
        const bs = from[b]!;
        const be = to[b]!;
        for (let i = from[a]!; i < ae; i++) {
          const x = keys[i]!;
          const tx = trees[i]!;
          for (let j = bs; j < be; j++) {
            const t = tx * trees[j]!;
            if (op === 'add') {
              let raw: K;
              let sn: boolean;
              let so: boolean;
              if (table) {
                // as ar.add answers, from its table
                const y = keys[j] as number;
                let v = table[((x as number) << 8) | y]!;
                if (v === 0xffff) v = fill(x as number, y);
                raw = (v & 0xff) as K;
                so = (v & 0x100) !== 0;
                sn = (v & 0x200) !== 0;
              } else {
                raw = ar.add(x, keys[j]!);
                sn = step.nan;
                so = step.overflow;
              }
              nan ||= sn;
              overflow ||= so;
              // fp8 overflow is not specified: saturation to the largest finite value is allowed too
              if (so && satBranch) put(ar.saturate(raw), t, a, i, j, 1);
              put(sn ? nanKey : raw, t, a, i, j, 0);
            } else {
              const mm = ar.minmax(x, keys[j]!);
              if (step.nan) nan = true;
              put(mm, t, a, i, j, 0);
            }
          }
        }
        if (r === 0) break;
      }
      close(m);
    }
  } catch (e) {
    slots.clear();
    throw e;
  }
  // one concrete tree per result, spelled only for the results (the first combination that made each value)
  const witness = (i: number): string => {
    const a = store.left[i]!;
    if (a === 0) return `r${store.li[i]!}`;
    const wx = witness(store.li[i]!);
    const wy = witness(store.ri[i]!);
    if (op !== 'add') return `${sym}(${wx},${wy})`;
    return store.sat[i] ? `sat((${wx}${sym}${wy}))` : `(${wx}${sym}${wy})`;
  };
  const full = (1 << n) - 1;
  subnormalSeen = false;
  for (let i = 0; i < keys.length && !subnormalSeen; i++) subnormalSeen = ar.subnormal(keys[i]!);
  const final = new Map<bigint, { witness: string; trees: number }>();
  for (let i = from[full]!; i < to[full]!; i++) {
    const x = ar.toBits(keys[i]!);
    const inType = classify(acc, x) === 'nan' ? undefined : convert(acc, type, x);
    if (inType !== undefined && classify(type, inType) === 'subnormal') subnormalSeen = true;
    const r = inType === undefined ? BigInt(type.canonicalNaN) : flushType(type, inType, ftz);
    const f = final.get(r);
    if (f) f.trees += store.trees[i]!;
    else final.set(r, { witness: witness(i), trees: store.trees[i]! });
  }
  let total = 0;
  const results = [...final].map(([bits, c]) => {
    total += c.trees;
    return { bits, witness: c.witness, trees: c.trees };
  });
  return { results, nan, overflow, totalTrees: total };
}

/** Tests: every reduction by the enumeration of all trees (selectionSet's check). */
let exhaustiveOnly = false;

/** reductionSet by the enumeration of every tree alone, unmemoised: what selectionSet must equal. */
export function reductionSetExhaustive(op: 'add' | 'min' | 'max', type: FloatFormat, acc: FloatFormat, values: readonly bigint[], ftz: boolean): ReductionSet {
  const key = `${acc.name}:${op}:${ftz}`;
  let ar = ariths.get(key);
  if (!ar) ariths.set(key, (ar = acc.bits <= 32 ? numberArith(acc, op, ftz) : bigintArith(acc, op, ftz)));
  exhaustiveOnly = true;
  try {
    return reductionSetWith(ar as Arith<number>, op, type, acc, values, ftz);
  } finally {
    exhaustiveOnly = false;
  }
}

/**
 * min/max over every tree without enumerating them: minmaxAllowed picks one operand by a total order
 * (-0 below +0; a NaN operand gives the other, two give the canonical NaN), so every tree gives the
 * fold of the values, each subset's partial result is one value, and reductionSetWith's answer is
 * that value, all (2N-3)!! trees, the witness of its first split at every level, and NaN met on the
 * way exactly when two or more values are NaN (two NaN leaves combined). O(N) against O(3^N);
 * tests/numerics/selection.test.ts holds it equal to the enumeration.
 */
function selectionSet<K>(ar: Arith<K>, op: 'min' | 'max', type: FloatFormat, acc: FloatFormat, values: readonly bigint[], ftz: boolean): ReductionSet {
  const n = values.length;
  const xs = values.map((v) => ar.flush(ar.fromBits(convert(type, acc, v))));
  let v: K = xs[0]!;
  for (let i = 1; i < n; i++) v = ar.minmax(v, xs[i]!);
  const nans = xs.filter((x) => classify(acc, ar.toBits(x)) === 'nan').length;
  // the witness: at each subset, its first split in reductionSetWith's order (submasks descending, the left part holding the lowest value)
  const witness = (m: number): string => {
    if ((m & (m - 1)) === 0) return `r${31 - Math.clz32(m)}`;
    const low = m & -m;
    let a = (m - 1) & m;
    while (!(a & low)) a = (a - 1) & m;
    return `${op}(${witness(a)},${witness(m ^ a)})`;
  };
  subnormalSeen = xs.some((x) => ar.subnormal(x));
  const x = ar.toBits(v);
  const inType = classify(acc, x) === 'nan' ? undefined : convert(acc, type, x);
  if (inType !== undefined && classify(type, inType) === 'subnormal') subnormalSeen = true;
  const bits = inType === undefined ? BigInt(type.canonicalNaN) : flushType(type, inType, ftz);
  let trees = 1;
  for (let k = 2 * n - 3; k > 1; k -= 2) trees *= k;
  return { results: [{ bits, witness: witness((1 << n) - 1), trees }], nan: nans >= 2, overflow: false, totalTrees: trees };
}

/**
 * Evaluates a witness tree ("((r0+r1)+r2)") concretely, for checking that every element of a set is
 * reachable by the order it names.
 */
export function evaluateWitness(
  op: 'add' | 'min' | 'max',
  type: FloatFormat,
  acc: FloatFormat,
  values: readonly bigint[],
  witness: string,
  ftz: boolean,
): bigint {
  let pos = 0;
  const flush = (b: bigint) => (ftz && classify(acc, b) === 'subnormal' ? b & (1n << BigInt(acc.bits - 1)) : b);
  const parse = (): bigint => {
    if (witness[pos] === 'r') {
      const m = /^r(\d+)/.exec(witness.slice(pos))!;
      pos += m[0].length;
      return flush(convert(type, acc, values[Number(m[1])]!));
    }
    if (op === 'add') {
      const sat = witness.startsWith('sat(', pos);
      pos += sat ? 5 : 1; // "sat((" or "("
      const x = parse();
      pos++; // +
      const y = parse();
      pos += sat ? 2 : 1; // "))" or ")"
      const o = addOnce(acc, x, y, ftz);
      if (sat) return (o.bits & (1n << BigInt(acc.bits - 1))) | maxFiniteBits(acc);
      return o.nan ? BigInt(acc.canonicalNaN) : o.bits;
    }
    pos += op.length + 1; // min(
    const x = parse();
    pos++; // ,
    const y = parse();
    pos++; // )
    const o = minmaxAllowed(acc, op, x, y);
    return o.anyNaN ? BigInt(acc.canonicalNaN) : flush(o.bits[0]!);
  };
  const r = parse();
  return classify(acc, r) === 'nan' ? BigInt(type.canonicalNaN) : flushType(type, convert(acc, type, r), ftz);
}

/**
 * The sum of `values` (bits of `type`) computed exactly and rounded once to `type`, to nearest even;
 * with `ftz`, subnormal inputs and the result flushed to sign-preserving zero. The order does not
 * matter: there is one result. NaN (an input NaN, or infinities of both signs) gives the canonical
 * NaN with `nan` set. What "accumulated exactly, rounded once" means for multimem.ld_reduce's
 * explanations and the multicast stand-in.
 */
export function exactReduction(type: FloatFormat, values: readonly bigint[], ftz: boolean): { bits: bigint; nan: boolean } {
  let acc: ExactValue | undefined;
  for (const v of values) {
    const x = decodeExact(type, flushType(type, v, ftz));
    acc = acc === undefined ? x : addExact(acc, x);
  }
  if (!acc) throw new Error('exactReduction takes at least one value');
  if (acc.kind === 'nan') return { bits: BigInt(type.canonicalNaN), nan: true };
  return { bits: flushType(type, roundExact(type, acc), ftz), nan: false };
}
