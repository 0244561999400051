/**
 * Generators, replay and the directed library: generated cases are deterministic for a seed and
 * replay by id to the same bits; the enumerators cover every pair once; the committed directed
 * library is what the generator script writes and loads without a problem; and the expectations
 * written by hand in the library agree with the reference model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { families } from '../../harness/registry/index.js';
import { describe, expect, it } from 'vitest';
import { allPairs, generateCases, representativeVariants } from '../../cases/generators/cases.js';
import { level1, level2 } from '../../cases/generators/values.js';
import { runCaseOnReference } from '../../harness/backends/reference/cases.js';
import { CASES_DIR, DIRECTED_DIR, collectCases, findCase } from '../../harness/case-readers/sources.js';
import { loadVectors } from '../../harness/case-readers/vectors.js';
import { familyById, familyPlugin } from '../../harness/registry/index.js';
import { familyVariants } from '../../harness/catalog/enumerate.js';
import { evaluate } from '../../harness/catalog/evaluate.js';
import { EDITIONS, withEdition } from '../../harness/catalog/editions.js';
import { variantId } from '../../harness/catalog/spelling.js';
import { E4M3, F16 } from '../../harness/numerics/formats.js';
import { directedFiles } from '../../scripts/gen-directed.js';

const atomF32 = representativeVariants(familyById('atom')!).find((v) => v.id === 'atom.global.add.f32')!;
const ldr = representativeVariants(familyById('multimem.ld_reduce')!).find((v) => v.id === 'multimem.ld_reduce.global.add.acc::f32.v2.f16')!;

describe('representative variants', () => {
  it('are the valid variants of familyVariants with sem/scope/hint/d omitted that the family calls representative, in its order, under every edition', () => {
    for (const e of EDITIONS) {
      withEdition(e, () => {
        for (const fam of families()) {
          // the whole walk filtered afterwards: what representativeVariants walked before it walked only the omitted products
          const optional = ['sem', 'scope', 'hint', 'd'].filter((n) => fam.slots.find((s) => s.name === n)?.values.includes('') ?? true);
          const want = familyVariants(fam)
            .filter((q) => evaluate(fam, q).status === 'valid' && optional.every((n) => (q[n] ?? '') === '') && familyPlugin(fam.id).shape.representative(q))
            .map((q) => variantId(fam, q));
          const got = representativeVariants(fam);
          expect(
            got.map((v) => v.id),
            `${fam.id} under ${e}`,
          ).toEqual(want);
          expect(got.length, fam.id).toBeGreaterThan(0);
        }
      });
    }
  });
});

describe('generators', () => {
  it('are deterministic for a seed and differ between seeds', () => {
    const a = generateCases(atomF32, 42, 3, 20);
    const b = generateCases(atomF32, 42, 3, 20);
    const c = generateCases(atomF32, 43, 3, 20);
    expect(b.map((x) => x.input)).toEqual(a.map((x) => x.input));
    expect(c.map((x) => x.input)).not.toEqual(a.map((x) => x.input));
  });
  it('case k is the same whether generated alone or in a run (prefix-stable)', () => {
    const run = generateCases(ldr, 7, 3, 12);
    for (const k of [0, 5, 11]) expect(generateCases(ldr, 7, 3, 1, k)[0]).toEqual(run[k]);
  });
  it('replay by id reproduces the same bits', async () => {
    for (const c of generateCases(ldr, 9, 2, 5)) {
      const r = await findCase(c.id);
      expect(r.case).toEqual(c);
    }
  });
  it('multimem cases take 2 to 8 replicas, bulk cases 16 bytes', () => {
    const counts = new Set(generateCases(ldr, 1, 3, 200).map((c) => c.input.replicas!.length));
    expect(Math.min(...counts)).toBe(2);
    expect(Math.max(...counts)).toBe(8);
    const bulk = representativeVariants(familyById('cp.reduce.async.bulk')!).find((v) => v.q.type === 'f16')!;
    expect(generateCases(bulk, 1, 1, 3).every((c) => c.input.memory!.length === 8 && c.input.source!.length === 8)).toBe(true);
  });
  it('levels: level 1 has the special exponents, level 2 more; both include the signed zeros and NaNs', () => {
    const l1 = level1(F16);
    const l2 = level2(F16);
    expect(l1).toEqual(expect.arrayContaining([0n, 0x8000n, 0x7c00n, 0x7e00n, 0x0001n, 0x03ffn, 0x7bffn]));
    expect(l2.length).toBeGreaterThan(l1.length);
    expect(level1(E4M3)).toContain(0x7fn);
  });
});

describe('exhaustive enumerators', () => {
  it('all 8-bit pairs, each once, in chunks', () => {
    let n = 0;
    const seen = new Uint8Array(65536);
    for (const { a, b } of allPairs(8, 5000)) {
      expect(a.length).toBeLessThanOrEqual(5000);
      for (let i = 0; i < a.length; i++) seen[(a[i]! << 8) | b[i]!]!++, n++;
    }
    expect(n).toBe(65536);
    expect(seen.every((x) => x === 1)).toBe(true);
  });
  it('16-bit pairs stream lazily (the first chunks arrive without building 2^32)', () => {
    const it16 = allPairs(16);
    const first = it16.next().value!;
    expect(first.a[0]).toBe(0);
    expect(first.b[65535]).toBe(65535);
    expect(it16.next().value!.a[0]).toBe(1);
  });
});

describe('directed library', () => {
  it('is what scripts/gen-directed.ts writes (run npm run gen:directed after changing probes)', () => {
    for (const [name, text] of directedFiles()) expect(readFileSync(join(DIRECTED_DIR, name), 'utf8'), name).toBe(text);
  });
  it('loads without problems and covers every family', async () => {
    const r = await loadVectors([DIRECTED_DIR], CASES_DIR);
    expect(r.problems).toEqual([]);
    expect(new Set(r.cases.map((c) => c.variant.family)).size).toBe(families().length);
    expect(r.cases.length).toBeGreaterThan(4000);
  });
  it('covers every representative (family, op, type, vector) combination', async () => {
    const r = await loadVectors([DIRECTED_DIR], CASES_DIR);
    const have = new Set(r.cases.map((c) => c.variant.id));
    for (const id of ['atom', 'red', 'multimem.ld_reduce', 'multimem.st', 'multimem.red', 'cp.reduce.async.bulk', 'multimem.cp.reduce.async.bulk']) {
      for (const v of representativeVariants(familyById(id)!)) expect(have.has(v.id), v.id).toBe(true);
    }
  });
  it('hand-written expectations agree with the reference model', async () => {
    const r = await loadVectors([join(DIRECTED_DIR, 'handwritten-spec-rules.yaml')], CASES_DIR);
    const withExpect = r.cases.filter((c) => c.expect);
    expect(withExpect.length).toBeGreaterThanOrEqual(12);
    for (const c of withExpect) expect(runCaseOnReference(c), c.id).toMatchObject({ verdict: 'pass' });
  });
  it('a wrong expectation is a mismatch that names element and allowed set', async () => {
    const r = await loadVectors([join(DIRECTED_DIR, 'handwritten-spec-rules.yaml')], CASES_DIR);
    const c = r.cases.find((x) => x.id.endsWith(':smallest-subnormal-doubled-global'))!;
    const res = runCaseOnReference({ ...c, expect: { memory: [2n] } });
    expect(res.verdict).toBe('mismatch');
    expect(res.reason).toMatch(/memory\[0\]: expected 0x00000002, the reference allows 0x00000000/);
  });
  it('the default case set counts directed and generated cases per level', async () => {
    const sel = await collectCases({ seed: 1, keep: (id) => id === 'atom.global.add.f32' });
    expect(sel.counts.directed).toBeGreaterThan(10);
    expect(sel.counts.generated).toEqual({ 1: 4, 2: 4, 3: 8 });
  });
});
