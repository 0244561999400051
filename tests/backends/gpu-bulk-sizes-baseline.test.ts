/**
 * The recorded H100 run (reports/baselines/h100-sm_90-bulk-sizes-im2col): bulk reductions of
 * 16 B to 64 KiB and the .im2col_no_offs tensor forms, every kept case replayed through the comparator
 * from its recorded bits; and the im2col box model (cp-reduce-async-bulk-tensor/im2col.ts) against the
 * executor's tensor-map geometry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SLOT, im2colGeometry, tensorMapGeometry } from '../../harness/backends/gpu/family.js';
import { judge } from '../../harness/compare/judge-case.js';
import { gpuPlan, kernelsText } from '../../harness/backends/gpu/plan.js';
import { resultVariant, variantOf } from '../../harness/compare/explain.js';
import { im2colBoxOffsets } from '../../harness/families/cp-reduce-async-bulk-tensor/im2col.js';
import { judgedAgainst } from '../helpers/spec.js';

const DIR = join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h100-sm_90-bulk-sizes-im2col');
type R = {
  id: string;
  ptx: string;
  kind: string;
  verdict: string;
  sass?: string;
  case?: { input: Record<string, string[]>; observed?: { memory?: string[] } };
};
const load = (f: string) =>
  JSON.parse(gunzipSync(readFileSync(join(DIR, f))).toString()) as { specEdition: string; partial: boolean; stats: Record<string, number>; results: R[] };
const big = (xs?: string[]) => xs?.map((x) => BigInt(x));
const replay = (r: R, memory = big(r.case!.observed!.memory)!) =>
  judge(r.id, variantOf(resultVariant(r)), { memory: big(r.case!.input.memory)!, source: big(r.case!.input.source)! }, { memory }).verdict;
const bytesOf = (r: R) => (r.case!.input.memory!.length * (r.case!.input.memory![0]!.length - 2) * 4) / 8;

describe('the recorded H100 run of bulk sizes and im2col (reports/baselines/h100-sm_90-bulk-sizes-im2col)', () => {
  const it = judgedAgainst('9.4');
  const files = load('files-report.json.gz');
  const library = load('library-report.json.gz');
  it('the vector files: 49 cases of 16 B to 64 KiB, every one replays to its recorded verdict, none a mismatch', () => {
    expect(files.specEdition).toBe('9.4');
    const ran = files.results.filter((r) => r.kind === 'case' && r.case?.observed);
    expect(ran).toHaveLength(49);
    expect(new Set(ran.map(bytesOf))).toEqual(new Set([16, 32, 48, 256, 4096, 65536]));
    expect(
      ran
        .filter((r) => bytesOf(r) === 65536)
        .map((r) => r.ptx)
        .sort(),
    ).toEqual([
      'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32',
      'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32',
      'cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u32',
      'cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32',
    ]);
    for (const r of ran) {
      expect(['pass', 'observed'], r.id).toContain(r.verdict);
      expect(replay(r), r.id).toBe(r.verdict);
      expect(r.sass, r.id).toMatch(/UBLKRED\./);
    }
  });
  it('a recorded 64 KiB case with its last element one bit off would be a mismatch (the replay can fail)', () => {
    const r = files.results.find((x) => x.case?.observed && bytesOf(x) === 65536 && x.ptx.includes('shared::cluster'))!;
    const m = big(r.case!.observed!.memory)!;
    m[m.length - 1] = m[m.length - 1]! ^ 1n;
    expect(replay(r, m)).toBe('mismatch');
  });
  it('the largest cases one CTA holds on the H100 pass (227 KiB to .global, 113.5 KiB to .shared::cluster); one step more is skipped with both numbers', () => {
    const max = load('max-report.json.gz');
    const ran = max.results.filter((r) => r.case?.observed);
    expect(ran.map((r) => [r.ptx.split('.')[4], bytesOf(r), r.verdict]).sort()).toEqual([
      ['global', 232448, 'pass'],
      ['shared::cluster', 116208, 'pass'],
    ]);
    for (const r of ran) expect(replay(r), r.id).toBe('pass');
    const skipped = max.results.filter((r) => r.verdict === 'skipped').map((r) => (r as { reason?: string }).reason);
    expect(skipped.sort()).toEqual([
      expect.stringMatching(/^a case of 116224 bytes needs 232456 bytes of shared memory in one CTA and NVIDIA H100 80GB HBM3 allows 232448/),
      expect.stringMatching(/^a case of 232464 bytes needs 232464 bytes of shared memory in one CTA and NVIDIA H100 80GB HBM3 allows 232448/),
    ]);
  });
  it('the library: 742 variants, no mismatch or error, every skip for the toolchain; every kept case replays', () => {
    expect(library.partial).toBe(false);
    expect(library.stats.variants).toBe(742);
    expect(Object.keys(library.stats).filter((k) => /\.(mismatch|error)$/.test(k) && library.stats[k]! > 0)).toEqual([]);
    const skipped = library.results.filter((r) => r.verdict === 'skipped');
    expect(skipped.length).toBe(268);
    expect(skipped.every((r) => /toolchain too old/.test((r as { reason?: string }).reason ?? ''))).toBe(true);
    const cases = library.results.filter((r) => r.kind === 'case' && r.case?.observed);
    expect(cases.length).toBeGreaterThan(3000);
    for (const r of cases) expect(replay(r), r.id).toBe(r.verdict);
  }, 120_000);
  it('the .im2col_no_offs variants ran (3d, 4d, 5d) on UTMAREDG.<n>D.IM2COL, every kept case pass or observed', () => {
    // 742 variants = 66 cp.reduce.async.bulk + 520 tile (as in h100-sm_90-new-families) + 156 im2col; the
    // report keeps the probes of the 78 without a cache hint (3 dims x 26 .redOp x tensor-map types)
    expect(gpuPlan('sm_90', '9.0').variants.filter((v) => v.entry.q.load_mode === 'im2col_no_offs')).toHaveLength(156);
    const im = library.results.filter((r) => r.kind === 'case' && r.id.includes('.im2col_no_offs') && r.case?.observed);
    const variants = new Set(im.map((r) => resultVariant(r)));
    expect(variants.size).toBe(78);
    expect(new Set(im.map((r) => /tensor\.(\dd)\./.exec(r.ptx)![1]))).toEqual(new Set(['3d', '4d', '5d']));
    for (const r of im) {
      expect(['pass', 'observed'], r.id).toContain(r.verdict);
      expect(r.sass, r.id).toMatch(new RegExp(`UTMAREDG\\.${/tensor\.(\d)d/.exec(r.ptx)![1]}D\\.IM2COL\\.`));
    }
  });
});

describe('which elements an im2col box covers (5.5.4) over the executor geometry', () => {
  // the coordinates the tensor kernel writes for case i (cp-reduce-async-bulk-tensor/gpu.ts), read off its PTX
  const kernelCoords = (rank: number, i: number) => {
    const plan = gpuPlan('sm_90', '9.0');
    const v = plan.variants.find(
      (x) => x.entry.family === 'cp.reduce.async.bulk.tensor' && x.entry.q.load_mode === 'im2col_no_offs' && x.entry.q.dim === `${rank}d`,
    )!;
    const regs: Record<string, number> = { '%s3': i };
    for (const line of kernelsText(plan, [v]).split('\n')) {
      const m = /^\s+(mov|shr|and)\.(?:u32|b32) (%c\d), (%?\w+)(?:, (\d+))?;/.exec(line);
      if (!m) continue;
      const a = m[3]!.startsWith('%') ? regs[m[3]!]! : Number(m[3]);
      regs[m[2]!] = m[1] === 'mov' ? a : m[1] === 'shr' ? a >>> Number(m[4]) : a & Number(m[4]);
    }
    return Array.from({ length: rank }, (_, k) => regs[`%c${k}`]!);
  };
  it.each([3, 4, 5])('rank %i: the box of case i is exactly slot i (channels 0..E-1 of one pixel)', (rank) => {
    for (const [elements, bytes] of [
      [4, 4],
      [8, 2],
      [2, 8],
    ] as const) {
      const n = 37;
      const g = tensorMapGeometry(rank, elements, n);
      const i2c = im2colGeometry(rank);
      const map = {
        dims: g.dims,
        strides: g.strides,
        elementBytes: bytes,
        lower: i2c.lower,
        upper: i2c.upper,
        channelsPerPixel: elements,
        pixelsPerColumn: i2c.pixelsPerColumn,
      };
      for (let i = 0; i < n; i++) {
        expect(im2colBoxOffsets(map, kernelCoords(rank, i))).toEqual(Array.from({ length: elements }, (_, k) => SLOT * i + k * bytes));
      }
    }
  });
  it('refuses what the text forbids: a rank outside 3-5, a filter base outside the bounding box, channels past C', () => {
    const g = tensorMapGeometry(3, 4, 8);
    const map = { dims: g.dims, strides: g.strides, elementBytes: 4, lower: [0], upper: [0], channelsPerPixel: 4, pixelsPerColumn: 1 };
    expect(() => im2colBoxOffsets(map, [0, 2, 0])).toThrow(/outside the bounding box/);
    expect(() => im2colBoxOffsets({ ...map, upper: [-1] }, [0, 1, 0])).toThrow(/outside the bounding box/);
    expect(() => im2colBoxOffsets({ ...map, channelsPerPixel: 5 }, [0, 0, 0])).toThrow(/past C/);
    const g2 = tensorMapGeometry(2, 4, 8);
    expect(() => im2colBoxOffsets({ ...map, dims: g2.dims, strides: g2.strides, lower: [], upper: [] }, [0, 0])).toThrow(/3D, 4D and 5D/);
    expect(() => im2colGeometry(2)).toThrow(/rank 3-5/);
  });
  it('two pixels per column walk W first, then the next row (the reading the executor does not use on hardware)', () => {
    const g = tensorMapGeometry(4, 4, 16);
    const map = { dims: g.dims, strides: g.strides, elementBytes: 4, lower: [0, 0], upper: [0, 0], channelsPerPixel: 4, pixelsPerColumn: 2 };
    // pixel (w=1, h=0, n=0) then (w=0, h=1, n=0): slots 1 and 2
    expect(im2colBoxOffsets(map, [0, 1, 0, 0])).toEqual([16, 20, 24, 28, 32, 36, 40, 44]);
  });
});
