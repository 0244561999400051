/**
 * Contention cases: which variants run under contention, with which operands, in which layout of
 * participants, and whether their scopes include one another.
 *
 * Layouts (N participants on one address; `groups` independent addresses per launch, every group the
 * same operations, so a launch is `groups` repetitions):
 * - warp: N consecutive threads of one warp;
 * - cta: one thread of each of N warps of one CTA;
 * - grid: thread t of each of N CTAs (global memory only; the CTAs are in different clusters);
 * - cluster: thread t of each of the N CTAs of one cluster (N <= 8): global memory, and
 *   .shared::cluster memory in the cluster's first CTA.
 * Operand sets, per lane format and op: `order` (4 operations whose order changes the rounded
 * result, e.g. 1e8, 1, -1e8, 1), `exact` (32 operations whose every partial sum is exact: one allowed
 * result), `special` (signed zeros, infinities, NaN), integer and bit sets, cas and exch chains.
 */
import type { GpuPlan, GpuVariant } from '../backends/gpu/plan.js';
import { type ElementFormat, type FloatFormat, elementFormat, joinLanes } from '../numerics/formats.js';
import { floatBits } from '../numerics/encode.js';
import type { ContentionOp } from './model.js';

export type Layout = 'warp' | 'cta' | 'grid' | 'cluster';
export const LAYOUTS: readonly Layout[] = ['warp', 'cta', 'grid'];

export interface OperandSet {
  readonly name: string;
  /** The lane value of memory before, and of each operation's b (and c). */
  readonly memory: bigint;
  readonly b: readonly bigint[];
  readonly c?: readonly bigint[];
}

export interface ContentionGroup {
  readonly gv: GpuVariant;
  readonly layout: Layout;
  /** 1: a generic variant with its address in shared memory. */
  readonly mode: 0 | 1;
  readonly set: OperandSet;
  /** Whether every participant's scope includes the others (else split read/write semantics). */
  readonly atomic: boolean;
  /** The self-test: a plain load, op and store in place of the instruction (judged both ways). */
  readonly selftest?: boolean;
}

const SCOPE_RANK: Record<string, number> = { cta: 0, cluster: 1, gpu: 2, sys: 3 };

/**
 * Whether a variant's scope (default .gpu) includes participants spread as `layout`
 * (CONTENTION_RULES.scopes): one warp or CTA, any scope; one cluster, .cluster or wider; CTAs of
 * different clusters, .gpu or wider.
 */
export function scopeIncludes(scope: string | undefined, layout: Layout): boolean {
  const rank = SCOPE_RANK[scope || 'gpu']!;
  return layout === 'grid' ? rank >= 2 : layout === 'cluster' ? rank >= 1 : rank >= 0;
}

/** The operand sets of a lane format and op (lane values). */
export function operandSets(fmt: ElementFormat, op: string): OperandSet[] {
  const lf = fmt.lane;
  if (op === 'cas') {
    // a chain: operation i swaps i for i + 1, so exactly the order 0, 1, 2, ... can succeed in full
    return [{ name: 'cas chain', memory: 0n, b: [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n], c: [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n] }];
  }
  if (op === 'exch') return [{ name: 'exch', memory: 99n, b: [100n, 101n, 102n, 103n, 104n, 105n, 106n, 107n] }];
  if (lf.kind === 'int') {
    const ones = new Array(32).fill(1n);
    if (op === 'add')
      return [
        { name: 'exact', memory: 0n, b: ones },
        { name: 'small', memory: 5n, b: [1n, 2n, 3n, 4n] },
      ];
    if (op === 'inc' || op === 'dec') return [{ name: 'wrap', memory: 0n, b: [3n, 3n, 3n, 3n] }];
    // min: 'bits' never lowers the value (every operand is above 0x0f), so a lost min is invisible
    // there; 'falling' lowers it at every operation in thread order (found by the CUDA C++ lens:
    // atomicMin(unsigned long long*) on another CTA's shared memory)
    if (op === 'min')
      return [
        { name: 'bits', memory: 0x0fn, b: [0x11n, 0x22n, 0x44n, 0x88n] },
        { name: 'falling', memory: 0xffn, b: [0x88n, 0x44n, 0x22n, 0x11n] },
      ];
    return [{ name: 'bits', memory: 0x0fn, b: [0x11n, 0x22n, 0x44n, 0x88n] }];
  }
  const f = lf as FloatFormat;
  const v = (xs: number[]) => xs.map((x) => floatBits(f, x));
  if (op === 'add') {
    // big + 1 rounds back to big: 2^p (p = precision), so the order decides the result
    const big = 2 ** (f.fracBits + 1);
    return [
      { name: 'order', memory: floatBits(f, 0), b: v([big, 1, -big, 1]) },
      { name: 'exact', memory: floatBits(f, 0), b: v(Array.from({ length: 32 }, (_, i) => (i % 3) + 1)) },
      { name: 'special', memory: floatBits(f, 0), b: [...v([-0, Infinity, -Infinity]), BigInt(f.canonicalNaN)] },
    ];
  }
  // min, max
  return [{ name: 'special', memory: floatBits(f, 1), b: [...v([-0, 0, -2]), BigInt(f.canonicalNaN)] }];
}

/** A set's operations for a variant of `elements` elements (every element and lane the same values). */
export function setOps(fmt: ElementFormat, elements: number, s: OperandSet): { memory: bigint[]; ops: ContentionOp[] } {
  const el = (x: bigint) => joinLanes(fmt, new Array(fmt.lanes).fill(x));
  const rep = (x: bigint) => new Array(elements).fill(el(x));
  return { memory: rep(s.memory), ops: s.b.map((b, i) => ({ b: rep(b), ...(s.c ? { c: rep(s.c[i]!) } : {}) })) };
}

/**
 * The groups a full contention run covers: one variant per (family, op, type, vector, space,
 * destination) without ordering, scope or hint, in every layout its space allows (shared: one CTA;
 * generic: also in shared memory), with each operand set; and atom/red .global.add.f32 and bulk
 * .add.f32 with every ordering, scope and cache hint in the grid layout (a .cta or .cluster scope
 * does not include the other CTAs: split read/write semantics). cp.reduce.async.bulk: the .global
 * form from threads and CTAs, and the .shared::cluster form from the CTAs of one cluster into the
 * first's shared memory. `keep` filters by variant id.
 */
export function contentionPlan(plan: GpuPlan, keep: (id: string) => boolean): ContentionGroup[] {
  const out: ContentionGroup[] = [];
  const seen = new Set<string>();
  for (const gv of plan.variants) {
    const e = gv.entry;
    // a variant that needs a cluster launch runs when its family has a cluster path for it
    if (!gv.gpu.contend || !keep(e.id) || (gv.shape.clustered && !gv.gpu.contend.cluster)) continue;
    const q = e.q;
    let fmt;
    try {
      fmt = elementFormat(q.type ?? '');
    } catch {
      continue;
    }
    // every ordering, scope and cache hint on the family's .global.add.f32 (bulk: .add.f32), across CTAs
    const scoped = Boolean(q.scope || q.sem || q.hint) && q.op === 'add' && q.type === 'f32' && (q.space === 'global' || gv.shape.bulkCopy === true) && !q.vec;
    if ((q.sem || q.scope || q.hint) && !scoped) continue;
    const shape = `${e.family}|${JSON.stringify(
      Object.entries(q)
        .filter(([k, x]) => x && k !== 'sem' && k !== 'scope' && k !== 'hint')
        .sort(),
    )}`;
    if (!scoped) {
      if (seen.has(shape)) continue;
      seen.add(shape);
    }
    const shared = (q.space ?? '').startsWith('shared');
    const modes: (0 | 1)[] = gv.shape.generic && !q.vec ? [0, 1] : [0];
    for (const mode of modes) {
      // across CTAs: the grid; in one cluster: global memory (its scoped representatives) and .shared::cluster
      const clusterOk = mode === 0 && (q.space === 'shared::cluster' || q.dst === 'shared::cluster' || (scoped && !gv.shape.bulkCopy));
      const layouts = gv.shape.clustered
        ? (['cluster'] as Layout[])
        : scoped
          ? (['grid', 'cluster'] as Layout[]).filter((l) => l === 'grid' || clusterOk)
          : [...LAYOUTS.filter((l) => !((shared || mode === 1) && l === 'grid')), ...(clusterOk ? (['cluster'] as Layout[]) : [])];
      for (const layout of layouts) {
        for (const set of operandSets(fmt, q.op ?? '')) {
          if ((layout === 'cta' || layout === 'cluster') && set.b.length > 8) continue; // 8 warps; 8 CTAs in a cluster
          out.push({ gv, layout, mode, set, atomic: scopeIncludes(q.scope, layout) });
        }
      }
    }
  }
  return out;
}

/**
 * The self-test groups: red.global.add.f32 done as a plain load, add and store (not atomic), four
 * participants adding 1.0 (few enough for the split read/write set), in the warp and grid layouts.
 */
export function selftestPlan(plan: GpuPlan): ContentionGroup[] {
  const gv = plan.byId.get('red.global.add.f32');
  if (!gv) return [];
  const one = floatBits(elementFormat('f32').lane as FloatFormat, 1);
  const set: OperandSet = { name: 'ones', memory: 0n, b: [one, one, one, one] };
  return (['warp', 'grid'] as Layout[]).map((layout) => ({ gv, layout, mode: 0 as const, set, atomic: true, selftest: true }));
}
