/**
 * Level-3 ("random") case operands, counter-based: the bits of case i of (variant, seed) are a pure
 * function of (seed, variant id, i, field, element, lane), so any case replays in O(1) from its id
 * and a GPU worker can fill millions of cases straight into typed arrays without building objects.
 * Each lane is, with probability 1/4, one of the format's level-1 values (so specials keep showing
 * up) and otherwise uniform bits: the same distribution the fast-check level-3 arbitrary had.
 *
 * The hash is a 32-bit integer mixer (lowbias32, by Chris Wellons) over the combined key; it is not
 * cryptographic, only well spread.
 */
import type { ScalarFormat } from '../../harness/numerics/formats.js';
import { level1 } from './values.js';

export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A stable 32-bit key of a string (FNV-1a, then mixed). */
export function stringKey(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix32(h >>> 0);
}

/** Level-1 values of a lane format as 32-bit words, low word first (`words` per value). */
export interface LaneTable {
  readonly bits: number;
  /** 32-bit words per lane value (1 for <= 32 bits, 2 for 64, 4 for 128). */
  readonly words: number;
  readonly values: Uint32Array;
  readonly count: number;
}

const tables = new Map<string, LaneTable>();

export function laneTable(f: ScalarFormat): LaneTable {
  const hit = tables.get(f.name);
  if (hit) return hit;
  const vals = level1(f);
  const words = Math.max(1, f.bits / 32);
  const values = new Uint32Array(vals.length * words);
  vals.forEach((v, k) => {
    for (let w = 0; w < words; w++) values[k * words + w] = Number((v >> BigInt(32 * w)) & 0xffffffffn);
  });
  const t = { bits: f.bits, words, values, count: vals.length };
  tables.set(f.name, t);
  return t;
}

/**
 * Word `w` (low word first) of one lane of case `index`; lanes narrower than 32 bits come back
 * masked to their width. `salt` names field, element and lane (saltOf).
 */
export function laneWord(t: LaneTable, seed: number, vkey: number, index: number, salt: number, w: number): number {
  const h0 = laneHash(caseKey(seedKey(seed, vkey), index), saltHash(salt));
  if ((h0 & 3) === 0) return t.values[((h0 >>> 2) % t.count) * t.words + w]!;
  // narrow lanes take their bits from the top of the same hash; 32-bit words from one more mix each
  return t.bits < 32 ? h0 >>> (32 - t.bits) : mix32(h0 ^ (0x5bd1e995 + w));
}

/** The pieces of laneWord's hash, so a loop over many lanes can hoist what does not change. */
export const seedKey = (seed: number, vkey: number): number => mix32(seed ^ vkey);
export const caseKey = (sk: number, index: number): number => mix32(sk ^ index);
export const saltHash = (salt: number): number => Math.imul(salt + 1, 0x9e3779b9);
export const laneHash = (ck: number, sh: number): number => mix32(ck ^ sh);

/** The salt of (field, element, lane): field 0 memory, 1 b or source, 2 c, 3+r replica r. */
export const saltOf = (field: number, element: number, lane: number): number => (field * 64 + element) * 8 + lane;

/** Bits of one lane as a BigInt (for Case objects: the same bits laneWord gives). */
export function laneBits(t: LaneTable, seed: number, vkey: number, index: number, salt: number): bigint {
  let v = 0n;
  for (let w = t.words - 1; w >= 0; w--) v = (v << 32n) | BigInt(laneWord(t, seed, vkey, index, salt, w));
  return v;
}

/** Which inputs a case has and how many elements each (read off a case of the same variant). */
export interface InputShape {
  readonly fields: readonly { readonly name: 'memory' | 'b' | 'c' | 'source'; readonly field: number; readonly elements: number }[];
  /** multimem: elements per replica; the replica count is drawn from 2..8 per case. */
  readonly replicaElements?: number;
}

export function shapeOf(input: {
  memory?: readonly unknown[];
  b?: readonly unknown[];
  c?: readonly unknown[];
  source?: readonly unknown[];
  replicas?: readonly (readonly unknown[])[];
}): InputShape {
  const fields: { name: 'memory' | 'b' | 'c' | 'source'; field: number; elements: number }[] = [];
  if (input.memory) fields.push({ name: 'memory', field: 0, elements: input.memory.length });
  if (input.b) fields.push({ name: 'b', field: 1, elements: input.b.length });
  if (input.source) fields.push({ name: 'source', field: 1, elements: input.source.length });
  if (input.c) fields.push({ name: 'c', field: 2, elements: input.c.length });
  return { fields, ...(input.replicas ? { replicaElements: input.replicas[0]!.length } : {}) };
}

/** Replicas of multimem case `index`: 2..8. */
export const replicaCount = (seed: number, vkey: number, index: number): number => 2 + (mix32(mix32(seed ^ vkey ^ 0x2545f491) ^ index) % 7);
