/**
 * Combinations the spec text forbids are invalid in the catalog, each for the rule that forbids it,
 * and combinations it allows are valid. Each row quotes the sentence it checks.
 */
import { describe, expect, it } from 'vitest';
import { ParseError, parseInstruction } from '../../harness/catalog/parse.js';
import { withEdition } from '../../harness/catalog/editions.js';
import { effectiveQualifiers } from '../../harness/catalog/evaluate.js';

const INVALID: [string, string, string][] = [
  // [instruction, rule the catalog must report, spec sentence]
  ['atom.shared.add.v2.f32', 'atom.vector-space', 'atom with vector type may be used only with .global space'],
  ['red.shared::cluster.add.noftz.v2.f16', 'red.vector-space', 'red with vector type may be used only with .global space'],
  ['atom.global.add.v8.f32', 'atom.vector-op-type', 'vector table: .f32 .v8 Not Supported'],
  ['atom.global.min.v2.f32', 'atom.vector-op-type', 'vector table: .f32 takes only .add'],
  ['red.global.add.noftz.v8.f16x2', 'red.vector-op-type', 'vector table: .f16x2 .v8 Not supported'],
  ['atom.global.add.f16', 'atom.noftz-required', 'atom.add.f16 ... requires the .noftz qualifier'],
  ['red.add.bf16x2', 'red.noftz-required', 'red.add.bf16x2 ... requires the .noftz qualifier'],
  ['atom.shared.add.L2::cache_hint.u32', 'atom.cache-hint-space', '.level::cache_hint is only supported for .global state space and for generic addressing'],
  ['red.shared::cta.and.L2::cache_hint.b32', 'red.cache-hint-space', '.level::cache_hint is only supported for .global'],
  ['atom.global.add.b128', 'atom.op-type', '.b128 only for cas and exch'],
  ['atom.global.exch.b16', 'atom.op-type', '.b16 only for cas'],
  ['atom.global.min.b16', 'atom.op-type', '.b16 only for cas'],
  ['atom.global.and.u32', 'atom.op-type', 'bit-size operations are .and, .or, .xor, .cas, .exch'],
  ['atom.global.max.f32', 'atom.op-type', 'the floating-point operation is .add'],
  ['red.global.cas.b32', 'red.grammar.op', 'red .op has no .cas'],
  ['red.acquire.global.add.u32', 'red.grammar.sem', 'red .sem = {.relaxed, .release}'],
  ['red.global.add.b128', 'red.grammar.type', 'red has no .b128'],
  ['atom.local.add.u32', 'atom.grammar.space', '.space = { .global, .shared{::cta, ::cluster} }'],
  ['multimem.ld_reduce.add.acc::f16.f16x2', 'multimem.ld_reduce.acc-type', '.acc::f16 only for the fp8 types'],
  ['multimem.ld_reduce.add.acc::f32.e4m3x4', 'multimem.ld_reduce.acc-type', '.acc::f32 only for f16/bf16 types'],
  ['multimem.ld_reduce.add.acc::f32.f32', 'multimem.ld_reduce.acc-type', '.acc::f32 only for f16/bf16 types'],
  ['multimem.ld_reduce.add.v2.f64', 'multimem.ld_reduce.vec-type', 'Type .f64 cannot be used with .vec qualifier'],
  ['multimem.ld_reduce.add.v8.f32', 'multimem.ld_reduce.vec-type', 'size of type with .vec must be 32, 64 or 128 bits'],
  ['multimem.ld_reduce.add.e5m2', 'multimem.ld_reduce.vec-type', 'no .vec: .e5m2 is not in the list'],
  ['multimem.ld_reduce.add.f16', 'multimem.ld_reduce.vec-type', 'no .vec: .f16 is not in the list'],
  ['multimem.ld_reduce.add.v8.e4m3x4', 'multimem.ld_reduce.vec-type', '.v8 with .e4m3x4 would be 256 bits'],
  ['multimem.ld_reduce.and.u32', 'multimem.ld_reduce.op-type', '.and, .or, .xor | .b32, .b64'],
  ['multimem.ld_reduce.add.s64', 'multimem.ld_reduce.op-type', '.add | .u32, .u64, .s32 (no .s64)'],
  ['multimem.ld_reduce.max.f32', 'multimem.ld_reduce.op-type', '.min, .max have no .f32'],
  ['multimem.ld_reduce.weak.gpu.add.u32', 'multimem.ld_reduce.form', 'multimem.ld_reduce.weak{.ss}.op.type d, [a]; takes no scope'],
  ['multimem.ld_reduce.add.v2.u32', 'multimem.ld_reduce.form', 'integer forms take no .vec'],
  ['multimem.red.add.v4.e4m3', 'multimem.red.grammar.type', '.redtype = { .f16, .f16x2, .bf16, .bf16x2, .f32, .f64 }'],
  ['multimem.red.acquire.gpu.add.u32', 'multimem.red.grammar.sem', '.redsem = { .relaxed, .release }'],
  ['multimem.red.relaxed.gpu.max.f32', 'multimem.red.op-type', '.redop = { .add } and the op table has no max.f32'],
  [
    'cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.f32',
    'cp.reduce.async.bulk.dst-op-type',
    '.shared::cluster | .add | .u32, .s32, .u64',
  ],
  [
    'cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.and.b64',
    'cp.reduce.async.bulk.dst-op-type',
    '.shared::cluster | .and, .or, .xor | .b32',
  ],
  ['cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16', 'cp.reduce.async.bulk.noftz-required', '.add.f16 and .add.bf16 require .noftz'],
  ['cp.reduce.async.bulk.global.shared::cta.bulk_group.min.noftz.f16', 'cp.reduce.async.bulk.form', '.noftz only in the .add.noftz form'],
  [
    'cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.L2::cache_hint.add.u32',
    'cp.reduce.async.bulk.form',
    'no .level::cache_hint in the .shared::cluster form',
  ],
  [
    'cp.reduce.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes.add.u32',
    'cp.reduce.async.bulk.dst-completion',
    '.global destination completes by .bulk_group',
  ],
  ['cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u64', 'cp.reduce.async.bulk.dst-op-type', '.global | .inc, .dec | .u32'],
  [
    'multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.s64',
    'multimem.cp.reduce.async.bulk.op-type',
    '.add | .u32, .s32, .u64, .f32, .f64, .f16, .bf16',
  ],
  ['multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.bf16', 'multimem.cp.reduce.async.bulk.noftz-required', '.add.f16/.add.bf16 require .noftz'],
];

const VALID: [string, string][] = [
  ['atom.add.u32', 'defaults: generic addressing, .relaxed, .gpu'],
  ['atom.shared::cluster.add.noftz.f16', 'example atom.add.shared::cluster.noftz.f16'],
  ['atom.global.sys.exch.b128', '.sys with .b128 (PTX ISA 8.4)'],
  ['atom.global.cas.b16', 'atom.cas.b16'],
  ['atom.global.max.noftz.v8.bf16', 'vector table .v8 .bf16 .max'],
  ['atom.global.add.L2::cache_hint.v4.f32', 'vector .f32 with cache hint'],
  ['red.global.release.gpu.add.noftz.L2::cache_hint.v2.bf16x2', 'vector packed with everything'],
  ['multimem.ld_reduce.weak.global.min.v4.e4m3', 'weak form, fp8 v4'],
  ['multimem.st.release.sys.global.v8.bf16', 'st with 128-bit vector'],
  ['multimem.st.release.gpu.v4.e4m3x4', 'fp8 x4 in a 128-bit vector'],
  ['multimem.red.release.cta.global.add.v4.f32', 'spec example'],
  ['cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.min.s64', 'table .global .min .s64'],
];

describe('invalid combinations', () => {
  it.each(INVALID)('%s is invalid by %s (%s)', (ins, rule) => {
    const p = parseInstruction(ins);
    expect(p.evaluation.status).toBe('invalid');
    expect(p.violations.map((v) => v.rule)).toContain(rule);
    for (const v of p.violations) expect(v.cite.quote.length).toBeGreaterThan(0);
  });
});

describe('valid combinations', () => {
  it.each(VALID)('%s is valid (%s)', (ins) => {
    const p = parseInstruction(ins);
    expect(p.violations).toEqual([]);
    expect(p.evaluation.status).toBe('valid');
  });
});

describe('parse errors name the problem', () => {
  it('an unknown qualifier suggests the nearest ones', () => {
    expect(() => parseInstruction('atom.global.add.f33')).toThrow(/unknown qualifier '.f33'.*did you mean .*\.f32/);
  });
  it('a PTX qualifier the family lacks', () => {
    expect(() => parseInstruction('multimem.st.acc::f32.f16x2')).toThrow(/has no qualifier of its kind/);
  });
  it('two values for one slot', () => {
    expect(() => parseInstruction('atom.global.shared.add.u32')).toThrow(/two .space qualifiers/);
  });
  it('an instruction outside the catalog', () => {
    try {
      parseInstruction('  atomic.add.u32 d, [a], b;');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ParseError);
      expect((e as ParseError).column).toBe(2);
      expect((e as ParseError).message).toMatch(/did you mean atom/);
    }
  });
});

describe('operand shapes', () => {
  it.each([
    ['red.global.add.u32 d, [a], b;', 'red.operands.count'],
    ['atom.global.add.u32 d, a, b;', 'atom.operands.address'],
    ['atom.global.add.noftz.v4.f16 {a, b}, [x], {c, d, e, f};', 'atom.operands.vector'],
    ['atom.global.add.L2::cache_hint.u32 d, [a], b;', 'atom.operands.count'],
  ])('%s -> %s', (ins, rule) => {
    expect(parseInstruction(ins).violations.map((v) => v.rule)).toContain(rule);
  });
  it("the bit bucket is recognised as atom's destination", () => {
    const p = parseInstruction('atom.global.add.u32 _, [a], 1;');
    expect(p.q.d).toBe('_');
    expect(p.id).toBe('atom.global.add.u32(_)');
    expect(p.violations).toEqual([]);
  });
});

describe('what changed in PTX ISA 9.4: .noftz with .f32', () => {
  const at = (e: '9.1' | '9.3' | '9.4', ins: string) => withEdition(e, () => parseInstruction(ins));
  it.each([
    'atom.global.add.noftz.f32',
    'red.add.noftz.f32',
    'atom.global.add.noftz.v4.f32',
    'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f32',
    'multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f32',
  ])('%s: invalid by the 9.1-9.3 grammar, valid by 9.4 (needing PTX ISA 9.4)', (ins) => {
    for (const e of ['9.1', '9.3'] as const) {
      const p = at(e, ins);
      expect(p.evaluation.status, `${ins} under ${e}`).toBe('invalid');
    }
    const p = at('9.4', ins);
    expect(p.violations).toEqual([]);
    expect(p.evaluation.status).toBe('valid');
  });
  it('9.1 still names the rule: atom.global.add.noftz.f32 breaks atom.noftz-types ("~ .noftz appears only in the .f16/.f16x2/.bf16/.bf16x2 forms of the grammar")', () => {
    expect(at('9.1', 'atom.global.add.noftz.f32').violations.map((v) => v.rule)).toContain('atom.noftz-types');
  });
});

describe('what changed in PTX ISA 9.3: {.sem.scope} on the bulk reductions', () => {
  const at = (e: '9.1' | '9.2' | '9.3' | '9.4', ins: string) => withEdition(e, () => parseInstruction(ins));
  const g = (sem: string) => `cp.reduce.async.bulk${sem}.global.shared::cta.bulk_group.add.u32`;
  const cl = (sem: string) => `cp.reduce.async.bulk${sem}.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32`;
  it('.relaxed.gpu: invalid by the 9.1-9.2 text (cp.reduce.async.bulk.sem-scope), valid from 9.3', () => {
    for (const e of ['9.1', '9.2'] as const) expect(at(e, g('.relaxed.gpu')).violations.map((v) => v.rule)).toContain('cp.reduce.async.bulk.sem-scope');
    for (const e of ['9.3', '9.4'] as const) expect(at(e, g('.relaxed.gpu')).evaluation.status).toBe('valid');
    expect(at('9.4', 'multimem.cp.reduce.async.bulk.relaxed.sys.global.shared::cta.bulk_group.add.u32').evaluation.status).toBe('valid');
  });
  it('both or neither; the .shared::cluster destination takes .cta and .cluster only', () => {
    expect(at('9.4', g('.relaxed')).violations.map((v) => v.rule)).toContain('cp.reduce.async.bulk.sem-scope');
    expect(at('9.4', cl('.relaxed.gpu')).violations.map((v) => v.rule)).toContain('cp.reduce.async.bulk.sem-scope');
    expect(at('9.4', cl('.relaxed.cluster')).evaluation.status).toBe('valid');
  });
  it('the omitted scope means .gpu under 9.1-9.2 and .sys from 9.3 (multimem: .sys throughout); with a .shared::cluster destination the 9.3 text is inconsistent: no default', () => {
    const scope = (e: '9.1' | '9.2' | '9.3' | '9.4', ins: string) =>
      withEdition(e, () => {
        const p = parseInstruction(ins);
        return effectiveQualifiers(p.family, p.q).scope;
      });
    expect(scope('9.2', g(''))).toBe('gpu');
    expect(scope('9.4', g(''))).toBe('sys');
    expect(scope('9.1', 'multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32')).toBe('sys');
    expect(scope('9.4', cl(''))).toBeNull();
    expect(scope('9.2', cl(''))).toBe('gpu');
  });
});

describe("what PTX ISA 9.3's scalar type/operation tables decided", () => {
  const at = (e: '9.2' | '9.3' | '9.4', ins: string) => withEdition(e, () => parseInstruction(ins));
  it.each(['atom.global.add.s64', 'atom.global.inc.u64', 'red.global.dec.s32', 'red.add.s64'])(
    '%s: open in the 9.1-9.2 text (ambiguous), not in the 9.3 table (invalid; ptxas 13.0 rejects it too)',
    (ins) => {
      expect(at('9.2', ins).evaluation.status).toBe('ambiguous');
      for (const e of ['9.3', '9.4'] as const) expect(at(e, ins).violations.map((v) => v.rule)).toContain(`${ins.split('.')[0]}.op-type`);
    },
  );
});

describe('each edition judges by its own syntax lines and tables, and cites them', () => {
  const at = (e: '9.1' | '9.2' | '9.3' | '9.4', ins: string) => withEdition(e, () => parseInstruction(ins));
  const form = (e: '9.1' | '9.2' | '9.3' | '9.4', ins: string) => at(e, ins).evaluation.form?.id;
  it('atom .cas and .exch: the 9.1-9.2 lines until 9.2, the .cas.type1 / .exch.type2 lines of 9.3 after', () => {
    expect([form('9.2', 'atom.global.cas.b32'), form('9.3', 'atom.global.cas.b32')]).toEqual(['atom.form.scalar-cas', 'atom.form.cas']);
    expect([form('9.2', 'atom.global.cas.b16'), form('9.4', 'atom.global.cas.b16')]).toEqual(['atom.form.cas-b16', 'atom.form.cas']);
    expect([form('9.2', 'atom.global.exch.b64'), form('9.3', 'atom.global.exch.b64')]).toEqual(['atom.form.scalar', 'atom.form.exch']);
    expect([form('9.2', 'atom.global.exch.b128'), form('9.4', 'atom.global.exch.b128')]).toEqual(['atom.form.exch-b128', 'atom.form.exch']);
    expect(form('9.4', 'atom.global.add.u32')).toBe('atom.form.scalar.9.3');
    // the same spellings are invalid in every edition, by the rule of its text
    expect(at('9.2', 'atom.global.cas.u32').violations.map((v) => v.rule)).toEqual(['atom.op-type']);
    expect(at('9.3', 'atom.global.cas.u32').violations.map((v) => v.rule)).toEqual(['atom.op-type', 'atom.form']);
    expect(at('9.4', 'atom.global.exch.u64').violations.map((v) => v.rule)).toEqual(['atom.op-type', 'atom.form']);
  });
  it('9.4 folds the half .noftz lines into .type3 (atom) and .type1 (red), and gives the vector .f32 line {.noftz}', () => {
    expect([form('9.3', 'atom.global.add.noftz.bf16'), form('9.4', 'atom.global.add.noftz.bf16')]).toEqual([
      'atom.form.add-noftz-half',
      'atom.form.add-noftz-type3',
    ]);
    expect([form('9.3', 'red.add.noftz.f16x2'), form('9.4', 'red.add.noftz.f16x2')]).toEqual(['red.form.add-noftz-half', 'red.form.add-noftz-type1']);
    expect([form('9.3', 'red.global.add.v4.f32'), form('9.4', 'red.global.add.v4.f32')]).toEqual(['red.form.vector-f32', 'red.form.vector-f32-noftz']);
    expect(at('9.3', 'atom.global.add.noftz.v2.f32').evaluation.status).toBe('invalid');
  });
  it("a violation of the scalar table cites the Description before 9.3 and the table after; .noftz's requirement likewise", () => {
    const cite = (e: '9.2' | '9.3', ins: string, rule: string) => at(e, ins).violations.find((v) => v.rule === rule)!.cite;
    expect(cite('9.2', 'atom.global.max.f32', 'atom.op-type').quote).toContain('The bit-size operations are');
    expect(cite('9.3', 'atom.global.max.f32', 'atom.op-type').quote).toContain('valid combinations of types and atomic operations');
    expect(cite('9.3', 'red.global.max.f32', 'red.op-type').quote).toContain('valid combinations of types and reduction operations');
    expect(cite('9.2', 'red.global.add.f16', 'red.noftz-required').quote).toContain('operation requires');
    expect(cite('9.3', 'red.global.add.f16', 'red.noftz-required').quote).toContain('operations require');
    // what a table row permits cites its edition's row
    const permit = (e: '9.2' | '9.4', ins: string) => at(e, ins).evaluation.permits.find((p) => p.rule === 'atom.op-type')!.cite;
    expect(permit('9.2', 'atom.global.add.f64').section).toBe('9.7.13.5');
    expect(permit('9.4', 'atom.global.add.f64').quote).toContain('.f64 | Not supported | .add (noftz by default) | Not supported');
  });
});

describe("9.4's default .noftz for .add.f64 (atom, red)", () => {
  it('an .add.f64 without .noftz means .noftz from 9.4; before, the text gives the omitted .noftz no meaning', () => {
    const noftz = (e: '9.3' | '9.4', ins: string) =>
      withEdition(e, () => {
        const p = parseInstruction(ins);
        return effectiveQualifiers(p.family, p.q).noftz;
      });
    expect([noftz('9.3', 'atom.global.add.f64'), noftz('9.4', 'atom.global.add.f64'), noftz('9.4', 'red.shared.add.f64')]).toEqual(['', 'noftz', 'noftz']);
    expect([noftz('9.4', 'atom.global.add.f32'), noftz('9.4', 'atom.global.add.u64')]).toEqual(['', '']);
  });
});
