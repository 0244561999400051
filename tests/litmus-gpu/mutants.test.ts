/** Mutants of litmus tests (harness/litmus-gpu/mutants.ts) and the stress file (stress.ts), on CPU. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { candidates, condHolds, mutantsOf, mutationScores, weakAllowed, weakCount } from '../../harness/litmus-gpu/mutants.js';
import { DEFAULT_STRESS, litmusModule, preloads } from '../../harness/litmus-gpu/kernel.js';
import { planTest } from '../../harness/litmus-gpu/plan.js';
import { mergeRuns } from '../../harness/litmus-gpu/run.js';
import { explain } from '../../harness/litmus-gpu/findings.js';
import { mutationLines, scoreOf } from '../../harness/litmus-gpu/report.js';
import { pickAlternates, pickBest, readStressFile, SEARCH_GRID, stressFor, testClass } from '../../harness/litmus-gpu/stress.js';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';

const load = (f: string) => {
  const text = readFileSync(f, 'utf8');
  return { text, test: parseLitmus(text, f).test! };
};

describe('mutants', () => {
  it('MP release/acquire: sem, scope and placement mutants, every one re-judged to allow (1,0); the original forbids it', () => {
    const { text, test } = load('cases/litmus/MP+atom.release+atom.acquire.gpu.litmus');
    expect(weakAllowed(test, judge(test))).toBe(false);
    const ms = mutantsOf(test, text);
    expect(new Set(ms.map((m) => m.cls))).toEqual(new Set(['sem', 'scope']));
    expect(ms.map((m) => m.name)).toContain('sem:P0:L9');
    expect(ms.find((m) => m.name === 'sem:P0:L9')!.text).toMatch(/atom\.relaxed\.gpu\.global\.exch\.b32 r9, flag, 1/);
    for (const m of ms) {
      const again = parseLitmus(m.text, m.name).test!;
      expect(weakAllowed(again, judge(again)), m.name).toBe(true);
    }
  });
  it('a candidate the model still forbids is not a mutant (SB + fence.sc: narrowing a relaxed red does not allow (0,0))', () => {
    const { text, test } = load('cases/litmus/SB+red+fence.sc.gpu.litmus');
    const cs = candidates(test, text);
    const forb = cs.filter((c) => !c.allowed);
    expect(forb.map((c) => c.name)).toContain('scope:P0:L8:cta');
    const names = mutantsOf(test, text).map((m) => m.name);
    for (const c of forb) expect(names).not.toContain(c.name);
    expect(names).toEqual(expect.arrayContaining(['fence:P0:L9', 'fence:P1:L9', 'scope:P0:L9:cta']));
    expect(mutantsOf(test, text).find((m) => m.name === 'fence:P0:L9')!.text).not.toMatch(/^\s*fence\.sc\.gpu\s*\|/m);
  });
  it('placement: threads of one CTA moved to another CTA or cluster', () => {
    const { text, test } = load('cases/litmus/MP+atom.acq_rel.cta-same-cta.litmus');
    const ms = mutantsOf(test, text);
    const p = ms.filter((m) => m.cls === 'placement');
    expect(p.map((m) => m.name).sort()).toEqual(['placement:P0:own-cluster', 'placement:P0:own-cta', 'placement:P1:own-cluster', 'placement:P1:own-cta']);
    const own = p.find((m) => m.name === 'placement:P0:own-cta')!.test;
    expect(own.threads[0]!.cta).not.toBe(own.threads[1]!.cta);
    expect(own.threads[0]!.cluster).toBe(own.threads[1]!.cluster);
  });
  it('a test whose weak outcome the model allows has no mutants', () => {
    const { text, test } = load('cases/litmus/MP+atom.relaxed.litmus');
    expect(weakAllowed(test, judge(test))).toBe(true);
    expect(mutantsOf(test, text)).toEqual([]);
  });
  it('the weak outcome of a histogram: rows where the condition holds, counted; a wrong row is not', () => {
    const { test } = load('cases/litmus/MP+atom.release+atom.acquire.gpu.litmus');
    const keys = ['P1:r0', 'P1:r1'];
    expect(
      weakCount(test, keys, [
        { values: ['1', '0'], count: 7 },
        { values: ['1', '1'], count: 90 },
        { values: ['0', '0'], count: 3 },
      ]),
    ).toBe(7);
    expect(weakCount(test, keys, [{ values: ['0', '1'], count: 7 }])).toBe(0);
    expect(condHolds(test.cond, { 'P1:r0': '1' })).toBeUndefined();
    // the judge's reading (a register never written, '?', makes its comparison false, and the rest follows)
    expect(condHolds(test.cond, { 'P1:r0': '1', 'P1:r1': '?' }, true)).toBe(false);
    expect(condHolds({ k: 'not', a: test.cond }, { 'P1:r0': '1', 'P1:r1': '?' }, true)).toBe(true);
    expect(condHolds({ k: 'not', a: test.cond }, { 'P1:r0': '1', 'P1:r1': '?' })).toBeUndefined();
    // 64-bit values at full width: a lost 2^32 (s = 1) is not 0x100000001 (cut to 32 bits both were 1)
    const a64 = load('cases/litmus/Atomicity+atom.or.b64.cluster-shared.litmus').test;
    expect(condHolds(a64.cond, { s: '1' })).toBe(true);
    expect(condHolds(a64.cond, { s: '4294967297' })).toBe(false);
    expect(
      weakCount(
        a64,
        ['s'],
        [
          { values: ['1'], count: 7 },
          { values: ['4294967297'], count: 5 },
        ],
      ),
    ).toBe(7);
  });
  it('the mutation score per class: a mutant whose weak outcome was seen counts, one not seen does not', () => {
    const s = mutationScores([
      { cls: 'sem', instances: 100, weak: 3 },
      { cls: 'sem', instances: 100, weak: 0 },
      { cls: 'fence', instances: 100, weak: 1 },
      { cls: 'scope', instances: 100, weak: 0 },
    ]);
    expect(s.perClass.map((c) => [c.cls, c.killed, c.mutants])).toEqual([
      ['sem', 1, 2],
      ['fence', 1, 1],
      ['scope', 0, 1],
      ['placement', 0, 0],
      ['async', 0, 0],
    ]);
    expect(s.perClass[0]!.score).toBe(0.5);
    expect(Number.isNaN(s.perClass[3]!.score)).toBe(true);
    expect(s.all).toMatchObject({ killed: 2, mutants: 4, score: 0.5 });
  });
});

describe('stress settings', () => {
  it("align: each test thread arrives on its instance's barrier word and polls it (bounded); lt_count resets it; off by default", () => {
    const f = 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus';
    const { text, test } = load(f);
    const plan = planTest(test, text);
    if (!plan.ok) throw new Error(plan.reason);
    const on = litmusModule(plan.plan, 'sm_90', '8.0', { ...DEFAULT_STRESS, align: true }, 4);
    const off = litmusModule(plan.plan, 'sm_90', '8.0', DEFAULT_STRESS, 4);
    expect(off).not.toMatch(/ALIGN/);
    expect(on.match(/atom\.relaxed\.gpu\.global\.add\.u32 %u, \[%a\], 1;/g)).toHaveLength(2);
    expect(on).toMatch(/ALIGN0:\n  ld\.relaxed\.gpu\.global\.u32 %u, \[%a\];\n  setp\.ge\.u32 %p, %u, 2;/);
    expect(on).toMatch(/setp\.lt\.u32 %p, %v, 4096;/);
    // the barrier word is location index 2 (after x and flag), in lt_test and in lt_count's reset
    expect(on.match(/mad\.lo\.u32 %u, %ni, 2, %(inst|i);/g)).toHaveLength(3);
  });
  it('preload: the reader loads, into L1, the locations it reads after its first read, before the alignment; off by default', () => {
    const { text, test } = load('cases/litmus/MP+atom.release+atom.acquire.gpu.litmus');
    const plan = planTest(test, text);
    if (!plan.ok) throw new Error(plan.reason);
    const on = litmusModule(plan.plan, 'sm_90', '8.0', { ...DEFAULT_STRESS, align: true, preload: true }, 4);
    expect(litmusModule(plan.plan, 'sm_90', '8.0', DEFAULT_STRESS, 4)).not.toMatch(/ld\.global\.ca/);
    // P1 reads flag (location 1) then x (location 0): only x is preloaded; P0 reads nothing
    expect(on.match(/ld\.global\.ca\.u32 %u, \[%A(\d)\];/g)).toEqual(['ld.global.ca.u32 %u, [%A0];']);
    const th1 = on.slice(on.indexOf('TH1:'));
    expect(th1.indexOf('ld.global.ca')).toBeLessThan(th1.indexOf('ALIGN1:'));
    // the sum is stored on a condition, so ptxas keeps the load
    expect(th1).toMatch(/setp\.eq\.u32 %p, %SINK, 0x7fffff5a;\n  @%p st\.global\.u32 \[%sc\], %SINK;/);
    expect(preloads(test.threads[1]!.code, plan.plan.locs, () => false)).toEqual([]);
  });
  it("stress on the test's lines: the words at offset 1 between instances' copies, nothing at stride 1", () => {
    const { text, test } = load('cases/litmus/MP+atom.release+atom.acquire.gpu.litmus');
    const plan = planTest(test, text);
    if (!plan.ok) throw new Error(plan.reason);
    const on = litmusModule(plan.plan, 'sm_90', '8.0', { ...DEFAULT_STRESS, target: 'test' }, 4);
    const stress = on.slice(on.indexOf('STRESS:'), on.indexOf('SDONE:'));
    expect(stress).toMatch(/setp\.lt\.u32 %p, %stride, 2;\n  @%p ret;/);
    expect(stress).toMatch(/mad\.lo\.u32 %u, %u, %stride, 1;/);
    expect(stress).toMatch(/add\.u64 %a, %mem, %a;/);
    expect(litmusModule(plan.plan, 'sm_90', '8.0', DEFAULT_STRESS, 4).slice(on.indexOf('STRESS:'))).not.toMatch(/%stride, 1;/);
  });
  it('alternates: greedily the settings that kill sample mutants the best did not', () => {
    const c = (warps: number) => ({ warps, iters: 16, stride: 1, align: false, killed: 0, mutants: 6, weakPerM: 0 });
    const tried = [c(0), c(1), c(2), c(3)];
    expect(
      pickAlternates(
        tried,
        [
          [0, 1, 2],
          [0, 1],
          [3, 4],
          [3, 5],
        ],
        0,
        2,
      ),
    ).toEqual([2, 3]);
    expect(
      pickAlternates(
        tried,
        [
          [0, 1, 2],
          [0, 1],
          [3, 4],
          [3, 5],
        ],
        0,
        1,
      ),
    ).toEqual([2]);
    expect(pickAlternates(tried, [[0, 1], [0], [1], []], 0, 2)).toEqual([]);
  });
  it('mergeRuns adds counts of the same outcome and the instances; different keys are refused', () => {
    const run = (rows: [string, number][], inst: number) => ({
      keys: ['P1:r0', 'P1:r1'],
      histogram: rows.map(([v, count]) => ({ values: v.split(','), count, allowed: v !== '1,0' })),
      other: { count: 0, samples: 0 },
      instances: inst,
      perLaunch: inst,
      iterations: 1,
      seconds: 1,
      instancesPerSecond: inst,
      forbiddenSeen: rows.filter(([v]) => v === '1,0').reduce((s, [, n]) => s + n, 0),
      geometry: { grid: 1, block: 32, cluster: 1 },
    });
    const m = mergeRuns(
      run(
        [
          ['0,0', 3],
          ['1,1', 1],
        ],
        4,
      ),
      run(
        [
          ['0,0', 1],
          ['1,0', 2],
          ['1,1', 1],
        ],
        4,
      ),
    );
    expect(m.histogram.map((h) => [h.values.join(','), h.count])).toEqual([
      ['0,0', 4],
      ['1,1', 2],
      ['1,0', 2],
    ]);
    expect(m).toMatchObject({ instances: 8, seconds: 2, forbiddenSeen: 2, iterations: 2 });
    expect(() => mergeRuns(run([], 1), { ...run([], 1), keys: ['x'] })).toThrow(/different keys/);
  });
  it('a mutant of a test that shows a forbidden outcome itself is explained like its test and not scored', () => {
    const f = {
      schema: 'ptx-reduction-conformance/litmus-gpu-findings' as const,
      version: 1 as const,
      explained: [{ test: 'cases/litmus/A.litmus', outcomes: [{ s: '*' }], finding: 'reports/findings/x', why: 'w' }],
    };
    const run = {
      keys: ['s'],
      histogram: [
        { values: ['7'], count: 5, allowed: false },
        { values: ['2'], count: 3, allowed: true },
      ],
      other: { count: 0, samples: 0 },
      forbiddenSeen: 5,
    };
    expect(explain(f, 'cases/litmus/A.litmus#scope:P0:L7:cta', run)).toEqual({ known: [{ finding: 'reports/findings/x', count: 5 }], unexplained: 0 });
    expect(explain(f, 'cases/litmus/AB.litmus#scope:P0:L7:cta', run).unexplained).toBe(5);
    const g = {
      keys: ['s'],
      histogram: [],
      other: { count: 0, samples: 0 },
      instances: 10,
      perLaunch: 10,
      iterations: 1,
      seconds: 1,
      instancesPerSecond: 10,
      forbiddenSeen: 0,
      geometry: { grid: 1, block: 1, cluster: 1 },
    };
    const m = (of: string, weak: number) => ({
      file: `${of}#sem:P0:L7`,
      name: 'm',
      status: 'passed' as const,
      gpu: g,
      mutant: { of, cls: 'sem' as const, name: 'sem:P0:L7', change: 'c', weak },
    });
    const rs = [
      { file: 'A', name: 'A', status: 'known-deviation' as const, gpu: g },
      { file: 'B', name: 'B', status: 'passed' as const, gpu: g },
      m('A', 5),
      m('B', 0),
      m('B', 2),
    ];
    const sc = scoreOf(rs);
    expect(sc.all).toMatchObject({ mutants: 2, killed: 1 });
    expect(sc.notScored).toEqual(['A#sem:P0:L7']);
    expect(mutationLines(sc).join('\n')).toMatch(/not scored: 1 mutant/);
    // the same with A passing: scored, and killed
    expect(scoreOf([{ ...rs[0]!, status: 'passed' as const }, ...rs.slice(1)]).all).toMatchObject({ mutants: 3, killed: 2 });
  });
  it('test class from the file name; the grid; the best is most killed, then most weak, then cheapest', () => {
    expect(testClass('cases/litmus/2+2W+fence.sc.gpu.litmus')).toBe('2+2W');
    expect(testClass('cases/litmus/matrix/MP+atom.x.litmus#sem:P0:L8')).toBe('MP');
    expect(SEARCH_GRID).toHaveLength(40);
    expect(SEARCH_GRID.filter((g) => g.target === 'test').every((g) => g.stride >= 2)).toBe(true);
    const c = (warps: number, killed: number, weakPerM: number, align = false) => ({ warps, iters: 16, stride: 1, align, killed, mutants: 4, weakPerM });
    expect(pickBest([c(0, 2, 9), c(8, 3, 1), c(2, 3, 1)]).warps).toBe(2);
    expect(pickBest([c(0, 3, 9), c(2, 3, 10)]).warps).toBe(2);
    expect(pickBest([c(0, 3, 9, true), c(8, 3, 9)])).toMatchObject({ warps: 8, align: false });
    expect(pickBest([c(0, 3, 9), c(8, 4, 1, true)])).toMatchObject({ warps: 8, align: true });
  });
  it('reads the file by class, defaults otherwise; a malformed file is rejected', () => {
    const d = mkdtempSync(join(tmpdir(), 'stress-'));
    const f = join(d, 's.json');
    expect(readStressFile(f)).toBeUndefined();
    writeFileSync(
      f,
      JSON.stringify({ schema: 'ptx-reduction-conformance/litmus-gpu-stress', version: 1, classes: { SB: { warps: 8, iters: 256, stride: 4, align: true } } }),
    );
    const s = readStressFile(f);
    expect(stressFor('cases/litmus/SB+x.litmus', s)).toMatchObject({ warps: 8, iters: 256, stride: 4, align: true });
    expect(stressFor('cases/litmus/MP+x.litmus', s)).toMatchObject({ warps: 2, iters: 64, stride: 1, align: false, from: 'defaults' });
    // a class where the search caught nothing chose nothing: the defaults, said so
    writeFileSync(
      f,
      JSON.stringify({
        schema: 'ptx-reduction-conformance/litmus-gpu-stress',
        version: 1,
        classes: { MP: { warps: 0, iters: 16, stride: 1, align: false, killed: 0, mutants: 4, weakPerM: 0 } },
      }),
    );
    expect(stressFor('cases/litmus/MP+x.litmus', readStressFile(f))).toMatchObject({
      warps: 2,
      iters: 64,
      stride: 1,
      align: false,
      from: 'defaults (the stress search caught nothing for class MP)',
    });
    writeFileSync(
      f,
      JSON.stringify({ schema: 'ptx-reduction-conformance/litmus-gpu-stress', version: 1, classes: { SB: { warps: 8, iters: 256, stride: 0, align: true } } }),
    );
    expect(() => readStressFile(f)).toThrow(/bad setting/);
    writeFileSync(
      f,
      JSON.stringify({ schema: 'ptx-reduction-conformance/litmus-gpu-stress', version: 1, classes: { SB: { warps: 8, iters: 256, stride: 1 } } }),
    );
    expect(() => readStressFile(f)).toThrow(/bad setting/);
    writeFileSync(
      f,
      JSON.stringify({
        schema: 'ptx-reduction-conformance/litmus-gpu-stress',
        version: 1,
        classes: { SB: { warps: 8, iters: 256, stride: 1, align: true, target: 'test' } },
      }),
    );
    expect(() => readStressFile(f)).toThrow(/needs stride >= 2/);
    writeFileSync(
      f,
      JSON.stringify({
        schema: 'ptx-reduction-conformance/litmus-gpu-stress',
        version: 1,
        classes: {
          SB: {
            warps: 8,
            iters: 256,
            stride: 4,
            align: true,
            killed: 1,
            mutants: 4,
            weakPerM: 1,
            alternates: [{ warps: 2, iters: 64, stride: 1, align: 'yes' }],
          },
        },
      }),
    );
    expect(() => readStressFile(f)).toThrow(/bad setting/);
    writeFileSync(f, '{"schema":"other"}');
    expect(() => readStressFile(f)).toThrow(/not a litmus-gpu stress file/);
  });
});
