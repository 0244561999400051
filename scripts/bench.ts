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

import { BF16, E4M3, E5M2, F16, F32, F64, INT_FORMATS } from '../harness/numerics/formats.js';
import { addInt32, addOnce, fastAdder, fastMinMax, intOp } from '../harness/numerics/ops.js';
import { reductionSet } from '../harness/numerics/reduce.js';

const ARCHS = ['sm_90', 'sm_100a'];
const REF_TARGET = 20e6;

/** Calls `f(i)` for ~0.4 s and returns calls per second. */
function rate(f: (i: number) => number): number {
  let n = 1 << 16;
  let sink = 0;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) sink ^= f(i);
    const ms = performance.now() - t0;
    if (ms > 400) {
      if (sink === 0x7fffffff) console.log('');
      return n / (ms / 1000);
    }
    n *= 2;
  }
}

console.log('reference model, one core (operands vary with the loop index; NaN and overflow paths included):');
const rows: [string, string, number, boolean][] = [];
for (const f of [E4M3, E5M2, F16, BF16, F32]) {
  const m = 2 ** f.bits - 1;
  const add = fastAdder(f, false);
  const addFtz = fastAdder(f, true);
  rows.push([f.name, 'add', rate((i) => add((i * 2654435761) & m, (i * 40503 + 17) & m)), true]);
  rows.push([f.name, 'add (flushing)', rate((i) => addFtz((i * 2654435761) & m, (i * 40503 + 17) & m)), true]);
  if (f.bits <= 16) {
    const mn = fastMinMax(f, 'min');
    const mx = fastMinMax(f, 'max');
    rows.push([f.name, 'min', rate((i) => mn((i * 2654435761) & m, (i * 40503 + 17) & m)), false]);
    rows.push([f.name, 'max', rate((i) => mx((i * 2654435761) & m, (i * 40503 + 17) & m)), false]);
  }
}
rows.push(['u32', 'add', rate((i) => addInt32((i * 2654435761) >>> 0, (i * 40503) >>> 0)), true]);
rows.push(['f64', 'add (exact BigInt path)', rate((i) => Number(addOnce(F64, BigInt(i) * 0x9e3779b97f4a7c15n & 0x7fefffffffffffffn, 0x3ff0000000000000n + BigInt(i), false).bits & 1n)), false]);
rows.push(['u64', 'add (BigInt)', rate((i) => Number(intOp('add', INT_FORMATS.u64, BigInt(i) * 0x9e3779b97f4a7c15n & 0xffffffffffffffffn, 12345n) & 1n)), false]);
rows.push(['b128', 'cas (BigInt)', rate((i) => Number(intOp('cas', INT_FORMATS.b128, BigInt(i), BigInt(i & 1), 5n) & 1n)), false]);
const eight = [0x3c00n, 0x1000n, 0x1001n, 0x9000n, 0x1000n, 0x2000n, 0x0001n, 0x1000n];
rows.push(['f16', 'ld_reduce set over 8 replicas (all 135135 trees)', rate((i) => reductionSet('add', F16, F16, eight.map((v) => v ^ BigInt(i & 3)), false).results.length), false]);
for (const [t, op, r, target] of rows) {
  const shown = r >= 1e5 ? `${(r / 1e6).toFixed(2).padStart(8)} M/s` : `${r.toFixed(0).padStart(8)} /s `;
  console.log(`  ${t.padEnd(5)} ${op.padEnd(50)} ${shown}${target ? (r >= REF_TARGET ? '  (target 20 M/s: met)' : '  (target 20 M/s: NOT met)') : ''}`);
}
console.log('');
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

// the comparator's last pass and the report writers, on the recorded H200 run (182,579 results)
{
  const { gunzipSync } = await import('node:zlib');
  const { readFileSync } = await import('node:fs');
  const { judgeRun } = await import('../harness/compare/judge-run.js');
  const { loadExpectations, undoJudgement } = await import('../harness/compare/expectations.js');
  const { buildReport } = await import('../harness/report/json.js');
  const { renderHtml } = await import('../harness/report/html.js');
  const { renderJunit } = await import('../harness/report/junit.js');
  const doc = JSON.parse(gunzipSync(readFileSync('reports/baselines/h200-sm_90-gpu-run/report.json.gz')).toString());
  const raw = doc.results.map(undoJudgement);
  const ex = await loadExpectations('cases/expectations/sm_90.yaml', true);
  let t = performance.now();
  const judged = judgeRun(raw, ex.expectations);
  const judgeS = (performance.now() - t) / 1000;
  const { schema: _s, version: _v, counts: _c, rules: _r, catalog, machine: _m, ...rest } = doc;
  const report = buildReport({ ...rest, catalogEntries: catalog.entries, results: judged.results, findings: judged.findings, expectations: { file: null, outcomes: judged.outcomes } });
  t = performance.now();
  const json = JSON.stringify(report);
  const jsonS = (performance.now() - t) / 1000;
  t = performance.now();
  const html = renderHtml(report);
  const htmlS = (performance.now() - t) / 1000;
  t = performance.now();
  const junit = renderJunit(report);
  const junitS = (performance.now() - t) / 1000;
  const mb = (s: string) => (Buffer.byteLength(s) / 1e6).toFixed(1);
  console.log(
    `\ncomparator and reports on the recorded H200 run: ${raw.length} results judged (enrich, explain, expectations, findings) in ${judgeS.toFixed(1)} s ` +
      `(${Math.round(raw.length / judgeS)} results/s; ${judged.findings.length} findings); report.json ${mb(json)} MB in ${jsonS.toFixed(1)} s; ` +
      `report.html ${mb(html)} MB in ${htmlS.toFixed(1)} s; junit.xml ${mb(junit)} MB in ${junitS.toFixed(1)} s`,
  );
}
