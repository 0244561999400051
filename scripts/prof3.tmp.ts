import { registerAllFamilies } from '../harness/families/index.js';
import { selectEntries } from '../harness/catalog/select.js';
import { findTarget } from '../harness/arch/targets.js';
registerAllFamilies();
const t = findTarget('sm_90')!;
for (let i = 0; i < 2; i++) {
  const a = performance.now();
  const e = selectEntries({ kinds: ['variant', 'neighbour', 'isa-neighbour', 'spelling'] as never, filter: undefined } as never, t, '9.0');
  const b = performance.now();
  const s = JSON.stringify(e);
  const c = performance.now();
  JSON.parse(s);
  const d = performance.now();
  console.log(`${e.length} entries: enumerate ${(b - a).toFixed(0)} ms; JSON ${(s.length / 1e6).toFixed(1)} MB stringify ${(c - b).toFixed(0)} ms parse ${(d - c).toFixed(0)} ms`);
}
