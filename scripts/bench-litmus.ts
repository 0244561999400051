/**
 * bench:litmus: seconds to parse and judge the whole Dat3M peer suite and the project's corpus
 * (cases/litmus/, the extended syntax) on one core, with the reader `npm run conformance -- litmus`
 * uses (extended.ts, which reads Dat3M's syntax too). Run pinned: `taskset -c 0 npm run bench:litmus`.
 * Target (issue 25): <= 20 s.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { judge } from '../harness/memory-model/index.js';
import { parseLitmus } from '../harness/memory-model/extended.js';
import { listLitmus, peerRootOrExit } from './peer-litmus.js';
import { registerAllFamilies } from '../harness/families/index.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

const files = listLitmus(join(peerRootOrExit(), 'litmus'));
const corpus = join(import.meta.dirname, '../cases/litmus');
const own = existsSync(corpus) ? listLitmus(corpus) : [];
const t0 = performance.now();
let judged = 0,
  skipped = 0;
for (const f of [...files, ...own]) {
  const { test } = parseLitmus(readFileSync(f, 'utf8'), f);
  if (!test) {
    skipped++;
    continue;
  } // a file that does not parse (none should)
  judge(test);
  judged++;
}
const s = (performance.now() - t0) / 1000;
console.log(
  `bench:litmus: ${judged} tests judged (${files.length} peer, ${own.length} in cases/litmus, ${skipped} did not parse) in ${s.toFixed(2)} s; target <= 20 s: ${s <= 20 ? 'met' : 'NOT met'}`,
);
