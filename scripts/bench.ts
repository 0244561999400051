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
import { familyIds } from '../harness/registry/index.js';

import { BF16, E4M3, E5M2, F16, F32, F64, INT_FORMATS } from '../harness/numerics/formats.js';
import { addInt32, addOnce, fastAdder, fastMinMax, intOp } from '../harness/numerics/ops.js';
import { reductionSet } from '../harness/numerics/reduce.js';
import { registerAllFamilies } from '../harness/families/index.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

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
rows.push([
  'f64',
  'add (exact BigInt path)',
  rate((i) => Number(addOnce(F64, (BigInt(i) * 0x9e3779b97f4a7c15n) & 0x7fefffffffffffffn, 0x3ff0000000000000n + BigInt(i), false).bits & 1n)),
  false,
]);
rows.push([
  'u64',
  'add (BigInt)',
  rate((i) => Number(intOp('add', INT_FORMATS.u64, (BigInt(i) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn, 12345n) & 1n)),
  false,
]);
rows.push(['b128', 'cas (BigInt)', rate((i) => Number(intOp('cas', INT_FORMATS.b128, BigInt(i), BigInt(i & 1), 5n) & 1n)), false]);
const eight = [0x3c00n, 0x1000n, 0x1001n, 0x9000n, 0x1000n, 0x2000n, 0x0001n, 0x1000n];
rows.push([
  'f16',
  'ld_reduce set over 8 replicas (all 135135 trees)',
  rate(
    (i) =>
      reductionSet(
        'add',
        F16,
        F16,
        eight.map((v) => v ^ BigInt(i & 3)),
        false,
      ).results.length,
  ),
  false,
]);
for (const [t, op, r, target] of rows) {
  const shown = r >= 1e5 ? `${(r / 1e6).toFixed(2).padStart(8)} M/s` : `${r.toFixed(0).padStart(8)} /s `;
  console.log(`  ${t.padEnd(5)} ${op.padEnd(50)} ${shown}${target ? (r >= REF_TARGET ? '  (target 20 M/s: met)' : '  (target 20 M/s: NOT met)') : ''}`);
}
console.log('');
// fast judge, one core: harness/reference/fast.ts on 2^20-case batches whose observed slots are the
// model's result (8192 distinct cases tiled; uniform random bits, so a few NaN cases are flagged).
// Every checker runs once before any is timed, so shared call sites are as polymorphic as in a worker.
{
  const { parseInstruction } = await import('../harness/catalog/parse.js');
  const { elementFormat, joinLanes } = await import('../harness/numerics/formats.js');
  const { reference } = await import('../harness/reference/model.js');
  const { fastChecker } = await import('../harness/reference/fast.js');
  const PER_CORE = 3.2e6; // 50 M judged cases/s over 16 cores
  const N = 1 << 20;
  const DISTINCT = 1 << 13;
  let s = 0x9e3779b9;
  const rnd = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
  const bitsOf = (w: number) => Array.from({ length: Math.ceil(w / 32) }, rnd).reduce((a, x) => (a << 32n) | BigInt(x), 0n) & ((1n << BigInt(w)) - 1n);
  const CASES: [string, string][] = [
    ['f32 add (global, returns)', 'atom.global.add.f32'],
    ['u32 add (global, returns)', 'atom.global.add.u32'],
    ['f16x2 add (red.global)', 'red.global.add.noftz.f16x2'],
    ['v4.f16x2 min (global vector, returns)', 'atom.global.v4.min.noftz.f16x2'],
    ['v8.f16 min (global vector, returns)', 'atom.global.v8.min.noftz.f16'],
    ['f64 add (red.global)', 'red.global.add.f64'],
    ['u64 cas (b64, global, returns)', 'atom.global.cas.b64'],
    ['b128 exch (global, returns)', 'atom.global.exch.b128'],
    ['bulk f32 add (4 per slot)', 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32'],
  ];
  const runs = CASES.map(([label, ptx]) => {
    const p = parseInstruction(ptx);
    const v = { family: p.family.id, q: p.q };
    const fmt = elementFormat(p.q.type!);
    const bulk = p.family.id === 'cp.reduce.async.bulk';
    const elements = bulk ? 128 / fmt.bits : p.q.vec ? Number(p.q.vec.slice(1)) : 1;
    const returns = p.family.id === 'atom' && (p.q.d ?? '') !== '_';
    const bufs = [0, 1, 2, 3, 4].map(() => new Uint32Array(4 * N));
    const dvs = bufs.map((u) => new DataView(u.buffer));
    const put = (dv: DataView, slot: number, k: number, x: bigint) => {
      const off = slot * 16 + (k * fmt.bits) / 8;
      if (fmt.bits === 16) dv.setUint16(off, Number(x), true);
      else if (fmt.bits === 32) dv.setUint32(off, Number(x), true);
      else if (fmt.bits === 64) dv.setBigUint64(off, x, true);
      else dv.setBigUint64(off, x & 0xffffffffffffffffn, true), dv.setBigUint64(off + 8, x >> 64n, true);
    };
    for (let i = 0; i < DISTINCT; i++) {
      const mem = Array.from({ length: elements }, () => bitsOf(fmt.bits));
      const b = mem.map((x) => (p.q.op === 'cas' && rnd() & 1 ? x : bitsOf(fmt.bits)));
      const c = mem.map(() => bitsOf(fmt.bits));
      const ref = reference(v, { memory: mem, ...(bulk ? { source: b } : { b }), c, space: 'global' });
      ref.memory!.forEach((lanes, k) => {
        put(dvs[0]!, i, k, mem[k]!);
        put(dvs[1]!, i, k, b[k]!);
        put(dvs[2]!, i, k, c[k]!);
        put(
          dvs[3]!,
          i,
          k,
          joinLanes(
            fmt,
            lanes.map((a) => a.bits[0] ?? BigInt(fmt.lane.kind === 'float' ? fmt.lane.canonicalNaN : 0)),
          ),
        );
        put(dvs[4]!, i, k, mem[k]!);
      });
    }
    for (const u of bufs) for (let off = 4 * DISTINCT; off < 4 * N; off += 4 * DISTINCT) u.copyWithin(off, 0, 4 * DISTINCT);
    const batch = { mem: bufs[0]!, b: bufs[1]!, c: bufs[2]!, memOut: bufs[3]!, ...(returns ? { ret: bufs[4]! } : {}), n: N };
    const check = fastChecker(v, elements, 'global', returns);
    return { label, ptx, batch, check, flags: new Uint8Array(N) };
  });
  for (const r of runs) r.check?.(r.batch, r.flags);
  console.log(
    `fast judge, one core (harness/reference/fast.ts, 2^20-case batches; target 50 M/s over 16 cores = ${(PER_CORE / 1e6).toFixed(1)} M/s per core):`,
  );
  for (const r of runs) {
    if (!r.check) {
      console.log(`  ${r.label.padEnd(40)} no fast path`);
      continue;
    }
    let reps = 0;
    let flagged = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    while (performance.now() - t0 < 400) {
      flagged = r.check(r.batch, r.flags);
      reps++;
    }
    const wall = (performance.now() - t0) / 1000;
    const used = process.cpuUsage(c0);
    // per CPU-second of this process (a shared machine's other load does not count), and per wall second
    const perS = (reps * N) / ((used.user + used.system) / 1e6);
    const perWall = (reps * N) / wall;
    console.log(
      `  ${r.label.padEnd(40)} ${(perS / 1e6).toFixed(2).padStart(8)} M cases/s per core (wall ${(perWall / 1e6).toFixed(2)} M/s; flagged ${((100 * flagged) / N).toFixed(2)}%)  (target ${(PER_CORE / 1e6).toFixed(1)} M/s: ${perS >= PER_CORE ? 'met' : 'NOT met'})`,
    );
  }
  console.log('');
}
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
  const rows = familyIds().map((f) => {
    const es = entries.filter((e) => e.family === f);
    const n = (k: string, x?: string) => es.filter((e) => e.kind === k && (!x || e.expect === x)).length;
    return [f, n('variant', 'accept'), n('variant', 'either'), n('variant', 'reject'), n('neighbour'), n('isa-neighbour'), es.length];
  });
  console.log(
    ['family', 'valid', 'ambiguous', 'unsupported', 'neighbours', 'isa-neighbours', 'total'].map((h, i) => (i ? h.padStart(16) : h.padEnd(30))).join(''),
  );
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
  const report = buildReport({
    ...rest,
    catalogEntries: catalog.entries,
    results: judged.results,
    findings: judged.findings,
    expectations: { file: null, outcomes: judged.outcomes },
  });
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
