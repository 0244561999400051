/**
 * `npm run bench:start`: how long the CLI takes to start and answer, run as a user runs it (a child
 * process, wall clock). Each command runs a few times with cold caches (a fresh TMPDIR, which holds
 * tsx's transform cache, a fresh --cache-dir and a fresh bundle of scripts/conformance.cjs) and a few times warm (shared ones, after a first
 * run), and the median wall-clock seconds print next to the target (<= 0.5 s for a one-variant --list, issue 43).
 *
 *   npm run bench:start [-- --runs N] [-- --repo DIR]   (DIR: another checkout to time, e.g. an older commit)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launcher } from './launcher.js';

const { values } = parseArgs({ options: { runs: { type: 'string' }, repo: { type: 'string' } } });
const RUNS = Number(values.runs ?? 5);
const repo = resolve(values.repo ?? join(import.meta.dirname, '..'));
const TARGET_S = 0.5; // issue 43: `--list --filter atom.global.add.f32` <= 0.5 s
const FILTER = 'atom.global.add.f32';

interface Bench {
  name: string;
  cmd: string[];
  /** Compared with the target. */
  target?: number;
}

const scratch = mkdtempSync(join(tmpdir(), 'bench-start-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const benches: Bench[] = [
  { name: `npm run conformance -- --list --filter ${FILTER}`, cmd: [npm, 'run', '-s', 'conformance', '--', '--list', '--filter', FILTER], target: TARGET_S },
  {
    name: `node ${launcher(repo).join(' ')} --list --filter ${FILTER}`,
    cmd: [process.execPath, ...launcher(repo), '--list', '--filter', FILTER],
    target: TARGET_S,
  },
  {
    name: `node --import tsx harness/cli/main.ts --list --filter ${FILTER}`,
    cmd: [process.execPath, '--import', 'tsx', 'harness/cli/main.ts', '--list', '--filter', FILTER],
    target: TARGET_S,
  },
  { name: 'npm run conformance -- --list (whole catalog)', cmd: [npm, 'run', '-s', 'conformance', '--', '--list'] },
  {
    name: `npm run conformance -- --backend reference --filter ${FILTER} --report <tmp> --overwrite`,
    cmd: [npm, 'run', '-s', 'conformance', '--', '--backend', 'reference', '--filter', FILTER, '--report', join(scratch, 'report'), '--overwrite'],
  },
];

function once(b: Bench, env: NodeJS.ProcessEnv): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(b.cmd[0]!, b.cmd.slice(1), { cwd: repo, env, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  if (r.status !== 0 && !(r.status === 1 && b.name.includes('--backend'))) {
    throw new Error(`${b.name}: exit ${r.status ?? r.signal}\n${r.stderr?.toString().slice(-2000)}`);
  }
  return s;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function fresh(): NodeJS.ProcessEnv {
  const d = mkdtempSync(join(scratch, 'cold-'));
  // TMPDIR: tsx keeps its transform cache under os.tmpdir(); XDG_CACHE_HOME: the default --cache-dir;
  // PTXCONF_BUNDLE_DIR: scripts/conformance.cjs's bundle, built again
  return { ...process.env, TMPDIR: d, XDG_CACHE_HOME: join(d, 'cache'), PTXCONF_BUNDLE_DIR: join(d, 'bundle'), NO_COLOR: '1' };
}

const warmEnv = fresh();
console.log(`bench:start in ${repo}: median wall-clock seconds of ${RUNS} runs each (${process.platform}, node ${process.version})`);
console.log(`${'command'.padEnd(92)} ${'cold'.padStart(7)} ${'warm'.padStart(7)}  target`);
let failed = false;
try {
  for (const b of benches) {
    const cold = Array.from({ length: RUNS }, () => once(b, fresh()));
    once(b, warmEnv);
    const warm = Array.from({ length: RUNS }, () => once(b, warmEnv));
    const [c, w] = [median(cold), median(warm)];
    const verdict =
      b.target === undefined ? '' : `<= ${b.target} s: ${w <= b.target ? 'met' : 'MISSED'} (warm)${c <= b.target ? '' : `, cold ${c.toFixed(2)} s over`}`;
    if (b.target !== undefined && w > b.target) failed = true;
    console.log(`${b.name.padEnd(92)} ${c.toFixed(2).padStart(7)} ${w.toFixed(2).padStart(7)}  ${verdict}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
