/** Replays the recorded H100 litmus run (reports/baselines/h100-sm_90-litmus/) through the judge: every recorded outcome's verdict recomputed. */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';
import { verdictOf } from '../../harness/litmus-gpu/outcomes.js';

interface Base { tests: { file: string; keys: string[]; instances: number; rows: [string, number, string][] }[]; skipped: [string, string][] }
const base = JSON.parse(gunzipSync(readFileSync('reports/baselines/h100-sm_90-litmus/histograms.json.gz')).toString()) as Base;

describe('the recorded H100 litmus run', () => {
  it('has 223 tests run with >= 1 M instances each and 108 skipped with a reason', () => {
    expect(base.tests.length).toBe(223);
    expect(base.skipped.length).toBe(108);
    for (const t of base.tests) expect(t.instances).toBeGreaterThanOrEqual(1_000_000);
  });
  it('every recorded outcome: the judge gives the recorded verdict; counts add up; no forbidden outcome was seen', () => {
    let rows = 0;
    for (const t of base.tests) {
      const text = readFileSync(t.file, 'utf8');
      const j = judge(parseLitmus(text, t.file).test!);
      let sum = 0;
      for (const [vals, count, verdict] of t.rows) {
        const v = verdictOf(j, t.keys, vals.split(','));
        expect(v.allowed ? 'allowed' : v.why, `${t.file} ${vals}`).toBe(verdict);
        if (!v.allowed) expect(count, `${t.file} ${vals} forbidden`).toBe(0);
        sum += count;
        rows++;
      }
      expect(sum).toBe(t.instances);
    }
    expect(rows).toBeGreaterThan(800);
  }, 60_000);
  it('the replay catches a wrong verdict: MP+atom.release+atom.acquire (1,0) is forbidden, (1,1) allowed', () => {
    const f = 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus';
    const j = judge(parseLitmus(readFileSync(f, 'utf8'), f).test!);
    expect(verdictOf(j, ['P1:r0', 'P1:r1'], ['1', '0'])).toEqual({ allowed: false, why: '8.10.6 Causality' });
    expect(verdictOf(j, ['P1:r0', 'P1:r1'], ['1', '1']).allowed).toBe(true);
    expect(verdictOf(j, ['P1:r0', 'P1:r1'], ['7', '7'])).toEqual({ allowed: false, why: 'no candidate execution has it' });
  });
});
