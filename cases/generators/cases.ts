/**
 * Generated cases: for a variant, a seed and a level, a deterministic list of cases whose operands
 * come from the level's bit-pattern arbitrary (values.ts). Case k of (variant, seed, level) always
 * has the same bits, so its id `<variant>/gen:seed=S:level=L:i=K` replays it. Also the shapes shared
 * with the directed library (how many elements, replicas and operands a family takes) and the
 * exhaustive pair enumerators for 8- and 16-bit types.
 */
import fc from 'fast-check';
import type { Case, CaseVariant } from '../../harness/cases/types.js';
import { familyVariants } from '../../harness/catalog/enumerate.js';
import { evaluate } from '../../harness/catalog/evaluate.js';
import { spell, variantId } from '../../harness/catalog/spelling.js';
import type { FamilyDef, Qualifiers } from '../../harness/catalog/types.js';
import { type ElementFormat, elementFormat, joinLanes } from '../../harness/numerics/formats.js';
import type { ReferenceCase } from '../../harness/reference/model.js';
import { type Level, bitsArbitrary } from './values.js';
import { laneBits, laneTable, replicaCount, saltOf, shapeOf, stringKey } from './random.js';

export const DEFAULT_SEED = 20261121;

export function lanesOf(q: Qualifiers): number {
  const v = q.vec ?? '';
  return v === '' ? 1 : Number(v.slice(1));
}

export const BULK_FAMILIES = new Set(['cp.reduce.async.bulk', 'multimem.cp.reduce.async.bulk']);
export const MULTIMEM_FAMILIES = new Set(['multimem.ld_reduce', 'multimem.st', 'multimem.red']);

/** Elements in a generated bulk case: 16 bytes, the smallest size the spec allows. */
export function bulkElements(fmt: ElementFormat): number {
  return 128 / fmt.bits;
}

function elementArb(fmt: ElementFormat, level: Level): fc.Arbitrary<bigint> {
  return fc.array(bitsArbitrary(fmt.lane, level), { minLength: fmt.lanes, maxLength: fmt.lanes }).map((ls) => joinLanes(fmt, ls));
}

/** The arbitrary of one case input for a variant. */
export function inputArbitrary(v: CaseVariant, level: Level): fc.Arbitrary<ReferenceCase> {
  const fmt = elementFormat(v.q.type ?? '');
  const n = lanesOf(v.q);
  const el = elementArb(fmt, level);
  const vec = (k: number) => fc.array(el, { minLength: k, maxLength: k });
  if (MULTIMEM_FAMILIES.has(v.family)) {
    return fc.record({ replicas: fc.integer({ min: 2, max: 8 }).chain((r) => fc.array(vec(n), { minLength: r, maxLength: r })), b: vec(n) }).map((x) =>
      v.family === 'multimem.ld_reduce' ? { replicas: x.replicas } : x,
    );
  }
  if (BULK_FAMILIES.has(v.family)) {
    const k = bulkElements(fmt);
    return fc.record({ memory: vec(k), source: vec(k) });
  }
  if (v.q.op === 'cas') return fc.record({ memory: vec(n), b: vec(n), c: vec(n) });
  return fc.record({ memory: vec(n), b: vec(n) });
}

/** Cases `from`..`from+count-1` of (variant, seed, level). */
export function generateCases(v: CaseVariant, seed: number, level: Level, count: number, from = 0): Case[] {
  const inputs = level === 3 ? randomInputs(v, seed, count, from) : fc.sample(inputArbitrary(v, level), { seed, numRuns: from + count }).slice(from);
  return inputs.map((input, k) => ({
    id: `${v.id}/gen:seed=${seed}:level=${level}:i=${from + k}`,
    variant: v,
    input,
    origin: { kind: 'gen', seed, level, index: from + k },
  }));
}

/**
 * Level-3 inputs, counter-based (random.ts): case i's bits depend on (seed, variant id, i) alone, so
 * the GPU workers fill the same bits straight into typed arrays. The shape (fields, element counts)
 * is read off a level-1 case of the variant.
 */
export function randomInputs(v: CaseVariant, seed: number, count: number, from = 0): ReferenceCase[] {
  const fmt = elementFormat(v.q.type ?? '');
  const t = laneTable(fmt.lane);
  const shape = shapeOf(fc.sample(inputArbitrary(v, 1), { seed: 1, numRuns: 1 })[0]!);
  const vkey = stringKey(v.id);
  const element = (i: number, field: number, k: number) => joinLanes(fmt, Array.from({ length: fmt.lanes }, (_, j) => laneBits(t, seed, vkey, i, saltOf(field, k, j))));
  const out: ReferenceCase[] = [];
  for (let i = from; i < from + count; i++) {
    const input: Record<string, unknown> = {};
    for (const f of shape.fields) input[f.name] = Array.from({ length: f.elements }, (_, k) => element(i, f.field, k));
    if (shape.replicaElements !== undefined) {
      input.replicas = Array.from({ length: replicaCount(seed, vkey, i) }, (_, r) => Array.from({ length: shape.replicaElements! }, (_, k) => element(i, 3 + r, k)));
    }
    out.push(input as ReferenceCase);
  }
  return out;
}

/** Parses a generated case id back into (variant id, seed, level, index). */
export function parseGenId(id: string): { variant: string; seed: number; level: Level; index: number } | undefined {
  const m = /^(.*)\/gen:seed=(\d+):level=([123]):i=(\d+)$/.exec(id);
  return m ? { variant: m[1]!, seed: Number(m[2]), level: Number(m[3]) as Level, index: Number(m[4]) } : undefined;
}

/**
 * One representative variant per (family, op, type, vector, accumulation) of the catalog: default
 * ordering and scope, `.global` (and `.shared::cta` too where the space changes the numerics: atom/red
 * .add.f32), no cache hint, register destination.
 */
export function representativeVariants(fam: FamilyDef): CaseVariant[] {
  const out: CaseVariant[] = [];
  for (const q of familyVariants(fam)) {
    if (evaluate(fam, q).status !== 'valid') continue;
    if ((q.sem ?? '') !== '' || (q.scope ?? '') !== '' || (q.hint ?? '') !== '' || (q.d ?? '') !== '') continue;
    if (fam.id === 'atom' || fam.id === 'red') {
      const sp = q.space ?? '';
      const numericSpace = q.op === 'add' && q.type === 'f32' && (q.vec ?? '') === '';
      if (!(sp === 'global' || (numericSpace && sp === 'shared::cta'))) continue;
    }
    if (MULTIMEM_FAMILIES.has(fam.id) && (q.ss ?? '') !== 'global') continue;
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
