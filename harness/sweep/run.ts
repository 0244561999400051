/**
 * Runs sweeps: for each swept variant, every pair of 16-bit patterns (or the first `cells` cells of
 * them) through its sweep kernel on the GPU, the cells' records brought back and compared with the
 * reference's (reference.ts, cached); a cell whose record differs is brought back whole and judged
 * pair by pair with the model's fast lane operation, and each case holding a pair the fast path does
 * not pass goes through the full reference judge (allowed set, explanation) as any GPU case does.
 * Every pair is judged: a cell whose record equals the reference's holds exactly the model's results,
 * NaN where the model allows any NaN (those are `observed`; how many of the hardware's NaNs are not
 * the canonical 0x7fff is counted on the device).
 */
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import type { Ptxas } from '../backends/ptxas/toolchain.js';
import { compileModules } from '../backends/gpu/cache.js';
import type { Launcher } from '../backends/gpu/driver.js';
import { loadLauncher } from '../backends/gpu/driver.js';
import { judge } from '../backends/gpu/observations.js';
import { type GpuPlan, gpuPlan } from '../backends/gpu/plan.js';
import { WorkerPool } from '../backends/gpu/pool.js';
import { caseResult } from '../backends/gpu/results.js';
import type { Case } from '../cases/types.js';
import { elementFormat, joinLanes } from '../numerics/formats.js';
import type { EntryResult } from '../report/types.js';
import { sweepKernelName, sweepModule } from './kernel.js';
import { addFlushing } from '../reference/fast.js';
import { laneOpOf, referenceFor } from './reference.js';
import { CELLS, CELL_PAIRS, CELL_WORDS, DEVICE_WORDS, type SweepVariant, nan16, pairA, pairB, sweepName, sweepPlan, sweepSpace } from './space.js';

export interface SweepOptions {
  readonly arch: string;
  readonly ptx: string;
  readonly ptxas: Ptxas;
  readonly cacheDir: string;
  readonly keep: (variantId: string) => boolean;
  /** Cells per variant from cell 0 (CELLS: every pair). */
  readonly cells: number;
  /** Flip the lowest result bit where b is subnormal (the proof that a sweep can fail). */
  readonly selftest: boolean;
  readonly worker: readonly string[];
  readonly workers?: number;
  /** Mismatching cases kept whole per variant (the rest are counted). */
  readonly keepPerVariant?: number;
  readonly onProgress?: (msg: string) => void;
}

export interface SweepOutcome {
  /** The variant id, and for a generic variant run in shared memory, that (sweepName). */
  readonly variant: string;
  readonly id: string;
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
  /** NaN results that are not the canonical NaN 0x7fff. */
  readonly nonCanonicalNaN: number;
  readonly differingCells: number;
  /** Per cell (a_hi << 8 | b_hi): mismatching pairs, and NaN results (observed). */
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

/** Cases kept whole per mismatch signature (and keepPerVariant in all). */
const PER_GROUP = 10;

/** Class of a 16-bit float pattern: 0 +0, 1 -0, 2 +subnormal, 3 -subnormal, 4 +normal, 5 -normal, 6 +inf, 7 -inf, 8 NaN. */
function cls16(exp: number, frac: number, x: number): number {
  const e = x & exp;
  const neg = x & 0x8000 ? 1 : 0;
  if (e === exp) return x & frac ? 8 : 6 + neg;
  if (e === 0) return (x & frac ? 2 : 0) + neg;
  return 4 + neg;
}
const CLASS_NAMES = ['+0', '-0', '+subnormal', '-subnormal', '+normal', '-normal', '+inf', '-inf', 'NaN'];
const POPCOUNT16 = Uint8Array.from({ length: 1 << 16 }, (_, x) => x.toString(2).replace(/0/g, '').length);

/**
 * What went wrong with one pair, as a number that is the same for one behaviour (signatureText says
 * it in words): a wrong returned value; a NaN where the model has a value or the reverse; else the
 * classes of the model's and the observed result, and the bits that differ when they are one or two.
 * A number, not a string: a self-test makes 10^8 of them.
 */
// key layout (a small integer, so maps and compares stay cheap): kind << 26 | want class << 22 | got class << 18 | bits
const MANY_BITS = 0x20000;
function signatureKey(retOk: boolean, want: number, got: number, isNaN: (x: number) => boolean, exp: number, frac: number): number {
  if (!retOk) return 1 << 26;
  if (want < 0) return (2 << 26) | (cls16(exp, frac, got) << 18);
  if (isNaN(got)) return (3 << 26) | (cls16(exp, frac, want) << 22);
  const x = got ^ want;
  return (4 << 26) | (cls16(exp, frac, want) << 22) | (cls16(exp, frac, got) << 18) | (POPCOUNT16[x]! <= 2 ? x : MANY_BITS);
}

function signatureText(key: number): string {
  const kind = key >>> 26;
  const w = (key >>> 22) & 15;
  const g = (key >>> 18) & 15;
  const x = key & 0x3ffff;
  if (kind === 1) return 'returned value is not the memory before';
  if (kind === 2) return `${CLASS_NAMES[g]} where the model allows only NaN`;
  if (kind === 3) return `NaN where the model has ${CLASS_NAMES[w]}`;
  return `${CLASS_NAMES[w]} -> ${CLASS_NAMES[g]}${x !== MANY_BITS ? `, bits 0x${x.toString(16).padStart(4, '0')} differ` : ''}`;
}

/** Pairs per launch: 4096 cells (2^28 pairs; 512 MiB of results). */
const CHUNK_CELLS = 4096;

export async function runSweeps(opts: SweepOptions): Promise<{ plan: GpuPlan; outcomes: SweepOutcome[]; compileSeconds: number }> {
  const plan = gpuPlan(opts.arch, opts.ptx);
  const svs = sweepPlan(plan, opts.keep);
  if (!svs.length) return { plan, outcomes: [], compileSeconds: 0 };
  const t0 = performance.now();
  const mod = await compileModules([sweepModule(opts.arch, opts.ptx, svs)], { ptxas: opts.ptxas, arch: opts.arch, cacheDir: opts.cacheDir });
  const compileSeconds = (performance.now() - t0) / 1000;
  const loaded = loadLauncher();
  if (!('launcher' in loaded)) throw new Error(loaded.reason);
  const l = loaded.launcher;
  l.init();
  l.useDevice(0);
  const m = l.loadModule(readFileSync(mod.modules[0]!.cubin));
  const workers = Math.max(1, opts.workers ?? availableParallelism());
  const pool = new WorkerPool(opts.worker, workers, 3_600_000);
  const memo = new Map<string, Promise<Awaited<ReturnType<typeof referenceFor>>>>();
  const chunkCells = Math.min(CHUNK_CELLS, opts.cells);
  const out = l.memAlloc(chunkCells * CELL_PAIRS * 2);
  const ret = l.memAlloc(svs.some((x) => x.returns) ? chunkCells * CELL_PAIRS * 2 : 16);
  const dig = l.memAlloc(chunkCells * DEVICE_WORDS * 4);
  const outcomes: SweepOutcome[] = [];
  try {
    for (const sv of svs) {
      const e = sv.gv.entry;
      const v = { family: e.family, q: e.q };
      const space = sweepSpace(sv);
      const ts = performance.now();
      const memoKey = `${sv.format}|${e.q.op}|${e.q.op === 'add' ? addFlushing(v, space) : ''}|${sv.swap ?? ''}|${opts.cells}`;
      let ref = memo.get(memoKey);
      if (!ref) {
        ref = referenceFor(v, space, opts.cacheDir, opts.cells, async (from, to) => {
          const o = await pool.call({ type: 'sweep-ref', family: e.family, q: e.q, space, ...(sv.swap !== undefined ? { swap: sv.swap } : {}), from, to });
          if (!('cells' in o) || !o.cells) throw new Error(`a worker failed computing reference cells ${from}-${to}: ${'failed' in o ? o.failed : 'no cells'}`);
          return o.cells;
        }, workers * 4, sv.swap ?? 0);
        memo.set(memoKey, ref);
      }
      const reference = await ref;
      const tg = performance.now();
      const o = sweepOne(l, l.getFunction(m, sweepKernelName(sv.gv)), sv, reference.cells, opts, out, ret, dig, chunkCells);
      const te = performance.now();
      const outcome: SweepOutcome = { ...o, referenceCached: reference.cached, seconds: { reference: (tg - ts) / 1000, gpu: o.gpuSeconds, judge: o.judgeSeconds, total: (te - ts) / 1000 } };
      outcomes.push(outcome);
      opts.onProgress?.(
        `sweep ${o.variant}: ${o.pairs} pairs in ${outcome.seconds.total.toFixed(2)} s (reference ${reference.cached ? 'cached' : 'computed'} ${outcome.seconds.reference.toFixed(2)} s, GPU ${o.gpuSeconds.toFixed(2)} s, judging ${o.judgeSeconds.toFixed(2)} s): ` +
          `pass ${o.pass}, observed ${o.observed} (NaN results not canonical: ${o.nonCanonicalNaN}), mismatch ${o.mismatch} in ${o.differingCells} cells${sv.returns ? ` (returned value not the old one: ${o.returnedMismatch})` : ''}`,
      );
    }
  } finally {
    pool.close();
    l.memFree(out);
    l.memFree(ret);
    l.memFree(dig);
    l.unloadModule(m);
  }
  return { plan, outcomes, compileSeconds };
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
  const isNaN = nan16(sv.format);
  const cellMismatch = new Uint32Array(CELLS);
  const cellNaN = new Uint32Array(CELLS);
  const results: EntryResult[] = [];
  const cap = opts.keepPerVariant ?? 100;
  let pass = 0;
  let observed = 0;
  let mismatch = 0;
  let retBad = 0;
  const groups = new Map<number, MismatchGroup & { kept: number }>();
  let lastSig = -1;
  let lastGrp: (MismatchGroup & { kept: number }) | undefined;
  const fexp = sv.format === 'f16' ? 0x7c00 : 0x7f80;
  const ffrac = sv.format === 'f16' ? 0x3ff : 0x7f;
  let odd = 0;
  let differing = 0;
  let gpuMs = 0;
  let judgeMs = 0;
  const digBuf = Buffer.alloc(chunkCells * DEVICE_WORDS * 4);
  const dig32 = new Uint32Array(digBuf.buffer, digBuf.byteOffset, digBuf.length / 4);
  const cellBuf = Buffer.alloc(CELL_PAIRS * 2);
  const r16 = new Uint16Array(cellBuf.buffer, cellBuf.byteOffset, CELL_PAIRS);
  const retBuf = Buffer.alloc(CELL_PAIRS * 2);
  const ret16 = new Uint16Array(retBuf.buffer, retBuf.byteOffset, CELL_PAIRS);
  const zero = Buffer.alloc(chunkCells * DEVICE_WORDS * 4);
  const fmt = elementFormat(e.q.type ?? '');
  const perElement = fmt.lanes;
  for (let c0 = 0; c0 < opts.cells; c0 += chunkCells) {
    const cells = Math.min(chunkCells, opts.cells - c0);
    const t0 = performance.now();
    l.copyToDevice(dig, zero.subarray(0, cells * DEVICE_WORDS * 4));
    const threads = (cells * CELL_PAIRS) / sv.lanes;
    l.launch(fn, [threads / 256, 1, 1], [256, 1, 1], 0, [1, 1, 1], [out, ret, dig, BigInt(c0 * CELL_PAIRS), BigInt(threads), BigInt(sv.mode), opts.selftest ? 1n : 0n, BigInt(sv.swap ?? 0)]);
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
      l.copyFromDevice(cellBuf, out + BigInt(k * CELL_PAIRS * 2));
      if (sv.returns) l.copyFromDevice(retBuf, ret + BigInt(k * CELL_PAIRS * 2));
      const base = cell << 16;
      for (let q = 0; q < CELL_PAIRS; q++) {
        const p = (base | q) >>> 0;
        const want = op(pairA(p), pairB(p));
        const got = r16[q]!;
        const retOk = !sv.returns || ret16[q] === pairA(p);
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
        const sig = signatureKey(retOk, want, got, isNaN, fexp, ffrac);
        let grp = sig === lastSig ? lastGrp! : groups.get(sig);
        if (!grp) groups.set(sig, (grp = { signature: signatureText(sig), count: 0, example: '', kept: 0 }));
        lastSig = sig;
        lastGrp = grp;
        grp.count++;
        if (grp.kept < PER_GROUP && results.length < cap) {
          grp.kept++;
          // the case of the thread that held this pair, judged in full
          const first = q - (q % sv.lanes);
          const lanes = (x: (p: number) => number) => {
            const els: bigint[] = [];
            for (let k2 = 0; k2 < sv.lanes / perElement; k2++) {
              const parts: bigint[] = [];
              for (let j = 0; j < perElement; j++) parts.push(BigInt(x(((base | (first + k2 * perElement + j)) >>> 0))));
              els.push(joinLanes(fmt, parts));
            }
            return els;
          };
          const input = { memory: lanes(pairA), b: lanes(pairB), ...(sv.swap !== undefined ? { c: lanes(() => sv.swap!) } : {}), ...(sv.mode === 1 ? { space: 'shared' as const } : {}) };
          const observedBits = { memory: lanes((pp) => r16[pp & 0xffff]!), ...(sv.returns ? { returned: lanes((pp) => ret16[pp & 0xffff]!) } : {}) };
          const c: Case = { id: `${e.id}/sweep${sv.mode === 1 ? '-shared' : ''}${sv.swap !== undefined ? `-swap${sv.swap}` : ''}:p=0x${((base | first) >>> 0).toString(16).padStart(8, '0')}`, variant, input, origin: { kind: 'gen', seed: 0, level: 4, index: (base | first) >>> 0 } };
          const verdict = judge(c.id, variant, input, observedBits);
          results.push(caseResult(c, verdict, observedBits, { modulePtx: opts.ptx, sass: 'sweep kernel' }));
          grp.example ||= c.id;
        }
      }
      judgeMs += performance.now() - tj;
    }
  }
  return { variant: sweepName(sv), id: e.id, space, family: e.family, lanes: sv.lanes, pairs: opts.cells * CELL_PAIRS, pass, observed, mismatch, returnedMismatch: retBad, groups: [...groups.values()].sort((x, y) => y.count - x.count).map(({ kept: _k, ...g }) => g), nonCanonicalNaN: odd, differingCells: differing, cellMismatch, cellNaN, results, gpuSeconds: gpuMs / 1000, judgeSeconds: judgeMs / 1000 };
}
