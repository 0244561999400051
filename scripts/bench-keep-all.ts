/**
 * `npm run bench:keep-all`: what keeping every result costs, and what an interrupt costs.
 *
 *  1. --keep all: a YAML vector file of N cases (scripts/gen-spelled.ts, default 200,000) run with
 *     `--backend reference`, without --keep and with --keep all (the CLI in a child process, as a
 *     user runs it): both wall times and their ratio (target <= 2x); then the report writing alone,
 *     in this process, over the kept run's results (RunRecorder: the stream, report.json,
 *     report.html, junit.xml, results.jsonl.gz): results per second (target >= 100 k/s).
 *  2. Ctrl-C: a default run (`npm run conformance`: ptxas + reference) sent SIGINT after S seconds
 *     (default 10): the seconds from the signal to the process's exit (target <= 2 s), and the
 *     partial report's size against a whole default run's (target: no larger).
 *
 *   npm run bench:keep-all [-- --cases N] [--after S] [--skip-keep] [--skip-signal]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { RunRecorder } from '../harness/report/recorder.js';
import type { EntryResult } from '../harness/report/types.js';
import { registerAllFamilies } from '../harness/families/index.js';

registerAllFamilies(); // a program of its own: the report's judging asks the registry for the families

const repo = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const num = (name: string, d: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const cases = num('--cases', 200_000);
const after = num('--after', 10);
const tmp = mkdtempSync(join(tmpdir(), 'bench-keep-all-'));
const cli = ['--import', 'tsx', join(repo, 'harness', 'cli', 'main.ts')];

/** Runs the CLI; resolves with its exit code and wall seconds (`onStart` gets the child). */
function runCli(argv: string[], onStart?: (c: ChildProcess) => void): Promise<{ code: number | null; signal: string | null; seconds: number; exitAt: number; stderr: string }> {
  return new Promise((done) => {
    const t0 = performance.now();
    const c = spawn(process.execPath, [...cli, ...argv], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    c.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    onStart?.(c);
    c.on('exit', (code, signal) => {
      const exitAt = performance.now();
      done({ code, signal, seconds: (exitAt - t0) / 1000, exitAt, stderr });
    });
  });
}

const size = (dir: string) => readdirSync(dir).reduce((a, f) => a + statSync(join(dir, f)).size, 0);
const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
const files = (dir: string) =>
  readdirSync(dir)
    .sort()
    .map((f) => `${f} ${mb(statSync(join(dir, f)).size)}`)
    .join(', ');

if (!args.includes('--skip-keep')) {
  const file = join(tmp, 'cases.yaml');
  const g = spawn(process.execPath, ['--import', 'tsx', join(repo, 'scripts', 'gen-spelled.ts'), file, 'flow', String(cases)], { cwd: repo, stdio: 'ignore' });
  await new Promise((r) => g.on('exit', r));
  const plain = await runCli(['--vectors', file, '--backend', 'reference', '--report', join(tmp, 'plain')]);
  const all = await runCli(['--vectors', file, '--backend', 'reference', '--report', join(tmp, 'all'), '--keep', 'all']);
  console.log(`--keep all on ${cases} YAML cases (--backend reference):`);
  console.log(`  without --keep   ${plain.seconds.toFixed(2)} s (exit ${plain.code}), report ${mb(size(join(tmp, 'plain')))}`);
  console.log(`  --keep all       ${all.seconds.toFixed(2)} s (exit ${all.code}), report ${mb(size(join(tmp, 'all')))}`);
  console.log(`  ratio            ${(all.seconds / plain.seconds).toFixed(2)}x (target <= 2x: ${all.seconds <= 2 * plain.seconds ? 'met' : 'NOT met'})`);
  // the report writing alone: the kept run's results through a recorder, as the run writes them
  const lines = gunzipSync(readFileSync(join(tmp, 'all', 'results.jsonl.gz'))).toString('utf8').split('\n').filter(Boolean);
  const meta = JSON.parse(lines[0]!);
  const results = lines.slice(1).map((l) => JSON.parse(l) as EntryResult);
  const times: number[] = [];
  for (let k = 0; k < 2; k++) {
    const dir = join(tmp, `write-${k}`);
    const t0 = performance.now();
    const rec = new RunRecorder(dir, meta, [], null);
    rec.set({ backend: { name: 'reference', reason: 'bench', passedOver: [] }, modulePtx: '9.4' });
    for (let i = 0; i < results.length; i += 4096) rec.add(results.slice(i, i + 4096));
    rec.finish();
    times.push((performance.now() - t0) / 1000);
  }
  const best = Math.min(...times);
  console.log(`  report writing   ${results.length} results in ${times.map((t) => t.toFixed(2)).join(' s, ')} s: ${Math.round(results.length / best / 1000)} k results/s (target >= 100 k/s: ${results.length / best >= 100_000 ? 'met' : 'NOT met'})`);
}

if (!args.includes('--skip-signal')) {
  // a whole default run first (its report the size to compare with; it also warms the verdict cache)
  const whole = await runCli(['--report', join(tmp, 'whole')]);
  let sentAt = 0;
  const cut = await runCli(['--report', join(tmp, 'cut')], (c) => {
    setTimeout(() => {
      sentAt = performance.now();
      c.kill('SIGINT');
    }, after * 1000);
  });
  const gone = existsSync(join(tmp, 'cut'));
  console.log(`Ctrl-C ${after} s into a default run (ptxas + reference):`);
  console.log(`  whole run        ${whole.seconds.toFixed(1)} s (exit ${whole.code}), report ${mb(size(join(tmp, 'whole')))}: ${files(join(tmp, 'whole'))}`);
  console.log(`  SIGINT to exit   ${((cut.exitAt - sentAt) / 1000).toFixed(2)} s (exit ${cut.code ?? cut.signal}; target <= 2 s)`);
  if (gone) {
    const s = size(join(tmp, 'cut'));
    console.log(`  partial report   ${mb(s)}: ${files(join(tmp, 'cut'))} (${s <= size(join(tmp, 'whole')) ? 'no larger than' : 'LARGER than'} the whole run's)`);
  } else console.log('  partial report   none (the folder was removed: nothing recorded)');
  console.log(`  the run said     ${cut.stderr.trim().split('\n').filter((l) => /SIGINT|partial|recorded/.test(l)).join(' | ')}`);
}
rmSync(tmp, { recursive: true, force: true });
