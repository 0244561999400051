/**
 * The fallback experiments of the `.shared::cluster` finding:
 * reports/findings/shared-cluster-atomicity/fallback/. Compiles the folder with nvcc (compile only; no
 * driver here), checks that its README's result lines are run 1 of the recorded H100 run and that the
 * ptxas 11.8 line is the recorded one, and checks the README's explanation against the run apart from
 * the program: f16x2 adds on the issuing CTA's own memory as HADD2, on another CTA's as a 32-bit
 * integer add (the LD/ST path's IMAD.IADD), step by step.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const DIR = join(ROOT, 'reports/findings/shared-cluster-atomicity/fallback');
const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
const run = readFileSync(join(DIR, 'h100-run.txt'), 'utf8');
const run118 = readFileSync(join(DIR, 'h100-run-ptxas-11.8.txt'), 'utf8');

/** The `result` lines between two `## ` headings of a run file (run 1: the first section). */
function section(text: string, heading: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.startsWith('## ')) break;
    if (l.startsWith('result ')) out.push(l);
  }
  return out;
}
const run1 = section(run, '## kernel.cubin (nvcc/ptxas 13.0), run 1');
const field = (line: string, key: string): string => new RegExp(` ${key}=([^ ]+)`).exec(line)![1]!;
const resultOf = (name: string): string => run1.find((l) => l.startsWith(`result ${name}:`))!;
const retOf = (name: string): string => run.split('\n').find((l) => l.startsWith(`ret ${name}:`))!;

// f16 on the host: bits to value and value to bits (round to nearest even), enough for these sums
function h2f(h: number): number {
  const s = h >> 15 ? -1 : 1,
    e = (h >> 10) & 31,
    m = h & 1023;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
function f2h(x: number): number {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === 0) return sign;
  const rne = (v: number) => {
    const f = Math.floor(v),
      r = v - f;
    return r > 0.5 || (r === 0.5 && f % 2 === 1) ? f + 1 : f;
  };
  let e = Math.floor(Math.log2(a));
  if (e < -14) return sign | rne(a / 2 ** -24); // subnormal (rounding up into the first normal is fine: same bits)
  let m = rne((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e++;
  }
  if (e > 15) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | m;
}
const hadd2 = (x: number, b: number): number => ((f2h(h2f(x >>> 16) + h2f(b >>> 16)) << 16) | f2h(h2f(x & 0xffff) + h2f(b & 0xffff))) >>> 0;
const iadd = (x: number, b: number): number => (x + b) >>> 0;
const hex32 = (v: number): string => `0x${v.toString(16).padStart(8, '0')}`;

/** The model: rank 0 adds on its own memory (HADD2, the ATOMS loop), other ranks on rank 0's (integer add, LD/ST). */
function serial(ranks: number[], rounds: number, init: number, b: number): { final: number; ret: Map<number, number> } {
  let x = init;
  const ret = new Map<number, number>();
  for (let k = 0; k < rounds; k++)
    for (const r of ranks) {
      ret.set(r, x);
      x = r === 0 ? hadd2(x, b) : iadd(x, b);
    }
  return { final: x, ret };
}

describe('fallback experiments: the README against the recorded H100 run', () => {
  it('run 1 has all 35 experiments, each with an untouched canary; the README quotes its result lines exactly', () => {
    expect(run1).toHaveLength(35);
    for (const l of run1) expect(field(l, 'canary-changed'), l).toBe('0');
    const quoted = readme.split('\n').filter((l) => l.startsWith('result '));
    expect(quoted).toEqual(run1);
  });

  it('the ptxas 11.8 traps the README names are the recorded ones', () => {
    const line = run118.split('\n').find((l) => l.startsWith('## experiments whose process ended with a CUDA error:'))!;
    expect(line).toBeDefined();
    expect(readme).toContain(line);
    expect(run118).toContain('Access to 0x500 in CTA 0 is not located in executing CTA');
    expect(readme).toContain('Access to 0x500 in CTA 0 is not located in executing CTA');
  });

  it("f16x2/bf16x2 to another CTA: a 32-bit integer add lands in the target CTA, the issuer's own word untouched", () => {
    const one = 0x3c003c00;
    for (const r of [1, 2, 3]) {
      const l = resultOf(`f16x2.solo.r${r}-to-r0`);
      expect(field(l, 'r0')).toBe(hex32(iadd(one, one))); // 0x78007800, not 0x40004000
      expect(field(l, `r${r}`)).toBe(hex32(one));
    }
    expect(field(resultOf('f16x2.solo.r1-to-r2'), 'r2')).toBe(hex32(iadd(one, one)));
    expect(field(resultOf('f16x2.solo.r1-to-r0.4-in-a-row'), 'r0')).toBe(hex32((one * 5) >>> 0));
    expect(field(resultOf('f16x2.solo.r1-to-r0.operands-2048'), 'r0')).toBe(hex32(iadd(0x68006800, 0xe800e800)));
    expect(field(resultOf('bf16x2.solo.r1-to-r0'), 'r0')).toBe(hex32(iadd(0x3f803f80, 0x3f803f80)));
    for (const n of ['red.f16x2.solo.r1-to-r0', 'generic.f16x2.solo.r1-to-r0', 'f16x2.solo.r1-to-r0.offset+4'])
      expect(field(resultOf(n), 'r0'), n).toBe(hex32(iadd(one, one)));
    // on the issuer's own memory: the f16 sum
    expect(field(resultOf('f16x2.solo.r0-to-r0'), 'r0')).toBe(hex32(hadd2(one, one)));
    expect(field(resultOf('f16x2.solo.r1-to-r1'), 'r1')).toBe(hex32(hadd2(one, one)));
    expect(field(resultOf('f16x2.solo.r1-own-cta-address'), 'r1')).toBe(hex32(hadd2(one, one)));
  });

  it('sixteen (and eighteen) +1.0 one at a time: the model gives the final word and every returned value', () => {
    const b = 0x3c003c00;
    const s16 = serial([0, 1, 2, 3], 4, 0, b);
    expect(field(resultOf('f16x2.serial16.all-ranks'), 'r0')).toBe(hex32(s16.final));
    expect(hex32(s16.final)).toBe('0xa3e1a3e0');
    const ret16 = retOf('f16x2.serial16.all-ranks');
    for (const [r, v] of s16.ret) expect(field(ret16, `r${r}`)).toBe(hex32(v));
    const s18 = serial([1, 2, 3], 6, 0, b);
    expect(field(resultOf('f16x2.serial18.ranks-1-3'), 'r0')).toBe(hex32(s18.final));
    const ret18 = retOf('f16x2.serial18.ranks-1-3');
    for (const [r, v] of s18.ret) expect(field(ret18, `r${r}`)).toBe(hex32(v));
    // +inf: 2.0 (two correct adds) plus one integer add of 1.0
    expect(hex32(iadd(hadd2(hadd2(0, b), b), b))).toBe('0x7c007c00');
    expect(field(resultOf('f16x2.contended16.all-ranks'), 'r0')).toContain('0x7c007c00');
  });

  it('controls atomic in every cluster; 64-bit or from other CTAs in none', () => {
    for (const n of [
      'add.u64.contended256.all-ranks',
      'or.b32.contended32.all-ranks',
      'cas-loop.f16x2.contended16.all-ranks',
      'cas-loop.b64.or.contended64.all-ranks',
      'or.b64.contended16.r0-only',
      'or.b64.contended32.self',
      'f16x2.contended16.r0-only',
    ])
      expect(field(resultOf(n), 'atomic-in'), n).toBe('64/64');
    for (const n of ['or.b64.contended64.all-ranks', 'or.b64.contended48.ranks-1-3', 'or.b64.contended16.r1-only', 'red.or.b64.contended64.all-ranks'])
      expect(field(resultOf(n), 'atomic-in'), n).toBe('0/64');
  });
});

const nvcc = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' }).status === 0;
if (!nvcc) console.warn('[skip] fallback build: no nvcc on PATH');
const tmp = mkdtempSync(join(tmpdir(), 'fallback-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!nvcc)('fallback experiments: the folder builds with nvcc alone', () => {
  it('build.sh compiles kernels.cu to an sm_90 cubin and the host program', () => {
    const d = join(tmp, 'fallback');
    cpSync(DIR, d, { recursive: true, filter: (p) => !/(kernel[^/]*\.cubin|experiments|\.sass|\.ptx)$/.test(p) || p.endsWith('.cu') });
    const r = spawnSync('sh', ['build.sh'], {
      cwd: d,
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: (process.env.PATH ?? '')
          .split(':')
          .filter((x) => !x.includes('cuobjdump'))
          .join(':'),
      },
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(d, 'kernel.cubin'))).toBe(true);
    expect(existsSync(join(d, 'experiments'))).toBe(true);
    const list = spawnSync(join(d, 'experiments'), ['--list'], { encoding: 'utf8' });
    expect(list.stdout.trim().split('\n')).toEqual(run1.map((l) => /^result ([^:]+):/.exec(l)![1]));
  }, 60_000);
});
