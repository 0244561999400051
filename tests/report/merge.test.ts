/**
 * `--shard I/N` splits a run deterministically, balanced by cost, and
 * `merge` puts the shard reports together into the report of the whole run: a ptxas + reference
 * run merged from 3 shards equals the unsharded run in every verdict count, finding and
 * expectation outcome (and its console table); vector files split by ordinal; contention groups
 * split and merge on the stand-in launcher; merge refuses shards that do not make one run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { register } from 'tsx/cjs/api';
import { runLines } from '../helpers/cli.js';
import { loadReport } from '../../harness/report/load.js';
import type { RunReport } from '../../harness/report/json.js';
import { parseShard, shardSlice, shardStream } from '../../harness/util/shard.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runWithStandin } from '../helpers/standin.js';

register();
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-shard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runLines(args);
const table = (o: string[]) =>
  o.slice(
    o.findIndex((l) => l.startsWith('family')),
    o.findIndex((l) => l.startsWith('all results')) + 1,
  );
const statsOf = (r: RunReport, re: RegExp) =>
  Object.fromEntries(
    Object.entries(r.stats)
      .filter(([k, v]) => re.test(k) && v > 0)
      .sort(),
  );

describe('splitting', () => {
  it('contiguous parts in order, every item in exactly one, equal cost within the largest item', () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ i, cost: 1 + ((i * 7919) % 13) }));
    for (const n of [1, 2, 3, 7, 1000, 1500]) {
      const parts = Array.from({ length: n }, (_, k) => shardSlice(items, { index: k, count: n }, (t) => t.cost));
      expect(parts.flat().map((t) => t.i)).toEqual(items.map((t) => t.i));
      const costs = parts.map((p) => p.reduce((a, t) => a + t.cost, 0));
      if (n <= 7) expect(Math.max(...costs) - Math.min(...costs)).toBeLessThanOrEqual(13);
      // the same on every call (every machine)
      expect(shardSlice(items, { index: n - 1, count: n }, (t) => t.cost)).toEqual(parts[n - 1]);
    }
    // zero cost everywhere: split by position
    expect(shardSlice([1, 2, 3, 4], { index: 1, count: 2 }, () => 0)).toEqual([3, 4]);
  });
  it('a stream by ordinal, among the items the filter keeps', () => {
    const ids = ['a1', 'b1', 'a2', 'a3', 'b2', 'a4', 'a5'];
    const keepA = (id: string) => id.startsWith('a');
    const parts = [0, 1].map((k) => ids.filter(shardStream(keepA, { index: k, count: 2 })));
    expect(parts).toEqual([
      ['a1', 'a3', 'a5'],
      ['a2', 'a4'],
    ]);
  });
  it('I/N counted from 0, with a hint for a job array numbered from 1', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    expect(() => parseShard('3/3')).toThrow(/counting from 0|count from 0.*numbered from 1/);
    expect(() => parseShard('1-3')).toThrow(/give I\/N/);
    expect(() => parseShard('0/0')).toThrow(/N must be 1/);
  });
});

describe('a ptxas + reference run in 3 shards, merged', async () => {
  const p = await ptxasOrReason();
  if (typeof p === 'string') console.log(`[skip] sharded ptxas runs: ${p}`);
  const args = ['--arch', 'sm_90', '--filter', 'red.global.*.u32,atom.global.*.f32,atom.global.add.noftz.bf16*,multimem.red.*.f16x2', '--keep', '5'];
  it.skipIf(typeof p === 'string')(
    'equals the unsharded run: verdict counts, counted entries and cases, findings, expectations, console table, exit code',
    async () => {
      const whole = await run([...args, '--report', join(dir, 'whole')]);
      const shards = [];
      for (const k of [0, 1, 2]) shards.push(await run([...args, '--shard', `${k}/3`, '--report', join(dir, `s${k}`)]));
      // every shard did a part (balanced), and none fails on an expectation another shard meets
      for (const s of shards) expect(s.code).toBe(0);
      const parts = shards.map((s) => Number(/\(shard \d\/3: (\d+) of (\d+)\)/.exec(s.out.join('\n'))![1]));
      expect(Math.max(...parts) - Math.min(...parts)).toBeLessThanOrEqual(1);
      // given in any order
      const m = await run([
        'merge',
        join(dir, 's2', 'report.json'),
        join(dir, 's0', 'report.json'),
        join(dir, 's1', 'report.json'),
        '--report',
        join(dir, 'merged'),
      ]);
      expect(m.code).toBe(whole.code);
      expect(table(m.out)).toEqual(table(whole.out));
      const a = await loadReport(join(dir, 'whole', 'report.json'));
      const b = await loadReport(join(dir, 'merged', 'report.json'));
      expect(b.counts).toEqual(a.counts);
      expect(statsOf(b, /^(entries|total|dropped)\./)).toEqual(statsOf(a, /^(entries|total|dropped)\./));
      expect(b.stats.cases).toBe(a.stats.cases);
      expect(b.catalog.entries).toBe(a.catalog.entries);
      expect(b.findings).toEqual(a.findings);
      expect(b.results.map((r) => [r.id, r.verdict, r.finding])).toEqual(a.results.map((r) => [r.id, r.verdict, r.finding]));
      expect(b.expectations.outcomes.map(({ status, matched, ran }) => ({ status, matched, ran }))).toEqual(
        a.expectations.outcomes.map(({ status, matched, ran }) => ({ status, matched, ran })),
      );
      expect(b.findings.some((f) => f.verdict === 'known-deviation')).toBe(true);
      expect(b.mergedFrom?.map((x) => x.index)).toEqual([0, 1, 2]);
      expect(b.shard).toBeUndefined();
    },
    300_000,
  );

  it.skipIf(typeof p === 'string')(
    'refuses what is not one whole run: a missing shard (named), a shard twice, another run, a report that is no shard',
    async () => {
      const f = (k: number) => join(dir, `s${k}`, 'report.json');
      const missing = await run(['merge', f(0), f(2), '--report', join(dir, 'x1')]);
      expect(missing.code).toBe(2);
      expect(missing.out.join('\n')).toMatch(/shard\(s\) 1\/3 missing/);
      const twice = await run(['merge', f(0), f(1), f(1), f(2), '--report', join(dir, 'x2')]);
      expect([twice.code, /shard 1\/3 again/.test(twice.out.join('\n'))]).toEqual([2, true]);
      const other = JSON.parse(readFileSync(f(1), 'utf8'));
      other.filter = 'atom.';
      other.command = [...other.command.slice(0, -4), 'atom.', ...other.command.slice(-3)];
      writeFileSync(join(dir, 'other.json'), JSON.stringify(other));
      const mixed = await run(['merge', f(0), join(dir, 'other.json'), f(2), '--report', join(dir, 'x3')]);
      expect([mixed.code, /not a shard of the same run/.test(mixed.out.join('\n'))]).toEqual([2, true]);
      const notShard = await run(['merge', join(dir, 'whole', 'report.json'), '--report', join(dir, 'x4')]);
      expect([notShard.code, /not a shard's report/.test(notShard.out.join('\n'))]).toEqual([2, true]);
      // with --allow-missing: merged, and partial, saying which
      const some = await run(['merge', f(0), f(2), '--allow-missing', '--report', join(dir, 'x5')]);
      expect(some.out.join('\n')).not.toMatch(/internal error/);
      const r = await loadReport(join(dir, 'x5', 'report.json'));
      expect([r.partial, r.partialReason]).toEqual([true, 'merged without shard(s) 1/3']);
    },
    120_000,
  );
});

describe('vector files split by ordinal', () => {
  it('reference backend: the shards judge disjoint cases whose union is the whole file', async () => {
    const lines = [
      '{"instruction": "red.global.add.u32"}',
      ...Array.from({ length: 25 }, (_, i) =>
        JSON.stringify({ name: `c${i}`, memory: [`0x${i.toString(16).padStart(8, '0')}`], operands: { b: ['0x00000001'] } }),
      ),
    ];
    const file = join(dir, 'v.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const ids: string[][] = [];
    for (const k of [0, 1, 2]) {
      const r = await run(['--backend', 'reference', '--vectors', file, '--shard', `${k}/3`, '--report', join(dir, `v${k}`)]);
      expect(r.code, r.out.join('\n')).toBe(0);
      ids.push((await loadReport(join(dir, `v${k}`, 'report.json'))).results.map((x) => x.id));
    }
    expect(ids.map((x) => x.length)).toEqual([9, 8, 8]);
    const whole = await run(['--backend', 'reference', '--vectors', file, '--report', join(dir, 'vw')]);
    expect(whole.code).toBe(0);
    const all = (await loadReport(join(dir, 'vw', 'report.json'))).results.map((x) => x.id);
    expect(ids.flat().sort()).toEqual([...all].sort());
    expect(ids[1]![0]).toBe(all[1]);
  }, 120_000);
});

describe('the gpu backend in shards (stand-in launcher)', async () => {
  const p = await ptxasOrReason();
  it.skipIf(typeof p === 'string')(
    'library run: no variant or directed file case runs twice (it did on the H100: 162 variants, 1,658 cases); merged equal to the whole run',
    async () => {
      const args = [
        '--backend',
        'gpu',
        '--filter',
        'red.global.add.*,atom.global.add.*,multimem.ld_reduce.global.add.f32',
        '--generated',
        '0',
        '--cache-dir',
        join(dir, 'gcache'),
      ];
      const whole = await runWithStandin([...args, '--report', join(dir, 'gw')]);
      expect(whole.out).toMatch(/directed library's \d+ file cases/);
      for (const k of [0, 1]) expect((await runWithStandin([...args, '--shard', `${k}/2`, '--report', join(dir, `g${k}`)])).out).not.toMatch(/internal error/);
      const m = await run(['merge', join(dir, 'g0', 'report.json'), join(dir, 'g1', 'report.json'), '--report', join(dir, 'gm')]);
      expect(m.code).toBe(whole.code);
      const [a, b] = await Promise.all(['gw', 'gm'].map((d) => loadReport(join(dir, d, 'report.json'))));
      const ids = b!.results.map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(a!.results.map((r) => r.id).sort());
      expect([b!.stats.variants, b!.stats.cases]).toEqual([a!.stats.variants, a!.stats.cases]);
      expect(statsOf(b!, /^total\./)).toEqual(statsOf(a!, /^total\./));
      expect(b!.counts.total).toEqual(a!.counts.total);
      expect(b!.counts.total.skipped).toBeGreaterThan(0); // multimem's file cases: skipped once, by ordinal
    },
    240_000,
  );
});

describe('contention groups split and merge (stand-in launcher)', async () => {
  const p = await ptxasOrReason();
  it.skipIf(typeof p === 'string')(
    'two shards: disjoint groups, merged equal to the unsharded run in groups and verdict counts',
    async () => {
      const args = ['contend', '--cache-dir', join(dir, 'cache'), '--filter', 'red.global.add.f32,atom.global.cas.b32,atom.global.add.u32', '--reps', '32'];
      const whole = await runWithStandin([...args, '--report', join(dir, 'cw')]);
      expect(whole.code).toBe(0);
      for (const k of [0, 1]) expect((await runWithStandin([...args, '--shard', `${k}/2`, '--report', join(dir, `c${k}`)])).code).toBe(0);
      const [a, s0, s1] = await Promise.all(['cw', 'c0', 'c1'].map((d) => loadReport(join(dir, d, 'report.json'))));
      expect(s0!.contention!.length).toBeGreaterThan(0);
      expect(s1!.contention!.length).toBeGreaterThan(0);
      const m = await run(['merge', join(dir, 'c0', 'report.json'), join(dir, 'c1', 'report.json'), '--report', join(dir, 'cm')]);
      expect(m.code).toBe(0);
      const b = await loadReport(join(dir, 'cm', 'report.json'));
      expect(b.contention!.map((c) => c.id)).toEqual(a!.contention!.map((c) => c.id));
      expect(b.counts.total).toEqual(a!.counts.total);
    },
    240_000,
  );
});
