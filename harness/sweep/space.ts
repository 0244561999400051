/**
 * Exhaustive sweeps of 16-bit lanes: every pair (memory a, operand b) of 16-bit patterns, 2^32 in
 * all, for each swept variant. Shared by the host (reference digests, judging) and the device
 * kernel (kernel.ts computes the same mapping and hash in PTX; tests hold the two equal through the
 * stand-in launcher, which runs the TypeScript).
 *
 * Pair index p (32 bits) interleaves the high and low bytes so that 2^16 consecutive pairs are one
 * cell of the 256 x 256 map over the high bytes of a and b:
 *   a = (p >>> 24) << 8 | (p >>> 8) & 0xff,   b = ((p >>> 16) & 0xff) << 8 | p & 0xff,
 *   cell = p >>> 16 = a_hi << 8 | b_hi.
 * A cell is the unit of comparison: its digest is the wrapping sum over its pairs of two 32-bit
 * hashes of (p, r), where r is the 16-bit result or NAN_TOKEN for any NaN (the model allows any NaN
 * there; which NaN the hardware wrote is counted apart), and its NaN count.
 */
import type { GpuPlan, GpuVariant } from '../backends/gpu/plan.js';
import { elementFormat } from '../numerics/formats.js';

export const PAIRS = 2 ** 32;
export const CELL_PAIRS = 1 << 16;
export const CELLS = 1 << 16;
/** Words per cell record: hash 1, hash 2, NaN results, NaN results that are not the canonical NaN. */
export const CELL_WORDS = 4;
/**
 * Words per cell of the device's record: the four above, then pairs whose returned (old) value is
 * not the memory before (atom with a destination), and three spare (32 bytes, aligned).
 */
export const DEVICE_WORDS = 8;
/** r for a NaN result in the hash. */
export const NAN_TOKEN = 0x10000;
/** Changes whenever the mapping or the hash changes (part of the reference cache key). */
export const SWEEP_HASH_VERSION = 1;

export const pairA = (p: number) => (((p >>> 24) << 8) | ((p >>> 8) & 0xff)) >>> 0;
export const pairB = (p: number) => ((((p >>> 16) & 0xff) << 8) | (p & 0xff)) >>> 0;

function fmix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The two hash terms of pair p with result r (kernel.ts computes the same). */
export function hash1(p: number, r: number): number {
  return fmix((p ^ Math.imul(r + 1, 0x9e3779b1)) >>> 0);
}
export function hash2(p: number, r: number): number {
  return fmix(((p + 0x632be5ab) ^ Math.imul(r + 1, 0x85ebca77)) >>> 0);
}

/** A 16-bit float lane op of the model's fast path: the one result, or -1 where any NaN is allowed. */
export type LaneOp = (a: number, b: number) => number;

/** Whether a 16-bit pattern is a NaN of the lane format (f16: 5 exponent bits; bf16: 8). */
export function nan16(format: 'f16' | 'bf16' | 'b16'): (x: number) => boolean {
  if (format === 'b16') return () => false;
  return format === 'f16' ? (x) => (x & 0x7c00) === 0x7c00 && (x & 0x3ff) !== 0 : (x) => (x & 0x7f80) === 0x7f80 && (x & 0x7f) !== 0;
}

/** The canonical NaN GPUs write (0x7fff for f16 and bf16). */
export const CANONICAL_NAN16 = 0x7fff;

/**
 * One cell's reference record into out[4c..4c+3]: the hash sums of the model's results (NAN_TOKEN
 * where it allows any NaN) and how many pairs the model leaves as any NaN.
 */
export function referenceCell(op: LaneOp, cell: number, out: Uint32Array, at: number): void {
  let h1 = 0;
  let h2 = 0;
  let nans = 0;
  const base = cell << 16;
  for (let k = 0; k < CELL_PAIRS; k++) {
    const p = (base | k) >>> 0;
    let r = op(pairA(p), pairB(p));
    if (r < 0) {
      r = NAN_TOKEN;
      nans++;
    }
    h1 = (h1 + hash1(p, r)) >>> 0;
    h2 = (h2 + hash2(p, r)) >>> 0;
  }
  out[at] = h1;
  out[at + 1] = h2;
  out[at + 2] = nans;
  out[at + 3] = 0;
}

/** A variant the sweep runs: its lanes per thread (every lane a 16-bit float lane of one pair). */
export interface SweepVariant {
  readonly gv: GpuVariant;
  /** 1: a generic variant whose addresses land in shared memory (cvta.shared), as a case's `space: shared`. */
  readonly mode: 0 | 1;
  /** Whether the kernel checks the returned old values (atom with a destination). */
  readonly returns: boolean;
  /** 16-bit lanes per case (vector length x lanes per element). */
  readonly lanes: number;
  readonly format: 'f16' | 'bf16' | 'b16';
  readonly op: 'add' | 'min' | 'max' | 'cas';
  /** cas: the swap value (operand c) of every pair. */
  readonly swap?: number;
}

/** The swap values a cas sweep runs with: every (memory, compare) pair with each. */
export const CAS_SWAPS = [0x0000, 0xffff, 0x5a5a] as const;

/** Whether a plan variant is swept: atom or red, add/min/max, 16-bit float lanes. */
export function sweepVariant(gv: GpuVariant): SweepVariant | undefined {
  const e = gv.entry;
  if (e.family !== 'atom' && e.family !== 'red') return undefined;
  const op = e.q.op ?? '';
  if (op === 'cas' && e.q.type === 'b16') return { gv, mode: 0, returns: gv.shape.returns, lanes: gv.shape.elements, format: 'b16', op: 'cas' };
  if (op !== 'add' && op !== 'min' && op !== 'max') return undefined;
  let fmt;
  try {
    fmt = elementFormat(e.q.type ?? '');
  } catch {
    return undefined;
  }
  const lane = fmt.lane;
  if (lane.kind !== 'float' || lane.bits !== 16 || (lane.name !== 'f16' && lane.name !== 'bf16')) return undefined;
  return { gv, mode: 0, returns: gv.shape.returns, lanes: gv.shape.elements * fmt.lanes, format: lane.name, op };
}

/** The state space a sweep's memory resolves to. */
export function sweepSpace(sv: SweepVariant): 'global' | 'shared' {
  return sv.mode === 1 || (sv.gv.entry.q.space ?? '').startsWith('shared') ? 'shared' : 'global';
}

/** How a sweep is named in progress lines and results: the variant id, and where a generic one landed. */
export function sweepName(sv: SweepVariant): string {
  const swap = sv.swap === undefined ? '' : ` (swap 0x${sv.swap.toString(16).padStart(4, '0')})`;
  return `${sv.gv.entry.id}${swap}${sv.mode === 1 ? ' (generic, in shared memory)' : ''}`;
}

/**
 * The variants a full sweep runs: one representative of every (family, op, type, vector, space,
 * destination) with no ordering, scope or cache hint, and each ordering x scope and the cache hint
 * on one representative (atom.global.add.noftz.f16 with them), so every qualifier is swept at least
 * once without sweeping all 6,000 spellings. `keep` filters by variant id.
 */
export function sweepPlan(plan: GpuPlan, keep: (id: string) => boolean): SweepVariant[] {
  const out: SweepVariant[] = [];
  const base = new Set<string>();
  const qualSeen = new Set<string>();
  for (const gv of plan.variants) {
    const s = sweepVariant(gv);
    if (!s || !keep(gv.entry.id)) continue;
    const q = gv.entry.q;
    const plain = !q.sem && !q.scope && !q.hint;
    const shape = [gv.entry.family, q.op, q.type, q.vec ?? '', q.space ?? '', q.d ?? ''].join('|');
    if (plain) {
      if (!base.has(shape)) {
        base.add(shape);
        if (s.op === 'cas') {
          // every (memory, compare) pair with each swap value
          for (const swap of CAS_SWAPS) {
            out.push({ ...s, swap });
            if (gv.shape.generic) out.push({ ...s, swap, mode: 1 });
          }
          continue;
        }
        out.push(s);
        // a generic scalar or packed variant: also with its addresses in shared memory (a vector one
        // "may be used only with .global space and with generic addressing where the address points
        // to .global space", 9.7.13.5 atom / 9.7.13.6 red: in shared memory its results are undefined)
        if (gv.shape.generic && !q.vec) out.push({ ...s, mode: 1 });
      }
      continue;
    }
    // the qualifiers' representative: atom.global.add.noftz.f16 with a destination
    if (shape !== 'atom|add|f16||global|') continue;
    const qk = `${q.sem ?? ''}|${q.scope ?? ''}|${q.hint ?? ''}`;
    const oneQualifier = [q.sem, q.scope, q.hint].filter(Boolean).length;
    if (!qualSeen.has(qk) && (oneQualifier === 1 || (q.sem && q.scope && !q.hint))) {
      qualSeen.add(qk);
      out.push(s);
    }
  }
  return out;
}
