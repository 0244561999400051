/**
 * Runs multimem jobs on a MulticastDriver: one multicast object per job, bound to as many devices
 * as the job has replicas; replicas initialised through each device's own (unicast) mapping; the
 * kernel launched on the first device through the multicast mapping; every replica, and the
 * returned values, read back; each launch repeated `launches` times from the same initial values
 * (the nondeterminism histogram). Everything created is released in reverse order on every path,
 * a failing call included; release failures are collected and reported, never hidden.
 */
import { comparePtx } from '../../arch/targets.js';
import { type ElementFormat, elementFormat } from '../../numerics/formats.js';
import type { ModelVariant, ReferenceCase } from '../../reference/model.js';
import type { MulticastDriver, MulticastKernel } from './driver.js';
import { type MulticastFamily, multicastModule } from './family.js';

export interface MulticastCase {
  readonly id: string;
  /** replicas[r][i]: element i at replica r (as many replicas as the job); b for red/st. */
  readonly input: ReferenceCase;
}

export interface MulticastJob {
  readonly variant: ModelVariant & { readonly ptx: string };
  readonly family: MulticastFamily;
  readonly replicas: number;
  readonly cases: readonly MulticastCase[];
}

/** What one case showed over the launches: each distinct outcome with how often. */
export interface CaseOutcomes {
  readonly id: string;
  readonly outcomes: { readonly replicas?: bigint[][]; readonly returned?: bigint[]; count: number }[];
}

const roundUp = (n: number, g: number) => Math.ceil(n / g) * g;

function toBuffer(fmt: ElementFormat, values: readonly bigint[]): Buffer {
  const bytes = fmt.bits / 8;
  const b = Buffer.alloc(values.length * bytes);
  values.forEach((v, i) => {
    for (let k = 0; k < bytes; k++) b[i * bytes + k] = Number((v >> BigInt(8 * k)) & 0xffn);
  });
  return b;
}

function fromBuffer(fmt: ElementFormat, b: Buffer, count: number): bigint[] {
  const bytes = fmt.bits / 8;
  return Array.from({ length: count }, (_, i) => {
    let v = 0n;
    for (let k = bytes - 1; k >= 0; k--) v = (v << 8n) | BigInt(b[i * bytes + k]!);
    return v;
  });
}

/** The kernel a job launches (its module text for the native path). */
export function jobKernel(job: MulticastJob, ptxIsa: string, target: string): MulticastKernel {
  const isa = job.family.ptxIsa && comparePtx(job.family.ptxIsa, ptxIsa) > 0 ? job.family.ptxIsa : ptxIsa;
  const m = job.family.module
    ? job.family.module(job.variant.ptx, job.variant.q, isa, target, job.cases[0]?.input.replicas?.[0]?.length ?? 1)
    : multicastModule(job.family, job.variant.ptx, job.variant.q, isa, target);
  return { ptx: job.variant.ptx, family: job.variant.family, module: m.text, threads: job.cases.length, slotBytes: m.slotBytes };
}

/** Thrown between launches when the run was asked to stop (Ctrl-C, SIGTERM); everything created is released first. */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
}

/** One job's outcome within a group: what its cases showed, or why it could not run. */
export type JobOutcome = { readonly cases: CaseOutcomes[] } | { readonly error: string };

/**
 * Runs jobs of one replica count on one multicast object (created, bound and mapped once, sized for
 * the largest job), each job with its own kernel; a job that fails is an error and the next job
 * still runs (after a sticky fault they fail too, each saying why). Everything created is released
 * in reverse order on every path; a stop request (between launches) releases everything and returns
 * the jobs finished so far with `interrupted` set.
 */
export async function runMulticastGroup(
  drv: MulticastDriver,
  devices: readonly number[],
  jobs: readonly MulticastJob[],
  o: { launches: number; ptxIsa: string; target: string; stop?: () => boolean },
): Promise<{ jobs: JobOutcome[]; releaseErrors: string[]; interrupted?: string }> {
  const replicas = jobs[0]?.replicas ?? 0;
  if (jobs.some((j) => j.replicas !== replicas)) throw new Error('a group holds jobs of one replica count');
  if (replicas < 2 || replicas > devices.length) throw new Error(`a job of ${replicas} replicas needs as many devices; ${devices.length} bound`);
  const devs = devices.slice(0, replicas);
  const kernels = jobs.map((j) => jobKernel(j, o.ptxIsa, o.target));
  const used = Math.max(1, ...kernels.map((k) => k.slotBytes * k.threads));
  const release: { what: string; run: () => void }[] = [];
  const releaseErrors: string[] = [];
  const outs: JobOutcome[] = [];
  const releaseAll = () => {
    for (const r of release.reverse()) {
      try {
        r.run();
      } catch (e) {
        releaseErrors.push(`releasing the ${r.what}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    release.length = 0;
  };
  try {
    const size = roundUp(used, drv.granularity(devs.length, used));
    const mc = drv.createMulticast(devs.length, size);
    release.push({ what: 'multicast object', run: () => drv.releaseMulticast(mc) });
    for (const d of devs) drv.addDevice(mc, d);
    const mem: bigint[] = [];
    for (const d of devs) {
      const m = drv.allocPhysical(d, size);
      release.push({ what: `device ${d} memory`, run: () => drv.releasePhysical(m) });
      drv.bindMemory(mc, d, m, size);
      release.push({ what: `device ${d} binding`, run: () => drv.unbindMemory(mc, d, size) });
      mem.push(m);
    }
    const mcVa = drv.mapMulticast(mc, devs[0]!, size);
    release.push({ what: 'multicast mapping', run: () => drv.unmap(mcVa, size) });
    const uva = devs.map((d, k) => {
      const va = drv.mapUnicast(mem[k]!, d, size);
      release.push({ what: `device ${d} mapping`, run: () => drv.unmap(va, size) });
      return va;
    });
    const bVa = drv.allocPlain(devs[0]!, size);
    release.push({ what: 'operand buffer', run: () => drv.freePlain(devs[0]!, bVa) });
    const outVa = drv.allocPlain(devs[0]!, size);
    release.push({ what: 'result buffer', run: () => drv.freePlain(devs[0]!, outVa) });

    for (const [j, job] of jobs.entries()) {
      const kernel = kernels[j]!;
      const fmt = elementFormat(job.variant.q.type ?? '');
      const perCase = kernel.slotBytes / (fmt.bits / 8);
      const bytes = Math.max(kernel.slotBytes * job.cases.length, 1);
      const outcomes: CaseOutcomes[] = job.cases.map((c) => ({ id: c.id, outcomes: [] }));
      let fn: bigint | undefined;
      try {
        fn = drv.loadKernel(devs[0]!, kernel);
        const init = devs.map((_, r) =>
          toBuffer(
            fmt,
            job.cases.flatMap((c) => c.input.replicas![r]!),
          ),
        );
        const operand = job.family.operand ?? 'b';
        const b = job.family.takesB
          ? toBuffer(
              fmt,
              job.cases.flatMap((c) => c.input[operand]!),
            )
          : undefined;
        for (let l = 0; l < o.launches; l++) {
          // a turn of the event loop between launches lets a signal handler ask for a stop
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (o.stop?.()) throw new Interrupted(`stopped by a signal before launch ${l + 1} of ${o.launches} of ${job.variant.ptx}`);
          devs.forEach((d, r) => drv.write(d, uva[r]!, init[r]!));
          if (b) drv.write(devs[0]!, bVa, b);
          drv.launch(devs[0]!, fn, kernel, { mc: mcVa, b: bVa, out: outVa });
          const reps = devs.map((d, r) => fromBuffer(fmt, drv.read(d, uva[r]!, bytes), perCase * job.cases.length));
          const ret = job.family.returns ? fromBuffer(fmt, drv.read(devs[0]!, outVa, bytes), perCase * job.cases.length) : undefined;
          job.cases.forEach((_, k) => {
            const slice = (xs: bigint[]) => xs.slice(k * perCase, (k + 1) * perCase);
            const seen = { ...(job.family.returns ? { returned: slice(ret!) } : { replicas: reps.map(slice) }) };
            const key = JSON.stringify(seen, (_k, v) => (typeof v === 'bigint' ? v.toString(16) : v));
            const list = outcomes[k]!.outcomes as (typeof seen & { count: number; key?: string })[];
            const same = list.find((x) => x.key === key);
            if (same) same.count++;
            else list.push({ ...seen, count: 1, key });
          });
        }
        for (const c of outcomes) for (const x of c.outcomes as { key?: string }[]) delete x.key;
        outs.push({ cases: outcomes });
      } catch (e) {
        if (e instanceof Interrupted) throw e;
        outs.push({ error: e instanceof Error ? e.message : String(e) });
      } finally {
        if (fn !== undefined) {
          try {
            drv.unloadKernel(devs[0]!, fn);
          } catch (e) {
            releaseErrors.push(`releasing the kernel module of ${job.variant.ptx}: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
      }
    }
  } catch (e) {
    if (e instanceof Interrupted) {
      releaseAll();
      // the jobs finished before the stop keep their outcomes; the rest were not run
      return { jobs: outs, releaseErrors, interrupted: e.message };
    }
    // the object could not be set up: every job not run is an error with the reason
    const why = e instanceof Error ? e.message : String(e);
    while (outs.length < jobs.length) outs.push({ error: why });
  } finally {
    releaseAll();
  }
  return { jobs: outs, releaseErrors };
}
