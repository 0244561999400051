/**
 * Expectations files: located problems for every malformed entry; known deviations, explanation
 * that does not fit, unexpected passes and entries the run never reached.
 */
import { judgedAgainst } from '../helpers/spec.js';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeRun } from '../../harness/compare/judge-run.js';
import { loadExpectations, parseExpectations } from '../../harness/compare/expectations.js';
import { formatProblem } from '../../harness/case-readers/types.js';
import type { EntryResult } from '../../harness/report/types.js';

const problems = (text: string) => parseExpectations('x.yaml', text).problems.map(formatProblem);

describe('malformed expectations are located (file:line:col) with what to do', () => {
  it('syntax, top level, missing and unknown keys, bad values, duplicates', () => {
    expect(problems('expectations: [\n')).toEqual([expect.stringMatching(/^x\.yaml:\d+:\d+: YAML syntax: /)]);
    expect(problems('- id: a\n')).toEqual([expect.stringMatching(/^x\.yaml:1:1: the file must be a map with the key 'expectations:'/)]);
    const p = problems(
      [
        'expectations:',
        '  - id: ok-one',
        '    pattern: "atom.*"',
        '    explanation: ftz-of',
        '    reason: r',
        '    link: https://example.invalid/1',
        '  - id: ok-one',
        '    pattern: "red.*"',
        '    verdict: observed',
        '    explanation: x',
        '    reasn: r',
        '    link: "not a link"',
        'extra: 1',
      ].join('\n'),
    );
    expect(p).toEqual(
      expect.arrayContaining([
        "x.yaml:4:18: explanation: unknown alternative 'ftz-of'; did you mean 'ftz-off'? (alternatives: ftz-off, ftz-on, ftz-inputs-only, ftz-results-only, round-rz, round-ru, round-rd, round-rna, nan-propagate, zeros-unordered, acc-f32, acc-f16, acc-type, acc-f64, acc-exact, or none)",
        "x.yaml:7:9: id: 'ok-one' is used already (line 2); ids must be unique",
        "x.yaml:9:14: verdict: 'observed' cannot be expected; use one of mismatch, compile-mismatch, error",
        "x.yaml:11:5: unknown key 'reasn' in an expectation; did you mean 'reason'? (keys: id, pattern, verdict, explanation, reason, link, editions)",
        'x.yaml:7:5: reason: is missing; every expectation needs reason',
        "x.yaml:12:11: link: 'not a link' is neither a URL (https://...) nor a path in the repository",
        "x.yaml:13:1: unknown top-level key 'extra'; the file's keys are 'expectations' and 'include'",
      ]),
    );
    expect(p).toHaveLength(7);
  });
  it('the shipped files parse without a problem', async () => {
    const arches = readdirSync('cases/expectations')
      .filter((f) => /^sm_\w+\.yaml$/.test(f))
      .map((f) => f.replace(/\.yaml$/, ''));
    expect(arches).toEqual(expect.arrayContaining(['sm_90', 'sm_90a', 'sm_100a', 'sm_100', 'sm_103a', 'sm_110a', 'sm_120a']));
    for (const arch of arches) {
      const r = await loadExpectations(`cases/expectations/${arch}.yaml`, true);
      expect(r.problems.map(formatProblem)).toEqual([]);
      expect(r.expectations.length).toBeGreaterThan(0);
      // the toolchain's behaviours come from the shared file, each written once
      expect(r.expectations.find((e) => e.id === 'ptxas-13.0-atom-bitbucket-bf16-segfault')?.file).toMatch(/ptxas-13\.0\.yaml$/);
    }
  });
});

describe('include: other expectations files', () => {
  const entry = (id: string) => `  - id: ${id}\n    pattern: "x*"\n    explanation: ftz-off\n    reason: r\n    link: https://example.invalid\n`;
  const dir = mkdtempSync(join(tmpdir(), 'expect-include-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const put = (name: string, text: string) => {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  it('reads the included files, relative to the including one, each expectation with its own file and line', async () => {
    put('tool/shared.yaml', `expectations:\n${entry('shared-one')}`);
    const top = put('top.yaml', `include:\n  - tool/shared.yaml\nexpectations:\n${entry('own')}`);
    const r = await loadExpectations(top, true);
    expect(r.problems).toEqual([]);
    expect(r.expectations.map((e) => [e.id, e.file.endsWith('shared.yaml') ? 'shared' : 'top', e.line])).toEqual([
      ['shared-one', 'shared', 2],
      ['own', 'top', 4],
    ]);
    // a file of includes only, two levels deep
    const r2 = await loadExpectations(put('only.yaml', 'include: [top.yaml]\n'), true);
    expect(r2.expectations.map((e) => e.id)).toEqual(['shared-one', 'own']);
  });
  it('a missing file, a cycle, a bad include list and an id used in two files are located problems', async () => {
    const missing = await loadExpectations(put('m.yaml', 'include:\n  - nope.yaml\n'), true);
    expect(missing.problems.map(formatProblem)).toEqual([
      expect.stringMatching(/m\.yaml:2:5: include: no such file 'nope\.yaml' .*relative to this file's folder/),
    ]);
    put('a.yaml', 'include: [b.yaml]\n');
    const cyc = await loadExpectations(put('b.yaml', 'include: [a.yaml]\n'), true);
    expect(cyc.problems.map(formatProblem).join('\n')).toMatch(/include: 'b\.yaml' includes a file that includes it .*remove one of the includes/);
    const bad = await loadExpectations(put('bad.yaml', 'include: shared.yaml\n'), true);
    expect(bad.problems.map(formatProblem)).toEqual([expect.stringMatching(/bad\.yaml:1:10: include: must be a list of file paths/)]);
    put('d1.yaml', `expectations:\n${entry('same')}`);
    const dup = await loadExpectations(put('d2.yaml', `include: [d1.yaml]\nexpectations:\n${entry('same')}`), true);
    expect(dup.problems.map(formatProblem)).toEqual([
      expect.stringMatching(/d2\.yaml:3:1: id: 'same' is used already \(.*d1\.yaml:2\); ids must be unique over a file and the files it includes/),
    ]);
    expect(dup.expectations).toEqual([]);
  });
});

const bulk = 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32';
function gpu(id: string, memory: string, source: string, observed: string, verdict: EntryResult['verdict']): EntryResult {
  return {
    id,
    family: 'cp.reduce.async.bulk',
    kind: 'case',
    ptx: bulk,
    modulePtx: '9.0',
    catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules: [] },
    verdict,
    reason: 'judged',
    case: { origin: { kind: 'gen' }, input: { memory: [memory], source: [source] }, allowed: {}, observed: { memory: [observed] }, unspecified: [] },
  };
}
const file = (explanation: string, pattern = `${bulk}*`) =>
  parseExpectations(
    'e.yaml',
    `expectations:\n  - id: keeps\n    pattern: "${pattern}"\n    explanation: ${explanation}\n    reason: kept subnormals\n    link: https://example.invalid/e\n`,
  ).expectations;

describe('applying expectations', () => {
  const it = judgedAgainst('9.1'); // the 9.1 text flushes bulk .add.f32: a kept subnormal is the mismatch these expectations cover
  const kept = gpu(`${bulk}/gen:1`, '0x00000001', '0x00000001', '0x00000002', 'mismatch');
  const fine = gpu(`${bulk}/gen:2`, '0x3f800000', '0x3f800000', '0x40000000', 'pass');
  it('a mismatch with the expected explanation becomes a known deviation, in its own finding', () => {
    const j = judgeRun([kept, fine], file('ftz-off'));
    expect(j.results[0]).toMatchObject({ verdict: 'known-deviation', expectation: 'keeps' });
    expect(j.results[0]!.reason).toMatch(/^known deviation 'keeps' \([^()]*:\d+\): /);
    expect(j.outcomes).toEqual([expect.objectContaining({ id: 'keeps', status: 'occurred', matched: 1, ran: 2 })]);
    expect(j.findings).toEqual([expect.objectContaining({ verdict: 'known-deviation', count: 1, expectation: 'keeps', explanation: 'ftz-off' })]);
  });
  it('an explanation that does not fit leaves the mismatch, and says why', () => {
    const j = judgeRun([kept], file('round-rz'));
    expect(j.results[0]!.verdict).toBe('mismatch');
    expect(j.results[0]!.reason).toMatch(/expectation 'keeps' covers this id but expects round-rz; this one: ftz-off/);
    expect(j.outcomes[0]!.status).toBe('unexpected-pass');
  });
  it('the deviation gone: an unexpected pass; nothing matching run: not-run; covered ids count as run', () => {
    expect(judgeRun([fine], file('ftz-off')).outcomes[0]).toMatchObject({ status: 'unexpected-pass', matched: 0, ran: 1 });
    expect(judgeRun([fine], file('ftz-off', 'atom.*')).outcomes[0]).toMatchObject({ status: 'not-run', ran: 0 });
    expect(judgeRun([], file('ftz-off'), [bulk]).outcomes[0]).toMatchObject({ status: 'unexpected-pass', ran: 1 });
  });
  it('reference cases say nothing about hardware: they neither count as run nor become known deviations, and the outcome says what the pattern matched and why it did not apply', () => {
    const ref: EntryResult = {
      ...fine,
      verdict: 'pass',
      case: { ...fine.case!, observed: undefined, expect: { memory: ['0x40000000'] } } as EntryResult['case'],
    };
    expect(judgeRun([ref], file('ftz-off')).outcomes[0]).toMatchObject({
      status: 'not-applicable',
      matched: 0,
      ran: 0,
      seen: 1,
      why: expect.stringMatching(/^1 reference-model case\(s\) with an expect: .*e\.g\. /),
    });
    // a vector file whose expect: keeps the subnormal: a mismatch of the file, explained, not known
    const fileMismatch: EntryResult = { ...kept, case: { ...kept.case!, observed: undefined, expect: { memory: ['0x00000002'] } } as EntryResult['case'] };
    const j = judgeRun([fileMismatch], file('ftz-off'));
    expect(j.results[0]).toMatchObject({ verdict: 'mismatch', explanation: { ids: expect.arrayContaining(['ftz-off']) } });
    expect(j.results[0]!.reason).toMatch(/expectation 'keeps' covers this id but does not apply to it: reference-model case with an expect:/);
    expect(j.outcomes[0]).toMatchObject({ status: 'not-applicable', seen: 1, why: expect.stringContaining(fileMismatch.id) });
    // nothing matched at all: still not-run, with no why
    expect(judgeRun([ref], file('ftz-off', 'atom.*')).outcomes[0]).not.toHaveProperty('why');
  });
  it('an unexpected pass says what deviated otherwise (another explanation), where something did', () => {
    const o = judgeRun([kept], file('round-rz')).outcomes[0]!;
    expect(o).toMatchObject({
      status: 'unexpected-pass',
      ran: 1,
      why: expect.stringMatching(/^1 mismatch\(es\) with another explanation than it expects \(round-rz\), e\.g\. .*: ftz-off/),
    });
  });
});

describe('undoing a judgement (render, replays)', () => {
  it('restores each known deviation to the verdict and reason the backend gave: mismatch, compile-mismatch, error', async () => {
    const { undoJudgement } = await import('../../harness/compare/expectations.js');
    const ptxasResult = (id: string, crashed: boolean): EntryResult => ({
      id,
      family: 'multimem.red',
      kind: 'variant',
      ptx: id,
      modulePtx: '9.0',
      catalog: { status: 'valid', expect: 'accept', reason: 'valid', rules: [] },
      verdict: crashed ? 'error' : 'compile-mismatch',
      reason: crashed ? 'ptxas crashed (SIGSEGV) on this line' : 'catalog expects accept (valid (x)); ptxas rejects: requires scope',
      ptxas: { accepted: false, line: `${id} [a], b;`, messages: crashed ? [] : ['error: requires scope'], ...(crashed ? { crashed: 'SIGSEGV' } : {}) },
    });
    const raw = [
      gpu(`${bulk}/gen:1`, '0x00000001', '0x00000001', '0x00000002', 'mismatch'),
      ptxasResult('multimem.red.relaxed.add.u32', false),
      ptxasResult('multimem.red.crash', true),
    ];
    const ex = parseExpectations(
      'e.yaml',
      [
        'expectations:',
        `  - { id: keeps, pattern: "${bulk}*", explanation: ftz-off, reason: "kept (on the H200; see 9.7.9.25.4.2)", link: https://example.invalid/e }`,
        '  - { id: rej, pattern: "multimem.red.relaxed*", verdict: compile-mismatch, explanation: requires scope, reason: "ptxas (13.0); odd", link: a/b.md }',
        '  - { id: boom, pattern: "multimem.red.crash", verdict: error, explanation: crashed, reason: r, link: a/b.md }',
      ].join('\n'),
    ).expectations;
    const judged = judgeRun(raw, ex).results;
    expect(judged.map((r) => r.verdict)).toEqual(['known-deviation', 'known-deviation', 'known-deviation']);
    const back = judged.map(undoJudgement);
    expect(back.map((r) => [r.verdict, r.reason])).toEqual(raw.map((r) => [r.verdict, r.reason]));
    expect(back.every((r) => r.expectation === undefined && r.finding === undefined && r.explanation === undefined)).toBe(true);
    expect(judgeRun(back, ex).results.map((r) => r.verdict)).toEqual(judged.map((r) => r.verdict));
  });
});
