/**
 * One validating read of a vector file, N times in one process (the tree's own harness), CPU ms per
 * read: the in-process half of scripts/bench-instructions.sh, which counts its instructions.
 * Usage: npx tsx scripts/bench-read-reps.ts FILE [N]
 */
import { tmpdir } from 'node:os';
import { validateVectors } from '../harness/case-readers/vectors.js';
import { registerAllFamilies } from '../harness/families/index.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families
const [file, n] = [process.argv[2], Number(process.argv[3] ?? 1)];
if (!file) {
  console.error('usage: npx tsx scripts/bench-read-reps.ts FILE [N]');
  process.exit(2);
}
const ms: number[] = [];
for (let i = 0; i < n; i++) {
  const c0 = process.cpuUsage();
  const v = await validateVectors([file], tmpdir(), undefined, () => {});
  const c = process.cpuUsage(c0);
  ms.push(Math.round((c.user + c.system) / 1000));
  if (v.problems.length) console.error(`${v.problems.length} problem(s) in ${file}`);
}
console.log(`${n} read(s) of ${file}: ${ms.join(' ')} ms CPU`);
