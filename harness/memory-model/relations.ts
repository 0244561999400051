/**
 * A small relation algebra over the n events of one candidate execution, the language chapter 8
 * (`../shared/ptx-memory-model/`) states its orders in: sets of events, binary relations, union,
 * intersection, difference, sequence (composition), inverse, restriction of the domain or range to
 * a set, transitive and reflexive-transitive closure, and the tests the axioms use (empty,
 * irreflexive, acyclic).
 *
 * Representation: a relation is n rows of bits, each row `w = ceil(n / 32)` 32-bit words (row i,
 * bit j: i -> j); a set is one such row. Operations work a word at a time; every operation returns
 * a new value (the builders `add` and `Rel.where` aside), so definitions read as equations.
 */

const wordsFor = (n: number) => (n + 31) >>> 5;

/** A set of events (ids 0..n-1). */
export class EvSet {
  constructor(
    readonly n: number,
    readonly bits: Uint32Array,
  ) {}

  static none(n: number): EvSet {
    return new EvSet(n, new Uint32Array(wordsFor(n)));
  }

  static all(n: number): EvSet {
    const s = EvSet.none(n);
    for (let t = 0; t < s.bits.length; t++) s.bits[t] = t === s.bits.length - 1 && n & 31 ? (1 << (n & 31)) - 1 : 0xffffffff;
    return s;
  }

  /** The events whose ids satisfy `pred`. */
  static where(n: number, pred: (i: number) => boolean): EvSet {
    const s = EvSet.none(n);
    for (let i = 0; i < n; i++) if (pred(i)) s.bits[i >>> 5]! |= 1 << (i & 31);
    return s;
  }

  static of(n: number, ids: Iterable<number>): EvSet {
    const s = EvSet.none(n);
    for (const i of ids) s.bits[i >>> 5]! |= 1 << (i & 31);
    return s;
  }

  has(i: number): boolean {
    return (this.bits[i >>> 5]! & (1 << (i & 31))) !== 0;
  }

  or(b: EvSet): EvSet {
    const r = this.bits.slice();
    for (let t = 0; t < r.length; t++) r[t]! |= b.bits[t]!;
    return new EvSet(this.n, r);
  }

  and(b: EvSet): EvSet {
    const r = this.bits.slice();
    for (let t = 0; t < r.length; t++) r[t]! &= b.bits[t]!;
    return new EvSet(this.n, r);
  }

  minus(b: EvSet): EvSet {
    const r = this.bits.slice();
    for (let t = 0; t < r.length; t++) r[t]! &= ~b.bits[t]!;
    return new EvSet(this.n, r);
  }

  isEmpty(): boolean {
    for (let t = 0; t < this.bits.length; t++) if (this.bits[t]) return false;
    return true;
  }

  /** The ids, ascending. */
  ids(): number[] {
    const out: number[] = [];
    forEachBit(this.bits, 0, this.bits.length, (i) => out.push(i));
    return out;
  }
}

/** Calls `f` with each set bit's index in words [from, to) of `bits` (index counted from `from`). */
function forEachBit(bits: Uint32Array, from: number, to: number, f: (i: number) => void): void {
  for (let t = from; t < to; t++) {
    let x = bits[t]!;
    while (x) {
      const low = x & -x;
      f(((t - from) << 5) + 31 - Math.clz32(low));
      x ^= low;
    }
  }
}

/** A binary relation over events 0..n-1. */
export class Rel {
  /** Words per row. */
  readonly w: number;

  constructor(
    readonly n: number,
    readonly bits: Uint32Array,
  ) {
    this.w = wordsFor(n);
  }

  static empty(n: number): Rel {
    return new Rel(n, new Uint32Array(n * wordsFor(n)));
  }

  /** The pairs (i, j) satisfying `pred`. */
  static where(n: number, pred: (i: number, j: number) => boolean): Rel {
    const r = Rel.empty(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (pred(i, j)) r.add(i, j);
    return r;
  }

  static pairs(n: number, ps: Iterable<readonly [number, number]>): Rel {
    const r = Rel.empty(n);
    for (const [i, j] of ps) r.add(i, j);
    return r;
  }

  /** The identity on `s`, `[S]`. */
  static id(s: EvSet): Rel {
    const r = Rel.empty(s.n);
    forEachBit(s.bits, 0, s.bits.length, (i) => r.add(i, i));
    return r;
  }

  /** Every pair from `a` to `b`, `A * B`. */
  static cross(a: EvSet, b: EvSet): Rel {
    const r = Rel.empty(a.n);
    const w = r.w;
    forEachBit(a.bits, 0, a.bits.length, (i) => r.bits.set(b.bits, i * w));
    return r;
  }

  /** A strict total order: each element of `order` before every later one. */
  static order(n: number, order: readonly number[]): Rel {
    const r = Rel.empty(n);
    for (let i = 0; i < order.length; i++) for (let j = i + 1; j < order.length; j++) r.add(order[i]!, order[j]!);
    return r;
  }

  /** Builder: adds (i, j) in place. */
  add(i: number, j: number): this {
    this.bits[i * this.w + (j >>> 5)]! |= 1 << (j & 31);
    return this;
  }

  has(i: number, j: number): boolean {
    return (this.bits[i * this.w + (j >>> 5)]! & (1 << (j & 31))) !== 0;
  }

  /** The successors of i, ascending. */
  succ(i: number): number[] {
    const out: number[] = [];
    forEachBit(this.bits, i * this.w, (i + 1) * this.w, (j) => out.push(j));
    return out;
  }

  or(b: Rel): Rel {
    const r = this.bits.slice();
    const bb = b.bits;
    for (let t = 0; t < r.length; t++) r[t]! |= bb[t]!;
    return new Rel(this.n, r);
  }

  and(b: Rel): Rel {
    const r = this.bits.slice();
    const bb = b.bits;
    for (let t = 0; t < r.length; t++) r[t]! &= bb[t]!;
    return new Rel(this.n, r);
  }

  minus(b: Rel): Rel {
    const r = this.bits.slice();
    const bb = b.bits;
    for (let t = 0; t < r.length; t++) r[t]! &= ~bb[t]!;
    return new Rel(this.n, r);
  }

  /** Sequence (composition) `this ; b`: i -> j when i -> k in this and k -> j in b for some k. */
  seq(b: Rel): Rel {
    const { n, w } = this;
    const a = this.bits;
    const bb = b.bits;
    const r = new Uint32Array(a.length);
    for (let i = 0; i < n; i++) {
      const ri = i * w;
      for (let t = 0; t < w; t++) {
        let x = a[ri + t]!;
        while (x) {
          const low = x & -x;
          const rk = ((t << 5) + 31 - Math.clz32(low)) * w;
          x ^= low;
          for (let u = 0; u < w; u++) r[ri + u]! |= bb[rk + u]!;
        }
      }
    }
    return new Rel(n, r);
  }

  /** The inverse: j -> i for each i -> j. */
  inv(): Rel {
    const { n, w } = this;
    const a = this.bits;
    const r = new Uint32Array(a.length);
    for (let i = 0; i < n; i++) {
      const iw = i >>> 5;
      const ib = 1 << (i & 31);
      for (let t = 0; t < w; t++) {
        let x = a[i * w + t]!;
        while (x) {
          const low = x & -x;
          r[((t << 5) + 31 - Math.clz32(low)) * w + iw]! |= ib;
          x ^= low;
        }
      }
    }
    return new Rel(n, r);
  }

  /** Restriction `[dom] ; this ; [ran]` (either left out: no restriction on that side). */
  restrict(dom: EvSet | undefined, ran: EvSet | undefined): Rel {
    const { n, w } = this;
    const a = this.bits;
    const r = new Uint32Array(a.length);
    const d = dom?.bits;
    const g = ran?.bits;
    for (let i = 0; i < n; i++) {
      if (d && !(d[i >>> 5]! & (1 << (i & 31)))) continue;
      const ri = i * w;
      if (g) for (let t = 0; t < w; t++) r[ri + t] = a[ri + t]! & g[t]!;
      else for (let t = 0; t < w; t++) r[ri + t] = a[ri + t]!;
    }
    return new Rel(n, r);
  }

  /** Transitive closure `this+` (Warshall, a row at a time). */
  plus(): Rel {
    const { n, w } = this;
    const c = this.bits.slice();
    for (let k = 0; k < n; k++) {
      const kw = k >>> 5;
      const kb = 1 << (k & 31);
      const rk = k * w;
      for (let i = 0; i < n; i++) {
        const ri = i * w;
        if (c[ri + kw]! & kb) for (let t = 0; t < w; t++) c[ri + t]! |= c[rk + t]!;
      }
    }
    return new Rel(n, c);
  }

  /** Reflexive-transitive closure `this*`. */
  star(): Rel {
    return this.plus().opt();
  }

  /** `this?`: the relation and the identity (over all n events). */
  opt(): Rel {
    const { n, w } = this;
    const r = this.bits.slice();
    for (let i = 0; i < n; i++) r[i * w + (i >>> 5)]! |= 1 << (i & 31);
    return new Rel(n, r);
  }

  /** The events with a successor. */
  domain(): EvSet {
    const { n, w } = this;
    const s = EvSet.none(n);
    for (let i = 0; i < n; i++)
      for (let t = 0; t < w; t++)
        if (this.bits[i * w + t]) {
          s.bits[i >>> 5]! |= 1 << (i & 31);
          break;
        }
    return s;
  }

  isEmpty(): boolean {
    const a = this.bits;
    for (let t = 0; t < a.length; t++) if (a[t]) return false;
    return true;
  }

  /** No i -> i. */
  irreflexive(): boolean {
    const { n, w } = this;
    for (let i = 0; i < n; i++) if (this.bits[i * w + (i >>> 5)]! & (1 << (i & 31))) return false;
    return true;
  }

  /**
   * No cycle: events with no predecessor among those left are removed until none is left
   * (acyclic) or each left has one (a cycle).
   */
  acyclic(): boolean {
    const { n, w } = this;
    const a = this.bits;
    const left = new Uint32Array(w);
    for (let i = 0; i < n; i++) left[i >>> 5]! |= 1 << (i & 31);
    // hasPred: events with a predecessor among those left
    for (let removed = true; removed; ) {
      removed = false;
      const hasPred = new Uint32Array(w);
      for (let i = 0; i < n; i++) if (left[i >>> 5]! & (1 << (i & 31))) for (let t = 0; t < w; t++) hasPred[t]! |= a[i * w + t]!;
      for (let t = 0; t < w; t++) {
        const drop = left[t]! & ~hasPred[t]!;
        if (drop) {
          left[t]! &= ~drop;
          removed = true;
        }
      }
    }
    for (let t = 0; t < w; t++) if (left[t]) return false;
    return true;
  }
}
