/**
 * `npm run bench:default-run`: the default `npm run conformance` on this machine (the CPU: ptxas +
 * reference when ptxas is here), as a user runs it (a child process, wall clock), first with an
 * empty --cache-dir (no ptxas verdict cached: every entry asked, each crash one call) and then
 * again with the same one (warm: ptxas asked nothing it answered). Prints each run's wall and CPU
 * seconds (the run and every ptxas it started, by /usr/bin/time where it is), the run's own ptxas line (entries,
 * calls, crashes, seconds) and the targets, met or NOT met,
 * with the load average, since a busy machine slows every figure. Targets: issue 43 (<= 20 s empty, <= 6 s warm; issue 28 had 45 and 15).
 *
 *   npm run bench:default-run [-- --runs-warm N] [-- --repo DIR]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launcher } from './launcher.js';

const { values } = parseArgs({ options: { 'runs-warm': { type: 'string' }, repo: { type: 'string' } } });
const WARM_RUNS = Number(values['runs-warm'] ?? 1);
if (!Number.isInteger(WARM_RUNS) || WARM_RUNS < 1) {
  console.error(`--runs-warm takes a count >= 1, got '${values['runs-warm']}'`);
  process.exit(2);
}
const repo = resolve(values.repo ?? join(import.meta.dirname, '..'));
const TARGET_EMPTY_S = 20;
const TARGET_WARM_S = 6;

const scratch = mkdtempSync(join(tmpdir(), 'bench-default-run-'));
const cacheDir = join(scratch, 'cache');

function run(label: string): number {
  // what `npm run conformance` runs (scripts/conformance.cjs: the bundle of the harness), without npm's own 0.3 s
  const report = join(scratch, label.replace(/ /g, '-'));
  const cmd = [process.execPath, ...launcher(repo), '--cache-dir', cacheDir, '--report', report];
  // /usr/bin/time, where it is, adds the CPU seconds of the run and every ptxas it started
  const timed = existsSync('/usr/bin/time') ? ['/usr/bin/time', '-f', 'cpu-seconds %U %S', ...cmd] : cmd;
  const t = process.hrtime.bigint();
  const r = spawnSync(timed[0]!, timed.slice(1), { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 256 << 20 });
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  const err = r.stderr.toString();
  const cpu = /cpu-seconds ([\d.]+) ([\d.]+)/.exec(err);
  // 1 is a run with findings; a run that wrote no report (node's own exit 1 included) is no measurement
  const wrote = existsSync(join(report, 'report.json'));
  if ((r.status !== 0 && r.status !== 1) || !wrote) {
    console.error(err.slice(-2000));
    throw new Error(`the run exited with ${r.status}${wrote ? '' : ', no report written'}`);
  }
  const line = (re: RegExp) =>
    err
      .split('\n')
      .find((l) => re.test(l))
      ?.trim() ?? '(no such line)';
  const cpuText = cpu ? `, ${(Number(cpu[1]) + Number(cpu[2])).toFixed(1)} s CPU (user ${cpu[1]}, system ${cpu[2]})` : '';
  console.log(
    `${label.padEnd(14)} ${s.toFixed(1).padStart(6)} s wall${cpuText}; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log(`  ${line(/^backend:/).slice(0, 110)}`);
  console.log(`  ${line(/^ptxas: \d+ entries classified/)}`);
  // the case library: all in the case child, or shared with the run's thread once ptxas was done
  const shared = err.split('\n').find((l) => /judged by the case child/.test(l));
  console.log(`  ${shared?.trim() ?? 'cases: every case judged by the case child (none left to share when ptxas was done)'}`);
  return s;
}

try {
  const empty = run('empty cache');
  const warm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) warm.push(run(`warm cache${WARM_RUNS > 1 ? ` ${i + 1}` : ''}`));
  const w = [...warm].sort((a, b) => a - b)[Math.floor(warm.length / 2)]!;
  console.log(`\ndefault run, empty cache: ${empty.toFixed(1)} s (target <= ${TARGET_EMPTY_S} s: ${empty <= TARGET_EMPTY_S ? 'met' : 'NOT met'})`);
  console.log(
    `default run, warm cache:  ${w.toFixed(1)} s${warm.length > 1 ? ' (median)' : ''} (target <= ${TARGET_WARM_S} s: ${w <= TARGET_WARM_S ? 'met' : 'NOT met'})`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
