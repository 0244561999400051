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
import { collectCases, directedFingerprint } from '../case-readers/sources.js';
import { type Edition, specEdition } from '../catalog/editions.js';
import { KeyedCache } from '../util/keyed-cache.js';
import { deserialize, serialize } from 'node:v8';
import type { EntryResult, Verdict } from '../report/types.js';
import { type Case, problemLines } from '../case-readers/types.js';
import { compileFilter } from '../util/filter.js';
import { nodeChildCommand } from '../util/child-command.js';
import { type Shard, shardSlice, shardText } from '../util/shard.js';

export interface LibraryOptions {
  readonly seed: number;
  readonly filter?: string;
  readonly shard?: Shard;
  /** Where the selection is kept between runs (the run's --cache-dir): see selectLibrary. */
  readonly cacheDir?: string;
  /** The directed files' cases alone (the gpu backend makes the generated ones itself). */
  readonly directedOnly?: boolean;
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

/**
 * The selection kept between runs (`<cacheDir>/cases/`, util/keyed-cache.ts), in V8's serialization
 * (BigInts and shared objects as they are): keyed by the code, the spec edition, the seed, --filter,
 * --shard and the bytes of every file of the directed library. Read back, the default library's
 * 14,441 cases take about 0.15 s against about 1.4 s to read the files and generate.
 */
const selections = new KeyedCache<LibrarySelection>('cases', 1, 'v8', {
  encode: (key, value) => serialize({ key, value }),
  decode: (data) => deserialize(data) as { key: string; value: LibrarySelection },
});

/**
 * The case library: the directed files and the generated cases that --filter keeps, cut by
 * --shard. With `cacheDir`, read from the selection cache where it holds them, else selected and
 * kept there once the caller has had a turn (a selection with problems is not kept).
 */
export async function selectLibrary(opts: LibraryOptions): Promise<LibrarySelection> {
  const key = opts.cacheDir
    ? {
        edition: specEdition(),
        // (the directed files' cases alone do not depend on the seed)
        seed: opts.directedOnly ? undefined : opts.seed,
        filter: opts.filter,
        shard: opts.shard ? shardText(opts.shard) : undefined,
        directed: directedFingerprint(),
        directedOnly: opts.directedOnly,
      }
    : undefined;
  const hit = key && selections.read(opts.cacheDir!, key);
  if (hit) return hit;
  const sel = await collectCases({ vectors: [], seed: opts.seed, directed: true, generated: !opts.directedOnly, keep: compileFilter(opts.filter) });
  const cases = shardSlice(sel.cases, opts.shard);
  const made: LibrarySelection = {
    cases,
    total: cases.length,
    counts: `directed ${sel.counts.directed}, from --vectors 0, generated (seed ${opts.seed}) level 1 ${sel.counts.generated[1]}, level 2 ${sel.counts.generated[2]}, random ${sel.counts.generated[3]}${opts.shard ? `; ${shardText(opts.shard)}: ${cases.length} of the ${sel.cases.length}` : ''}`,
    problems: sel.problems.length ? problemLines(sel.problems) : [],
    problemCount: sel.problems.length,
  };
  if (key && !made.problemCount) setTimeout(() => selections.write(opts.cacheDir!, key, made), 0);
  return made;
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
 * them where it was never asked to share) it tallied in order; from `split` on it judged the cases
 * it did not hand over and sent those results whole (`rest`, the case of each at `restAt`), the run
 * judging the others.
 */
export interface CaseChildDone {
  /** Cases tallied (= split where the child shared, else every case). */
  readonly cases: number;
  readonly totals: Record<string, number>;
  readonly dropped: number;
  /** Passes among the tallied cases (kept or not): the cases from `split` on keep only the rest of --keep's passes. */
  readonly passes: number;
  /** Where the child first split the cases left with the run; undefined where it never did. */
  readonly split?: number;
}

/** The child's untallied results (from its first split on) and their cases' places in the library. */
export interface ChildRest {
  readonly rest: readonly EntryResult[];
  readonly restAt: readonly number[];
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
      readonly restAt?: number[];
      readonly n: number;
      readonly verdicts: Partial<Record<Verdict, number>>;
    }
  | ({ readonly type: 'shared' } & SharedCases)
  | ({ readonly type: 'done' } & CaseChildDone)
  | { readonly type: 'failed'; readonly message: string };

/** What the run sends the case child: the request first, then `share` once this thread is free. */
export type CaseChildInbound = CaseChildRequest | { readonly type: 'share' };

/**
 * Cases the child handed over: every other case of those it had left. With its next case at `at`
 * and `step` between its cases (1 until it first shared), the run takes at+step, at+3·step, ...
 * (`first`, `stride` = 2·step) and the child goes on with at, at+2·step, ...: neighbouring cases
 * cost alike (the library keeps a family's and a variant's cases together), so the two halves take
 * about as long; the run, done first, asks again. `split` is where the child first shared. None (an
 * empty list) where it had too few left or had ended.
 */
export interface SharedCases {
  readonly split: number;
  readonly first: number;
  readonly stride: number;
  readonly cases: readonly Case[];
}

/** What a child with nothing to spare answers. */
export const NONE_SHARED: SharedCases = { split: -1, first: -1, stride: 0, cases: [] };

/** The fewest cases the child hands over: fewer left, and it judges them itself. */
export const SHARE_MIN = 8;

/** Whether the child, at case `at` with `step` between its cases, has enough left of `total` to share (at least 2 × SHARE_MIN). */
export function canShare(at: number, step: number, total: number): boolean {
  return Math.ceil((total - at) / step) >= 2 * SHARE_MIN;
}

/** The cases of `cases` the run takes from a child at case `at` with `step` between its cases: at+step, at+3·step, ... */
export function handedOver<T>(cases: readonly T[], at: number, step = 1): T[] {
  const out: T[] = [];
  for (let i = at + step; i < cases.length; i += 2 * step) out.push(cases[i]!);
  return out;
}

export interface CaseChild {
  /** Settles with the selection's size (or its problems). */
  readonly selected: Promise<ChildSelection>;
  /** Settles with the child's tallies and its untallied results once it judged its part, the kept results having gone to onResults. */
  readonly finished: Promise<CaseChildDone & ChildRest>;
  /** Asks the child for cases (every other case of what it has left). */
  readonly share: () => Promise<SharedCases>;
  readonly stop: () => void;
}

/** The results this thread judged of the cases the child handed over, and their cases' places in the library. */
export interface SharedResults {
  /** Where the child first shared (-1: it never did). */
  readonly split: number;
  readonly results: readonly EntryResult[];
  readonly at: readonly number[];
}

/**
 * The run's own thread, free (ptxas done), asks the child to share and judges the cases it hands
 * over, and asks again when done, until the child has too few left to share; `onBatch` after every
 * few milliseconds' worth (the event loop gets a turn: the child's results and signals come in).
 */
export async function judgeShared(
  child: Pick<CaseChild, 'share'>,
  onBatch: (batch: readonly EntryResult[], verdicts: Partial<Record<Verdict, number>>) => void,
): Promise<SharedResults> {
  const results: EntryResult[] = [];
  const at: number[] = [];
  let split = -1;
  for (;;) {
    const s = await child.share();
    if (!s.cases.length) break;
    if (split < 0) split = s.split;
    for (let i = 0; i < s.cases.length; ) {
      const j = judgeFor(s.cases, i, 1, 20);
      for (let k = 0; k < j.batch.length; k++) {
        at.push(s.first + s.stride * (i + k));
        results.push(j.batch[k]!);
      }
      onBatch(j.batch, j.verdicts);
      i = j.next;
      await new Promise((r) => setImmediate(r));
    }
  }
  return { split, results, at };
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
 * order: the child's untallied results and this thread's put back in case order (each case from
 * the split on judged exactly once, by one of the two) and tallied after the child's tally, keeping
 * what is left of --keep's passes (`keepPasses`). `kept` are the results to add after the child's
 * kept ones.
 */
export function mergeShared(
  done: CaseChildDone & ChildRest,
  shared: SharedResults,
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
  const inOrder = new Array<EntryResult | undefined>(left);
  const place = (rs: readonly EntryResult[], at: readonly number[], who: string) => {
    if (rs.length !== at.length) throw new Error(`${who} sent ${rs.length} results for ${at.length} cases`);
    rs.forEach((r, k) => {
      const i = at[k]! - done.split!;
      if (!(i >= 0 && i < left) || inOrder[i])
        throw new Error(`case ${at[k]} of ${total} (split at ${done.split}) was judged twice or lies outside the cases left`);
      inOrder[i] = r;
    });
  };
  place(done.rest, done.restAt, 'the case child');
  place(shared.results, shared.at, 'this thread');
  const missing = inOrder.findIndex((r) => !r);
  if (missing >= 0 || inOrder.length !== left)
    throw new Error(
      `after the split at case ${done.split} of ${total} the case child judged ${done.rest.length} and this thread ${shared.results.length}: case ${done.split + (missing < 0 ? left : missing)} was judged by neither`,
    );
  const tally = new CaseTally(Math.max(0, keepPasses - done.passes));
  const kept = tally.keep(inOrder as EntryResult[]);
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
  let onDone!: (d: CaseChildDone & ChildRest) => void;
  let onFail!: (e: Error) => void;
  const selected = new Promise<ChildSelection>((res, rej) => {
    onSelected = res;
    onFail = rej;
  });
  let failDone!: (e: Error) => void;
  const finished = new Promise<CaseChildDone & ChildRest>((res, rej) => {
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
    for (const r of sharing.splice(0)) r(NONE_SHARED);
  };
  // the results the child judged after its split, untallied, in its order, and their cases' places
  const rest: EntryResult[] = [];
  const restAt: number[] = [];
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
      if (m.restAt) for (const i of m.restAt) restAt.push(i);
      onResults(m.kept, m.n, m.verdicts);
    } else if (m.type === 'shared') sharing.shift()?.({ split: m.split, first: m.first, stride: m.stride, cases: m.cases });
    else if (m.type === 'done') {
      ended = true;
      noMore();
      const { type: _, ...done } = m;
      onDone({ ...done, rest, restAt });
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
        if (ended) return res(NONE_SHARED);
        sharing.push(res);
        const ask: CaseChildInbound = { type: 'share' };
        child.send(ask, (e) => {
          // the child ended between our look and the send: nothing to spare
          if (e && sharing.includes(res)) sharing.splice(sharing.indexOf(res), 1), res(NONE_SHARED);
        });
      }),
    stop: () => {
      ended = true;
      child.kill();
    },
  };
}
