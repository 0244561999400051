/**
 * litmus --backend gpu with shared-memory locations, 64-bit and packed values, and explained findings:
 * what plans and why the rest does not, the shared-memory module's addressing (its own
 * CTA's `.shared::cta` copy, the owner's `.shared::cluster` copy by mapa, a generic one by cvta), the
 * cluster barriers around the instance's code and the copy-out, every such module assembled by ptxas
 * for sm_90; then with the stand-in launcher: 64-bit keys as two words, and a forbidden outcome that
 * the findings file names is a known deviation (exit 0) while one it does not name fails (exit 1).
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/cjs/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STRESS, type StressOptions, launchGeometry, litmusModule } from '../../harness/litmus-gpu/kernel.js';
import { moduleArch, planTest } from '../../harness/litmus-gpu/plan.js';
import { keyInit, onDevice, verdictOf } from '../../harness/litmus-gpu/outcomes.js';
import { judge } from '../../harness/memory-model/index.js';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { compileModules } from '../../harness/backends/gpu/cache.js';
import { defaultCacheDir } from '../../harness/util/cache-dir.js';
import { runWithStandin } from '../helpers/standin.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const MP = 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus';
const FINDING = 'reports/findings/shared-cluster-atomicity';
let ptxas: string | undefined;
let ptxasVersion = '';
let noPtxas: string | undefined;
beforeAll(async () => {
  register();
  const p = await ptxasOrReason();
  ptxas = typeof p === 'string' ? undefined : p.path;
  ptxasVersion = typeof p === 'string' ? '' : p.versionLine;
  noPtxas = typeof p === 'string' ? p : undefined;
});

const corpus = () =>
  [
    ...readdirSync('cases/litmus')
      .filter((f) => f.endsWith('.litmus'))
      .map((f) => `cases/litmus/${f}`),
    ...readdirSync('cases/litmus/matrix').map((f) => `cases/litmus/matrix/${f}`),
  ].sort();
const planOf = (text: string, file = 'x.litmus') => planTest(parseLitmus(text, file).test!, text);
const planned = (file: string) => {
  const text = readFileSync(file, 'utf8');
  const p = planOf(text, file);
  if (!p.ok) throw new Error(`${file}: ${p.reason}`);
  return p.plan;
};
const moduleOf = (file: string, st: StressOptions = DEFAULT_STRESS) => {
  const plan = planned(file);
  return litmusModule(plan, 'sm_90', '8.0', st, launchGeometry(plan.placement, 132, st).warpGroups);
};
/** The lines of thread t's code in lt_test (from its label to its ret). */
const threadCode = (m: string, t: number) => {
  const at = m.indexOf(`\nTH${t}:`);
  return m.slice(at, m.indexOf('  ret;', at));
};

const MP_SHARED = 'cases/litmus/MP+shared-cluster+red.release+atom.acquire.litmus';
const GENERIC = `PTX MP+generic-shared
(* intent: forbidden because release/acquire (8.10.6 Causality) *)
{
s @ shared cta 0;
f @ shared cta 0;
}
 P0@cta 0,cluster 0,gpu 0                 | P1@cta 1,cluster 0,gpu 0                     ;
 st.weak.u32 s, 1                         | ld.acquire.cluster.shared::cluster.u32 r0, f ;
 st.release.cluster.shared::cta.u32 f, 1  | ld.weak.u32 r1, s                            ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
`;

describe('planning shared memory and 64-bit values', () => {
  it('the corpus: every test plans but the two-GPU, multimem and sm_100-only ones, each skipped with its reason', () => {
    const skipped: string[] = [];
    let shared = 0;
    for (const f of corpus()) {
      const text = readFileSync(f, 'utf8');
      const t = parseLitmus(text, f).test!;
      const p = planTest(t, text);
      if (!p.ok) skipped.push(`${f.split('/').pop()}: ${p.reason}`);
      else if (p.plan.shared.some(Boolean)) shared++;
    }
    expect(shared).toBeGreaterThanOrEqual(105); // 96 generated MP tests with a shared flag, the hand-written atomicity, MP and async ones
    expect(skipped).toHaveLength(6);
    for (const s of skipped)
      expect(s).toMatch(
        /^Bulk\+default-scope\+bulk-other-gpu.*gpu 1 \(one GPU only\)|^Multimem\+.*'multimem\.red[^']*' \(only atom and red run|^RedAsync\+release\..*needs sm_100 or higher \(9\.7\.15\.7/,
      );
  });
  it('refuses what it cannot run, with the reason: an owner CTA with no thread, mixed sizes on one location, a 16-bit access', () => {
    const noOwner = GENERIC.replace('s @ shared cta 0;', 's @ shared cta 2,cluster 0,gpu 0;').replace(
      ' st.weak.u32 s, 1  ',
      ' st.weak.shared::cluster.u32 s, 1',
    );
    expect(parseLitmus(noOwner, 'x').problems).toEqual([]);
    expect(planOf(noOwner)).toMatchObject({ ok: false, reason: expect.stringMatching(/shared memory of CTA 2, where no thread of the test runs/) });
    const mixed = GENERIC.replace('ld.weak.u32 r1, s', 'ld.weak.u64 r1, s');
    expect(planOf(mixed)).toMatchObject({ ok: false, reason: expect.stringMatching(/accessed as 32-bit and as 64-bit values/) });
    const half = GENERIC.replace('ld.weak.u32 r1, s', 'ld.weak.b16 r1, s').replace('st.weak.u32 s, 1', 'st.weak.b16 s, 1');
    expect(planOf(half)).toMatchObject({ ok: false, reason: expect.stringMatching(/16-bit access \(32- and 64-bit values run\)/) });
  });
  it('64-bit and packed types: value bits per location and key, 8-byte slots; f16x2/bf16x2 are one 32-bit word', () => {
    const or = planned('cases/litmus/Atomicity+atom.or.b64.cluster-shared.litmus');
    expect([or.locBits, or.keyBits, or.slotBytes]).toEqual([[64], [64], 8]);
    expect(or.regBits).toEqual({ '0:r0': 64, '1:r0': 64 });
    const f16 = planned('cases/litmus/Atomicity+red.add.noftz.f16x2.cluster-shared.litmus');
    expect([f16.locBits, f16.keyBits, f16.slotBytes]).toEqual([[32], [32], 4]);
  });
});

describe('the shared-memory module', () => {
  it('owner CTA 1 (rank 1): its thread uses the .shared::cta copy, the other CTA the owner copy by mapa; both meet on the cluster barrier before and after; the owner initialises and copies out', () => {
    const plan = planned(MP_SHARED);
    expect(plan.shared.map((s) => s?.owner)).toEqual([1, 1]); // s and f belong to CTA 1, where P1 runs
    const m = moduleOf(MP_SHARED);
    const wg = launchGeometry(plan.placement, 132, DEFAULT_STRESS).warpGroups;
    expect(m).toContain(`.shared .align 16 .b8 lt_sh[${2 * wg * 32 * 4}];`);
    expect(m).toMatch(/mapa\.shared::cluster\.u32 %C0, %S0, 1;/);
    expect(m).toMatch(/mapa\.shared::cluster\.u32 %C1, %S1, 1;/);
    const p0 = threadCode(m, 0);
    const p1 = threadCode(m, 1);
    expect(p0).toMatch(/st\.weak\.shared::cluster\.u32 \[%C0\]/);
    expect(p0).toMatch(/red\.release\.cluster\.shared::cluster\.add\.u32 \[%C1\]/);
    expect(p1).toMatch(/atom\.acquire\.cluster\.shared::cta\.add\.u32 %R_r0, \[%S1\]/);
    expect(p1).toMatch(/ld\.weak\.shared::cta\.u32 %R_r1, \[%S0\]/);
    for (const p of [p0, p1]) expect(p.match(/barrier\.cluster\.arrive;\n {2}barrier\.cluster\.wait;/g)).toHaveLength(2);
    // only the owner's thread writes the initial values (before the first barrier) and copies the final ones to mem (after the second)
    expect(p0).not.toMatch(/st\.shared::cta|st\.global\.u32 \[%A/);
    const init = p1.indexOf('st.shared::cta.u32 [%S0], 0;');
    const copy = p1.indexOf('st.global.u32 [%A0], %X;');
    expect(init).toBeGreaterThan(-1);
    expect(init).toBeLessThan(p1.indexOf('barrier.cluster.arrive'));
    expect(copy).toBeGreaterThan(p1.lastIndexOf('barrier.cluster.wait'));
    // the stress warps take part in the first barrier, so it does not wait for them to exit
    expect(m).toMatch(/@%p bra SBAR;/);
    expect(m).toMatch(/SBAR:\n {2}barrier\.cluster\.arrive;\n {2}barrier\.cluster\.wait;\n {2}bra STRESS;/);
    // a global-only test has none of it
    const g = moduleOf('cases/litmus/MP+atom.relaxed.litmus');
    expect(g).not.toMatch(/lt_sh|barrier\.cluster|mapa|SBAR/);
  });
  it('a generic access to a shared location goes through the generic address of the owner copy (cvta.shared::cluster)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lt-generic-'));
    const f = join(dir, 'G.litmus');
    writeFileSync(f, GENERIC);
    const m = moduleOf(f);
    expect(m).toMatch(/cvta\.shared::cluster\.u64 %G0, %XD;/);
    expect(threadCode(m, 0)).toMatch(/st\.weak\.u32 \[%G0\]/);
    expect(threadCode(m, 1)).toMatch(/ld\.weak\.u32 %R_r1, \[%G0\]/);
  });
  it('64-bit: .b64 registers and constants, the key read as two words by lt_count; the owner copies both words out', () => {
    const m = moduleOf('cases/litmus/Atomicity+atom.or.b64.cluster-shared.litmus');
    expect(m).toMatch(/\.reg \.b64 %RD_r0;/);
    expect(threadCode(m, 0)).toMatch(/mov\.b64 %TD0, 4294967296;\n {2}atom\.relaxed\.gpu\.shared::cta\.or\.b64 %RD_r0, \[%S0\], %TD0;/);
    expect(threadCode(m, 1)).toMatch(/atom\.relaxed\.gpu\.shared::cluster\.or\.b64 %RD_r0, \[%C0\], %TD0;/);
    expect(threadCode(m, 0)).toMatch(/st\.global\.u32 \[%A0\+4\], %X;/);
    const count = m.slice(m.indexOf('.entry lt_count'));
    expect(count).toMatch(/mul\.wide\.u32 %a, %u, 8;\n {2}add\.u64 %a, %mem, %a;\n {2}ld\.global\.u32 %V0, \[%a\];\n {2}ld\.global\.u32 %V1, \[%a\+4\];/);
    // stress on the test's lines hits the slot between copies (8 bytes a slot here), never the high word of a copy
    const t = moduleOf('cases/litmus/Atomicity+atom.or.b64.cluster-shared.litmus', { ...DEFAULT_STRESS, target: 'test' });
    expect(t).toMatch(/mad\.lo\.u32 %u, %u, %stride, 1;\n {2}mul\.wide\.u32 %a, %u, 8;/);
  });
  it('every module with a shared or 64-bit location assembles with ptxas for sm_90, under each stress option (align, preload, stress on the test lines)', async (ctx) => {
    if (!ptxas) ctx.skip();
    // compiled as the gpu backend compiles its modules: several ptxas at once, through the cubin
    // cache of the default cache folder (a module compiled before, by the same ptxas, is not again)
    const texts: string[] = [];
    const labels: string[] = [];
    const archs: string[] = [];
    for (const f of corpus()) {
      const text = readFileSync(f, 'utf8');
      const p = planTest(parseLitmus(text, f).test!, text);
      if (!p.ok || (!p.plan.shared.some(Boolean) && !p.plan.locBits.includes(64) && !p.plan.tensorMaps)) continue;
      const sts: StressOptions[] = [DEFAULT_STRESS, { ...DEFAULT_STRESS, align: true }, { ...DEFAULT_STRESS, preload: true, target: 'test' }];
      for (const st of sts) {
        // at the PTX ISA version the runner asks (the toolchain's newest; red.async needs 8.1, try_wait.relaxed 8.6)
        archs.push(moduleArch(p.plan, 'sm_90'));
        texts.push(litmusModule(p.plan, archs.at(-1)!, '9.0', st, launchGeometry(p.plan.placement, 132, st).warpGroups));
        labels.push(`${f} ${JSON.stringify(st)}`);
      }
    }
    expect(texts.length).toBeGreaterThanOrEqual(3 * 105);
    expect(archs).toContain('sm_90a'); // the tensor-map tests (tensormap.replace needs sm_90a)
    for (const arch of new Set(archs)) {
      const at = texts.flatMap((_, i) => (archs[i] === arch ? [i] : []));
      const r = await compileModules(
        at.map((i) => texts[i]!),
        { ptxas: { path: ptxas!, versionLine: ptxasVersion }, arch, cacheDir: defaultCacheDir() },
      ).catch((e: Error) => {
        const k = /gpu module (\d+)/.exec(e.message);
        throw new Error(`${k ? labels[at[Number(k[1])]!] : ''}: ${e.message}`);
      });
      expect(r.modules.every((m) => m !== undefined && m.cubin.endsWith('.cubin'))).toBe(true);
    }
  }, 300_000);
});

describe('litmus --backend gpu with the stand-in: 64-bit keys and explained findings', () => {
  const run = (args: string[], rows: string) => {
    const report = mkdtempSync(join(tmpdir(), 'litmus-gpu-'));
    return runWithStandin(['litmus', '--backend', 'gpu', ...args, '--report', report], { PTXCONF_LITMUS_ROWS: rows }).then((r) => ({
      ...r,
      report: JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')),
    }));
  };
  const findingsFile = (outcomes: Record<string, string>[], test = MP) => {
    const f = join(mkdtempSync(join(tmpdir(), 'findings-')), 'gpu-findings.json');
    // a made-up explanation, for the test only: it names MP's forbidden (1, 0) and a real finding folder
    writeFileSync(
      f,
      JSON.stringify({
        schema: 'ptx-reduction-conformance/litmus-gpu-findings',
        version: 1,
        explained: [{ test, outcomes, finding: FINDING, why: 'test only' }],
      }),
    );
    return f;
  };
  it('64-bit register keys: each key two words (low, high) in the table, the samples and the verdicts', async (ctx) => {
    if (noPtxas) ctx.skip();
    const dir = mkdtempSync(join(tmpdir(), 'lt-w64-'));
    const f = join(dir, 'W64.litmus');
    writeFileSync(
      f,
      `PTX Atomicity+atom.or.b64.global
(* intent: forbidden because two morally strong ors cannot both read the other's write (8.10.3 Atomicity) *)
{
x=0;
}
 P0@cta 0,gpu 0                                    | P1@cta 1,gpu 0                           ;
 atom.relaxed.gpu.global.or.b64 r0, x, 0x100000000 | atom.relaxed.gpu.global.or.b64 r0, x, 1 ;
exists (P0:r0 == 1 /\\ P1:r0 == 0x100000000)
`,
    );
    // words: P0:r0 low, high, P1:r0 low, high
    const r = await run([f, '--iterations', '1', '--instances', '4096'], '0,0,0,1;1,0,0,0;1,0,0,1;7,7,0,0');
    expect(r.code, r.out).toBe(1);
    const g = r.report.results[0].gpu;
    expect(g.keyBits).toEqual([64, 64]);
    const row = (v: string) => g.histogram.find((h: { values: string[] }) => h.values.join(',') === v);
    expect(row('0,4294967296')).toMatchObject({ count: 1024, allowed: true });
    expect(row('1,0')).toMatchObject({ count: 1024, allowed: true });
    expect(row('1,4294967296')).toMatchObject({ count: 1024, allowed: false });
    expect(row(`${7 + 7 * 2 ** 32},0`)).toMatchObject({ count: 64, allowed: false, why: 'no candidate execution has it' });
    expect(g.other).toEqual({ count: 1024, samples: 64 });
    expect(g.forbiddenSeen).toBe(2048);
  }, 60_000);
  it('a forbidden outcome the findings file names is a known deviation with its finding and count: exit 0', async (ctx) => {
    if (noPtxas) ctx.skip();
    const r = await run([MP, '--iterations', '2', '--instances', '3072', '--findings', findingsFile([{ 'P1:r0': '1', 'P1:r1': '0' }])], '0,0;1,1;1,0');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/known deviation \(finding shared-cluster-atomicity\): 2048 of 6144/);
    expect(r.out).toMatch(/0 with a forbidden outcome seen, 1 with only known deviations/);
    expect(r.report.results[0]).toMatchObject({ status: 'known-deviation', known: [{ finding: FINDING, count: 2048 }] });
    expect(r.report.counts['known-deviation']).toBe(1);
  }, 60_000);
  it('one it does not name still fails: another outcome named, an unexplained one beside an explained one, the default file (exit 1); a bad file exits 2', async (ctx) => {
    if (noPtxas) ctx.skip();
    const other = await run([MP, '--iterations', '1', '--instances', '3072', '--findings', findingsFile([{ 'P1:r0': '7', 'P1:r1': '7' }])], '0,0;1,1;1,0');
    expect(other.code, other.out).toBe(1);
    expect(other.out).toMatch(/FORBIDDEN OUTCOME SEEN \(1024 of 3072\)/);
    expect(other.report.results[0].status).toBe('failed');
    // (1,0) explained, (7,7) (the other bin) not: the test fails
    const mixed = await run([MP, '--iterations', '1', '--instances', '3072', '--findings', findingsFile([{ 'P1:r0': '1', 'P1:r1': '0' }])], '0,0;7,7;1,0');
    expect(mixed.code, mixed.out).toBe(1);
    expect(mixed.report.results[0].status).toBe('failed');
    // the default file (cases/litmus/gpu-findings.json) does not explain MP
    const dflt = await run([MP, '--iterations', '1', '--instances', '3072'], '0,0;1,1;1,0');
    expect(dflt.code, dflt.out).toBe(1);
    const badDir = mkdtempSync(join(tmpdir(), 'findings-bad-'));
    const bad = join(badDir, 'f.json');
    writeFileSync(
      bad,
      JSON.stringify({
        schema: 'ptx-reduction-conformance/litmus-gpu-findings',
        version: 1,
        explained: [{ test: MP, outcomes: [{ 'P1:r0': '1' }], finding: 'reports/findings/no-such-finding', why: 'x' }],
      }),
    );
    const b = await runWithStandin(['litmus', '--backend', 'gpu', MP, '--findings', bad], {});
    expect(b.code).toBe(2);
    expect(b.out).toMatch(/finding 'reports\/findings\/no-such-finding' is not a folder/);
  }, 60_000);
});

describe('the bulk_group async slice', () => {
  const mod = (f: string, plant: 'none' | 'drop-wait' = 'none') => {
    const text = readFileSync(`cases/litmus/${f}`, 'utf8');
    const p = planTest(parseLitmus(text, f).test!, text);
    if (!p.ok) throw new Error(p.reason);
    return { plan: p.plan, m: litmusModule(p.plan, 'sm_90', '8.0', DEFAULT_STRESS, 2, plant) };
  };
  it('a bulk reduction runs on 16-byte slots: the source zero-padded, the operation 16 bytes, the proxy fence as written, every bulk operation completed before the thread exits', () => {
    const { plan, m } = mod('Bulk+generic-source+fence.proxy.async.litmus');
    expect(plan.slotBytes).toBe(16);
    expect(m).toContain('.shared .align 16 .b8 lt_sh[');
    expect(m).toMatch(/cp\.reduce\.async\.bulk\.global\.shared::cta\.bulk_group\.add\.u32 \[%A\d+\], \[%S\d+\], 16;/);
    expect(m).toContain('fence.proxy.async.shared::cta;');
    expect(m).toMatch(/st\.shared::cta\.v2\.u32 \[%S\d+\+8\], \{0, 0\};/);
    const lines = m.split('\n');
    const bulk = lines.findIndex((l) => l.includes('cp.reduce.async.bulk'));
    expect(lines.slice(bulk).filter((l) => l.includes('cp.async.bulk.wait_group 0;')).length).toBe(2); // the test's and the one before exit
  });
  it("the self-test's planted drop-wait kernel overwrites the source with no wait before it; without the plant the wait comes first", () => {
    const order = (m: string) =>
      m
        .split('\n')
        .filter((l) => /cp\.async\.bulk\.wait_group|st\.weak\.shared::cta/.test(l))
        .map((l) => (l.includes('wait_group.read') ? 'wait.read' : l.includes('wait_group') ? 'wait' : 'st'));
    expect(order(mod('Bulk+wait_group.read+overwrite-source.litmus').m)).toEqual(['wait.read', 'st', 'wait', 'wait']);
    expect(order(mod('Bulk+wait_group.read+overwrite-source.litmus', 'drop-wait').m)).toEqual(['st', 'wait']);
  });
  it('mbarrier completion: the owner starts the phase (init 1, arrive.expect_tx of what the GPU moves: a 16-byte slot per bulk reduction, the element for red.async), try_wait as try_wait.parity, and waits (bounded) for the phase before the last cluster barrier', () => {
    const bulk = mod('Bulk+mbarrier+complete_tx.litmus').m;
    expect(bulk).toMatch(
      /mbarrier\.init\.shared::cta\.b64 \[%S\d+\], 1;\n\s+mbarrier\.arrive\.expect_tx\.shared::cta\.b64 %XD, \[%S\d+\], 16;\n\s+fence\.mbarrier_init\.release\.cluster;/,
    );
    expect(bulk).toMatch(/cp\.reduce\.async\.bulk\.shared::cluster\.shared::cta\.mbarrier::complete_tx::bytes\.add\.u32 \[%C\d+\], \[%S\d+\], 16, \[%C\d+\];/);
    expect(bulk).toMatch(/mbarrier\.try_wait\.parity\.acquire\.cluster\.shared::cta\.b64 %p, \[%S\d+\], 0;\n\s+selp\.u32 %R_p, 1, 0, %p;/);
    expect(bulk).toMatch(
      /MBW1_\d+:\n\s+mbarrier\.try_wait\.parity\.shared::cta\.b64 %p, \[%S\d+\], 0;\n\s+@%p bra MBD1_\d+;\n\s+add\.u32 %v, %v, 1;\n\s+setp\.lt\.u32 %p, %v, 1048576;/,
    );
    const red = mod('RedAsync+mbarrier.litmus').m;
    expect(red).toMatch(/mbarrier\.arrive\.expect_tx\.shared::cta\.b64 %XD, \[%S\d+\], 4;/);
    expect(red).toMatch(/red\.async\.relaxed\.cluster\.shared::cluster\.mbarrier::complete_tx::bytes\.add\.u32 \[%C\d+\], %T0, \[%C\d+\];/);
  });
  it('an mbarrier whose initial value is not the bytes the test completes on it is skipped with the reason', () => {
    const text = readFileSync('cases/litmus/RedAsync+mbarrier.litmus', 'utf8').replace('b @ shared cta 1,cluster 0 = 4;', 'b @ shared cta 1,cluster 0 = 8;');
    const p = planTest(parseLitmus(text, 'x.litmus').test!, text);
    expect(p.ok ? '' : p.reason).toMatch(/mbarrier b starts at 8, not the 4 bytes/);
  });
  it("an async test's initial values are fenced for the async proxy: the owner's stores, fence.proxy.async.shared::cta, then the cluster barrier; a test with no async operation has none", () => {
    const m = mod('Copy+mbarrier+try_wait.acquire.cta.litmus').m;
    expect(m).toMatch(/st\.shared::cta\.v2\.u32 \[%S\d+\+8\], \{0, 0\};\n\s+fence\.proxy\.async\.shared::cta;\n\s+barrier\.cluster\.arrive;/);
    expect(m).toMatch(/cp\.async\.bulk\.shared::cta\.global\.mbarrier::complete_tx::bytes \[%S\d+\], \[%A\d+\], 16, \[%S\d+\];/);
    const text = readFileSync('cases/litmus/Atomicity+atom.add.cluster-shared.litmus', 'utf8');
    const p = planTest(parseLitmus(text, 'x').test!, text);
    expect(p.ok && litmusModule(p.plan, 'sm_90', '8.0', DEFAULT_STRESS, 2)).not.toContain('fence.proxy.async');
  });
  it('a copy of two chunks: arrays of five elements in 32-byte slots (the shared ones zeroed whole), the copy 32 bytes, the phase expecting 32', () => {
    const { plan, m } = mod('Copy+two-chunks+mbarrier+try_wait.acquire.cluster.litmus');
    expect(plan.slotBytes).toBe(32);
    expect(plan.mbarriers?.filter((x) => x !== undefined)).toEqual([32]);
    expect(m).toMatch(/cp\.async\.bulk\.shared::cta\.global\.mbarrier::complete_tx::bytes \[%S\d+\], \[%A\d+\], 32, \[%S\d+\];/);
    expect(m).toMatch(/mbarrier\.arrive\.expect_tx\.shared::cta\.b64 %XD, \[%S\d+\], 32;/);
    expect(m).toMatch(/st\.shared::cta\.v4\.u32 \[%S\d+\+16\], \{0, 0, 0, 0\};/);
    // the second chunk's element: 16 bytes into its array's copy
    expect(m).toMatch(/add\.u32 %S\d+, %S\d+, 16;/);
    const g = mod('Copy+two-chunks+wait_group+read-destination.litmus').m;
    expect(g).toMatch(/cp\.async\.bulk\.global\.shared::cta\.bulk_group \[%A\d+\], \[%S\d+\], 32;/);
    // one chunk: 16 bytes as before
    expect(mod('Copy+mbarrier+try_wait.acquire.cluster.litmus').plan.slotBytes).toBe(16);
  });
  it('the wait_group.read of the litmus language is emitted as written', () => {
    expect(mod('Bulk+wait_group.read+overwrite-source.litmus').m).toContain('cp.async.bulk.wait_group.read 0;');
  });
});

describe('register arithmetic', () => {
  it('a computed operand and a local are computed into temporaries at the register width; a comparison is not run', () => {
    const text = `PTX Arith
{
x=0;
}
 P0@cta 0,gpu 0            ;
 mov.u32 r0, 2             ;
 add.u32 r1, r0, 3         ;
 st.relaxed.gpu.global.u32 x, r1 ;
exists (x == 5)
`;
    const p = planTest(parseLitmus(text, 'a.litmus').test!, text);
    if (!p.ok) throw new Error(p.reason);
    const m = litmusModule(p.plan, 'sm_90', '9.0', DEFAULT_STRESS, 2);
    expect(m).toMatch(/mov\.b32 %T0, 3;\n\s+add\.u32 %T1, %R_r0, %T0;\n\s+mov\.b32 %R_r1, %T1;/);
    expect(m).toMatch(/st\.relaxed\.gpu\.global\.u32 \[%A0\], %R_r1;/);
  });
});

describe('forward branches', () => {
  const text = `PTX skip
{
t=0; d=0;
}
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0        ;
 st.relaxed.gpu d, 1 | ld.weak r0, t         ;
 st.relaxed.gpu t, 1 | beq r0, 0, LC00       ;
                     | ld.relaxed.gpu r1, d  ;
                     | LC00:                 ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
`;
  it("emitted as setp and a predicated bra to the thread's label; a backward one (a loop) runs bounded", () => {
    const t = parseLitmus(text, 'skip.litmus').test!;
    const p = planTest(t, text);
    if (!p.ok) throw new Error(p.reason);
    const m = litmusModule(p.plan, 'sm_90', '8.0', DEFAULT_STRESS, 2);
    expect(m).toMatch(/setp\.eq\.u32 %p, %R_r0, 0;\n\s+@%p bra LB1_LC00;\n\s+ld\.relaxed\.gpu\.b32 %R_r1, \[%A\d+\];\nLB1_LC00:/);
    const loop = text
      .replace('beq r0, 0, LC00       ;', 'LC00:                 ;')
      .replace('LC00:                 ;\nexists', 'beq r0, 0, LC00       ;\nexists');
    const q = planTest(parseLitmus(loop, 'loop.litmus').test!, loop);
    expect(q.ok && q.plan.loops).toBe(true); // runs bounded (tests/litmus-gpu/aliases-loops.test.ts)
  });
  it("a register the skipped load never wrote ('?' in the model) is its initial value on the device: the outcome the kernel shows is allowed", () => {
    const t = parseLitmus(text, 'skip.litmus').test!;
    const j = judge(t);
    const keys = ['P1:r0', 'P1:r1'];
    expect(j.outcomes.some((o) => o.values['P1:r1'] === '?')).toBe(true);
    expect(verdictOf(j, keys, ['0', '0']).allowed).toBe(false); // as the model's '?' reads
    expect(verdictOf(onDevice(j, keyInit(t)), keys, ['0', '0']).allowed).toBe(true);
    expect(verdictOf(onDevice(j, keyInit(t)), keys, ['1', '0']).allowed).toBe(true); // MP without fences: allowed either way
  });
});
