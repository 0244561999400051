/**
 * Bulk reductions of every valid size on the GPU executor: the size rule and its refusal,
 * the wide launch shape and kernel (one CTA per case, dynamic shared memory past 48 KiB), generated
 * cases of a size replayed from their ids, and the whole pipeline against the stand-in launcher
 * (tests/fixtures/standin-launcher.cts), where a wrong last element of a 64 KiB case must be caught.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCases, parseGenId } from '../../cases/generators/cases.js';
import { wideShape } from '../../harness/backends/gpu/placement.js';
import { launchShape } from '../../harness/backends/gpu/batch.js';
import { wideKernelName } from '../../harness/backends/gpu/family.js';
import { gpuPlan, kernelsText } from '../../harness/backends/gpu/plan.js';
import { findCase, variantFromId } from '../../harness/case-readers/sources.js';
import { bulkCaseBytes } from '../../harness/families/cp-reduce-async-bulk/gpu.js';
import { BULK_SIZE_RULE, MULTIMEM_BULK_SIZE_RULE } from '../../harness/families/shared/bulk.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runWithStandin } from '../helpers/standin.js';
import { specRoot, specText } from '../helpers/spec.js';

const GLOBAL_F32 = 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32';
const CLUSTER_U32 = 'cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32';
const plan = gpuPlan('sm_90', '9.0');
const gv = (id: string) => plan.byId.get(id)!;
const els = (n: number) => Array.from({ length: n }, (_, i) => BigInt(i));
const H100 = { ordinal: 0, name: 'H100 stand-in', cc: '9.0', sm: 90, smCount: 132, multicastSupported: false, sharedPerBlockOptin: 232448 };

describe('the size rule of a bulk case', () => {
  it.skipIf(!specRoot('the bulk size rule against its PTX ISA excerpt'))(
    'quotes the sentence of the excerpt it cites (cp.reduce.async.bulk and multimem.cp.reduce.async.bulk)',
    () => {
      for (const rule of [BULK_SIZE_RULE, MULTIMEM_BULK_SIZE_RULE]) {
        const text = specText(rule.file).replaceAll('`', '').replace(/\s+/g, ' ');
        expect(text, rule.file).toContain(rule.quote);
      }
    },
  );
  it('refuses a size that is not a multiple of 16 bytes with that sentence, and unequal arrays', () => {
    const r = bulkCaseBytes({ memory: els(3), source: els(3) }, 32);
    expect(r).toMatch(
      /is 12 bytes, not a multiple of 16: PTX ISA 9\.7\.9\.25\.4\.2 .*size must be a multiple of 16; dstMem and srcMem must be 16-byte aligned\..*give a multiple of 4 elements/,
    );
    expect(bulkCaseBytes({ memory: els(4), source: els(8) }, 32)).toMatch(/4 destination and 8 source elements/);
    expect(bulkCaseBytes({ memory: [], source: [] }, 32)).toMatch(/not a multiple of 16/);
    expect(gv(GLOBAL_F32).gpu.caseUnfit({ memory: els(6), source: els(6) }, gv(GLOBAL_F32).shape)).toMatch(/24 bytes, not a multiple of 16/);
  });
  it('takes every multiple of 16 bytes: 16 in the one-slot kernel, more in the wide one', () => {
    const v = gv(GLOBAL_F32);
    for (const n of [4, 8, 12, 1024, 16384, 58112]) {
      expect(v.gpu.caseUnfit({ memory: els(n), source: els(n) }, v.shape)).toBeUndefined();
      expect(v.gpu.wide!.bytes({ memory: els(n), source: els(n) }, v.shape)).toBe(n === 4 ? undefined : n * 4);
    }
  });
});

describe('the wide launch', () => {
  it('sizes shared memory and the grid per case: the bytes (.global), twice them and an mbarrier (.shared::cluster)', () => {
    for (const bytes of [32, 48, 4096, 65536]) {
      const g = wideShape(gv(GLOBAL_F32), bytes, H100);
      const c = wideShape(gv(CLUSTER_U32), bytes, H100);
      if ('why' in g || 'why' in c) throw new Error('refused');
      expect(g.kernel).toBe(wideKernelName(gv(GLOBAL_F32).name));
      expect(g.shape).toMatchObject({ caseBytes: bytes, elements: bytes / 4, perCta: { threads: 128, sharedBytes: bytes } });
      expect(c.shape).toMatchObject({ caseBytes: bytes, elements: bytes / 4, clustered: true, perCta: { sharedBytes: 2 * bytes + 8 } });
      expect(launchShape(g.shape, 5)).toEqual({ grid: [5, 1, 1], block: [128, 1, 1], shared: bytes });
      expect(launchShape(c.shape, 5)).toEqual({ grid: [6, 1, 1], block: [128, 1, 1], shared: 2 * bytes + 8 });
    }
    // the one-slot kernel: one thread per case
    expect(launchShape(gv(GLOBAL_F32).shape, 300)).toEqual({ grid: [2, 1, 1], block: [256, 1, 1], shared: 0 });
  });
  it('refuses a case whose shared memory the device cannot give, naming both numbers', () => {
    const r = wideShape(gv(CLUSTER_U32), 131072, H100);
    expect('why' in r && r.why).toMatch(/262152 bytes of shared memory in one CTA and H100 stand-in allows 232448/);
    expect('why' in wideShape(gv(GLOBAL_F32), 131072, H100)).toBe(false);
  });
  it('every bulk variant has a wide kernel beside its own, and the module assembles', async () => {
    const vs = plan.variants.filter((v) => v.entry.family === 'cp.reduce.async.bulk');
    expect(vs.length).toBeGreaterThan(60);
    const text = kernelsText(plan, vs);
    for (const v of vs) {
      expect(text).toContain(`.visible .entry ${v.name}w(`);
      // the reduction takes its size from the case's bytes (pc), its addresses from staged shared memory
      expect(text).toMatch(new RegExp(`${v.entry.ptx.replace(/[.:]/g, (c) => `\\${c}`)} \\[%(a7|s8)\\], \\[%s4\\], %s7`));
    }
    const p = await ptxasOrReason();
    if (typeof p === 'string') return;
    const { compileModules } = await import('../../harness/backends/gpu/cache.js');
    const dir = join(tmpdir(), `ptxconf-wide-${process.pid}`);
    try {
      const r = await compileModules([text], { ptxas: p, arch: 'sm_90', cacheDir: dir });
      expect(r.modules[0]!.cubin).toBeTruthy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('generated cases of a size', () => {
  it('are 16-byte level-3 cases laid end to end, and replay from their ids', async () => {
    const v = variantFromId(CLUSTER_U32)!;
    const [c] = generateCases(v, 7, 3, 1, 2, 64);
    expect(c!.id).toBe(`${CLUSTER_U32}/gen:seed=7:level=3:bytes=64:i=2`);
    const parts = generateCases(v, 7, 3, 4, 8);
    expect(c!.input.memory).toEqual(parts.flatMap((p) => p.input.memory!));
    expect(c!.input.source).toEqual(parts.flatMap((p) => p.input.source!));
    expect(parseGenId(c!.id)).toEqual({ variant: CLUSTER_U32, seed: 7, level: 3, index: 2, bytes: 64 });
    expect((await findCase(c!.id)).case!.input).toEqual(c!.input);
    expect((await findCase(`${CLUSTER_U32}/gen:seed=7:level=3:bytes=24:i=0`)).why).toMatch(/positive multiple of 16 bytes/);
    expect(() => generateCases(variantFromId('atom.global.add.u32')!, 7, 3, 1, 0, 32)).toThrow(/not a bulk reduction/);
  });
});

describe('a vector file with a bulk case of a wrong size', () => {
  it('is refused before anything runs: exit 2, the file and line, the sentence', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const dir = join(tmpdir(), `ptxconf-badsize-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      `cases:\n  - name: twelve\n    instruction: ${GLOBAL_F32}\n    memory: ["0x3f800000", "0x3f800000", "0x3f800000"]\n    source: ["0x3f800000", "0x3f800000", "0x3f800000"]\n`,
    );
    try {
      const r = await runWithStandin(['--backend', 'reference', '--arch', 'sm_90', '--vectors', file, '--report', join(dir, 'r')]);
      expect(r.code).toBe(2);
      expect(r.out).toMatch(/bad\.yaml:4/);
      expect(r.out).toMatch(
        /bulk size must be a multiple of 16 bytes: 3 x 4 bytes is not \(PTX ISA 9\.7\.9\.25\.4\.2 \(cp-reduce-async-bulk\.md\), Description: "size must be a multiple of 16; dstMem and srcMem must be 16-byte aligned\."\)/,
      );
      expect(r.out).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bulk cases of 16 B to 64 KiB end to end against the stand-in launcher', async () => {
  const p = await ptxasOrReason();
  const run = async (env: Record<string, string>, files: string[], library: boolean) => {
    const saved = { ...process.env };
    Object.assign(process.env, { PTX_CONFORMANCE_ADDON: join(import.meta.dirname, '..', 'fixtures', 'standin-launcher.cts'), ...env });
    const cache = join(tmpdir(), `ptxconf-cubins-wide-${process.pid}`);
    try {
      const { runGpuBackend, childCommand } = await import('../../harness/backends/gpu/backend.js');
      const { findTarget } = await import('../../harness/arch/targets.js');
      const { streamVectors } = await import('../../harness/case-readers/vectors.js');
      const results: { verdict: string; id: string; reason: string; case?: { input: { memory?: string[] } } }[] = [];
      const ids = new Set([GLOBAL_F32, CLUSTER_U32]);
      const r = await runGpuBackend({
        target: findTarget('sm_90')!,
        ptx: '9.0',
        ptxas: p as Exclude<typeof p, string>,
        device: H100,
        keep: (id) => ids.has(id),
        seed: 3,
        library,
        generated: 0,
        cases: streamVectors(files, process.cwd(), { keep: (id) => ids.has(id), packed: true }),
        cacheDir: cache,
        executor: childCommand('executor'),
        worker: childCommand('worker'),
        workers: 2,
        onResults: (rs) => results.push(...(rs as unknown as typeof results)),
      });
      return { ...r, list: results };
    } finally {
      process.env = saved;
      rmSync(cache, { recursive: true, force: true });
    }
  };
  const sizes = join(import.meta.dirname, '..', '..', 'cases', 'vectors', 'cp-reduce-async-bulk-sizes.yaml');
  it.skipIf(typeof p === 'string')(
    'right hardware: the file cases of every size and the library cases of 32 B to 64 KiB pass; no case is skipped',
    async () => {
      const a = await run({}, [sizes], true);
      const fileCases = a.list.filter((x) => x.id.includes('cp-reduce-async-bulk-sizes.yaml'));
      expect(fileCases).toHaveLength(10);
      // f32 adds with a NaN operand are `observed` (the text leaves the payload open)
      expect(fileCases.filter((x) => !['pass', 'observed'].includes(x.verdict))).toEqual([]);
      expect(fileCases.filter((x) => x.verdict === 'pass').length).toBeGreaterThanOrEqual(6);
      expect(a.list.filter((x) => !['pass', 'observed'].includes(x.verdict))).toEqual([]);
      // library: the one-slot cases and 2 generated cases of each of 32, 48, 4096, 65536 bytes per variant
      expect(a.stats['total.cp.reduce.async.bulk.pass']! + (a.stats['total.cp.reduce.async.bulk.observed'] ?? 0)).toBe(a.stats.cases);
      expect(a.stats.jobs).toBeGreaterThanOrEqual(2 * 5);
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'wrong hardware: a flipped last element of every wide case is a mismatch, at every size',
    async () => {
      const a = await run({ PTXCONF_STANDIN_FLIP: '1' }, [sizes], true);
      // (the stand-in flips every one-slot case too: those are the 16-byte cases)
      const size = (id: string) => /bytes=(\d+)/.exec(id)?.[1] ?? /-(\d+)B$/.exec(id)?.[1] ?? '16';
      const wrong = a.list.filter((x) => x.verdict === 'mismatch' && size(x.id) !== '16');
      expect([...new Set(wrong.map((x) => size(x.id)))].sort()).toEqual(['256', '32', '4096', '48', '65536']);
      // every wide case: 2 variants x (4 library sizes x 2 cases + 4 file sizes past 16 B)
      expect(wrong.length).toBe(2 * (4 * 2 + 4));
      expect(a.list.filter((x) => x.verdict === 'pass' && size(x.id) !== '16')).toEqual([]);
    },
    240_000,
  );
});

describe('tensor maps through the stand-in launcher: the box each case reduces is found from the map the executor encoded', async () => {
  const p = await ptxasOrReason();
  const T = 'cp.reduce.async.bulk.tensor';
  const ids = new Set([
    `${T}.1d.global.shared::cta.add.tile.bulk_group(u32)`,
    `${T}.3d.global.shared::cta.add.tile.bulk_group(f16)`,
    `${T}.3d.global.shared::cta.add.im2col_no_offs.bulk_group(u32)`,
    `${T}.4d.global.shared::cta.add.im2col_no_offs.bulk_group(u64)`,
    `${T}.5d.global.shared::cta.add.im2col_no_offs.bulk_group(u32)`,
    `${T}.5d.global.shared::cta.min.im2col_no_offs.bulk_group(f16)`,
  ]);
  const run = async (env: Record<string, string>) => {
    const saved = { ...process.env };
    Object.assign(process.env, { PTX_CONFORMANCE_ADDON: join(import.meta.dirname, '..', 'fixtures', 'standin-launcher.cts'), ...env });
    const cache = join(tmpdir(), `ptxconf-cubins-tensor-${process.pid}`);
    try {
      const { runGpuBackend, childCommand } = await import('../../harness/backends/gpu/backend.js');
      const { findTarget } = await import('../../harness/arch/targets.js');
      const results: { verdict: string; id: string; reason: string }[] = [];
      const r = await runGpuBackend({
        target: findTarget('sm_90')!,
        ptx: '9.0',
        ptxas: p as Exclude<typeof p, string>,
        device: H100,
        keep: (id) => ids.has(id),
        seed: 5,
        library: true,
        generated: 40,
        cases: [],
        cacheDir: cache,
        executor: childCommand('executor'),
        worker: childCommand('worker'),
        workers: 2,
        onResults: (rs) => results.push(...(rs as unknown as typeof results)),
      });
      return { ...r, list: results };
    } finally {
      process.env = saved;
      rmSync(cache, { recursive: true, force: true });
    }
  };
  it.skipIf(typeof p === 'string')(
    "right hardware: tiled and im2col (3d-5d) maps put case i's box on slot i, every case passes or is observed",
    async () => {
      const a = await run({});
      expect(a.stats.variants).toBe(6);
      expect(a.stats.cases).toBeGreaterThan(6 * 40);
      expect(a.list.filter((x) => !['pass', 'observed'].includes(x.verdict))).toEqual([]);
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'wrong hardware: every 5th case one bit off is a mismatch in every variant, im2col included',
    async () => {
      const a = await run({ PTXCONF_STANDIN_FLIP: '5' });
      const wrong = a.list.filter((x) => x.verdict === 'mismatch');
      expect(new Set(wrong.map((x) => x.id.split('/')[0]))).toEqual(ids);
    },
    240_000,
  );
});
