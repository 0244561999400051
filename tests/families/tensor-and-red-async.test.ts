/**
 * cp.reduce.async.bulk.tensor (its element type held by the tensor map, a
 * descriptor slot) and red.async. Parsing, enumeration, the tensor-map geometry the gpu executor
 * builds, what an observed float add did with subnormals, and the recorded H100 run replayed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { findTarget } from '../../harness/arch/targets.js';
import { enumerateCatalog } from '../../harness/catalog/enumerate.js';
import { evaluate } from '../../harness/catalog/evaluate.js';
import { ParseError, parseInstruction } from '../../harness/catalog/parse.js';
import { SLOT, tensorMapGeometry } from '../../harness/backends/gpu/family.js';
import { judge } from '../../harness/compare/judge-case.js';
import { resultVariant, subnormalBehaviour, variantOf } from '../../harness/compare/explain.js';
import { familyById } from '../../harness/registry/index.js';

const TENSOR = 'cp.reduce.async.bulk.tensor';

describe('a value held outside the instruction (the tensor map element type)', () => {
  it('is written after the opcode in parentheses, and the id carries it', () => {
    const p = parseInstruction(`${TENSOR}.2d.global.shared::cta.add.tile.bulk_group(f32) [tm, {x, y}], [s];`);
    expect(p.q.type).toBe('f32');
    expect(p.ptx).toBe(`${TENSOR}.2d.global.shared::cta.add.tile.bulk_group`);
    expect(p.id).toBe(`${TENSOR}.2d.global.shared::cta.add.tile.bulk_group(f32)`);
    expect(p.violations).toEqual([]);
  });
  it('the table decides per type: .min with an f32 map is invalid, with an f16 map valid', () => {
    expect(parseInstruction(`${TENSOR}.1d.global.shared::cta.min.bulk_group(f32)`).evaluation.status).toBe('invalid');
    expect(parseInstruction(`${TENSOR}.1d.global.shared::cta.min.bulk_group(f16)`).evaluation.status).toBe('valid');
  });
  it('a type spelled as a qualifier is refused with where to write it', () => {
    expect(() => parseInstruction(`${TENSOR}.1d.global.shared::cta.add.bulk_group.f32`)).toThrow(/held by the tensor map.*\(f32\)/);
  });
  it('a family without such a slot refuses a value in parentheses', () => {
    expect(() => parseInstruction('atom.global.add.f32(f16)')).toThrow(ParseError);
  });
  it('the coordinates operand must hold one coordinate per .dim', () => {
    const p = parseInstruction(`${TENSOR}.3d.global.shared::cta.add.bulk_group(u32) [tm, {x, y}], [s];`);
    expect(p.violations.map((v) => v.rule)).toContain(`${TENSOR}.operands.vector`);
  });
  it('no invalid neighbour is a spelling ptxas could accept for another tensor-map type', () => {
    const fam = familyById(TENSOR)!;
    const ns = enumerateCatalog({ target: findTarget('sm_90')!, ptx: '9.0', families: [fam], isaNeighbours: false, spellings: false }).filter(
      (e) => e.kind === 'neighbour',
    );
    expect(ns.length).toBeGreaterThan(100);
    const types = fam.slots.find((s) => s.name === 'type')!.values;
    for (const n of ns) for (const t of types) expect(evaluate(fam, { ...n.q, type: t }).status, `${n.id} with (${t})`).toBe('invalid');
    // and the check is not vacuous: .add -> .min with an f32 map is invalid, yet valid with f16
    expect(
      evaluate(fam, {
        ...ns[0]!.q,
        op: 'min',
        type: 'f16',
        dim: '1d',
        load_mode: '',
        hint: '',
        override_addr: '',
        override_attr: '',
        dst: 'global',
        src: 'shared::cta',
        completion: 'bulk_group',
      }).status,
    ).toBe('valid');
  });
});

describe('red.async catalog', () => {
  it('the .release form lists .gpu/.cluster until 9.2 and .gpu/.sys from 9.3', async () => {
    const { withEdition } = await import('../../harness/catalog/editions.js');
    const fam = familyById('red.async')!;
    const q = (scope: string) => parseInstruction(`red.async.release.${scope}.global.add.u32`).q;
    expect(withEdition('9.4', () => evaluate(fam, q('sys')).status)).toBe('valid');
    expect(withEdition('9.4', () => evaluate(fam, q('cluster')).status)).toBe('invalid');
    expect(withEdition('9.1', () => evaluate(fam, q('cluster')).status)).toBe('valid');
    expect(withEdition('9.1', () => evaluate(fam, q('sys')).status)).toBe('ambiguous');
  });
  it('.add.s64 belongs to the .release form only', () => {
    expect(parseInstruction('red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s64').evaluation.status).toBe('invalid');
    expect(parseInstruction('red.async.release.gpu.global.add.s64').evaluation.status).toBe('valid');
  });
});

describe('the tensor map over case slots (tensorMapGeometry)', () => {
  // the coordinates the kernel writes for case i (cp-reduce-async-bulk-tensor/gpu.ts)
  const coords = (rank: number, elements: number, i: number) =>
    rank === 1 ? [i * elements] : [0, ...Array.from({ length: rank - 2 }, (_, d) => (i >> d) & 1), i >> (rank - 2)];
  it.each([1, 2, 3, 4, 5])('rank %i: the box of case i starts at byte 16*i, inside the map', (rank) => {
    for (const [elements, bytes] of [
      [4, 4],
      [8, 2],
      [2, 8],
    ] as const) {
      const n = 37;
      const g = tensorMapGeometry(rank, elements, n);
      expect(g.dims.length).toBe(rank);
      expect(g.strides.length).toBe(rank - 1);
      expect(Number(g.dims[0]) * (rank === 1 ? 1 : bytes)).toBeGreaterThanOrEqual(rank === 1 ? elements * n : SLOT);
      for (let i = 0; i < n; i++) {
        const c = coords(rank, elements, i);
        const offset = c[0]! * bytes + c.slice(1).reduce((s, x, k) => s + x * Number(g.strides[k]!), 0);
        expect(offset).toBe(SLOT * i);
        c.forEach((x, k) => expect(x + g.box[k]!).toBeLessThanOrEqual(Number(g.dims[k]!)));
      }
    }
  });
});

describe('what an observed float add did with subnormals', () => {
  const v = `${TENSOR}.1d.global.shared::cta.add.bulk_group(f32)`;
  const input = { memory: ['0x00000001', '0x007fffff', '0x3f800000'], source: ['0x00000001', '0x00000001', '0x3f800000'] };
  it('kept, flushed, mixed, or undefined where no lane tells', () => {
    expect(subnormalBehaviour({ variant: v, input, observed: { memory: ['0x00000002', '0x00800000', '0x40000000'] } })).toBe('kept');
    expect(subnormalBehaviour({ variant: v, input, observed: { memory: ['0x00000000', '0x00000000', '0x40000000'] } })).toBe('flushed');
    expect(subnormalBehaviour({ variant: v, input, observed: { memory: ['0x00000002', '0x00000000', '0x40000000'] } })).toBe('mixed');
    expect(subnormalBehaviour({ variant: v, input: { memory: ['0x3f800000'], source: ['0x3f800000'] }, observed: { memory: ['0x40000000'] } })).toBeUndefined();
  });
});

describe('the recorded H100 run of the new families (reports/baselines/h100-sm_90-new-families)', () => {
  const doc = JSON.parse(
    gunzipSync(
      readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h100-sm_90-new-families', 'default-gpu-run-report.json.gz')),
    ).toString(),
  ) as {
    specEdition: string;
    results: {
      id: string;
      ptx: string;
      kind: string;
      verdict: string;
      sass?: string;
      case?: { input: Record<string, string[]>; observed?: { memory?: string[] }; subnormals?: string };
    }[];
  };
  const tensorAdds = doc.results.filter((r) => r.kind === 'case' && r.case?.observed && r.id.startsWith(TENSOR) && /\.add\..*\((f32|f16|bf16)\)/.test(r.id));
  it('was judged under 9.4 and holds the tensor float adds with their SASS', () => {
    expect(doc.specEdition).toBe('9.4');
    expect(tensorAdds.length).toBeGreaterThan(100);
    expect(tensorAdds.every((r) => /UTMAREDG\.\dD\.ADD/.test(r.sass ?? ''))).toBe(true);
  });
  it('every kept tensor float add re-judges from its bits as recorded, and every one that tells kept subnormals', () => {
    let telling = 0;
    for (const r of tensorAdds) {
      const variant = resultVariant(r);
      const input = { memory: r.case!.input.memory!.map(BigInt), source: r.case!.input.source!.map(BigInt) };
      const observed = r.case!.observed!.memory!.map(BigInt);
      expect(judge(r.id, variantOf(variant), input, { memory: observed }).verdict, r.id).toBe(r.verdict);
      const sub = subnormalBehaviour({ variant, input: r.case!.input, observed: r.case!.observed! });
      if (sub) {
        telling++;
        expect(sub, r.id).toBe('kept');
      }
    }
    expect(telling).toBeGreaterThanOrEqual(90);
  });
  it('a recorded case with its subnormal lanes flushed would read as flushed (the check can fail)', () => {
    const r = tensorAdds.find((x) => x.case!.subnormals === 'kept' && x.id.includes('(f32)'))!;
    const input = r.case!.input;
    const flushed = input.memory!.map((m, i) => {
      const a = Number(BigInt(m));
      const b = Number(BigInt(input.source![i]!));
      const f = (x: number) => ((x & 0x7f800000) === 0 ? x & 0x80000000 : x);
      const buf = new DataView(new ArrayBuffer(8));
      buf.setUint32(0, f(a));
      buf.setUint32(4, f(b));
      const s = Math.fround(buf.getFloat32(0) + buf.getFloat32(4));
      buf.setFloat32(0, s);
      return `0x${(f(buf.getUint32(0)) >>> 0).toString(16).padStart(8, '0')}`;
    });
    expect(subnormalBehaviour({ variant: resultVariant(r), input, observed: { memory: flushed } })).toBe('flushed');
  });
  it('red.async: every case passed, on REDAS', () => {
    const ra = doc.results.filter((r) => r.id.startsWith('red.async') && r.kind === 'case' && r.verdict !== 'skipped');
    expect(ra.length).toBeGreaterThan(10);
    expect(ra.every((r) => r.verdict === 'pass' && /REDAS\./.test(r.sass ?? ''))).toBe(true);
  });
});
