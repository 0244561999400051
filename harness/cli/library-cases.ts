/**
 * The case library a run checks when it is given no cases: the directed files (cases/vectors) and
 * the generated cases of every representative variant, filtered by --filter and cut by --shard.
 * One function for the run's own thread (run.ts) and for the case child (case-child.ts), which
 * runs the library on the reference model while ptxas classifies the catalog.
 */
import { Tally, addTally } from '../report/tally.js';
import { fork } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCaseOnReference } from '../backends/reference/cases.js';
import { collectCases } from '../case-readers/sources.js';
import type { Edition } from '../catalog/editions.js';
import type { EntryResult, Verdict } from '../report/types.js';
import { type Case, problemLines } from '../case-readers/types.js';
import { compileFilter } from '../util/filter.js';
import { nodeChildCommand } from '../util/child-command.js';
import { type Shard, shardSlice, shardText } from '../util/shard.js';

export interface LibraryOptions {
  readonly seed: number;
  readonly filter?: string;
  readonly shard?: Shard;
}

export interface LibrarySelection {
  readonly cases: Case[];
  readonly total: number;
  /** Where the cases come from, for the run's 'cases:' line. */
  readonly counts: string;
  /** Problems of the directed files, as the lines to print (nothing runs when there are any). */
  readonly problems: string[];
  readonly problemCount: number;
}

export async function selectLibrary(opts: LibraryOptions): Promise<LibrarySelection> {
  const sel = await collectCases({ vectors: [], seed: opts.seed, directed: true, generated: true, keep: compileFilter(opts.filter) });
  const cases = shardSlice(sel.cases, opts.shard);
  return {
    cases,
    total: cases.length,
    counts: `directed ${sel.counts.directed}, from --vectors 0, generated (seed ${opts.seed}) level 1 ${sel.counts.generated[1]}, level 2 ${sel.counts.generated[2]}, random ${sel.counts.generated[3]}${opts.shard ? `; ${shardText(opts.shard)}: ${cases.length} of the ${sel.cases.length}` : ''}`,
    problems: sel.problems.length ? problemLines(sel.problems) : [],
    problemCount: sel.problems.length,
  };
}

/**
 * What a run keeps of its judged cases: every result that is not a plain pass and the first
 * `keepPasses` passes; the rest are counted per family and verdict (`totals`) and as `dropped`.
 */
export class CaseTally {
  cases = 0;
  dropped = 0;
  private readonly tally = new Tally();
  /** The counts, as stats keys (report/tally.ts). */
  get totals(): Record<string, number> {
    return this.tally.stats();
  }
  /** Passes judged so far (kept or not). */
  passes = 0;
  constructor(private readonly keepPasses: number) {}

  /** A batch of judged results in; the ones the report keeps whole out. */
  keep(batch: readonly EntryResult[]): EntryResult[] {
    const kept: EntryResult[] = [];
    for (const r of batch) {
      this.tally.judged(r.family, r.verdict);
      if (r.verdict !== 'pass' || this.passes++ < this.keepPasses) kept.push(r);
      else {
        this.dropped++;
        this.tally.dropped(r.family, 'cases');
      }
    }
    this.cases += batch.length;
    return kept;
  }
}

/**
 * What the child tallied, and what it judged without tallying: the cases before `split` (all of
 * them where it was never asked to share) it tallied in order; from `split` on it judged every
 * other case (split, split+2, ...) and sent those results whole (`rest`, in that order), the run
 * judging the cases between them.
 */
export interface CaseChildDone {
  /** Cases tallied (= split where the child shared, else every case). */
  readonly cases: number;
  readonly totals: Record<string, number>;
  readonly dropped: number;
  /** Passes among the tallied cases (kept or not): the cases from `split` on keep only the rest of --keep's passes. */
  readonly passes: number;
  /** Where the child split the cases left with the run; undefined where it never did. */
  readonly split?: number;
}

/**
 * What the case child says, in order: once `selected`, then `results` now and then, then `done`;
 * `shared` answers each `share` the run sends. Before a split `results` carries the kept results
 * of the child's tally; after it, `rest` carries every result, untallied.
 */
export type CaseChildMessage =
  | { readonly type: 'selected'; readonly total: number; readonly counts: string; readonly problems: string[]; readonly problemCount: number }
  | {
      readonly type: 'results';
      readonly kept: EntryResult[];
      readonly rest?: EntryResult[];
      readonly n: number;
      readonly verdicts: Partial<Record<Verdict, number>>;
    }
  | { readonly type: 'shared'; readonly split: number; readonly cases: Case[] }
  | ({ readonly type: 'done' } & CaseChildDone)
  | { readonly type: 'failed'; readonly message: string };

/** What the run sends the case child: the request first, then `share` once this thread is free. */
export type CaseChildInbound = CaseChildRequest | { readonly type: 'share' };

/**
 * Cases the child handed over: the library's cases split+1, split+3, ... (every other case from
 * where it was; it judges split, split+2, ...): neighbouring cases cost alike (the library keeps a
 * family's and a variant's cases together), so the two halves take about as long. None (an empty
 * list) where it had too few left or had ended.
 */
export interface SharedCases {
  readonly split: number;
  readonly cases: readonly Case[];
}

/** The fewest cases the child hands over: fewer left, and it judges them itself. */
export const SHARE_MIN = 8;

/** Where the child splits the cases left (`at` to `total - 1`) with the run: there, or nowhere (undefined) where fewer than 2 × SHARE_MIN are left. */
export function splitAt(at: number, total: number): number | undefined {
  return total - at >= 2 * SHARE_MIN ? at : undefined;
}

/** The cases of `cases` the run takes at a split at `split`: split+1, split+3, ... */
export function handedOver<T>(cases: readonly T[], split: number): T[] {
  const out: T[] = [];
  for (let i = split + 1; i < cases.length; i += 2) out.push(cases[i]!);
  return out;
}

export interface CaseChild {
  /** Settles with the selection's size (or its problems). */
  readonly selected: Promise<ChildSelection>;
  /** Settles with the child's tallies and its untallied results once it judged its part, the kept results having gone to onResults. */
  readonly finished: Promise<CaseChildDone & { readonly rest: EntryResult[] }>;
  /** Asks the child for cases (once: every other case of what it has left). */
  readonly share: () => Promise<SharedCases>;
  readonly stop: () => void;
}

/**
 * The run's own thread, free (ptxas done), asks the child to share and judges the cases it hands
 * over; `onBatch` after every few milliseconds' worth (the event loop gets a turn: the child's
 * results and signals come in). Returns the results in the order of the cases handed over.
 */
export async function judgeShared(
  child: Pick<CaseChild, 'share'>,
  onBatch: (batch: readonly EntryResult[], verdicts: Partial<Record<Verdict, number>>) => void,
): Promise<{ split: number; results: EntryResult[] }> {
  const s = await child.share();
  const results: EntryResult[] = [];
  for (let i = 0; i < s.cases.length; ) {
    const j = judgeFor(s.cases, i, 1, 20);
    for (const r of j.batch) results.push(r);
    onBatch(j.batch, j.verdicts);
    i = j.next;
    await new Promise((r) => setImmediate(r));
  }
  return { split: s.split, results };
}

/**
 * Cases cases[i], cases[i+step], ... on the reference model for about `ms` milliseconds (at least
 * one, at most `max`): their results, how many of each verdict, and the index to go on from. The
 * batches of the case child, of the run's thread sharing its work, and of a run judging alone.
 */
export function judgeFor(
  cases: readonly Case[],
  i: number,
  step: number,
  ms: number,
  max = Infinity,
): { batch: EntryResult[]; verdicts: Partial<Record<Verdict, number>>; next: number } {
  const batch: EntryResult[] = [];
  const verdicts: Partial<Record<Verdict, number>> = {};
  const until = performance.now() + ms;
  do {
    const r = runCaseOnReference(cases[i]!);
    batch.push(r);
    verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
    i += step;
  } while (i < cases.length && batch.length < max && performance.now() < until);
  return { batch, verdicts, next: i };
}

/**
 * The child's tallies with the cases judged after its split, as one tally of the whole library in
 * order: the child's untallied results (split, split+2, ...) and this thread's (split+1, split+3,
 * ...) put back in case order and tallied after the child's tally, keeping what is left of
 * --keep's passes (`keepPasses`). `kept` are the results to add after the child's kept ones.
 */
export function mergeShared(
  done: CaseChildDone & { readonly rest: readonly EntryResult[] },
  shared: { split: number; results: readonly EntryResult[] },
  keepPasses: number,
  total: number,
): { kept: EntryResult[]; cases: number; totals: Record<string, number>; dropped: number } {
  const left = total - done.cases;
  if (done.split === undefined) {
    if (left !== 0 || shared.results.length || done.rest.length)
      throw new Error(
        `the case child tallied ${done.cases} of ${total} cases without sharing, and ${done.rest.length + shared.results.length} more were judged`,
      );
    return { kept: [], cases: done.cases, totals: done.totals, dropped: done.dropped };
  }
  if (shared.split !== done.split || done.cases !== done.split)
    throw new Error(`the case child split at case ${done.split} after tallying ${done.cases}, and the cases it handed over start after ${shared.split}`);
  if (done.rest.length !== Math.ceil(left / 2) || shared.results.length !== Math.floor(left / 2))
    throw new Error(
      `after the split at case ${done.split} of ${total} the case child judged ${done.rest.length} and this thread ${shared.results.length}: every other case each was due`,
    );
  const inOrder: EntryResult[] = [];
  for (let k = 0; k < done.rest.length; k++) {
    inOrder.push(done.rest[k]!);
    if (k < shared.results.length) inOrder.push(shared.results[k]!);
  }
  const tally = new CaseTally(Math.max(0, keepPasses - done.passes));
  const kept = tally.keep(inOrder);
  const totals = { ...done.totals };
  addTally(totals, tally.totals);
  return { kept, cases: done.cases + tally.cases, totals, dropped: done.dropped + tally.dropped };
}

export type ChildSelection = Omit<LibrarySelection, 'cases'>;

export interface CaseChildRequest extends LibraryOptions {
  readonly keepPasses: number;
  readonly specEdition: Edition;
}

/**
 * The case library on the reference model in a child process of its own, started now: it selects
 * and judges while this thread enumerates the catalog and ptxas classifies it. `selected` settles
 * with the selection's size (or its problems); `finished` with the tallies once every case is
 * judged, the kept results having gone to `onResults` on the way. Undefined where no child can be
 * started (a bundle without case-child.mjs): the caller runs the cases itself.
 */
export function startCaseChild(
  req: CaseChildRequest,
  onResults: (kept: EntryResult[], n: number, verdicts: Partial<Record<Verdict, number>>) => void,
): CaseChild | undefined {
  const cmd = nodeChildCommand(dirname(fileURLToPath(import.meta.url)), 'case-child');
  if (!cmd) return undefined;
  const child = fork(cmd.at(-1)!, [], {
    execPath: cmd[0],
    execArgv: cmd.slice(1, -1),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  let onSelected!: (s: ChildSelection) => void;
  let onDone!: (d: CaseChildDone & { rest: EntryResult[] }) => void;
  let onFail!: (e: Error) => void;
  const selected = new Promise<ChildSelection>((res, rej) => {
    onSelected = res;
    onFail = rej;
  });
  let failDone!: (e: Error) => void;
  const finished = new Promise<CaseChildDone & { rest: EntryResult[] }>((res, rej) => {
    onDone = res;
    failDone = rej;
  });
  // a rejection nobody awaits yet (the run awaits `finished` after ptxas) is not an unhandled one
  finished.catch(() => {});
  selected.catch(() => {});
  let ended = false;
  // share requests in flight, answered in order (an ended child answers none: nothing to spare)
  const sharing: ((s: SharedCases) => void)[] = [];
  const noMore = () => {
    for (const r of sharing.splice(0)) r({ split: -1, cases: [] });
  };
  // the results the child judged after its split, untallied, in its order
  const rest: EntryResult[] = [];
  const fail = (e: Error) => {
    if (ended) return;
    ended = true;
    noMore();
    onFail(e);
    failDone(e);
  };
  child.on('message', (m: CaseChildMessage) => {
    if (m.type === 'selected') onSelected(m);
    else if (m.type === 'results') {
      if (m.rest) for (const r of m.rest) rest.push(r);
      onResults(m.kept, m.n, m.verdicts);
    } else if (m.type === 'shared') sharing.shift()?.({ split: m.split, cases: m.cases });
    else if (m.type === 'done') {
      ended = true;
      noMore();
      const { type: _, ...done } = m;
      onDone({ ...done, rest });
      child.disconnect();
    } else fail(new Error(`the case child failed: ${m.message}`));
  });
  child.on('error', (e) => fail(e));
  child.on('exit', (code, signal) => fail(new Error(`the case child exited (${signal ?? `code ${code}`}) before it judged every case`)));
  child.send(req);
  return {
    selected,
    finished,
    share: () =>
      new Promise<SharedCases>((res) => {
        if (ended) return res({ split: -1, cases: [] });
        sharing.push(res);
        const ask: CaseChildInbound = { type: 'share' };
        child.send(ask, (e) => {
          // the child ended between our look and the send: nothing to spare
          if (e && sharing.includes(res)) sharing.splice(sharing.indexOf(res), 1), res({ split: -1, cases: [] });
        });
      }),
    stop: () => {
      ended = true;
      child.kill();
    },
  };
}
