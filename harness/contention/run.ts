/**
 * Runs contention groups on the GPU: for each group, `reps` independent addresses in one launch (each
 * the same N operations), launched twice; every address's outcome (final memory and returned
 * values) goes into a histogram, each distinct outcome is judged once by the contention model
 * (model.ts), and the two launches are compared address by address (determinism).
 */
import { shardSlice } from '../util/shard.js';
import { type GpuVariantRun, openModule } from '../backends/gpu/cache.js';
import type { Launcher } from '../backends/gpu/driver.js';
import { type GpuPlan, gpuPlan } from '../backends/gpu/plan.js';
import { elementFormat } from '../numerics/formats.js';
import type { OutcomeCount } from '../report/json.js';
import { CaseError } from '../reference/model.js';
import { type ContentionGroup, contentionPlan, selftestPlan, setOps } from './cases.js';
import { contendKernelName, contendModule } from './kernel.js';
import { type ContentionCase, type ContentionJudgement, type Lane, judgeContention, lanesOf } from './model.js';
import { hexBits } from '../numerics/hex.js';

/** A contention run; --shard splits the groups, balanced by participants per address. */
export interface ContentionOptions extends GpuVariantRun {
  /** Addresses per launch (repetitions), a multiple of 32, at most 1024. */
  readonly reps: number;
  readonly selftest: boolean;
  readonly onProgress?: (msg: string) => void;
}

export interface ContentionOutcome {
  readonly group: ContentionGroup;
  readonly id: string;
  readonly n: number;
  readonly reps: number;
  /** Distinct outcomes over both launches, most frequent first. */
  readonly outcomes: readonly OutcomeCount[];
  /** How many final states an order allows (red; per lane, the largest). */
  readonly allowed?: number;
  /** Whether the two launches gave every address the same bits. */
  readonly deterministic: boolean;
  readonly lostUpdates: number;
  readonly verdict: 'pass' | 'observed' | 'mismatch' | 'error';
  /** The self-test judged under split read/write semantics too. */
  readonly asSplit?: { readonly verdict: string; readonly reason: string };
}

const hex = (b: bigint, w: number) => hexBits(w, b);

function readElements(buf: Buffer, at: number, n: number, w: number): bigint[] {
  const out: bigint[] = [];
  for (let j = 0; j < n; j++) {
    const o = at + (j * w) / 8;
    out.push(
      w === 16
        ? BigInt(buf.readUInt16LE(o))
        : w === 32
          ? BigInt(buf.readUInt32LE(o))
          : w === 64
            ? buf.readBigUInt64LE(o)
            : buf.readBigUInt64LE(o) | (buf.readBigUInt64LE(o + 8) << 64n),
    );
  }
  return out;
}
/** Elements of `w` bits at byte `at` of `buf`, little endian (128-bit ones as two 64-bit halves); the reproducers write theirs the same way. */
export function writeElements(buf: Buffer, at: number, xs: readonly bigint[], w: number): void {
  xs.forEach((x, j) => {
    const o = at + (j * w) / 8;
    if (w === 16) buf.writeUInt16LE(Number(x), o);
    else if (w === 32) buf.writeUInt32LE(Number(x), o);
    else if (w === 64) buf.writeBigUInt64LE(x, o);
    else {
      buf.writeBigUInt64LE(x & ((1n << 64n) - 1n), o);
      buf.writeBigUInt64LE(x >> 64n, o + 8);
    }
  });
}

export const LAYOUT_CODE = { warp: 0, cta: 1, grid: 2, cluster: 3 } as const;

/** The launch of `reps` addresses of `n` participants in a layout (the reproducer launches the same). */
export function launchShape(layout: keyof typeof LAYOUT_CODE, n: number, reps: number): { grid: number; block: number; cluster: number } {
  // cluster: clusters of n CTAs of up to 256 threads (one shared slot per thread in the first CTA)
  const cblock = Math.min(reps, 256);
  const [grid, block] =
    layout === 'warp' ? [(reps * n) / 256, 256] : layout === 'cta' ? [reps / 32, 32 * n] : layout === 'cluster' ? [n * (reps / cblock), cblock] : [n, reps];
  return { grid, block, cluster: layout === 'cluster' ? n : 1 };
}

export function groupId(g: ContentionGroup): string {
  return `${g.gv.entry.id}/contend-${g.layout}${g.mode === 1 ? '-shared' : ''}-${g.set.name.replace(/[^a-z0-9]+/gi, '-')}${g.selftest ? ':self-test' : ''}`;
}

/**
 * A group's launch done another way (the peer command: the participants split over two devices):
 * given the memory before (reps x 16 bytes) and the operands (n x 32 bytes), it runs launch number
 * `launch` and gives the memory after and the returned values (reps x n x 16 bytes, as one launch
 * of the contention contract leaves them).
 */
export type GroupExec = (launch: number, memBuf: Buffer, opsBuf: Buffer) => { readonly mem: Buffer; readonly out: Buffer };

/** One group on the GPU: `reps` addresses, two launches of `fn` (a kernel of the contention contract, kernel.ts), every distinct outcome judged. The CUDA C++ lens (harness/lens/) launches its kernels through it too; `exec` replaces the launch (harness/peer/). */
export function runGroup(
  l: Launcher,
  fn: bigint,
  g: ContentionGroup,
  reps: number,
  bufs: { mem: bigint; ops: bigint; out: bigint },
  exec?: GroupExec,
): ContentionOutcome {
  const e = g.gv.entry;
  const k = g.gv.shape;
  const fmt = elementFormat(e.q.type ?? '');
  const { memory, ops } = setOps(fmt, k.elements, g.set);
  const n = ops.length;
  const w = k.width;
  const memBuf = Buffer.alloc(reps * 16);
  for (let r = 0; r < reps; r++) writeElements(memBuf, r * 16, memory, w);
  const opsBuf = Buffer.alloc(n * 32);
  ops.forEach((o, i) => {
    writeElements(opsBuf, i * 32, o.b, w);
    if (o.c) writeElements(opsBuf, i * 32 + 16, o.c, w);
  });
  if (!exec) l.copyToDevice(bufs.ops, opsBuf);
  const { grid, block, cluster } = launchShape(g.layout, n, reps);
  const launches: string[][] = [];
  const seen = new Map<string, { count: number; memory: bigint[]; returned?: bigint[][] }>();
  for (let launch = 0; launch < 2; launch++) {
    const m = Buffer.alloc(reps * 16);
    const o = Buffer.alloc(reps * n * 16);
    if (exec) {
      const r = exec(launch, memBuf, opsBuf);
      r.mem.copy(m);
      r.out.copy(o);
    } else {
      l.copyToDevice(bufs.mem, memBuf);
      l.launch(fn, [grid, 1, 1], [block, 1, 1], 0, [cluster, 1, 1], [bufs.mem, bufs.ops, bufs.out, BigInt(n), BigInt(LAYOUT_CODE[g.layout]), BigInt(g.mode)]);
      l.synchronize();
      l.copyFromDevice(m, bufs.mem);
      if (k.returns && !g.selftest) l.copyFromDevice(o, bufs.out);
    }
    const keys: string[] = [];
    for (let r = 0; r < reps; r++) {
      const fin = readElements(m, r * 16, k.elements, w);
      const ret = k.returns && !g.selftest ? Array.from({ length: n }, (_, i) => readElements(o, (r * n + i) * 16, k.elements, w)) : undefined;
      const key = `${fin.join(',')}|${ret?.map((x) => x.join(',')).join(';') ?? ''}`;
      keys.push(key);
      const s = seen.get(key);
      if (s) s.count++;
      else seen.set(key, { count: 1, memory: fin, ...(ret ? { returned: ret } : {}) });
    }
    launches.push(keys);
  }
  const c: ContentionCase = { variant: { family: e.family, q: e.q }, memory, ops, ...(g.mode === 1 ? { space: 'shared' as const } : {}) };
  // the lanes' memoised steps, shared by every outcome of the group
  let lanes: Lane[] | undefined;
  const judge = (obs: { memory: bigint[]; returned?: bigint[][] }, atomic: boolean): ContentionJudgement | { verdict: 'error'; reason: string } => {
    try {
      lanes ??= lanesOf(c);
      return judgeContention(c, obs, atomic, lanes);
    } catch (err) {
      if (err instanceof CaseError) return { verdict: 'error', reason: err.message };
      throw err;
    }
  };
  const outcomes: OutcomeCount[] = [];
  let allowed: number | undefined;
  let lost = 0;
  let split: { verdict: string; reason: string } | undefined;
  for (const s of [...seen.values()].sort((a, b) => b.count - a.count)) {
    const j = judge(s, g.atomic);
    if ('lanes' in j) {
      for (const lj of j.lanes) if (lj.allowed !== undefined) allowed = Math.max(allowed ?? 0, lj.allowed);
      if (j.lostUpdate) lost += s.count;
    }
    const orders = 'lanes' in j ? j.lanes.filter((x) => x.order).map((x) => x.order!) : [];
    outcomes.push({
      count: s.count,
      memory: s.memory.map((x) => hex(x, w)),
      ...(s.returned ? { returned: s.returned.map((r) => r.map((x) => hex(x, w))) } : {}),
      verdict: j.verdict,
      reason: j.reason,
      ...(orders.length ? { orders } : {}),
    });
    if (g.selftest) {
      const sj = judge(s, false);
      if (!split || sj.verdict === 'mismatch') split = { verdict: sj.verdict, reason: sj.reason };
    }
  }
  const rank = { pass: 0, observed: 1, error: 2, mismatch: 3 } as const;
  let verdict = outcomes.reduce<OutcomeCount['verdict']>((v, o) => (rank[o.verdict] > rank[v] ? o.verdict : v), 'pass');
  // a scope that does not include every participant: a finding either way (whether an update was lost)
  if (!g.atomic && verdict === 'pass') verdict = 'observed';
  const deterministic = launches[0]!.every((k2, r) => k2 === launches[1]![r]);
  return {
    group: g,
    id: groupId(g),
    n,
    reps,
    outcomes,
    ...(allowed !== undefined ? { allowed } : {}),
    deterministic,
    lostUpdates: lost,
    verdict,
    ...(split ? { asSplit: split } : {}),
  };
}

export async function runContention(
  opts: ContentionOptions,
): Promise<{ plan: GpuPlan; outcomes: ContentionOutcome[]; seconds: { compile: number; gpu: number } }> {
  const plan = gpuPlan(opts.arch, opts.ptx, opts.filter);
  const groups = shardSlice(opts.selftest ? selftestPlan(gpuPlan(opts.arch, opts.ptx)) : contentionPlan(plan, () => true), opts.shard, (g) => g.set.b.length);
  if (!groups.length) return { plan, outcomes: [], seconds: { compile: 0, gpu: 0 } };
  const { l, m, compileSeconds } = await openModule(contendModule(opts.arch, opts.ptx, groups), {
    ptxas: opts.ptxas,
    arch: opts.arch,
    cacheDir: opts.cacheDir,
  });
  const t1 = performance.now();
  const maxN = Math.max(...groups.map((g) => g.set.b.length));
  const bufs = { mem: l.memAlloc(opts.reps * 16), ops: l.memAlloc(maxN * 32), out: l.memAlloc(opts.reps * maxN * 16) };
  const outcomes: ContentionOutcome[] = [];
  try {
    for (const g of groups) {
      const o = runGroup(l, l.getFunction(m, contendKernelName(g.gv, g.selftest)), g, opts.reps, bufs);
      outcomes.push(o);
      if (o.verdict === 'mismatch' || o.verdict === 'error' || opts.selftest)
        opts.onProgress?.(
          `contend ${o.id}: ${o.verdict}, ${o.outcomes.length} distinct outcomes${o.allowed ? ` of ${o.allowed} allowed` : ''}; ${o.outcomes[0]?.reason ?? ''}`.slice(
            0,
            400,
          ),
        );
    }
  } finally {
    l.memFree(bufs.mem);
    l.memFree(bufs.ops);
    l.memFree(bufs.out);
    l.unloadModule(m);
  }
  return { plan, outcomes, seconds: { compile: compileSeconds, gpu: (performance.now() - t1) / 1000 } };
}
