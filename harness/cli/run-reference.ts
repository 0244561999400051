/**
 * The reference executor: the cases (--vectors files in one pass that validates and judges, --case,
 * or the library and generators) through the bit-exact reference model.
 */
import { CATALOG_PTX_ISA, modulePtxFor } from '../arch/targets.js';
import { runVectorsOnReference } from '../backends/reference/vectors.js';
import { KEEP_WHOLE, type RunRecorder } from '../report/recorder.js';
import { Tally, tallyRows } from '../report/tally.js';
import { compileFilter } from '../util/filter.js';
import { UsageError } from '../util/errors.js';
import { shardStream } from '../util/shard.js';
import type { Executor, RunContext } from './run-context.js';
import { filesText, noCaseSelected, orGuess, runCasesInto, selectCases, vectorProblems } from './run-cases.js';

export const runReference: Executor = async (ctx) => {
  const { opts, io, backend, target } = ctx;
  if (opts.vectors.length && opts.case === undefined) return runVectorFiles(ctx);
  const sel = await selectCases(opts, io);
  if (typeof sel === 'number') return sel;
  if (!sel.total && !opts.shard) throw noCaseSelected(opts);
  io.err(`cases: ${sel.total} (${sel.counts})`);
  const rec = ctx.startRecorder();
  rec.set({
    toolchain: {},
    modulePtx: modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA,
    backend: { name: 'reference', reason: backend.reason, passedOver: backend.passedOver },
    stats: { cases: sel.total },
    catalogEntries: 0,
  });
  const r = await runCasesInto(rec, sel, io);
  if (!r.cases && !opts.shard) throw new UsageError(`no case selected by --filter '${opts.filter ?? ''}'${orGuess(opts.filter)} --list shows the variants`);
  rec.set({ stats: { cases: r.cases, ...(r.dropped ? r.totals : {}) } });
  return rec;
};

/**
 * --vectors on the reference backend: one pass that validates and judges (results held until the
 * read ends clean; any problem: exit 2 with every problem, nothing recorded).
 */
async function runVectorFiles({ opts, backend, target, io, startRecorder }: RunContext): Promise<RunRecorder | number> {
  let last = performance.now();
  const t0 = last;
  const r = await runVectorsOnReference(opts.vectors, process.cwd(), {
    keep: shardStream(compileFilter(opts.filter), opts.shard),
    // --keep N: the first N cases kept whole (and every result that is not a plain pass); all: every one
    keepWhole: opts.keepGiven ? opts.keepPasses : KEEP_WHOLE,
    onProgress: (files, read, bytes, total, verdicts) => {
      const now = performance.now();
      if (now - last < 2000) return;
      last = now;
      const counts = Object.entries(verdicts)
        .map(([v, k]) => `${v} ${k}`)
        .join(' ');
      io.err(
        `reading and judging vector files: ${filesText(files, bytes, total)}, ${read} cases, ${(bytes / 2 ** 20).toFixed(1)}/${(total / 2 ** 20).toFixed(1)} MB${counts ? ` | ${counts}` : ''}`,
      );
    },
  });
  if (r.problems.length) return vectorProblems(io, r.problems);
  if (!r.cases && !opts.shard) throw noCaseSelected(opts, ` of the ${r.read} in the vector files`);
  const s = (performance.now() - t0) / 1000;
  io.err(
    `cases: ${r.cases} (from --vectors ${r.read} in ${r.files.length} file(s)${opts.filter ? ', before --filter' : ''}) read and judged on the reference model in ${s.toFixed(1)} s (${Math.round(r.cases / Math.max(s, 1e-9))}/s; ${r.fastPasses} passed by the fast judge)`,
  );
  const rec = startRecorder();
  rec.set({
    toolchain: {},
    modulePtx: modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA,
    backend: { name: 'reference', reason: backend.reason, passedOver: backend.passedOver },
    catalogEntries: 0,
  });
  for (let i = 0; i < r.kept.length; i += 10_000) rec.add(r.kept.slice(i, i + 10_000));
  // the passes judged and not kept whole, per family: the summary table counts them (the kept sample said apart)
  const keptPasses: Record<string, number> = {};
  for (const x of r.kept) if (x.verdict === 'pass') keptPasses[x.family] = (keptPasses[x.family] ?? 0) + 1;
  const dropped = new Tally();
  for (const t of tallyRows(r.totals, 'total'))
    if (t.what === 'pass' && t.n > (keptPasses[t.family] ?? 0)) dropped.dropped(t.family, 'cases', t.n - (keptPasses[t.family] ?? 0));
  rec.set({ stats: { cases: r.cases, fastJudged: r.fastPasses, ...(r.cases > r.kept.length ? r.totals : {}), ...dropped.stats() } });
  return rec;
}
