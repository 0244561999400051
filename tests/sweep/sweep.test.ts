/**
 * Exhaustive sweeps (harness/sweep/): the pair mapping and cell records; the whole command against
 * the stand-in launcher (which runs sweep kernels with the full reference model, so the host's fast
 * lane operation is checked against the model), including the self-test's exact mismatch count and a
 * stale reference cache; and the recorded H100 sweeps replayed: counts, NaN cells against the model,
 * the self-test's kept cases judged again.
 */
import { judgedAgainst } from '../helpers/spec.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { judge } from '../../harness/compare/judge-case.js';
import { parseInstruction } from '../../harness/catalog/parse.js';
import { loadReport } from '../../harness/report/load.js';
import { expectationsPath, loadExpectations, undoJudgement } from '../../harness/compare/expectations.js';
import { judgeRun } from '../../harness/compare/judge-run.js';
import { cellClasses, picturePng } from '../../harness/sweep/picture.js';
import { laneOpOf, referenceKey } from '../../harness/sweep/reference.js';
import { reference } from '../../harness/reference/model.js';
import {
  CANONICAL_NAN16,
  CELLS,
  CELL_PAIRS,
  NAN_TOKEN,
  SPECIALS32,
  domainA,
  domainB,
  hash1,
  hash2,
  pairA,
  pairB,
  referenceCell,
} from '../../harness/sweep/space.js';
import { register } from 'tsx/cjs/api';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runWithStandin } from '../helpers/standin.js';
import { runCli } from '../helpers/cli.js';

// the stand-in launcher is TypeScript, loaded with require in this process (the gpu probe)
register();

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const variantOf = (ptx: string) => {
  const p = parseInstruction(ptx);
  return { family: p.family.id, q: p.q, ptx: p.ptx, id: p.id };
};

/** A cell's record of observed results, as the kernel makes it (kernel.ts; the stand-in does the same). */
function observedCell(cell: number, r16: Uint16Array, isNaN: (x: number) => boolean, out: Uint32Array, at: number): void {
  let h1 = 0;
  let h2 = 0;
  let nans = 0;
  let odd = 0;
  for (let k = 0; k < CELL_PAIRS; k++) {
    const p = ((cell << 16) | k) >>> 0;
    let r = r16[k]!;
    if (isNaN(r)) {
      if (r !== CANONICAL_NAN16) odd++;
      r = NAN_TOKEN;
      nans++;
    }
    h1 = (h1 + hash1(p, r)) >>> 0;
    h2 = (h2 + hash2(p, r)) >>> 0;
  }
  out.set([h1, h2, nans, odd], at);
}

describe('pairs and cells', () => {
  it('a cell is 65,536 pairs with one (a_hi, b_hi) and every (a_lo, b_lo)', () => {
    for (const cell of [0, 1, 0x7c7c, 0xfffe, 0x1234]) {
      const seen = new Set<number>();
      for (let k = 0; k < CELL_PAIRS; k += 1) {
        const p = ((cell << 16) | k) >>> 0;
        const a = pairA(p);
        const b = pairB(p);
        expect(((a >>> 8) << 8) | (b >>> 8)).toBe(cell);
        seen.add(((a & 0xff) << 8) | (b & 0xff));
      }
      expect(seen.size).toBe(CELL_PAIRS);
    }
  });
  it("a cell record of the model's own results equals the reference record; one wrong result or a NaN where a value is due changes it", () => {
    const v = variantOf('atom.global.add.noftz.f16');
    const op = laneOpOf(v, 'global');
    const cell = 0x7c3c; // a is inf or NaN: NaN results, and plain ones
    const ref = new Uint32Array(4);
    referenceCell(op, cell, ref, 0);
    const r16 = new Uint16Array(CELL_PAIRS);
    for (let k = 0; k < CELL_PAIRS; k++) {
      const p = ((cell << 16) | k) >>> 0;
      const r = op(pairA(p), pairB(p));
      r16[k] = r < 0 ? 0x7fff : r;
    }
    const obs = new Uint32Array(4);
    observedCell(cell, r16, (x) => (x & 0x7c00) === 0x7c00 && (x & 0x3ff) !== 0, obs, 0);
    expect([...obs.slice(0, 3)]).toEqual([...ref.slice(0, 3)]);
    expect(ref[2]).toBeGreaterThan(0);
    // any other NaN where any NaN is allowed: same hashes, counted as not canonical
    const k0 = r16.findIndex((x) => x === 0x7fff);
    r16[k0] = 0x7e01;
    observedCell(cell, r16, (x) => (x & 0x7c00) === 0x7c00 && (x & 0x3ff) !== 0, obs, 0);
    expect([...obs]).toEqual([ref[0], ref[1], ref[2], 1]);
    // one wrong bit: the record differs
    const k1 = r16.findIndex((x) => x !== 0x7fff && x !== 0x7e01);
    r16[k1]! ^= 1;
    observedCell(cell, r16, (x) => (x & 0x7c00) === 0x7c00 && (x & 0x3ff) !== 0, obs, 0);
    expect(obs[0] === ref[0] && obs[1] === ref[1]).toBe(false);
    expect(hash1(1, NAN_TOKEN)).not.toBe(hash1(1, 0x7fff));
  });
  it('the reference cache key follows the lane operation, not its spelling', () => {
    expect(referenceKey(variantOf('atom.global.add.noftz.f16'), 'global')).toBe(referenceKey(variantOf('red.global.add.noftz.v8.f16'), 'global'));
    expect(referenceKey(variantOf('atom.global.add.noftz.f16'), 'global')).toBe(
      referenceKey(variantOf('cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16'), 'global'),
    );
    // f32: the flushing (global flushes, shared keeps), the value and its role are all in the key
    const d = (i: number, role: 'memory' | 'operand') => ({ kind: 'one32' as const, value: SPECIALS32[i]!, role });
    const f32 = variantOf('atom.global.add.f32');
    expect(referenceKey(f32, 'global', 0, d(0, 'operand'))).toBe(referenceKey(variantOf('red.global.add.f32'), 'global', 0, d(0, 'operand')));
    expect(
      new Set([
        referenceKey(f32, 'global', 0, d(0, 'operand')),
        referenceKey(f32, 'global', 0, d(0, 'memory')),
        referenceKey(f32, 'global', 0, d(1, 'operand')),
        referenceKey(variantOf('atom.shared::cta.add.f32'), 'shared', 0, d(0, 'operand')),
      ]).size,
    ).toBe(4);
    expect(referenceKey(variantOf('atom.global.add.noftz.f16'), 'global')).not.toBe(referenceKey(variantOf('atom.global.add.noftz.bf16'), 'global'));
    expect(referenceKey(variantOf('atom.global.min.noftz.f16'), 'global')).not.toBe(referenceKey(variantOf('atom.global.max.noftz.f16'), 'global'));
  });
});

describe('the sweep command against the stand-in launcher', async () => {
  const p = await ptxasOrReason();
  if (typeof p === 'string') console.log(`[skip] sweep command test: ${p}`);
  // one reference worker: this runs beside other test files on CI's two cores
  const run = (args: string[], env: Record<string, string> = {}) =>
    runWithStandin(['sweep', '--cache-dir', join(dir, 'cache'), '--workers', '1', ...args], env);
  it.skipIf(typeof p === 'string')(
    "two cells of f16x2 add: every pair the model's result; the self-test: exactly the pairs with subnormal b, each a mismatch",
    async () => {
      const a = await run(['--filter', 'atom.global.add.noftz.f16x?', '--cells', '2', '--report', join(dir, 'a')]);
      expect(a.code).toBe(0);
      const ra = JSON.parse(readFileSync(join(dir, 'a', 'report.json'), 'utf8'));
      expect(ra.sweeps.map((s: { variant: string; pairs: number; mismatch: number; pass: number }) => [s.variant, s.pairs, s.mismatch, s.pass])).toEqual([
        ['atom.global.add.noftz.f16x2', 131072, 0, 131072],
      ]);
      expect(readFileSync(join(dir, 'a', 'report.html'), 'utf8')).toMatch(
        /<img alt="map of atom.global.add.noftz.f16x2" width="256" height="256" src="data:image\/png;base64,/,
      );
      const b = await run(['--filter', 'atom.global.add.noftz.f16x?', '--cells', '2', '--self-test', '--report', join(dir, 'b')]);
      expect(b.code).toBe(1);
      const rb = JSON.parse(readFileSync(join(dir, 'b', 'report.json'), 'utf8'));
      // cells 0 and 1: a_hi 0, b_hi 0 or 1: every b but 0x0000 is subnormal, no a is NaN
      for (const s of rb.sweeps)
        expect([s.mismatch, s.pass, s.differingCells, s.cells.mismatch]).toEqual([
          2 * 65536 - 256,
          256,
          2,
          [
            [0, 65536 - 256],
            [1, 65536],
          ],
        ]);
      // one behaviour, counted whole: every mismatch is the lowest bit, grouped by the classes of the results, each group with an example kept
      const ids = new Set(rb.results.map((r: { id: string }) => r.id));
      for (const s of rb.sweeps) {
        const gs = s.groups as { signature: string; count: number; example: string }[];
        expect(gs.reduce((t, g) => t + g.count, 0)).toBe(s.mismatch);
        for (const g of gs) {
          // the lowest bit within a class; across one, the classes (+0 <-> +subnormal)
          expect(g.signature).toMatch(/bits 0x0001 differ$|^\+subnormal -> \+0$|^\+0 -> \+subnormal$/);
          expect(ids.has(g.example)).toBe(true);
        }
      }
      // kept whole: up to 10 cases of each kind of mismatch, per sweep
      for (const s of rb.sweeps) {
        const kept = rb.results.filter((r: { verdict: string; id: string }) => r.verdict === 'mismatch' && r.id.startsWith(`${s.variant}/sweep:p=`)).length;
        expect(kept).toBe(
          Math.min(
            100,
            (s.groups as { count: number }[]).reduce((t, g) => t + Math.min(10, g.count), 0),
          ),
        );
        expect(kept).toBeGreaterThan(10);
      }
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'a generic variant is swept in global and in shared memory; a wrong returned old value is a mismatch, counted apart',
    async () => {
      process.env.PTXCONF_STANDIN_RETBUG = '1';
      try {
        const r = await run(['--filter', 'atom.add.noftz.bf1?', '--cells', '1', '--report', join(dir, 'g')]);
        expect(r.code).toBe(1);
        const rep = JSON.parse(readFileSync(join(dir, 'g', 'report.json'), 'utf8'));
        // every 1000th pair's returned value wrong by one bit: those of cell 0 (p = 0, 1000, ..., 65000)
        expect(
          rep.sweeps.map((s: { variant: string; space: string; mismatch: number; returnedMismatch: number }) => [
            s.variant,
            s.space,
            s.mismatch,
            s.returnedMismatch,
          ]),
        ).toEqual([
          ['atom.add.noftz.bf16', 'global', 66, 66],
          ['atom.add.noftz.bf16 (generic, in shared memory)', 'shared', 66, 66],
        ]);
        const bad = rep.results.filter((x: { verdict: string; id: string }) => x.verdict === 'mismatch' && x.id.includes(':p='));
        expect(bad[0].reason).toMatch(/returned\[0\]: observed 0x0001, the reference allows 0x0000/);
        expect(rep.sweeps[0].groups).toEqual([
          { signature: 'returned value is not the memory before', count: 66, example: 'atom.add.noftz.bf16/sweep:p=0x00000000' },
        ]);
        expect(bad.some((x: { id: string }) => x.id.startsWith('atom.add.noftz.bf16/sweep-shared:p='))).toBe(true);
      } finally {
        delete process.env.PTXCONF_STANDIN_RETBUG;
      }
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    "cas.b16: every (memory, compare) pair with each swap value; the stand-in model agrees with the host's lane operation",
    async () => {
      const r = await run(['--filter', 'atom.global.cas.b1?', '--cells', '1', '--report', join(dir, 'cas')]);
      expect(r.code).toBe(0);
      const rep = JSON.parse(readFileSync(join(dir, 'cas', 'report.json'), 'utf8'));
      expect(rep.sweeps.map((s: { variant: string; pass: number; mismatch: number }) => [s.variant, s.pass, s.mismatch])).toEqual([
        ['atom.global.cas.b16 (swap 0x0000)', 65536, 0],
        ['atom.global.cas.b16 (swap 0xffff)', 65536, 0],
        ['atom.global.cas.b16 (swap 0x5a5a)', 65536, 0],
      ]);
      const v = variantOf('atom.global.cas.b16');
      expect(new Set([0, 0xffff, 0x5a5a].map((sw) => referenceKey(v, 'global', sw))).size).toBe(3);
      const op = laneOpOf(v, 'global', 0x5a5a);
      expect([op(7, 7), op(7, 8)]).toEqual([0x5a5a, 7]);
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'the reference cache: a file whose checksum holds is used (wrong records there only cost a pair-by-pair judgement); one whose checksum fails is computed again',
    async () => {
      const cacheSweep = join(dir, 'cache', 'sweep');
      const key = referenceKey(variantOf('atom.global.add.noftz.f16'), 'global');
      const { mkdirSync } = await import('node:fs');
      const { createHash } = await import('node:crypto');
      mkdirSync(cacheSweep, { recursive: true });
      const fake = Buffer.alloc(CELLS * 16, 7);
      writeFileSync(join(cacheSweep, `${key}.bin`), fake);
      writeFileSync(join(cacheSweep, `${key}.json`), JSON.stringify({ sha256: createHash('sha256').update(fake).digest('hex'), cells: CELLS }));
      const used = await run(['--filter', 'atom.global.add.noftz.f1?', '--cells', '1', '--report', join(dir, 'c')]);
      expect(used.code).toBe(0);
      expect(used.out).toMatch(/reference cached/);
      const rc = JSON.parse(readFileSync(join(dir, 'c', 'report.json'), 'utf8'));
      expect([rc.sweeps[0].differingCells, rc.sweeps[0].mismatch, rc.sweeps[0].pass]).toEqual([1, 0, 65536]);
      writeFileSync(join(cacheSweep, `${key}.json`), JSON.stringify({ sha256: 'not-it', cells: CELLS }));
      const again = await run(['--filter', 'atom.global.add.noftz.f1?', '--cells', '1', '--report', join(dir, 'd')]);
      expect(again.out).toMatch(/reference computed/);
      const rd = JSON.parse(readFileSync(join(dir, 'd', 'report.json'), 'utf8'));
      expect([rd.sweeps[0].differingCells, rd.sweeps[0].mismatch]).toEqual([0, 0]);
      expect(readdirSync(cacheSweep)).toContain(`${key}.bin`);
    },
    240_000,
  );
});

describe('cp.reduce.async.bulk and 32-bit float add sweeps, the budget, known deviations (stand-in launcher)', async () => {
  const p = await ptxasOrReason();
  if (typeof p === 'string') console.log(`[skip] bulk and f32 sweep tests: ${p}`);
  const run = (args: string[], env: Record<string, string> = {}) =>
    runWithStandin(['sweep', '--cache-dir', join(dir, 'cache'), '--workers', '1', ...args], env);
  type Sw = {
    variant: string;
    domain: string;
    laneBits: number;
    pairs: number;
    pass: number;
    observed: number;
    mismatch: number;
    nonCanonicalNaN: number;
    groups: { signature: string; count: number; example: string; expectation?: string }[];
  };
  const report = (d: string) =>
    JSON.parse(readFileSync(join(dir, d, 'report.json'), 'utf8')) as {
      sweeps: Sw[];
      sweepsNotRun?: { variant: string; domain: string }[];
      results: { id: string; verdict: string; expectation?: string }[];
      stats: Record<string, number>;
    };
  it.skipIf(typeof p === 'string')(
    "bulk add.noftz.f16, with and without the cache hint: 16 bytes per thread, every pair of a cell the model's result; the self-test: each pair with a subnormal b",
    async () => {
      const a = await run(['--filter', 'cp.reduce.async.bulk.global.*add.noftz.f16', '--cells', '1', '--report', join(dir, 'bulk')]);
      expect(a.code).toBe(0);
      expect(report('bulk').sweeps.map((s) => [s.variant, s.pairs, s.pass, s.mismatch])).toEqual([
        ['cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16', 65536, 65536, 0],
        ['cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.noftz.f16', 65536, 65536, 0],
      ]);
      const b = await run([
        '--filter',
        'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16',
        '--cells',
        '1',
        '--self-test',
        '--report',
        join(dir, 'bulk-st'),
      ]);
      expect(b.code).toBe(1);
      // cell 0: a_hi = b_hi = 0, so every b but 0x0000 is subnormal and no a is NaN: 255 x 256 pairs
      expect(report('bulk-st').sweeps.map((s) => [s.mismatch, s.pass])).toEqual([[255 * 256, 256]]);
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    "f32 add: every x of a cell against each named value in both roles, the model's results (the stand-in runs the full model); the self-test flips exactly the subnormal x",
    async () => {
      const r = await run(['--filter', 'red.global.add.f32', '--cells', '1', '--budget', '100000', '--self-test', '--report', join(dir, 'f32')]);
      expect(r.code).toBe(1);
      const rep = report('f32');
      expect(rep.sweeps.length).toBe(2 * SPECIALS32.length);
      expect(rep.sweepsNotRun).toBeUndefined();
      for (const s of rep.sweeps) {
        const nanValue = /NaN/.test(s.domain);
        expect(s.laneBits).toBe(32);
        // cell 0 holds x = 0 .. 65535: +0 and 65,535 subnormals; flipping a NaN's lowest bit leaves a NaN (observed, not canonical)
        // (+-inf flipped is a NaN too, not the canonical one, and a mismatch)
        expect([s.variant, s.pass, s.mismatch, s.observed, s.nonCanonicalNaN]).toEqual(
          nanValue ? [s.variant, 0, 0, 65536, 65535] : [s.variant, 1, 65535, 0, /inf/.test(s.domain) ? 65535 : 0],
        );
        expect(s.groups.reduce((t, g) => t + g.count, 0)).toBe(s.mismatch);
        // a flushed x gives a zero (+0 -> +subnormal once flipped), others the lowest bit; +-inf flipped is a NaN
        for (const g of s.groups) expect(g.signature).toMatch(/bits 0x00000001 differ$|^NaN where the model has [+-]inf$|^([+-])0 -> \1subnormal$/);
      }
      expect(rep.sweeps.map((s) => s.domain)).toContain('memory +inf (0x7f800000) x every 32-bit operand b');
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    '--budget: 0 runs no 32-bit sweep and lists them; a tiny one runs one and stops',
    async () => {
      const a = await run(['--filter', 'atom.global.add.noftz.f16,red.global.add.f32', '--cells', '1', '--budget', '0', '--report', join(dir, 'b0')]);
      expect(a.code).toBe(0);
      const r0 = report('b0');
      expect([r0.sweeps.every((s) => s.laneBits === 16), r0.sweepsNotRun?.length]).toEqual([true, 2 * SPECIALS32.length]);
      expect(r0.sweepsNotRun![0]).toEqual({ variant: 'red.global.add.f32 (b = +0)', domain: 'every 32-bit memory a x operand b +0 (0x00000000)' });
      expect(a.out).toMatch(
        /sweep seconds: start-up [\d.]+, GPU and ptxas probe [\d.]+, plan [\d.]+, compile [\d.]+, .* report [\d.]+; command [\d.]+ since the process began/,
      );
      const b = await run(['--filter', 'red.global.add.f32', '--cells', '1', '--budget', '0.001', '--report', join(dir, 'b1')]);
      expect(b.code).toBe(0);
      const r1 = report('b1');
      expect([r1.sweeps.length, r1.sweepsNotRun?.length]).toEqual([1, 2 * SPECIALS32.length - 1]);
      expect(b.out).toMatch(/--budget of 0.001 s for 32-bit sweeps is spent/);
      expect((await runCli(['sweep', '--budget', 'soon'])).code).toBe(2);
    },
    240_000,
  );
  it.skipIf(typeof p === 'string')(
    'a deviation an expectation names (bulk add.f32 keeps subnormals, as on the H200): its group is known, with its count; the run passes; without the fault the expectation is an unexpected pass',
    async () => {
      const r = await run(
        [
          '--filter',
          'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32',
          '--spec-edition',
          '9.1',
          '--cells',
          '1',
          '--budget',
          '0.001',
          '--report',
          join(dir, 'known'),
        ],
        { PTXCONF_STANDIN_KEEPSUB: '1' },
      );
      const rep = report('known');
      const s = rep.sweeps[0]!;
      // memory x + 0: the spec (9.1) flushes the 65,535 subnormal x to zero; kept, each is a known deviation
      expect([s.variant, s.mismatch]).toEqual(['cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 (b = +0)', 65535]);
      expect(s.groups.every((g) => g.expectation === 'bulk-add-f32-global-keeps-subnormals')).toBe(true);
      const sum = rep.results.find((x) => x.id === 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32/sweep-b=0x00000000')!;
      expect([sum.verdict, sum.expectation]).toEqual(['known-deviation', 'bulk-add-f32-global-keeps-subnormals']);
      expect(rep.stats['total.cp.reduce.async.bulk.known-deviation']).toBe(65535);
      expect(r.code).toBe(0);
      const clean = await run([
        '--filter',
        'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32',
        '--spec-edition',
        '9.1',
        '--cells',
        '1',
        '--budget',
        '0.001',
        '--report',
        join(dir, 'known-clean'),
      ]);
      expect(clean.code).toBe(1);
      expect(clean.out).toMatch(/bulk-add-f32-global-keeps-subnormals/);
      // judged against 9.4, keeping subnormals is what the text says: no mismatch, the expectation (for 9.1-9.3) not applied
      const e94 = await run(
        ['--filter', 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32', '--cells', '1', '--budget', '0.001', '--report', join(dir, 'known-9.4')],
        { PTXCONF_STANDIN_KEEPSUB: '1' },
      );
      expect(e94.code, e94.out).toBe(0);
      expect(report('known-9.4').sweeps[0]!.mismatch).toBe(0);
      expect(e94.out).toMatch(/bulk-add-f32-global-keeps-subnormals: not applied: it is for PTX ISA 9\.1-9\.3, this run is judged against 9\.4/);
      // an expectations file with a problem: exit 2, naming it, before anything runs
      writeFileSync(join(dir, 'bad.yaml'), 'expectations:\n  - id: x\n    pattern: "cp.reduce.*"\n');
      const bad = await run([
        '--filter',
        'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32',
        '--cells',
        '1',
        '--expectations',
        join(dir, 'bad.yaml'),
        '--report',
        join(dir, 'bad'),
      ]);
      expect(bad.code).toBe(2);
      expect(bad.out).toMatch(/bad\.yaml:2/);
      expect(bad.out).not.toMatch(/^sweep cp\./m);
    },
    240_000,
  );
  it('f32 records: the fast lane operation against the full model, pair by pair, on cells of normals, infinities and NaNs', () => {
    const v = variantOf('atom.global.add.f32');
    for (const value of [SPECIALS32[2]!, SPECIALS32[12]!, SPECIALS32[16]!]) {
      for (const role of ['operand', 'memory'] as const) {
        const d = { kind: 'one32' as const, value, role };
        const op = laneOpOf(v, 'global');
        const A = domainA(d);
        const B = domainB(d);
        for (const cell of [0x3f80, 0xcb7f, 0x7f80]) {
          for (let k = 0; k < CELL_PAIRS; k += 97) {
            const pp = ((cell << 16) | k) >>> 0;
            const want = op(A(pp), B(pp));
            const m = reference(v, { memory: [BigInt(A(pp))], b: [BigInt(B(pp))] }).memory![0]![0]!;
            expect([pp, want === -1 ? 'any NaN' : want]).toEqual([pp, m.anyNaN ? 'any NaN' : Number(m.bits[0])]);
          }
        }
      }
    }
  });
});

describe('recorded H100 sweeps (reports/baselines/h100-sm_90-sweeps/)', () => {
  const it = judgedAgainst('9.1'); // recorded under the PTX ISA 9.1 text (the report predates editions)
  const D = join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h100-sm_90-sweeps');
  it('every 16-bit sweep of sm_90 (245: atom, red, bulk, cas): 2^32 pairs each, every pair judged, no mismatch, NaN cells as the model says', async () => {
    const r = await loadReport(join(D, 'all16-sm_90-report.json.gz'));
    const sw = r.sweeps!;
    expect(sw.length).toBe(245);
    expect(sw.filter((s) => s.space === 'shared' && s.variant.endsWith('(generic, in shared memory)')).length).toBe(13);
    expect(
      sw.filter((s) => s.family === 'cp.reduce.async.bulk').map((s) => s.variant.replace('cp.reduce.async.bulk.global.shared::cta.bulk_group.', '')),
    ).toEqual(['min.f16', 'min.bf16', 'max.f16', 'max.bf16', 'add.noftz.f16', 'add.noftz.bf16', 'L2::cache_hint.add.noftz.f16']);
    for (const s of sw) {
      expect(s.pairs).toBe(2 ** 32);
      expect(s.pass + s.observed + s.mismatch).toBe(s.pairs);
      expect([s.variant, s.mismatch, s.nonCanonicalNaN, s.returnedMismatch]).toEqual([s.variant, 0, 0, 0]);
    }
    // the NaN results of a few variants' cells against the model's own count
    for (const s of sw.filter((x) =>
      /^(atom\.global\.add\.noftz\.f16|red\.global\.add\.noftz\.bf16|atom\.global\.min\.noftz\.v2\.f16|cp\.reduce\.async\.bulk\.global\.shared::cta\.bulk_group\.max\.bf16)$/.test(
        x.variant,
      ),
    )) {
      const v = variantOf(s.variant);
      const op = laneOpOf(v, 'global');
      const nan = new Map(s.cells.nan.map(([c, n]) => [c, n]));
      for (const cell of [0x0000, 0x7c7c, 0x7e00, 0xfc01, 0x7f7f, 0xff80, 0x3c3c, 0xfe7f]) {
        const ref = new Uint32Array(4);
        referenceCell(op, cell, ref, 0);
        expect([s.variant, cell, nan.get(cell) ?? 0]).toEqual([s.variant, cell, ref[2]]);
      }
    }
    // every ordering, scope and the cache hint on the representatives (atom and red), the hint on bulk
    expect(
      sw.filter((s) => s.variant.startsWith('atom.') && /\.(relaxed|acquire|release|acq_rel|cta|cluster|gpu|sys|L2::cache_hint)\./.test(s.variant)).length,
    ).toBeGreaterThanOrEqual(24);
    expect(sw.filter((s) => s.variant.startsWith('red.') && /\.(relaxed|release|cta|cluster|gpu|sys|L2::cache_hint)\./.test(s.variant)).length).toBe(15);
    // atom.cas.b16: 5 spellings, generic also in shared memory, 3 swap values; returned values all the memory before
    const cas = sw.filter((s) => s.variant.includes('.cas.b16'));
    expect(cas.length).toBe(18);
    for (const s of cas) expect([s.variant, s.pass, s.returnedMismatch]).toEqual([s.variant, 2 ** 32, 0]);
    expect(new Set(cas.map((s) => /swap (0x[0-9a-f]+)/.exec(s.variant)?.[1]))).toEqual(new Set(['0x0000', '0xffff', '0x5a5a']));
  });
  it('the bulk add.noftz.f16 self-test on the H100: exactly the 2046 x 63490 pairs with a subnormal b and a non-NaN a', async () => {
    const r = await loadReport(join(D, 'bulk-f16-add-self-test-report.json.gz'));
    const s = r.sweeps![0]!;
    expect([s.variant, s.selftest, s.mismatch, s.groups!.reduce((t, g) => t + g.count, 0)]).toEqual([
      'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16',
      true,
      2046 * 63490,
      2046 * 63490,
    ]);
  });
  it('the f32 self-test on the H100 (red.global.add.f32, b = +0): exactly the 2 x (2^23 - 1) subnormal x, flushed (x + +0 = +0) to a zero whose lowest bit flips', async () => {
    const r = await loadReport(join(D, 'f32-red-self-test-report.json.gz'));
    const s = r.sweeps![0]!;
    expect([s.variant, s.laneBits, s.selftest, s.mismatch, s.differingCells]).toEqual(['red.global.add.f32 (b = +0)', 32, true, 2 * (2 ** 23 - 1), 256]);
    expect(s.groups!.map((g) => [g.signature, g.count])).toEqual([['+0 -> +subnormal', 2 * (2 ** 23 - 1)]]);
  });
  it('f32 add on the H100, 209 sweeps against 9 named values: atom and red match the model everywhere; bulk add.f32 keeps subnormals, every kept case of every group the known deviation', async () => {
    const r = await loadReport(join(D, 'f32-sweeps-report.json.gz'));
    const sw = r.sweeps!;
    expect([sw.length, r.sweepsNotRun!.length]).toEqual([209, 259]);
    const ex = await loadExpectations(expectationsPath('sm_90'), true);
    for (const s of sw) {
      expect([s.variant, s.pairs, s.laneBits, s.nonCanonicalNaN, s.returnedMismatch]).toEqual([s.variant, 2 ** 32, 32, 0, 0]);
      if (s.family !== 'cp.reduce.async.bulk') {
        expect([s.variant, s.mismatch]).toEqual([s.variant, 0]);
        continue;
      }
      // the run had no expectations loaded (run outside the repository root): judge its kept cases again with them
      if (!s.mismatch) continue;
      const tag = /\/sweep(.*)$/.exec(s.groups![0]!.example.replace(/:p=.*$/, ''))![1]!;
      const kept = r.results.filter((x) => x.id.startsWith(`${s.variant.replace(/ \(.*$/, '')}/sweep${tag}:p=`)).map(undoJudgement);
      const judged = judgeRun(kept, ex.expectations).results;
      expect(judged.length).toBeGreaterThan(0);
      for (const x of judged) expect([x.id, x.verdict, x.expectation]).toEqual([x.id, 'known-deviation', 'bulk-add-f32-global-keeps-subnormals']);
      for (const g of s.groups!) expect(judged.some((x) => x.id === g.example)).toBe(true);
    }
    // zero operands keep the subnormal x (16,777,214 of them); +-1 absorb them (1 + x rounds to 1 either way); the
    // largest subnormal changes 419 M results
    expect(sw.filter((s) => s.family === 'cp.reduce.async.bulk').map((s) => s.mismatch)).toEqual([
      16777214, 16777214, 16777214, 16777214, 0, 0, 0, 0, 41943040, 41943040, 41943040, 41943040, 419430400, 419430400, 419430400, 419430400,
    ]);
  });
  it('the self-test: exactly the 2046 x 63490 pairs with subnormal b and a non-NaN a are mismatches; the kept cases are mismatches again when judged', async () => {
    const r = await loadReport(join(D, 'f16-add-self-test-report.json.gz'));
    const s = r.sweeps![0]!;
    expect([s.variant, s.selftest, s.mismatch]).toEqual(['atom.global.add.noftz.f16', true, 2046 * 63490]);
    const v = variantOf('atom.global.add.noftz.f16');
    const kept = r.results.filter((x) => x.verdict === 'mismatch' && x.id.includes('/sweep:p='));
    // up to 10 per kind of mismatch, 100 in all (past which each new kind still keeps its first)
    expect(kept.length).toBe(
      Math.min(
        100,
        s.groups!.reduce((t, g) => t + Math.min(10, g.count), 0),
      ),
    );
    expect(kept.length).toBeGreaterThan(50);
    for (const x of kept) {
      const c = x.case as unknown as { input: { memory: string[]; b: string[] }; observed: { memory: string[] } };
      const input = { memory: c.input.memory.map(BigInt), b: c.input.b.map(BigInt) };
      const obs = { memory: c.observed.memory.map(BigInt) };
      const b = Number(input.b[0]);
      expect((b & 0x7c00) === 0 && (b & 0x3ff) !== 0).toBe(true);
      expect(judge(x.id, v, input, obs).verdict).toBe('mismatch');
    }
  });
  it('the self-test on the H100, grouped: every group the lowest bit (or inf turned NaN by it), the counts adding up to the closed form', async () => {
    const r = await loadReport(join(D, 'self-test-groups-report.json.gz'));
    const want: Record<string, number> = {
      'atom.global.add.noftz.f16': 2046 * 63490,
      'atom.add.noftz.bf16': 254 * 65282,
      'atom.add.noftz.bf16 (generic, in shared memory)': 254 * 65282,
    };
    const ids = new Set(r.results.map((x) => x.id));
    for (const s of r.sweeps!) {
      expect([s.variant, s.mismatch]).toEqual([s.variant, want[s.variant]]);
      const gs = s.groups!;
      expect(gs.reduce((t, g) => t + g.count, 0)).toBe(s.mismatch);
      for (const g of gs) {
        expect(g.signature).toMatch(/bits 0x0001 differ$|^NaN where the model has [+-]inf$/);
        expect(ids.has(g.example)).toBe(true);
      }
      // a +-inf result whose lowest bit flips is a NaN: one per subnormal b, each sign
      const subnormals = s.variant.includes('bf16') ? 254 : 2046;
      expect(gs.find((g) => g.signature === 'NaN where the model has +inf')?.count).toBe(subnormals);
    }
  });
  it('the map: a PNG of 512 x 512 pixels; f16 add is green but for the rows and columns of inf/NaN', async () => {
    const r = await loadReport(join(D, 'f16-add-report.json.gz'));
    const s = r.sweeps![0]!;
    const png = Buffer.from(s.picture.replace(/^data:image\/png;base64,/, ''), 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
    const mism = new Uint32Array(CELLS);
    const nan = new Uint32Array(CELLS);
    for (const [c, n] of s.cells.nan) nan[c] = n;
    const cls = cellClasses(mism, nan);
    expect(picturePng(cls).equals(png)).toBe(true);
    expect(cls[0x3c3c]).toBe(0); // finite + finite
    expect(cls[0x7e7e]).toBe(2); // NaN + NaN: every pair
    expect(cls[0x7c3c]).toBe(1); // a_hi 0x7c: inf (a_lo 0) and NaNs
  });
});

it('without a GPU: exit 2 and why, and bad options likewise', async () => {
  const cli = (args: string[]) => runCli(args, { env: { PTX_CONFORMANCE_ADDON: join(dir, 'no-such-launcher.node') } });
  // (on a machine with a driver this probes the real GPU; then only the option errors are checked)
  const r = await cli(['sweep', '--cells', '1']);
  if (!/CUDA driver|launcher/.test(r.out) || r.code !== 2) console.log(`[note] a GPU was found; the no-GPU message is not checked here (exit ${r.code})`);
  else expect(r.out).toMatch(/sweeps run on a GPU, and there is none to use here/);
  const cells = await cli(['sweep', '--cells', '0']);
  expect(cells.code).toBe(2);
  expect(cells.out).toMatch(/--cells takes 1 to 65536/);
  expect((await cli(['sweep', '--bogus'])).code).toBe(2);
  const ref = await cli(['sweep', '--backend', 'reference']);
  expect(ref.code).toBe(2);
  expect(ref.out).toMatch(
    /--backend reference: a sweep runs on the gpu backend only \(--backend gpu or auto\): it compares the GPU's results with the reference model/,
  );
});

it('the sweep benchmark script is valid sh', () => {
  execFileSync('sh', ['-n', join(import.meta.dirname, '..', '..', 'scripts', 'gpu', 'sweep-bench.sh')]);
});
