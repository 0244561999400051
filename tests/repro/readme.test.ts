/**
 * What a reproducer folder says of itself: the command printed names the script that was written
 * (check.sh for a toolchain finding, build.sh for a GPU one), the README names the GPU the run was on
 * (not the host's CPU), always has a SASS section, and lists every exit code the program gives.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordedGpu, sassLines } from '../../harness/repro/common.js';
import { runAtRoot } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'repro-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('repro of a toolchain finding (--finding)', () => {
  it('says to run check.sh, which it wrote, and no build.sh', async () => {
    const out = join(dir, 'ptxas');
    const r = await runAtRoot(['repro', 'reports/baselines/ptxas-13.0-catalog/sm_100a-red-async-report.json.gz', '--finding', 'F1', '--out', out]);
    expect(r.code, r.out).toBe(0);
    const files = readdirSync(out);
    expect(files).toContain('check.sh');
    expect(files).not.toContain('build.sh');
    expect(r.out).toMatch(/check it with ptxas alone \(no GPU needed; PTXAS=path picks another\): sh .*\/check\.sh$/m);
    expect(r.out).not.toMatch(/build\.sh/);
  });
});

describe('repro of a .shared::cluster contention group', () => {
  it('README: the GPU by name (the host apart), a SASS section, exit codes 0, 1 and 2', async () => {
    const out = join(dir, 'cluster');
    const r = await runAtRoot([
      'repro',
      'reports/baselines/h100-sm_90-contention/all-report.json.gz',
      '--case',
      'atom.shared::cluster.or.b64/contend-cluster-bits',
      '--out',
      out,
    ]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/sh .*\/build\.sh && \(cd .* && \.\/repro\)$/m);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toMatch(/^GPU of the recorded run: NVIDIA H100 80GB HBM3 \(compute capability 9\.0, 132 SMs, CUDA driver API 13\.0\); host Intel/m);
    expect(readme).toMatch(/^SASS: not in the report .* `cuobjdump -sass kernel\.cubin/m);
    expect(readme).toMatch(/REPRODUCED \(exit 1\) or NOT REPRODUCED \(exit 0\); exit 2: no CUDA driver/);
  });
  it('the pieces: no GPU in the report is said so, never the CPU in its place; recorded SASS is shown whole', () => {
    expect(recordedGpu({ machine: { cpu: 'Intel(R) Xeon(R)', osRelease: '6.18' } })).toBe('GPU not recorded in the report; host Intel(R) Xeon(R), 6.18');
    expect(sassLines('ATOM.E.OR.64.STRONG.GPU P0, R8, [R10], R2').join('\n')).toContain('```\nATOM.E.OR.64.STRONG.GPU P0, R8, [R10], R2\n```');
  });
});
