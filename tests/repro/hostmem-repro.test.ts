/**
 * The hand-written host-memory reproducer (reports/findings/hostmem-sys-not-atomic/): it compiles
 * with nvcc alone (compile only: no driver here), and its README states what the recorded H100 run
 * printed, round by round summed again.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const DIR = join(ROOT, 'reports/findings/hostmem-sys-not-atomic');
const out = mkdtempSync(join(tmpdir(), 'hostmem-repro-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const nvcc = spawnSync('nvcc', ['--version'], { encoding: 'utf8' });

describe('the host-memory reproducer', () => {
  it.skipIf(nvcc.status !== 0)(
    'compiles with nvcc alone (skipped where there is no nvcc)',
    () => {
      const r = spawnSync('nvcc', ['-arch=sm_90', '-O2', '-std=c++17', '-o', join(out, 'repro'), join(DIR, 'repro.cu')], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    },
    120_000,
  );

  it('the README says what the recorded run printed: every round summed again', () => {
    const run = readFileSync(join(DIR, 'h100-run.txt'), 'utf8');
    const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
    const rounds = [...run.matchAll(/GPU adds seen (\d+) of (\d+), CPU adds seen (\d+) of (\d+)/g)].map((m) => m.slice(1).map(Number));
    expect(rounds).toHaveLength(10);
    const lostGpu = rounds.reduce((t, [g, eg]) => t + eg! - g!, 0);
    const lostCpu = rounds.reduce((t, [, , c, ec]) => t + ec! - c!, 0);
    const line = `REPRODUCED: ${rounds.filter(([g, eg, c, ec]) => g !== eg || c !== ec).length} of 10 rounds lost updates (GPU ${lostGpu}, CPU ${lostCpu})`;
    expect(run).toContain(line);
    expect(readme).toContain(line);
    expect(readme).toContain(`${lostCpu.toLocaleString('en-US')} of 163,840`);
    expect(run).toMatch(/^exit 1$/m);
    expect(readFileSync(join(DIR, 'h100-sass.txt'), 'utf8')).toMatch(/REDG\.E\.ADD\.64\.STRONG\.SYS/);
  });
});
