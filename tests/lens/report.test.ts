/**
 * The lens writes the report every command writes, judged with the expectations file: the recorded
 * H100 lens run (reports/baselines/h100-sm_90-cuda-lens/) through it. Under nvcc 13.0 every group that
 * failed is the .shared::cluster finding the sm_90 expectations explain: exit 0 (the lens exited 1
 * on every Hopper run before); without the expectations, exit 1; nvcc 11.8's .add.f32/.f64 on
 * distributed shared memory, which no expectation covers, stay mismatches.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import type { LensReport } from '../../harness/cli/lens.js';
import { exitCode } from '../../harness/cli/summary.js';
import { loadExpectations } from '../../harness/compare/expectations.js';
import { type LensSection, writeLensReport } from '../../harness/lens/report.js';

const ROOT = join(import.meta.dirname, '..', '..');
const rec = JSON.parse(gunzipSync(readFileSync(join(ROOT, 'reports/baselines/h100-sm_90-cuda-lens/lens-report.json.gz'))).toString('utf8')) as LensReport;
const dir = mkdtempSync(join(tmpdir(), 'lens-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const validate = new Ajv({ allErrors: true }).compile(JSON.parse(readFileSync(join(ROOT, 'reports/schema/run-report.schema.json'), 'utf8')));
const sm90 = await loadExpectations(join(ROOT, 'cases/expectations/sm_90.yaml'), true);

function write(name: string, keep: (r: LensReport['results'][number]) => boolean, expectations: typeof sm90.expectations) {
  const lens: LensSection = {
    reps: rec.reps,
    device: rec.device,
    toolchains: rec.toolchains,
    seconds: rec.seconds,
    rows: rec.rows,
    results: rec.results.filter(keep),
    skipped: rec.skipped,
  };
  return writeLensReport(
    join(dir, name),
    { startedAt: rec.startedAt, command: [...rec.command], arch: rec.arch, filter: null },
    lens,
    expectations,
    expectations.length ? 'cases/expectations/sm_90.yaml' : null,
  );
}
const nvcc13 = (r: LensReport['results'][number]) => r.toolchain.includes('13.0');

describe('the recorded H100 lens run, judged with the expectations', () => {
  it('nvcc 13.0 with the sm_90 expectations: the 12 failing groups are the .shared::cluster finding, known deviations; exit 0; a report that validates', () => {
    expect(sm90.problems).toEqual([]);
    const w = write('known', nvcc13, sm90.expectations);
    const known = w.report.results.filter((r) => r.verdict === 'known-deviation');
    expect(known.length).toBe(12);
    expect(new Set(known.map((r) => r.expectation))).toEqual(
      new Set(['shared-cluster-b64-and-or-xor-not-atomic', 'shared-cluster-64bit-min-max-not-atomic', 'shared-cluster-f16x2-bf16x2-add-as-integer']),
    );
    expect(w.report.results.filter((r) => r.verdict === 'mismatch' || r.verdict === 'error')).toEqual([]);
    expect(exitCode(w.report)).toBe(0);
    // the edition it is judged against is said (the H200 run's console said 9.1: none was recorded)
    expect(w.report.specEdition).toBe('9.4');
    const json = JSON.parse(readFileSync(w.json, 'utf8'));
    expect(validate(json), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(json.lens.device.name).toMatch(/H100/);
    expect(readFileSync(w.junit, 'utf8')).toContain('<testsuites');
  });
  it('the same without expectations: 12 mismatches, exit 1', () => {
    const w = write('none', nvcc13, []);
    expect(w.report.results.filter((r) => r.verdict === 'mismatch').length).toBe(12);
    expect(exitCode(w.report)).toBe(1);
  });
  it('both toolchains: nvcc 11.8 .add.f32/.f64 on distributed shared memory, which no expectation covers, are the only mismatches; exit 1', () => {
    const w = write('both', () => true, sm90.expectations);
    const bad = w.report.results.filter((r) => r.verdict === 'mismatch');
    expect(bad.map((r) => r.id).sort()).toEqual([
      'atom.shared::cluster.add.f32/contend-cluster-order/lens-atomicAdd_f32_dsmem@nvcc-11.8.89',
      'atom.shared::cluster.add.f32/contend-cluster-special/lens-atomicAdd_f32_dsmem@nvcc-11.8.89',
      'atom.shared::cluster.add.f64/contend-cluster-order/lens-atomicAdd_f64_dsmem@nvcc-11.8.89',
      'atom.shared::cluster.add.f64/contend-cluster-special/lens-atomicAdd_f64_dsmem@nvcc-11.8.89',
    ]);
    expect(exitCode(w.report)).toBe(1);
  });
});
