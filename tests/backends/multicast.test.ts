/**
 * The multicast backend against the stand-in (no test here, and no script, ever enables
 * multicast on a machine): the safety refusals, in order, before anything is created; the driver-call
 * sequence of a job, and the release of everything on every failing call; the judgement of each
 * accumulation the simulated switch can be set to, through the comparator's explanations; the
 * nondeterminism histogram; and the kernels, compiled by ptxas for sm_90.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMulticastCases } from '../../harness/backends/multicast/backend.js';
import type { MulticastDriver } from '../../harness/backends/multicast/driver.js';
import { jobKernel } from '../../harness/backends/multicast/executor.js';
import { multicastGuard } from '../../harness/backends/multicast/guard.js';
import { type StandInConfig, StandInMulticast } from '../../harness/backends/multicast/standin.js';
import { loadVectors } from '../../harness/case-readers/vectors.js';
import { enumerateCatalog } from '../../harness/catalog/enumerate.js';
import { comparePtx, findTarget } from '../../harness/arch/targets.js';
import { judgeRun } from '../../harness/compare/judge-run.js';
import { multicastFamily } from '../../harness/registry/multicast.js';
import { multimemBulkModule } from '../../harness/families/multimem-cp-reduce-async-bulk/multicast.js';
import { parseInstruction } from '../../harness/catalog/parse.js';
import type { Case } from '../../harness/case-readers/types.js';
import { runAtRoot } from '../helpers/cli.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const ROOT = join(import.meta.dirname, '..', '..');
const H100 = { name: 'NVIDIA H100 80GB HBM3', multicastSupported: true };
const config = (over: Partial<StandInConfig> = {}): StandInConfig => ({
  devices: Array.from({ length: 8 }, () => H100),
  order: 'ascending',
  accumulate: 'as-declared',
  ftz: false,
  ...over,
});
const ACC = (await loadVectors([join(ROOT, 'cases', 'vectors', 'multimem-accumulation.yaml')], ROOT)).cases;
const byName = (n: string) => ACC.filter((c) => c.id.endsWith(`:${n}`));

/** `ptxIsa`: what the toolchain writes (the stand-in compiles nothing; 9.1 lets every family run). */
async function run(drv: StandInMulticast, cases: readonly Case[], launches = 1, ptxIsa = '9.1') {
  const guard = multicastGuard({ allowed: true, env: {}, survey: () => drv.survey() });
  if (!('devices' in guard)) throw new Error(guard.refused.reason);
  const r = await runMulticastCases({ driver: drv, devices: guard.devices, cases, launches, ptxIsa, target: 'sm_90' });
  return { ...r, judged: judgeRun(r.results) };
}
const explained = (r: Awaited<ReturnType<typeof run>>, name: string) => {
  const x = r.judged.results.find((y) => y.id.endsWith(`:${name}`))!;
  return { verdict: x.verdict, ids: x.explanation?.ids ?? [] };
};

describe('refusals, in order, before any driver call that creates anything', () => {
  const surveyed = () => {
    const drv = new StandInMulticast(config());
    return { drv, survey: () => drv.survey() };
  };
  it('without the flag: refused first, the devices not even asked', async () => {
    const { drv, survey } = surveyed();
    const g = multicastGuard({ allowed: false, env: { NCCL_NVLS_ENABLE: '0' }, survey });
    expect(g).toEqual({
      refused: { check: 'flag', reason: expect.stringMatching(/it runs only with --allow-\w+, on a machine you own .*--plan-only shows what it would do/) },
    });
    expect(drv.calls).toEqual([]);
  });
  it.each([
    [{ NCCL_NVLS_ENABLE: '0' }, /NCCL_NVLS_ENABLE=0 is set: this host tells NCCL to keep NVLink multicast off/],
    [{ NVSHMEM_DISABLE_NVLS: '1' }, /NVSHMEM_DISABLE_NVLS=1 is set/],
    [{ TORCH_SYMM_MEM_DISABLE_MULTICAST: '1' }, /TORCH_SYMM_MEM_DISABLE_MULTICAST=1 is set: this host tells PyTorch symmetric memory/],
    [
      { NCCL_NVLS_ENABLE: '0', NVSHMEM_DISABLE_NVLS: '1', TORCH_SYMM_MEM_DISABLE_MULTICAST: '1' },
      /NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1, TORCH_SYMM_MEM_DISABLE_MULTICAST=1 are set/,
    ],
  ])('a host that keeps multicast off (%o): refused, the devices not asked', (env, re) => {
    const { drv, survey } = surveyed();
    const g = multicastGuard({ allowed: true, env, survey });
    expect('refused' in g && g.refused.check).toBe('environment');
    expect('refused' in g && g.refused.reason).toMatch(re);
    expect(drv.calls).toEqual([]);
  });
  it('other values of those variables do not refuse', async () => {
    const { survey } = surveyed();
    expect(multicastGuard({ allowed: true, env: { NCCL_NVLS_ENABLE: '1', NVSHMEM_DISABLE_NVLS: '0' }, survey })).toEqual({ devices: [0, 1, 2, 3, 4, 5, 6, 7] });
  });
  it('fewer than two devices with multicast: refused after asking only the attribute; none created', async () => {
    const drv = new StandInMulticast(config({ devices: [H100, { name: 'NVIDIA H100 PCIe', multicastSupported: false }] }));
    const g = multicastGuard({ allowed: true, env: {}, survey: () => drv.survey() });
    expect('refused' in g && g.refused).toEqual({
      check: 'devices',
      reason:
        'multimem needs at least 2 devices reporting CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 1; this machine has 1 (0: NVIDIA H100 80GB HBM3 (multicast supported); 1: NVIDIA H100 PCIe (multicast not supported))',
    });
    expect(drv.calls).toEqual(['cuDeviceGetAttribute(MULTICAST_SUPPORTED) x2']);
    expect(multicastGuard({ allowed: true, env: {}, survey: () => ({ unavailable: 'no CUDA driver' }) })).toEqual({
      refused: { check: 'devices', reason: 'cannot ask the devices whether they support multicast: no CUDA driver' },
    });
  });
});

describe('the driver-call sequence (recording stand-in)', () => {
  it('one job: create, add every device, allocate and bind per device, map, initialise through unicast, launch, read every replica, release in reverse', async () => {
    const drv = new StandInMulticast(config());
    const r = await run(drv, byName('nccl-2360-f32'), 2);
    expect(r.releaseErrors).toEqual([]);
    const size = 2 << 20;
    expect(drv.calls).toEqual([
      'cuDeviceGetAttribute(MULTICAST_SUPPORTED) x8',
      'cuMulticastGetGranularity(devices=4, size=4)',
      `cuMulticastCreate(devices=4, size=${size})`,
      ...[0, 1, 2, 3].map((d) => `cuMulticastAddDevice(device=${d})`),
      ...[0, 1, 2, 3].flatMap((d) => [`cuMemCreate(device=${d}, size=${size})`, `cuMulticastBindMem(device=${d}, size=${size})`]),
      `cuMemAddressReserve+cuMemMap(multicast)+cuMemSetAccess(device=0, size=${size})`,
      ...[0, 1, 2, 3].map((d) => `cuMemAddressReserve+cuMemMap(physical)+cuMemSetAccess(device=${d}, size=${size})`),
      `cuMemAlloc(device=0, size=${size})`,
      `cuMemAlloc(device=0, size=${size})`,
      'cuModuleLoadData+cuModuleGetFunction(device=0, multimem.ld_reduce.relaxed.sys.global.add.f32)',
      ...[1, 2].flatMap(() => [
        ...[0, 1, 2, 3].map((d) => `cuMemcpyHtoD(device=${d}, 4 bytes)`),
        'cuLaunchKernel(device=0, 1 threads)+cuCtxSynchronize',
        ...[0, 1, 2, 3].map((d) => `cuMemcpyDtoH(device=${d}, 4 bytes)`),
        'cuMemcpyDtoH(device=0, 4 bytes)',
      ]),
      'cuModuleUnload(device=0)',
      'cuMemFree(device=0)',
      'cuMemFree(device=0)',
      ...[3, 2, 1, 0].map(() => `cuMemUnmap+cuMemAddressFree(size=${size})`),
      `cuMemUnmap+cuMemAddressFree(size=${size})`,
      ...[3, 2, 1, 0].flatMap((d) => [`cuMulticastUnbind(device=${d}, size=${size})`, 'cuMemRelease(physical)']),
      'cuMemRelease(multicast)',
    ]);
    expect([...drv.live.values()]).toEqual([]);
  });

  const CALLS: (keyof MulticastDriver)[] = [
    'granularity',
    'createMulticast',
    'addDevice',
    'allocPhysical',
    'bindMemory',
    'mapMulticast',
    'mapUnicast',
    'allocPlain',
    'write',
    'loadKernel',
    'launch',
    'read',
  ];
  it.each(CALLS)("%s fails: the job's cases are errors naming the call, and everything created is released", async (call) => {
    const drv = new StandInMulticast(config({ failAt: { call, nth: call === 'addDevice' || call === 'allocPhysical' || call === 'write' ? 2 : 1 } }));
    const r = await run(drv, byName('f32-wider-than-f32-3'));
    expect(r.results.map((x) => x.verdict)).toEqual(['error']);
    expect(r.results[0]!.reason).toMatch(/CUDA_ERROR_UNKNOWN \(failure planted by the test\)/);
    expect([...drv.live.values()]).toEqual([]);
    expect(r.releaseErrors).toEqual([]);
  });
  it('a failing release is reported, and the releases after it are still made', async () => {
    const drv = new StandInMulticast(config({ failAt: { call: 'unmap' } }));
    const r = await run(drv, byName('f32-wider-than-f32-3'));
    expect(r.results.map((x) => x.verdict)).toEqual(['pass']);
    expect(r.releaseErrors).toEqual([expect.stringMatching(/^releasing the device 2 mapping: cuMemUnmap\+cuMemAddressFree.*planted/)]);
    expect([...drv.live.values()]).toEqual(['device 2 mapping']);
    expect(drv.calls.at(-1)).toBe('cuMemRelease(multicast)');
  });
  it('cases with more replicas than devices are skipped with the reason; fewer run on as many devices', async () => {
    const drv = new StandInMulticast(config({ devices: [H100, H100, H100, H100] }));
    const r = await run(drv, ACC);
    const skipped = r.results.filter((x) => x.verdict === 'skipped');
    expect(skipped.map((x) => x.id.split(':').at(-1))).toEqual(['f32-wider-than-f32-8', 'bf16-eight-ranks-control']);
    expect(skipped[0]!.reason).toBe('the case has 8 replicas; 4 device(s) support multicast here');
    expect(r.results.filter((x) => x.verdict !== 'skipped')).toHaveLength(ACC.length - 2);
  });
});

describe('each accumulation of the switch, as the report gives it', () => {
  it('as the spec implies (the element type, each step rounded, in replica order): no mismatch; the NCCL probe in ascending order gives 1, an allowed order', async () => {
    const r = await run(new StandInMulticast(config()), ACC);
    expect(r.judged.results.filter((x) => x.verdict === 'mismatch' || x.verdict === 'error')).toEqual([]);
    expect(r.judged.results.find((x) => x.id.endsWith(':nccl-2360-f32'))!.case!.observed).toEqual({ returned: ['0x3f800000'] });
  });
  it('f32 accumulation: the bf16 and f16 sets are mismatches explained by a wider accumulation; f32 elements are unchanged', async () => {
    const r = await run(new StandInMulticast(config({ accumulate: 'f32' })), ACC);
    expect(explained(r, 'bf16-wider-than-bf16-3')).toEqual({ verdict: 'mismatch', ids: ['acc-f32', 'acc-f64', 'acc-exact'] });
    expect(explained(r, 'f16-wider-than-f16-3')).toEqual({ verdict: 'mismatch', ids: ['acc-f32', 'acc-f64', 'acc-exact'] });
    // f32 cannot hold 2^-40 beside 1: this set says the accumulation is no wider than f32
    expect(explained(r, 'bf16-wider-than-f32-4').verdict).toBe('pass');
    expect(explained(r, 'f32-wider-than-f32-3').verdict).toBe('pass');
    expect(explained(r, 'bf16-acc-f32-3').verdict).toBe('pass');
  });
  it('f64 accumulation: f32 elements show it (acc-f64, acc-exact), and the exact-only set says it is not exact', async () => {
    const r = await run(new StandInMulticast(config({ accumulate: 'f64' })), ACC);
    expect(explained(r, 'f32-wider-than-f32-3')).toEqual({ verdict: 'mismatch', ids: ['acc-f64', 'acc-exact'] });
    expect(explained(r, 'f32-wider-than-f32-8')).toEqual({ verdict: 'mismatch', ids: ['acc-f64', 'acc-exact'] });
    expect(explained(r, 'f32-exact-not-f64-4').verdict).toBe('pass');
    expect(explained(r, 'bf16-wider-than-f32-4')).toEqual({ verdict: 'mismatch', ids: ['acc-f64', 'acc-exact'] });
  });
  it('exact accumulation, one rounding: only acc-exact explains the set below f64', async () => {
    const r = await run(new StandInMulticast(config({ accumulate: 'exact' })), ACC);
    expect(explained(r, 'f32-exact-not-f64-4')).toEqual({ verdict: 'mismatch', ids: ['acc-exact'] });
    expect(explained(r, 'nccl-2360-f32').verdict).toBe('observed'); // 2.0: allowed, by the order (r0+r2)+(r1+r3)
    expect(r.judged.results.find((x) => x.id.endsWith(':nccl-2360-f32'))!.case!.observed).toEqual({ returned: ['0x40000000'] });
    // one finding per accumulation the observations point to, named in the report
    expect(r.judged.findings.some((f) => /acc-exact/.test(JSON.stringify(f)))).toBe(true);
  });
  it('a .acc::f32 variant that steps in bf16 anyway is acc-type', async () => {
    const drv = new StandInMulticast(config());
    // the switch honouring the declared accumulation passes; one ignoring it (bf16 steps) does not
    expect(explained(await run(drv, byName('bf16-acc-f32-3')), 'bf16-acc-f32-3').verdict).toBe('pass');
    // the stand-in has no "ignore .acc" mode: what such a switch returns is the plain variant's result
    const plain = await run(new StandInMulticast(config()), byName('bf16-wider-than-bf16-3'));
    const bits = plain.results[0]!.case!.observed as { returned: string[] };
    const c = byName('bf16-acc-f32-3')[0]!;
    const r = judgeRun([{ ...plain.results[0]!, id: c.id, ptx: c.variant.ptx, verdict: 'mismatch', case: { ...plain.results[0]!.case!, observed: bits } }]);
    expect(r.results[0]!.explanation?.ids).toContain('acc-type');
  });
});

describe('nondeterminism: repeated launches', () => {
  it('a switch whose order changes between launches: the distinct outcomes and their counts, each judged', async () => {
    const r = await run(new StandInMulticast(config({ order: 'rotating' })), byName('nccl-2360-f32'), 4);
    const x = r.judged.results[0]!;
    expect(r.stats.nondeterministic).toBe(1);
    expect((x.case!.observed as { histogram: unknown }).histogram).toEqual([
      { returned: ['0x3f800000'], launches: 2 },
      { returned: ['0x00000000'], launches: 2 },
    ]);
    expect(x.reason).toMatch(/2 distinct outcomes over 4 launches/);
    expect(x.verdict).toBe('observed');
  });
  it('a fixed order: one outcome in every launch, said', async () => {
    const r = await run(new StandInMulticast(config()), byName('nccl-2360-f32'), 3);
    expect(r.stats.nondeterministic).toBe(0);
    expect(r.judged.results[0]!.reason).toMatch(/the same outcome in all 3 launches/);
  });
});

describe('the kernels compile (ptxas, sm_90)', async () => {
  const p = await ptxasOrReason();
  const dir = mkdtempSync(join(tmpdir(), 'ptxconf-mc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it.skipIf(typeof p === 'string')('one kernel per multicast variant of the sm_90 catalog that ptxas accepts: every one compiles', () => {
    const ptxas = p as Exclude<typeof p, string>;
    // multimem.cp.reduce.async.bulk needs PTX ISA 9.1, which ptxas 13.0 does not write: its kernel is the next test's
    const entries = enumerateCatalog({ target: findTarget('sm_90')!, ptx: '9.0', neighbours: false }).filter(
      (e) =>
        e.kind === 'variant' &&
        e.status === 'valid' &&
        e.expect === 'accept' &&
        multicastFamily(e.family) &&
        e.family !== 'multimem.cp.reduce.async.bulk' &&
        !/^multimem\.red\.(acquire|release)|\.(cta|cluster)\./.test(e.ptx),
    );
    expect(entries.length).toBeGreaterThan(100);
    const seen = new Set<string>();
    const mods: string[] = [];
    for (const e of entries) {
      const key = `${e.family}.${e.q.type}.${e.q.vec ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const k = jobKernel({ variant: { family: e.family, q: e.q, ptx: e.ptx }, family: multicastFamily(e.family)!, replicas: 2, cases: [] }, '8.6', 'sm_90');
      mods.push(k.module);
    }
    for (const [i, m] of mods.entries()) {
      const f = join(dir, `k${i}.ptx`);
      writeFileSync(f, m);
      expect(() => execFileSync(ptxas.path, ['-arch=sm_90', f, '-o', join(dir, `k${i}.cubin`)], { stdio: 'pipe' }), m).not.toThrow();
    }
    expect(mods.length).toBeGreaterThan(20);
  });
  it.skipIf(typeof p === 'string')(
    'the multimem.cp.reduce.async.bulk kernel: ptxas 13.0 compiles it at PTX ISA 9.0 with the unicast cp.reduce.async.bulk in its place (staging, fence, the size register, commit and wait), for 16 bytes to 4 KiB a case',
    () => {
      const ptxas = p as Exclude<typeof p, string>;
      const fam = multicastFamily('multimem.cp.reduce.async.bulk')!;
      const unicast = (ptx: string, dst: string, src: string, size: string) => `${ptx.replace(/^multimem\./, '')} [${dst}], [${src}], ${size};`;
      const cases: [string, number][] = [
        ['multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32', 4],
        ['multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16', 72],
        ['multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u64', 512],
      ];
      for (const [i, [ptx, n]] of cases.entries()) {
        const q = parseInstruction(ptx).q;
        const real = jobKernel(
          {
            variant: { family: 'multimem.cp.reduce.async.bulk', q, ptx },
            family: fam,
            replicas: 2,
            cases: [{ id: 'x', input: { replicas: [Array(n).fill(0n), Array(n).fill(0n)], source: Array(n).fill(0n) } }],
          },
          '9.0',
          'sm_90',
        );
        expect(real.module).toMatch(/^\.version 9\.1$/m);
        expect(real.module).toContain(`${ptx} [%a5], [%t5], %t7;`);
        expect(real.slotBytes).toBe((n * Number(q.type!.replace(/\D/g, ''))) / 8);
        const stand = multimemBulkModule(unicast, ptx, q, '9.0', 'sm_90', n);
        expect(
          stand.text.replace(/^\.version 9\.0$/m, '.version 9.1').replace(/^  cp\.reduce\.async\.bulk\.global/m, '  multimem.cp.reduce.async.bulk.global'),
        ).toBe(real.module);
        const f = join(dir, `bulk${i}.ptx`);
        writeFileSync(f, stand.text);
        expect(() => execFileSync(ptxas.path, ['-arch=sm_90', f, '-o', join(dir, `bulk${i}.cubin`)], { stdio: 'pipe' }), stand.text).not.toThrow();
      }
    },
  );
});

describe('the command (no test gives it permission)', () => {
  it('--backend multicast without permission: exit 2 with the reason, no report written', async () => {
    const r = await runAtRoot(['--backend', 'multicast', '--report', join(tmpdir(), 'ptxconf-mc-never')]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/error: --backend multicast: the multicast backend creates a multicast object bound to several GPUs/);
    expect(r.out).not.toMatch(/^report:/m);
  });
  it('--plan-only: every job with what it would create and launch, the cases it cannot run, and what the guard would say; exit 0', async () => {
    const r = await runAtRoot(['--backend', 'multicast', '--plan-only', '--filter', 'multimem.ld_reduce.relaxed.sys.global.add.*', '--launches', '3']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /multicast plan for sm_90: (\d+) case\(s\) \(9 of \d+ file\(s\), (\d+) generated: every accepted variant over 2, 4 and 8 replicas\), (\d+) job\(s\) on 8 device\(s\) \(assumed: the devices were not asked\); each job launched 3 time\(s\)/,
    );
    expect(r.out).toMatch(/nothing below is created by --plan-only/);
    expect(r.out).toMatch(
      /^  4 replicas, devices 0-3: cuMulticastCreate\(4 devices, \d+ bytes rounded up to the granularity\), cuMulticastAddDevice x4, .* then \d+ job\(s\), each: load its kernel, 3 x \(write 4 replicas, launch, read back\), unload/m,
    );
    expect(r.out).toMatch(
      /^    multimem\.ld_reduce\.relaxed\.sys\.global\.add\.f32: 2 case\(s\), one thread each, 4 bytes a case; reads back the returned values$/m,
    );
    expect(r.out).toMatch(/^    \.\.\. and \d+ more job\(s\) \(--filter narrows the run\)$/m);
    expect(r.out).toMatch(/a run would be refused \(exit 2\): the multicast backend creates a multicast object/);
  });
  it('--plan-only with a ptxas older than PTX ISA 9.1 (13.0 writes 9.0): multimem.cp.reduce.async.bulk cases listed as skipped, by reason, counted', async (ctx) => {
    const p = await ptxasOrReason();
    if (typeof p === 'string' || comparePtx(p.maxPtx, '9.1') >= 0) {
      console.warn(`[skip] needs a ptxas that writes less than PTX ISA 9.1: ${typeof p === 'string' ? p : `this one writes ${p.maxPtx}`}`);
      return ctx.skip();
    }
    const r = await runAtRoot(['--backend', 'multicast', '--plan-only', '--filter', 'multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32']);
    expect(r.code).toBe(0);
    const m = /multicast plan for sm_90: (\d+) case\(s\) .*, 0 job\(s\)/.exec(r.out);
    expect(m, r.out).not.toBeNull();
    expect(r.out).toContain(
      `  skipped ${m![1]} case(s): multimem.cp.reduce.async.bulk needs PTX ISA 9.1; the installed ptxas writes up to ${p.maxPtx} (a newer CUDA toolkit runs it)`,
    );
    expect(r.out).toMatch(/^ {4}\.\.\. and \d+ more$/m);
  });
  it('a --launches that is not a count is a usage error', async () => {
    const r = await runAtRoot(['--backend', 'multicast', '--plan-only', '--launches', '0']);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/--launches takes a number of launches \(1 or more\), got '0'/);
  });
});

describe('the child process (stand-in)', () => {
  it('runs the cases and writes its results; everything released', async () => {
    const { runMulticastChild } = await import('../../harness/backends/multicast/isolate.js');
    const { encodeCases } = await import('../../harness/backends/multicast/wire.js');
    const { result, code } = await runMulticastChild({
      cases: encodeCases(byName('nccl-2360-f32')),
      devices: [0, 1, 2, 3],
      launches: 2,
      ptxIsa: '9.0',
      target: 'sm_90',
      ptxasPath: 'ptxas',
      standIn: config(),
    });
    expect(code).toBe(0);
    expect(result.driver).toMatch(/^stand-in/);
    expect(result.results.map((r) => r.verdict)).toEqual(['observed']); // 1.0: one of the orders the reference allows
    expect(result.live).toEqual([]);
  });
  it("a job file without the harness's allowance: the child refuses before it loads the multicast binding (it creates nothing)", async () => {
    const { runMulticastChild } = await import('../../harness/backends/multicast/isolate.js');
    const { encodeCases } = await import('../../harness/backends/multicast/wire.js');
    // no standIn: the native path, which must stop at the guard (flag first, so the devices are not even asked)
    await expect(
      runMulticastChild({
        cases: encodeCases(byName('nccl-2360-f32')),
        devices: [0, 1, 2, 3],
        launches: 1,
        ptxIsa: '9.0',
        target: 'sm_90',
        ptxasPath: 'ptxas',
      }),
    ).rejects.toThrow(
      /multicast child: refused before loading the multicast binding: the multicast backend creates a multicast object .* it runs only with --allow-multicast/,
    );
  });
  it('SIGINT mid-run: the job in progress stops between launches, releases everything, and the results so far come back; exit 130', async () => {
    const { runMulticastChild } = await import('../../harness/backends/multicast/isolate.js');
    const { encodeCases } = await import('../../harness/backends/multicast/wire.js');
    let timer: NodeJS.Timeout | undefined;
    const { result, code } = await runMulticastChild(
      {
        cases: encodeCases([...byName('f32-wider-than-f32-3'), ...byName('nccl-2360-f32')]),
        devices: [0, 1, 2, 3],
        launches: 40,
        ptxIsa: '9.0',
        target: 'sm_90',
        ptxasPath: 'ptxas',
        standIn: config({ launchMs: 100 }),
      },
      // the first job (40 launches of 100 ms) is well under way after 2.5 s (tsx start-up included)
      (pid) => (timer = setTimeout(() => process.kill(pid, 'SIGINT'), 2500)),
    );
    clearTimeout(timer);
    expect(code).toBe(130);
    expect(result.interrupted).toMatch(/stopped by a signal before launch \d+ of 40/);
    expect(result.live).toEqual([]);
    expect(result.releaseErrors).toEqual([]);
  }, 60_000);
});

describe('multimem.cp.reduce.async.bulk on the stand-in', () => {
  const mk = (name: string, ptx: string, replicas: bigint[][], source: bigint[]): Case => {
    const p = parseInstruction(ptx);
    return {
      id: `${p.id}/t:${name}`,
      variant: { family: p.family.id, q: p.q, ptx, id: p.id },
      input: { replicas, source },
      origin: { kind: 'vectors', file: 't', line: 1, name },
    };
  };
  const ADD = 'multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32';
  it('each replica is reduced with the source; cases of different lengths are separate jobs; judged pass', async () => {
    const cases = [
      mk(
        'a',
        ADD,
        [
          [1n, 2n, 3n, 4n],
          [10n, 20n, 30n, 40n],
        ],
        [100n, 100n, 100n, 100n],
      ),
      mk('b', ADD, [[...Array(40).keys()].map(BigInt), [...Array(40).keys()].map((x) => BigInt(x * 2))], Array(40).fill(1n)),
      mk(
        'c',
        ADD,
        [
          [0xffffffffn, 0n, 0n, 0n],
          [5n, 0n, 0n, 0n],
          [6n, 0n, 0n, 0n],
          [7n, 0n, 0n, 0n],
        ],
        [1n, 0n, 0n, 0n],
      ),
    ];
    const drv = new StandInMulticast(config());
    const r = await run(drv, cases);
    expect(r.judged.results.map((x) => [x.id.split(':').pop(), x.verdict])).toEqual([
      ['a', 'pass'],
      ['b', 'pass'],
      ['c', 'pass'],
    ]);
    expect(r.stats.jobs).toBe(3);
    const a = r.judged.results[0]!.case!.observed as { replicas: string[][] };
    expect(a.replicas).toEqual([
      ['0x00000065', '0x00000066', '0x00000067', '0x00000068'],
      ['0x0000006e', '0x00000078', '0x00000082', '0x0000008c'],
    ]);
  });
  it('a switch that adds the source into one replica only is a mismatch (the check fails on wrong hardware)', async () => {
    const cases = [
      mk(
        'a',
        ADD,
        [
          [1n, 2n, 3n, 4n],
          [10n, 20n, 30n, 40n],
        ],
        [100n, 100n, 100n, 100n],
      ),
    ];
    const drv = new StandInMulticast(config());
    // device 1 reads back what was written to it before the launch (as if the reduction reached device 0 only)
    const write = drv.write.bind(drv);
    const read = drv.read.bind(drv);
    let before: Buffer | undefined;
    drv.write = (d, va, data) => {
      if (d === 1) before = Buffer.from(data);
      write(d, va, data);
    };
    drv.read = (d, va, bytes) => (d === 1 && before ? before.subarray(0, bytes) : read(d, va, bytes));
    const r = await run(drv, cases);
    expect(r.judged.results.map((x) => x.verdict)).toEqual(['mismatch']);
  });
  it('where the installed ptxas writes PTX ISA 9.0: skipped, with the reason, and nothing created for it', async () => {
    const cases = [
      mk(
        'a',
        ADD,
        [
          [1n, 2n, 3n, 4n],
          [10n, 20n, 30n, 40n],
        ],
        [100n, 100n, 100n, 100n],
      ),
    ];
    const drv = new StandInMulticast(config());
    const r = await run(drv, cases, 1, '9.0');
    expect(r.judged.results.map((x) => [x.verdict, x.reason])).toEqual([
      ['skipped', 'multimem.cp.reduce.async.bulk needs PTX ISA 9.1; the installed ptxas writes up to 9.0 (a newer CUDA toolkit runs it)'],
    ]);
    expect(drv.calls.filter((c) => c.startsWith('cuMulticastCreate'))).toEqual([]);
  });
});

describe('every accepted variant of the four families, over 2, 4 and 8 replicas (the library a run adds)', () => {
  it('a switch that does what the spec implies: every generated case passes or is observed, none a mismatch or error', async () => {
    const { multicastLibrary } = await import('../../harness/backends/multicast/library.js');
    const lib = multicastLibrary(findTarget('sm_90')!, '9.0', 20261125, 1);
    const variants = new Set(lib.map((c) => c.variant.id));
    expect(variants.size).toBeGreaterThan(2000);
    expect(new Set(lib.map((c) => c.input.replicas!.length))).toEqual(new Set([2, 4, 8]));
    // every case, 8 replicas included (about 20 s: the reference walks every order of 8 float adds)
    const cases = lib;
    const r = await run(new StandInMulticast(config()), cases);
    const bad = r.judged.results.filter((x) => x.verdict !== 'pass' && x.verdict !== 'observed');
    expect(bad.slice(0, 3).map((x) => `${x.id}: ${x.verdict}: ${x.reason}`)).toEqual([]);
    expect(r.judged.results).toHaveLength(cases.length);
  }, 600_000);
});

describe('a signal to the harness while the child runs', () => {
  it("goes to the child (which releases and hands back what it has); the harness's own handlers wait, and are back afterwards", async () => {
    const { runMulticastChild } = await import('../../harness/backends/multicast/isolate.js');
    const { encodeCases } = await import('../../harness/backends/multicast/wire.js');
    let ownCalled = 0;
    const own = () => ownCalled++;
    process.on('SIGINT', own);
    let during: Function[] = [];
    let timer: NodeJS.Timeout | undefined;
    try {
      const r = await runMulticastChild(
        {
          cases: encodeCases(byName('nccl-2360-f32')),
          devices: [0, 1, 2, 3],
          launches: 40,
          ptxIsa: '9.0',
          target: 'sm_90',
          ptxasPath: 'ptxas',
          standIn: config({ launchMs: 100 }),
        },
        () =>
          (timer = setTimeout(() => {
            during = process.listeners('SIGINT');
            process.emit('SIGINT', 'SIGINT'); // as the terminal's Ctrl-C reaches this process (no real signal sent)
          }, 2500)),
      );
      clearTimeout(timer);
      expect(during).not.toContain(own);
      expect(ownCalled).toBe(0);
      expect(r.signalled).toBe('SIGINT');
      expect(r.code).toBe(130);
      expect(r.result.interrupted).toMatch(/stopped by a signal/);
      expect(r.result.live).toEqual([]);
      expect(process.listeners('SIGINT')).toContain(own);
    } finally {
      process.off('SIGINT', own);
    }
  }, 60_000);
});
