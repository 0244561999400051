/**
 * Golden vectors. The files in reports/golden/ are the export of the
 * recorded H200 run as this harness writes it now (regenerated and compared); every golden line,
 * judged again from its inputs and observed bits alone, gets the verdict it carries; the TestFloat
 * lines are the float add/min/max lanes of the cases; a report without observed bits, a bad format
 * and an unwritable --out are plain errors (exit 2).
 */
import { withEdition } from '../../harness/catalog/editions.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeObservation } from '../../harness/compare/judge-case.js';
import { runAtRoot } from '../helpers/cli.js';
import { testfloatFunction } from '../../harness/report/export.js';
import { writeJsonReportSync } from '../../harness/report/json.js';
import { sampleReport } from '../helpers/sample-report.js';

const root = join(import.meta.dirname, '..', '..');
const BASELINE = 'reports/baselines/h200-sm_90-gpu-run/report.json.gz';
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (args: string[]) => runAtRoot(args);
const gz = (f: string) => gunzipSync(readFileSync(f)).toString('utf8');

describe('the golden vectors of the recorded H200 run (reports/golden/)', () => {
  const golden = gz(join(root, 'reports', 'golden', 'h200-sm_90.golden.jsonl.gz'))
    .trimEnd()
    .split('\n');
  const prov = JSON.parse(golden[0]!);
  const lines = golden.slice(1).map((l) => JSON.parse(l));

  it('are what export writes from the baseline today, with its provenance', async () => {
    for (const [format, name] of [
      ['jsonl', 'h200-sm_90.golden.jsonl.gz'],
      ['testfloat', 'h200-sm_90.testfloat.txt.gz'],
    ] as const) {
      const out = join(dir, name);
      const r = await run(['export', BASELINE, '--format', format, '--out', out]);
      expect(r.code, r.out).toBe(0);
      expect(gz(out)).toBe(gz(join(root, 'reports', 'golden', name)));
    }
    expect(prov).toMatchObject({
      schema: 'ptx-reduction-conformance/golden-vectors',
      source: { file: BASELINE },
      arch: 'sm_90',
      specEdition: '9.1',
      driverVersion: 13000,
      casesJudged: 172795102,
      casesExported: lines.length,
    });
    expect(prov.device.name).toBe('NVIDIA H200');
    expect(prov.ptxas).toMatch(/release 13\.0/);
    expect(prov.source.sha256).toMatch(/^[0-9a-f]{64}$/);
  }, 120_000);

  it('every line, judged again from its inputs and observed bits, has the verdict it carries', () => {
    const counts: Record<string, number> = {};
    for (const l of lines) {
      expect(l.sass, l.id).toMatch(/^[A-Z]/);
      const v = withEdition(prov.specEdition, () => judgeObservation({ id: l.id, variant: l.instruction, input: l.input, observed: l.observed }));
      expect(v.verdict, l.id).toBe(l.verdict === 'known-deviation' ? 'mismatch' : l.verdict);
      counts[l.verdict] = (counts[l.verdict] ?? 0) + 1;
    }
    expect(counts['known-deviation']).toBe(2884);
    // the judgement reads the bits: a known deviation with its results put back to what the model allows is a pass
    const kd = lines.find((l) => l.verdict === 'known-deviation')!;
    const fixed = {
      ...kd.observed,
      memory: kd.observed.memory.map((m: string, k: number) => (kd.allowed.memory[k][0].bits.includes(m) ? m : kd.allowed.memory[k][0].bits[0])),
    };
    expect(fixed.memory).not.toEqual(kd.observed.memory);
    expect(withEdition('9.1', () => judgeObservation({ id: kd.id, variant: kd.instruction, input: kd.input, observed: fixed }).verdict)).toBe('pass');
    // and the recorded bits, judged against the 9.4 text, are a pass as they are
    expect(withEdition('9.4', () => judgeObservation({ id: kd.id, variant: kd.instruction, input: kd.input, observed: kd.observed }).verdict)).toBe('pass');
  }, 120_000);

  it('TestFloat lines: the float add/min/max lanes, lane by lane, the bulk add.f32 subnormal kept', () => {
    const tf = gz(join(root, 'reports', 'golden', 'h200-sm_90.testfloat.txt.gz'))
      .trimEnd()
      .split('\n');
    const vec = tf.filter((l) => !l.startsWith('#'));
    expect(vec.every((l) => /^([0-9a-f]{4}|[0-9a-f]{8}|[0-9a-f]{16})( [0-9a-f]+){2} 00$/.test(l))).toBe(true);
    let want = 0;
    for (const l of lines) {
      const f = testfloatFunction(l.instruction);
      if (f) want += l.input.memory.length * f.fmt.lanes;
    }
    expect(vec.length).toBe(want);
    expect(tf.at(-1)).toBe(`# ${want} lines`);
    const block = tf.findIndex((l) => l.startsWith('# function f32_add') && l.includes('variant cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32,'));
    expect(block).toBeGreaterThan(0);
    const next = tf.findIndex((l, k) => k > block && l.startsWith('#'));
    expect(tf.slice(block + 1, next)).toContain('00000001 00000001 00000002 00');
    expect(tf.some((l) => l.startsWith('# function f16_add') && l.includes('f16x2'))).toBe(true);
  });
});

describe('export refuses what it cannot do', () => {
  it('a report without observed bits, an unknown format, an unwritable --out: exit 2 with why', async () => {
    const base = sampleReport();
    const model = writeJsonReportSync(join(dir, 'model'), {
      ...base,
      backend: { name: 'reference', reason: 't', passedOver: [] },
      results: base.results.map((r) => (r.case ? { ...r, case: { ...r.case, observed: undefined } } : r)),
    });
    const a = await run(['export', model, '--out', join(dir, 'x.jsonl')]);
    expect([a.code, /no observed bits to export \(backend 'reference'/.test(a.out)]).toEqual([2, true]);
    const hw = writeJsonReportSync(join(dir, 'hw'), base);
    const b = await run(['export', hw, '--format', 'csv', '--out', join(dir, 'x.csv')]);
    expect([b.code, /--format takes jsonl or testfloat/.test(b.out)]).toEqual([2, true]);
    const c = await run(['export', hw, '--out', join(dir, 'no', 'such', 'x.jsonl')]);
    expect([c.code, /cannot write it \(ENOENT\)/.test(c.out)]).toEqual([2, true]);
    const d = await run(['export', hw, '--format', 'testfloat', '--out', join(dir, 'ok.txt')]);
    expect(d.code, d.out).toBe(0);
    // the sample's bulk add.f32 cases: one lane each
    expect(readFileSync(join(dir, 'ok.txt'), 'utf8')).toMatch(/# function f32_add .*\n00000001 00000001 00000002 00\n80000003 00000001 80000002 00\n/);
  });
});
