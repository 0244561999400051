/**
 * The multicast backend: multimem cases run on a multicast object bound to 2 to 8 devices
 * (executor.ts over a MulticastDriver: the native binding on an NVLS system, the stand-in in tests),
 * judged by the same comparator as every executor: the reference's replica order sets, and for a
 * result outside them the explanation alternatives (accumulated in f32 or f64, exactly with one
 * rounding, subnormals flushed or kept). Each case is launched `launches` times from the same
 * values; the distinct outcomes and their counts are its nondeterminism histogram.
 */
import { comparePtx } from '../../arch/targets.js';
import type { Case } from '../../case-readers/types.js';
import { multicastFamily } from '../../registry/multicast.js';
import { elementFormat } from '../../numerics/formats.js';
import { type EntryResult, caseResultHead } from '../../report/types.js';
import { type ObservationVerdict, judge } from '../../compare/judge-case.js';
import type { MulticastDriver } from './driver.js';
import { type JobOutcome, type MulticastJob, runMulticastGroup } from './executor.js';
import { hexBits } from '../../numerics/hex.js';

export interface MulticastRunOptions {
  readonly driver: MulticastDriver;
  /** The devices the guard allowed (multicast supported), in order. */
  readonly devices: readonly number[];
  readonly cases: readonly Case[];
  readonly launches: number;
  readonly ptxIsa: string;
  readonly target: string;
  /** Asked between launches: true stops the run (its jobs' objects released; the cases not run are left out). */
  readonly stop?: () => boolean;
}

const RANK: Record<string, number> = { pass: 0, observed: 1, mismatch: 2, error: 3 };
const hexOf = (bits: number) => (v: bigint) => hexBits(bits, v);

/** Jobs: one per variant and replica count, its cases in order; cases the executor cannot run, with why. */
export function multicastJobs(cases: readonly Case[], devices: number, ptxIsa?: string): { jobs: MulticastJob[]; skipped: { c: Case; why: string }[] } {
  const jobs = new Map<string, MulticastJob & { cases: Case[] }>();
  const skipped: { c: Case; why: string }[] = [];
  for (const c of cases) {
    const family = multicastFamily(c.variant.family);
    const reps = c.input.replicas?.length ?? 0;
    if (!family) skipped.push({ c, why: `the multicast executor does not run ${c.variant.family}` });
    else if (reps < 2) skipped.push({ c, why: `a multicast object binds 2 or more devices; the case has ${reps} replica(s)` });
    else if (reps > devices) skipped.push({ c, why: `the case has ${reps} replicas; ${devices} device(s) support multicast here` });
    else if (ptxIsa && family.ptxIsa && comparePtx(family.ptxIsa, ptxIsa) > 0)
      skipped.push({ c, why: `${c.variant.family} needs PTX ISA ${family.ptxIsa}; the installed ptxas writes up to ${ptxIsa} (a newer CUDA toolkit runs it)` });
    else {
      // a bulk family's cases may differ in length: one job (one kernel, one slot size) per length
      const key = `${c.variant.id}\u0000${reps}\u0000${c.input.replicas![0]!.length}`;
      let j = jobs.get(key);
      if (!j) jobs.set(key, (j = { variant: { family: c.variant.family, q: c.variant.q, ptx: c.variant.ptx }, family, replicas: reps, cases: [] }));
      j.cases.push(c);
    }
  }
  return { jobs: [...jobs.values()], skipped };
}

function caseEntry(
  c: Case,
  verdict: EntryResult['verdict'],
  reason: string,
  unspecified: readonly string[],
  observed: Record<string, unknown> | undefined,
  sass: string,
): EntryResult {
  const H = hexOf(elementFormat(c.variant.q.type ?? '').bits);
  return {
    ...caseResultHead(c, '-'),
    ...(sass ? { sass } : {}),
    verdict,
    reason,
    case: {
      origin: { ...c.origin, ...(c.cite !== undefined ? { cite: c.cite } : {}) } as Record<string, string | number>,
      input: {
        replicas: c.input.replicas!.map((r) => r.map(H)),
        ...(c.input.b ? { b: c.input.b.map(H) } : {}),
        ...(c.input.source ? { source: c.input.source.map(H) } : {}),
      },
      ...(observed ? { observed } : {}),
      allowed: {},
      unspecified,
    },
  };
}

export async function runMulticastCases(
  o: MulticastRunOptions,
): Promise<{ results: EntryResult[]; stats: Record<string, number>; releaseErrors: string[]; interrupted?: string }> {
  const { jobs, skipped } = multicastJobs(o.cases, o.devices.length, o.ptxIsa);
  const results: EntryResult[] = skipped.map(({ c, why }) => caseEntry(c, 'skipped', why, [], undefined, ''));
  const stats: Record<string, number> = { cases: 0, launches: 0, nondeterministic: 0, jobs: jobs.length };
  const releaseErrors: string[] = [];
  let interrupted: string | undefined;
  // one multicast object per replica count, its jobs one kernel each
  const groups = new Map<number, MulticastJob[]>();
  for (const j of jobs) groups.set(j.replicas, [...(groups.get(j.replicas) ?? []), j]);
  const runs: { job: MulticastJob; run: JobOutcome }[] = [];
  for (const [, group] of [...groups].sort((a, b) => a[0] - b[0])) {
    const g = await runMulticastGroup(o.driver, o.devices, group, {
      launches: o.launches,
      ptxIsa: o.ptxIsa,
      target: o.target,
      ...(o.stop ? { stop: o.stop } : {}),
    });
    releaseErrors.push(...g.releaseErrors);
    g.jobs.forEach((run, k) => runs.push({ job: group[k]!, run }));
    if (g.interrupted) {
      interrupted = g.interrupted;
      break;
    }
  }
  for (const { job, run } of runs) {
    if ('error' in run) {
      for (const c of job.cases as Case[])
        results.push(caseEntry(c, 'error', `the multicast run of ${job.variant.ptx} on ${job.replicas} devices failed: ${run.error}`, [], undefined, ''));
      continue;
    }
    stats.launches! += o.launches;
    (job.cases as Case[]).forEach((c, k) => {
      stats.cases!++;
      const H = hexOf(elementFormat(c.variant.q.type ?? '').bits);
      const outs = run.cases[k]!.outcomes;
      // every distinct outcome judged; the case takes the worst
      let worst: ObservationVerdict | undefined;
      for (const x of outs) {
        const v = judge(c.id, c.variant, c.input, { ...(x.returned ? { returned: x.returned } : {}), ...(x.replicas ? { replicas: x.replicas } : {}) });
        if (!worst || RANK[v.verdict]! > RANK[worst.verdict]!) worst = v;
      }
      const first = outs[0]!;
      const histogram: { returned?: string[]; replicas?: string[][]; launches: number }[] = outs.map((x) => ({
        ...(x.returned ? { returned: x.returned.map(H) } : { replicas: x.replicas!.map((r) => r.map(H)) }),
        launches: x.count,
      }));
      if (outs.length > 1) stats.nondeterministic!++;
      const varied =
        outs.length > 1
          ? `; ${outs.length} distinct outcomes over ${o.launches} launches (${histogram.map((h) => `${JSON.stringify(h.returned ?? h.replicas)} x${h.launches}`).join(', ')})`
          : o.launches > 1
            ? `; the same outcome in all ${o.launches} launches`
            : '';
      const observed = {
        ...(first.returned ? { returned: first.returned.map(H) } : { replicas: first.replicas!.map((r) => r.map(H)) }),
        ...(o.launches > 1 ? { histogram } : {}),
      };
      results.push(caseEntry(c, worst!.verdict, `${worst!.reason}${varied}`, worst!.unspecified, observed, ''));
    });
  }
  return { results, stats, releaseErrors, ...(interrupted ? { interrupted } : {}) };
}
