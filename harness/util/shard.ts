/**
 * `--shard I/N`: one of N parts of a run, for CI matrices and cluster job arrays. Shards count from
 * 0 (Slurm's `--array=0-N`, Kubernetes' JOB_COMPLETION_INDEX). Every list a run works through is
 * split the same way on every machine: a list known in advance (catalog entries, library cases,
 * gpu variants, sweeps, contention groups) into N contiguous runs of equal cost, in the order the
 * unsharded run takes them, so that shard 0's results, then shard 1's, ... are the unsharded run's
 * in order; a stream (vector files) by ordinal, case k to shard k mod N. `merge` puts them together.
 */
import { UsageError } from './errors.js';

export interface Shard {
  /** 0 .. count-1. */
  readonly index: number;
  readonly count: number;
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m)
    throw new UsageError(
      `--shard '${text}': give I/N, shard I (counting from 0) of N, e.g. --shard 0/3 (Slurm: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=0-2)`,
    );
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > 10_000) throw new UsageError(`--shard ${text}: N must be 1 to 10000`);
  if (index >= count)
    throw new UsageError(
      `--shard ${text}: shards count from 0, so I must be 0 to ${count - 1}${index === count ? ` (is your job array numbered from 1? use I-1, or Slurm's --array=0-${count - 1})` : ''}`,
    );
  return { index, count };
}

export function shardText(s: Shard): string {
  return `shard ${s.index}/${s.count}`;
}

/**
 * The shard's part of `items`: item k goes to shard floor(N * (cost before k + half its own) / total
 * cost), so each shard gets a contiguous run of about 1/N of the cost, in order. No shard: all.
 */
export function shardSlice<T>(items: readonly T[], shard: Shard | undefined, cost: (t: T) => number = () => 1): T[] {
  if (!shard || shard.count === 1) return [...items];
  const costs = items.map((t) => Math.max(0, cost(t)));
  const total = costs.reduce((a, b) => a + b, 0);
  const out: T[] = [];
  let before = 0;
  for (let k = 0; k < items.length; k++) {
    const c = costs[k]!;
    const at = total > 0 ? Math.min(shard.count - 1, Math.floor((shard.count * (before + c / 2)) / total)) : Math.floor((k * shard.count) / items.length);
    if (at === shard.index) out.push(items[k]!);
    before += c;
  }
  return out;
}

/**
 * A streamed list's keep predicate for one shard: of the items `keep` accepts, in the order it is
 * asked (once per item), every N-th from the I-th. No shard: `keep` itself.
 */
export function shardStream(keep: (id: string) => boolean, shard: Shard | undefined): (id: string) => boolean {
  if (!shard || shard.count === 1) return keep;
  let n = 0;
  return (id) => keep(id) && n++ % shard.count === shard.index;
}
