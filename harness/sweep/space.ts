/**
 * Exhaustive sweeps: 2^32 operand pairs per sweep, in one of two domains. `pairs16`: every pair
 * (memory a, operand b) of 16-bit patterns. `one32`: every 32-bit pattern x of one operand against
 * one named value v of the other (x as operand b with memory v, or x as memory with operand v).
 * Shared by the host (reference digests, judging) and the device kernel (kernel.ts computes the same
 * mapping and hash in PTX; tests hold the two equal through the stand-in launcher, which runs the
 * TypeScript).
 *
 * one32: pair index p is x itself, so a cell (p >>> 16) is x's high 16 bits (sign, exponent, the
 * mantissa's top 7 bits) and the map's rows are x's high byte, its columns the next byte.
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
import { gpuFamily } from '../registry/gpu.js';
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
/** r for a NaN result in the hash of a one32 sweep: a NaN pattern, so no value result equals it. */
export const NAN_TOKEN32 = 0x7fffffff;
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

/** A lane op of the model's fast path: the one result (unsigned), or -1 where any NaN is allowed. */
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
export function referenceCell(op: LaneOp, cell: number, out: Uint32Array, at: number, domain: Domain = PAIRS16): void {
  if (domain.kind === 'one32') return referenceCell32(op, cell, out, at, domain);
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

/** A named value of the other operand in a one32 sweep. */
export interface Special {
  readonly name: string;
  readonly bits: number;
}

/**
 * The values a 32-bit float add is swept against (every x of the other operand), in the order a
 * --budget runs them: zeros, ones, the subnormal and normal boundaries, the largest finite values,
 * infinities, a quiet and a signalling NaN, and two rounding boundaries.
 */
export const SPECIALS32: readonly Special[] = [
  { name: '+0', bits: 0x00000000 },
  { name: '-0', bits: 0x80000000 },
  { name: '+1', bits: 0x3f800000 },
  { name: '-1', bits: 0xbf800000 },
  { name: '+min subnormal', bits: 0x00000001 },
  { name: '-min subnormal', bits: 0x80000001 },
  { name: '+max subnormal', bits: 0x007fffff },
  { name: '-max subnormal', bits: 0x807fffff },
  { name: '+min normal', bits: 0x00800000 },
  { name: '-min normal', bits: 0x80800000 },
  { name: '+max finite', bits: 0x7f7fffff },
  { name: '-max finite', bits: 0xff7fffff },
  { name: '+inf', bits: 0x7f800000 },
  { name: '-inf', bits: 0xff800000 },
  { name: 'quiet NaN 0x7fc00000', bits: 0x7fc00000 },
  { name: 'signalling NaN 0x7f800001', bits: 0x7f800001 },
  { name: '2^24', bits: 0x4b800000 },
  { name: '1 + ulp', bits: 0x3f800001 },
];

/** What 2^32 pairs a sweep covers. */
export type Domain =
  | { readonly kind: 'pairs16' }
  /** role 'operand': memory x, operand b = the value; role 'memory': memory = the value, operand b = x. */
  | { readonly kind: 'one32'; readonly value: Special; readonly role: 'memory' | 'operand' };

export const PAIRS16: Domain = { kind: 'pairs16' };

/** Memory a and operand b of pair p in a domain. */
export function domainA(d: Domain): (p: number) => number {
  if (d.kind === 'pairs16') return pairA;
  const v = d.value.bits >>> 0;
  return d.role === 'memory' ? () => v : (p) => p >>> 0;
}
export function domainB(d: Domain): (p: number) => number {
  if (d.kind === 'pairs16') return pairB;
  const v = d.value.bits >>> 0;
  return d.role === 'memory' ? (p) => p >>> 0 : () => v;
}

/** The NaN token of a domain's hash. */
export const nanToken = (d: Domain) => (d.kind === 'pairs16' ? NAN_TOKEN : NAN_TOKEN32);

/** How a domain is said in reports: what the 2^32 pairs are. */
export function domainText(d: Domain): string {
  if (d.kind === 'pairs16') return 'every 16-bit memory a x every 16-bit operand b';
  const v = `${d.value.name} (0x${(d.value.bits >>> 0).toString(16).padStart(8, '0')})`;
  return d.role === 'memory' ? `memory ${v} x every 32-bit operand b` : `every 32-bit memory a x operand b ${v}`;
}

function referenceCell32(op: LaneOp, cell: number, out: Uint32Array, at: number, d: Domain & { kind: 'one32' }): void {
  let h1 = 0;
  let h2 = 0;
  let nans = 0;
  const base = cell << 16;
  const v = d.value.bits >>> 0;
  const memory = d.role === 'memory';
  for (let k = 0; k < CELL_PAIRS; k++) {
    const p = (base | k) >>> 0;
    let r = memory ? op(v, p) : op(p, v);
    if (r === -1) {
      r = NAN_TOKEN32;
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

/** Whether a pattern of a lane format is a NaN (b16: never). */
export function nanOf(format: LaneFormat): (x: number) => boolean {
  if (format === 'f32') return (x) => (x & 0x7f800000) === 0x7f800000 && (x & 0x7fffff) !== 0;
  return nan16(format);
}

export type LaneFormat = 'f16' | 'bf16' | 'b16' | 'f32';

/** A variant the sweep runs: its lanes per thread, and the pairs it covers. */
export interface SweepVariant {
  readonly gv: GpuVariant;
  /** 1: a generic variant whose addresses land in shared memory (cvta.shared), as a case's `space: shared`. */
  readonly mode: 0 | 1;
  /** Whether the kernel checks the returned old values (atom with a destination). */
  readonly returns: boolean;
  /** Lanes per case (vector length x lanes per element), each one pair. */
  readonly lanes: number;
  readonly format: LaneFormat;
  readonly op: string;
  readonly domain: Domain;
  /** cas: the swap value (operand c) of every pair. */
  readonly swap?: number;
}

/** Bits per lane. */
export const laneBits = (sv: Pick<SweepVariant, 'format'>) => (sv.format === 'f32' ? 32 : 16);

/** The swap values a cas sweep runs with: every (memory, compare) pair with each. */
export const CAS_SWAPS = [0x0000, 0xffff, 0x5a5a] as const;

/**
 * Whether a plan variant is swept, and how: the family says which operation a sweep of it applies
 * (its gpu.ts `sweep` hooks); 16-bit float lanes (add, min, max) and cas on .b16 sweep every pair,
 * 32-bit float add sweeps one operand against SPECIALS32 (as `one32` with the first value; sweepPlan
 * makes the others).
 */
export function sweepVariant(gv: GpuVariant): SweepVariant | undefined {
  const e = gv.entry;
  const hooks = gpuFamily(e.family)?.sweep;
  const op = hooks?.op(e);
  if (!op) return undefined;
  const base = { gv, mode: 0 as const, returns: gv.shape.returns, op };
  if (op === 'cas' && e.q.type === 'b16') return { ...base, lanes: gv.shape.elements, format: 'b16', domain: PAIRS16 };
  if (op !== 'add' && op !== 'min' && op !== 'max') return undefined;
  let fmt;
  try {
    fmt = elementFormat(e.q.type ?? '');
  } catch {
    return undefined;
  }
  const lane = fmt.lane;
  if (lane.kind !== 'float') return undefined;
  if (lane.bits === 16 && (lane.name === 'f16' || lane.name === 'bf16'))
    return { ...base, lanes: gv.shape.elements * fmt.lanes, format: lane.name, domain: PAIRS16 };
  if (lane.name === 'f32' && op === 'add')
    return { ...base, lanes: gv.shape.elements, format: 'f32', domain: { kind: 'one32', value: SPECIALS32[0]!, role: 'operand' } };
  return undefined;
}

/** The state space a sweep's memory resolves to. */
export function sweepSpace(sv: SweepVariant): 'global' | 'shared' {
  return sv.mode === 1 || (sv.gv.entry.q.space ?? '').startsWith('shared') ? 'shared' : 'global';
}

/** What tells one sweep of a variant from another, for case ids: '', '-shared', '-swap0x5a5a', '-x+0'... */
export function sweepTag(sv: SweepVariant): string {
  const d = sv.domain;
  const dom = d.kind === 'one32' ? `-${d.role === 'memory' ? 'mem' : 'b'}=0x${(d.value.bits >>> 0).toString(16).padStart(8, '0')}` : '';
  return `${sv.mode === 1 ? '-shared' : ''}${sv.swap === undefined ? '' : `-swap0x${sv.swap.toString(16).padStart(4, '0')}`}${dom}`;
}

/** How a sweep is named in progress lines and results: the variant id, and where a generic one landed. */
export function sweepName(sv: SweepVariant): string {
  const swap = sv.swap === undefined ? '' : ` (swap 0x${sv.swap.toString(16).padStart(4, '0')})`;
  const d = sv.domain;
  const dom = d.kind === 'one32' ? ` (${d.role === 'memory' ? 'memory' : 'b'} = ${d.value.name})` : '';
  return `${sv.gv.entry.id}${swap}${dom}${sv.mode === 1 ? ' (generic, in shared memory)' : ''}`;
}

/** The qualifiers a representative's spelling varies (ordering, scope, cache hint). */
const QUALIFIERS = ['sem', 'scope', 'hint'] as const;

/**
 * The variants a full sweep runs. 16-bit pairs: one representative of every (family, op, type,
 * vector, space, destination...) with no ordering, scope or cache hint, each with every mode its
 * family allows (a generic one also in shared memory) and, for cas, every swap value; and each
 * ordering x scope and the cache hint on the family's qualifier representative (its gpu.ts says
 * which), so every qualifier is swept at least once without sweeping all 6,000 spellings. 32-bit
 * float add: one per family x space (generic, global, shared) x scalar or vector, each against
 * every SPECIALS32 value in both roles, value by value (`one32`, at the end: what a --budget cuts).
 * `keep` filters by variant id.
 */
export function sweepPlan(plan: GpuPlan, keep: (id: string) => boolean): SweepVariant[] {
  const out: SweepVariant[] = [];
  const wide: SweepVariant[] = [];
  const base = new Set<string>();
  const qualSeen = new Set<string>();
  const wideSeen = new Set<string>();
  for (const gv of plan.variants) {
    const s = sweepVariant(gv);
    if (!s || !keep(gv.entry.id)) continue;
    const q = gv.entry.q;
    const hooks = gpuFamily(gv.entry.family)!.sweep!;
    const plain = QUALIFIERS.every((k) => !q[k]);
    const shape = `${gv.entry.family}|${JSON.stringify(
      Object.entries(q)
        .filter(([k, x]) => x && !(QUALIFIERS as readonly string[]).includes(k))
        .sort(),
    )}`;
    const modes = hooks.modes(gv.entry, gv.shape);
    if (plain) {
      if (base.has(shape)) continue;
      base.add(shape);
      if (s.domain.kind === 'one32') {
        // 32-bit: one per family, space (generic, global, shared: its spellings alias) and scalar or
        // vector, the first spelling (with a destination before the bit bucket)
        const sp = q.space ?? '';
        const wk = `${gv.entry.family}|${sp.startsWith('shared') ? 'shared' : sp}|${q.vec ? 'vector' : ''}`;
        if (wideSeen.has(wk)) continue;
        wideSeen.add(wk);
      }
      for (const mode of modes) {
        if (s.domain.kind === 'one32') wide.push({ ...s, mode });
        else if (s.op === 'cas') for (const swap of CAS_SWAPS) out.push({ ...s, swap, mode });
        else out.push({ ...s, mode });
      }
      continue;
    }
    if (s.domain.kind === 'one32' || !hooks.qualifierRepresentative(gv.entry)) continue;
    const qk = `${gv.entry.family}|${q.sem ?? ''}|${q.scope ?? ''}|${q.hint ?? ''}`;
    const oneQualifier = QUALIFIERS.filter((k) => q[k]).length;
    if (!qualSeen.has(qk) && (oneQualifier === 1 || (q.sem && q.scope && !q.hint))) {
      qualSeen.add(qk);
      out.push(s);
    }
  }
  for (const value of SPECIALS32)
    for (const role of ['operand', 'memory'] as const) for (const s of wide) out.push({ ...s, domain: { kind: 'one32', value, role } });
  return out;
}
