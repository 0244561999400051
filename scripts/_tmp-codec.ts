import { registerAllFamilies } from '../harness/families/index.js'; registerAllFamilies();
import { performance } from 'node:perf_hooks';
import { findTarget } from '../harness/arch/targets.js';
import { selectEntries } from '../harness/catalog/select.js';
import { encodeShared, decodeShared } from '../harness/util/shared-json.js';
import { isDeepStrictEqual } from 'node:util';
const t = findTarget('sm_90')!;
const all = selectEntries({ kinds: ['variant', 'neighbour', 'isa-neighbour', 'spelling'] }, t, '9.0');
let t0 = performance.now();
const p = encodeShared(all);
console.log('encode', (performance.now() - t0).toFixed(0), 'ms', p.atoms.length, p.nodes.length);
t0 = performance.now();
const s = JSON.stringify(p);
console.log('stringify', s.length, (performance.now() - t0).toFixed(0), 'ms');
t0 = performance.now();
const q = JSON.parse(s);
console.log('parse', (performance.now() - t0).toFixed(0), 'ms');
t0 = performance.now();
const d = decodeShared(q);
console.log('decode', (performance.now() - t0).toFixed(0), 'ms');
t0 = performance.now();
console.log('equal', isDeepStrictEqual(JSON.parse(JSON.stringify(all)), d), (performance.now() - t0).toFixed(0));
for (const f of ['id', 'q', 'effective', 'violations', 'permits', 'requirements', 'reason', 'ambiguities', 'operands'] as const) {
  const t1 = performance.now();
  encodeShared(all.map((e) => e[f]));
  console.log(f, (performance.now() - t1).toFixed(0));
}
