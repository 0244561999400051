/**
 * Mismatch explanation: each alternative rule is reproduced on a constructed case, and the H200's
 * bulk add.f32 mismatches (recorded) group into one finding: subnormals kept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { explain, groupFindings } from '../../harness/compare/explain.js';

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
    expect(ids({ variant: 'atom.global.add.noftz.f16x2', input: { memory: ['0x00013c00'], b: ['0x00013c00'] }, observed: { memory: ['0x00024000'] } })).toContain('ftz-off');
    expect(ids({ variant: 'atom.global.add.f32', input: { memory: ['0x3f800000'], b: ['0x3f800000'] }, observed: { memory: ['0x12345678'] } })).toEqual([]);
  });
});

describe('the H200 finding, from the recorded full run', () => {
  const doc = JSON.parse(gunzipSync(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h200-sm_90-gpu-backend-1e4.report.json.gz'))).toString());
  const mm = doc.results
    .filter((r: { verdict: string }) => r.verdict === 'mismatch')
    .map((r: { id: string; ptx: string; case: { input: { memory: string[]; source: string[] }; observed: { memory: string[] } } }) => ({ id: r.id, variant: r.ptx, input: r.case.input, observed: r.case.observed }));
  it('2884 mismatches are one finding: cp.reduce.async.bulk .add.f32 keeps subnormal inputs and results', () => {
    const f = groupFindings(mm);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ subject: 'cp.reduce.async.bulk .add.f32 on .global', explanation: 'ftz-off', count: 2884 });
    expect(f[0]!.text).toBe('observed = reference with subnormal inputs and results kept (not flushed)');
  }, 120_000);
});
