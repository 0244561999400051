/**
 * Contention across two GPUs: each group's participants split between GPU 0 and GPU 1, every
 * address in GPU 1's memory; both launches started together on a flag in that memory
 * (plan.ts peerContendKernel), then judged by the contention model through runGroup (the same
 * histograms, linearisations and lost-update accounting as the one-GPU run).
 */
import { readFileSync } from 'node:fs';
import { compileModules } from '../backends/gpu/cache.js';
import type { Launcher } from '../backends/gpu/driver.js';
import { gpuPlan } from '../backends/gpu/plan.js';
import { contendKernelName } from '../contention/kernel.js';
import { type ContentionOutcome, runGroup } from '../contention/run.js';
import { compileFilter } from '../util/filter.js';
import { CONTENTION_FILTER, CTRL_BYTES, type PeerGroup, peerContendModule, peerContentionPlan, peerGroupId } from './plan.js';

/** Overlap evidence of one group (both launches together). */
export interface Overlap {
  /** Operations of GPU 0 that started while GPU 1 had done some but not all of its own, and the converse. */
  readonly firstSawSecondMid: number;
  readonly secondSawFirstMid: number;
  /** Threads that gave up waiting for the start (2 s). */
  readonly spinTimeouts: number;
  /** Operations per side over both launches. */
  readonly opsFirst: number;
  readonly opsSecond: number;
}

export interface PeerContentionOutcome {
  readonly id: string;
  readonly group: PeerGroup;
  readonly outcome: ContentionOutcome;
  readonly overlap: Overlap;
}

export interface PeerContentionOptions {
  readonly arch: string;
  readonly ptx: string;
  readonly ptxas: { path: string; versionLine: string };
  readonly cacheDir: string;
  readonly filter?: string;
  readonly reps: number;
  /** The device that holds the memory and runs the second half. */
  readonly second: number;
  readonly onProgress?: (msg: string) => void;
}

export function peerContentionGroups(arch: string, ptx: string, filter?: string): ReturnType<typeof peerContentionPlan> {
  return peerContentionPlan(gpuPlan(arch, ptx, CONTENTION_FILTER), filter ? compileFilter(filter) : () => true);
}

/** Runs every group; the launcher must have peer access enabled between 0 and `second` (guard.ts). */
export async function runPeerContention(
  l: Launcher,
  opts: PeerContentionOptions,
): Promise<{ outcomes: PeerContentionOutcome[]; compileSeconds: number; seconds: number; sass: Record<string, string> }> {
  const { groups } = peerContentionGroups(opts.arch, opts.ptx, opts.filter);
  if (!groups.length) return { outcomes: [], compileSeconds: 0, seconds: 0, sass: {} };
  const t0 = performance.now();
  const text = peerContendModule(opts.arch, opts.ptx, [...new Map(groups.map((g) => [g.gv.entry.id, g.gv])).values()]);
  const mod = await compileModules([text], { ptxas: opts.ptxas, arch: opts.arch, cacheDir: opts.cacheDir });
  const cubin = readFileSync(mod.modules[0]!.cubin);
  const compileSeconds = (performance.now() - t0) / 1000;
  const d1 = opts.second;
  if (!l.memAllocOn || !l.synchronizeOn) throw new Error('this cuda_launcher.node has no peer calls (built before native/src/peer.cc): run npm rebuild');
  l.useDevice(d1);
  const m1 = l.loadModule(cubin);
  l.useDevice(0);
  const m0 = l.loadModule(cubin);
  const t1 = performance.now();
  const reps = opts.reps;
  const maxN = Math.max(...groups.map((g) => g.set.b.length));
  const mem = l.memAllocOn(d1, reps * 16);
  const ctl = l.memAllocOn(d1, CTRL_BYTES);
  const ops0 = l.memAlloc(maxN * 32);
  const out0 = l.memAlloc(reps * maxN * 16);
  l.useDevice(d1);
  const ops1 = l.memAlloc(maxN * 32);
  const out1 = l.memAlloc(reps * maxN * 16);
  l.useDevice(0);
  const outcomes: PeerContentionOutcome[] = [];
  try {
    for (const g of groups) {
      const name = contendKernelName(g.gv);
      l.useDevice(d1);
      const f1 = l.getFunction(m1, name);
      l.useDevice(0);
      const f0 = l.getFunction(m0, name);
      const n = g.set.b.length;
      const h = g.onFirst;
      const ev = { firstSawSecondMid: 0, secondSawFirstMid: 0, spinTimeouts: 0, opsFirst: 0, opsSecond: 0 };
      const outcome = runGroup(l, f0, g, reps, { mem, ops: ops0, out: out0 }, (_launch, memBuf, opsBuf) => {
        l.copyToDevice(mem, memBuf);
        l.copyToDevice(ctl, Buffer.alloc(CTRL_BYTES));
        l.copyToDevice(ops0, opsBuf.subarray(0, h * 32));
        l.useDevice(d1);
        l.copyToDevice(ops1, opsBuf.subarray(h * 32));
        const common = (side: number, ops: bigint, out: bigint, other: number) => [
          mem,
          ops,
          out,
          BigInt(n),
          2n,
          0n,
          ctl,
          BigInt(side),
          BigInt(n * reps),
          BigInt(other * reps),
        ];
        // GPU 1's half first, then GPU 0's: both asynchronous, both wait on the flag for the other
        l.launch(f1, [n - h, 1, 1], [reps, 1, 1], 0, [1, 1, 1], common(1, ops1, out1, h));
        l.useDevice(0);
        l.launch(f0, [h, 1, 1], [reps, 1, 1], 0, [1, 1, 1], common(0, ops0, out0, n - h));
        l.synchronize();
        l.synchronizeOn!(d1);
        const m = Buffer.alloc(reps * 16);
        l.copyFromDevice(m, mem);
        const o0 = Buffer.alloc(reps * n * 16);
        const o1 = Buffer.alloc(reps * n * 16);
        if (g.gv.shape.returns) {
          l.copyFromDevice(o0, out0);
          l.copyFromDevice(o1, out1);
        }
        const c = Buffer.alloc(CTRL_BYTES);
        l.copyFromDevice(c, ctl);
        ev.spinTimeouts += c.readUInt32LE(4);
        ev.opsFirst += c.readUInt32LE(64);
        ev.opsSecond += c.readUInt32LE(128);
        ev.firstSawSecondMid += c.readUInt32LE(192);
        ev.secondSawFirstMid += c.readUInt32LE(256);
        // participant i < h returned into GPU 0's buffer at (r n + i), participant h + j into GPU 1's at (r n + j)
        const out = Buffer.alloc(reps * n * 16);
        for (let r = 0; r < reps; r++)
          for (let i = 0; i < n; i++)
            (i < h ? o0 : o1).copy(out, (r * n + i) * 16, (r * n + (i < h ? i : i - h)) * 16, (r * n + (i < h ? i : i - h)) * 16 + 16);
        return { mem: m, out };
      });
      const id = peerGroupId(g);
      outcomes.push({ id, group: g, outcome: { ...outcome, id }, overlap: ev });
      if (outcome.verdict === 'mismatch' || outcome.verdict === 'error' || outcome.lostUpdates)
        opts.onProgress?.(
          `peer contend ${id}: ${outcome.verdict}, ${outcome.outcomes.length} distinct outcomes, ${outcome.lostUpdates} addresses lost an update; ${outcome.outcomes.find((o) => o.verdict !== 'pass')?.reason ?? outcome.outcomes[0]?.reason ?? ''}`.slice(
            0,
            400,
          ),
        );
    }
  } finally {
    l.memFree(mem);
    l.memFree(ctl);
    l.memFree(ops0);
    l.memFree(out0);
    l.memFree(ops1);
    l.memFree(out1);
    l.unloadModule(m0);
    l.useDevice(d1);
    l.unloadModule(m1);
    l.useDevice(0);
  }
  return { outcomes, compileSeconds, seconds: (performance.now() - t1) / 1000, sass: { ...mod.modules[0]!.sass } };
}
