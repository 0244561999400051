/** The comparator says whether an executor's bits are the ones a vector file's `expect:` names. */
import { describe, expect, it } from 'vitest';
import { enrichResult } from '../../harness/compare/compare.js';
import type { EntryResult } from '../../harness/report/types.js';

const gpuResult = (observed: string[], expected: string[], memory = ['0x7f800000'], b = ['0xff800000']): EntryResult => ({
  id: 'atom.global.add.f32/t.yaml:c',
  family: 'atom',
  kind: 'case',
  ptx: 'atom.global.add.f32',
  modulePtx: '9.0',
  catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules: [] },
  verdict: 'observed',
  reason: 'x',
  case: {
    origin: { kind: 'vectors' },
    input: { memory, b },
    expect: { memory: expected, returned: memory },
    observed: { memory: observed, returned: memory },
    allowed: {},
    unspecified: [],
  },
});

describe('expect agreement (case.fileExpect)', () => {
  it('inf + -inf: a NaN observed where the file expects another NaN agrees (the payload is open), and the allowed set is filled beside it', () => {
    const r = enrichResult(gpuResult(['0x7fffffff'], ['0x7fc00000']));
    expect(r.case!.fileExpect).toEqual({ agrees: true, reason: "the executor gave the bits the file's expect names" });
    expect(r.case!.allowed).toHaveProperty('memory');
  });
  it('other bits than the expect disagree, naming the element and both patterns', () => {
    const r = enrichResult({ ...gpuResult(['0x40000000'], ['0x40400000'], ['0x3f800000'], ['0x3f800000']), verdict: 'pass' });
    expect(r.case!.fileExpect).toEqual({ agrees: false, reason: 'memory[0]: the file expects 0x40400000, the executor gave 0x40000000' });
  });
  it('a NaN where the reference allows one value is no agreement', () => {
    const r = enrichResult({ ...gpuResult(['0x7fffffff'], ['0x40000000'], ['0x3f800000'], ['0x3f800000']), verdict: 'mismatch' });
    expect(r.case!.fileExpect!.agrees).toBe(false);
  });
  it('a reference-model result (no observed bits) gets none', () => {
    const g = gpuResult(['0x7fffffff'], ['0x7fc00000']);
    const { observed: _o, ...c } = g.case!;
    expect(enrichResult({ ...g, case: c }).case!.fileExpect).toBeUndefined();
  });
});

describe('enrichResult on results that already have their rule trail', () => {
  const withRules = (r: EntryResult): EntryResult => ({ ...r, catalog: { ...r.catalog, rules: ['atom.returns-old'] } });
  it('a pass with its trail and nothing more to give comes back as it is; enriching it again changes nothing', () => {
    const g = gpuResult(['0x3f800000'], ['0x3f800000'], ['0x3f800000'], ['0x00000000']);
    const { observed: _o, ...c } = g.case!;
    const r = withRules({ ...g, verdict: 'pass', case: { ...c, allowed: { memory: [[{ bits: ['0x3f800000'], anyNaN: false }]] } } });
    expect(enrichResult(r)).toBe(r);
    expect(enrichResult(enrichResult(r))).toEqual(r);
  });
  it('observed bits judged against the file expect still get their agreement (a pass too, its allowed sets there or not)', () => {
    const g = { ...gpuResult(['0x40000000'], ['0x40400000'], ['0x3f800000'], ['0x3f800000']), verdict: 'pass' as const };
    const want = { agrees: false, reason: 'memory[0]: the file expects 0x40400000, the executor gave 0x40000000' };
    expect(enrichResult(withRules(g)).case!.fileExpect).toEqual(want);
    const allowed = { memory: [[{ bits: ['0x40000000'], anyNaN: false }]] };
    expect(enrichResult(withRules({ ...g, case: { ...g.case!, allowed } })).case!.fileExpect).toEqual(want);
  });
  it('a mismatch still gets its explanation, and an observed result its NaN behaviour (their allowed sets filled already)', () => {
    const allowed = { memory: [[{ bits: ['0x40000000'], anyNaN: false }]] };
    const g = gpuResult(['0x7fffffff'], ['0x40000000'], ['0x3f800000'], ['0x3f800000']);
    const { observed: _o, ...reference } = g.case!;
    const m = enrichResult(withRules({ ...g, verdict: 'mismatch', case: { ...reference, allowed } }));
    expect(m.explanation).toBeDefined();
    const { expect: _e, ...noExpect } = gpuResult(['0x7fffffff'], ['0x7fc00000']).case!;
    const o = enrichResult(withRules({ ...g, verdict: 'observed', case: { ...noExpect, allowed } }));
    expect(o.case!.nan).toBeDefined();
  });
});

describe('enrichResult on the reference backend results', () => {
  it('an empty rule trail the model computed is not computed again; the same result from JSON (no mark) gets the same trail by computing it', async () => {
    const { runCaseOnReference } = await import('../../harness/backends/reference/cases.js');
    const { loadVectorText } = await import('../../harness/case-readers/vectors.js');
    const { cases } = loadVectorText(
      't.yaml',
      'cite: "t"\ncases:\n  - name: r\n    instruction: red.global.add.u32\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000002"] }\n    expect: { memory: ["0x00000003"] }\n',
    );
    const r = runCaseOnReference(cases[0]!);
    expect(r.verdict).toBe('pass');
    expect(r.catalog.rules).toEqual([]);
    expect(enrichResult(r)).toBe(r);
    const fromJson = JSON.parse(JSON.stringify(r)) as EntryResult;
    expect(enrichResult(fromJson)).toEqual(JSON.parse(JSON.stringify(r)));
    // an empty trail with no mark is computed: an atom case's, read back without its rules, gets them again
    const atom = loadVectorText(
      'a.yaml',
      'cite: "t"\ncases:\n  - name: a\n    instruction: atom.global.add.u32\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000002"] }\n    expect: { memory: ["0x00000003"], returned: ["0x00000001"] }\n',
    ).cases[0]!;
    const ra = JSON.parse(JSON.stringify(runCaseOnReference(atom))) as EntryResult;
    expect(ra.catalog.rules.length).toBeGreaterThan(0);
    expect(enrichResult({ ...ra, catalog: { ...ra.catalog, rules: [] } }).catalog.rules).toEqual(ra.catalog.rules);
  });
});
