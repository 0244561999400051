/**
 * `npm run bench:matrix [-- PTXAS_A PTXAS_B]`: the toolchain matrix's cost. Runs the sm_90 ptxas
 * catalog (`--backend ptxas --no-cases`) under ptxas A alone, then the matrix of A and B, then A
 * alone again (the two single runs bracket the matrix, so a load that comes and goes shows), each a
 * whole CLI run from start to exit, and prints the seconds and the ratio matrix / single (issue 24's
 * target: <= 2). Defaults: A the ptxas found on PATH, B Debian's 11.8 at $PTXAS_118 or
 * /tmp/ct118/x/usr/bin/ptxas (docs/testing.md says how to unpack it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const which = (c: string) => spawnSync('sh', ['-c', `command -v ${c}`], { encoding: 'utf8' }).stdout.trim();
const a = process.argv[2] ?? which('ptxas');
const b = process.argv[3] ?? process.env.PTXAS_118 ?? '/tmp/ct118/x/usr/bin/ptxas';
for (const p of [a, b])
  if (!p || !existsSync(p)) {
    console.error(`bench-matrix: no ptxas at '${p}'; give two: npm run bench:matrix -- PTXAS_A PTXAS_B`);
    process.exit(2);
  }
const dir = mkdtempSync(join(tmpdir(), 'bench-matrix-'));
const cli = ['--import', 'tsx', join(import.meta.dirname, '..', 'harness', 'cli', 'main.ts')];
function run(name: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...cli, '--backend', 'ptxas', '--no-cases', '--keep-runs', '0', '--report', join(dir, name), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) {
    console.error(`bench-matrix: ${name} exited ${r.status}:\n${(r.stderr ?? '').split('\n').slice(-15).join('\n')}`);
    process.exit(1);
  }
  const lines = (r.stderr + r.stdout).split('\n').filter((l) => /entries classified, |^ptxas: \d+ entries classified/.test(l));
  console.log(`${name.padEnd(8)} ${s.toFixed(1).padStart(6)} s   ${lines.join(' | ')}`);
  return s;
}
console.log(
  `sm_90 ptxas catalog (--backend ptxas --no-cases), whole CLI runs; A = ${a} (${execFileSync(a, ['--version'], { encoding: 'utf8' }).match(/V[\d.]+/)?.[0]}), B = ${b} (${execFileSync(b, ['--version'], { encoding: 'utf8' }).match(/V[\d.]+/)?.[0]})`,
);
const s1 = run('single-1', ['--ptxas', a]);
const m = run('matrix', ['--ptxas', a, '--ptxas', b]);
const s2 = run('single-2', ['--ptxas', a]);
const single = (s1 + s2) / 2;
console.log(
  `ratio matrix / single: ${(m / single).toFixed(2)} (matrix ${m.toFixed(1)} s, single ${single.toFixed(1)} s, the mean of the two); target <= 2: ${m / single <= 2 ? 'met' : 'NOT met'}`,
);
rmSync(dir, { recursive: true, force: true });
