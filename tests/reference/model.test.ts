/**
 * The reference model's API on cases whose answers the spec text gives directly; each case names the
 * rule it exercises. Bits are written in hex, as the vector files will.
 */
import { withEdition } from '../../harness/catalog/editions.js';
import { describe, expect, it } from 'vitest';
import { parseInstruction } from '../../harness/catalog/parse.js';
import { type ReferenceCase, CaseError, reference } from '../../harness/reference/model.js';

const v = (ptx: string) => {
  const p = parseInstruction(ptx);
  expect(p.violations).toEqual([]);
  return { family: p.family.id, q: p.q };
};
const H = (x: number | bigint) => BigInt(x);
const bitsOf = (a: { bits: readonly bigint[] }) => a.bits.map((b) => `0x${b.toString(16)}`);

describe('atom and red', () => {
  it('atom.global.add.f32 flushes a subnormal sum to zero and returns the old value', () => {
    const o = reference(v('atom.global.add.f32'), { memory: [H(1)], b: [H(1)] });
    expect(bitsOf(o.memory![0]![0]!)).toEqual(['0x0']);
    expect(bitsOf(o.returned![0]![0]!)).toEqual(['0x1']);
    // judged against 9.4 (the default) the rule cites 9.4's reworded sentence, against 9.1-9.3 the old one
    expect(o.trail.find((t) => t.rule === 'fp.atom-red.add.f32.global.9.4')!.cite!.section).toBe('9.7.15.5');
    const o91 = withEdition('9.1', () => reference(v('atom.global.add.f32'), { memory: [H(1)], b: [H(1)] }));
    expect(bitsOf(o91.memory![0]![0]!)).toEqual(['0x0']);
    expect(o91.trail.find((t) => t.rule === 'fp.atom-red.add.f32.global')!.cite!.section).toBe('9.7.13.5');
    expect(o91.trail.map((t) => t.rule)).not.toContain('fp.atom-red.add.f32.global.9.4');
  });
  it("red's rules cite red's own sentences, atom's atom's", () => {
    for (const [e, atomSec, redSec] of [
      ['9.1', '9.7.13.5', '9.7.13.6'],
      ['9.4', '9.7.15.5', '9.7.15.6'],
    ] as const) {
      withEdition(e, () => {
        const r = reference(v('red.global.add.f32'), { memory: [H(1)], b: [H(1)] }).trail.find((t) => t.rule.startsWith('fp.atom-red.add.f32.global'))!;
        const a = reference(v('atom.global.add.f32'), { memory: [H(1)], b: [H(1)] }).trail.find((t) => t.rule.startsWith('fp.atom-red.add.f32.global'))!;
        expect([a.cite!.section, r.cite!.section, r.cite!.quote.includes('red.add.f32'), a.cite!.quote.includes('atom.add.f32')]).toEqual([
          atomSec,
          redSec,
          true,
          true,
        ]);
      });
    }
  });
  it('.min/.max on half types: by analogy with the non-atomic min/max before 9.3, stated from 9.3', () => {
    const rules = (e: '9.1' | '9.2' | '9.3' | '9.4') =>
      withEdition(e, () => reference(v('red.global.min.noftz.v2.f16'), { memory: [H(1), H(2)], b: [H(2), H(1)] }).trail.map((t) => t.rule));
    for (const e of ['9.1', '9.2'] as const) expect(rules(e)).toEqual(expect.arrayContaining(['fp.min', 'fp.atom-red.minmax.analogy']));
    for (const e of ['9.3', '9.4'] as const) {
      expect(rules(e)).toEqual(expect.arrayContaining(['fp.min', 'fp.atom-red.minmax']));
      expect(rules(e)).not.toContain('fp.atom-red.minmax.analogy');
    }
  });
  it('on shared memory the same sum keeps its subnormal', () => {
    expect(bitsOf(reference(v('atom.shared::cta.add.f32'), { memory: [H(1)], b: [H(1)] }).memory![0]![0]!)).toEqual(['0x2']);
  });
  it('generic addressing follows the memory the case lands in', () => {
    expect(bitsOf(reference(v('red.add.f32'), { memory: [H(1)], b: [H(1)], space: 'shared' }).memory![0]![0]!)).toEqual(['0x2']);
    expect(bitsOf(reference(v('red.add.f32'), { memory: [H(1)], b: [H(1)] }).memory![0]![0]!)).toEqual(['0x0']);
  });
  it('a sign-preserving flush: -subnormal + -subnormal is -0', () => {
    expect(bitsOf(reference(v('red.global.add.f32'), { memory: [H(0x80000001)], b: [H(0x80000001)] }).memory![0]![0]!)).toEqual(['0x80000000']);
  });
  it('.noftz half types keep subnormals, lane by lane', () => {
    const o = reference(v('red.global.add.noftz.f16x2'), { memory: [H(0x00010001)], b: [H(0x3c000001)] });
    expect(o.memory![0]!.map(bitsOf)).toEqual([['0x2'], ['0x3c00']]);
  });
  it('a NaN sum allows any NaN and says the payload is unspecified', () => {
    const o = reference(v('atom.global.add.f32'), { memory: [H(0x7f800000)], b: [H(0xff800000)] });
    expect(o.memory![0]![0]!.anyNaN).toBe(true);
    expect(o.unspecified).toContain('fp.nan-payload');
    expect(o.trail.map((t) => t.rule)).toContain('fp.nan-payload');
  });
  it('vector min on f16 orders -0 below +0 and lets a NaN lose (9.7.4.7)', () => {
    const o = reference(v('atom.global.min.noftz.v2.f16'), { memory: [H(0x0000), H(0x7e00)], b: [H(0x8000), H(0x3c00)] });
    expect(o.memory!.map((e) => bitsOf(e[0]!))).toEqual([['0x8000'], ['0x3c00']]);
    expect(o.trail.map((t) => t.rule)).toContain('fp.min');
  });
  it('integer ops: wrap-around add, inc/dec, cas and exch on b128', () => {
    expect(bitsOf(reference(v('atom.global.add.u32'), { memory: [H(0xffffffff)], b: [H(2)] }).memory![0]![0]!)).toEqual(['0x1']);
    expect(bitsOf(reference(v('atom.global.inc.u32'), { memory: [H(5)], b: [H(5)] }).memory![0]![0]!)).toEqual(['0x0']);
    expect(bitsOf(reference(v('atom.global.dec.u32'), { memory: [H(0)], b: [H(9)] }).memory![0]![0]!)).toEqual(['0x9']);
    const big = (1n << 127n) | 5n;
    expect(bitsOf(reference(v('atom.global.cas.b128'), { memory: [big], b: [big], c: [H(7)] }).memory![0]![0]!)).toEqual(['0x7']);
    expect(reference(v('atom.global.add.u32(_)'.replace('(_)', '')), { memory: [H(1)], b: [H(1)] }).returned).toBeDefined();
  });
  it('the bit bucket returns nothing', () => {
    const p = parseInstruction('atom.global.add.u32 _, [a], b;');
    expect(reference({ family: 'atom', q: p.q }, { memory: [H(1)], b: [H(1)] }).returned).toBeUndefined();
  });
  it('says what a case lacks', () => {
    expect(() => reference(v('atom.global.add.u32'), { memory: [H(1)] } as ReferenceCase)).toThrow(CaseError);
  });
});

describe('bulk reductions', () => {
  it('cp.reduce.async.bulk.add.f32 flushes element by element under the 9.1-9.3 text, keeps subnormals under 9.4', () => {
    const run = () =>
      reference(v('cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32'), { memory: [H(1), H(0x3f800000)], source: [H(1), H(0x3f800000)] });
    for (const e of ['9.1', '9.3'] as const) {
      const o = withEdition(e, run);
      expect(o.memory!.map((x) => bitsOf(x[0]!))).toEqual([['0x0'], ['0x40000000']]);
      expect(o.trail.map((t) => t.rule)).toContain('fp.bulk.add.f32');
    }
    const o = withEdition('9.4', run);
    expect(o.memory!.map((x) => bitsOf(x[0]!))).toEqual([['0x2'], ['0x40000000']]);
    expect(o.trail.map((t) => t.rule)).toContain('fp.bulk.add.f32.9.4');
  });
  it('multimem.cp.reduce.async.bulk.add.noftz.f16 keeps subnormals, in the destination on each GPU', () => {
    const o = reference(v('multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16'), {
      replicas: [[H(1)], [H(3)], [H(0x3c00)]],
      source: [H(1)],
    });
    expect(o.replicas!.map((r) => bitsOf(r[0]![0]!))).toEqual([['0x2'], ['0x4'], ['0x3c00']]);
    expect(o.memory).toBeUndefined();
  });
  it('multimem.cp.reduce.async.bulk: a case without replicas, or with a replica of another length, is refused', () => {
    const bulk = v('multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32');
    expect(() => reference(bulk, { memory: [1n, 2n, 3n, 4n], source: [1n, 1n, 1n, 1n] })).toThrow(/replicas/);
    expect(() =>
      reference(bulk, {
        replicas: [
          [1n, 2n, 3n, 4n],
          [1n, 2n],
        ],
        source: [1n, 1n, 1n, 1n],
      }),
    ).toThrow(/replica 1 has 2 elements and source 4/);
  });
});

describe('multimem', () => {
  it('ld_reduce.add.f16 over 3 replicas: the order matters, and the set says which order gives what', () => {
    const o = reference(v('multimem.ld_reduce.relaxed.sys.add.v2.f16'), {
      replicas: [[H(0x6800)], [H(0x3c00)], [H(0x3c00)]].map((r) => [(r[0]! << 16n) | r[0]!]),
    });
    const lane = o.returned![0]![0]!;
    expect(new Set(bitsOf(lane))).toEqual(new Set(['0x6800', '0x6801']));
    const ords = o.orders![0]![0]!;
    expect(ords.find((x) => x.bits === 0x6801n)!.witness).toMatch(/r1\+r2|r2\+r1/);
    expect(o.unspecified).toContain('fp.ftz-unstated');
  });
  it('.acc::f32 accumulates in f32 and rounds once', () => {
    const o = reference(v('multimem.ld_reduce.add.acc::f32.v2.f16'), { replicas: [[H(0x68006800)], [H(0x3c003c00)], [H(0x3c003c00)]] });
    expect(bitsOf(o.returned![0]![0]!)).toEqual(['0x6801']);
  });
  it('e4m3 overflow is unspecified: NaN or the largest finite value', () => {
    const o = reference(v('multimem.ld_reduce.add.v4.e4m3'), { replicas: [[H(0x7e)], [H(0x7e)]] });
    const lane = o.returned![0]![0]!;
    expect(lane.bits).toContain(0x7en);
    expect(lane.anyNaN).toBe(true);
    expect(o.unspecified).toContain('fp.fp8-overflow');
  });
  it('integer ld_reduce has exactly one result; st writes every replica; red reduces each', () => {
    expect(bitsOf(reference(v('multimem.ld_reduce.relaxed.sys.add.u32'), { replicas: [[H(1)], [H(2)], [H(0xffffffff)]] }).returned![0]![0]!)).toEqual(['0x2']);
    const st = reference(v('multimem.st.relaxed.sys.b32'), { replicas: [[H(1)], [H(2)]], b: [H(9)] });
    expect(st.replicas!.map((r) => bitsOf(r[0]![0]!))).toEqual([['0x9'], ['0x9']]);
    const rd = reference(v('multimem.red.relaxed.sys.max.u32'), { replicas: [[H(1)], [H(20)]], b: [H(9)] });
    expect(rd.replicas!.map((r) => bitsOf(r[0]![0]!))).toEqual([['0x9'], ['0x14']]);
  });
});

describe('vector atom/red in shared memory', () => {
  it('a generic vector variant with space: shared is a case the model refuses, citing the sentence; global and scalar ones are evaluated', async () => {
    const { parseInstruction } = await import('../../harness/catalog/parse.js');
    const { reference, CaseError } = await import('../../harness/reference/model.js');
    const v = (ptx: string) => {
      const p = parseInstruction(ptx);
      return { family: p.family.id, q: p.q };
    };
    expect(() => reference(v('atom.add.noftz.v2.f16'), { memory: [0x3c00n, 0x3c00n], b: [0x3c00n, 0x3c00n], space: 'shared' })).toThrow(CaseError);
    expect(() => reference(v('red.add.noftz.v2.f16'), { memory: [0x3c00n, 0x3c00n], b: [0x3c00n, 0x3c00n], space: 'shared' })).toThrow(
      /may be used only with .global space/,
    );
    expect(reference(v('atom.add.noftz.v2.f16'), { memory: [0x3c00n, 0x3c00n], b: [0x3c00n, 0x3c00n], space: 'global' }).memory![0]![0]!.bits).toEqual([
      0x4000n,
    ]);
    expect(reference(v('atom.add.noftz.f16'), { memory: [0x3c00n], b: [0x3c00n], space: 'shared' }).memory![0]![0]!.bits).toEqual([0x4000n]);
  });
});
