/**
 * `npm run bench:keep-all`: what keeping every result costs, and what an interrupt costs.
 *
 *  1. --keep all: a YAML vector file of N cases (scripts/gen-spelled.ts, default 200,000) run with
 *     `--backend reference`, without --keep and with --keep all (the CLI in a child process, as a
 *     user runs it): both wall times and their ratio (target <= 2x); then the report writing alone:
 *     the same run in this process (main()), the recorder's add (the stream) and finish (report.json,
 *     report.html, junit.xml, results.jsonl.gz) timed: results per second (target >= 100 k/s).
 *  2. Ctrl-C: a default run (`npm run conformance`: ptxas + reference) sent SIGINT after S seconds
 *     (default 10): the seconds from the signal to the process's exit (target <= 2 s), and the
 *     partial report's size against a whole default run's (target: no larger).
 *
 *   npm run bench:keep-all [-- --cases N] [--spelling S] [--after S] [--skip-keep] [--skip-signal]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunRecorder } from '../harness/report/recorder.js';
import type { EntryResult } from '../harness/report/types.js';
import { registerAllFamilies } from '../harness/families/index.js';
import { main } from '../harness/cli/main.js';

registerAllFamilies(); // a program of its own: the report's judging asks the registry for the families

const repo = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const num = (name: string, d: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const cases = num('--cases', 200_000);
const after = num('--after', 10);
// the file's spelling (scripts/vector-spellings.ts, or testfloat: TestFloat f16 adds)
const spelling = args.includes('--spelling') ? args[args.indexOf('--spelling') + 1]! : 'flow';
const tmp = mkdtempSync(join(tmpdir(), 'bench-keep-all-'));
const cli = ['--import', 'tsx', join(repo, 'harness', 'cli', 'main.ts')];

/** Runs the CLI; resolves with its exit code and wall seconds (`onStart` gets the child). */
function runCli(
  argv: string[],
  onStart?: (c: ChildProcess) => void,
): Promise<{ code: number | null; signal: string | null; seconds: number; exitAt: number; stderr: string }> {
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
  const g = spawn(process.execPath, ['--import', 'tsx', join(repo, 'scripts', 'gen-spelled.ts'), file, spelling, String(cases)], {
    cwd: repo,
    stdio: 'ignore',
  });
  await new Promise((r) => g.on('exit', r));
  // three of each, taken in turn (the machine's noise falls on both alike); the medians compared
  const plainRuns: Awaited<ReturnType<typeof runCli>>[] = [];
  const allRuns: Awaited<ReturnType<typeof runCli>>[] = [];
  for (let k = 0; k < 3; k++) {
    rmSync(join(tmp, 'plain'), { recursive: true, force: true });
    rmSync(join(tmp, 'all'), { recursive: true, force: true });
    plainRuns.push(await runCli(['--vectors', file, '--backend', 'reference', '--report', join(tmp, 'plain')]));
    allRuns.push(await runCli(['--vectors', file, '--backend', 'reference', '--report', join(tmp, 'all'), '--keep', 'all']));
  }
  const median = (rs: { seconds: number }[]) => rs.map((r) => r.seconds).sort((a, b) => a - b)[1]!;
  const plain = { seconds: median(plainRuns), code: plainRuns.map((r) => r.code).join('/') };
  const all = { seconds: median(allRuns), code: allRuns.map((r) => r.code).join('/') };
  const each = (rs: { seconds: number }[]) => rs.map((r) => r.seconds.toFixed(2)).join(', ');
  console.log(`--keep all on ${cases} YAML cases, spelled ${spelling} (--backend reference; median of 3, taken in turn):`);
  console.log(`  without --keep   ${plain.seconds.toFixed(2)} s (${each(plainRuns)}; exit ${plain.code}), report ${mb(size(join(tmp, 'plain')))}`);
  console.log(`  --keep all       ${all.seconds.toFixed(2)} s (${each(allRuns)}; exit ${all.code}), report ${mb(size(join(tmp, 'all')))}`);
  console.log(`  ratio            ${(all.seconds / plain.seconds).toFixed(2)}x (target <= 2x: ${all.seconds <= 2 * plain.seconds ? 'met' : 'NOT met'})`);
  // the report writing alone, as the run does it: the same --keep all run in this process, the
  // recorder's add (the stream) and finish (report.json, html, junit, gzip) timed
  const spent = { add: 0, finish: 0, results: 0 };
  const proto = RunRecorder.prototype as unknown as {
    add: (rs: readonly EntryResult[]) => void;
    finishAsync: () => Promise<{ report: { results: unknown[] } }>;
  };
  const add = proto.add;
  const finish = proto.finishAsync;
  proto.add = function (this: RunRecorder, rs) {
    const t = performance.now();
    add.call(this, rs);
    spent.add += performance.now() - t;
  };
  proto.finishAsync = async function (this: RunRecorder) {
    const t = performance.now();
    const w = await finish.call(this);
    spent.finish += performance.now() - t;
    spent.results += w.report.results.length;
    return w;
  };
  const quiet = { out: () => {}, err: () => {}, isTTY: false };
  for (let k = 0; k < 2; k++) {
    spent.add = spent.finish = spent.results = 0;
    await main(['--vectors', file, '--backend', 'reference', '--keep', 'all', '--report', join(tmp, `in-process-${k}`)], quiet);
    const sec = (spent.add + spent.finish) / 1000;
    console.log(
      `  report writing   ${spent.results} results in ${sec.toFixed(2)} s (stream ${(spent.add / 1000).toFixed(2)} s, report files and gzip ${(spent.finish / 1000).toFixed(2)} s): ${Math.round(spent.results / sec / 1000)} k results/s (target >= 100 k/s: ${spent.results / sec >= 100_000 ? 'met' : 'NOT met'})`,
    );
  }
  proto.add = add;
  proto.finishAsync = finish;
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
  if (gone && /after the report was written/.test(cut.stderr)) {
    // the signal came while the finished run wrote its report: the report is whole, not partial
    console.log(
      `  report           ${mb(size(join(tmp, 'cut')))}: ${files(join(tmp, 'cut'))} (the run had finished its judging: its whole report, completed at the signal)`,
    );
  } else if (gone) {
    const s = size(join(tmp, 'cut'));
    console.log(
      `  partial report   ${mb(s)}: ${files(join(tmp, 'cut'))} (${s <= size(join(tmp, 'whole')) ? 'no larger than' : 'LARGER than'} the whole run's)`,
    );
  } else console.log('  partial report   none (the folder was removed: nothing recorded)');
  console.log(
    `  the run said     ${cut.stderr
      .trim()
      .split('\n')
      .filter((l) => /SIGINT|partial|recorded/.test(l))
      .join(' | ')}`,
  );
}
rmSync(tmp, { recursive: true, force: true });
