/**
 * PTX ISA editions as data. The floating-point rows of the bulk reductions
 * hold in the editions whose text they encode; `--spec-edition` picks the text a run is judged
 * against and the report records it; an expectation names its editions and is not applied under
 * another; `render` judges the recorded H200 run again from its bits: under 9.4 its 2,884 bulk
 * .add.f32 cases that keep subnormals are passes, under 9.1 the known deviation; either way the
 * report says the observation agrees with 9.4 and is against 9.1-9.3.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EDITIONS, editionsText, inEdition, parseRange, withEdition } from '../../harness/catalog/editions.js';
import { ruleIndex } from '../../harness/catalog/rules.js';
import { parseExpectations } from '../../harness/compare/expectations.js';
import { runAtRoot } from '../helpers/cli.js';
import { loadReport } from '../../harness/report/load.js';
import { findFpRule } from '../../harness/numerics/rule-lookup.js';
import { judgeObservation } from '../../harness/compare/judge-case.js';
import { editionSensitive } from '../../harness/compare/editions.js';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-editions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (args: string[]) => runAtRoot(args);

describe('editions as data', () => {
  it('a variant is judged under each edition only where the editions decide differently, not where they only word it differently', () => {
    // atom/red .add.f32: 9.4 rewords the flushing sentence (another rule row), the same decision
    expect(findFpRule('atom', 'global', 'f32', '9.1')!.id).not.toBe(findFpRule('atom', 'global', 'f32', '9.4')!.id);
    expect(editionSensitive('atom.global.add.f32')).toBe(false);
    expect(editionSensitive('red.add.f64')).toBe(false);
    // bulk .add.f32: flushed 9.1-9.3, kept 9.4
    expect(editionSensitive('cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32')).toBe(true);
  });
  it('ranges and their text', () => {
    expect(parseRange('9.1-9.3')).toEqual({ from: '9.1', until: '9.3' });
    expect(parseRange('9.4')).toEqual({ from: '9.4', until: '9.4' });
    expect(parseRange('9.2-')).toEqual({ from: '9.2' });
    expect(parseRange('8.8-9.1')).toBeUndefined();
    expect(EDITIONS.filter((e) => inEdition({ until: '9.3' }, e))).toEqual(['9.1', '9.2', '9.3']);
    expect(editionsText(['9.4', '9.1', '9.2'])).toBe('9.1-9.2, 9.4');
  });
  it('bulk .add.f32: flushed by the 9.1-9.3 text, kept by 9.4 (both cited); atom .add.f32 on global flushes in every edition', () => {
    const bulk = (e: (typeof EDITIONS)[number]) => findFpRule('cp.reduce.async.bulk', 'global', 'f32', e)!;
    expect(EDITIONS.map((e) => [bulk(e).id, bulk(e).ftz])).toEqual([
      ['fp.bulk.add.f32', true],
      ['fp.bulk.add.f32', true],
      ['fp.bulk.add.f32', true],
      ['fp.bulk.add.f32.9.4', false],
    ]);
    expect(bulk('9.4').cite.file).toBe('../ptx-spec-newer/editions-9.2-9.4.md');
    expect(new Set(EDITIONS.map((e) => findFpRule('atom', 'global', 'f32', e)!.ftz))).toEqual(new Set([true]));
    expect(findFpRule('multimem.cp.reduce.async.bulk', 'global', 'f32', '9.4')!.ftz).toBe(false);
    // every rule row says its editions
    const rules = ruleIndex();
    expect(rules.get('fp.bulk.add.f32')!.editions).toBe('9.1-9.3');
    expect(rules.get('fp.bulk.add.f32.9.4')!.editions).toBe('9.4');
    expect([...rules.values()].every((r) => /^9\.\d(-9\.\d)?$/.test(r.editions))).toBe(true);
    // the judgement follows: a kept subnormal sum
    const o = {
      id: 'x',
      variant: 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32',
      input: { memory: ['0x00000001'], source: ['0x00000001'] },
      observed: { memory: ['0x00000002'] },
    };
    expect(withEdition('9.3', () => judgeObservation(o).verdict)).toBe('mismatch');
    expect(withEdition('9.4', () => judgeObservation(o).verdict)).toBe('pass');
  });
  it('an expectation names its editions; a bad range is located', () => {
    const ok = parseExpectations(
      'e.yaml',
      'expectations:\n  - id: a\n    pattern: "x*"\n    explanation: ftz-off\n    reason: r\n    link: https://example.invalid\n    editions: 9.1-9.3\n',
    );
    expect(ok.expectations[0]!.editions).toEqual({ from: '9.1', until: '9.3' });
    // one edition unquoted is a YAML number: read as its text, not refused as 'not a string'
    const one = parseExpectations(
      'e.yaml',
      'expectations:\n  - id: a\n    pattern: "x*"\n    explanation: ftz-off\n    reason: r\n    link: https://example.invalid\n    editions: 9.4\n',
    );
    expect([one.problems, one.expectations[0]?.editions]).toEqual([[], { from: '9.4', until: '9.4' }]);
    const bad = parseExpectations(
      'e.yaml',
      'expectations:\n  - id: a\n    pattern: "x*"\n    explanation: ftz-off\n    reason: r\n    link: https://example.invalid\n    editions: 9.0-9.5\n',
    );
    expect(bad.problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      expect.stringMatching(/^7: editions: '9\.0-9\.5' is not a range of the catalog's PTX ISA editions/),
    ]);
  });
  it('--spec-edition: a bad value exits 2; the report records the edition (default 9.4)', async () => {
    const bad = await run(['--spec-edition', '9.5', '--backend', 'reference', '--report', join(dir, 'bad')]);
    expect([bad.code, /--spec-edition '9\.5': the catalog has PTX ISA editions 9\.1, 9\.2, 9\.3, 9\.4/.test(bad.out)]).toEqual([2, true]);
    for (const e of ['9.4', '9.2']) {
      const r = await run([
        '--backend',
        'reference',
        '--filter',
        'red.global.add.f32',
        ...(e === '9.4' ? [] : ['--spec-edition', e]),
        '--report',
        join(dir, `r${e}`),
      ]);
      expect(r.code, r.out).toBe(0);
      expect((await loadReport(join(dir, `r${e}`, 'report.json'))).specEdition).toBe(e);
    }
  }, 60_000);
});

describe('the recorded H200 run judged again under 9.4 and 9.1 (render)', () => {
  const BASELINE = 'reports/baselines/h200-sm_90-gpu-run/report.json.gz';
  const bulk = (r: { ptx: string; id: string }) =>
    r.ptx === 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32' ||
    r.ptx === 'cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.f32';
  it('9.4: the 2,884 subnormal-keeping bulk .add.f32 cases pass, the expectation is for 9.1-9.3 and not applied; exit 0', async () => {
    const r = await run(['render', BASELINE, '--spec-edition', '9.4', '--report', join(dir, 'h94')]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/179392 kept cases with observed bits judged again from their bits, 2884 changed verdict/);
    const rep = await loadReport(join(dir, 'h94', 'report.json'));
    expect(rep.specEdition).toBe('9.4');
    expect(rep.counts.total['known-deviation'] ?? 0).toBe(0);
    expect(rep.counts.total.mismatch ?? 0).toBe(0);
    expect(rep.results.filter((x) => bulk(x) && x.verdict !== 'pass' && x.verdict !== 'observed')).toEqual([]);
    expect(rep.expectations.outcomes.find((o) => o.id === 'bulk-add-f32-global-keeps-subnormals')).toMatchObject({
      status: 'other-edition',
      editions: '9.1-9.3',
    });
    expect(rep.stats['total.cp.reduce.async.bulk.known-deviation']).toBe(0);
    expect(rep.editionCheck!.subjects).toEqual([
      expect.objectContaining({ subject: 'cp.reduce.async.bulk .add.f32 on .global', agrees: ['9.4'], against: ['9.1', '9.2', '9.3'] }),
    ]);
  }, 120_000);
  it('9.1: the same cases are the known deviation, one finding, which says it agrees with 9.4 and is against 9.1-9.3', async () => {
    const r = await run(['render', BASELINE, '--spec-edition', '9.1', '--report', join(dir, 'h91')]);
    expect(r.code, r.out).toBe(0);
    const rep = await loadReport(join(dir, 'h91', 'report.json'));
    expect(rep.counts.total['known-deviation']).toBe(2884);
    const f = rep.findings.filter((x) => x.verdict === 'known-deviation');
    expect(f.map((x) => [x.subject, x.count, x.editions])).toEqual([
      ['cp.reduce.async.bulk .add.f32 on .global [bulk-add-f32-global-keeps-subnormals]', 2884, { agrees: ['9.4'], against: ['9.1', '9.2', '9.3'] }],
    ]);
    expect(r.out).toMatch(/cp\.reduce\.async\.bulk \.add\.f32 on \.global: 2916 cases; as 9\.4 says, against 9\.1-9\.3/);
    // every hardware finding says it: the observed ones (which NaN, which order) are so under every edition
    const hw = rep.findings.filter((x) => x.verdict !== 'skipped');
    expect(hw.length).toBeGreaterThan(1);
    for (const x of hw) expect(x.editions, x.subject).toBeDefined();
    for (const x of hw.filter((y) => y.verdict === 'observed')) expect(x.editions).toEqual({ agrees: ['9.1', '9.2', '9.3', '9.4'], against: [] });
  }, 120_000);
});

describe('vector files written from one edition (editions: header)', () => {
  it('the hand-written files agree with the model under their editions; a run under another leaves them out and says so; all left out: exit 2', async () => {
    const { loadVectors, vectorFilesByEdition } = await import('../../harness/case-readers/vectors.js');
    const { runCaseOnReference } = await import('../../harness/backends/reference/cases.js');
    for (const [file, e] of [
      ['handwritten-editions-9.1-9.3.yaml', '9.1'],
      ['handwritten-editions-9.3.yaml', '9.3'],
      ['handwritten-editions-9.4.yaml', '9.4'],
    ] as const) {
      const f = join(root, 'cases', 'vectors', file.replace('9.3.yaml', '9.1-9.3.yaml').replace('9.1-9.1-9.3', '9.1-9.3'));
      const cases = await withEdition(e, () => loadVectors([f], join(root, 'cases')));
      expect(cases.cases.length, f).toBeGreaterThan(0);
      for (const c of cases.cases) expect(withEdition(e, () => runCaseOnReference(c)).verdict, `${c.id} under ${e}`).toBe('pass');
      // and under another edition its expect: is wrong: the reason the file says which editions it follows
      const other = e === '9.4' ? '9.1' : '9.4';
      expect(withEdition(other, () => runCaseOnReference(cases.cases[0]!)).verdict).toBe('mismatch');
    }
    const byEd = await withEdition('9.4', () => vectorFilesByEdition([join(root, 'cases', 'vectors')]));
    expect(byEd.leftOut.map((l) => [l.file.replace(`${root}/`, ''), l.editions])).toEqual([['cases/vectors/handwritten-editions-9.1-9.3.yaml', '9.1-9.3']]);
    const only = await run([
      '--backend',
      'reference',
      '--vectors',
      'cases/vectors/handwritten-editions-9.4.yaml',
      '--spec-edition',
      '9.2',
      '--report',
      join(dir, 'none'),
    ]);
    expect([
      only.code,
      /every file is for other PTX ISA editions \(cases\/vectors\/handwritten-editions-9\.4\.yaml: 9\.4\); run with --spec-edition set to one of them/.test(
        only.out,
      ),
    ]).toEqual([2, true]);
  }, 60_000);
  it('a bad editions: header is located (file:line)', async () => {
    const { validateVectors } = await import('../../harness/case-readers/vectors.js');
    const { writeFileSync } = await import('node:fs');
    const f = join(dir, 'bad-ed.yaml');
    writeFileSync(f, 'instruction: red.global.add.u32\neditions: 9.9\ncases:\n  - name: a\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000001"] }\n');
    const v = await validateVectors([f], dir);
    expect(v.problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      expect.stringMatching(/^2: editions: '9\.9' is not a range of the catalog's PTX ISA editions/),
    ]);
  });
});

describe('the directed library under every edition', () => {
  it('loads without a problem under each (variants only some editions have are in files whose editions: header says so; on the H100 a --spec-edition 9.1 run stopped on them)', async () => {
    const { collectCases } = await import('../../harness/case-readers/sources.js');
    const { withEdition } = await import('../../harness/catalog/editions.js');
    const counts: Record<string, number> = {};
    for (const e of EDITIONS) {
      const sel = await withEdition(e, () => collectCases({ seed: 1, directed: true, generated: false }));
      expect(sel.problems, e).toEqual([]);
      counts[e] = sel.counts.directed;
    }
    // 9.4 has the .noftz.f32 variants' directed cases on top of the others
    expect(counts['9.4']!).toBeGreaterThan(counts['9.1']!);
  });
});

describe('the sm_90 bulk .add.f32 expectation covers the 9.3 spellings', () => {
  it('matches .global .add.f32 with and without {.sem.scope}, and no other family or type', async () => {
    const { readFileSync } = await import('node:fs');
    const { compileFilter } = await import('../../harness/util/filter.js');
    const file = join('cases', 'expectations', 'sm_90.yaml');
    const e = parseExpectations(file, readFileSync(file, 'utf8')).expectations.find((x) => x.id === 'bulk-add-f32-global-keeps-subnormals')!;
    const m = compileFilter(e.pattern);
    for (const id of [
      'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32',
      'cp.reduce.async.bulk.relaxed.gpu.global.shared::cta.bulk_group.L2::cache_hint.add.f32',
      'cp.reduce.async.bulk.relaxed.sys.global.shared::cta.bulk_group.add.f32',
    ])
      expect(m(id), id).toBe(true);
    for (const id of [
      'multimem.cp.reduce.async.bulk.relaxed.gpu.global.shared::cta.bulk_group.add.f32',
      'cp.reduce.async.bulk.relaxed.gpu.global.shared::cta.bulk_group.add.f64',
      'cp.reduce.async.bulk.relaxed.gpu.global.shared::cta.bulk_group.add.noftz.f16',
    ])
      expect(m(id), id).toBe(false);
  });
});
