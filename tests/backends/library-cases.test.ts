/**
 * Case making at the GPU's pace must not change a case (issue 43, deliverable 2): the GPU workers'
 * library cases (directed probes, level-1/2 generated cases) of a sample of the default run's variants
 * are made again and compared, by digest, with those recorded before the speed-up
 * (tests/fixtures/library-cases.json, scripts/record-library-cases.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { libraryDigest, librarySample } from '../helpers/library-cases.js';

const RECORDED = JSON.parse(readFileSync('tests/fixtures/library-cases.json', 'utf8')) as Record<string, string>;

describe("the GPU workers' library cases", () => {
  it('every sampled variant makes the recorded cases, ids and bits (185 variants, every 97th of the sm_90 plan)', () => {
    const sample = librarySample();
    expect(sample.length).toBe(Object.keys(RECORDED).length);
    for (const v of sample) expect(libraryDigest(v), v.id).toBe(RECORDED[v.id]);
  });
  it('the digest sees one changed bit (the check can fail)', () => {
    const v = librarySample()[1]!;
    const other = { ...v, id: `${v.id}x` };
    expect(libraryDigest(other)).not.toBe(RECORDED[v.id]);
  });
});
