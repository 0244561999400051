/**
 * The judge of a host-memory job (plan.ts): GPU atom/red operations and CPU operations on one word
 * of host memory, concurrently. The contention model (harness/contention/model.ts) extended by the
 * CPU's operations: the observation must be what some serial order of every GPU and CPU operation
 * gives (each thread's operations in program order); where it is not, whether splitting operations
 * into a read and a dependent write explains it (updates lost), and how many were lost; otherwise
 * it is no interleaving at all (a mismatch: a torn or invented value).
 *
 * Every operation class here is built so that the serial result is unique and computed exactly, so
 * thousands of operations need no enumeration:
 * - add (integers, inc, dec, floats with exact integer-valued partial sums: contention's orderFree()
 *   proves every order gives one result): the GPU adds one unit, the CPU a unit 2^S above every GPU
 *   total, so the final value splits into a GPU field and a CPU field and the lost updates of each
 *   side are counted exactly;
 * - cas: compare-and-swap increment loops (GPU unit 1, CPU unit 2^S): the final fields must equal
 *   each side's successful swaps; the shortfall is the lost updates, exactly;
 * - exch: every written value distinct; the returned values must chain from the initial value
 *   through every operation (in each thread's program order) to the final one; a written value
 *   neither returned nor final is an overwritten (lost) update, counted exactly;
 * - or/and/xor: each thread owns one bit and sets and clears it (xor: toggles it) an even number of
 *   times, so in every serial order each owned bit ends as its owner's last operation leaves it; a
 *   bit in the wrong state is a lost update (a lower bound on their number);
 * - min/max: every operand distinct, from counters that grow with the iteration on both sides; the
 *   serial result is the extreme operand; a different final value is a lost update (lower bound 1).
 */
import type { Citation } from '../catalog/cite.js';
import { type FloatFormat, elementFormat } from '../numerics/formats.js';
import { CONTENTION_RULES, orderFree } from '../contention/model.js';
import { hexBits } from '../numerics/hex.js';

export type OpClass = 'add' | 'inc' | 'dec' | 'fadd' | 'min' | 'max' | 'or' | 'and' | 'xor' | 'exch' | 'cas';
export type MemoryKind = 'hostalloc' | 'registered' | 'managed';
export const MEMORY_KINDS: readonly MemoryKind[] = ['hostalloc', 'registered', 'managed'];
export type CpuMode = 'atomic' | 'plain';

/** A sentence of chapter 8 (the memory model's text, ../shared/ptx-memory-model/, PTX ISA 9.4). */
export interface ModelCitation {
  readonly file: string;
  readonly section: string;
  readonly quote: string;
}

export interface HostRule {
  readonly id: string;
  readonly text: string;
  readonly cite: Citation | ModelCitation;
}

/** The rows this judgement encodes (with the contention model's atomic/split rows). */
export const HOSTMEM_RULES = {
  sysLimit: {
    id: 'hostmem.sys-atomicity-limit',
    text: 'a .sys operation on host memory is atomic with respect to the CPU only where the system provides it: "certain strong operations with system scope may not be performed atomically on some systems" (lost updates at .sys against the CPU are allowed, and reported)',
    cite: {
      file: '8.1.1-limitations-on-atomicity-at-system-scope.md',
      section: '8.1.1 Limitations on atomicity at system scope',
      quote: 'When communicating with the host CPU, certain strong operations with system scope may not be performed atomically on some systems.',
    },
  },
  narrowScope: {
    id: 'hostmem.narrow-scope-vs-cpu',
    text: 'a .gpu (or default) scope does not include a CPU thread: against it the operation may be split into a read and a dependent write (updates may be lost)',
    cite: CONTENTION_RULES.split.cite,
  },
  plainCpu: {
    id: 'hostmem.plain-cpu-contrast',
    text: 'the contrast: a CPU load, operation and store is not an atomic operation at all; any interleaving of its read and write with the others is allowed',
    cite: CONTENTION_RULES.split.cite,
  },
} as const satisfies Record<string, HostRule>;

/** One side's operations: `threads` x `iters`, each with its operand rule (plan.ts). */
export interface Side {
  readonly threads: number;
  readonly iters: number;
  /** add/fadd/cas/inc/dec: this side's unit (bits of the format for floats; the CPU's add/sub). */
  readonly unit: bigint;
  /** min/max: counters k * stride + offset + thread; or/and/xor: the first owned bit; exch: the tag. */
  readonly offset: bigint;
}

export interface HostJob {
  readonly id: string;
  /** The GPU variant (catalog id). */
  readonly variant: string;
  /** or/and jobs: the partner instruction that undoes the variant's effect (catalog id). */
  readonly partner?: string;
  readonly family: 'atom' | 'red';
  readonly cls: OpClass;
  readonly type: string;
  /** '' (default: .gpu), 'gpu' or 'sys'. */
  readonly scope: '' | 'gpu' | 'sys';
  readonly memory: MemoryKind;
  readonly cpuMode: CpuMode;
  readonly width: 16 | 32 | 64;
  readonly signed: boolean;
  readonly init: bigint;
  /** min/max: the counter stride per iteration (both sides). */
  readonly stride: bigint;
  readonly gpu: Side & { readonly blocks: number };
  readonly cpu: Side;
}

export interface HostObservation {
  readonly final: bigint;
  /** exch: per GPU operation (thread-major: t * iters + k), the returned value. */
  readonly gpuReturned?: readonly bigint[];
  /** exch: per CPU operation (thread-major). */
  readonly cpuReturned?: readonly bigint[];
  /** cas: successful swaps per side. */
  readonly gpuSuccesses?: number;
  readonly cpuSuccesses?: number;
  /** Overlap evidence: GPU thread 0's operations that saw the CPU mid-run, and the converse. */
  readonly gpuSawCpuMid: number;
  readonly cpuSawGpuMid: number;
  /** The starter gave up waiting for every GPU thread to arrive (2 s). */
  readonly startTimedOut: boolean;
  /** GPU threads that gave up waiting for the start (3 s). */
  readonly spinTimeouts: number;
}

export interface HostJudgement {
  readonly verdict: 'pass' | 'observed' | 'mismatch';
  /** Some serial order of every operation explains the observation. */
  readonly serial: boolean;
  /** Split reads and writes explain it (computed when serial does not). */
  readonly split?: boolean;
  /** Lost updates: per side where the encoding tells them apart; `exact` false: a lower bound. */
  readonly lost: { readonly total: number; readonly gpu?: number; readonly cpu?: number; readonly exact: boolean };
  readonly expected: string;
  readonly overlapped: boolean;
  readonly reason: string;
  readonly rules: readonly HostRule[];
}

const hex = (x: bigint, w: number) => hexBits(w, x);
const maskOf = (w: number) => (1n << BigInt(w)) - 1n;
const popcount = (x: bigint) => x.toString(2).replaceAll('0', '').length;

/** The decoded value of float bits of format `type` as a rational number's numerator over 1 when it is an integer, else undefined. */
function floatInteger(type: string, bits: bigint): bigint | undefined {
  const f = elementFormat(type).lane as FloatFormat;
  const e = Number((bits >> BigInt(f.fracBits)) & ((1n << BigInt(f.expBits)) - 1n));
  const m = bits & ((1n << BigInt(f.fracBits)) - 1n);
  const sign = (bits >> BigInt(f.bits - 1)) & 1n;
  if (e === (1 << f.expBits) - 1) return undefined;
  const bias = (1 << (f.expBits - 1)) - 1;
  if (e === 0) return m === 0n ? 0n : undefined;
  const mant = m | (1n << BigInt(f.fracBits));
  const shift = e - bias - f.fracBits;
  let v: bigint;
  if (shift >= 0) v = mant << BigInt(shift);
  else {
    if (mant & ((1n << BigInt(-shift)) - 1n)) return undefined;
    v = mant >> BigInt(-shift);
  }
  return sign ? -v : v;
}

/** The value of float bits that are an exact integer (for units). */
function unitValue(job: HostJob, bits: bigint): bigint {
  const v = floatInteger(job.type, bits);
  if (v === undefined || v <= 0n) throw new Error(`${job.id}: a float unit must be a positive integer value, got ${hex(bits, job.width)}`);
  return v;
}

/** A min/max operand of `side` (0 GPU, 1 CPU), thread t, iteration k (native/src/hostmem.cc and kernel.ts compute the same). */
export function minmaxOperand(job: HostJob, side: 0 | 1, t: number, k: number): bigint {
  const s = side === 0 ? job.gpu : job.cpu;
  const ctr = BigInt(k) * job.stride + s.offset + BigInt(t);
  const m = maskOf(job.width);
  if (job.cls === 'max') return (ctr + 1n) & m;
  return job.signed ? ~ctr & m : ~(ctr + 1n) & m;
}

/** An exch value of a side, thread t, iteration k. */
export function exchValue(job: HostJob, side: 0 | 1, t: number, k: number): bigint {
  const s = side === 0 ? job.gpu : job.cpu;
  return s.offset | BigInt(t * s.iters + k + 1);
}

/** The bits each side's threads own (or/and/xor). */
export function ownedMask(job: HostJob): bigint {
  let m = 0n;
  for (const s of [job.gpu, job.cpu]) for (let t = 0; t < s.threads; t++) m |= 1n << (s.offset + BigInt(t));
  return m;
}

const toSigned = (x: bigint, w: number) => (x >> BigInt(w - 1) ? x - (1n << BigInt(w)) : x);

function ops(s: Side): number {
  return s.threads * s.iters;
}

/** Exact serial result and lost-update accounting for the additive classes (add, inc, dec, fadd, cas). */
function additive(job: HostJob, obs: HostObservation): { serial: boolean; split: boolean; lost: HostJudgement['lost']; expected: string; detail: string } {
  const w = job.width;
  const nG = job.cls === 'cas' ? (obs.gpuSuccesses ?? 0) : ops(job.gpu);
  const nC = job.cls === 'cas' ? (obs.cpuSuccesses ?? 0) : ops(job.cpu);
  let gU: bigint;
  let cU: bigint;
  let delta: bigint | undefined;
  if (job.cls === 'fadd') {
    gU = unitValue(job, job.gpu.unit);
    cU = unitValue(job, job.cpu.unit);
    // every order gives one result (the contention model's exactness condition over every operand)
    const fmt = elementFormat(job.type);
    const values = [job.init, ...new Array(Math.min(nG, 1)).fill(job.gpu.unit), ...new Array(Math.min(nC, 1)).fill(job.cpu.unit)];
    const total = gU * BigInt(nG) + cU * BigInt(nC);
    const p = (fmt.lane as FloatFormat).fracBits + 1;
    if (!orderFree(fmt, 'add', values) || total >= 1n << BigInt(p))
      throw new Error(`${job.id}: the operands do not make every order exact (total ${total} against 2^${p})`);
    const f = floatInteger(job.type, obs.final);
    const i0 = floatInteger(job.type, job.init) ?? 0n;
    delta = f === undefined ? undefined : f - i0;
  } else {
    gU = job.cls === 'inc' || job.cls === 'dec' ? 1n : job.gpu.unit;
    cU = job.cpu.unit;
    const d = job.cls === 'dec' ? job.init - obs.final : obs.final - job.init;
    delta = ((d % (1n << BigInt(w))) + (1n << BigInt(w))) % (1n << BigInt(w));
  }
  // the GPU field must stay below the CPU unit, or the two sides' counts cannot be told apart
  if (gU * BigInt(ops(job.gpu)) >= cU)
    throw new Error(`${job.id}: the GPU's ${ops(job.gpu)} operations of ${gU} reach the CPU's unit ${cU}: lost updates could not be told apart`);
  const expectedDelta = gU * BigInt(nG) + cU * BigInt(nC);
  const expectedBits = job.cls === 'fadd' ? undefined : job.cls === 'dec' ? (job.init - expectedDelta) & maskOf(w) : (job.init + expectedDelta) & maskOf(w);
  const expected = expectedBits !== undefined ? hex(expectedBits, w) : `${expectedDelta} (${job.type})`;
  if (delta === undefined || delta < 0n)
    return {
      serial: false,
      split: false,
      lost: { total: 0, exact: false },
      expected,
      detail: `final ${hex(obs.final, w)} is not an integer sum of the operands`,
    };
  // fields: the GPU's count below the CPU unit, the CPU's above
  const g = delta % cU;
  const c = delta / cU;
  const gField = gU === 1n ? g : g % gU === 0n ? g / gU : -1n;
  const split = gField >= 0n && gField <= BigInt(nG) && c <= BigInt(nC);
  const lostG = Number(BigInt(nG) - gField);
  const lostC = Number(BigInt(nC) - c);
  const serial = delta === expectedDelta;
  const sides = job.cls === 'cas' ? `${nG} GPU and ${nC} CPU successful swaps` : `${nG} GPU and ${nC} CPU operations`;
  return {
    serial,
    split: serial || split,
    lost: serial
      ? { total: 0, gpu: 0, cpu: 0, exact: true }
      : split
        ? { total: lostG + lostC, gpu: lostG, cpu: lostC, exact: true }
        : { total: 0, exact: false },
    expected,
    detail: serial
      ? `final ${hex(obs.final, w)} is the sum of all ${sides}`
      : split
        ? `final ${hex(obs.final, w)} holds ${gField} of ${nG} GPU and ${c} of ${nC} CPU updates (${sides}; every serial order gives ${expected}): ${lostG} GPU and ${lostC} CPU updates lost`
        : `final ${hex(obs.final, w)} is no sum of a subset of the ${sides} (fields ${gField}, ${c})`,
  };
}

function exch(job: HostJob, obs: HostObservation): { serial: boolean; split: boolean; lost: HostJudgement['lost']; expected: string; detail: string } {
  const w = job.width;
  const gR = obs.gpuReturned ?? [];
  const cR = obs.cpuReturned ?? [];
  if (gR.length !== ops(job.gpu) || cR.length !== ops(job.cpu))
    throw new Error(`${job.id}: ${gR.length}/${cR.length} returned values for ${ops(job.gpu)}/${ops(job.cpu)} operations`);
  // every operation: its side, thread, iteration, written value, returned value
  interface O {
    side: 0 | 1;
    t: number;
    k: number;
    v: bigint;
    r: bigint;
  }
  const all: O[] = [];
  for (const [side, s, R] of [
    [0, job.gpu, gR],
    [1, job.cpu, cR],
  ] as const)
    for (let t = 0; t < s.threads; t++) for (let k = 0; k < s.iters; k++) all.push({ side, t, k, v: exchValue(job, side, t, k), r: R[t * s.iters + k]! });
  const written = new Map<bigint, O>(all.map((o) => [o.v, o]));
  const known = (x: bigint) => x === job.init || written.has(x);
  const bogus = [...all.map((o) => o.r), obs.final].filter((x) => !known(x));
  const observed = new Set<bigint>([...all.map((o) => o.r), obs.final]);
  const lostValues = all.filter((o) => !observed.has(o.v)).length;
  const byReturned = new Map<bigint, O[]>();
  for (const o of all) byReturned.set(o.r, [...(byReturned.get(o.r) ?? []), o]);
  const dup = [...byReturned.values()].filter((x) => x.length > 1).reduce((t, x) => t + x.length - 1, 0);
  // the chain: from the initial value, the one operation that returned the current value, in program order per thread
  let serial = dup === 0 && bogus.length === 0;
  if (serial) {
    let cur = job.init;
    const pos = new Map<string, number>();
    for (let i = 0; i < all.length; i++) {
      const next = byReturned.get(cur);
      if (!next || next.length !== 1) {
        serial = false;
        break;
      }
      const o = next[0]!;
      const key = `${o.side}.${o.t}`;
      if ((pos.get(key) ?? -1) >= o.k) {
        serial = false;
        break;
      }
      pos.set(key, o.k);
      cur = o.v;
    }
    if (serial && cur !== obs.final) serial = false;
  }
  const split = bogus.length === 0;
  return {
    serial,
    split: serial || split,
    lost: serial ? { total: 0, exact: true } : { total: lostValues, exact: true },
    expected: 'a chain of returned values from the initial value through every operation',
    detail: serial
      ? `the ${all.length} returned values and final ${hex(obs.final, w)} chain through every operation`
      : split
        ? `${lostValues} written values were overwritten unseen (neither returned nor final), ${dup} operations returned a value another also returned: no serial order`
        : `${bogus.length} returned or final values were never written (e.g. ${hex(bogus[0]!, w)})`,
  };
}

function bitwise(job: HostJob, obs: HostObservation): { serial: boolean; split: boolean; lost: HostJudgement['lost']; expected: string; detail: string } {
  const w = job.width;
  const owned = ownedMask(job);
  // or: each owner sets then clears (ends clear); and: clears then sets (ends set: the initial state); xor: toggles an even number of times
  const expectedBits = job.cls === 'and' ? job.init : job.init & ~owned & maskOf(w);
  const wrong = obs.final ^ expectedBits;
  const serial = wrong === 0n;
  const split = (wrong & ~owned) === 0n;
  const n = popcount(wrong & owned);
  return {
    serial,
    split: serial || split,
    lost: { total: serial ? 0 : n, exact: serial },
    expected: hex(expectedBits, w),
    detail: serial
      ? `final ${hex(obs.final, w)}: every owned bit as its owner left it`
      : split
        ? `final ${hex(obs.final, w)} against ${hex(expectedBits, w)}: ${n} owned bits in the wrong state (at least ${n} updates lost)`
        : `final ${hex(obs.final, w)} changed bits no operation owns (${hex(wrong & ~owned, w)})`,
  };
}

function minmax(job: HostJob, obs: HostObservation): { serial: boolean; split: boolean; lost: HostJudgement['lost']; expected: string; detail: string } {
  const w = job.width;
  const key = (x: bigint) => (job.signed ? toSigned(x, w) : x);
  let best = job.init;
  const values = new Set<bigint>([job.init]);
  for (const [side, s] of [
    [0, job.gpu],
    [1, job.cpu],
  ] as const)
    for (let t = 0; t < s.threads; t++)
      for (let k = 0; k < s.iters; k++) {
        const v = minmaxOperand(job, side, t, k);
        values.add(v);
        if (job.cls === 'max' ? key(v) > key(best) : key(v) < key(best)) best = v;
      }
  const serial = obs.final === best;
  const split = values.has(obs.final);
  return {
    serial,
    split: serial || split,
    lost: { total: serial ? 0 : 1, exact: false },
    expected: hex(best, w),
    detail: serial
      ? `final ${hex(obs.final, w)} is the ${job.cls} of every operand`
      : split
        ? `final ${hex(obs.final, w)} is an operand but not the ${job.cls} ${hex(best, w)}: an update lost`
        : `final ${hex(obs.final, w)} is no operand`,
  };
}

/** Judges one host-memory job's observation. */
export function judgeHost(job: HostJob, obs: HostObservation): HostJudgement {
  const r =
    job.cls === 'exch'
      ? exch(job, obs)
      : job.cls === 'min' || job.cls === 'max'
        ? minmax(job, obs)
        : job.cls === 'or' || job.cls === 'and' || job.cls === 'xor'
          ? bitwise(job, obs)
          : additive(job, obs);
  const overlapped = obs.gpuSawCpuMid > 0 || obs.cpuSawGpuMid > 0;
  const includesCpu = job.scope === 'sys' && job.cpuMode === 'atomic';
  const allowance = job.cpuMode === 'plain' ? HOSTMEM_RULES.plainCpu : job.scope === 'sys' ? HOSTMEM_RULES.sysLimit : HOSTMEM_RULES.narrowScope;
  const rules: HostRule[] = [includesCpu ? CONTENTION_RULES.atomic : CONTENTION_RULES.split, allowance, CONTENTION_RULES.scopes];
  const ov = `overlap: GPU thread 0 saw the CPU mid-run at ${obs.gpuSawCpuMid} operations, the CPU saw the GPU mid-run at ${obs.cpuSawGpuMid}${obs.startTimedOut || obs.spinTimeouts ? `; start ${obs.startTimedOut ? 'timed out waiting for the GPU' : ''}${obs.spinTimeouts ? ` ${obs.spinTimeouts} GPU threads timed out waiting` : ''}` : ''}`;
  let verdict: HostJudgement['verdict'];
  let why: string;
  if (r.serial) {
    verdict = includesCpu ? 'pass' : 'observed';
    why = includesCpu
      ? 'a serial order of every GPU and CPU operation explains it'
      : `no update lost (${job.cpuMode === 'plain' ? 'the CPU side is not atomic' : `the ${job.scope || 'default .gpu'} scope does not include the CPU`}: losses would be allowed)`;
  } else if (r.split) {
    verdict = 'observed';
    why = `NOT ATOMIC against the CPU: ${r.lost.total}${r.lost.exact ? '' : '+'} updates lost; allowed by ${allowance.id}`;
  } else {
    verdict = 'mismatch';
    why = 'no serial order and no split read/write interleaving explains it';
  }
  return {
    verdict,
    serial: r.serial,
    ...(r.serial ? {} : { split: r.split }),
    lost: r.lost,
    expected: r.expected,
    overlapped,
    reason: `${why}: ${r.detail}; ${ov}`,
    rules,
  };
}
