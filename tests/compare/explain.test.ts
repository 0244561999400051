/**
 * Mismatch explanation: each alternative rule is reproduced on a constructed case, and the H200's
 * bulk add.f32 mismatches (recorded) group into one finding: subnormals kept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { explain, groupFindings, nanBehaviour } from '../../harness/compare/explain.js';

const ids = (c: Parameters<typeof explain>[0]) => explain(c).map((a) => a.id);

describe('alternatives reproduced on constructed cases', () => {
  it('a kept subnormal on a flushing instruction is "ftz-off" (and "ftz-results-only" cannot be it)', () => {
    const r = ids({ variant: 'atom.global.add.f32', input: { memory: ['0x00000001'], b: ['0x00000001'] }, observed: { memory: ['0x00000002'] } });
    expect(r).toContain('ftz-off');
    expect(r).not.toContain('ftz-on');
    expect(r).not.toContain('ftz-results-only');
  });
  it('a flushed result on a keeping instruction is "ftz-on" or one of its halves', () => {
    const r = ids({ variant: 'atom.shared::cta.add.f32', input: { memory: ['0x00000001'], b: ['0x00000001'] }, observed: { memory: ['0x00000000'] } });
    expect(r).toEqual(expect.arrayContaining(['ftz-on', 'ftz-inputs-only', 'ftz-results-only']));
  });
  it('rounding toward zero, up and down', () => {
    // 1 + 2^-24 in f32 is a tie below: RN/RZ/RD give 1.0, RU and RNA give 1 + 2^-23.
    const base = { variant: 'red.shared::cta.add.f32', input: { memory: ['0x3f800000'], b: ['0x33800000'] } };
    expect(ids({ ...base, observed: { memory: ['0x3f800001'] } })).toEqual(expect.arrayContaining(['round-ru', 'round-rna']));
    expect(ids({ ...base, observed: { memory: ['0x3f800001'] } })).not.toContain('round-rz');
    // 1 + 3*2^-25: RN and RU give 1 + 2^-23, RZ and RD give 1.0.
    const b2 = { variant: 'red.shared::cta.add.f32', input: { memory: ['0x3f800000'], b: ['0x33c00000'] } };
    expect(ids({ ...b2, observed: { memory: ['0x3f800000'] } })).toEqual(expect.arrayContaining(['round-rz', 'round-rd']));
  });
  it('lanes of packed types are checked one by one; nothing explains an arbitrary value', () => {
    expect(
      ids({ variant: 'atom.global.add.noftz.f16x2', input: { memory: ['0x00013c00'], b: ['0x00013c00'] }, observed: { memory: ['0x00024000'] } }),
    ).toContain('ftz-off');
    expect(ids({ variant: 'atom.global.add.f32', input: { memory: ['0x3f800000'], b: ['0x3f800000'] }, observed: { memory: ['0x12345678'] } })).toEqual([]);
  });
});

describe('min/max and multimem alternatives', () => {
  it('a NaN from min(NaN, x) is "nan-propagate" (the spec gives x)', () => {
    const c = { variant: 'atom.global.min.f16', input: { memory: ['0x7e00'], b: ['0x3c00'] }, observed: { memory: ['0x7fff'] } };
    expect(ids(c)).toEqual(['nan-propagate']);
  });
  it('max(-0, +0) = -0 is "zeros-unordered" (the spec says +0 > -0)', () => {
    expect(ids({ variant: 'red.global.max.bf16', input: { memory: ['0x8000'], b: ['0x0000'] }, observed: { memory: ['0x8000'] } })).toEqual([
      'zeros-unordered',
    ]);
  });
  it('min of a subnormal and +0 returning +0 is "ftz-on" (inputs flushed first)', () => {
    expect(ids({ variant: 'atom.global.min.f16', input: { memory: ['0x0001'], b: ['0x0000'] }, observed: { memory: ['0x0000'] } })).toContain('ftz-on');
  });
  it('multimem.red follows its replicas: one replica kept a subnormal sum the other flushed is explained by neither mode', () => {
    const base = { variant: 'multimem.red.relaxed.sys.global.add.f32', input: { replicas: [['0x00000001'], ['0x00000001']], b: ['0x00000001'] } };
    expect(ids({ ...base, observed: { replicas: [['0x00000002'], ['0x00000002']] } })).toContain('ftz-off');
    expect(ids({ ...base, observed: { replicas: [['0x00000002'], ['0x00000003']] } })).toEqual([]);
  });
  it('ld_reduce .f16 accumulated in .f32 (one rounding at the end) is "acc-f32"; .acc::f32 stepping in .f16 is "acc-type"', () => {
    // 1 + 2^-11 + 2^-22: every order of f16 steps gives 1.0 (2^-11 + 2^-22 is a tie that rounds to
    // 2^-11, and 1 + 2^-11 is a tie to even); in f32 the sum is exact, above the tie: 1 + 2^-10.
    const replicas = [['0x3c00'], ['0x1000'], ['0x0004']];
    const f16 = { variant: 'multimem.ld_reduce.relaxed.sys.global.add.f16', input: { replicas }, observed: { returned: ['0x3c01'] } };
    expect(ids(f16)).toEqual(['acc-f32', 'acc-f64', 'acc-exact']); // these values cannot tell the wider accumulations apart
    const f32acc = { variant: 'multimem.ld_reduce.relaxed.sys.global.add.acc::f32.f16', input: { replicas }, observed: { returned: ['0x3c00'] } };
    expect(ids(f32acc)).toContain('acc-type');
    expect(ids(f32acc)).not.toContain('acc-f32');
  });
  it('f32 elements: 1 + 2^-24 + 2^-49 is 1 in every order of f32 steps, 1 + 2^-23 accumulated in f64 or exactly; 1 + 2^-24 + 2^-100 tells exact from f64', () => {
    const v = 'multimem.ld_reduce.relaxed.sys.global.add.f32';
    const up = { returned: ['0x3f800001'] };
    // f64 holds 1 + 2^-24 + 2^-49 exactly, above the f32 tie; in f32, 2^-24 + 2^-49 is 2^-24
    expect(ids({ variant: v, input: { replicas: [['0x3f800000'], ['0x33800000'], ['0x27000000'], ['0x00000000']] }, observed: up })).toEqual([
      'acc-f64',
      'acc-exact',
    ]);
    // 2^-100 is below f64's last bit of 1 + 2^-24: only an exact sum is above the tie
    expect(ids({ variant: v, input: { replicas: [['0x3f800000'], ['0x33800000'], ['0x0d800000']] }, observed: up })).toEqual(['acc-exact']);
  });
  it('bf16: 1 + 2^-8 + 2^-40 tells f64 or exact accumulation from f32 (f32 rounds to the bf16 tie)', () => {
    const v = 'multimem.ld_reduce.relaxed.sys.global.add.bf16';
    const input = { replicas: [['0x3f80'], ['0x3b80'], ['0x2b80']] };
    expect(ids({ variant: v, input, observed: { returned: ['0x3f81'] } })).toEqual(['acc-f64', 'acc-exact']);
    const f32only = { replicas: [['0x3f80'], ['0x3b80'], ['0x3580']] }; // 1 + 2^-8 + 2^-20
    expect(ids({ variant: v, input: f32only, observed: { returned: ['0x3f81'] } })).toEqual(['acc-f32', 'acc-f64', 'acc-exact']);
  });
  it('integer operations have no alternative: nothing explains them', () => {
    expect(
      ids({
        variant: 'atom.global.add.u32',
        input: { memory: ['0x00000001'], b: ['0x00000001'] },
        observed: { memory: ['0x00000003'], returned: ['0x00000001'] },
      }),
    ).toEqual([]);
  });
  it('a wrong returned (old) value rules every alternative out', () => {
    expect(
      ids({
        variant: 'atom.global.add.f32',
        input: { memory: ['0x00000001'], b: ['0x00000001'] },
        observed: { memory: ['0x00000002'], returned: ['0x00000000'] },
      }),
    ).toEqual([]);
  });
});

describe('NaN kinds of observed results', () => {
  const nan = (variant: string, memory: string, b: string, observed: string) =>
    nanBehaviour({ variant, input: { memory: [memory], b: [b] }, observed: { memory: [observed] } });
  it('canonical, input payload as it was, quieted, or another encoding by value', () => {
    expect(nan('atom.global.add.f32', '0x7f800001', '0x3f800000', '0x7fffffff')).toBe('canonical');
    expect(nan('atom.global.add.f64', '0xfff0000000000001', '0x3ff0000000000000', '0xfff0000000000001')).toBe('input payload');
    expect(nan('atom.global.add.f64', '0xfff0000000000001', '0x3ff0000000000000', '0xfff8000000000001')).toBe('input payload, quieted');
    expect(nan('atom.global.add.f64', '0x7ff0000000000000', '0xfff0000000000000', '0xfff8000000000000')).toBe('other 0xfff8000000000000');
    expect(nan('atom.global.add.f32', '0x3f800000', '0x3f800000', '0x40000000')).toBeUndefined();
  });
});

describe('the H200 finding, from the recorded full run', () => {
  const doc = JSON.parse(
    gunzipSync(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h200-sm_90-gpu-run', 'report.json.gz'))).toString(),
  );
  const mm = doc.results
    .filter((r: { verdict: string }) => r.verdict === 'mismatch' || r.verdict === 'known-deviation')
    .map((r: { id: string; ptx: string; case: { input: { memory: string[]; source: string[] }; observed: { memory: string[] } } }) => ({
      id: r.id,
      variant: r.ptx,
      input: r.case.input,
      observed: r.case.observed,
    }));
  it('2884 mismatches are one finding: cp.reduce.async.bulk .add.f32 keeps subnormal inputs and results', () => {
    const f = groupFindings(mm);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ subject: 'cp.reduce.async.bulk .add.f32 on .global', explanation: 'ftz-off', count: 2884 });
    expect(f[0]!.text).toBe('observed = reference with subnormal inputs and results kept (not flushed)');
  }, 120_000);
});
