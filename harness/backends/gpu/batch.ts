/**
 * Cases in launch buffers, and cases back out of them. Case i owns the 16-byte slot at byte 16*i of
 * each buffer: memory (bulk: destination) in buffer 0, operand b (bulk: source) in 1, c in 2, the
 * returned values in 3; element k of a slot sits little-endian at bit k*width,
 * its packed lanes low lane first. Generated level-3 cases are written straight into the buffers
 * from their counter-based bits (cases/generators/random.ts), the same bits `generateCases` gives.
 */
import { type InputShape, type LaneTable, caseKey, laneHash, mix32, saltHash, saltOf, seedKey } from '../../../cases/generators/random.js';
import type { ReferenceCase } from '../../reference/model.js';
import { BLOCK, type KernelShape, SLOT } from './family.js';

export const WORDS = SLOT / 4;

export function writeSlot(buf: Uint8Array, slot: number, width: number, elements: readonly bigint[]): void {
  const bytes = width / 8;
  const base = slot * SLOT;
  for (let k = 0; k < elements.length; k++) {
    const at = base + k * bytes;
    if (bytes <= 4) {
      // one number, no BigInt per byte (the low 32 bits, then the element's bytes of them)
      let v = Number(BigInt.asUintN(64, elements[k]!) & 0xffffffffn);
      for (let j = 0; j < bytes; j++, v >>>= 8) buf[at + j] = v & 0xff;
      continue;
    }
    // 32-bit words, low first
    let v = BigInt.asUintN(width, elements[k]!);
    for (let j = 0; j < bytes; j += 4, v >>= 32n) {
      const w = Number(v & 0xffffffffn);
      buf[at + j] = w & 0xff;
      buf[at + j + 1] = (w >>> 8) & 0xff;
      buf[at + j + 2] = (w >>> 16) & 0xff;
      buf[at + j + 3] = w >>> 24;
    }
  }
}

/**
 * writeSlot, remembering the bytes of an element list it has written before (at this width): the
 * library's cases share their lists across variants (the probes' per operation, type and length,
 * the level-1/2 cases' per family shape, type and level), so a worker converts each list once.
 */
function writeSlotShared(buf: Uint8Array, slot: number, width: number, elements: readonly bigint[]): void {
  // a list that may change (a given case's) is written as it is, never looked up
  if (!Object.isFrozen(elements)) return writeSlot(buf, slot, width, elements);
  const hit = written.get(elements);
  if (hit && hit.width === width) return buf.set(hit.bytes, slot * SLOT);
  writeSlot(buf, slot, width, elements);
  written.set(elements, { width, bytes: new Uint8Array(buf.subarray(slot * SLOT, slot * SLOT + (elements.length * width) / 8)) }); // a copy: a Buffer's slice is a view
}
const written = new WeakMap<readonly bigint[], { width: number; bytes: Uint8Array }>();

export function readSlot(buf: Uint8Array, slot: number, width: number, elements: number): bigint[] {
  const bytes = width / 8;
  return Array.from({ length: elements }, (_, k) => {
    let v = 0n;
    for (let j = bytes - 1; j >= 0; j--) v = (v << 8n) | BigInt(buf[slot * SLOT + k * bytes + j]!);
    return v;
  });
}

/** Writes a case's inputs into its slots (buffers: memory, b/source, c). */
export function encodeCase(bufs: readonly Uint8Array[], slot: number, width: number, c: ReferenceCase): void {
  if (c.memory) writeSlotShared(bufs[0]!, slot, width, c.memory);
  const b = c.b ?? c.source;
  if (b) writeSlotShared(bufs[1]!, slot, width, b);
  if (c.c) writeSlotShared(bufs[2]!, slot, width, c.c);
}

/** Reads a generated case's inputs back out of its slots, in the shape the generator gave it. */
export function decodeCase(bufs: readonly Uint8Array[], slot: number, width: number, shape: InputShape): ReferenceCase {
  const out: Record<string, bigint[]> = {};
  for (const f of shape.fields) out[f.name] = readSlot(bufs[f.field]!, slot, width, f.elements);
  return out as ReferenceCase;
}

/**
 * Fills slots `first`..`first+count-1` with generated cases `index0`.. of (seed, vkey): every field
 * of `shape`, `laneBits`-bit lanes, `lanes` per element of `width` bits. The buffers are zero there.
 */
export function fillGenerated(
  words: readonly Uint32Array[],
  first: number,
  count: number,
  shape: InputShape,
  t: LaneTable,
  width: number,
  lanes: number,
  seed: number,
  vkey: number,
  index0: number,
): void {
  // laneWord (random.ts) inlined, its per-job, per-case and per-lane parts hoisted: the same bits
  const laneBits = width / lanes;
  const sk = seedKey(seed, vkey);
  const vals = t.values;
  const tw = t.words;
  const cnt = t.count;
  const top = 32 - laneBits;
  for (const f of shape.fields) {
    const w = words[f.field]!;
    const lanesTotal = f.elements * lanes;
    const salts = new Int32Array(lanesTotal);
    const at = new Int32Array(lanesTotal);
    const shift = new Int32Array(lanesTotal);
    for (let k = 0; k < f.elements; k++) {
      for (let j = 0; j < lanes; j++) {
        const bit = k * width + j * laneBits;
        salts[k * lanes + j] = saltHash(saltOf(f.field, k, j));
        at[k * lanes + j] = bit >>> 5;
        shift[k * lanes + j] = bit & 31;
      }
    }
    if (laneBits < 32) fillNarrow(w, first, count, sk, index0, salts, at, shift, vals, cnt, top);
    else fillWide(w, first, count, sk, index0, salts, at, vals, cnt, tw);
  }
}

// Two loops, one per lane kind, so that each stays monomorphic in V8 across the variants a worker runs.

function fillNarrow(
  w: Uint32Array,
  first: number,
  count: number,
  sk: number,
  index0: number,
  salts: Int32Array,
  at: Int32Array,
  shift: Int32Array,
  vals: Uint32Array,
  cnt: number,
  top: number,
): void {
  const lanesTotal = salts.length;
  for (let i = 0; i < count; i++) {
    const base = (first + i) * WORDS;
    const ck = caseKey(sk, index0 + i);
    for (let l = 0; l < lanesTotal; l++) {
      const h0 = laneHash(ck, salts[l]!);
      const o = base + at[l]!;
      const v = (h0 & 3) === 0 ? vals[(h0 >>> 2) % cnt]! : h0 >>> top;
      w[o] = w[o]! | (v << shift[l]!);
    }
  }
}

function fillWide(
  w: Uint32Array,
  first: number,
  count: number,
  sk: number,
  index0: number,
  salts: Int32Array,
  at: Int32Array,
  vals: Uint32Array,
  cnt: number,
  tw: number,
): void {
  const lanesTotal = salts.length;
  for (let i = 0; i < count; i++) {
    const base = (first + i) * WORDS;
    const ck = caseKey(sk, index0 + i);
    for (let l = 0; l < lanesTotal; l++) {
      const h0 = laneHash(ck, salts[l]!);
      const o = base + at[l]!;
      if ((h0 & 3) === 0) {
        const k0 = ((h0 >>> 2) % cnt) * tw;
        for (let q = 0; q < tw; q++) w[o + q] = vals[k0 + q]!;
      } else for (let q = 0; q < tw; q++) w[o + q] = mix32(h0 ^ (0x5bd1e995 + q));
    }
  }
}

/** Dynamic shared memory a kernel may use without cuFuncSetAttribute (48 KiB). */
export const DEFAULT_DYNAMIC_SHARED = 48 * 1024;

/**
 * Grid, block and dynamic shared memory of a launch of n cases: one thread per case in CTAs of
 * BLOCK, or (a wide kernel, shape.perCta) one CTA per case; clustered kernels get an even grid.
 */
export function launchShape(shape: KernelShape, n: number): { grid: [number, number, number]; block: [number, number, number]; shared: number } {
  const blocks = shape.perCta ? n : Math.ceil(n / BLOCK);
  return {
    grid: [shape.clustered ? blocks + (blocks % 2) : blocks, 1, 1],
    block: [shape.perCta ? shape.perCta.threads : Math.min(n, BLOCK), 1, 1],
    shared: shape.perCta?.sharedBytes ?? 0,
  };
}

/**
 * The input of wide case `slot` (its first slot) read back out of its slots: each field `bytes` bytes, as generateCases
 * gives it. A wide library job's cases (a bulk family's level-3 cases of `bytes` bytes) are written with fillGenerated:
 * case K is the 16-byte level-3 cases K * bytes / 16 .. laid end to end, so its slots are theirs in order.
 */
export function decodeWideCase(bufs: readonly Uint8Array[], slot: number, width: number, shape: InputShape, bytes: number): ReferenceCase {
  const per = bytes / SLOT;
  const out: Record<string, bigint[]> = {};
  for (const f of shape.fields) out[f.name] = readSlot(bufs[f.field]!, slot, width, f.elements * per);
  return out as ReferenceCase;
}
