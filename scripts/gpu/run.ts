/**
 * The whole GPU pipeline, run on the GPU host from a bundle (scripts/gpu/pack.mjs): every sm_90
 * atom/red variant of gpuPlans() in one cubin compiled beforehand, each launched once over its
 * directed probes and generated cases, every case judged by the reference model on the spot, and a
 * compact report written: counts per family and verdict, every mismatch with its bits, groups of
 * observations, and a seeded sample of observations for CPU replay.
 * Usage: node run.mjs CUBIN OUT.json [GENERATED_PER_VARIANT] [SEED] [all|reps|bulk]
 * (reps: only the representative variants of the directed library, e.g. with 10000 generated each)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { generateCases, representativeVariants } from '../../cases/generators/cases.js';
import { familyById } from '../../harness/families/index.js';
import { directedCases } from '../../cases/generators/directed.js';
import type { CaseVariant } from '../../harness/cases/types.js';
import { loadLauncher, probeDevices } from '../../harness/backends/gpu/driver.js';
import { BLOCK, SLOT } from '../../harness/backends/gpu/emit.js';
import { readSlot, writeSlot } from '../../harness/backends/gpu/slots.js';
import { judge } from '../../harness/backends/gpu/observations.js';
import { gpuPlans } from '../../harness/backends/gpu/plan.js';
import type { ReferenceCase } from '../../harness/reference/model.js';

const [cubinPath, outPath, perVariantArg, seedArg, modeArg] = process.argv.slice(2);
const MODE = modeArg === 'reps' || modeArg === 'bulk' || modeArg === 'bulk-global' || modeArg === 'bulk-cluster' ? modeArg : 'all';
const GENERATED = Number(perVariantArg ?? 48);
const SEED = Number(seedArg ?? 20261121);
const started = Date.now();

const loaded = loadLauncher();
if (!('launcher' in loaded)) {
  console.log(`skipped: ${loaded.reason}`);
  process.exit(0);
}
const l = loaded.launcher;
if (!l.status().driver) {
  console.log(`skipped: ${l.status().reason}`);
  process.exit(0);
}
const info = probeDevices(l);
const dev = info.devices[0]!;
if (dev.sm < 90) {
  console.log(`skipped: ${dev.name} is sm_${dev.sm}; these kernels are sm_90`);
  process.exit(0);
}
console.log(JSON.stringify(info));
l.useDevice(0);
const mod = l.loadModule(readFileSync(cubinPath!));
const all = gpuPlans();
const repIds = new Set(['atom', 'red'].flatMap((f) => representativeVariants(familyById(f)!).map((v) => v.id)));
const isBulk = (p: (typeof all.plans)[number]) => p.entry.family === 'cp.reduce.async.bulk';
const plans =
  MODE === 'reps' ? all.plans.filter((p) => repIds.has(p.entry.id))
  : MODE === 'bulk' ? all.plans.filter(isBulk)
  : MODE === 'bulk-global' ? all.plans.filter((p) => isBulk(p) && p.entry.q.dst === 'global')
  : MODE === 'bulk-cluster' ? all.plans.filter((p) => isBulk(p) && p.entry.q.dst === 'shared::cluster')
  : all.plans;
const skipped = all.skipped;

const counts: Record<string, Record<string, number>> = {};
const unspecifiedGroups: Record<string, number> = {};
const mismatches: unknown[] = [];
const errors: unknown[] = [];
const sample: unknown[] = [];
const hex = (bits: number, v: bigint) => `0x${v.toString(16).padStart(bits / 4, '0')}`;
let total = 0;

for (const [pi, plan] of plans.entries()) {
  const e = plan.entry;
  const v: CaseVariant = { family: e.family, q: e.q, ptx: e.ptx, id: e.id };
  const directed = directedCases(v).map((c) => ({
    id: `${v.id}/probe:${c.name}`,
    name: c.name,
    input: ((): ReferenceCase => {
      const big = (xs: unknown) => (xs as string[]).map((x) => BigInt(x));
      const ops = c.fields.operands as { b?: string[]; c?: string[] } | undefined;
      return {
        memory: big(c.fields.memory),
        ...(ops?.b ? { b: big(ops.b) } : {}),
        ...(ops?.c ? { c: big(ops.c) } : {}),
        ...(c.fields.source ? { source: big(c.fields.source) } : {}),
      };
    })(),
  }));
  const gen = [1, 2, 3].flatMap((level) => generateCases(v, SEED, level as 1 | 2 | 3, level === 3 ? GENERATED : 8).map((c) => ({ id: c.id, name: '', input: c.input })));
  const cases = [...directed, ...gen];
  const n = cases.length;
  const mem = Buffer.alloc(n * SLOT);
  const b = Buffer.alloc(n * SLOT);
  const c = Buffer.alloc(n * SLOT);
  cases.forEach((x, i) => {
    writeSlot(mem, i, plan.width, x.input.memory!);
    writeSlot(b, i, plan.width, (x.input.b ?? x.input.source)!);
    if (x.input.c) writeSlot(c, i, plan.width, x.input.c);
  });
  const out = Buffer.alloc(n * SLOT, 0xa5);
  const fam = (counts[e.family] ??= {});
  try {
    const [dm, db, dc, dout] = [l.memAlloc(n * SLOT), l.memAlloc(n * SLOT), l.memAlloc(n * SLOT), l.memAlloc(n * SLOT)];
    l.copyToDevice(dm, mem);
    l.copyToDevice(db, b);
    l.copyToDevice(dc, c);
    l.copyToDevice(dout, out);
    // shared::cluster destinations need a cluster launch: clusters of 2 CTAs (each uses its own shared memory)
    const clustered = e.family === 'cp.reduce.async.bulk' && e.q.dst === 'shared::cluster';
    const blocks = Math.ceil(n / BLOCK);
    l.launch(l.getFunction(mod, plan.name), [clustered ? blocks + (blocks % 2) : blocks, 1, 1], [Math.min(n, BLOCK), 1, 1], 0, clustered ? [2, 1, 1] : [1, 1, 1], [dm, db, dc, dout, BigInt(n)]);
    l.synchronize();
    l.copyFromDevice(mem, dm);
    l.copyFromDevice(out, dout);
    for (const p of [dm, db, dc, dout]) l.memFree(p);
  } catch (err) {
    fam.error = (fam.error ?? 0) + n;
    errors.push({ variant: v.id, kernel: plan.name, error: err instanceof Error ? err.message : String(err) });
    console.log(`error: ${v.id}: ${err instanceof Error ? err.message : String(err)}`);
    if (/ILLEGAL|MISALIGNED|LAUNCH_FAILED|TRAP/.test(String(err))) break; // the context is poisoned: stop, report
    continue;
  }
  const returns = e.family === 'atom' && (e.q.d ?? '') !== '_';
  cases.forEach((x, i) => {
    const observed = { memory: [readSlot(mem, i, plan.width, plan.lanes)].flat(), ...(returns ? { returned: readSlot(out, i, plan.width, plan.lanes) } : {}) };
    const verdict = judge(x.id, { family: e.family, q: e.q }, x.input, observed);
    fam[verdict.verdict] = (fam[verdict.verdict] ?? 0) + 1;
    total++;
    for (const u of verdict.unspecified) if (verdict.verdict === 'observed') unspecifiedGroups[u] = (unspecifiedGroups[u] ?? 0) + 1;
    const record = {
      id: x.id,
      variant: v.id,
      input: {
        memory: x.input.memory!.map((y) => hex(plan.width, y)),
        ...(x.input.b ? { b: x.input.b.map((y) => hex(plan.width, y)) } : {}),
        ...(x.input.c ? { c: x.input.c.map((y) => hex(plan.width, y)) } : {}),
        ...(x.input.source ? { source: x.input.source.map((y) => hex(plan.width, y)) } : {}),
      },
      observed: { memory: observed.memory.map((y) => hex(plan.width, y)), ...(observed.returned ? { returned: observed.returned.map((y) => hex(plan.width, y)) } : {}) },
    };
    if (verdict.verdict === 'mismatch') {
      if (mismatches.length < 5000) mismatches.push({ ...record, reason: verdict.reason });
    } else if (x.name && (e.q.sem ?? '') === '' && (e.q.scope ?? '') === '' && (e.q.hint ?? '') === '' && (e.q.d ?? '') === '') sample.push(record);
    else if ((pi * 7919 + i) % (MODE === 'reps' ? 40009 : 4099) === 0) sample.push(record);
  });
  if (pi % 1000 === 0) console.log(`${pi}/${plans.length} variants, ${total} cases, ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
try {
  l.unloadModule(mod);
} catch (err) {
  errors.push({ variant: '(module unload)', error: err instanceof Error ? err.message : String(err) });
}
const doc = {
  schema: 'ptx-reduction-conformance/gpu-run',
  version: 1,
  startedAt: new Date(started).toISOString(),
  elapsedMs: Date.now() - started,
  driverVersion: info.driverVersion,
  devices: info.devices,
  arch: 'sm_90',
  seed: SEED,
  generatedPerVariant: { level1: 8, level2: 8, level3: GENERATED },
  mode: MODE,
  variants: plans.length,
  cases: total,
  skipped: skipped.map((s) => ({ variant: s.entry.id, reason: s.reason })),
  counts,
  unspecifiedGroups,
  errors,
  mismatches,
  sample,
};
writeFileSync(outPath!, `${JSON.stringify(doc)}\n`);
console.log(`done: ${plans.length} variants, ${total} cases in ${((Date.now() - started) / 1000).toFixed(0)} s; ${JSON.stringify(counts)}; mismatches ${mismatches.length}, errors ${errors.length}, sample ${sample.length}`);
