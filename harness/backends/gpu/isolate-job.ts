/**
 * A GPU job whose worker failed (a CUDA error, a launch that never ends), run again case by case
 * through executor children (isolate.ts), down to the case that fails: every other case judged.
 */
import { generateCases } from '../../../cases/generators/cases.js';
import { PackedCases, unpackAll } from '../../case-readers/packed.js';
import type { Case } from '../../case-readers/types.js';
import { judge } from '../../compare/judge-case.js';
import { hexBits as hex } from '../../numerics/hex.js';
import { Tally } from '../../report/tally.js';
import type { EntryResult } from '../../report/types.js';
import type { LaunchJob } from './executor.js';
import { runIsolated } from './isolate.js';
import { libraryCases } from './library.js';
import { skippedCase } from './placement.js';
import { caseResult, keepCase } from './results.js';
import type { GpuJob } from './worker.js';

/** A failed job, again through child processes that split down to the culprit case. */
export async function isolateJob(
  job: GpuJob,
  executor: readonly string[],
  why: string,
): Promise<{ totals: Record<string, number>; results: EntryResult[]; cases: number }> {
  const v = job.variant;
  const given = [...job.cases, ...(job.packed ? unpackAll(PackedCases.fromData(job.packed)) : [])];
  const all: Case[] = [
    ...given,
    ...(job.library ? libraryCases(v, job.seed, job.shape.caseBytes) : []),
    ...(job.generated ? generateCases(v, job.seed, 3, job.generated, job.generatedFrom) : []),
  ];
  const w = job.shape.width;
  const launch: LaunchJob = {
    kernel: job.kernel,
    width: w,
    lanes: job.shape.elements,
    clustered: job.shape.clustered,
    ...(job.shape.tensorMap ? { tensorMap: job.shape.tensorMap } : {}),
    ...(job.shape.perCta ? { caseBytes: job.shape.caseBytes!, perCta: job.shape.perCta } : {}),
    mode: job.mode,
    cases: all.map((c) => ({
      memory: c.input.memory!.map((x) => hex(w, x)),
      b: (c.input.b ?? c.input.source)!.map((x) => hex(w, x)),
      ...(c.input.c ? { c: c.input.c.map((x) => hex(w, x)) } : {}),
    })),
  };
  const iso = await runIsolated([launch], { executor, cubin: job.cubin, timeoutMs: 120_000 });
  const tally = new Tally();
  const results: EntryResult[] = [];
  // the given cases come first: the first keepFirst of them kept whole (all without it), the others when not a plain pass
  const keepFirst = job.keepFirst ?? (job.keepGiven === false ? 0 : given.length);
  all.forEach((c, j) => {
    const o = iso.outcomes[0]![j]!;
    if ('error' in o) {
      tally.judged(v.family, 'error');
      results.push({
        ...skippedCase(c, ''),
        modulePtx: job.modulePtx,
        sass: job.sass,
        verdict: 'error',
        reason: `the launch failed for this case alone: ${o.error} (the worker had failed with ${why})`,
      });
      return;
    }
    const observed = { memory: o.memory.map((x) => BigInt(x)), ...(job.shape.returns ? { returned: o.returned.map((x) => BigInt(x)) } : {}) };
    const verdict = judge(c.id, v, c.input, observed);
    tally.judged(v.family, verdict.verdict);
    if (j < given.length ? j < keepFirst || verdict.verdict !== 'pass' : keepCase(v.q, c.id.includes('/probe:'), verdict.verdict, j, job.seed))
      results.push(caseResult(c, verdict, observed, { modulePtx: job.modulePtx, sass: job.sass }));
  });
  return { totals: tally.stats(), results, cases: all.length };
}
