/**
 * `npm run bench:report-size`: what a default run writes (issue 13: at most 20 MB in all unless
 * asked for more). Runs `npm run conformance` exactly as a user does (the richest backend this
 * machine has, default options), finds the folder it wrote from its `report:` line, and prints each
 * file's size, the total against the target, and the results kept against those counted.
 *
 *   npm run bench:report-size [-- OPTIONS...]   (options for the run, e.g. --keep all, to compare)
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

const extra = process.argv.slice(2);
const TARGET_MB = 20;
const repo = join(import.meta.dirname, '..');
const t0 = performance.now();
const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '-s', 'conformance', '--', ...extra], {
  cwd: repo,
  encoding: 'utf8',
  maxBuffer: 256 << 20,
});
const seconds = (performance.now() - t0) / 1000;
const line = /^report: (.+)$/m.exec(r.stdout ?? '');
if (!line) {
  process.stderr.write(`the run wrote no report (exit ${r.status}):\n${(r.stderr ?? '').slice(-2000)}\n`);
  process.exit(1);
}
const dir = dirname(line[1]!.trim());
const mb = (n: number) => (n / 1e6).toFixed(2);
let total = 0;
console.log(`npm run conformance ${extra.join(' ')} (exit ${r.status}, ${seconds.toFixed(1)} s) wrote ${dir}:`);
for (const f of readdirSync(dir).sort()) {
  const n = statSync(join(dir, f)).size;
  total += n;
  console.log(`  ${f.padEnd(20)} ${mb(n).padStart(7)} MB`);
}
const doc = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { results: unknown[]; stats: Record<string, number> };
const counted = Object.entries(doc.stats)
  .filter(([k]) => /^(entries|total)\./.test(k))
  .reduce((a, [, v]) => a + v, 0);
const verdict = extra.length ? '(the target is for a default run)' : `target <= ${TARGET_MB} MB: ${total <= TARGET_MB * 1e6 ? 'met' : 'NOT met'}`;
console.log(`  ${'in all'.padEnd(20)} ${mb(total).padStart(7)} MB   ${verdict}`);
console.log(`results kept whole: ${doc.results.length}; counted (entries and cases): ${counted}`);
