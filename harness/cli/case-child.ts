/**
 * The case child (library-cases.ts, startCaseChild): a program of its own that selects the case
 * library and judges it on the reference model, sending the kept results back to the run, while the
 * run's own thread enumerates the catalog and ptxas classifies it. One request in; `selected`,
 * `results` (every 50 ms or so) and `done` out (library-cases.ts, CaseChildMessage). Once the run's
 * thread is free it sends `share`: the child hands it every other case of those it has left
 * (`shared`), judges the others and sends their results untallied with their places (the run
 * tallies the two in case order); the run, done with those, asks again.
 */
import { withEdition } from '../catalog/editions.js';
import { registerAllFamilies } from '../families/index.js';
import {
  type CaseChildInbound,
  type CaseChildMessage,
  type CaseChildRequest,
  CaseTally,
  NONE_SHARED,
  canShare,
  handedOver,
  judgeFor,
  selectLibrary,
} from './library-cases.js';

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
  // the run's edition, sent in the request: this child judges inside it
  return withEdition(req.specEdition, () => judgeRequest(req));
}

async function judgeRequest(req: CaseChildRequest): Promise<void> {
  try {
    const sel = await selectLibrary(req);
    await send({ type: 'selected', total: sel.total, counts: sel.counts, problems: sel.problems, problemCount: sel.problemCount });
    if (sel.problems.length) return;
    const tally = new CaseTally(req.keepPasses);
    const cases = sel.cases;
    // before a split: every case, tallied here; after it (at `split`): the cases not handed over
    // (i, i + step, ...), sent untallied with their places
    let split: number | undefined;
    let step = 1;
    let i = 0;
    while (i < cases.length) {
      // the run asked for cases (before the first batch too: a run already free splits the library at once)
      // (the cases handed over waited for: a message larger than the pipe is written a part per turn of
      // the event loop, which this child gives only between batches, and the run's thread waits for it)
      for (; asked > 0; asked--) {
        if (!canShare(i, step, cases.length)) {
          await send({ type: 'shared', ...NONE_SHARED });
          continue;
        }
        split ??= i;
        await send({ type: 'shared', split, first: i + step, stride: 2 * step, cases: handedOver(cases, i, step) });
        step *= 2;
      }
      const from = i;
      const { batch, verdicts, next } = judgeFor(cases, i, step, 50);
      i = next;
      // not waited for: the run reads them when its thread is free (it enumerates the catalog in one go,
      // and a child waiting on each message would wait on that); the event loop gets a turn for `share`
      if (split === undefined) void send({ type: 'results', kept: tally.keep(batch).map((r) => ({ ...r })), n: batch.length, verdicts });
      else
        void send({
          type: 'results',
          kept: [],
          rest: batch.map((r) => ({ ...r })),
          restAt: batch.map((_, k) => from + k * step),
          n: batch.length,
          verdicts,
        });
      await new Promise((r) => setImmediate(r));
    }
    await send({
      type: 'done',
      cases: tally.cases,
      totals: tally.totals,
      dropped: tally.dropped,
      passes: tally.passes,
      ...(split !== undefined ? { split } : {}),
    });
  } catch (e) {
    await send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    process.exit(1);
  }
}
