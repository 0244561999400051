/**
 * `npm run bench:shard`: the default run (`npm run conformance`, ptxas + reference here) as a whole
 * and as N shards (default 3) run one after another, then `merge`; prints each shard's wall time
 * and work (balance), and whether the merged report equals the whole run's in every verdict count,
 * counted entry and case, finding and expectation outcome (issue 13's acceptance figure).
 *
 *   npm run bench:shard [-- --shards N] [-- --filter F]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadReport } from '../harness/report/load.js';
import type { RunReport } from '../harness/report/json.js';
import { registerAllFamilies } from '../harness/families/index.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

const { values } = parseArgs({ options: { shards: { type: 'string' }, filter: { type: 'string' } } });
const N = Number(values.shards ?? 3);
const extra = values.filter ? ['--filter', values.filter] : [];
const repo = join(import.meta.dirname, '..');
const tmp = mkdtempSync(join(tmpdir(), 'bench-shard-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function conformance(args: string[]): { code: number | null; seconds: number; err: string } {
  const t = performance.now();
  const r = spawnSync(npm, ['run', '-s', 'conformance', '--', ...args], { cwd: repo, encoding: 'utf8', maxBuffer: 256 << 20 });
  return { code: r.status, seconds: (performance.now() - t) / 1000, err: r.stderr ?? '' };
}

try {
  const whole = conformance([...extra, '--report', join(tmp, 'whole')]);
  console.log(`whole run: exit ${whole.code}, ${whole.seconds.toFixed(1)} s`);
  const files: string[] = [];
  for (let k = 0; k < N; k++) {
    const s = conformance([...extra, '--shard', `${k}/${N}`, '--report', join(tmp, `s${k}`)]);
    const part = /catalog: .*\(shard \d+\/\d+: (\d+) of (\d+)\)/.exec(s.err);
    const cases = /cases on the reference model: (\d+)/.exec(s.err);
    console.log(
      `shard ${k}/${N}: exit ${s.code}, ${s.seconds.toFixed(1)} s, ${part?.[1] ?? '?'} of ${part?.[2] ?? '?'} catalog entries, ${cases?.[1] ?? '?'} cases`,
    );
    files.push(join(tmp, `s${k}`, 'report.json'));
  }
  const m = conformance(['merge', ...files, '--report', join(tmp, 'merged')]);
  console.log(`merge: exit ${m.code} (whole run: ${whole.code}), ${m.seconds.toFixed(1)} s`);
  const [a, b] = await Promise.all([loadReport(join(tmp, 'whole', 'report.json')), loadReport(join(tmp, 'merged', 'report.json'))]);
  const counted = (r: RunReport) =>
    JSON.stringify(
      Object.entries(r.stats)
        .filter(([k, v]) => /^(entries|total|dropped)\./.test(k) && v > 0)
        .sort(),
    );
  const outcomes = (r: RunReport) => JSON.stringify(r.expectations.outcomes.map(({ id, status, matched, ran }) => ({ id, status, matched, ran })));
  const checks: [string, boolean][] = [
    ['verdict counts (by family, by kind, total)', JSON.stringify(a.counts) === JSON.stringify(b.counts)],
    ['entries and cases counted, not kept whole', counted(a) === counted(b)],
    ['findings (verdict, subject, count, examples)', JSON.stringify(a.findings) === JSON.stringify(b.findings)],
    ['expectation outcomes', outcomes(a) === outcomes(b)],
    [
      'results kept, in order, with verdicts',
      JSON.stringify(a.results.map((r) => [r.id, r.verdict])) === JSON.stringify(b.results.map((r) => [r.id, r.verdict])),
    ],
    ['exit code', whole.code === m.code],
  ];
  for (const [what, ok] of checks) console.log(`  ${ok ? 'equal    ' : 'DIFFERENT'} ${what}`);
  console.log(`merged from ${N} shards equals the whole run in every verdict count: ${checks.every(([, ok]) => ok) ? 'met' : 'NOT met'}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
