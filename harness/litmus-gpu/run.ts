/**
 * Runs one planned litmus test on a device (or the stand-in launcher): `iterations` launches of
 * `lt_test` (each a fresh permutation of instances over thread slots), each followed by `lt_count`,
 * queued on one stream and synchronised once; then the histogram comes back and every observed
 * outcome is judged against the model (outcomes.ts).
 */
import { type Launcher, TENSOR_MAP_TYPE } from '../backends/gpu/driver.js';
import type { Judgement } from '../memory-model/events.js';
import { type StressOptions, SAMPLES, histWords, keyWords, launchGeometry, regWords } from './kernel.js';
import { type TestPlan, im2colParameters, tensorMapGeometry } from './plan.js';
import { keyInit, onDevice, outcomeTable, verdictOf } from './outcomes.js';

export interface HistRow {
  readonly values: readonly string[];
  readonly count: number;
  readonly allowed: boolean;
  readonly why?: string;
}

export interface GpuLitmusRun {
  readonly keys: readonly string[];
  /** Bits of each key's value (32 or 64); absent in runs recorded before 64-bit values ran: all 32. */
  readonly keyBits?: readonly number[];
  /** Every table row (counted or not), then the other outcomes found among the samples. */
  readonly histogram: readonly HistRow[];
  /** Outcomes outside the table: how many, and the samples kept (with their count among the samples). */
  readonly other: { readonly count: number; readonly samples: number };
  /** A test with loops: instances a thread gave up on (its loop ran LOOP_BOUND times), counted but not judged. */
  readonly gaveUp?: number;
  readonly instances: number;
  readonly perLaunch: number;
  readonly iterations: number;
  readonly seconds: number;
  readonly instancesPerSecond: number;
  readonly forbiddenSeen: number;
  readonly geometry: { grid: number; block: number; cluster: number };
}

/** A permutation of 0..n-1 per iteration (xorshift, seeded), as one Uint32Array. */
export function permutations(n: number, iterations: number, seed: number): Uint32Array {
  const out = new Uint32Array(n * iterations);
  let x = seed >>> 0 || 0x9e3779b9;
  const rnd = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x >>> 0);
  for (let it = 0; it < iterations; it++) {
    const p = out.subarray(it * n, (it + 1) * n);
    for (let i = 0; i < n; i++) p[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = rnd() % (i + 1);
      const t = p[i]!;
      p[i] = p[j]!;
      p[j] = t;
    }
  }
  return out;
}

export interface RunOptions {
  /** Instances per launch (capped by one fill of the GPU). */
  readonly instances: number;
  readonly iterations: number;
  readonly stress: StressOptions;
  readonly smCount: number;
  readonly seed: number;
  /** Words between consecutive instances' copies of a location. */
  readonly stride: number;
}

export function runPlanned(l: Launcher, fns: { test: bigint; count: bigint }, plan: TestPlan, j: Judgement, opts: RunOptions): GpuLitmusRun {
  const geo = launchGeometry(plan.placement, opts.smCount, opts.stress, opts.instances);
  const ni = geo.instances;
  const iterations = opts.iterations;
  const keys = plan.keys;
  const initOf = keyInit(plan.test);
  j = onDevice(j, initOf);
  const bits = plan.keyBits ?? keys.map(() => 32);
  const table = outcomeTable(j, keys, initOf, bits);
  const K = table.length;
  const V = keyWords(plan); // words of one outcome: a 64-bit key is two (low, high)
  const L = plan.locs.length;
  const R = regWords(plan);
  const sb = plan.slotBytes ?? 4;
  const toWords = (values: readonly string[]) =>
    values.flatMap((v, x) => (bits[x] === 64 ? [Number(BigInt(v) & 0xffffffffn), Number(BigInt(v) >> 32n)] : [Number(v)]));
  const fromWords = (w: readonly number[]) => {
    let at = 0;
    return keys.map((_, x) => (bits[x] === 64 ? String(BigInt(w[at++]!) | (BigInt(w[at++]!) << 32n)) : String(w[at++]!)));
  };
  const buf = (words: number) => Buffer.alloc(Math.max(4, words * 4));
  // one more location: the instance's barrier word (stress.align); a test with loops one more: its give-up word
  const memBuf = buf(((L + (plan.loops ? 2 : 1)) * ni * opts.stride * sb) / 4);
  for (let jx = 0; jx < L; jx++) for (let i = 0; i < ni; i++) memBuf.writeUInt32LE(plan.init[jx]!, locationByte(plan, jx, i, ni, opts.stride));
  const tabBuf = buf(K * V);
  table.forEach((r, k) => toWords(r).forEach((v, x) => tabBuf.writeUInt32LE(v, (k * V + x) * 4)));
  const initBuf = buf(L);
  plan.init.forEach((v, x) => initBuf.writeUInt32LE(v, x * 4));
  const hw = histWords(plan, K);
  const perm = permutations(ni, iterations, opts.seed);
  const ptrs: bigint[] = [];
  const alloc = (b: Buffer) => {
    const p = l.memAlloc(b.length);
    ptrs.push(p);
    l.copyToDevice(p, b);
    return p;
  };
  // a test with virtual aliases: mem is one allocation mapped once more per alias (view k at mem + k * viewBytes)
  const views = plan.aliases ? 1 + Math.max(...plan.aliases.map((a) => a?.view ?? 0)) : 0;
  let viewed: { base: bigint; viewBytes: number } | undefined;
  try {
    if (views && !l.memAllocViews)
      throw new Error('this CUDA launcher cannot map one allocation twice (memAllocViews, native/src/views.cc): rebuild it (npm rebuild)');
    if (views) (viewed = l.memAllocViews!(memBuf.length, views)), l.copyToDevice(viewed.base, memBuf);
    const mem = viewed ? viewed.base : alloc(memBuf);
    const regs = alloc(buf(ni * Math.max(R, 1)));
    const permP = alloc(Buffer.from(perm.buffer, perm.byteOffset, perm.byteLength));
    const tab = alloc(tabBuf);
    const hist = alloc(buf(hw));
    const init = alloc(initBuf);
    const scratch = alloc(buf(opts.stress.lines * 32));
    // tensor maps: each a map of 32-bit elements over the copies of the location it points at, of its rank (tensorMapGeometry; 4
    // elements a box: 16 bytes), every instance's own copy of it in ptm, the initial one in ptinit (lt_count restores it)
    const maps = plan.tensorMaps ?? [];
    let tm: bigint | undefined;
    let tinit: bigint | undefined;
    if (maps.length) {
      const encoded = maps.map((m) => {
        const g = tensorMapGeometry(m.rank, ni * opts.stride, sb);
        const at = mem + BigInt(m.targets[0]! * ni * opts.stride * sb);
        if (m.mode === 'im2col') {
          const p = im2colParameters(m.rank);
          return l.tensorMapEncodeIm2col(
            TENSOR_MAP_TYPE.UINT32,
            at,
            g.dims.map(BigInt),
            g.strides.map(BigInt),
            p.lower,
            p.upper,
            p.channelsPerPixel,
            p.pixelsPerColumn,
            [...g.elementStrides],
          );
        }
        return l.tensorMapEncodeTiled(TENSOR_MAP_TYPE.UINT32, at, g.dims.map(BigInt), g.strides.map(BigInt), [...g.box], [...g.elementStrides]);
      });
      const all = Buffer.alloc(maps.length * ni * 128);
      encoded.forEach((e, k) => {
        for (let i = 0; i < ni; i++) e.copy(all, (k * ni + i) * 128);
      });
      tm = alloc(all);
      tinit = alloc(Buffer.concat(encoded));
    }
    const cluster = plan.placement.clusterSize;
    const t0 = performance.now();
    for (let it = 0; it < iterations; it++) {
      l.launch(
        fns.test,
        [geo.grid, 1, 1],
        [geo.block, 1, 1],
        0,
        [cluster, 1, 1],
        [
          mem,
          regs,
          permP,
          BigInt(it),
          BigInt(ni),
          BigInt(opts.stride),
          scratch,
          ...(viewed ? [BigInt(viewed.viewBytes)] : []),
          ...(tm !== undefined ? [tm] : []),
        ],
      );
      l.launch(
        fns.count,
        [Math.ceil(ni / 256), 1, 1],
        [256, 1, 1],
        0,
        [1, 1, 1],
        [mem, regs, tab, hist, init, BigInt(ni), BigInt(opts.stride), BigInt(K), ...(tm !== undefined ? [tm, tinit!] : [])],
      );
    }
    l.synchronize();
    const seconds = (performance.now() - t0) / 1000;
    const h = buf(hw);
    l.copyFromDevice(h, hist);
    const rows: HistRow[] = table.map((values, k) => ({ values, count: h.readUInt32LE(k * 4), ...verdictOf(j, keys, values, bits) }));
    const otherCount = h.readUInt32LE(K * 4);
    const kept = Math.min(otherCount, SAMPLES);
    const extra = new Map<string, { values: string[]; count: number }>();
    for (let n = 0; n < kept; n++) {
      const values = fromWords(Array.from({ length: V }, (_, x) => h.readUInt32LE((K + 1 + n * V + x) * 4)));
      const e = extra.get(values.join(','));
      if (e) e.count++;
      else extra.set(values.join(','), { values, count: 1 });
    }
    for (const e of extra.values()) rows.push({ values: e.values, count: e.count, ...verdictOf(j, keys, e.values, bits) });
    const instances = ni * iterations;
    const gaveUp = plan.loops ? h.readUInt32LE((hw - 1) * 4) : 0;
    const counted = rows.reduce((s, r) => s + r.count, 0) - Math.min(otherCount, SAMPLES) + otherCount + gaveUp;
    if (counted !== instances) throw new Error(`the histogram counts ${counted} outcomes for ${instances} instances`);
    // an other outcome beyond the samples is unknown: judged forbidden only when every sample was
    const forbiddenSeen =
      rows.filter((r) => !r.allowed).reduce((s, r) => s + r.count, 0) +
      (otherCount > kept && [...extra.values()].every((e) => !verdictOf(j, keys, e.values, bits).allowed) ? otherCount - kept : 0);
    return {
      keys,
      ...(bits.includes(64) ? { keyBits: bits } : {}),
      histogram: rows,
      other: { count: otherCount, samples: kept },
      ...(plan.loops ? { gaveUp } : {}),
      instances,
      perLaunch: ni,
      iterations,
      seconds,
      instancesPerSecond: instances / seconds,
      forbiddenSeen,
      geometry: { grid: geo.grid, block: geo.block, cluster },
    };
  } finally {
    for (const p of ptrs) l.memFree(p);
    if (viewed) l.memFreeViews!(viewed.base);
  }
}

/**
 * Two runs of one plan (under different stress settings) as one: counts of the same outcome added,
 * instances, iterations and seconds added, the first run's geometry and launch size kept.
 */
export function mergeRuns(a: GpuLitmusRun, b: GpuLitmusRun): GpuLitmusRun {
  if (a.keys.join() !== b.keys.join()) throw new Error(`runs of different keys cannot be added: ${a.keys.join()} / ${b.keys.join()}`);
  const rows = new Map<string, HistRow>();
  for (const r of [...a.histogram, ...b.histogram]) {
    const k = r.values.join(',');
    const e = rows.get(k);
    rows.set(k, e ? { ...e, count: e.count + r.count } : r);
  }
  const instances = a.instances + b.instances;
  const seconds = a.seconds + b.seconds;
  return {
    keys: a.keys,
    ...(a.keyBits ? { keyBits: a.keyBits } : {}),
    histogram: [...rows.values()],
    other: { count: a.other.count + b.other.count, samples: a.other.samples + b.other.samples },
    ...(a.gaveUp !== undefined || b.gaveUp !== undefined ? { gaveUp: (a.gaveUp ?? 0) + (b.gaveUp ?? 0) } : {}),
    instances,
    perLaunch: a.perLaunch,
    iterations: a.iterations + b.iterations,
    seconds,
    instancesPerSecond: instances / seconds,
    forbiddenSeen: a.forbiddenSeen + b.forbiddenSeen,
    geometry: a.geometry,
  };
}

/**
 * The byte in mem of location j's value in instance i's copy: (j * ni + i) * stride * slotBytes, an
 * array's element in its array's copy at its offset (as lt_test addresses it and lt_count resets it).
 */
export function locationByte(plan: Pick<TestPlan, 'elements' | 'slotBytes'>, j: number, i: number, ni: number, stride: number): number {
  const el = plan.elements?.[j];
  return ((el ? el.of : j) * ni + i) * stride * plan.slotBytes + (el ? el.offset : 0);
}
