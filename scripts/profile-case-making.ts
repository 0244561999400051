/**
 * `npm run profile:case-making`: where a GPU worker's "making cases" seconds go, on this machine, for the
 * default GPU run's variants (sm_90): per stage (the directed probes, the level-1/2 generated cases as
 * objects, their encoding into launch slots, the level-3 fill where the CPU makes them), in one process
 * (one worker's share is this divided by the workers). Prints cases per second per stage and overall.
 */
import { registerAllFamilies } from '../harness/families/index.js';
import { gpuPlan } from '../harness/backends/gpu/plan.js';
import { libraryCases } from '../harness/backends/gpu/library.js';

registerAllFamilies();
const t0 = performance.now();
const plan = gpuPlan('sm_90', '8.8');
const t1 = performance.now();
let n = 0;
for (const gv of plan.variants) n += libraryCases({ family: gv.entry.family, q: gv.entry.q, ptx: gv.entry.ptx, id: gv.entry.id }, 1, gv.shape.caseBytes).length;
const t2 = performance.now();
console.log(`plan: ${plan.variants.length} variants in ${((t1 - t0) / 1000).toFixed(2)} s`);
console.log(`libraryCases: ${n} cases in ${((t2 - t1) / 1000).toFixed(2)} s: ${Math.round(n / ((t2 - t1) / 1000))} cases/s`);

// per stage
import { directedCases } from '../cases/generators/directed.js';
import { generateCases } from '../cases/generators/cases.js';
const vs = plan.variants
  .filter((gv) => gv.shape.caseBytes === undefined)
  .map((gv) => ({ family: gv.entry.family, q: gv.entry.q, ptx: gv.entry.ptx, id: gv.entry.id }));
let a = performance.now();
let k = 0;
for (const v of vs) k += directedCases(v as never).length;
let b = performance.now();
console.log(`directedCases: ${k} probes in ${((b - a) / 1000).toFixed(2)} s`);
a = performance.now();
k = 0;
for (const v of vs) k += generateCases(v as never, 1, 1, 8).length + generateCases(v as never, 1, 2, 8).length;
b = performance.now();
console.log(`generateCases level 1 and 2: ${k} cases in ${((b - a) / 1000).toFixed(2)} s`);

// the library cases encoded into launch slots, as a worker does
import { encodeCase } from '../harness/backends/gpu/batch.js';
{
  const a = performance.now();
  let slots = 0;
  for (const gv of plan.variants) {
    if (gv.shape.caseBytes !== undefined) continue;
    const cs = libraryCases({ family: gv.entry.family, q: gv.entry.q, ptx: gv.entry.ptx, id: gv.entry.id }, 1);
    const bufs = [0, 1, 2].map(() => Buffer.alloc(cs.length * 16));
    cs.forEach((c, i) => encodeCase(bufs, i, gv.shape.width, c.input));
    slots += cs.length;
  }
  const b = performance.now();
  console.log(`libraryCases + encodeCase: ${slots} cases in ${((b - a) / 1000).toFixed(2)} s: ${Math.round(slots / ((b - a) / 1000))} cases/s`);
}

// the wide library cases of the bulk families (one job per WIDE_LIBRARY_BYTES size), written into their slots as a worker does (fillGenerated)
import { WIDE_LIBRARY_BYTES } from '../harness/backends/gpu/placement.js';
import { fillGenerated } from '../harness/backends/gpu/batch.js';
import { WIDE_LIBRARY_CASES } from '../harness/backends/gpu/library.js';
import { randomShape } from '../cases/generators/cases.js';
import { laneTable, stringKey } from '../cases/generators/random.js';
import { elementFormat } from '../harness/numerics/formats.js';
{
  const a = performance.now();
  let cases = 0;
  let slots = 0;
  for (const gv of plan.variants) {
    if (!gv.gpu.wide) continue;
    const v = { family: gv.entry.family, q: gv.entry.q, ptx: gv.entry.ptx, id: gv.entry.id };
    const fmt = elementFormat(v.q.type ?? '');
    for (const bytes of WIDE_LIBRARY_BYTES) {
      const words = [0, 1, 2].map(() => new Uint32Array((WIDE_LIBRARY_CASES * bytes) / 4));
      fillGenerated(
        words,
        0,
        (WIDE_LIBRARY_CASES * bytes) / 16,
        randomShape(v as never),
        laneTable(fmt.lane),
        gv.shape.width,
        fmt.lanes,
        1,
        stringKey(v.id),
        0,
      );
      cases += WIDE_LIBRARY_CASES;
      slots += (WIDE_LIBRARY_CASES * bytes) / 16;
    }
  }
  const b = performance.now();
  console.log(`wide library cases into their slots: ${cases} cases (${slots} 16-byte slots) in ${((b - a) / 1000).toFixed(2)} s`);
}
