/**
 * Generated cases: for a variant, a seed and a level, a deterministic list of cases whose operands
 * come from the level's bit-pattern arbitrary (values.ts). Case k of (variant, seed, level) always
 * has the same bits, so its id `<variant>/gen:seed=S:level=L:i=K` replays it. What a case of a
 * family holds (inputs, element counts, replicas) is the family's `shape` (harness/families/); this
 * module fills it. Also the exhaustive pair enumerators for 8- and 16-bit types.
 */
import fc from 'fast-check';
import type { Case, CaseVariant } from '../../harness/case-readers/types.js';
import { validWithOmitted } from '../../harness/catalog/enumerate.js';
import { spell, variantId } from '../../harness/catalog/spelling.js';
import type { FamilyDef } from '../../harness/catalog/types.js';
import { familyPlugin } from '../../harness/registry/index.js';
import { lanesOf } from '../../harness/registry/plugin.js';
import { type ElementFormat, elementFormat, joinLanes } from '../../harness/numerics/formats.js';
import type { ReferenceCase } from '../../harness/reference/model.js';
import { type Level, bitsArbitrary } from './values.js';
import { type InputShape, laneBits, laneTable, replicaCount, saltOf, shapeOf, stringKey } from './random.js';

export { DEFAULT_SEED } from './seed.js';

export { lanesOf };

/** Elements in a generated bulk case: 16 bytes, the smallest size the spec allows. */
export function bulkElements(fmt: ElementFormat, bytes = 16): number {
  return (bytes * 8) / fmt.bits;
}

/** Elements per input of a generated or directed case of `v` (what its family's shape asks for). */
export function caseElements(v: CaseVariant, fmt: ElementFormat): number {
  const len = familyPlugin(v.family).shape.length(v.q);
  return len.kind === 'vector' ? len.elements : bulkElements(fmt, len.bytes);
}

function elementArb(fmt: ElementFormat, level: Level): fc.Arbitrary<bigint> {
  return fc.array(bitsArbitrary(fmt.lane, level), { minLength: fmt.lanes, maxLength: fmt.lanes }).map((ls) => joinLanes(fmt, ls));
}

/** The arbitrary of one case input for a variant: its family's shape over lists at `level` (the list's arbitrary made once per type, length and level). */
export function inputArbitrary(v: CaseVariant, level: Level): fc.Arbitrary<ReferenceCase> {
  const type = v.q.type ?? '';
  const fmt = elementFormat(type);
  const n = caseElements(v, fmt);
  const key = `${type}/${n}/${level}`;
  let list = lists.get(key);
  if (!list) lists.set(key, (list = fc.array(elementArb(fmt, level), { minLength: n, maxLength: n })));
  return familyPlugin(v.family).shape.arbitrary(v.q, list, fc);
}
const lists = new Map<string, fc.Arbitrary<bigint[]>>();

/**
 * Cases `from`..`from+count-1` of (variant, seed, level). `bytes` (a bulk family, level 3 only): cases
 * of that many bytes instead of 16, id `<variant>/gen:seed=S:level=3:bytes=B:i=K`; case K is the
 * 16-byte level-3 cases K*B/16 .. (K+1)*B/16-1 of the same seed laid end to end (memory after
 * memory, source after source), so its bits are counter-based like theirs.
 */
export function generateCases(v: CaseVariant, seed: number, level: Level, count: number, from = 0, bytes?: number): Case[] {
  if (bytes !== undefined) return generateBulkCases(v, seed, level, count, from, bytes);
  const inputs = level === 3 ? randomInputs(v, seed, count, from) : sampled(v, seed, level, from + count).slice(from);
  return inputs.map((input, k) => ({
    id: `${v.id}/gen:seed=${seed}:level=${level}:i=${from + k}`,
    variant: v,
    input,
    origin: { kind: 'gen', seed, level, index: from + k },
  }));
}

/**
 * The first `runs` level-1/2 inputs of (variant, seed, level), sampled once for every variant whose
 * arbitrary is the same: a family's shape builds it from the list's (type, length, level) and the
 * inputs its qualifiers name (`shape.inputs(q)`: cas adds c), so variants that share those share
 * what fast-check draws from one seed (tests/backends/library-cases.test.ts compares the cases with
 * those made before this). Frozen: every such variant's cases hold the same inputs.
 */
function sampled(v: CaseVariant, seed: number, level: Level, runs: number): readonly ReferenceCase[] {
  const key = sampleKey(v, seed, level, runs);
  let got = samples.get(key);
  if (!got) {
    got = fc.sample(inputArbitrary(v, level), { seed, numRuns: runs }).map((c) => deepFreeze(c));
    samples.set(key, got);
  }
  return got;
}
const samples = new Map<string, readonly ReferenceCase[]>();

/** What the first `runs` level-1/2 inputs of (variant, seed, level) are made from (sampled shares them by it). */
function sampleKey(v: CaseVariant, seed: number, level: Level, runs: number): string {
  const type = v.q.type ?? '';
  const shape = familyPlugin(v.family).shape;
  return `${v.family}/${shape.inputs(v.q).join(',')}/${type}/${caseElements(v, elementFormat(type))}/${level}/${seed}/${runs}`;
}

/**
 * The sampled inputs the level-1/2 cases `count` of each level of these variants use, one entry per
 * distinct list: made once by one process (the gpu backend's run) and taken by others (preloadSamples)
 * instead of each sampling fast-check again.
 */
export function sampleEntries(vs: readonly CaseVariant[], seed: number, count: number): [string, readonly ReferenceCase[]][] {
  const out = new Map<string, readonly ReferenceCase[]>();
  for (const v of vs)
    for (const level of [1, 2] as const) {
      const key = sampleKey(v, seed, level, count);
      if (!out.has(key)) out.set(key, sampled(v, seed, level, count));
    }
  return [...out];
}

/** Sampled inputs made by another process (sampleEntries): used as fast-check's for their keys (frozen here). */
export function preloadSamples(entries: readonly (readonly [string, readonly ReferenceCase[]])[]): void {
  for (const [key, inputs] of entries)
    if (!samples.has(key))
      samples.set(
        key,
        inputs.map((c) => deepFreeze(c)),
      );
}
function deepFreeze<T>(x: T): T {
  if (x && typeof x === 'object') {
    for (const y of Object.values(x)) deepFreeze(y);
    Object.freeze(x);
  }
  return x;
}

function generateBulkCases(v: CaseVariant, seed: number, level: Level, count: number, from: number, bytes: number): Case[] {
  const len = familyPlugin(v.family).shape.length(v.q);
  if (len.kind !== 'bulk') throw new Error(`${v.id} is not a bulk reduction: its generated cases have no size in bytes`);
  if (level !== 3) throw new Error(`generated bulk cases of ${bytes} bytes are level 3 only`);
  if (!Number.isInteger(bytes) || bytes <= 0 || bytes % len.bytes !== 0)
    throw new Error(`a generated bulk case of ${bytes} bytes: the size must be a positive multiple of ${len.bytes} bytes`);
  const per = bytes / len.bytes;
  // the 16-byte cases of all of them at once (case i's are from * per + ...): the same bits as one call per case
  const all = randomInputs(v, seed, count * per, from * per);
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const parts = all.slice(k * per, (k + 1) * per);
    const input: Record<string, bigint[]> = {};
    for (const key of Object.keys(parts[0]!) as (keyof ReferenceCase)[]) input[key] = parts.flatMap((p) => p[key] as bigint[]);
    return {
      id: `${v.id}/gen:seed=${seed}:level=${level}:bytes=${bytes}:i=${i}`,
      variant: v,
      input: input as ReferenceCase,
      origin: { kind: 'gen', seed, level, index: i },
    } as Case;
  });
}

/**
 * Level-3 inputs, counter-based (random.ts): case i's bits depend on (seed, variant id, i) alone, so
 * the GPU workers fill the same bits straight into typed arrays. The shape (fields, element counts)
 * is read off a level-1 case of the variant.
 */
/** The fields and element counts of a variant's generated cases (read off one level-1 case). */
export function randomShape(v: CaseVariant): InputShape {
  return shapeOf(sampled(v, 1, 1, 1)[0]!);
}

export function randomInputs(v: CaseVariant, seed: number, count: number, from = 0): ReferenceCase[] {
  const fmt = elementFormat(v.q.type ?? '');
  const t = laneTable(fmt.lane);
  const shape = randomShape(v);
  const vkey = stringKey(v.id);
  const element = (i: number, field: number, k: number) =>
    joinLanes(
      fmt,
      Array.from({ length: fmt.lanes }, (_, j) => laneBits(t, seed, vkey, i, saltOf(field, k, j))),
    );
  const out: ReferenceCase[] = [];
  for (let i = from; i < from + count; i++) {
    const input: Record<string, unknown> = {};
    for (const f of shape.fields) input[f.name] = Array.from({ length: f.elements }, (_, k) => element(i, f.field, k));
    if (shape.replicaElements !== undefined) {
      input.replicas = Array.from({ length: replicaCount(seed, vkey, i) }, (_, r) =>
        Array.from({ length: shape.replicaElements! }, (_, k) => element(i, 3 + r, k)),
      );
    }
    out.push(input as ReferenceCase);
  }
  return out;
}

/** Parses a generated case id back into (variant id, seed, level, index, and bytes for a bulk case of another size). */
export function parseGenId(id: string): { variant: string; seed: number; level: Level; index: number; bytes?: number } | undefined {
  const m = /^(.*)\/gen:seed=(\d+):level=([123])(?::bytes=(\d+))?:i=(\d+)$/.exec(id);
  return m
    ? { variant: m[1]!, seed: Number(m[2]), level: Number(m[3]) as Level, index: Number(m[5]), ...(m[4] !== undefined ? { bytes: Number(m[4]) } : {}) }
    : undefined;
}

/**
 * One representative variant per (family, op, type, vector, accumulation) of the catalog: default
 * ordering and scope, no cache hint, register destination, and what the family's shape asks
 * (`representative`: e.g. `.global`, and `.shared::cta` too where the space changes the numerics).
 */
export function representativeVariants(fam: FamilyDef): CaseVariant[] {
  const shape = familyPlugin(fam.id).shape;
  // ordering, scope and hint at their defaults where the grammar lets them be omitted (red.async spells both)
  const optional = ['sem', 'scope', 'hint', 'd'].filter((n) => fam.slots.find((s) => s.name === n)?.values.includes('') ?? true);
  const out: CaseVariant[] = [];
  // the valid variants of familyVariants with those slots omitted, in its order (walking only their products)
  for (const q of validWithOmitted(fam, optional)) {
    if (!shape.representative(q)) continue;
    out.push({ family: fam.id, q, ptx: spell(fam, q), id: variantId(fam, q) });
  }
  return out;
}

/**
 * Every ordered pair of an 8- or 16-bit format, in chunks of `chunk` pairs (a and b as parallel
 * arrays), never the whole 2^16 or 2^32 at once.
 */
export function* allPairs(bits: 8 | 16, chunk = 1 << 16): Generator<{ a: Uint32Array; b: Uint32Array }> {
  const n = 2 ** bits;
  const total = n * n;
  for (let start = 0; start < total; start += chunk) {
    const len = Math.min(chunk, total - start);
    const a = new Uint32Array(len);
    const b = new Uint32Array(len);
    for (let i = 0; i < len; i++) {
      const k = start + i;
      a[i] = Math.floor(k / n);
      b[i] = k % n;
    }
    yield { a, b };
  }
}
