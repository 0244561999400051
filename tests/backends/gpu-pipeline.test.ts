/**
 * The one case pipeline onto the GPU, on a CPU: the whole gpu backend (plan, ptxas and the cubin
 * cache, the worker pool, typed-array batches, the fast judge, the full reference for flagged cases,
 * results) against a stand-in launcher that "runs" each kernel with the reference model
 * (tests/fixtures/standin-launcher.cts), so that wrong hardware (flipped bits) must be caught; and the
 * recorded H100 runs of the new pipeline replayed through the comparator.
 */
import { judgedAgainst } from '../helpers/spec.js';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { randomInputs, randomShape } from '../../cases/generators/cases.js';
import { laneTable, stringKey } from '../../cases/generators/random.js';
import { decodeCase, fillGenerated } from '../../harness/backends/gpu/batch.js';
import { judge } from '../../harness/compare/judge-case.js';
import { gpuPlan } from '../../harness/backends/gpu/plan.js';
import { parseInstruction } from '../../harness/catalog/parse.js';
import { elementFormat } from '../../harness/numerics/formats.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const big = (xs?: string[]) => xs?.map((x) => BigInt(x));

describe('level-3 cases written straight into launch buffers', () => {
  it('are bit for bit the cases generateCases gives (every 41st variant of the sm_90 plan, 40 cases each)', () => {
    const plan = gpuPlan('sm_90', '9.0');
    let n = 0;
    for (const gv of plan.variants.filter((_, i) => i % 41 === 0)) {
      const v = { family: gv.entry.family, q: gv.entry.q, ptx: gv.entry.ptx, id: gv.entry.id };
      const fmt = elementFormat(v.q.type ?? '');
      const shape = randomShape(v);
      const bufs = [0, 1, 2].map(() => Buffer.alloc(40 * 16));
      fillGenerated(
        bufs.map((b) => new Uint32Array(b.buffer, b.byteOffset, b.length / 4)),
        0,
        40,
        shape,
        laneTable(fmt.lane),
        gv.shape.width,
        fmt.lanes,
        11,
        stringKey(v.id),
        500,
      );
      const want = randomInputs(v, 11, 40, 500);
      for (let i = 0; i < 40; i++, n++) expect(decodeCase(bufs, i, gv.shape.width, shape), `${v.id} case ${i}`).toEqual(want[i]);
    }
    expect(n).toBeGreaterThan(10_000);
  });
});

describe('the gpu backend end to end against the stand-in launcher', async () => {
  const p = await ptxasOrReason();
  if (typeof p === 'string') console.log(`[skip] gpu pipeline test: ${p}`);
  const run = async (env: Record<string, string>, cacheDir: string, generated = 200) => {
    const saved = { ...process.env };
    Object.assign(process.env, { PTX_CONFORMANCE_ADDON: join(import.meta.dirname, '..', 'fixtures', 'standin-launcher.cts'), ...env });
    try {
      const { runGpuBackend, childCommand } = await import('../../harness/backends/gpu/backend.js');
      const { findTarget } = await import('../../harness/arch/targets.js');
      const results: { verdict: string; id: string; reason: string }[] = [];
      const ids = new Set([
        'atom.global.add.f32',
        'red.global.add.noftz.v4.f16x2',
        'atom.add.u32',
        'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32',
        'atom.global.cas.b64',
        'atom.shared::cta.max.s32',
      ]);
      const r = await runGpuBackend({
        target: findTarget('sm_90')!,
        ptx: '9.0',
        ptxas: p as Exclude<typeof p, string>,
        device: { ordinal: 0, name: 'stand-in', cc: '9.0', sm: 90, smCount: 132, multicastSupported: false },
        keep: (id) => ids.has(id),
        seed: 3,
        library: true,
        generated,
        cases: [],
        cacheDir,
        executor: childCommand('executor'),
        worker: childCommand('worker'),
        workers: 2,
        onResults: (rs) => results.push(...rs),
        onProgress: (m) => {
          if (/failed/.test(m)) console.log(m);
        },
      });
      return { ...r, list: results };
    } finally {
      process.env = saved;
    }
  };
  it.skipIf(typeof p === 'string')(
    'right hardware: every case passes or is observed, most through the fast judge; the second run compiles nothing; a corrupted cubin is compiled again',
    async () => {
      const cache = join(tmpdir(), `ptxconf-cubins-${process.pid}`);
      rmSync(cache, { recursive: true, force: true });
      const a = await run({}, cache);
      expect(a.stats.variants).toBe(6);
      expect(a.stats.cases).toBeGreaterThan(6 * 200);
      expect(a.list.filter((x) => x.verdict === 'mismatch' || x.verdict === 'error')).toEqual([]);
      expect(a.stats.fastJudged, JSON.stringify(a.stats)).toBeGreaterThan(a.stats.cases! * 0.5);
      expect(a.stats.modulesCompiled).toBeGreaterThan(0);
      // the level-3 operands were made by the generator kernel and matched the TypeScript fill
      expect(a.stats.deviceGenerated).toBe(6 * 200);
      const b = await run({}, cache, 0);
      expect(b.stats.modulesCompiled).toBe(0);
      expect(b.stats.modulesCached).toBe(a.stats.modulesCompiled);
      const cubin = readdirSync(join(cache, 'cubin')).find((f) => f.endsWith('.cubin'))!;
      writeFileSync(join(cache, 'cubin', cubin), 'not a cubin');
      const c = await run({}, cache, 0);
      expect(c.stats.modulesCompiled).toBe(1);
      rmSync(cache, { recursive: true, force: true });
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'given cases past the streaming threshold run while they are read (each module compiled when its first case comes, at most 2 jobs a worker in flight), with the same verdicts',
    async () => {
      const saved = { ...process.env };
      Object.assign(process.env, { PTX_CONFORMANCE_ADDON: join(import.meta.dirname, '..', 'fixtures', 'standin-launcher.cts'), PTXCONF_STREAM_ABOVE: '40' });
      try {
        const { runGpuBackend, childCommand } = await import('../../harness/backends/gpu/backend.js');
        const { findTarget } = await import('../../harness/arch/targets.js');
        const variants = [
          { family: 'atom', q: { space: 'global', op: 'add', type: 'u32' }, ptx: 'atom.global.add.u32', id: 'atom.global.add.u32' },
          { family: 'red', q: { space: 'global', op: 'add', type: 'f32' }, ptx: 'red.global.add.f32', id: 'red.global.add.f32' },
          // its cases come only after the run has started streaming: a module of its own, compiled then
          { family: 'atom', q: { space: 'global', op: 'max', type: 's32' }, ptx: 'atom.global.max.s32', id: 'atom.global.max.s32' },
        ];
        let read = 0;
        async function* batches() {
          for (let b = 0; b < 20; b++) {
            const out = Array.from({ length: 50 }, (_, i) => {
              const k = b * 50 + i;
              const v = variants[k % (b < 10 ? 2 : 3)]!;
              return {
                id: `${v.id}/s.jsonl:c${k}`,
                variant: v,
                input: { memory: [BigInt(k * 4099)], b: [BigInt(k)] },
                origin: { kind: 'vectors' as const, file: 's.jsonl', line: k + 1, name: `c${k}` },
              };
            });
            read += out.length;
            yield out;
          }
        }
        const results: { verdict: string }[] = [];
        const progress: string[] = [];
        const cache = join(tmpdir(), `ptxconf-cubins-stream-${process.pid}`);
        const r = await runGpuBackend({
          target: findTarget('sm_90')!,
          ptx: '9.0',
          ptxas: p as Exclude<typeof p, string>,
          device: { ordinal: 0, name: 'stand-in', cc: '9.0', sm: 90, smCount: 132, multicastSupported: false },
          keep: () => true,
          seed: 3,
          library: false,
          generated: 0,
          cases: batches(),
          cacheDir: cache,
          executor: childCommand('executor'),
          worker: childCommand('worker'),
          workers: 2,
          onResults: (rs) => results.push(...rs),
          onProgress: (m) => progress.push(m),
        });
        expect(read).toBe(1000);
        expect(progress.some((m) => /more than 40 cases given: running while reading, each module compiled when its first case comes/.test(m))).toBe(true);
        expect(r.stats.cases).toBe(1000);
        // only the variants the given cases use are planned (3 of the catalog's 17,936), in modules of
        // their own: the two of the first cases in one, the one that came later in another
        expect(r.stats.plannedVariants).toBe(3);
        expect(r.stats.variants).toBe(3);
        expect(r.stats.modulesCompiled! + r.stats.modulesCached!).toBe(2);
        expect(results.filter((x) => x.verdict !== 'pass' && x.verdict !== 'observed')).toEqual([]);
        rmSync(cache, { recursive: true, force: true });
      } finally {
        process.env = saved;
      }
    },
    300_000,
  );
  it.skipIf(typeof p === 'string')(
    'the run starts before the SASS is read (a disassembler that takes 2 s a call, cuobjdump on each cubin or nvdisasm on raw kernel codes): every result still carries its kernel SASS, none the placeholder',
    async () => {
      const cache = join(tmpdir(), `ptxconf-cubins-sass-${process.pid}`);
      const bin = join(cache, 'bin');
      mkdirSync(bin, { recursive: true });
      for (const tool of ['cuobjdump', 'nvdisasm']) copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'fake-disassembler.cjs'), join(bin, tool));
      const { SASS_LATER } = await import('../../harness/backends/gpu/module-set.js');
      try {
        const a = await run({ PATH: `${bin}:${process.env.PATH}`, FAKE_CUOBJDUMP_SLEEP: '2', PTXCONF_DISASSEMBLER: 'cuobjdump' }, cache, 50);
        const cases = a.list.filter((x) => (x as { kind?: string }).kind === 'case') as unknown as { sass?: string }[];
        expect(cases.length).toBeGreaterThan(6);
        expect(new Set(cases.map((c) => c.sass))).toEqual(new Set(['ATOM.E.FAKE']));
        expect(cases.some((c) => c.sass === SASS_LATER)).toBe(false);
        // nvdisasm on the run's distinct kernel codes (the stand-in's mnemonics follow each instruction's bytes)
        rmSync(join(cache, 'cubin'), { recursive: true, force: true });
        const b = await run({ PATH: `${bin}:${process.env.PATH}`, FAKE_CUOBJDUMP_SLEEP: '2', PTXCONF_DISASSEMBLER: '' }, cache, 50);
        const raw = b.list.filter((x) => (x as { kind?: string }).kind === 'case') as unknown as { sass?: string }[];
        expect(raw.length).toBe(cases.length);
        for (const c of raw) expect(c.sass).toMatch(/^ATOM\.E\.FAKE_[0-9A-F]{4}( ATOM\.E\.FAKE_[0-9A-F]{4})*$/);
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'packed given cases (vector files read into slots) go to the workers as slots: the same results as the same cases as objects, flipped bits caught, generic cases in shared memory',
    async () => {
      const saved = { ...process.env };
      Object.assign(process.env, { PTX_CONFORMANCE_ADDON: join(import.meta.dirname, '..', 'fixtures', 'standin-launcher.cts'), PTXCONF_STANDIN_FLIP: '7' });
      const dir = join(tmpdir(), `ptxconf-packed-gpu-${process.pid}`);
      const cache = join(dir, 'cubins');
      try {
        const { mkdirSync } = await import('node:fs');
        mkdirSync(dir, { recursive: true });
        const { runGpuBackend, childCommand } = await import('../../harness/backends/gpu/backend.js');
        const { findTarget } = await import('../../harness/arch/targets.js');
        const { streamVectors } = await import('../../harness/case-readers/vectors.js');
        const { isPacked } = await import('../../harness/case-readers/packed.js');
        // four instructions, a generic atom with space: shared on some cases, expects right and wrong
        const lines: string[] = [];
        for (let i = 0; i < 1200; i++) {
          const a = ((i * 2654435761) >>> 0).toString(16).padStart(8, '0');
          const b = ((i * 40503 + 7) >>> 0).toString(16).padStart(8, '0');
          const k = i % 4;
          if (k === 0)
            lines.push(
              `{"name": "c${i}", "instruction": "atom.global.add.u32", "memory": ["0x${a}"], "operands": {"b": ["0x${b}"]}, "expect": {"memory": ["0x${((parseInt(a, 16) + parseInt(b, 16) + (i % 40 === 0 ? 1 : 0)) >>> 0).toString(16).padStart(8, '0')}"], "returned": ["0x${a}"]}}`,
            );
          else if (k === 1) lines.push(`{"name": "c${i}", "instruction": "red.global.add.f32", "memory": ["0x${a}"], "operands": {"b": ["0x${b}"]}}`);
          else if (k === 2)
            lines.push(
              `{"name": "c${i}", "instruction": "atom.global.cas.b32", "memory": ["0x${a}"], "operands": {"b": ["0x${i % 3 ? a : b}"], "c": ["0x${b}"]}}`,
            );
          else
            lines.push(
              `{"name": "c${i}", "instruction": "atom.add.u32", "memory": ["0x${a}"], "operands": {"b": ["0x${b}"]}${i % 8 === 3 ? ', "space": "shared"' : ''}}`,
            );
        }
        const file = join(dir, 'p.jsonl');
        writeFileSync(file, `${lines.join('\n')}\n`);
        const go = async (packed: boolean) => {
          const results: { verdict: string; id: string; reason: string; case?: { observed?: unknown } }[] = [];
          let blocks = 0;
          async function* cases() {
            for await (const b of streamVectors([file], dir, { packed: true })) {
              if (isPacked(b)) blocks++;
              yield packed ? b : (await import('../../harness/case-readers/packed.js')).unpackAll(b);
            }
          }
          const r = await runGpuBackend({
            target: findTarget('sm_90')!,
            ptx: '9.0',
            ptxas: p as Exclude<typeof p, string>,
            device: { ordinal: 0, name: 'stand-in', cc: '9.0', sm: 90, smCount: 132, multicastSupported: false },
            keep: () => true,
            seed: 3,
            library: false,
            generated: 0,
            cases: cases(),
            cacheDir: cache,
            executor: childCommand('executor'),
            worker: childCommand('worker'),
            workers: 2,
            onResults: (rs) => results.push(...(rs as unknown as typeof results)),
          });
          const key = (x: (typeof results)[number]) => x.id;
          return {
            r,
            blocks,
            results: results.sort((x, y) => (key(x) < key(y) ? -1 : 1)).map((x) => [x.id, x.verdict, x.reason, JSON.stringify(x.case?.observed)]),
          };
        };
        const a = await go(true);
        const b = await go(false);
        expect(a.blocks).toBeGreaterThan(0);
        expect(a.r.stats.cases).toBe(1200);
        expect(a.results).toEqual(b.results);
        const totals = (r: typeof a.r) => Object.fromEntries(Object.entries(r.stats).filter(([k]) => k.startsWith('total.')));
        expect(totals(a.r)).toEqual(totals(b.r));
        // every 7th case flipped by the stand-in is a mismatch; the generic atom ran in both spaces
        const mism = a.results.filter((x) => x[1] === 'mismatch');
        expect(mism.length).toBeGreaterThan(100);
        expect(a.results.filter((x) => x[1] === 'error')).toEqual([]);
        expect(a.r.variantIds.sort()).toEqual(['atom.add.u32', 'atom.global.add.u32', 'atom.global.cas.b32', 'red.global.add.f32']);
      } finally {
        process.env = saved;
        rmSync(dir, { recursive: true, force: true });
      }
    },
    300_000,
  );
  it.skipIf(typeof p === 'string')(
    'a packed given case that faults is isolated like an object one: the culprit is an error, the rest keep their verdicts',
    async () => {
      const saved = { ...process.env };
      Object.assign(process.env, {
        PTX_CONFORMANCE_ADDON: join(import.meta.dirname, '..', 'fixtures', 'standin-launcher.cts'),
        PTXCONF_STANDIN_FAULT: '0xdeadbeef',
      });
      const dir = join(tmpdir(), `ptxconf-packed-fault-${process.pid}`);
      try {
        const { mkdirSync } = await import('node:fs');
        mkdirSync(dir, { recursive: true });
        const { runGpuBackend, childCommand } = await import('../../harness/backends/gpu/backend.js');
        const { findTarget } = await import('../../harness/arch/targets.js');
        const { streamVectors } = await import('../../harness/case-readers/vectors.js');
        const mem = (i: number) => (i === 9 ? 0xdeadbeef : i * 1000);
        const lines = Array.from(
          { length: 16 },
          (_, i) =>
            `{"name": "c${i}", "instruction": "atom.global.add.u32", "memory": ["0x${mem(i).toString(16).padStart(8, '0')}"], "operands": {"b": ["0x00000005"]}, "expect": {"memory": ["0x${((mem(i) + 5) >>> 0).toString(16).padStart(8, '0')}"]}}`,
        );
        const file = join(dir, 't.jsonl');
        writeFileSync(file, `${lines.join('\n')}\n`);
        const results: { id: string; verdict: string; reason: string }[] = [];
        const r = await runGpuBackend({
          target: findTarget('sm_90')!,
          ptx: '9.0',
          ptxas: p as Exclude<typeof p, string>,
          device: { ordinal: 0, name: 'stand-in', cc: '9.0', sm: 90, smCount: 132, multicastSupported: false },
          keep: () => true,
          seed: 3,
          library: false,
          generated: 0,
          cases: streamVectors([file], dir, { packed: true }),
          cacheDir: join(dir, 'cubins'),
          executor: childCommand('executor'),
          worker: childCommand('worker'),
          workers: 1,
          onResults: (rs) => results.push(...rs),
        });
        expect(r.stats.isolatedJobs).toBe(1);
        expect(results.filter((x) => x.verdict === 'error').map((x) => x.id)).toEqual(['atom.global.add.u32/t.jsonl:c9']);
        expect(results.filter((x) => x.verdict === 'pass')).toHaveLength(15);
      } finally {
        process.env = saved;
        rmSync(dir, { recursive: true, force: true });
      }
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'a launch that faults: the worker dies, its batch is isolated down to the culprit case (an error with the CUDA error), every other case keeps its verdict',
    async () => {
      const saved = { ...process.env };
      Object.assign(process.env, {
        PTX_CONFORMANCE_ADDON: join(import.meta.dirname, '..', 'fixtures', 'standin-launcher.cts'),
        PTXCONF_STANDIN_FAULT: '0xdeadbeef',
      });
      try {
        const { runGpuBackend, childCommand } = await import('../../harness/backends/gpu/backend.js');
        const { findTarget } = await import('../../harness/arch/targets.js');
        const v = { family: 'atom', q: { space: 'global', op: 'add', type: 'u32' }, ptx: 'atom.global.add.u32', id: 'atom.global.add.u32' };
        const mk = (i: number, mem: bigint) => ({
          id: `${v.id}/t.yaml:c${i}`,
          variant: v,
          input: { memory: [mem], b: [5n] },
          expect: { memory: [(mem + 5n) & 0xffffffffn] },
          origin: { kind: 'vectors' as const, file: 't.yaml', line: i + 1, name: `c${i}` },
        });
        const cases = [
          ...Array.from({ length: 9 }, (_, i) => mk(i, BigInt(i * 1000))),
          mk(9, 0xdeadbeefn),
          ...Array.from({ length: 6 }, (_, i) => mk(10 + i, BigInt(i))),
        ];
        const results: { id: string; verdict: string; reason: string }[] = [];
        const cache = join(tmpdir(), `ptxconf-cubins-fault-${process.pid}`);
        const r = await runGpuBackend({
          target: findTarget('sm_90')!,
          ptx: '9.0',
          ptxas: p as Exclude<typeof p, string>,
          device: { ordinal: 0, name: 'stand-in', cc: '9.0', sm: 90, smCount: 132, multicastSupported: false },
          keep: () => true,
          seed: 3,
          library: false,
          generated: 0,
          cases: [cases],
          cacheDir: cache,
          executor: childCommand('executor'),
          worker: childCommand('worker'),
          workers: 1,
          onResults: (rs) => results.push(...rs),
        });
        expect(r.stats.isolatedJobs).toBe(1);
        expect(results.filter((x) => x.verdict === 'error').map((x) => x.id)).toEqual([`${v.id}/t.yaml:c9`]);
        expect(results.find((x) => x.verdict === 'error')!.reason).toMatch(/CUDA_ERROR_ILLEGAL_ADDRESS/);
        expect(results.filter((x) => x.verdict === 'pass')).toHaveLength(15);
        rmSync(cache, { recursive: true, force: true });
      } finally {
        process.env = saved;
      }
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'a generator kernel that differs from the TypeScript generator is caught by the sample check: the worker makes the operands on the CPU instead, and every case is still right',
    async () => {
      const cache = join(tmpdir(), `ptxconf-cubins-gen-${process.pid}`);
      const a = await run({ PTXCONF_STANDIN_GENBUG: '1' }, cache, 100);
      expect(a.stats.deviceGenerated).toBe(0);
      expect(a.list.filter((x) => x.verdict === 'mismatch' || x.verdict === 'error')).toEqual([]);
      expect(a.stats.cases).toBeGreaterThan(600);
      rmSync(cache, { recursive: true, force: true });
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'wrong hardware (one flipped bit in every 5th case) is caught: each flipped case is a mismatch, named with its bits',
    async () => {
      const cache = join(tmpdir(), `ptxconf-cubins-flip-${process.pid}`);
      const a = await run({ PTXCONF_STANDIN_FLIP: '5' }, cache, 100);
      const bad = a.list.filter((x) => x.verdict === 'mismatch');
      expect(bad.length).toBeGreaterThan(a.stats.cases! / 5 / 2);
      expect(a.stats['total.atom.mismatch']! + a.stats['total.red.mismatch']! + a.stats['total.cp.reduce.async.bulk.mismatch']!).toBe(bad.length);
      expect(bad[0]!.reason).toMatch(/observed 0x[0-9a-f]+, the reference allows/);
      rmSync(cache, { recursive: true, force: true });
    },
    240_000,
  );
});

describe('recorded H100 runs of the one pipeline (reports/baselines/h100-sm_90-*)', () => {
  const it = judgedAgainst('9.1'); // recorded under the PTX ISA 9.1 text (the report predates editions)
  const load = (d: string) =>
    JSON.parse(gunzipSync(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', d, 'report.json.gz'))).toString());
  type R = {
    id: string;
    kind: string;
    verdict: string;
    ptx: string;
    case?: { input: Record<string, string[]>; observed?: Record<string, string[]>; fileExpect?: { agrees: boolean } };
  };
  const variantOf = (ptx: string) => {
    const q = parseInstruction(ptx.endsWith('(_)') ? `${ptx.slice(0, -3)} _, [a], b;` : ptx);
    return { family: q.family.id, q: q.q };
  };
  const replay = (r: R) =>
    judge(
      r.id,
      variantOf(r.ptx),
      {
        memory: big(r.case!.input.memory),
        b: big(r.case!.input.b),
        c: big(r.case!.input.c),
        source: big(r.case!.input.source),
        ...(r.case!.input.space ? { space: r.case!.input.space as unknown as 'shared' } : {}),
      },
      { memory: big(r.case!.observed!.memory), returned: big(r.case!.observed!.returned) },
    ).verdict;
  it('vector files on the GPU: every file case replays to its verdict; the hardware agrees with every expect but the bulk add.f32 flushing ones', () => {
    const doc = load('h100-sm_90-vectors-on-gpu');
    const ran = (doc.results as R[]).filter((r) => r.case?.observed);
    expect(ran).toHaveLength(27);
    for (const r of ran) expect(replay(r), r.id).toBe(r.verdict === 'known-deviation' ? 'mismatch' : r.verdict);
    expect(ran.filter((r) => !r.case!.fileExpect!.agrees).map((r) => r.id.split(':').pop())).toEqual(['bulk-add-f32-subnormal-sum', 'bulk-f32-flushes']);
    expect((doc.results as R[]).filter((r) => r.verdict === 'skipped').map((r) => r.ptx)).toEqual(['multimem.ld_reduce.global.add.acc::f32.v2.f16']);
  });
  it('the default run: 0 mismatches; the bulk add.f32 known deviation; canonical NaNs; the same verdict as the H200 baseline for every case both hold with the same bits', () => {
    const doc = load('h100-sm_90-gpu-default');
    expect(doc.partial).toBe(false);
    expect(doc.stats.variants).toBe(17236);
    expect(Object.keys(doc.stats).filter((k) => k.endsWith('.mismatch') && doc.stats[k] > 0)).toEqual([]);
    const cases = (doc.results as R[]).filter((r) => r.kind === 'case' && r.case?.observed);
    for (const r of cases.filter((_, i) => i % 7 === 0)) expect(replay(r), r.id).toBe(r.verdict === 'known-deviation' ? 'mismatch' : r.verdict);
    expect(new Set(cases.filter((r) => r.verdict === 'known-deviation').map((r) => r.ptx))).toEqual(
      new Set(['cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32', 'cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.f32']),
    );
    const nan = new Set(
      cases
        .filter((r) => /\.(f32|f16|bf16|f16x2|bf16x2)$/.test(r.ptx) && (r as { case: { nan?: string } }).case.nan)
        .map((r) => (r as { case: { nan?: string } }).case.nan),
    );
    expect(nan).toEqual(new Set(['canonical']));
    const h200 = JSON.parse(
      gunzipSync(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h200-sm_90-gpu-run', 'report.json.gz'))).toString(),
    );
    const old = new Map((h200.results as R[]).filter((r) => r.kind === 'case').map((r) => [r.id, r]));
    let both = 0;
    for (const r of cases) {
      const o = old.get(r.id);
      if (!o || JSON.stringify(o.case!.input) !== JSON.stringify(r.case!.input)) continue;
      both++;
      expect(r.verdict, r.id).toBe(o.verdict);
      expect(r.case!.observed, r.id).toEqual(o.case!.observed);
    }
    expect(both).toBeGreaterThan(3000);
  }, 120_000);
});
