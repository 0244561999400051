/**
 * Runs sweeps: for each swept variant, its 2^32 pairs (or the first `cells` cells of them) through
 * its sweep kernel on the GPU, the cells' records brought back and compared with the reference's
 * (reference.ts, cached); a cell whose record differs is brought back whole and judged pair by pair
 * with the model's fast lane operation, and each case holding a pair the fast path does not pass
 * goes through the full reference judge (allowed set, explanation) as any GPU case does. Every pair
 * is judged: a cell whose record equals the reference's holds exactly the model's results, NaN where
 * the model allows any NaN (those are `observed`; how many of the hardware's NaNs are not the
 * canonical NaN is counted on the device). 32-bit sweeps (one operand against a named value) run
 * after the 16-bit ones, as far as the budget allows.
 */
import { shardSlice } from '../util/shard.js';
import { availableParallelism } from 'node:os';
import { type GpuVariantRun, openModule } from '../backends/gpu/cache.js';
import type { Launcher } from '../backends/gpu/driver.js';
import { judge } from '../compare/judge-case.js';
import { type GpuPlan, gpuPlan } from '../backends/gpu/plan.js';
import { WorkerPool } from '../backends/gpu/pool.js';
import { caseResult } from '../backends/gpu/results.js';
import type { Case } from '../case-readers/types.js';
import { familyPlugin } from '../registry/index.js';
import { elementFormat, joinLanes } from '../numerics/formats.js';
import type { EntryResult } from '../report/types.js';
import { sweepKernelName, sweepModule } from './kernel.js';
import { laneOpOf, referenceFor, referenceWhat } from './reference.js';
import {
  CELLS,
  CELL_PAIRS,
  CELL_WORDS,
  DEVICE_WORDS,
  type SweepVariant,
  domainA,
  domainB,
  domainText,
  laneBits,
  nanOf,
  sweepName,
  sweepPlan,
  sweepSpace,
  sweepTag,
} from './space.js';

/** A sweep run; --shard splits the sweeps (each sweep one unit; the --budget is per shard). */
export interface SweepOptions extends GpuVariantRun {
  /** Cells per variant from cell 0 (CELLS: every pair). */
  readonly cells: number;
  /** Flip the lowest result bit where b is subnormal (the proof that a sweep can fail). */
  readonly selftest: boolean;
  readonly worker: readonly string[];
  readonly workers?: number;
  /** Mismatching cases kept whole per variant (the rest are counted). */
  readonly keepPerVariant?: number;
  /** Seconds the 32-bit sweeps may take together (none starts once the next would pass it); 0: none run. */
  readonly budget: number;
  readonly onProgress?: (msg: string) => void;
}

/** A sweep the budget left out. */
export interface SweepNotRun {
  readonly variant: string;
  readonly domain: string;
}

export interface SweepOutcome {
  /** The variant id, and for a generic variant run in shared memory, that (sweepName). */
  readonly variant: string;
  readonly id: string;
  /** What tells this sweep's cases from the variant's other sweeps ('-shared', '-swap0x5a5a', ...). */
  readonly tag: string;
  /** Which 2^32 pairs, in words. */
  readonly domain: string;
  readonly laneBits: number;
  readonly space: 'global' | 'shared';
  readonly family: string;
  readonly lanes: number;
  readonly pairs: number;
  readonly pass: number;
  readonly observed: number;
  readonly mismatch: number;
  /** Pairs whose returned old value is not the memory before (atom with a destination); among the mismatches. */
  readonly returnedMismatch: number;
  /** The mismatching pairs by what went wrong (signature), with a count and a case kept whole as the example. */
  readonly groups: readonly MismatchGroup[];
  /** NaN results that are not the canonical NaN (0x7fff; f32 0x7fffffff). */
  readonly nonCanonicalNaN: number;
  readonly differingCells: number;
  /** Per cell (pairs16: a_hi << 8 | b_hi; one32: x >>> 16): mismatching pairs, and NaN results (observed). */
  readonly cellMismatch: Uint32Array;
  readonly cellNaN: Uint32Array;
  readonly referenceCached: boolean;
  readonly seconds: { reference: number; gpu: number; judge: number; total: number };
  /** Cases with a mismatch, kept whole (up to keepPerVariant). */
  readonly results: EntryResult[];
}

export interface MismatchGroup {
  readonly signature: string;
  count: number;
  example: string;
}

/** Cases kept whole per mismatch signature (and keepPerVariant in all, past which each new group still keeps its first). */
const PER_GROUP = 10;
/** Groups per sweep; mismatches of further kinds are counted in one last group. */
const MAX_GROUPS = 64;
const OTHER_KINDS = -1;

/** Class of a float pattern: 0 +0, 1 -0, 2 +subnormal, 3 -subnormal, 4 +normal, 5 -normal, 6 +inf, 7 -inf, 8 NaN. */
function cls(m: LaneMasks, x: number): number {
  const e = x & m.exp;
  const neg = x & m.sign ? 1 : 0;
  if (e === m.exp) return x & m.frac ? 8 : 6 + neg;
  if (e === 0) return (x & m.frac ? 2 : 0) + neg;
  return 4 + neg;
}
const CLASS_NAMES = ['+0', '-0', '+subnormal', '-subnormal', '+normal', '-normal', '+inf', '-inf', 'NaN'];

interface LaneMasks {
  readonly exp: number;
  readonly frac: number;
  readonly sign: number;
  readonly hex: number;
}
function masksOf(format: string): LaneMasks {
  if (format === 'f32') return { exp: 0x7f800000, frac: 0x7fffff, sign: 0x80000000, hex: 8 };
  if (format === 'bf16') return { exp: 0x7f80, frac: 0x7f, sign: 0x8000, hex: 4 };
  return { exp: 0x7c00, frac: 0x3ff, sign: 0x8000, hex: 4 };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/**
 * What went wrong with one pair, as a number that is the same for one behaviour (signatureText says
 * it in words): a wrong returned value; a NaN where the model has a value or the reverse; else the
 * classes of the model's and the observed result, and, when the class is the same, the bits that
 * differ if they are one or two (a last-bit fault; across classes the bits are only the values).
 * A number, not a string: a self-test makes 10^8 of them. Layout: kind * 2^40 + want class * 2^36 +
 * got class * 2^32 + differing bits (0: more than two).
 */
function signatureKey(retOk: boolean, want: number, got: number, isNaN: (x: number) => boolean, m: LaneMasks): number {
  if (!retOk) return 2 ** 40;
  if (want < 0) return 2 * 2 ** 40 + cls(m, got) * 2 ** 32;
  if (isNaN(got)) return 3 * 2 ** 40 + cls(m, want) * 2 ** 36;
  const x = (got ^ want) >>> 0;
  const cw = cls(m, want);
  const cg = cls(m, got);
  return 4 * 2 ** 40 + cw * 2 ** 36 + cg * 2 ** 32 + (cw === cg && popcount(x) <= 2 ? x : 0);
}

function signatureText(key: number, m: LaneMasks): string {
  const kind = Math.floor(key / 2 ** 40);
  const w = Math.floor(key / 2 ** 36) % 16;
  const g = Math.floor(key / 2 ** 32) % 16;
  const x = key % 2 ** 32;
  if (kind === 1) return 'returned value is not the memory before';
  if (kind === 2) return `${CLASS_NAMES[g]} where the model allows only NaN`;
  if (kind === 3) return `NaN where the model has ${CLASS_NAMES[w]}`;
  return `${CLASS_NAMES[w]} -> ${CLASS_NAMES[g]}${x ? `, bits 0x${x.toString(16).padStart(m.hex, '0')} differ` : ''}`;
}

/** Pairs per launch: 4096 cells (2^28 pairs; 512 MiB of results). */
const CHUNK_CELLS = 4096;

/** Where a run's seconds went, by stage (summed over sweeps). */
export interface SweepProfile {
  /** The catalog's variants for the target (and filter), and which sweep. */
  plan: number;
  compile: number;
  load: number;
  workers: number;
  reference: number;
  gpu: number;
  judge: number;
}

export async function runSweeps(opts: SweepOptions): Promise<{ plan: GpuPlan; outcomes: SweepOutcome[]; notRun: SweepNotRun[]; profile: SweepProfile }> {
  const tp = performance.now();
  const plan = gpuPlan(opts.arch, opts.ptx, opts.filter);
  const all = shardSlice(
    sweepPlan(plan, () => true),
    opts.shard,
  );
  const svs = opts.budget > 0 ? all : all.filter((x) => x.domain.kind !== 'one32');
  const notRun: SweepNotRun[] = all.filter((x) => !svs.includes(x)).map((x) => ({ variant: sweepName(x), domain: domainText(x.domain) }));
  const profile: SweepProfile = { plan: (performance.now() - tp) / 1000, compile: 0, load: 0, workers: 0, reference: 0, gpu: 0, judge: 0 };
  if (!svs.length) return { plan, outcomes: [], notRun, profile };
  const t0 = performance.now();
  const { l, m, compileSeconds } = await openModule(sweepModule(opts.arch, opts.ptx, svs), { ptxas: opts.ptxas, arch: opts.arch, cacheDir: opts.cacheDir });
  profile.compile = compileSeconds;
  const t1 = t0 + compileSeconds * 1000;
  const workers = Math.max(1, opts.workers ?? availableParallelism());
  // the worker processes start only when a reference is not in the cache
  let pool: WorkerPool | undefined;
  const memo = new Map<string, Promise<Awaited<ReturnType<typeof referenceFor>>>>();
  const chunkCells = Math.min(CHUNK_CELLS, opts.cells);
  const maxBytes = Math.max(...svs.map((x) => laneBits(x) / 8));
  const out = l.memAlloc(chunkCells * CELL_PAIRS * maxBytes);
  const ret = l.memAlloc(svs.some((x) => x.returns) ? chunkCells * CELL_PAIRS * maxBytes : 16);
  const dig = l.memAlloc(chunkCells * DEVICE_WORDS * 4);
  profile.load = (performance.now() - t1) / 1000;
  const outcomes: SweepOutcome[] = [];
  let wideStart = -1;
  let wideDone = 0;
  try {
    for (const [i, sv] of svs.entries()) {
      const e = sv.gv.entry;
      const v = { family: e.family, q: e.q };
      const space = sweepSpace(sv);
      if (sv.domain.kind === 'one32') {
        // the budget: no 32-bit sweep starts once the mean so far says it would end past it
        const now = performance.now();
        if (wideStart < 0) wideStart = now;
        const spent = (now - wideStart) / 1000;
        if (spent + (wideDone ? spent / wideDone : 0) > opts.budget) {
          for (const x of svs.slice(i)) notRun.push({ variant: sweepName(x), domain: domainText(x.domain) });
          opts.onProgress?.(`sweep: the --budget of ${opts.budget} s for 32-bit sweeps is spent (${spent.toFixed(1)} s); ${svs.length - i} of them not run`);
          break;
        }
      }
      const ts = performance.now();
      const memoKey = `${referenceWhat(v, space, sv.swap ?? 0, sv.domain).join('|')}|${opts.cells}`;
      let ref = memo.get(memoKey);
      if (!ref) {
        ref = referenceFor(
          v,
          space,
          opts.cacheDir,
          opts.cells,
          async (from, to) => {
            if (!pool) {
              const tw = performance.now();
              pool = new WorkerPool(opts.worker, workers, 3_600_000);
              profile.workers += (performance.now() - tw) / 1000;
            }
            const o = await pool.call({
              type: 'sweep-ref',
              family: e.family,
              q: e.q,
              space,
              ...(sv.swap !== undefined ? { swap: sv.swap } : {}),
              domain: sv.domain,
              from,
              to,
            });
            if (!('cells' in o) || !o.cells)
              throw new Error(`a worker failed computing reference cells ${from}-${to}: ${'failed' in o ? o.failed : 'no cells'}`);
            return o.cells;
          },
          workers * 4,
          sv.swap ?? 0,
          sv.domain,
        );
        memo.set(memoKey, ref);
      }
      const reference = await ref;
      const tg = performance.now();
      const o = sweepOne(l, l.getFunction(m, sweepKernelName(sv.gv)), sv, reference.cells, opts, out, ret, dig, chunkCells);
      const te = performance.now();
      const outcome: SweepOutcome = {
        ...o,
        referenceCached: reference.cached,
        seconds: { reference: (tg - ts) / 1000, gpu: o.gpuSeconds, judge: o.judgeSeconds, total: (te - ts) / 1000 },
      };
      profile.reference += outcome.seconds.reference;
      profile.gpu += o.gpuSeconds;
      profile.judge += o.judgeSeconds;
      outcomes.push(outcome);
      if (sv.domain.kind === 'one32') wideDone++;
      opts.onProgress?.(
        `sweep ${o.variant}: ${o.pairs} pairs in ${outcome.seconds.total.toFixed(2)} s (reference ${reference.cached ? 'cached' : 'computed'} ${outcome.seconds.reference.toFixed(2)} s, GPU ${o.gpuSeconds.toFixed(2)} s, judging ${o.judgeSeconds.toFixed(2)} s): ` +
          `pass ${o.pass}, observed ${o.observed} (NaN results not canonical: ${o.nonCanonicalNaN}), mismatch ${o.mismatch} in ${o.differingCells} cells${sv.returns ? ` (returned value not the old one: ${o.returnedMismatch})` : ''}`,
      );
    }
  } finally {
    (pool as WorkerPool | undefined)?.close();
    l.memFree(out);
    l.memFree(ret);
    l.memFree(dig);
    l.unloadModule(m);
  }
  return { plan, outcomes, notRun, profile };
}

function sweepOne(
  l: Launcher,
  fn: bigint,
  sv: SweepVariant,
  refCells: Uint32Array,
  opts: SweepOptions,
  out: bigint,
  ret: bigint,
  dig: bigint,
  chunkCells: number,
): Omit<SweepOutcome, 'referenceCached' | 'seconds'> & { gpuSeconds: number; judgeSeconds: number } {
  const e = sv.gv.entry;
  const variant = { family: e.family, q: e.q, ptx: e.ptx, id: e.id };
  const space = sweepSpace(sv);
  const op = laneOpOf(variant, space, sv.swap ?? 0);
  const isNaN = nanOf(sv.format);
  const pairA = domainA(sv.domain);
  const pairB = domainB(sv.domain);
  const masks = masksOf(sv.format);
  const lb = laneBits(sv);
  const cellMismatch = new Uint32Array(CELLS);
  const cellNaN = new Uint32Array(CELLS);
  const results: EntryResult[] = [];
  const cap = opts.keepPerVariant ?? 100;
  const tag = sweepTag(sv);
  let pass = 0;
  let observed = 0;
  let mismatch = 0;
  let retBad = 0;
  const groups = new Map<number, MismatchGroup & { kept: number }>();
  let lastSig = -1;
  let lastGrp: (MismatchGroup & { kept: number }) | undefined;
  let odd = 0;
  let differing = 0;
  let gpuMs = 0;
  let judgeMs = 0;
  const digBuf = Buffer.alloc(chunkCells * DEVICE_WORDS * 4);
  const dig32 = new Uint32Array(digBuf.buffer, digBuf.byteOffset, digBuf.length / 4);
  const cellBytes = CELL_PAIRS * (lb / 8);
  const cellBuf = Buffer.alloc(cellBytes);
  const rv = lb === 16 ? new Uint16Array(cellBuf.buffer, cellBuf.byteOffset, CELL_PAIRS) : new Uint32Array(cellBuf.buffer, cellBuf.byteOffset, CELL_PAIRS);
  const retBuf = Buffer.alloc(cellBytes);
  const retv = lb === 16 ? new Uint16Array(retBuf.buffer, retBuf.byteOffset, CELL_PAIRS) : new Uint32Array(retBuf.buffer, retBuf.byteOffset, CELL_PAIRS);
  const zero = Buffer.alloc(chunkCells * DEVICE_WORDS * 4);
  const fmt = elementFormat(e.q.type ?? '');
  const perElement = fmt.lanes;
  // the case's operand b is `source` for a family whose cases name it so (bulk reductions)
  const bName = familyPlugin(e.family).shape.inputs(e.q).includes('source') ? 'source' : 'b';
  const mode = sv.mode | (sv.domain.kind === 'one32' && sv.domain.role === 'memory' ? 2 : 0);
  const val = sv.domain.kind === 'one32' ? sv.domain.value.bits >>> 0 : (sv.swap ?? 0);
  const cluster = sv.gv.shape.clustered ? 2 : 1;
  for (let c0 = 0; c0 < opts.cells; c0 += chunkCells) {
    const cells = Math.min(chunkCells, opts.cells - c0);
    const t0 = performance.now();
    l.copyToDevice(dig, zero.subarray(0, cells * DEVICE_WORDS * 4));
    const threads = (cells * CELL_PAIRS) / sv.lanes;
    l.launch(
      fn,
      [threads / 256, 1, 1],
      [256, 1, 1],
      0,
      [cluster, 1, 1],
      [out, ret, dig, BigInt(c0 * CELL_PAIRS), BigInt(threads), BigInt(mode), opts.selftest ? 1n : 0n, BigInt(val)],
    );
    l.synchronize();
    l.copyFromDevice(digBuf.subarray(0, cells * DEVICE_WORDS * 4), dig);
    const t1 = performance.now();
    gpuMs += t1 - t0;
    for (let k = 0; k < cells; k++) {
      const cell = c0 + k;
      const g = k * DEVICE_WORDS;
      const r = cell * CELL_WORDS;
      odd += dig32[g + 3]!;
      if (dig32[g] === refCells[r] && dig32[g + 1] === refCells[r + 1] && dig32[g + 2] === refCells[r + 2] && dig32[g + 4] === 0) {
        const nans = refCells[r + 2]!;
        observed += nans;
        pass += CELL_PAIRS - nans;
        cellNaN[cell] = nans;
        continue;
      }
      // a cell that differs: its results, pair by pair
      differing++;
      const tj = performance.now();
      l.copyFromDevice(cellBuf, out + BigInt(k * cellBytes));
      if (sv.returns) l.copyFromDevice(retBuf, ret + BigInt(k * cellBytes));
      const base = cell << 16;
      for (let q = 0; q < CELL_PAIRS; q++) {
        const p = (base | q) >>> 0;
        const want = op(pairA(p), pairB(p));
        const got = rv[q]!;
        const retOk = !sv.returns || retv[q] === pairA(p);
        if (!retOk) retBad++;
        if (retOk && (want < 0 ? isNaN(got) : got === want)) {
          if (want < 0) {
            observed++;
            cellNaN[cell]!++;
          } else pass++;
          continue;
        }
        mismatch++;
        cellMismatch[cell]!++;
        let sig = signatureKey(retOk, want, got, isNaN, masks);
        let grp = sig === lastSig ? lastGrp! : groups.get(sig);
        if (!grp && groups.size >= MAX_GROUPS) {
          sig = OTHER_KINDS;
          grp = groups.get(sig);
        }
        if (!grp)
          groups.set(
            sig,
            (grp = {
              signature: sig === OTHER_KINDS ? `other kinds (past the first ${MAX_GROUPS - 1})` : signatureText(sig, masks),
              count: 0,
              example: '',
              kept: 0,
            }),
          );
        lastSig = sig;
        lastGrp = grp;
        grp.count++;
        if (grp.kept < PER_GROUP && (results.length < cap || grp.kept === 0)) {
          grp.kept++;
          // the case of the thread that held this pair, judged in full
          const first = q - (q % sv.lanes);
          const lanes = (x: (p: number) => number) => {
            const els: bigint[] = [];
            for (let k2 = 0; k2 < sv.lanes / perElement; k2++) {
              const parts: bigint[] = [];
              for (let j = 0; j < perElement; j++) parts.push(BigInt(x((base | (first + k2 * perElement + j)) >>> 0)));
              els.push(joinLanes(fmt, parts));
            }
            return els;
          };
          const input = {
            memory: lanes(pairA),
            [bName]: lanes(pairB),
            ...(sv.swap !== undefined ? { c: lanes(() => sv.swap!) } : {}),
            ...(sv.mode === 1 ? { space: 'shared' as const } : {}),
          };
          const observedBits = { memory: lanes((pp) => rv[pp & 0xffff]!), ...(sv.returns ? { returned: lanes((pp) => retv[pp & 0xffff]!) } : {}) };
          const c: Case = {
            id: `${e.id}/sweep${tag}:p=0x${((base | first) >>> 0).toString(16).padStart(8, '0')}`,
            variant,
            input,
            origin: { kind: 'gen', seed: 0, level: 4, index: (base | first) >>> 0 },
          };
          const verdict = judge(c.id, variant, input, observedBits);
          results.push(caseResult(c, verdict, observedBits, { modulePtx: opts.ptx, sass: 'sweep kernel' }));
          grp.example ||= c.id;
        }
      }
      judgeMs += performance.now() - tj;
    }
  }
  return {
    variant: sweepName(sv),
    id: e.id,
    tag,
    domain: domainText(sv.domain),
    laneBits: lb,
    space,
    family: e.family,
    lanes: sv.lanes,
    pairs: opts.cells * CELL_PAIRS,
    pass,
    observed,
    mismatch,
    returnedMismatch: retBad,
    groups: [...groups.values()].sort((x, y) => y.count - x.count).map(({ kept: _k, ...g }) => g),
    nonCanonicalNaN: odd,
    differingCells: differing,
    cellMismatch,
    cellNaN,
    results,
    gpuSeconds: gpuMs / 1000,
    judgeSeconds: judgeMs / 1000,
  };
}
