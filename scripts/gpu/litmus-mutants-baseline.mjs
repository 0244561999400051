// Compacts a `litmus --backend gpu --search-stress` (or --mutants) report into the recorded
// baseline of its mutants: reports/baselines/h100-sm_90-litmus/mutants.json.gz.
// Usage: node scripts/gpu/litmus-mutants-baseline.mjs REPORT.json [OUT.json.gz] [NOTE]
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const [src, out = 'reports/baselines/h100-sm_90-litmus/mutants.json.gz', note = ''] = process.argv.slice(2);
const r = JSON.parse(readFileSync(src, 'utf8'));
const mutants = r.results
  .filter((x) => x.mutant)
  .map((x) => ({ of: x.mutant.of, name: x.mutant.name, cls: x.mutant.cls, change: x.mutant.change, weak: x.mutant.weak, status: x.status, stress: x.stress, keys: x.gpu?.keys, ...(x.gpu?.keyBits ? { keyBits: x.gpu.keyBits } : {}), instances: x.gpu?.instances, other: x.gpu?.other, forbiddenSeen: x.gpu?.forbiddenSeen, ...(x.stressAlso ? { stressAlso: x.stressAlso } : {}), mps: x.gpu ? Math.round(x.gpu.instancesPerSecond / 1e6) : undefined, rows: x.gpu?.histogram.filter((h) => h.count).map((h) => [h.values.join(','), h.count]) }));
const tests = r.results.filter((x) => x.gpu && !x.mutant);
writeFileSync(out, gzipSync(JSON.stringify({ device: r.run.device, command: r.command.join(' '), note, seconds: r.run.seconds, counts: r.counts, tests: tests.length, testInstances: tests.reduce((s, x) => s + x.gpu.instances, 0), mutation: { perClass: r.run.mutation.perClass, all: r.run.mutation.all, ...(r.run.mutation.notScored ? { notScored: r.run.mutation.notScored } : {}) }, testStatus: Object.fromEntries(tests.map((x) => [x.file, x.status])), mutants })));
console.log(`${out}: ${mutants.length} mutants`);
