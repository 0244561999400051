/**
 * The fast path of the GPU judge: whole launches of one variant checked on the raw 16-byte slots,
 * with Numbers and typed arrays, no BigInt and no allocation per case. It is a speed-up of the
 * reference model, never a second model: a case is a plain pass only when the observed bits equal
 * the single outcome the model allows, computed with the model's own primitives (`fastAdder` and
 * `fastMinMax` of numerics/ops.ts, the flushing of `fpRule`, the integer Semantics of `intOp` on
 * 32-bit halves). Whatever is not that (a NaN result, any differing bit, a rule that leaves the
 * flushing open) is flagged, and the full judge (compare/judge-case.ts) decides it.
 *
 * Slot layout (backends/gpu/family.ts, SLOT): case i owns words 4i..4i+3 of each buffer; element k of the
 * variant's type sits little-endian at byte k*(bits/8), packed lanes low lane first.
 *
 * binary64 add is not on the model's fast path (the model adds f64 exactly, with BigInt: exact.ts);
 * here it is one JS addition, which IEEE 754 rounds to nearest even exactly as `addBitsExact` does
 * (tests/reference/fast.test.ts holds the two equal on the directed probes and 10^6 random pairs).
 */
import { gpuFamily } from '../registry/gpu.js';
import { familyPlugin } from '../registry/index.js';
import { elementFormat, type FloatFormat } from '../numerics/formats.js';
import { fastAdder, fastMinMax, lastAdd } from '../numerics/ops.js';
import { fpRule } from '../numerics/rule-lookup.js';
import type { ModelVariant } from './model.js';

export interface SlotBatch {
  readonly mem: Uint32Array;
  readonly b: Uint32Array;
  readonly c: Uint32Array;
  readonly memOut: Uint32Array;
  readonly ret?: Uint32Array;
  readonly n: number;
}

/**
 * flags[i] = 0: case i is a plain pass (the observed bits are exactly the one outcome the model
 * allows); 2: `observed`: every lane is the model's one outcome except lanes whose result the model
 * leaves open as any NaN, and those hold a NaN (the full judge says `observed` for exactly these);
 * 1: the case must go through the full reference judge (it may still pass, be `observed`, or be a
 * mismatch). Returns how many were flagged (1 or 2).
 */
export type BatchChecker = (batch: SlotBatch, flags: Uint8Array) => number;

/** One 32-bit (or 16-bit) element: the single result, or -1 where the model's set is not one value. */
type Op32 = (r: number, s: number, t: number) => number;
/** One 64-bit element as halves: whether the single outcome the model allows equals (olo, ohi). */
type Op64 = (rlo: number, rhi: number, slo: number, shi: number, tlo: number, thi: number, olo: number, ohi: number) => boolean | 2;

/** Whether (lo, hi) is a binary64 NaN. */
const nan64 = (lo: number, hi: number) => (hi & 0x7ff00000) === 0x7ff00000 && ((hi & 0xfffff) !== 0 || lo !== 0);

const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/**
 * Families with a fast path: those the one-GPU executor runs (their gpu.ts), whose results are one
 * operation per element of memory (shape.results === 'memory').
 */
function covered(v: ModelVariant): boolean {
  return gpuFamily(v.family) !== undefined && familyPlugin(v.family).shape.results === 'memory';
}

/** The model's own space resolution (the family's shape.space), with `space` standing for the case's. */
function resolvedSpace(v: ModelVariant, space: 'global' | 'shared' | undefined): 'global' | 'shared' {
  return familyPlugin(v.family).shape.space(v.q, { space });
}

// ---------------------------------------------------------------- element operations

/** intOp on 32- or 16-bit patterns held as non-negative Numbers (the Semantics of atom, 9.7.13.5). */
function intOp32(op: string, bits: 16 | 32, signed: boolean): Op32 | undefined {
  // comparisons: flipping the sign bit maps signed order onto unsigned order
  const sb = signed ? (bits === 32 ? 0x80000000 : 0x8000) : 0;
  if (bits === 16) {
    switch (op) {
      case 'add':
        return (r, s) => (r + s) & 0xffff;
      case 'min':
        return (r, s) => ((r ^ sb) <= (s ^ sb) ? r : s);
      case 'max':
        return (r, s) => ((r ^ sb) >= (s ^ sb) ? r : s);
      case 'and':
        return (r, s) => r & s;
      case 'or':
        return (r, s) => r | s;
      case 'xor':
        return (r, s) => r ^ s;
      case 'inc':
        return (r, s) => ((r ^ sb) >= (s ^ sb) ? 0 : (r + 1) & 0xffff);
      case 'dec':
        return (r, s) => (r === 0 || (r ^ sb) > (s ^ sb) ? s : (r - 1) & 0xffff);
      case 'exch':
        return (_r, s) => s;
      case 'cas':
        return (r, s, t) => (r === s ? t : r);
    }
    return undefined;
  }
  switch (op) {
    case 'add':
      return (r, s) => (r + s) >>> 0;
    case 'min':
      return (r, s) => ((r ^ sb) >>> 0 <= (s ^ sb) >>> 0 ? r : s);
    case 'max':
      return (r, s) => ((r ^ sb) >>> 0 >= (s ^ sb) >>> 0 ? r : s);
    case 'and':
      return (r, s) => (r & s) >>> 0;
    case 'or':
      return (r, s) => (r | s) >>> 0;
    case 'xor':
      return (r, s) => (r ^ s) >>> 0;
    case 'inc':
      return (r, s) => ((r ^ sb) >>> 0 >= (s ^ sb) >>> 0 ? 0 : (r + 1) >>> 0);
    case 'dec':
      return (r, s) => (r === 0 || (r ^ sb) >>> 0 > (s ^ sb) >>> 0 ? s : (r - 1) >>> 0);
    case 'exch':
      return (_r, s) => s;
    case 'cas':
      return (r, s, t) => (r === s ? t : r);
  }
  return undefined;
}

/** intOp on 64-bit patterns as (lo, hi) halves, compared with the observed halves. */
function intOp64(op: string, signed: boolean): Op64 | undefined {
  const sb = signed ? 0x80000000 : 0;
  // r < s in the type's order
  const lt = (alo: number, ahi: number, blo: number, bhi: number) => (ahi ^ sb) >>> 0 < (bhi ^ sb) >>> 0 || (ahi === bhi && alo < blo);
  switch (op) {
    case 'add':
      return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => {
        const lo = rlo + slo;
        return lo >>> 0 === olo && (rhi + shi + (lo > 0xffffffff ? 1 : 0)) >>> 0 === ohi;
      };
    case 'min':
      return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => (lt(slo, shi, rlo, rhi) ? slo === olo && shi === ohi : rlo === olo && rhi === ohi);
    case 'max':
      return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => (lt(rlo, rhi, slo, shi) ? slo === olo && shi === ohi : rlo === olo && rhi === ohi);
    case 'and':
      return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => (rlo & slo) >>> 0 === olo && (rhi & shi) >>> 0 === ohi;
    case 'or':
      return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => (rlo | slo) >>> 0 === olo && (rhi | shi) >>> 0 === ohi;
    case 'xor':
      return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => (rlo ^ slo) >>> 0 === olo && (rhi ^ shi) >>> 0 === ohi;
    case 'inc':
      // (r >= s) ? 0 : r+1
      return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => {
        if (!lt(rlo, rhi, slo, shi)) return olo === 0 && ohi === 0;
        const lo = (rlo + 1) >>> 0;
        return lo === olo && (lo === 0 ? (rhi + 1) >>> 0 : rhi) === ohi;
      };
    case 'dec':
      // (r == 0 || r > s) ? s : r-1
      return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => {
        if ((rlo === 0 && rhi === 0) || lt(slo, shi, rlo, rhi)) return slo === olo && shi === ohi;
        return (rlo - 1) >>> 0 === olo && (rlo === 0 ? (rhi - 1) >>> 0 : rhi) === ohi;
      };
    case 'exch':
      return (_rlo, _rhi, slo, shi, _tlo, _thi, olo, ohi) => slo === olo && shi === ohi;
    case 'cas':
      return (rlo, rhi, slo, shi, tlo, thi, olo, ohi) => (rlo === slo && rhi === shi ? tlo === olo && thi === ohi : rlo === olo && rhi === ohi);
  }
  return undefined;
}

/**
 * binary64 a + b on (lo, hi) halves by one JS addition (round to nearest even), flushing subnormal
 * inputs and results to sign-preserving zero when `ftz`; a NaN sum answers 2 when a NaN was observed
 * (the model allows any NaN: `observed`), else false. Exported for the tests.
 */
export function f64AddOp(ftz: boolean): Op64 {
  const F = new Float64Array(2);
  const U = new Uint32Array(F.buffer);
  if (ftz) {
    return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => {
      if ((rhi & 0x7ff00000) === 0) {
        U[0] = 0;
        U[1] = rhi & 0x80000000;
      } else {
        U[0] = rlo;
        U[1] = rhi;
      }
      if ((shi & 0x7ff00000) === 0) {
        U[2] = 0;
        U[3] = shi & 0x80000000;
      } else {
        U[2] = slo;
        U[3] = shi;
      }
      const x = F[0]! + F[1]!;
      if (x !== x) return nan64(olo, ohi) ? 2 : false;
      F[0] = x;
      const hi = U[1]!;
      if ((hi & 0x7ff00000) === 0) return olo === 0 && ohi === (hi & 0x80000000) >>> 0;
      return U[0] === olo && hi === ohi;
    };
  }
  return (rlo, rhi, slo, shi, _tlo, _thi, olo, ohi) => {
    U[0] = rlo;
    U[1] = rhi;
    U[2] = slo;
    U[3] = shi;
    const x = F[0]! + F[1]!;
    if (x !== x) return nan64(olo, ohi) ? 2 : false;
    F[0] = x;
    return U[0] === olo && U[1] === ohi;
  };
}

/** One lane of f16/bf16/f32: the model's single result, or -1 (a NaN: any NaN is allowed). */
function floatLaneOp(lf: FloatFormat, op: string, ftz: boolean): Op32 | undefined {
  const expMask = lf.bits === 32 ? 0x7f800000 : ((1 << lf.expBits) - 1) << lf.fracBits;
  const fracMask = lf.bits === 32 ? 0x7fffff : (1 << lf.fracBits) - 1;
  if (op === 'add') {
    const add = fastAdder(lf, ftz);
    if (lf.bits === 32) {
      return (r, s) => {
        const x = add(r, s);
        return lastAdd.nan || ((x & 0x7f800000) === 0x7f800000 && (x & 0x7fffff) !== 0) ? -1 : x;
      };
    }
    return (r, s) => {
      const x = add(r, s);
      return lastAdd.nan || ((x & expMask) === expMask && (x & fracMask) !== 0) ? -1 : x;
    };
  }
  // fastMinMax answers -1 for "both NaN" (the model: any NaN), the other operand for one NaN
  if ((op === 'min' || op === 'max') && lf.bits === 16) return fastMinMax(lf, op);
  return undefined;
}

// ---------------------------------------------------------------- batch loops

/** Integer lanes: the model never leaves one open as any NaN. */
const NO_NAN = (_o: number) => false;

function checkSizes(batch: SlotBatch, returns: boolean): void {
  const w = batch.n * 4;
  if (
    batch.mem.length < w ||
    batch.b.length < w ||
    batch.c.length < w ||
    batch.memOut.length < w ||
    (returns && batch.ret !== undefined && batch.ret.length < w)
  ) {
    throw new Error(`slot batch of ${batch.n} cases needs ${w} words in each buffer`);
  }
}

function flagAll(n: number, flags: Uint8Array): number {
  flags.fill(1, 0, n);
  return n;
}

/** 1 where the returned bytes (full words, then a masked partial word) differ from memory before. */
function retDiffers(ret: Uint32Array, mem: Uint32Array, base: number, full: number, mask: number): number {
  for (let w = 0; w < full; w++) if (ret[base + w] !== mem[base + w]) return 1;
  return mask !== 0 && ((ret[base + full]! ^ mem[base + full]!) & mask) !== 0 ? 1 : 0;
}

function loop32(op: Op32, elements: number, returns: boolean, write: boolean): BatchChecker {
  return (batch, flags) => {
    checkSizes(batch, returns);
    const { mem, b, c, memOut, n } = batch;
    const ret = batch.ret;
    if (returns && ret === undefined) return flagAll(n, flags);
    let flagged = 0;
    for (let i = 0, base = 0; i < n; i++, base += 4) {
      let bad = 0;
      for (let k = 0; k < elements; k++) {
        const r = op(mem[base + k]!, b[base + k]!, c[base + k]!);
        if (write && r >= 0) memOut[base + k] = r;
        else if (r < 0 || r !== memOut[base + k]) {
          bad = 1;
          break;
        }
      }
      if (bad === 0 && returns) bad = retDiffers(ret!, mem, base, elements, 0);
      flags[i] = bad;
      flagged += bad;
    }
    return flagged;
  };
}

// The loops below repeat one shape on purpose: each function literal keeps its own call feedback in
// V8, so a loop that only ever calls f32 adds (or only half-precision lanes) inlines them, where one
// loop shared by every 32-bit checker sees a dozen targets and calls each generically (~40% slower).

/** f32 lanes (one per element). */
function loopF32(lane: Op32, nan: (o: number) => boolean, elements: number, returns: boolean, write: boolean): BatchChecker {
  return (batch, flags) => {
    checkSizes(batch, returns);
    const { mem, b, memOut, n } = batch;
    const ret = batch.ret;
    if (returns && ret === undefined) return flagAll(n, flags);
    let flagged = 0;
    for (let i = 0, base = 0; i < n; i++, base += 4) {
      let bad = 0;
      let open = 0;
      for (let k = 0; k < elements; k++) {
        const r = lane(mem[base + k]!, b[base + k]!, 0);
        if (write) {
          if (r < 0) open = 2;
          else memOut[base + k] = r;
          continue;
        }
        const o = memOut[base + k]!;
        if (r < 0 && nan(o)) open = 2;
        else if (r < 0 || r !== o) {
          bad = 1;
          break;
        }
      }
      if (bad === 0 && returns) bad = retDiffers(ret!, mem, base, elements, 0);
      flags[i] = bad || open;
      flagged += bad || open ? 1 : 0;
    }
    return flagged;
  };
}

/** Two 16-bit lanes packed in each 32-bit element (f16x2, bf16x2), low lane first. */
function loopPacked(lane: Op32, nan: (o: number) => boolean, elements: number, returns: boolean, write: boolean): BatchChecker {
  return (batch, flags) => {
    checkSizes(batch, returns);
    const { mem, b, memOut, n } = batch;
    const ret = batch.ret;
    if (returns && ret === undefined) return flagAll(n, flags);
    let flagged = 0;
    for (let i = 0, base = 0; i < n; i++, base += 4) {
      let bad = 0;
      let open = 0;
      for (let k = 0; k < elements; k++) {
        const r = mem[base + k]!;
        const s = b[base + k]!;
        const lo = lane(r & 0xffff, s & 0xffff, 0);
        if (write) {
          const hi = lane(r >>> 16, s >>> 16, 0);
          if (lo < 0 || hi < 0) open = 2;
          memOut[base + k] = ((lo < 0 ? 0 : lo) | ((hi < 0 ? 0 : hi) << 16)) >>> 0;
          continue;
        }
        const o = memOut[base + k]!;
        if (lo < 0 && nan(o & 0xffff)) open = 2;
        else if (lo < 0 || lo !== (o & 0xffff)) {
          bad = 1;
          break;
        }
        const hi = lane(r >>> 16, s >>> 16, 0);
        if (hi < 0 && nan(o >>> 16)) open = 2;
        else if (hi < 0 || hi !== o >>> 16) {
          bad = 1;
          break;
        }
      }
      if (bad === 0 && returns) bad = retDiffers(ret!, mem, base, elements, 0);
      flags[i] = bad || open;
      flagged += bad || open ? 1 : 0;
    }
    return flagged;
  };
}

function loop16(op: Op32, nan: (o: number) => boolean, elements: number, returns: boolean, write: boolean): BatchChecker {
  const full = elements >> 1;
  const mask = elements & 1 ? 0xffff : 0;
  return (batch, flags) => {
    checkSizes(batch, returns);
    const { mem, b, c, memOut, n } = batch;
    const ret = batch.ret;
    if (returns && ret === undefined) return flagAll(n, flags);
    let flagged = 0;
    for (let i = 0, base = 0; i < n; i++, base += 4) {
      let bad = 0;
      let open = 0;
      for (let k = 0; k < elements; k++) {
        const w = base + (k >> 1);
        const sh = (k & 1) << 4;
        const r = op((mem[w]! >>> sh) & 0xffff, (b[w]! >>> sh) & 0xffff, (c[w]! >>> sh) & 0xffff);
        if (write) {
          if (r < 0) open = 2;
          else memOut[w] = ((memOut[w]! & ~(0xffff << sh)) | (r << sh)) >>> 0;
          continue;
        }
        const o = (memOut[w]! >>> sh) & 0xffff;
        if (r < 0 && nan(o)) open = 2;
        else if (r < 0 || r !== o) {
          bad = 1;
          break;
        }
      }
      if (bad === 0 && returns) bad = retDiffers(ret!, mem, base, full, mask);
      flags[i] = bad || open;
      flagged += bad || open ? 1 : 0;
    }
    return flagged;
  };
}

function loop64(op: Op64, elements: number, returns: boolean): BatchChecker {
  return (batch, flags) => {
    checkSizes(batch, returns);
    const { mem, b, c, memOut, n } = batch;
    const ret = batch.ret;
    if (returns && ret === undefined) return flagAll(n, flags);
    let flagged = 0;
    for (let i = 0, base = 0; i < n; i++, base += 4) {
      let bad = 0;
      let open = 0;
      for (let k = 0; k < elements; k++) {
        const w = base + 2 * k;
        const r = op(mem[w]!, mem[w + 1]!, b[w]!, b[w + 1]!, c[w]!, c[w + 1]!, memOut[w]!, memOut[w + 1]!);
        if (r === 2) open = 2;
        else if (!r) {
          bad = 1;
          break;
        }
      }
      if (bad === 0 && returns) bad = retDiffers(ret!, mem, base, 2 * elements, 0);
      flags[i] = bad || open;
      flagged += bad || open ? 1 : 0;
    }
    return flagged;
  };
}

/** b128 exch and cas, word by word (one element per slot). */
function loop128(op: 'exch' | 'cas', returns: boolean, write: boolean): BatchChecker {
  return (batch, flags) => {
    checkSizes(batch, returns);
    const { mem, b, c, memOut, n } = batch;
    const ret = batch.ret;
    if (returns && ret === undefined) return flagAll(n, flags);
    let flagged = 0;
    for (let i = 0, base = 0; i < n; i++, base += 4) {
      // exch: s; cas: (r == s) ? t : r
      const src =
        op === 'exch' ? b : mem[base] === b[base] && mem[base + 1] === b[base + 1] && mem[base + 2] === b[base + 2] && mem[base + 3] === b[base + 3] ? c : mem;
      if (write) memOut.set(src.subarray(base, base + 4), base);
      let bad =
        src[base] === memOut[base] && src[base + 1] === memOut[base + 1] && src[base + 2] === memOut[base + 2] && src[base + 3] === memOut[base + 3] ? 0 : 1;
      if (bad === 0 && returns) bad = retDiffers(ret!, mem, base, 4, 0);
      flags[i] = bad;
      flagged += bad;
    }
    return flagged;
  };
}

// ---------------------------------------------------------------- the entry point

/**
 * The fast path for a variant (family + qualifiers) whose slots hold `elements` elements, for memory
 * resolving to `space`; undefined where there is none (then every case goes through the full judge).
 * `returns`: whether `ret` holds the returned old values to check (they must equal `mem`).
 *
 * Covered: atom, red and cp.reduce.async.bulk with integer and bit types of 16 (b16), 32 and 64
 * bits (add, min, max, and, or, xor, inc, dec, exch, cas, as intOp gives them), b128 exch/cas,
 * f32 add (flushing as fpRule says for the family and space), f64 add, f16/bf16/f16x2/bf16x2 add,
 * min and max, and exch/cas on any element type. Not covered (undefined): the multimem families,
 * fp8 types, f32/f64 min/max, a rule whose flushing is unspecified, an operation the model rejects,
 * `returns` for an instruction that returns nothing, a big-endian host.
 */
export function fastChecker(v: ModelVariant, elements: number, space: 'global' | 'shared' | undefined, returns: boolean): BatchChecker | undefined {
  return fastPath(v, elements, space, returns, false);
}

/**
 * The other use of the same fast path: the model's outcome itself, for a batch with nothing observed
 * (the reference backend on cases without `expect:`). The returned function writes each element's
 * one allowed outcome into `memOut` and flags the case 0; where the model leaves an element open as
 * any NaN (the fast operations answer -1 exactly then) it flags the case 2 and writes the other
 * elements (a packed lane that is any NaN is written 0). `ret` is not used (the returned value is
 * memory before). Undefined where fastChecker is, and for 64-bit elements (whose fast operations
 * compare, not compute).
 */
export function fastOutcome(v: ModelVariant, elements: number, space: 'global' | 'shared' | undefined): BatchChecker | undefined {
  return fastPath(v, elements, space, false, true);
}

/**
 * Whether a float `op` flushes subnormals for the variant in `space` (fpRule of the family; min and
 * max never do), or undefined where there is no fast path: no rule (the model throws and the full
 * judge reports it), flushing the spec leaves open, or an op without a float meaning.
 */
function floatFlushing(v: ModelVariant, space: 'global' | 'shared' | undefined, type: string, op: string): boolean | undefined {
  if (op === 'min' || op === 'max') return false;
  if (op !== 'add') return undefined;
  let rule;
  try {
    rule = fpRule(v.family, resolvedSpace(v, space), type, v.q);
  } catch {
    return undefined;
  }
  return rule.ftz === 'unspecified' ? undefined : rule.ftz;
}

/**
 * The model's fast operation on one lane of a variant for exhaustive sweeps: a 16-bit float lane
 * (f16, bf16; add, min, max), f32 add, or cas on .b16 with the swap value `swap`. The one result
 * (unsigned), or -1 where the model allows any NaN. The same function the batch checkers use, with
 * the family's flushing for `space`. Undefined where there is none.
 */
export function fastLaneOp(v: ModelVariant, space: 'global' | 'shared' | undefined, swap = 0): ((a: number, b: number) => number) | undefined {
  if (!covered(v)) return undefined;
  let fmt;
  try {
    fmt = elementFormat(v.q.type ?? '');
  } catch {
    return undefined;
  }
  const lf = fmt.lane;
  // cas on 16-bit patterns: (memory, compare) with a fixed swap value (elementOp: r === s ? t : r)
  if (v.q.op === 'cas' && fmt.bits === 16) {
    const cas = intOp32('cas', 16, false)!;
    return (a, b) => cas(a, b, swap);
  }
  const op = v.q.op ?? '';
  if (lf.kind !== 'float' || !(lf.name === 'f16' || lf.name === 'bf16' || (lf.name === 'f32' && op === 'add'))) return undefined;
  const ftz = floatFlushing(v, space, fmt.name, op);
  if (ftz === undefined) return undefined;
  if (lf.bits === 32) {
    // floatLaneOp's f32 add, one closure less (the sweep's reference calls it 2^32 times), unsigned
    const add = fastAdder(lf, ftz);
    return (a, b) => {
      const x = add(a, b);
      return lastAdd.nan || ((x & 0x7f800000) === 0x7f800000 && (x & 0x7fffff) !== 0) ? -1 : x >>> 0;
    };
  }
  const lane = floatLaneOp(lf, op, ftz);
  return lane && ((a, b) => lane(a, b, 0));
}

/** The flushing a variant's float `op` has in `space` ('ftz', 'keep'), for sweep cache keys; undefined where there is no fast path. */
export function laneFlushing(v: ModelVariant, space: 'global' | 'shared' | undefined): string | undefined {
  let fmt;
  try {
    fmt = elementFormat(v.q.type ?? '');
  } catch {
    return undefined;
  }
  const f = floatFlushing(v, space, fmt.name, v.q.op ?? '');
  return f === undefined ? undefined : f ? 'ftz' : 'keep';
}

function fastPath(v: ModelVariant, elements: number, space: 'global' | 'shared' | undefined, returns: boolean, write: boolean): BatchChecker | undefined {
  if (!LITTLE || !covered(v)) return undefined;
  if (returns && !familyPlugin(v.family).shape.returns(v.q)) return undefined;
  let fmt;
  try {
    fmt = elementFormat(v.q.type ?? '');
  } catch {
    return undefined;
  }
  const op = v.q.op ?? '';
  if (!Number.isInteger(elements) || elements < 1 || (elements * fmt.bits) / 8 > 16) return undefined;
  const bits = fmt.bits;

  if (fmt.lane.kind === 'int' || op === 'exch' || op === 'cas') {
    // exch and cas move bit patterns whatever the type (elementOp: exactly(s), r === s ? t : r)
    const signed = fmt.lane.kind === 'int' && fmt.lane.signed;
    if (bits === 128) return op === 'exch' || op === 'cas' ? loop128(op, returns, write) : undefined;
    if (bits === 64) {
      const f = intOp64(op, signed);
      return f && !write ? loop64(f, elements, returns) : undefined;
    }
    if (bits === 32 || bits === 16) {
      const f = intOp32(op, bits, signed);
      return f && (bits === 32 ? loop32(f, elements, returns, write) : loop16(f, NO_NAN, elements, returns, write));
    }
    return undefined;
  }

  const lf = fmt.lane as FloatFormat;
  if (lf.name !== 'f16' && lf.name !== 'bf16' && lf.name !== 'f32' && lf.name !== 'f64') return undefined;
  const ftz = floatFlushing(v, space, fmt.name, op);
  if (ftz === undefined) return undefined;

  if (lf.name === 'f64') return op === 'add' && !write ? loop64(f64AddOp(ftz), elements, returns) : undefined;
  const lane = floatLaneOp(lf, op, ftz);
  if (!lane) return undefined;
  const expMask = ((1 << lf.expBits) - 1) * 2 ** lf.fracBits;
  const fracMask = 2 ** lf.fracBits - 1;
  // a NaN of the lane's format (IEEE: exponent all ones, fraction not zero)
  const nan = (o: number) => lf.nan === 'ieee' && (o & expMask) === expMask && (o & fracMask) !== 0;
  if (fmt.lanes === 2) return loopPacked(lane, nan, elements, returns, write);
  if (fmt.lanes !== 1) return undefined;
  return bits === 32 ? loopF32(lane, nan, elements, returns, write) : loop16(lane, nan, elements, returns, write);
}
