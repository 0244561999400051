/**
 * The reference backend on a packed block of vector-file cases (harness/case-readers/packed.ts): the fast
 * path of the model (harness/reference/fast.ts) judges whole groups of slots at once, and only what
 * it cannot call a plain pass goes through `runCaseOnReference` as a Case object. It is a speed-up of
 * runCaseOnReference, never a second judge (tests/backends/reference-packed.test.ts runs both on the
 * same cases and demands the same verdicts):
 * - a case with `expect: memory:` (and maybe `returned:`) passes here when the expected bits are
 *   exactly the one outcome the model allows, or a NaN where it allows any NaN (fastChecker, the
 *   expectation standing where the GPU judge has the observation);
 * - a case without `expect:` passes here when the model evaluates it to one outcome, or to one
 *   outcome per element but an open NaN (fastOutcome);
 * - everything else (an expect the fast path does not confirm, `returned:`
 *   alone, a variant without a fast path, 64-bit elements without expect) goes the full way.
 * Plain passes that must be kept whole in the report (`keepWhole`: the first of a run; every one
 * under --keep all) are made from the words (harness/backends/reference/packed-pass.ts), each line
 * the text the full way would give; anything else kept whole goes the full way.
 */
import { Tally } from '../../report/tally.js';
import {
  HAS_EXPECT_MEMORY,
  HAS_EXPECT_RETURNED,
  type PackVariant,
  type PackedCases,
  SLOT_WORDS,
  SPACE_GLOBAL,
  SPACE_SHARED,
  unpack,
} from '../../case-readers/packed.js';
import { type BatchChecker, fastChecker, fastOutcome } from '../../reference/fast.js';
import { type FloatFormat, classify } from '../../numerics/formats.js';
import type { EntryResult } from '../../report/types.js';
import { runCaseOnReference } from './cases.js';
import { type PassGroup, packedPass, passGroup } from './packed-pass.js';
import { LineBytes } from '../../report/lines.js';

/** How a case is judged fast: 0 no expect (outcome), 1 expect memory, 2 expect memory and returned, 3 the full way. */
function expectKind(bits: number): number {
  const m = bits & HAS_EXPECT_MEMORY;
  const r = bits & HAS_EXPECT_RETURNED;
  return m ? (r ? 2 : 1) : r ? 3 : 0;
}

const CHECKERS = new WeakMap<PackVariant, Map<number, BatchChecker | null>>();

/** The fast path for a variant, space (bits) and expect kind, or undefined. */
function checkerFor(v: PackVariant, space: number, kind: number): BatchChecker | undefined {
  let m = CHECKERS.get(v);
  if (!m) CHECKERS.set(v, (m = new Map()));
  const key = space * 4 + kind;
  let c = m.get(key);
  if (c === undefined) {
    const sp = space & SPACE_GLOBAL ? 'global' : space & SPACE_SHARED ? 'shared' : undefined;
    c = (kind === 0 ? fastOutcome(v.variant, v.lanes, sp) : kind === 3 ? undefined : fastChecker(v.variant, v.lanes, sp, kind === 2)) ?? null;
    m.set(key, c);
  }
  return c ?? undefined;
}

/** Scratch slots for a gathered group. */
class Scratch {
  cap = 0;
  mem = new Uint32Array(0);
  b = new Uint32Array(0);
  c = new Uint32Array(0);
  memOut = new Uint32Array(0);
  ret = new Uint32Array(0);
  flags = new Uint8Array(0);
  ensure(n: number): void {
    if (n <= this.cap) return;
    this.cap = n;
    const w = n * SLOT_WORDS;
    this.mem = new Uint32Array(w);
    this.b = new Uint32Array(w);
    this.c = new Uint32Array(w);
    this.memOut = new Uint32Array(w);
    this.ret = new Uint32Array(w);
    this.flags = new Uint8Array(n);
  }
}
const SCRATCH = new Scratch();

function copySlot(from: Uint32Array, i: number, to: Uint32Array, j: number): void {
  const s = i * SLOT_WORDS;
  const d = j * SLOT_WORDS;
  to[d] = from[s]!;
  to[d + 1] = from[s + 1]!;
  to[d + 2] = from[s + 2]!;
  to[d + 3] = from[s + 3]!;
}

export interface PackedJudgement {
  /** The results to keep (file order): every case of the first `keepWhole`, then those not a plain pass. */
  readonly kept: EntryResult[];
  /** Cases passed by the fast path (not kept; counted). */
  readonly fastPasses: number;
  /** Verdict counts over the whole block, per family (report/tally.ts, as stats keys). */
  readonly totals: Record<string, number>;
}

/**
 * Judges a block; its first `keepWhole` cases (0 for none) are kept whole whatever their verdict.
 * `fast: false` sends every case the full way (the tests compare the two).
 */
export function judgePackedOnReference(p: PackedCases, keepWhole: number, fast = true): PackedJudgement {
  const n = p.n;
  const head = Math.min(n, Math.max(0, keepWhole));
  // pass[i] = 1: passed by the fast path
  const pass = new Uint8Array(n);
  // the group key of each case (variant, space, expect kind), and the fast path's outcome of the
  // plain passes without expect that are kept whole (their allowed memory)
  const keys = new Int32Array(n);
  let outcome: Uint32Array | undefined;
  // of a case kept whole that the fast path passed as 2: which lanes of its expect are NaN (bit e*lanes+l)
  let open: Uint16Array | undefined;
  let fastPasses = 0;
  if (fast) {
    // group by (variant, space, expect kind): a counting sort on the key, in typed arrays
    const K = p.variants.length << 4;
    const start = new Int32Array(K + 1);
    for (let i = 0; i < n; i++) {
      const bits = p.bits[i]!;
      const key = (p.vidx[i]! << 4) | (((bits & (SPACE_GLOBAL | SPACE_SHARED)) >> 2) << 2) | expectKind(bits);
      keys[i] = key;
      start[key + 1]!++;
    }
    for (let k = 0; k < K; k++) start[k + 1]! += start[k]!;
    const order = new Int32Array(n);
    const fill = start.slice(0, K);
    for (let i = 0; i < n; i++) order[fill[keys[i]!]!++] = i;
    const S = SCRATCH;
    for (let key = 0; key < K; key++) {
      const g0 = start[key]!;
      const m = start[key + 1]! - g0;
      if (m === 0) continue;
      const kind = key & 3;
      const space = ((key >> 2) & 3) << 2;
      const check = checkerFor(p.variants[key >> 4]!, space, kind);
      if (!check) continue;
      S.ensure(m);
      const c = p.c;
      const expMem = p.expMem;
      const expRet = p.expRet;
      for (let j = 0; j < m; j++) {
        const i = order[g0 + j]!;
        copySlot(p.mem, i, S.mem, j);
        copySlot(p.b, i, S.b, j);
        copySlot(c, i, S.c, j);
        if (kind === 0) copySlot(ZERO, 0, S.memOut, j);
        else copySlot(expMem, i, S.memOut, j);
        if (kind === 2) copySlot(expRet, i, S.ret, j);
      }
      check({ mem: S.mem, b: S.b, c: S.c, memOut: S.memOut, ...(kind === 2 ? { ret: S.ret } : {}), n: m }, S.flags);
      // 0: the one outcome (or the expect is exactly it); 2: the model leaves a NaN open (and an
      // expect holds a NaN there): runCaseOnReference passes both. A case kept whole passes here
      // only as 0 (its line is made from the words: harness/backends/reference/packed-pass.ts)
      for (let j = 0; j < m; j++) {
        const f = S.flags[j];
        const i = order[g0 + j]!;
        // a case kept whole whose expect holds a NaN where the model leaves any NaN (2) is made
        // from the words too, its NaN lanes in its group's key (without an expect: the full way)
        if (f === 1 || (i < head && f === 2 && kind === 0)) continue;
        pass[i] = 1;
        fastPasses++;
        if (i < head && kind === 0) copySlot(S.memOut, j, (outcome ??= new Uint32Array(n * SLOT_WORDS)), i);
        if (i < head && f === 2) (open ??= new Uint16Array(n))[i] = nanLanes(p, i);
      }
    }
  }
  const kept: EntryResult[] = [];
  const tally = new Tally();
  // the shared parts of the plain passes kept whole, per group key (made at its first such case)
  const groups = new Map<number, PassGroup>();
  let lines: LineBytes | undefined;
  // passes by the fast path counted per variant of the block (their key made at the first, so that
  // the keys keep the order of first occurrence), the rest per verdict
  const passes = new Int32Array(p.variants.length);
  for (let i = 0; i < n; i++) {
    if (pass[i]) {
      if (i < head) {
        // kept whole: from the words, after the group's representative went the full way
        const nan = open?.[i] ?? 0;
        const key = keys[i]! * 65536 + nan;
        const g = groups.get(key);
        if (g === undefined || !g.ok) {
          const r = runCaseOnReference(unpack(p, i), WHOLE);
          if (g === undefined) groups.set(key, passGroup(p, i, r, keys[i]! & 3, outcome, nan));
          tally.judged(p.variants[p.vidx[i]!]!.variant.family, r.verdict);
          kept.push(r);
          fastPasses--;
          continue;
        }
        kept.push(packedPass((lines ??= new LineBytes()), p, i, g, outcome));
      }
      const v = p.vidx[i]!;
      if (passes[v]! === 0) tally.judged(p.variants[v]!.variant.family, 'pass', 0);
      passes[v]!++;
      continue;
    }
    // a case of the first keepWhole is kept whatever its verdict: its detail is made at once
    const r = runCaseOnReference(unpack(p, i), i < head ? WHOLE : undefined);
    tally.judged(p.variants[p.vidx[i]!]!.variant.family, r.verdict);
    if (i < head || r.verdict !== 'pass') kept.push(r);
  }
  for (let v = 0; v < passes.length; v++) {
    if (!passes[v]) continue;
    tally.judged(p.variants[v]!.variant.family, 'pass', passes[v]!);
  }
  return { kept, fastPasses, totals: tally.stats() };
}

const ZERO = new Uint32Array(SLOT_WORDS);

/** Which lanes of case i's expected memory are NaN: bit (element * lanes + lane). Read from the words (no Case object) for elements of up to 32 bits. */
function nanLanes(p: PackedCases, i: number): number {
  const v = p.variants[p.vidx[i]!]!;
  const fmt = v.fmt;
  if (fmt.lane.kind !== 'float') return 0;
  const lane = fmt.lane as FloatFormat;
  let m = 0;
  if (fmt.bits > 32) {
    unpack(p, i).expect!.memory!.forEach((e, k) => (m |= classify(lane, e) === 'nan' ? 1 << k : 0));
    return m;
  }
  const base = i * SLOT_WORDS;
  const lb = fmt.lane.bits;
  for (let k = 0; k < v.lanes; k++) {
    const e = fmt.bits === 16 ? (p.expMem[base + (k >> 1)]! >>> ((k & 1) << 4)) & 0xffff : p.expMem[base + k]!;
    for (let l = 0; l < fmt.lanes; l++) {
      const x = lb === 32 ? e : (e >>> (l * lb)) & ((1 << lb) - 1);
      if (classify(lane, x) === 'nan') m |= 1 << (k * fmt.lanes + l);
    }
  }
  return m;
}
const WHOLE = { whole: true };
