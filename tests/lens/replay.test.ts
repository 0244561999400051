/**
 * The recorded H100 run of the CUDA C++ lens (reports/baselines/h100-sm_90-cuda-lens/), replayed on
 * CPU through the contention judge: each result's group rebuilt from the manifest (its variant, layout
 * and operand set), every kept outcome judged again, each giving its recorded verdict; each result's
 * verdict the worst of its address counts; the table (per C++ call, memory and toolchain) rebuilt from
 * the results equal to the recorded one; one bit off in a passing outcome's final memory judged a
 * mismatch.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { LensReport } from '../../harness/cli/lens.js';
import { lensKernels, loadManifest } from '../../harness/lens/manifest.js';
import { lensPlan, lensRows } from '../../harness/lens/run.js';
import { setOps } from '../../harness/contention/cases.js';
import { judgeContention, lanesOf } from '../../harness/contention/model.js';
import { elementFormat } from '../../harness/numerics/formats.js';

const D = join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h100-sm_90-cuda-lens');
const rep = JSON.parse(gunzipSync(readFileSync(join(D, 'lens-report.json.gz'))).toString('utf8')) as LensReport;

describe('recorded H100 lens run (reports/baselines/h100-sm_90-cuda-lens/)', () => {
  it('was run on an H100 under two toolchains, each result naming its call, type, memory, toolchain and SASS', () => {
    expect(rep.device.name).toMatch(/H100/);
    expect(rep.toolchains.map((t) => t.versionLine).sort()).toEqual([
      'Cuda compilation tools, release 11.8, V11.8.89',
      'Cuda compilation tools, release 13.0, V13.0.88',
    ]);
    for (const r of rep.results) {
      expect(r.call && r.type && r.memory && r.toolchain).toBeTruthy();
      expect(rep.toolchains.map((t) => t.versionLine)).toContain(r.toolchain);
      expect(r.sass.length).toBeGreaterThan(0);
    }
    for (const s of rep.skipped) expect(s.reason).toMatch(/^nvcc \(Cuda compilation tools, release .*\) rejected \S+\.cu: .*error/);
  });
  it('every kept outcome judged again by the contention model gives its recorded verdict; each result the worst of its counts; one bit off is a mismatch', () => {
    const groups = lensPlan(lensKernels(loadManifest()), rep.arch);
    let judged = 0;
    let flipped = 0;
    for (const r of rep.results) {
      const g = groups.find((x) => x.kernel.kernel === r.kernel && x.group.layout === r.layout && x.group.set.name === r.set);
      expect(g, r.id).toBeDefined();
      const gv = g!.group.gv;
      expect([r.id, gv.entry.id, g!.group.atomic]).toEqual([r.id, r.variant, r.atomic]);
      const fmt = elementFormat(gv.entry.q.type ?? '');
      const { memory, ops } = setOps(fmt, gv.shape.elements, g!.group.set);
      expect(ops.length).toBe(r.n);
      const c = { variant: { family: gv.entry.family, q: gv.entry.q }, memory, ops };
      const lanes = lanesOf(c);
      for (const o of r.outcomes) {
        const obs = { memory: o.memory.map((x) => BigInt(x)), ...(o.returned ? { returned: o.returned.map((x) => x.map((y) => BigInt(y))) } : {}) };
        expect([r.id, judgeContention(c, obs, r.atomic, lanes).verdict]).toEqual([r.id, o.verdict]);
        judged++;
        if (o.verdict === 'pass' && r.set !== 'special') {
          const bad = judgeContention(c, { ...obs, memory: obs.memory.map((x) => x ^ 1n) }, r.atomic, lanes);
          expect([r.id, bad.verdict]).toEqual([r.id, 'mismatch']);
          flipped++;
        }
      }
      const rank = ['pass', 'observed', 'error', 'mismatch'];
      const worst = Object.entries(r.counts)
        .filter(([, n]) => n > 0)
        .map(([v]) => v)
        .sort((a, b) => rank.indexOf(b) - rank.indexOf(a))[0];
      expect([r.id, worst]).toEqual([r.id, r.verdict]);
      expect(Object.values(r.counts).reduce((a, b) => a + b, 0)).toBe(2 * r.reps);
    }
    expect(judged).toBeGreaterThan(rep.results.length);
    expect(flipped).toBeGreaterThan(100);
  }, 60_000);
  it('the table per C++ call, memory and toolchain is what the results give', () => {
    expect(lensRows(rep.results, rep.skipped)).toEqual(rep.rows);
    const t = readFileSync(join(D, 'summary.txt'), 'utf8');
    for (const r of rep.rows) if (r.status !== 'skipped') expect(t).toContain(`${r.addressesMismatching} of ${r.addresses}`);
  });
});
