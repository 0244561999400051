// Compacts a `litmus --backend gpu` report into a recorded histogram baseline (as
// reports/baselines/h100-sm_90-litmus/histograms-*.json.gz): per test its keys, instances, stress,
// status, known deviations and the non-zero histogram rows with the verdict the run gave them.
// Usage: node scripts/gpu/litmus-histograms-baseline.mjs REPORT.json OUT.json.gz [COMMAND-NOTE]
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const [src, out, note = ''] = process.argv.slice(2);
const r = JSON.parse(readFileSync(src, 'utf8'));
const tests = r.results
  .filter((x) => x.gpu && !x.mutant)
  .map((x) => ({ file: x.file, keys: x.gpu.keys, ...(x.gpu.keyBits ? { keyBits: x.gpu.keyBits } : {}), instances: x.gpu.instances, mps: Math.round(x.gpu.instancesPerSecond / 1e6), status: x.status, ...(x.known ? { known: x.known } : {}), stress: x.stress, ...(x.stressAlso ? { stressAlso: x.stressAlso } : {}), other: x.gpu.other, forbiddenSeen: x.gpu.forbiddenSeen, rows: x.gpu.histogram.map((h) => [h.values.join(','), h.count, h.allowed ? 'allowed' : h.why ?? 'forbidden']) }));
const skipped = r.results.filter((x) => !x.gpu && !x.mutant).map((x) => [x.file, x.reason ?? x.status]);
writeFileSync(out, gzipSync(JSON.stringify({ device: r.run.device, command: note || r.command.join(' '), seconds: r.run.seconds, stress: r.run.stress, seed: r.run.seed, toolchain: r.run.replay?.toolchain, counts: r.counts, tests, skipped })));
console.log(`${out}: ${tests.length} tests, ${skipped.length} not run`);
