/**
 * `npm run bench`: catalog size per family, enumeration time, and ptxas classification throughput
 * for the whole sm_90 and sm_100a catalogs. Prints figures; asserts nothing (targets are read by
 * people, not by a timed test).
 */
import { availableParallelism, cpus } from 'node:os';
import { findTarget, modulePtxFor, CATALOG_PTX_ISA } from '../harness/arch/targets.js';
import { runPtxasBackend } from '../harness/backends/ptxas/backend.js';
import { ToolchainError, probePtxas } from '../harness/backends/ptxas/toolchain.js';
import { enumerateCatalog } from '../harness/catalog/enumerate.js';
import { FAMILY_IDS } from '../harness/families/index.js';

const ARCHS = ['sm_90', 'sm_100a'];
const TARGET_RATE = 2000;

const ptxas = await probePtxas().catch((e: unknown) => {
  if (e instanceof ToolchainError) return e.message;
  throw e;
});
console.log(`machine: ${cpus()[0]?.model ?? '?'}, ${availableParallelism()} cores, node ${process.version}`);
console.log(typeof ptxas === 'string' ? `ptxas: none (${ptxas})` : `ptxas: ${ptxas.versionLine} at ${ptxas.path}, PTX ISA up to ${ptxas.maxPtx}`);

for (const arch of ARCHS) {
  const target = findTarget(arch)!;
  const ptx = (typeof ptxas === 'string' ? undefined : modulePtxFor(target, ptxas.maxPtx)) ?? modulePtxFor(target, CATALOG_PTX_ISA)!;
  const t0 = performance.now();
  const entries = enumerateCatalog({ target, ptx });
  const enumMs = performance.now() - t0;
  console.log(`\n${arch} catalog (judged under PTX ISA ${ptx}): ${entries.length} entries, enumerated in ${(enumMs / 1000).toFixed(2)} s`);
  const rows = FAMILY_IDS.map((f) => {
    const es = entries.filter((e) => e.family === f);
    const n = (k: string, x?: string) => es.filter((e) => e.kind === k && (!x || e.expect === x)).length;
    return [f, n('variant', 'accept'), n('variant', 'either'), n('variant', 'reject'), n('neighbour'), n('isa-neighbour'), es.length];
  });
  console.log(['family', 'valid', 'ambiguous', 'unsupported', 'neighbours', 'isa-neighbours', 'total'].map((h, i) => (i ? h.padStart(16) : h.padEnd(30))).join(''));
  for (const r of rows) console.log(r.map((c, i) => (i ? String(c).padStart(16) : String(c).padEnd(30))).join(''));

  if (typeof ptxas === 'string') {
    console.log(`ptxas throughput for ${arch}: skipped (${ptxas})`);
    continue;
  }
  const run = await runPtxasBackend(entries, target, ptxas);
  const s = run.stats;
  const rate = s.classified / (s.classifyMs / 1000);
  console.log(
    `ptxas throughput for ${arch}: ${s.classified} entries classified in ${(s.classifyMs / 1000).toFixed(1)} s = ${Math.round(rate)} entries/s ` +
      `(target ${TARGET_RATE}/s: ${rate >= TARGET_RATE ? 'met' : 'NOT met'}); ${s.ptxasCalls} ptxas calls (${s.scanCalls} scan, ${s.confirmCalls} confirm), ` +
      `${s.crashes} ptxas crashes isolated (each costs a call of its own), ${s.skipped} skipped; one call per entry would be ${s.classified} calls`,
  );
}
