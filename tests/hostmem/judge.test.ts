/**
 * The host-memory judge (harness/hostmem/judge.ts) on planted observations: exact serial results
 * pass (or are observed where the scope does not include the CPU), planted lost updates are found
 * and counted, values no interleaving gives are mismatches; and the CPU workers of the addon
 * (native/src/hostmem.cc) run on ordinary memory without a GPU, their results judged serial.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type HostJob, type HostObservation, HOSTMEM_RULES, exchValue, judgeHost, minmaxOperand, ownedMask } from '../../harness/hostmem/judge.js';
import { hostmemPlan, makeJob, variantId } from '../../harness/hostmem/plan.js';
import { type HostAddon, cpuConfig } from '../../harness/hostmem/run.js';

const ROOT = join(import.meta.dirname, '..', '..');
const quiet = { gpuSawCpuMid: 5, cpuSawGpuMid: 7, startTimedOut: false, spinTimeouts: 0 };

function job(cls: string, type: string, scope: '' | 'gpu' | 'sys' = 'sys', mode: 'atomic' | 'plain' = 'atomic'): HostJob {
  const plan = hostmemPlan(
    (id) => ({ id }) as never,
    (id) => id === variantId(cls === 'exch' || cls === 'cas' ? 'atom' : 'atom', scope, cls === 'fadd' ? 'add' : cls, type),
  );
  const j = plan.find((p) => p.job.cls === cls && p.job.type === type && p.job.scope === scope && p.job.cpuMode === mode && p.job.memory === 'hostalloc');
  if (!j) throw new Error(`no job ${cls} ${type} ${scope} ${mode}`);
  return j.job;
}
const nG = (j: HostJob) => BigInt(j.gpu.threads * j.gpu.iters);
const nC = (j: HostJob) => BigInt(j.cpu.threads * j.cpu.iters);

describe('additive classes: exact arithmetic, lost updates counted per side', () => {
  it('u32 add: the exact sum passes at .sys; missing updates are counted; an impossible field is a mismatch', () => {
    const j = job('add', 'u32');
    const exact = nG(j) * j.gpu.unit + nC(j) * j.cpu.unit;
    const ok = judgeHost(j, { final: exact, ...quiet });
    expect(ok.verdict).toBe('pass');
    expect(ok.serial).toBe(true);
    expect(ok.overlapped).toBe(true);
    // planted: 3 GPU and 2 CPU updates lost
    const lost = judgeHost(j, { final: exact - 3n - 2n * j.cpu.unit, ...quiet });
    expect(lost.verdict).toBe('observed');
    expect(lost.lost).toEqual({ total: 5, gpu: 3, cpu: 2, exact: true });
    expect(lost.rules.map((r) => r.id)).toContain(HOSTMEM_RULES.sysLimit.id);
    expect(lost.reason).toMatch(/NOT ATOMIC against the CPU: 5 updates lost/);
    // more GPU updates than there were operations: no interleaving gives it
    const bad = judgeHost(j, { final: exact + 1n, ...quiet });
    expect(bad.verdict).toBe('mismatch');
  });
  it('the .gpu and default scopes are observed either way (the scope does not include the CPU), and say whether an update was lost', () => {
    for (const scope of ['gpu', ''] as const) {
      const j = job('add', 'u64', scope);
      const exact = nG(j) * j.gpu.unit + nC(j) * j.cpu.unit;
      const ok = judgeHost(j, { final: exact, ...quiet });
      expect(ok.verdict).toBe('observed');
      expect(ok.serial).toBe(true);
      expect(ok.reason).toMatch(/no update lost/);
      const lost = judgeHost(j, { final: exact - j.cpu.unit, ...quiet });
      expect(lost.verdict).toBe('observed');
      expect(lost.lost.cpu).toBe(1);
      expect(lost.rules.map((r) => r.id)).toContain(HOSTMEM_RULES.narrowScope.id);
    }
  });
  it('inc and dec: one per GPU operation, 2^16 per CPU operation', () => {
    const inc = job('inc', 'u32');
    expect(judgeHost(inc, { final: nG(inc) + (nC(inc) << 16n), ...quiet }).verdict).toBe('pass');
    expect(judgeHost(inc, { final: nG(inc) - 1n + (nC(inc) << 16n), ...quiet }).lost).toEqual({ total: 1, gpu: 1, cpu: 0, exact: true });
    const dec = job('dec', 'u32');
    expect(judgeHost(dec, { final: 0x80000000n - nG(dec) - (nC(dec) << 16n), ...quiet }).verdict).toBe('pass');
    expect(judgeHost(dec, { final: 0x80000000n - nG(dec) - ((nC(dec) - 4n) << 16n), ...quiet }).lost).toEqual({ total: 4, gpu: 0, cpu: 4, exact: true });
  });
  it('float add: f32 and f16 exact sums pass, a lost update is counted, a non-integer is a mismatch', () => {
    const f = job('fadd', 'f32');
    const bits = (x: number) => BigInt(new Uint32Array(new Float32Array([x]).buffer)[0]!);
    const total = Number(nG(f)) + Number(nC(f)) * 2048;
    expect(judgeHost(f, { final: bits(total), ...quiet }).verdict).toBe('pass');
    expect(judgeHost(f, { final: bits(total - 2048), ...quiet }).lost).toEqual({ total: 1, gpu: 0, cpu: 1, exact: true });
    expect(judgeHost(f, { final: bits(total + 0.5), ...quiet }).verdict).toBe('mismatch');
    const h = job('fadd', 'f16');
    // 16 x 1.0 + 48 x 32.0 = 1552 = 0x6610 in f16
    expect(judgeHost(h, { final: 0x6610n, ...quiet }).verdict).toBe('pass');
    expect(judgeHost(h, { final: 0x660en, ...quiet }).lost).toEqual({ total: 2, gpu: 2, cpu: 0, exact: true });
    expect(judgeHost(h, { final: 0x65f0n, ...quiet }).lost).toEqual({ total: 1, gpu: 0, cpu: 1, exact: true }); // 1520: one CPU 32.0 missing
  });
  it('refuses a job whose GPU total reaches the CPU unit (the sides could not be told apart: the first H100 run had f16 at 32 x 1.0 against 32.0)', () => {
    const h = job('fadd', 'f16');
    const wide: HostJob = { ...h, gpu: { ...h.gpu, threads: 32 } };
    expect(() => judgeHost(wide, { final: 0x6620n, ...quiet })).toThrow(/reach the CPU's unit/);
  });
  it("cas: the final fields must equal each side's successful swaps", () => {
    const j = job('cas', 'b32');
    expect(judgeHost(j, { final: 700n + (300n << 16n), gpuSuccesses: 700, cpuSuccesses: 300, ...quiet }).verdict).toBe('pass');
    const lost = judgeHost(j, { final: 698n + (300n << 16n), gpuSuccesses: 700, cpuSuccesses: 300, ...quiet });
    expect(lost.lost).toEqual({ total: 2, gpu: 2, cpu: 0, exact: true });
    expect(judgeHost(j, { final: 701n + (300n << 16n), gpuSuccesses: 700, cpuSuccesses: 300, ...quiet }).verdict).toBe('mismatch');
  });
  it('the plain-CPU contrast: a lost update is observed under the contrast rule', () => {
    const j = job('add', 'u32', 'sys', 'plain');
    const r = judgeHost(j, { final: nG(j) + ((nC(j) - 9n) << 16n), ...quiet });
    expect(r.verdict).toBe('observed');
    expect(r.rules.map((x) => x.id)).toContain(HOSTMEM_RULES.plainCpu.id);
    expect(r.lost.cpu).toBe(9);
  });
});

/** A serial exch execution: GPU and CPU operations interleaved in the given order of sides. */
function exchSerial(j: HostJob, pattern: (i: number) => 0 | 1): { obs: HostObservation; order: { side: 0 | 1; t: number; k: number }[] } {
  const gR: bigint[] = new Array(Number(nG(j))).fill(0n);
  const cR: bigint[] = new Array(Number(nC(j))).fill(0n);
  const next = [0, 0];
  const order: { side: 0 | 1; t: number; k: number }[] = [];
  let cur = j.init;
  for (let i = 0; i < Number(nG(j) + nC(j)); i++) {
    let side = pattern(i);
    if (next[side]! >= (side === 0 ? gR.length : cR.length)) side = side === 0 ? 1 : 0;
    const s = side === 0 ? j.gpu : j.cpu;
    // thread-major in program order: round-robin over threads
    const n = next[side]!++;
    const t = n % s.threads;
    const k = Math.floor(n / s.threads);
    (side === 0 ? gR : cR)[t * s.iters + k] = cur;
    cur = exchValue(j, side, t, k);
    order.push({ side, t, k });
  }
  return { obs: { final: cur, gpuReturned: gR, cpuReturned: cR, ...quiet }, order };
}

describe('exch: the returned values must chain through every operation', () => {
  const j = job('exch', 'b32');
  it('a serial interleaving passes', () => {
    const { obs } = exchSerial(j, (i) => ((i * 7) % 3 === 0 ? 1 : 0));
    const r = judgeHost(j, obs);
    expect(r.verdict).toBe('pass');
  });
  it('two operations returning one value (a lost update) is observed, the overwritten values counted', () => {
    const { obs } = exchSerial(j, (i) => (i % 2 ? 1 : 0));
    const cR = [...obs.cpuReturned!];
    // the CPU's first operation returns what the GPU's first returned: the value written between is lost
    cR[0] = obs.gpuReturned![0]!;
    const r = judgeHost(j, { ...obs, cpuReturned: cR });
    expect(r.verdict).toBe('observed');
    expect(r.serial).toBe(false);
    expect(r.lost.total).toBeGreaterThanOrEqual(1);
  });
  it("a chain that breaks a thread's program order is no serial order", () => {
    const g = job('exch', 'b32');
    // one GPU thread, two iterations, no CPU: the chain runs k=1 before k=0
    const small: HostJob = { ...g, gpu: { ...g.gpu, threads: 1, blocks: 1, iters: 2 }, cpu: { ...g.cpu, threads: 0, iters: 0 } };
    const v0 = exchValue(small, 0, 0, 0);
    const v1 = exchValue(small, 0, 0, 1);
    expect(judgeHost(small, { final: v1, gpuReturned: [0n, v0], cpuReturned: [], ...quiet }).verdict).toBe('pass');
    const r = judgeHost(small, { final: v0, gpuReturned: [v1, 0n], cpuReturned: [], ...quiet });
    expect(r.serial).toBe(false);
  });
  it('a value nobody wrote is a mismatch', () => {
    const { obs } = exchSerial(j, (i) => (i % 2 ? 1 : 0));
    expect(judgeHost(j, { ...obs, final: 0x12345n }).verdict).toBe('mismatch');
  });
});

describe('or/and/xor: owned bits', () => {
  it('every owned bit as its owner left it passes; a stale owned bit is a lost update; a bit nobody owns is a mismatch', () => {
    for (const cls of ['or', 'and', 'xor']) {
      const j = job(cls, 'b32');
      const expected = cls === 'and' ? ownedMask(j) : 0n;
      expect(judgeHost(j, { final: expected, ...quiet }).verdict).toBe('pass');
      const stale = judgeHost(j, { final: expected ^ (1n << 3n) ^ (1n << 17n), ...quiet });
      expect(stale.verdict).toBe('observed');
      expect(stale.lost).toEqual({ total: 2, exact: false });
      expect(judgeHost(j, { final: expected ^ (1n << 30n), ...quiet }).verdict).toBe('mismatch');
    }
  });
});

describe('min/max: the extreme operand', () => {
  it('the extreme passes, another operand is a lost update, a non-operand is a mismatch', () => {
    for (const [cls, type] of [
      ['max', 'u32'],
      ['min', 's32'],
      ['min', 'u64'],
      ['max', 's64'],
    ] as const) {
      const j = job(cls, type);
      // the CPU runs more iterations: its last operand is the extreme
      const best = minmaxOperand(j, 1, j.cpu.threads - 1, j.cpu.iters - 1);
      expect(judgeHost(j, { final: best, ...quiet }).verdict).toBe('pass');
      const other = minmaxOperand(j, 0, 0, j.gpu.iters - 1);
      expect(judgeHost(j, { final: other, ...quiet }).verdict).toBe('observed');
      expect(judgeHost(j, { final: 0x5a5a5a5an, ...quiet }).verdict).toBe('mismatch');
    }
  });
});

describe('the plan', () => {
  it('covers every class, type, scope and memory kind; the contrast jobs run atom.sys with plain CPU updates', () => {
    const plan = hostmemPlan((id) => ({ id }) as never);
    expect(plan.length).toBe(465);
    const ids = new Set(plan.map((p) => p.job.id));
    expect(ids.size).toBe(plan.length);
    for (const m of ['hostalloc', 'registered', 'managed'])
      for (const s of ['sys', '', 'gpu']) expect(plan.some((p) => p.job.memory === m && p.job.scope === s && p.job.cls === 'cas')).toBe(true);
    expect(
      plan
        .filter((p) => p.job.cpuMode === 'plain')
        .map((p) => p.job.variant)
        .sort(),
    ).toEqual([...new Set(plan.filter((p) => p.job.cpuMode === 'plain').map((p) => p.job.variant))].sort().flatMap((v) => [v, v, v]));
    expect(makeJob('red', 'sys', { cls: 'add', op: 'add', types: ['u32'], families: ['red'] }, 'u32', 'managed', 'atomic').variant).toBe(
      'red.sys.global.add.u32',
    );
  });
});

const addonPath = join(ROOT, 'native', 'build', 'Release', 'cuda_launcher.node');
const addon: HostAddon | undefined = existsSync(addonPath) ? (createRequire(import.meta.url)(addonPath) as HostAddon) : undefined;
const hasWorkers = typeof addon?.hostmemCpuStart === 'function';

describe.skipIf(!hasWorkers)('the CPU workers of the addon, on ordinary memory (no GPU: go at once)', () => {
  /** Runs a job's CPU side alone on a buffer; returns the observation with no GPU operation. */
  function cpuOnly(j0: HostJob): { job: HostJob; obs: HostObservation } {
    const job: HostJob = { ...j0, gpu: { ...j0.gpu, threads: 0, iters: 0 } };
    const data = Buffer.alloc(4096);
    const ctrl = Buffer.alloc(4096);
    if (job.width === 16) data.writeUInt16LE(Number(job.init));
    else if (job.width === 32) data.writeUInt32LE(Number(job.init));
    else data.writeBigUInt64LE(job.init);
    const cfg = { ...cpuConfig(job, addon!.hostmemAddressOf(data), addon!.hostmemAddressOf(ctrl)), gpuArrivals: 0 };
    const r = addon!.hostmemCpuJoin(addon!.hostmemCpuStart(cfg));
    const final = job.width === 16 ? BigInt(data.readUInt16LE(0)) : job.width === 32 ? BigInt(data.readUInt32LE(0)) : data.readBigUInt64LE(0);
    return {
      job,
      obs: {
        final,
        ...(job.cls === 'exch'
          ? { gpuReturned: [], cpuReturned: Array.from({ length: job.cpu.threads * job.cpu.iters }, (_, i) => r.returned.readBigUInt64LE(i * 8)) }
          : {}),
        ...(job.cls === 'cas' ? { gpuSuccesses: 0, cpuSuccesses: r.successes } : {}),
        gpuSawCpuMid: 0,
        cpuSawGpuMid: r.sawGpuMid,
        startTimedOut: r.startTimedOut,
        spinTimeouts: 0,
      },
    };
  }
  it('every class with atomic CPU updates: a serial order explains what the workers left', () => {
    const plan = hostmemPlan(
      (id) => ({ id }) as never,
      () => true,
      ['hostalloc'],
    ).filter((p) => p.job.scope === 'sys' && p.job.cpuMode === 'atomic' && p.job.family === 'atom');
    expect(plan.length).toBe(27);
    for (const p of plan) {
      const { job, obs } = cpuOnly(p.job);
      const r = judgeHost(job, obs);
      expect(r.serial, `${job.id}: ${r.reason}`).toBe(true);
      expect(obs.startTimedOut).toBe(false);
    }
  });
  it("the CPU's own counts: 4 threads x 256 fetch_add of 2^16 and 256 exchanges each", () => {
    const { obs } = cpuOnly(job('add', 'u32'));
    expect(obs.final).toBe(4n * 256n * 65536n);
    const e = cpuOnly(job('exch', 'b64'));
    expect(new Set(e.obs.cpuReturned).size).toBe(1024);
  });
});

describe('the recorded H100 run replays through the judge', () => {
  const file = join(ROOT, 'reports', 'baselines', 'h100-sm_90-hostmem', 'hostmem.json.gz');
  it.skipIf(!existsSync(file))('every job judged again gives the recorded verdict and lost count; its job is what the plan makes now', async () => {
    const { gunzipSync } = await import('node:zlib');
    const rec = JSON.parse(gunzipSync(readFileSync(file)).toString()) as {
      jobs: { job: Record<string, unknown>; obs?: Record<string, unknown>; judgement?: { verdict: string; lost: { total: number } } }[];
    };
    const plan = new Map(hostmemPlan((id) => ({ id }) as never).map((p) => [p.job.id, p.job]));
    const big = (x: unknown) => (typeof x === 'string' && x.startsWith('0x') ? BigInt(x) : x);
    let judged = 0;
    for (const r of rec.jobs) {
      if (!r.obs || !r.judgement) continue;
      const job = plan.get(r.job.id as string)!;
      expect(job, String(r.job.id)).toBeDefined();
      const o = r.obs as Record<string, unknown>;
      const obs = {
        ...o,
        final: big(o.final),
        ...(o.gpuReturned ? { gpuReturned: (o.gpuReturned as string[]).map((x) => BigInt(x)) } : {}),
        ...(o.cpuReturned ? { cpuReturned: (o.cpuReturned as string[]).map((x) => BigInt(x)) } : {}),
      } as HostObservation;
      const j = judgeHost(job, obs);
      expect(j.verdict, job.id).toBe(r.judgement.verdict);
      expect(j.lost.total, job.id).toBe(r.judgement.lost.total);
      judged++;
    }
    expect(judged).toBeGreaterThan(400);
  });
});
