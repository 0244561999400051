/**
 * Vector files on the reference backend in one pass: each block of cases is judged as the validating
 * read hands it on (packed blocks by the fast path, judgePackedOnReference; objects by
 * runCaseOnReference), and the results are held back until the read ends. A file with any problem
 * gives nothing but its problems (exit 2, nothing recorded), exactly as if the run had validated
 * first; a clean read hands every kept result on at once. What is held is what a report keeps
 * anyway: the first `keepWhole` results whole, then those that are not a plain pass; the rest are
 * counted.
 */
import { Tally, tallyRows } from '../../report/tally.js';
import { type CaseBatch, isPacked } from '../../case-readers/packed.js';
import type { Case, InputProblem } from '../../case-readers/types.js';
import { validateVectors } from '../../case-readers/vectors.js';
import type { EntryResult, Verdict } from '../../report/types.js';
import { runCaseOnReference } from './cases.js';
import { judgePackedOnReference } from './packed.js';

export interface VectorRun {
  readonly problems: InputProblem[];
  readonly files: string[];
  /** Cases read (before the filter). */
  readonly read: number;
  /** Cases judged (after the filter). */
  readonly cases: number;
  readonly kept: EntryResult[];
  /** Verdict counts per family over every judged case (report/tally.ts, as stats keys). */
  readonly totals: Record<string, number>;
  readonly verdicts: Partial<Record<Verdict, number>>;
  /** Cases passed by the fast path. */
  readonly fastPasses: number;
}

const WHOLE = { whole: true };

export async function runVectorsOnReference(
  paths: readonly string[],
  idRoot: string,
  opts: {
    keep?: (variantId: string) => boolean;
    keepWhole: number;
    /** False: every case the full way (the tests compare the two). */
    fast?: boolean;
    onProgress?: (filesDone: number, read: number, bytesDone: number, bytesTotal: number, verdicts: Partial<Record<Verdict, number>>) => void;
  },
): Promise<VectorRun> {
  const keep = opts.keep;
  const kept: EntryResult[] = [];
  const tally = new Tally();
  const verdicts: Partial<Record<Verdict, number>> = {};
  let judged = 0;
  let fastPasses = 0;
  const count = (family: string, v: Verdict, k = 1) => {
    tally.judged(family, v, k);
    verdicts[v] = (verdicts[v] ?? 0) + k;
  };
  const onCases = (b: CaseBatch) => {
    if (isPacked(b)) {
      const blk = keep ? b.filter((i) => keep(b.variantId(i))) : b;
      if (!blk.n) return;
      const r = judgePackedOnReference(blk, opts.keepWhole - judged, opts.fast !== false);
      for (const k of r.kept) kept.push(k);
      for (const t of tallyRows(r.totals, 'total')) {
        tally.judged(t.family, t.what as Verdict, t.n);
        verdicts[t.what as Verdict] = (verdicts[t.what as Verdict] ?? 0) + t.n;
      }
      fastPasses += r.fastPasses;
      judged += blk.n;
      return;
    }
    for (const c of b as readonly Case[]) {
      if (keep && !keep(c.variant.id)) continue;
      const r = runCaseOnReference(c, judged < opts.keepWhole ? WHOLE : undefined);
      count(r.family, r.verdict);
      if (judged < opts.keepWhole || r.verdict !== 'pass') kept.push(r);
      judged++;
    }
  };
  const v = await validateVectors(paths, idRoot, (files, read, bytes, total) => opts.onProgress?.(files, read, bytes, total, verdicts), onCases);
  if (v.problems.length) return { problems: v.problems, files: v.files, read: v.cases, cases: 0, kept: [], totals: {}, verdicts: {}, fastPasses: 0 };
  return { problems: [], files: v.files, read: v.cases, cases: judged, kept, totals: tally.stats(), verdicts, fastPasses };
}
