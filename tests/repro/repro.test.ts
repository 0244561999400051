/**
 * `repro`: the standalone reproducer of a contention finding, written from the recorded H100
 * contention run. Its numbers are checked against the report, computed here apart from the
 * generator (an OR of the participants' bits is one value whatever the order); its folder builds
 * with nvcc alone (compile only: no driver here); what it cannot reproduce is refused, exit 2.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runAtRoot } from '../helpers/cli.js';

const REPORT = 'reports/baselines/h100-sm_90-contention/all-report.json.gz';
const dir = mkdtempSync(join(tmpdir(), 'repro-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Group { id: string; reps: number; outcomes: { count: number; memory: string[] }[] }
const groups = (JSON.parse(gunzipSync(readFileSync(join(ROOT, REPORT))).toString('utf8')) as { contention: Group[] }).contention;

/** Addresses of a recorded group whose final memory is not `want` (for ops whose every order gives one value). */
function badAgainst(id: string, want: bigint): { bad: number; total: number } {
  const g = groups.find((x) => x.id === id)!;
  const total = g.outcomes.reduce((s, o) => s + o.count, 0);
  return { bad: g.outcomes.filter((o) => BigInt(o.memory[0]!) !== want).reduce((s, o) => s + o.count, 0), total };
}

const nvcc = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' }).status === 0;
if (!nvcc) console.warn('[skip] repro build: no nvcc on PATH');

describe('repro of a contention group', () => {
  const or64 = 'atom.shared::cluster.or.b64/contend-cluster-bits';
  const out = join(dir, 'or64');
  it('writes the folder: the kernel, the launch and allowed values, the host program, build.sh, a README whose numbers are the report\'s', async () => {
    const r = await runAtRoot(['repro', REPORT, '--case', or64, '--out', out]);
    expect(r.code, r.out).toBe(0);
    for (const f of ['kernel.ptx', 'params.h', 'host.cpp', 'build.sh', 'README.md']) expect(existsSync(join(out, f)), f).toBe(true);
    const params = readFileSync(join(out, 'params.h'), 'utf8');
    // memory 0x0f, participants 0x11, 0x22, 0x44, 0x88: every order ORs to 0xff
    const want = 0x0fn | 0x11n | 0x22n | 0x44n | 0x88n;
    expect(params).toMatch(new RegExp(`ALLOWED\\[1\\] = \\{0x${want.toString(16)}ull\\}`));
    expect(params).toMatch(/N = 4, REPS = 256, LAYOUT = 3, MODE = 0, GRID_X = 4, BLOCK_X = 256, CLUSTER_X = 4/);
    const { bad, total } = badAgainst(or64, want);
    expect(bad).toBeGreaterThan(0);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain(`${bad} of ${total} addresses over 2 launches held a final value no order gives`);
    expect(readme).toMatch(/Two atomic operations \(atom or red\) are performed atomically with respect to each other only if each operation specifies a scope that includes the other/);
    expect(r.out).toContain(`the recorded run: ${bad} of ${total} addresses`);
    expect(readFileSync(join(out, 'kernel.ptx'), 'utf8')).toMatch(/atom\.shared::cluster\.or\.b64/);
  });

  it('a control whose every address is allowed: 0 addresses in its README (the check tells the two apart)', async () => {
    const id = 'atom.shared::cluster.or.b32/contend-cluster-bits';
    const r = await runAtRoot(['repro', REPORT, '--case', id, '--out', join(dir, 'or32')]);
    expect(r.code, r.out).toBe(0);
    const { bad, total } = badAgainst(id, 0x0fn | 0x11n | 0x22n | 0x44n | 0x88n);
    expect(bad).toBe(0);
    expect(readFileSync(join(dir, 'or32', 'README.md'), 'utf8')).toContain(`0 of ${total} addresses over 2 launches`);
  });

  it.skipIf(!nvcc)('builds with nvcc alone; without a driver ./repro says so and exits 2', () => {
    const b = spawnSync('sh', [join(out, 'build.sh')], { encoding: 'utf8', timeout: 120_000 });
    expect(b.status, b.stderr).toBe(0);
    expect(existsSync(join(out, 'kernel.cubin'))).toBe(true);
    const run = spawnSync('./repro', [], { cwd: out, encoding: 'utf8' });
    if (/no CUDA driver/.test(run.stderr)) expect(run.status).toBe(2);
    else expect([0, 1]).toContain(run.status); // a machine with a driver runs it
  }, 180_000);

  it('--finding KEY takes the finding\'s contention group', async () => {
    const r = await runAtRoot(['repro', REPORT, '--finding', 'F6', '--out', join(dir, 'f6')]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/repro: atom\.shared::cluster\.or\.b64(\(_\))?\/contend-cluster-bits/);
  });

  it('refuses what it cannot reproduce, and bad input, with exit 2 and what to do', async () => {
    const nonEmpty = join(dir, 'full');
    await runAtRoot(['repro', REPORT, '--case', or64, '--out', nonEmpty]);
    const cases: [string[], RegExp][] = [
      [['repro', REPORT, '--out', join(dir, 'x1')], /needs --finding KEY or --case ID/],
      [['repro', REPORT, '--case', or64], /needs --out DIR/],
      [['repro', REPORT, '--case', or64, '--out', nonEmpty], /not empty/],
      [['repro', REPORT, '--finding', 'F999', '--out', join(dir, 'x2')], /no such finding/],
      [['repro', REPORT, '--case', 'atom.global.add.f32/gen:1', '--out', join(dir, 'x3')], /not a contention group/],
      [['repro', REPORT, '--case', 'atom.global.nope.b64/contend-cluster-bits', '--out', join(dir, 'x4')], /not a contention group of this report/],
      [['repro', join(dir, 'missing.json'), '--case', or64, '--out', join(dir, 'x5')], /cannot read it/],
    ];
    writeFileSync(join(dir, 'placeholder'), '');
    for (const [args, msg] of cases) {
      const r = await runAtRoot(args);
      expect([r.code, r.out], args.join(' ')).toEqual([2, expect.stringMatching(msg)]);
      expect(r.out).not.toMatch(/\n\s+at /); // no stack trace
    }
  });
});
