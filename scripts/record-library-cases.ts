/**
 * Records the GPU workers' library cases (the directed probes and the level-1/2 generated cases, libraryCases)
 * of a sample of the default GPU run's variants (every 97th of sm_90's plan, seed 1), as one sha256 per variant
 * over its cases' ids and inputs: tests/fixtures/library-cases.json (the wide cases of the bulk families: -wide.json). tests/cases/library-cases.test.ts makes them
 * again and compares, so a speed-up of case making cannot change a case or its id (issue 43, deliverable 2).
 *
 *   npx tsx scripts/record-library-cases.ts
 */
import { writeFileSync } from 'node:fs';
import { registerAllFamilies } from '../harness/families/index.js';
import { librarySample, libraryDigest, wideSample } from '../tests/helpers/library-cases.js';

registerAllFamilies();
const out = Object.fromEntries(librarySample().map((v) => [v.id, libraryDigest(v)]));
writeFileSync('tests/fixtures/library-cases.json', `${JSON.stringify(out, null, 1)}\n`);
// the wide library cases (bulk families: WIDE_LIBRARY_BYTES), every 7th such variant at each size
const wide = Object.fromEntries(wideSample().map(({ v, bytes }) => [`${v.id}@${bytes}`, libraryDigest(v, bytes)]));
writeFileSync('tests/fixtures/library-cases-wide.json', `${JSON.stringify(wide, null, 1)}\n`);
console.log(`${Object.keys(out).length} variants and ${Object.keys(wide).length} wide (variant, size) pairs recorded`);
