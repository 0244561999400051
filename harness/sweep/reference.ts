/**
 * The reference side of a sweep: the record (hash sums, NaN count) of every cell of the 2^32 pairs,
 * computed with the model's fast lane operation (harness/reference/fast.ts fastLaneOp), in
 * parallel on the gpu worker processes, and cached on disk: `<cache dir>/sweep/<key>.bin` (65,536
 * cells x 4 words) with `<key>.json` holding its sha256, so a truncated or altered file is computed
 * again. The key covers the hash version, the domain (which 2^32 pairs), the lane operation (format,
 * op, the flushing the family's rule gives it, cas's swap value), and a fingerprint of the model
 * itself: the operation's results on 2^16 spread pairs, so a change to the model's arithmetic is a
 * new key whatever its source looks like.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Qualifiers } from '../catalog/types.js';
import { elementFormat } from '../numerics/formats.js';
import { fastLaneOp, laneFlushing } from '../reference/fast.js';
import type { ModelVariant } from '../reference/model.js';
import { CELLS, CELL_WORDS, type Domain, type LaneOp, PAIRS16, SWEEP_HASH_VERSION, domainA, domainB, referenceCell } from './space.js';

/** What a worker computes: the records of cells [from, to) of a variant's lane operation. */
export interface SweepRefRequest {
  readonly type: 'sweep-ref';
  readonly family: ModelVariant['family'];
  readonly q: Qualifiers;
  readonly space: 'global' | 'shared' | undefined;
  /** cas: the swap value. */
  readonly swap?: number;
  readonly domain: Domain;
  readonly from: number;
  readonly to: number;
}

export function laneOpOf(v: ModelVariant, space: 'global' | 'shared' | undefined, swap = 0): LaneOp {
  const op = fastLaneOp(v, space, swap);
  if (!op) throw new Error(`no fast lane operation for ${v.family} ${JSON.stringify(v.q)}`);
  return op;
}

/** Records of cells [from, to) (the worker's side). */
export function referenceCells(r: Omit<SweepRefRequest, 'type'>): Uint32Array {
  const op = laneOpOf({ family: r.family, q: r.q }, r.space, r.swap ?? 0);
  const out = new Uint32Array((r.to - r.from) * CELL_WORDS);
  for (let c = r.from; c < r.to; c++) referenceCell(op, c, out, (c - r.from) * CELL_WORDS, r.domain);
  return out;
}

/** The model's results on 2^16 pairs spread over the space (every 65,537th pair), hashed. */
function fingerprint(op: LaneOp, domain: Domain): string {
  const pairA = domainA(domain);
  const pairB = domainB(domain);
  const h = createHash('sha256');
  const b = Buffer.alloc(4 * 4096);
  for (let k = 0, i = 0; k < 1 << 16; k++) {
    const p = (k * 65537) >>> 0;
    b.writeInt32LE(op(pairA(p), pairB(p)) | 0, 4 * i++);
    if (i === 4096) {
      h.update(b);
      i = 0;
    }
  }
  return h.digest('hex').slice(0, 16);
}

/** What a reference's lane operation is, in words (the key's parts, and its .json). */
export function referenceWhat(v: ModelVariant, space: 'global' | 'shared' | undefined, swap: number, domain: Domain): string[] {
  // the lane's format, not the element type: .f16, .f16x2 and .v8.f16 share one operation
  const dom = domain.kind === 'pairs16' ? 'pairs16' : `one32:${domain.role}:${(domain.value.bits >>> 0).toString(16)}`;
  return [
    `hash${SWEEP_HASH_VERSION}`,
    dom,
    elementFormat(v.q.type ?? '').lane.name,
    v.q.op ?? '',
    v.q.op === 'cas' ? `swap${swap}` : (laneFlushing(v, space) ?? ''),
  ];
}

/** The cache key of a variant's reference cells. */
export function referenceKey(v: ModelVariant, space: 'global' | 'shared' | undefined, swap = 0, domain: Domain = PAIRS16): string {
  const parts = [...referenceWhat(v, space, swap, domain), fingerprint(laneOpOf(v, space, swap), domain)];
  return createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 32);
}

export interface ReferenceCells {
  readonly key: string;
  readonly cells: Uint32Array;
  /** Whether they came from the cache. */
  readonly cached: boolean;
  readonly seconds: number;
}

/**
 * The reference records of cells [0, count) of a variant (count = CELLS for a whole sweep): from the
 * cache when its checksum holds, else computed by `compute` (cells [from, to) each, in parallel) and
 * cached (whole sweeps only).
 */
export async function referenceFor(
  v: ModelVariant,
  space: 'global' | 'shared' | undefined,
  cacheDir: string,
  count: number,
  compute: (from: number, to: number) => Promise<Uint32Array>,
  parts: number,
  swap = 0,
  domain: Domain = PAIRS16,
): Promise<ReferenceCells> {
  const t0 = performance.now();
  const key = referenceKey(v, space, swap, domain);
  const dir = join(cacheDir, 'sweep');
  const bin = join(dir, `${key}.bin`);
  const meta = join(dir, `${key}.json`);
  if (existsSync(bin) && existsSync(meta)) {
    try {
      const m = JSON.parse(readFileSync(meta, 'utf8')) as { sha256: string; cells: number };
      const data = readFileSync(bin);
      if (m.cells === CELLS && data.length === CELLS * CELL_WORDS * 4 && createHash('sha256').update(data).digest('hex') === m.sha256) {
        const all = new Uint32Array(data.buffer, data.byteOffset, data.length / 4);
        return { key, cells: all.slice(0, count * CELL_WORDS), cached: true, seconds: (performance.now() - t0) / 1000 };
      }
    } catch {
      // unreadable: compute again
    }
  }
  const out = new Uint32Array(count * CELL_WORDS);
  const step = Math.max(1, Math.ceil(count / Math.max(1, parts)));
  const jobs: Promise<void>[] = [];
  for (let from = 0; from < count; from += step) {
    const to = Math.min(count, from + step);
    jobs.push(compute(from, to).then((r) => out.set(r, from * CELL_WORDS)));
  }
  await Promise.all(jobs);
  if (count === CELLS) {
    mkdirSync(dir, { recursive: true });
    const data = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    const tmp = `${bin}.tmp-${process.pid}`;
    writeFileSync(tmp, data);
    renameSync(tmp, bin);
    writeFileSync(
      meta,
      `${JSON.stringify({ key, what: referenceWhat(v, space, swap, domain).join(' '), cells: CELLS, sha256: createHash('sha256').update(data).digest('hex') }, null, 1)}\n`,
    );
  }
  return { key, cells: out, cached: false, seconds: (performance.now() - t0) / 1000 };
}
