/**
 * The case library a run checks when it is given no cases: the directed files (cases/vectors) and
 * the generated cases of every representative variant, filtered by --filter and cut by --shard.
 * One function for the run's own thread (run.ts) and for the case child (case-child.ts), which
 * runs the library on the reference model while ptxas classifies the catalog.
 */
import { fork } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  private passes = 0;
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

/** What the case child says, in order: once `selected`, then `results` now and then, then `done`. */
export type CaseChildMessage =
  | { readonly type: 'selected'; readonly total: number; readonly counts: string; readonly problems: string[]; readonly problemCount: number }
  | { readonly type: 'results'; readonly kept: EntryResult[]; readonly n: number; readonly verdicts: Partial<Record<Verdict, number>> }
  | { readonly type: 'done'; readonly cases: number; readonly totals: Record<string, number>; readonly dropped: number }
  | { readonly type: 'failed'; readonly message: string };

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
export function startCaseChild(req: CaseChildRequest, onResults: (kept: EntryResult[], n: number, verdicts: Partial<Record<Verdict, number>>) => void): { selected: Promise<ChildSelection>; finished: Promise<{ cases: number; totals: Record<string, number>; dropped: number }>; stop: () => void } | undefined {
  const cmd = nodeChildCommand(dirname(fileURLToPath(import.meta.url)), 'case-child');
  if (!cmd) return undefined;
  const child = fork(cmd.at(-1)!, [], { execPath: cmd[0], execArgv: cmd.slice(1, -1), stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
  let onSelected!: (s: ChildSelection) => void;
  let onDone!: (d: { cases: number; totals: Record<string, number>; dropped: number }) => void;
  let onFail!: (e: Error) => void;
  const selected = new Promise<ChildSelection>((res, rej) => {
    onSelected = res;
    onFail = rej;
  });
  let failDone!: (e: Error) => void;
  const finished = new Promise<{ cases: number; totals: Record<string, number>; dropped: number }>((res, rej) => {
    onDone = res;
    failDone = rej;
  });
  // a rejection nobody awaits yet (the run awaits `finished` after ptxas) is not an unhandled one
  finished.catch(() => {});
  selected.catch(() => {});
  let ended = false;
  const fail = (e: Error) => {
    if (ended) return;
    ended = true;
    onFail(e);
    failDone(e);
  };
  child.on('message', (m: CaseChildMessage) => {
    if (m.type === 'selected') onSelected(m);
    else if (m.type === 'results') onResults(m.kept, m.n, m.verdicts);
    else if (m.type === 'done') {
      ended = true;
      onDone(m);
      child.disconnect();
    } else fail(new Error(`the case child failed: ${m.message}`));
  });
  child.on('error', (e) => fail(e));
  child.on('exit', (code, signal) => fail(new Error(`the case child exited (${signal ?? `code ${code}`}) before it judged every case`)));
  child.send(req);
  return {
    selected,
    finished,
    stop: () => {
      ended = true;
      child.kill();
    },
  };
}
