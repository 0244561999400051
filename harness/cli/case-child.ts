/**
 * The case child (library-cases.ts, startCaseChild): a program of its own that selects the case
 * library and judges it on the reference model, sending the kept results back to the run, while the
 * run's own thread enumerates the catalog and ptxas classifies it. One request in; `selected`,
 * `results` (every 50 ms or so) and `done` out (library-cases.ts, CaseChildMessage). Once the run's
 * thread is free it sends `share`: the child hands it the second half of the cases it has left
 * (`shared`) and judges the first half itself.
 */
import { runCaseOnReference } from '../backends/reference/cases.js';
import { setSpecEdition } from '../catalog/editions.js';
import { registerAllFamilies } from '../families/index.js';
import type { EntryResult, Verdict } from '../report/types.js';
import { type CaseChildInbound, type CaseChildMessage, type CaseChildRequest, CaseTally, selectLibrary, shareCount } from './library-cases.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

const send = (m: CaseChildMessage) => new Promise<void>((res) => process.send!(m, undefined, {}, () => res()));

// the run went away (ended, interrupted): nothing more to do
process.on('disconnect', () => process.exit(0));

let request: CaseChildRequest | undefined;
/** `share` requests not yet answered (answered between batches). */
let asked = 0;

process.on('message', (m: CaseChildInbound) => {
  if ('type' in m && m.type === 'share') asked++;
  else if (!request) void judge((request = m as CaseChildRequest));
});

async function judge(req: CaseChildRequest): Promise<void> {
  try {
    setSpecEdition(req.specEdition);
    const sel = await selectLibrary(req);
    await send({ type: 'selected', total: sel.total, counts: sel.counts, problems: sel.problems, problemCount: sel.problemCount });
    if (sel.problems.length) return;
    const tally = new CaseTally(req.keepPasses);
    const cases = sel.cases;
    // cases 0 to end-1 are this child's; a share hands the run the second half of what is left
    let end = cases.length;
    let i = 0;
    while (i < end) {
      // the run asked for cases (before the first batch too: a run already free splits the library at once)
      for (; asked > 0; asked--) {
        const give = shareCount(end - i);
        await send({ type: 'shared', from: end - give, cases: cases.slice(end - give, end) });
        end -= give;
      }
      if (i >= end) break;
      const batch: EntryResult[] = [];
      const until = performance.now() + 50;
      do batch.push(runCaseOnReference(cases[i++]!));
      while (i < end && performance.now() < until);
      const verdicts: Partial<Record<Verdict, number>> = {};
      for (const r of batch) verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
      // kept results travel whole: their `case` detail is read (built) as they are serialised
      await send({ type: 'results', kept: tally.keep(batch).map((r) => ({ ...r })), n: batch.length, verdicts });
    }
    await send({ type: 'done', cases: tally.cases, totals: tally.totals, dropped: tally.dropped, passes: tally.passes, end });
  } catch (e) {
    await send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    process.exit(1);
  }
}
