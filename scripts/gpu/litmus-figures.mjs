// The figures of issue 26's targets from the reports of scripts/gpu/litmus-bench.sh (plain node, no
// dependencies, so the bundle's node runs it on the GPU host). Usage: node litmus-figures.mjs OUTDIR
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const load = (n) => (existsSync(join(dir, n, 'report.json')) ? JSON.parse(readFileSync(join(dir, n, 'report.json'), 'utf8')) : undefined);
const line = (name, value, ok) => console.log(`${name.padEnd(64)} ${value}  ${ok === undefined ? '' : ok ? 'met' : 'NOT met'}`);
const suite = load('suite');
if (suite) {
  const ran = suite.results.filter((r) => r.gpu && !r.mutant);
  const min = Math.min(...ran.map((r) => r.gpu.instances));
  line('suite: tests run (corpus + peer tests; target >= 300)', ran.length, ran.length >= 300);
  line('suite: fewest instances of a test run (target >= 1,000,000)', min, min >= 1e6);
  line('suite: seconds in the run, compile included (target <= 300)', suite.run.seconds.toFixed(1), suite.run.seconds <= 300);
  const forb = ran.filter((r) => r.gpu.forbiddenSeen > 0);
  const unexplained = forb.filter((r) => r.status === 'failed');
  line('suite: tests with a forbidden outcome seen (all / unexplained)', `${forb.length} / ${unexplained.length}`, unexplained.length === 0);
  for (const r of forb) console.log(`    ${r.file}: ${r.gpu.forbiddenSeen} of ${r.gpu.instances}${r.status === 'failed' ? ' UNEXPLAINED' : ` (known deviation: ${(r.known ?? []).map((k) => `${k.finding.split('/').pop()} ${k.count}`).join(', ') || 'explained'})`}`);
  const two = ran.filter((r) => r.gpu.keys && /^MP\+/.test(r.file.split('/').pop()) && !/cluster|cta/.test(r.file));
  const best = Math.max(...two.map((r) => r.gpu.instancesPerSecond));
  line('two-thread MP tests: best instances per second (target >= 10 M/s)', `${(best / 1e6).toFixed(0)} M/s`, best >= 1e7);
  const skipped = suite.results.filter((r) => r.status === 'skipped');
  const why = {};
  for (const r of skipped) {
    const k = (r.reason ?? '').replace(/^P\d+ line \d+: /, '').replace(/'[^']*'/g, "'...'").replace(/location \S+/, 'location').slice(0, 90);
    why[k] = (why[k] ?? 0) + 1;
  }
  console.log(`suite: ${skipped.length} skipped, by reason:`);
  for (const [k, n] of Object.entries(why).sort((a, b) => b[1] - a[1])) console.log(`    ${String(n).padStart(4)}  ${k}`);
}
const search = load('search');
if (search?.run?.mutation) {
  // recomputed from the results by the current rule (report.ts scoreOf): a mutant of a test that itself
  // showed a forbidden outcome (known deviation or failure) is not scored
  const shows = new Set(search.results.filter((r) => !r.mutant && r.gpu && (r.status === 'known-deviation' || r.status === 'failed' || r.gpu.forbiddenSeen > 0)).map((r) => r.file));
  const ms = search.results.filter((r) => r.mutant && r.gpu);
  const scored = ms.filter((r) => !shows.has(r.mutant.of));
  const per = {};
  for (const r of scored) {
    per[r.mutant.cls] ??= { killed: 0, mutants: 0 };
    per[r.mutant.cls].mutants++;
    if (r.mutant.weak > 0) per[r.mutant.cls].killed++;
  }
  const all = { killed: scored.filter((r) => r.mutant.weak > 0).length, mutants: scored.length };
  for (const [cls, c] of [...Object.entries(per), ['all', all]]) line(`mutation score ${cls} (target >= 85 % over all; a class < 50 % needs a why)`, `${c.killed}/${c.mutants} = ${((100 * c.killed) / (c.mutants || 1)).toFixed(1)} %`, cls === 'all' ? c.killed / c.mutants >= 0.85 : undefined);
  console.log(`    not scored: ${ms.length - scored.length} mutant(s) of tests that showed a forbidden outcome themselves`);
  const unexplained = ms.filter((r) => r.gpu.forbiddenSeen > 0 && !shows.has(r.mutant.of));
  line('mutants with a forbidden outcome seen, not of a deviating test', unexplained.length, unexplained.length === 0);
}
const st = load('self-test');
if (st) {
  const r = st.results.find((x) => x.gpu);
  line('self-test: planted forbidden outcome flagged (count of instances)', r ? `${r.gpu.forbiddenSeen} of ${r.gpu.instances}` : 'no result', !!r && r.gpu.forbiddenSeen > 0);
}
