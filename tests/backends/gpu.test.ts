/**
 * The GPU side that can be checked without a GPU: the native launcher loads (where npm install
 * built it) and answers "no CUDA driver" instead of crashing; the recorded H200 run
 * (reports/baselines/h200-smoke-atom-add.json) replays through the reference model with the verdicts
 * it had. Tests that need a device run only where a driver answers, and say why they skip.
 */
import { judgedAgainst } from '../helpers/spec.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLauncher, probeDevices } from '../../harness/backends/gpu/driver.js';
import { type GpuObservation, judgeObservation } from '../../harness/compare/judge-case.js';

const loaded = loadLauncher();
const launcher = 'launcher' in loaded ? loaded.launcher : undefined;
const driver = launcher?.status();

describe('native launcher', () => {
  it('loads, or says why with fixes', () => {
    if (launcher) expect(typeof launcher.status).toBe('function');
    else {
      expect((loaded as { reason: string }).reason).toMatch(/native CUDA launcher/);
      expect((loaded as { fixes: string[] }).fixes.join(' ')).toMatch(/npm rebuild/);
      console.warn(`[skip] launcher tests: ${(loaded as { reason: string }).reason}`);
    }
  });
  it.skipIf(!launcher || driver?.driver)('without a driver: status says "no CUDA driver" and calls throw NO_DRIVER', () => {
    expect(driver).toMatchObject({ driver: false });
    expect(driver!.reason).toMatch(/no CUDA driver: dlopen\(libcuda\.so\.1\) failed/);
    try {
      launcher!.init();
      expect.unreachable();
    } catch (e) {
      expect((e as { cuResult?: string }).cuResult).toBe('NO_DRIVER');
    }
  });
  it.skipIf(!driver?.driver)('with a driver: devices answer, and multicast support is read', () => {
    const info = probeDevices(launcher!);
    expect(info.devices.length).toBeGreaterThan(0);
    for (const d of info.devices) expect(typeof d.multicastSupported).toBe('boolean');
  });
  if (!driver?.driver) console.warn(`[skip] device tests: ${driver?.reason ?? (loaded as { reason: string }).reason}`);
});

describe('recorded H200 run replayed through the reference model', () => {
  const it = judgedAgainst('9.1'); // recorded under the PTX ISA 9.1 text (the report predates editions)
  const doc = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h200-smoke-atom-add.json'), 'utf8')) as {
    devices: { name: string; multicastSupported: boolean }[];
    observations: GpuObservation[];
  };
  const verdicts = doc.observations.map(judgeObservation);
  it('was taken on an H200 without multicast support', () => {
    expect(doc.devices[0]!.name).toMatch(/H200/);
    expect(doc.devices[0]!.multicastSupported).toBe(false);
  });
  it('has the verdict counts it had: 40 pass, 32 observed (NaN payloads), 0 mismatch', () => {
    const count = (v: string) => verdicts.filter((x) => x.verdict === v).length;
    expect({ pass: count('pass'), observed: count('observed'), mismatch: count('mismatch') }).toEqual({ pass: 40, observed: 32, mismatch: 0 });
    expect(verdicts.filter((v) => v.verdict === 'observed').every((v) => v.unspecified.includes('fp.nan-payload'))).toBe(true);
  });
  it('shows the flushing rule: global f32 flushes 2^-149 + 2^-149 to +0, shared keeps 2^-148', () => {
    const g = doc.observations.find((o) => o.id.includes('atom.global.add.f32-smallest-subnormal-doubled'))!;
    const s = doc.observations.find((o) => o.id.includes('shared__cta.add.f32-smallest-subnormal-doubled'))!;
    expect(g.observed.memory).toEqual(['0x00000000']);
    expect(s.observed.memory).toEqual(['0x00000002']);
  });
  it('every NaN result is the canonical NaN of its format, whatever the input payload', () => {
    const nanF32 = doc.observations.filter((o) => o.variant.endsWith('.f32') && /nan|inf-minus-inf/.test(o.id)).map((o) => o.observed.memory![0]);
    expect(new Set(nanF32)).toEqual(new Set(['0x7fffffff']));
  });
  it('a doctored observation is a mismatch that names the allowed set', () => {
    const o = doc.observations.find((x) => x.id.includes('atom.global.add.f32-smallest-subnormal-doubled'))!;
    const v = judgeObservation({ ...o, observed: { ...o.observed, memory: ['0x00000002'] } });
    expect(v.verdict).toBe('mismatch');
    expect(v.reason).toMatch(/memory\[0\]: observed 0x00000002, the reference allows 0x00000000/);
  });
});

describe('recorded H200 runs of every sm_90 atom/red variant (an earlier single-process runner, since folded into --backend gpu), replayed on the CPU', () => {
  const it = judgedAgainst('9.1'); // recorded under the PTX ISA 9.1 text (the report predates editions)
  const load = (f: string) =>
    JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', f), 'utf8')) as {
      variants: number;
      cases: number;
      counts: Record<string, Record<string, number>>;
      mismatches: unknown[];
      errors: unknown[];
      skipped: { variant: string; reason: string }[];
      sample: GpuObservation[];
      devices: { name: string; multicastSupported: boolean }[];
    };
  const all = load('h200-sm_90-atom-red.json');
  const reps = load('h200-sm_90-atom-red-reps-1e4.json');
  it('covered every planned variant and recorded the skipped ones with their reason', () => {
    expect(all.variants).toBe(17170);
    expect(all.skipped).toHaveLength(350);
    expect(all.skipped.every((s) => /ptxas 13\.0 crashes/.test(s.reason))).toBe(true);
    expect(reps.variants).toBe(123);
    expect(reps.cases).toBeGreaterThan(123 * 10_000);
  });
  it.each([
    ['h200-sm_90-atom-red.json', all],
    ['h200-sm_90-atom-red-reps-1e4.json', reps],
  ])('%s: the sample replays to the verdicts the run counted (pass or observed, no mismatch)', (_f, doc) => {
    expect(doc.mismatches).toEqual([]);
    expect(doc.errors).toEqual([]);
    const total = Object.values(doc.counts).reduce((n, c) => n + Object.values(c).reduce((a, b) => a + b, 0), 0);
    expect(total).toBe(doc.cases);
    const verdicts = doc.sample.map(judgeObservation);
    expect(verdicts.filter((v) => v.verdict === 'mismatch')).toEqual([]);
    expect(verdicts.length).toBeGreaterThan(1000);
  });
  it('the flushing rule holds in every space: global and generic flush 2^-149 + 2^-149, shared keeps it', () => {
    const doubled = all.sample.filter((s) => s.id.endsWith('-smallest-subnormal-doubled') && /add\.f32$/.test(s.variant));
    expect(doubled.length).toBeGreaterThanOrEqual(10);
    for (const s of doubled) expect(s.observed.memory, s.variant).toEqual([s.variant.includes('shared') ? '0x00000002' : '0x00000000']);
  });
});

describe('recorded H200 runs of cp.reduce.async.bulk (every sm_90 variant, ~10^4 generated cases each)', () => {
  const it = judgedAgainst('9.1'); // recorded under the PTX ISA 9.1 text (the report predates editions)
  const load = (f: string) =>
    JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', f), 'utf8')) as {
      variants: number;
      cases: number;
      counts: Record<string, Record<string, number>>;
      mismatches: (GpuObservation & { reason: string; input: { memory: string[]; source: string[] } })[];
      errors: unknown[];
      sample: GpuObservation[];
    };
  const global = load('h200-sm_90-bulk-global-1e4.json');
  const cluster = load('h200-sm_90-bulk-cluster-1e4.json');
  it('ran all 66 variants (54 .global bulk_group, 12 .shared::cluster mbarrier) without errors', () => {
    expect(global.variants + cluster.variants).toBe(66);
    expect(global.errors).toEqual([]);
    expect(cluster.errors).toEqual([]);
    expect(cluster.counts['cp.reduce.async.bulk']).toEqual({ pass: cluster.cases });
  });
  it('finding: .add.f32 keeps subnormals, against the spec\'s "flushes subnormal inputs and results"; every mismatch is the unflushed sum', async () => {
    const { addOnce } = await import('../../harness/numerics/ops.js');
    const { F32, classify } = await import('../../harness/numerics/formats.js');
    expect(global.mismatches.length).toBe(2884);
    expect(new Set(global.mismatches.map((m) => m.variant.replace('.L2::cache_hint', '')))).toEqual(
      new Set(['cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32']),
    );
    for (const m of global.mismatches) {
      m.input.memory.forEach((x, i) => {
        const r = addOnce(F32, BigInt(x), BigInt(m.input.source[i]!), false);
        const obs = BigInt(m.observed.memory![i]!);
        expect(r.nan ? classify(F32, obs) === 'nan' : r.bits === obs, m.id).toBe(true);
      });
    }
  });
  it('the recorded mismatches replay as mismatches, and the sample as pass/observed', () => {
    for (const m of global.mismatches.slice(0, 200)) expect(judgeObservation(m).verdict).toBe('mismatch');
    const sampleVerdicts = [...global.sample, ...cluster.sample].map(judgeObservation);
    expect(sampleVerdicts.length).toBeGreaterThan(300);
    expect(sampleVerdicts.every((v) => v.verdict !== 'mismatch' || /add\.f32/.test(v.id))).toBe(true);
  });
});

describe('`npm run conformance -- --backend gpu --arch sm_90` on the H200 (its report, recorded)', () => {
  const it = judgedAgainst('9.1'); // recorded under the PTX ISA 9.1 text (the report predates editions)
  const doc = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h200-sm_90-gpu-backend-report.json'), 'utf8'));
  it('validates against the report schema', async () => {
    const { Ajv } = await import('ajv');
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'schema', 'run-report.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true }).compile(schema);
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });
  it('judged 1.26M cases of 17236 variants; mismatches only in bulk add.f32; multimem skipped for lack of multicast', () => {
    expect(doc.stats.variants).toBe(17236);
    expect(doc.stats.cases).toBe(1262430);
    expect(doc.stats['total.cp.reduce.async.bulk.mismatch']).toBe(48);
    expect(Object.keys(doc.stats).filter((k: string) => /mismatch|error/.test(k))).toEqual(['total.cp.reduce.async.bulk.mismatch']);
    const mm = doc.results.filter((r: { verdict: string }) => r.verdict === 'mismatch');
    expect(mm.every((r: { ptx: string }) => /bulk_group(\.L2::cache_hint)?\.add\.f32$/.test(r.ptx))).toBe(true);
    const mc = doc.results.filter((r: { family: string }) => r.family.startsWith('multimem.'));
    expect(mc.length).toBeGreaterThan(1000);
    expect(mc.every((r: { verdict: string; reason: string }) => r.verdict === 'skipped' && /device reports no multicast support/.test(r.reason))).toBe(true);
  });
  it('SASS evidence agrees with what was observed: atom add.f32 is ATOMG...FTZ, bulk add.f32 is UBLKRED without FTZ', () => {
    const sass = (re: RegExp) => doc.results.find((r: { kind: string; ptx: string }) => r.kind === 'case' && re.test(r.ptx))?.catalog.reason as string;
    expect(sass(/^atom\.global\.add\.f32$/)).toMatch(/ATOMG\.E\.ADD\.F32\.FTZ\.RN/);
    expect(sass(/^cp\.reduce\.async\.bulk\.global\.shared::cta\.bulk_group\.add\.f32$/)).toMatch(/UBLKRED\.G\.S\.ADD\.F32\.RN/);
    expect(sass(/^cp\.reduce\.async\.bulk\.global\.shared::cta\.bulk_group\.add\.f32$/)).not.toMatch(/FTZ/);
  });
});

describe('the GPU kernel emitter compiles with ptxas (representative variant of every op/type/vector/space)', async () => {
  const { ptxasOrReason } = await import('../helpers/ptxas.js');
  const p = await ptxasOrReason();
  it.skipIf(typeof p === 'string')(
    'one module, every representative atom, red and cp.reduce.async.bulk kernel, and every generic variant (mode 1: shared through cvta)',
    async () => {
      const { gpuPlan, kernelsText } = await import('../../harness/backends/gpu/plan.js');
      const { representativeVariants } = await import('../../cases/generators/cases.js');
      const { families } = await import('../../harness/registry/index.js');
      const { gpuFamily } = await import('../../harness/registry/gpu.js');
      const { execa } = await import('execa');
      const { mkdtempSync, writeFileSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const reps = new Set(
        families()
          .filter((f) => gpuFamily(f.id))
          .flatMap((f) => representativeVariants(f).map((v) => v.id)),
      );
      const plan = gpuPlan('sm_90', '9.0');
      const chosen = plan.variants.filter((x) => reps.has(x.entry.id) || (x.shape.generic && !x.entry.q.sem && !x.entry.q.scope && !x.entry.q.hint));
      expect(chosen.filter((x) => reps.has(x.entry.id)).length).toBe(123 + 39 + 130 + 12); // atom/red, bulk, tensor (5 dims x 26 op-types), red.async
      expect(chosen.some((x) => x.shape.generic)).toBe(true);
      const dir = mkdtempSync(join(tmpdir(), 'ptxconf-emit-'));
      writeFileSync(join(dir, 'm.ptx'), kernelsText(plan, chosen));
      const r = await execa((p as { path: string }).path, ['-arch', 'sm_90', join(dir, 'm.ptx'), '-o', join(dir, 'm.cubin')], { reject: false });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
    },
    120_000,
  );
});

describe('the recorded full run: every sm_90 atom/red/bulk variant x directed probes x 10^4 generated (172.8M cases on the H200)', async () => {
  const it = judgedAgainst('9.1'); // recorded under the PTX ISA 9.1 text (the report predates editions)
  const { gunzipSync } = await import('node:zlib');
  const base = join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h200-sm_90-gpu-run');
  const doc = JSON.parse(gunzipSync(readFileSync(join(base, 'report.json.gz'))).toString());
  type R = {
    id: string;
    kind: string;
    verdict: string;
    ptx: string;
    family: string;
    expectation?: string;
    case?: { input: GpuObservation['input']; observed: GpuObservation['observed']; nan?: string };
  };
  const cases: R[] = doc.results.filter((r: R) => r.kind === 'case');
  it('is the whole set, with at least 10^4 generated cases per variant, and validates against the schema', async () => {
    expect(doc.version).toBe(2);
    expect(doc.partial).toBe(false);
    expect(doc.stats.variants).toBe(17236);
    expect(doc.stats.cases).toBeGreaterThanOrEqual(17236 * 10_000);
    expect(doc.toolchain.ptxas.versionLine).toMatch(/release 13\.0/);
    expect(doc.toolchain.gpu.device.name).toMatch(/H200/);
    const { Ajv } = await import('ajv');
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'schema', 'run-report.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true }).compile(schema);
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 2))).toBe(true);
  });
  it("keeps every directed probe of the directed library's variants, with bits", () => {
    const probes = cases.filter((r) => r.id.includes('/probe:'));
    expect(probes.length).toBeGreaterThan(3000);
    expect(probes.every((r) => r.case?.observed.memory?.length)).toBe(true);
  });
  it('replays through the comparator to the verdicts the run recorded (known deviations are mismatches before the expectations)', () => {
    const counts: Record<string, number> = {};
    for (const r of cases) {
      const v = judgeObservation({ id: r.id, variant: r.ptx, input: r.case!.input, observed: r.case!.observed });
      expect(v.verdict, r.id).toBe(r.verdict === 'known-deviation' ? 'mismatch' : r.verdict);
      counts[v.verdict] = (counts[v.verdict] ?? 0) + 1;
    }
    expect(counts.mismatch).toBe(2884);
    expect(doc.stats['total.cp.reduce.async.bulk.known-deviation']).toBe(2884);
    expect(doc.stats['total.cp.reduce.async.bulk.mismatch']).toBe(0);
  }, 300_000);
  it("the whole comparator (enrich, expectations, findings) gives the run's verdict counts and findings again", async () => {
    const { judgeRun } = await import('../../harness/compare/judge-run.js');
    const { loadExpectations, undoJudgement } = await import('../../harness/compare/expectations.js');
    const ex = await loadExpectations('cases/expectations/sm_90.yaml', true);
    // back to what the workers produced: raw verdicts, no explanation, expectation, finding or filled-in sets
    const raw = doc.results.map(undoJudgement);
    expect(raw.filter((r: { verdict: string }) => r.verdict === 'mismatch')).toHaveLength(2884);
    expect(raw.find((r: { verdict: string }) => r.verdict === 'mismatch')!.reason).toMatch(/^memory\[\d\]: observed 0x/);
    const judged = judgeRun(raw, ex.expectations);
    const count = (rs: { verdict: string }[]) => rs.reduce<Record<string, number>>((m, r) => ((m[r.verdict] = (m[r.verdict] ?? 0) + 1), m), {});
    expect(count(judged.results)).toEqual(doc.counts.total);
    type F = { verdict: string; subject: string; text: string; count: number };
    const line = (f: F) => `${f.verdict}|${f.subject}|${f.text}|${f.count}`;
    expect(judged.findings.filter((f) => f.verdict !== 'skipped').map(line)).toEqual(doc.findings.filter((f: F) => f.verdict !== 'skipped').map(line));
    // skipped entries group by family and reason now (the run grouped by reason and named the first
    // family): the same counts per reason, and each family's finding counts that family's results
    const perReason = (fs: F[]) =>
      fs.filter((f) => f.verdict === 'skipped').reduce<Record<string, number>>((m, f) => ((m[f.text] = (m[f.text] ?? 0) + f.count), m), {});
    expect(perReason(judged.findings)).toEqual(perReason(doc.findings));
    for (const f of judged.findings.filter((x) => x.verdict === 'skipped')) {
      expect(f.count, line(f)).toBe(
        raw.filter((r: { verdict: string; family: string; reason: string }) => r.verdict === 'skipped' && r.family === f.subject && r.reason === f.text).length,
      );
    }
    expect(judged.outcomes.find((o) => o.id === 'bulk-add-f32-global-keeps-subnormals')).toMatchObject({ status: 'occurred', matched: 2884 });
  }, 300_000);
  it('which NaN comes back: canonical for f32/f16/bf16; f64 returns the input NaN (as it was on global, quieted on shared) and 0xfff8000000000000 for inf - inf', () => {
    const nan = (re: RegExp) => new Set(cases.filter((r) => re.test(r.ptx) && r.case?.nan).map((r) => r.case!.nan));
    expect(nan(/\.(f32|f16|bf16|f16x2|bf16x2)$/)).toEqual(new Set(['canonical']));
    const inf = cases.filter((r) => /^atom\.global\.add\.f64$/.test(r.ptx) && r.id.endsWith('-inf-minus-inf'));
    expect(inf.map((r) => r.case!.observed.memory)).toEqual([['0xfff8000000000000']]);
    const g = cases.find((r) => /^atom\.global\.add\.f64$/.test(r.ptx) && r.case?.nan === 'input payload')!;
    expect(g.case!.observed.memory![0]).toBe(g.case!.input.memory![0]);
    expect(nan(/^atom\.shared::cta\.add\.f64$/)).toContain('input payload, quieted');
  });
  it('Ctrl-C during the same run on the H200 left a valid partial report of the modules done (11 of 18)', async () => {
    const part = JSON.parse(gunzipSync(readFileSync(join(base, 'interrupted-report.json.gz'))).toString());
    expect(part.partial).toBe(true);
    expect(part.partialReason).toBe('interrupted by SIGINT after 114827 results');
    expect(part.results).toHaveLength(114827);
    expect(readFileSync(join(base, 'interrupted.log'), 'utf8')).toMatch(/ran module 11\/18/);
  });
});
