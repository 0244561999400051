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

interface Group {
  id: string;
  reps: number;
  outcomes: { count: number; memory: string[] }[];
}
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
  it("writes the folder: the kernel, the launch and allowed values, the host program, build.sh, a README whose numbers are the report's", async () => {
    const r = await runAtRoot(['repro', REPORT, '--case', or64, '--out', out]);
    expect(r.code, r.out).toBe(0);
    for (const f of ['kernel.ptx', 'params.h', 'host.cpp', 'build.sh', 'README.md']) expect(existsSync(join(out, f)), f).toBe(true);
    const params = readFileSync(join(out, 'params.h'), 'utf8');
    // memory 0x0f, participants 0x11, 0x22, 0x44, 0x88: every order ORs to 0xff
    const want = 0x0fn | 0x11n | 0x22n | 0x44n | 0x88n;
    expect(params).toMatch(new RegExp(`LANES_ALLOWED\\[1\\] = \\{0x${want.toString(16)}ull\\}`));
    expect(params).toMatch(/N = 4, REPS = 256, LAYOUT = 3, MODE = 0, GRID_X = 4, BLOCK_X = 256, CLUSTER_X = 4/);
    const { bad, total } = badAgainst(or64, want);
    expect(bad).toBeGreaterThan(0);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain(`${bad} of ${total} addresses over 2 launches held a final value no order gives`);
    expect(readme).toMatch(
      /Two atomic operations \(atom or red\) are performed atomically with respect to each other only if each operation specifies a scope that includes the other/,
    );
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

  it.skipIf(!nvcc)(
    'builds with nvcc alone; without a driver ./repro says so and exits 2',
    () => {
      const b = spawnSync('sh', [join(out, 'build.sh')], { encoding: 'utf8', timeout: 120_000 });
      expect(b.status, b.stderr).toBe(0);
      expect(existsSync(join(out, 'kernel.cubin'))).toBe(true);
      const run = spawnSync('./repro', [], { cwd: out, encoding: 'utf8' });
      if (/no CUDA driver/.test(run.stderr)) expect(run.status).toBe(2);
      else expect([0, 1]).toContain(run.status); // a machine with a driver runs it
    },
    180_000,
  );

  it("--finding KEY takes the finding's contention group", async () => {
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
      [['repro', REPORT, '--case', 'atom.global.add.f32/gen:1', '--out', join(dir, 'x3')], /no result with this id/],
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

describe('repro of a single-thread case (the bulk .add.f32 subnormals of the recorded H200 run)', () => {
  const GPU = 'reports/baselines/h200-sm_90-gpu-run/report.json.gz';
  const id =
    'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32/probe:cp.reduce.async.bulk.global.shared__cta.bulk_group.add.f32-smallest-subnormal-doubled';
  // memory 1, 0x7fffff, 0x800000, max; source 1, 1, -0x1, max: the 9.1 text flushes subnormal inputs and results
  it('under 9.1: the flushed sums are what is allowed, and the recorded kept ones are outside; under 9.4 every lane is allowed', async () => {
    const r91 = await runAtRoot(['repro', GPU, '--case', id, '--out', join(dir, 'bulk91')]);
    expect(r91.code, r91.out).toBe(0);
    const p = readFileSync(join(dir, 'bulk91', 'params.h'), 'utf8');
    expect(p).toContain('static const char* EDITION = "9.1";');
    // flushed: 0 + 0 = +0; 0 + 0 = +0; 0x800000 + (-0) = 0x800000; max + max = +inf
    expect(p).toMatch(/MEM_LANES_ALLOWED\[4\] = \{0x0ull, 0x0ull, 0x800000ull, 0x7f800000ull\}/);
    expect(r91.out).toContain('the recorded run: 3 lane(s) outside the allowed set under PTX ISA 9.1');
    const readme = readFileSync(join(dir, 'bulk91', 'README.md'), 'utf8');
    expect(readme).toContain('- memory after: 0x00000002, 0x00800000, 0x007fffff, 0x7f800000');
    expect(readme).toMatch(/flushes subnormal inputs and results to sign-preserving zero/);
    const r94 = await runAtRoot(['repro', GPU, '--case', id, '--out', join(dir, 'bulk94'), '--spec-edition', '9.4']);
    expect(r94.out).toContain('the recorded run: every lane allowed under PTX ISA 9.4');
  });
  it.skipIf(!nvcc)(
    'builds with nvcc alone',
    () => {
      const b = spawnSync('sh', [join(dir, 'bulk91', 'build.sh')], { encoding: 'utf8', timeout: 120_000 });
      expect(b.status, b.stderr).toBe(0);
      expect(existsSync(join(dir, 'bulk91', 'repro'))).toBe(true);
    },
    180_000,
  );
  it('refuses a case without observed bits and a multicast launch, exit 2', async () => {
    const ref = await runAtRoot(['repro', GPU, '--case', 'atom.global.nope/probe:x', '--out', join(dir, 'y1')]);
    expect([ref.code, ref.out]).toEqual([2, expect.stringMatching(/no result with this id/)]);
    const NEW = 'reports/baselines/h100-sm_90-new-families/default-gpu-run-report.json.gz';
    // tensor maps and clusters are written now (tests/repro/repro-kinds.test.ts); multicast is refused
    const mm = await runAtRoot(['repro', NEW, '--case', 'multimem.ld_reduce.min.u32', '--out', join(dir, 'y2')]);
    expect([mm.code, mm.out]).toEqual([2, expect.stringMatching(/needs? a multicast object|multicast object bound to several GPUs/)]);
  });
});

describe('the committed reproducers (reports/findings/)', () => {
  it('are what repro writes today from the command in their README, file by file', async () => {
    const { readdirSync } = await import('node:fs');
    const root = join(ROOT, 'reports/findings');
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) =>
        readdirSync(join(root, d.name), { withFileTypes: true })
          .filter((x) => x.isDirectory())
          .map((x) => join(root, d.name, x.name)),
      );
    expect(folders.length).toBeGreaterThanOrEqual(30);
    for (const f of folders) {
      const readme = existsSync(join(f, 'README.md')) ? readFileSync(join(f, 'README.md'), 'utf8') : '';
      // folders repro did not write (a hand-written investigation beside the reproducers) are not compared
      if (!readme.includes('Written by: `npm run conformance -- repro')) continue;
      const m = /Written by: `npm run conformance -- repro (\S+) --case '([^']+)'(?: --spec-edition (\S+))?(?: --pairs (\d+))? --out DIR`/.exec(readme);
      expect(m, f).not.toBeNull();
      const out = join(dir, 'again', f.slice(root.length + 1).replace(/\//g, '__'));
      const r = await runAtRoot([
        'repro',
        m![1]!,
        '--case',
        m![2]!,
        ...(m![3] ? ['--spec-edition', m![3]] : []),
        ...(m![4] ? ['--pairs', m![4]] : []),
        '--out',
        out,
      ]);
      expect(r.code, r.out).toBe(0);
      for (const name of readdirSync(out)) expect(readFileSync(join(f, name), 'utf8'), `${f}/${name}`).toBe(readFileSync(join(out, name), 'utf8'));
      const tracked = readdirSync(f).filter((x) => !['kernel.cubin', 'repro', 'build.log'].includes(x));
      expect(tracked.sort(), f).toEqual(readdirSync(out).sort());
    }
  }, 300_000);
});

describe('repro of a toolchain finding (a catalog entry ptxas answered otherwise than the text)', () => {
  const B = 'reports/baselines/ptxas-13.0-catalog/sm_100a-red-async-report.json.gz';
  const id = 'red.async.release.gpu.global.min.u32';
  const out = join(dir, 'ptxas-min');
  const fake = (name: string, body: string) => {
    const f = join(dir, name);
    writeFileSync(f, `#!/bin/sh\n[ "$1" = --version ] && { echo "fake ptxas ${name}"; exit 0; }\n${body}\n`, { mode: 0o755 });
    return f;
  };
  it('writes entry.ptx (the line as the ptxas backend checked it) and check.sh, which tells accept, reject and a crash apart', async () => {
    const r = await runAtRoot(['repro', B, '--case', id, '--out', out]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('the recorded run: ptxas accepted where the text says reject');
    expect(readFileSync(join(out, 'entry.ptx'), 'utf8')).toMatch(/\.target sm_100a[\s\S]*red\.async\.release\.gpu\.global\.min\.u32 \[/);
    const check = (ptxas: string) => spawnSync('sh', [join(out, 'check.sh')], { encoding: 'utf8', env: { ...process.env, PTXAS: ptxas } });
    const accepts = check(fake('accepts', 'exit 0'));
    expect([accepts.status, accepts.stdout]).toEqual([
      1,
      expect.stringMatching(/REPRODUCED: ptxas answers accept \(exit 0\) at PTX ISA 9\.0, where the PTX ISA text says reject/),
    ]);
    const rejects = check(fake('rejects', 'echo "error: Illegal"; exit 255'));
    expect([rejects.status, rejects.stdout]).toEqual([0, expect.stringMatching(/NOT REPRODUCED: ptxas answers reject \(exit 255\) at PTX ISA 9\.0/)]);
    const crashes = check(fake('crashes', 'kill -SEGV $$'));
    expect([crashes.status, crashes.stdout]).toEqual([1, expect.stringMatching(/REPRODUCED: ptxas answers crashed \(exit 139\)/)]);
    const unknown = check(fake('old', `echo "ptxas fatal   : Value 'sm_100a' is not defined for option 'gpu-name'"; exit 255`));
    expect([unknown.status, unknown.stdout]).toEqual([2, expect.stringMatching(/CANNOT CHECK: this ptxas does not know \.target sm_100a or PTX ISA 9\.0/)]);
    expect(readFileSync(join(out, 'entry-min.ptx'), 'utf8')).toMatch(/^\.version 8\.7$/m);
    const none = check(join(dir, 'no-such-ptxas'));
    expect(none.status).toBe(2);
  });
});
