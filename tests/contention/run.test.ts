/**
 * The contend command against the stand-in launcher (contention kernels emulated with a random
 * order per address and the full reference model per step): every outcome allowed and its order
 * reconstructed; the self-test's lost updates a mismatch as red and allowed under split semantics;
 * a planted one-bit fault caught at every address it touches; no GPU and bad options exit 2.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContentionReport } from '../../harness/report/json.js';
import { register } from 'tsx/cjs/api';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runWithStandin } from '../helpers/standin.js';
import { loadReport } from '../../harness/report/load.js';
import { gpuPlan } from '../../harness/backends/gpu/plan.js';
import { contentionPlan, setOps } from '../../harness/contention/cases.js';
import { groupId } from '../../harness/contention/run.js';
import { MAX_SPLIT_N, judgeContention } from '../../harness/contention/model.js';
import { elementFormat } from '../../harness/numerics/formats.js';
import { runCli } from '../helpers/cli.js';

register();
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-contend-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) => runWithStandin(['contend', '--cache-dir', join(dir, 'cache'), ...args], env);
const report = (d: string) =>
  JSON.parse(readFileSync(join(dir, d, 'report.json'), 'utf8')) as {
    contention: ContentionReport[];
    results: { id: string; verdict: string; reason: string }[];
  };

describe('contend against the stand-in launcher', async () => {
  const p = await ptxasOrReason();
  if (typeof p === 'string') console.log(`[skip] contend tests: ${p}`);
  it.skipIf(typeof p === 'string')(
    "f32 add, cas, generic f16 add in shared memory, vector min, narrow scopes: every outcome allowed, atom's orders reconstructed",
    async () => {
      const r = await run([
        '--filter',
        'red.global.add.f32,atom.global.add.f32,atom.global.cas.b32,atom.add.noftz.f16,atom.global.min.noftz.v2.bf16,atom.cta.global.add.f32',
        '--reps',
        '32',
        '--report',
        join(dir, 'a'),
      ]);
      expect(r.code).toBe(0);
      const rep = report('a');
      expect(rep.contention.every((c) => c.verdict === (c.atomic ? 'pass' : 'observed'))).toBe(true);
      const order = rep.contention.find((c) => c.id === 'atom.global.add.f32/contend-warp-order')!;
      expect(order.n).toBe(4);
      // the stand-in's random orders give several of the three allowed finals (0, 1, 2), each with its order
      expect(new Set(order.outcomes.map((o) => o.memory[0]))).toEqual(new Set(['0x00000000', '0x3f800000', '0x40000000']));
      for (const o of order.outcomes) expect(o.orders![0]!.slice().sort()).toEqual([0, 1, 2, 3]);
      expect(rep.contention.find((c) => c.id === 'red.global.add.f32/contend-grid-order')!.allowed).toBe(3);
      expect(rep.contention.find((c) => c.id === 'atom.add.noftz.f16/contend-warp-shared-order')?.verdict).toBe('pass');
      expect(rep.contention.find((c) => c.id === 'atom.global.min.noftz.v2.bf16/contend-cta-special')?.verdict).toBe('pass');
      // .cta scope across CTAs: not atomic by the spec; the (atomic) stand-in loses nothing, so it passes
      expect(rep.contention.filter((c) => c.variant === 'atom.cta.global.add.f32').map((c) => [c.layout, c.atomic, c.verdict, c.lostUpdates])).toEqual([
        ['grid', false, 'observed', 0],
        ['grid', false, 'observed', 0],
        ['grid', false, 'observed', 0],
        ['cluster', false, 'observed', 0],
        ['cluster', false, 'observed', 0],
      ]);
    },
    120_000,
  );
  it.skipIf(typeof p === 'string')(
    'cp.reduce.async.bulk into one global range from several threads and CTAs: each element an order of the reductions',
    async () => {
      const r = await run(['--filter', 'cp.reduce.async.bulk.global.shared::cta.bulk_group.*add.f32', '--reps', '32', '--report', join(dir, 'bulk')]);
      expect(r.code).toBe(0);
      const rep = report('bulk');
      expect(rep.contention.map((c) => c.id)).toContain('cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.f32/contend-grid-order');
      const g = rep.contention.find((c) => c.id === 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32/contend-grid-order')!;
      // four f32 elements per 16-byte reduction, each its own order: the largest set over them is 3
      expect([g.verdict, g.allowed, g.n]).toEqual(['pass', 3, 4]);
    },
    120_000,
  );
  it.skipIf(typeof p === 'string')(
    'one cluster: .shared::cluster memory in the first CTA (atom, and bulk reductions completing on its mbarrier), .cluster scope atomic there and not across clusters; 128-bit exch and cas chains',
    async () => {
      const r = await run([
        '--filter',
        'atom.global.exch.b128,atom.global.cas.b128,atom.shared::cluster.add.f32,atom.cluster.global.add.f32,cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u64',
        '--reps',
        '32',
        '--report',
        join(dir, 'cl'),
      ]);
      expect(r.code).toBe(0);
      const rep = report('cl');
      const v = (id: string) => rep.contention.find((c) => c.id === id)!;
      expect([v('atom.shared::cluster.add.f32/contend-cluster-order').verdict, v('atom.shared::cluster.add.f32/contend-cluster-order').atomic]).toEqual([
        'pass',
        true,
      ]);
      expect([v('atom.cluster.global.add.f32/contend-cluster-order').atomic, v('atom.cluster.global.add.f32/contend-grid-order').atomic]).toEqual([
        true,
        false,
      ]);
      expect(v('atom.global.cas.b128/contend-grid-cas-chain').verdict).toBe('pass');
      // bulk into the first CTA's shared memory from every CTA of the cluster: 5 + 1 + 2 + 3 + 4
      const bulk = v('cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u64/contend-cluster-small');
      expect([bulk.layout, bulk.verdict, bulk.outcomes[0]!.memory]).toEqual(['cluster', 'pass', ['0x000000000000000f', '0x000000000000000f']]);
      expect(v('atom.global.exch.b128/contend-cta-exch').outcomes[0]!.memory[0]).toMatch(/^0x0{29}06[3-9a-b]$/);
    },
    120_000,
  );
  it.skipIf(typeof p === 'string')(
    'the self-test (plain load/add/store): every address a mismatch as red ("not atomic", an update lost), allowed under split read/write',
    async () => {
      const r = await run(['--self-test', '--reps', '32', '--report', join(dir, 'st')]);
      expect(r.code).toBe(1);
      const rep = report('st');
      expect(rep.contention.map((c) => [c.id, c.verdict, c.lostUpdates, c.asSplit?.verdict])).toEqual([
        ['red.global.add.f32/contend-warp-ones:self-test', 'mismatch', 64, 'observed'],
        ['red.global.add.f32/contend-grid-ones:self-test', 'mismatch', 64, 'observed'],
      ]);
      expect(rep.results[0]!.reason).toMatch(/not atomic: final 0x3f800000 is not the result of any order of the 4 operations .*an update lost/);
    },
    120_000,
  );
  it.skipIf(typeof p === 'string')(
    'a planted fault (every 7th address one bit off) is caught wherever it lands',
    async () => {
      const r = await run(['--filter', 'red.global.add.f32,atom.global.exch.b32', '--reps', '32', '--report', join(dir, 'bug')], {
        PTXCONF_STANDIN_CONTEND_BUG: '1',
      });
      expect(r.code).toBe(1);
      const rep = report('bug');
      // addresses 3, 10, 17, 24, 31 of each launch: 10 of 64 in every group (but where the final is a
      // NaN, which stays a NaN: allowed)
      for (const c of rep.contention) {
        const bad = c.counts.mismatch ?? 0;
        if (c.set === 'special') expect(bad).toBeLessThanOrEqual(10);
        else expect([c.id, c.verdict, bad]).toEqual([c.id, 'mismatch', 10]);
      }
    },
    120_000,
  );
});

it('without a GPU, or with bad options: exit 2 and why', async () => {
  const reps = await runCli(['contend', '--reps', '33']);
  expect(reps.code).toBe(2);
  expect(reps.out).toMatch(/--reps takes a multiple of 32/);
  expect((await runCli(['contend', '--backend', 'reference'])).code).toBe(2);
  const none = await runCli(['contend'], { env: { PTX_CONFORMANCE_ADDON: join(dir, 'none.node') } });
  if (none.code === 2) expect(none.out).toMatch(/contention runs on a GPU, and there is none to use here/);
});

describe('recorded H100 contention (reports/baselines/h100-sm_90-contention/)', () => {
  const D = join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h100-sm_90-contention');
  const load = async (f: string) => (await loadReport(join(D, f))) as unknown as { contention: ContentionReport[] };
  it('3,021 groups: every address allowed but for 25 .shared::cluster groups in one cluster; every kept outcome judged again by the model gives the recorded verdict', async () => {
    const r = await load('all-report.json.gz');
    expect(r.contention.length).toBe(3021);
    const plan = gpuPlan('sm_90', '9.0');
    const groups = new Map(contentionPlan(plan, () => true).map((g) => [groupId(g), g]));
    let judged = 0;
    for (const c of r.contention) {
      const g = groups.get(c.id)!;
      const fmt = elementFormat(g.gv.entry.q.type ?? '');
      const { memory, ops } = setOps(fmt, g.gv.shape.elements, g.set);
      const cc = { variant: { family: g.gv.entry.family, q: g.gv.entry.q }, memory, ops, ...(g.mode === 1 ? { space: 'shared' as const } : {}) };
      for (const o of c.outcomes.slice(0, 3)) {
        const obs = { memory: o.memory.map((x) => BigInt(x)), ...(o.returned ? { returned: o.returned.map((r2) => r2.map((x) => BigInt(x))) } : {}) };
        const j = judgeContention(cc, obs, g.atomic);
        expect([c.id, j.verdict]).toEqual([c.id, o.verdict]);
        // and one bit off in the final memory is never allowed where the value is not a NaN (a narrow
        // scope with more than MAX_SPLIT_N participants: not searched, so at most observed)
        if (o.verdict !== 'pass') continue;
        const bad = judgeContention(cc, { ...obs, memory: obs.memory.map((x) => x ^ 1n) }, g.atomic);
        if (!/special/.test(c.set)) expect([c.id, bad.verdict]).toEqual([c.id, g.atomic || c.n <= MAX_SPLIT_N ? 'mismatch' : 'observed']);
        judged++;
      }
    }
    expect(judged).toBeGreaterThan(3000);
  }, 300_000);
  it("the finding: in one cluster, 64-bit and/or/xor/max and packed f16x2/bf16x2 add on another CTA's shared memory lose updates (ptxas 13.0 falls back to a plain load and store); every other op there is atomic", async () => {
    const r = await load('all-report.json.gz');
    const bad = r.contention.filter((c) => c.verdict === 'mismatch');
    expect(bad.length).toBe(25);
    for (const c of bad) {
      expect([c.id, c.layout]).toEqual([c.id, 'cluster']);
      expect(c.variant).toMatch(/^(atom|red)\.shared::cluster\.((and|or|xor)\.b64|max\.[us]64|add\.noftz\.b?f16x2)(\(_\))?$/);
    }
    // the same ops on 32 bits, and 64-bit add/min/cas/exch, in one cluster: every address allowed
    for (const id of [
      'atom.shared::cluster.and.b32',
      'atom.shared::cluster.add.u64',
      'atom.shared::cluster.min.u64',
      'atom.shared::cluster.cas.b64',
      'atom.shared::cluster.exch.b128',
      'atom.shared::cluster.add.noftz.f16',
    ]) {
      const cs = r.contention.filter((c) => c.variant === id && c.layout === 'cluster');
      expect([id, cs.length > 0, cs.every((c) => c.verdict === 'pass')]).toEqual([id, true, true]);
    }
    // lost updates explained as such where the split semantics reach (4 participants)
    const and = r.contention.find((c) => c.id === 'atom.shared::cluster.and.b64/contend-cluster-bits')!;
    expect(and.outcomes[0]!.reason).toMatch(/^not atomic: .*a split read\/write interleaving gives it \(an update lost\)/);
  });
  it('what the H100 did: one warp always in lane order (one outcome, the same in both launches); across warps and CTAs the order varies between launches; narrow scopes lost no update', async () => {
    const r = await load('all-report.json.gz');
    const warp = r.contention.filter((c) => c.layout === 'warp');
    expect(warp.every((c) => c.distinct === 1 && c.deterministic)).toBe(true);
    expect(r.contention.filter((c) => !c.deterministic).length).toBe(938);
    // bulk reductions into the first CTA's shared memory from every CTA of a cluster: all allowed
    const bulk = r.contention.filter((c) => c.variant.startsWith('cp.reduce.async.bulk.shared::cluster'));
    expect([bulk.length, bulk.every((c) => c.layout === 'cluster' && c.verdict === 'pass')]).toEqual([12, true]);
    const o = r.contention.find((c) => c.id === 'atom.global.add.f32/contend-warp-order')!;
    expect(o.outcomes.map((x) => [x.count, x.memory[0], x.orders![0]])).toEqual([[512, '0x3f800000', [0, 1, 2, 3]]]);
    const grid = r.contention.find((c) => c.id === 'red.global.add.f32/contend-grid-order')!;
    expect([grid.allowed, grid.distinct, grid.deterministic]).toEqual([3, 3, false]);
    const narrow = r.contention.filter((c) => !c.atomic);
    expect(narrow.length).toBe(208);
    expect(narrow.every((c) => c.verdict === 'observed' && c.lostUpdates === 0)).toBe(true);
    // .cluster scope: atomic in one cluster, narrow across clusters
    expect(r.contention.filter((c) => c.variant === 'atom.cluster.global.add.f32').map((c) => [c.layout, c.atomic, c.verdict])).toEqual([
      ['grid', false, 'observed'],
      ['grid', false, 'observed'],
      ['grid', false, 'observed'],
      ['cluster', true, 'pass'],
      ['cluster', true, 'pass'],
    ]);
  });
  it('the self-test on the H100: every address of both layouts lost updates (final 1.0 of four +1.0): a mismatch as red, allowed as a narrow scope', async () => {
    const r = await load('self-test-report.json.gz');
    expect(r.contention.map((c) => [c.id, c.verdict, c.lostUpdates, c.asSplit?.verdict, c.outcomes[0]!.memory[0]])).toEqual([
      ['red.global.add.f32/contend-warp-ones:self-test', 'mismatch', 512, 'observed', '0x3f800000'],
      ['red.global.add.f32/contend-grid-ones:self-test', 'mismatch', 512, 'observed', '0x3f800000'],
    ]);
  });
});
