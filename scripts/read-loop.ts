/**
 * Reads one JSON-lines vector file N times in this process, each time with a fresh JsonlScanner fed
 * in 1 MB pieces (with the slack after each) as the reader feeds it, and prints the CPU of each read. Run under cachegrind by
 * scripts/bench-read-instructions.sh, the difference between N = 3 and N = 1 is two reads in steady
 * state (compiled, warm): instructions a line that do not depend on the machine's load.
 * Usage: node --import tsx scripts/read-loop.ts FILE [N]
 */
import { readFileSync } from 'node:fs';
import { JSONL_SLACK, JsonlScanner } from '../harness/case-readers/vector-jsonl.js';
import { batchSize } from '../harness/case-readers/packed.js';
import { registerAllFamilies } from '../harness/families/index.js';

registerAllFamilies();
const file = process.argv[2];
if (!file) {
  console.error('usage: node --import tsx scripts/read-loop.ts FILE.jsonl [N]');
  process.exit(2);
}
const reads = Number(process.argv[3] ?? 1);
const buf = readFileSync(file);
const PIECE = 1 << 20;
// each piece in a buffer JSONL_SLACK bytes longer, as harness/case-readers/vectors.ts reads a file
const piece = Buffer.alloc(PIECE + JSONL_SLACK);
for (let r = 0; r < reads; r++) {
  const c0 = process.cpuUsage();
  const s = new JsonlScanner(file, file, true, buf.length);
  let p = 0;
  let cases = 0;
  while (p < buf.length) {
    const end = Math.min(buf.length, p + PIECE);
    const last = end === buf.length;
    buf.copy(piece, 0, p, end);
    const used = s.lines(piece, end - p, last);
    for (const b of s.take(last)) cases += batchSize(b);
    p += used || end - p;
  }
  const c = process.cpuUsage(c0);
  console.log(`read ${r + 1}: ${cases} cases, ${s.ctx.problems.length} problems, ${((c.user + c.system) / 1e6).toFixed(3)} s CPU`);
}
