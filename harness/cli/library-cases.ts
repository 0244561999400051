/**
 * The case library a run checks when it is given no cases: the directed files (cases/vectors) and
 * the generated cases of every representative variant, filtered by --filter and cut by --shard.
 * One function for the run's own thread (run.ts) and for the case child (case-child.ts), which
 * runs the library on the reference model while ptxas classifies the catalog.
 */
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
  readonly totals: Record<string, number> = {};
  /** Passes judged so far (kept or not). */
  passes = 0;
  constructor(private readonly keepPasses: number) {}

  /** A batch of judged results in; the ones the report keeps whole out. */
  keep(batch: readonly EntryResult[]): EntryResult[] {
    const kept: EntryResult[] = [];
    for (const r of batch) {
      this.totals[`total.${r.family}.${r.verdict}`] = (this.totals[`total.${r.family}.${r.verdict}`] ?? 0) + 1;
      if (r.verdict !== 'pass' || this.passes++ < this.keepPasses) kept.push(r);
      else {
        this.dropped++;
        this.totals[`dropped.${r.family}.cases`] = (this.totals[`dropped.${r.family}.cases`] ?? 0) + 1;
      }
    }
    this.cases += batch.length;
    return kept;
  }
}

/** What the child tallied of the cases it judged itself (the first `cases` of the library: 0 to `end`). */
export interface CaseChildDone {
  readonly cases: number;
  readonly totals: Record<string, number>;
  readonly dropped: number;
  /** Passes among them (kept or not): the run keeps only the rest of --keep's passes of the cases it judged. */
  readonly passes: number;
  /** Where the child stopped: it judged cases 0 to end-1 and handed the rest over. */
  readonly end: number;
}

/**
 * What the case child says, in order: once `selected`, then `results` now and then, then `done`;
 * `shared` answers each `share` the run sends (cases from the end of what the child has left).
 */
export type CaseChildMessage =
  | { readonly type: 'selected'; readonly total: number; readonly counts: string; readonly problems: string[]; readonly problemCount: number }
  | { readonly type: 'results'; readonly kept: EntryResult[]; readonly n: number; readonly verdicts: Partial<Record<Verdict, number>> }
  | { readonly type: 'shared'; readonly from: number; readonly cases: Case[] }
  | ({ readonly type: 'done' } & CaseChildDone)
  | { readonly type: 'failed'; readonly message: string };

/** What the run sends the case child: the request first, then `share` whenever this thread is free. */
export type CaseChildInbound = CaseChildRequest | { readonly type: 'share' };

/** Cases the child handed over: the library's cases `from` to `from + cases.length - 1`. */
export interface SharedCases {
  readonly from: number;
  readonly cases: readonly Case[];
}

/** The fewest cases the child hands over: fewer left, and it judges them itself. */
export const SHARE_MIN = 8;

/**
 * How many of the cases the child has left (`left`) it hands over on a `share`: half (the run's
 * thread judges as fast as the child's), none where fewer than 2 × SHARE_MIN are left.
 */
export function shareCount(left: number): number {
  return left >= 2 * SHARE_MIN ? Math.floor(left / 2) : 0;
}

export interface CaseChild {
  /** Settles with the selection's size (or its problems). */
  readonly selected: Promise<ChildSelection>;
  /** Settles with the child's tallies once it judged its part, the kept results having gone to onResults. */
  readonly finished: Promise<CaseChildDone>;
  /** Asks the child for cases from the end of what it has left; none (an empty list) once it has none to spare or ended. */
  readonly share: () => Promise<SharedCases>;
  readonly stop: () => void;
}

/**
 * The run's own thread, free (ptxas done), judges cases the child hands over, asking again each
 * time it is through, until the child has none to spare; `onBatch` after every few milliseconds'
 * worth (the event loop gets a turn: the child's results and signals come in). Returns every
 * result it judged, in the library's order (each handed-over part starts where the next ends).
 */
export async function judgeShared(child: Pick<CaseChild, 'share'>, onBatch: (batch: readonly EntryResult[], verdicts: Partial<Record<Verdict, number>>) => void): Promise<{ from: number; results: EntryResult[] }> {
  const parts: { from: number; results: EntryResult[] }[] = [];
  for (;;) {
    const s = await child.share();
    if (!s.cases.length) break;
    const results: EntryResult[] = [];
    let i = 0;
    while (i < s.cases.length) {
      const until = performance.now() + 20;
      const start = results.length;
      do results.push(runCaseOnReference(s.cases[i++]!));
      while (i < s.cases.length && performance.now() < until);
      const verdicts: Partial<Record<Verdict, number>> = {};
      for (let k = start; k < results.length; k++) verdicts[results[k]!.verdict] = (verdicts[results[k]!.verdict] ?? 0) + 1;
      onBatch(results.slice(start), verdicts);
      await new Promise((r) => setImmediate(r));
    }
    parts.push({ from: s.from, results });
  }
  parts.sort((a, b) => a.from - b.from);
  for (let k = 1; k < parts.length; k++) {
    if (parts[k - 1]!.from + parts[k - 1]!.results.length !== parts[k]!.from) throw new Error(`the case child handed over cases that do not join: ${parts.map((p) => `${p.from}+${p.results.length}`).join(', ')}`);
  }
  return { from: parts[0]?.from ?? Infinity, results: parts.flatMap((p) => p.results) };
}

/**
 * The child's tallies and the results this thread judged of the cases it handed over, as one tally
 * of the whole library in order: the handed-over cases come after the child's, so they keep what is
 * left of --keep's passes (`keepPasses`) after the child's passes. `kept` are the results to add
 * after the child's kept ones.
 */
export function mergeShared(done: CaseChildDone, shared: { from: number; results: readonly EntryResult[] }, keepPasses: number, total: number): { kept: EntryResult[]; cases: number; totals: Record<string, number>; dropped: number } {
  if (shared.results.length && shared.from !== done.end) throw new Error(`the case child stopped at case ${done.end}, and the cases it handed over start at ${shared.from}`);
  if (done.cases + shared.results.length !== total) throw new Error(`the case child judged ${done.cases} cases and this thread ${shared.results.length}: ${total} were selected`);
  const tally = new CaseTally(Math.max(0, keepPasses - done.passes));
  const kept = tally.keep(shared.results);
  const totals = { ...done.totals };
  for (const [k, n] of Object.entries(tally.totals)) totals[k] = (totals[k] ?? 0) + n;
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
export function startCaseChild(req: CaseChildRequest, onResults: (kept: EntryResult[], n: number, verdicts: Partial<Record<Verdict, number>>) => void): CaseChild | undefined {
  const cmd = nodeChildCommand(dirname(fileURLToPath(import.meta.url)), 'case-child');
  if (!cmd) return undefined;
  const child = fork(cmd.at(-1)!, [], { execPath: cmd[0], execArgv: cmd.slice(1, -1), stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
  let onSelected!: (s: ChildSelection) => void;
  let onDone!: (d: CaseChildDone) => void;
  let onFail!: (e: Error) => void;
  const selected = new Promise<ChildSelection>((res, rej) => {
    onSelected = res;
    onFail = rej;
  });
  let failDone!: (e: Error) => void;
  const finished = new Promise<CaseChildDone>((res, rej) => {
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
    for (const r of sharing.splice(0)) r({ from: Infinity, cases: [] });
  };
  const fail = (e: Error) => {
    if (ended) return;
    ended = true;
    noMore();
    onFail(e);
    failDone(e);
  };
  child.on('message', (m: CaseChildMessage) => {
    if (m.type === 'selected') onSelected(m);
    else if (m.type === 'results') onResults(m.kept, m.n, m.verdicts);
    else if (m.type === 'shared') sharing.shift()?.({ from: m.from, cases: m.cases });
    else if (m.type === 'done') {
      ended = true;
      noMore();
      const { type: _, ...done } = m;
      onDone(done);
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
        if (ended) return res({ from: Infinity, cases: [] });
        sharing.push(res);
        const ask: CaseChildInbound = { type: 'share' };
        child.send(ask, (e) => {
          // the child ended between our look and the send: nothing to spare
          if (e && sharing.includes(res)) (sharing.splice(sharing.indexOf(res), 1), res({ from: Infinity, cases: [] }));
        });
      }),
    stop: () => {
      ended = true;
      child.kill();
    },
  };
}
