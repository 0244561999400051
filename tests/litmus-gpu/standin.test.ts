/** `litmus --backend gpu` end to end on CPU with a stand-in launcher: a planted forbidden outcome is flagged with its count, a correct run is not. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { register } from 'tsx/cjs/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { runWithStandin } from '../helpers/standin.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const MP = 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus';
let noPtxas: string | undefined;
beforeAll(async () => {
  register();
  const p = await ptxasOrReason();
  noPtxas = typeof p === 'string' ? p : undefined;
});
const run = (args: string[], rows: string, env: Record<string, string> = {}) => {
  const report = mkdtempSync(join(tmpdir(), 'litmus-gpu-'));
  return runWithStandin(['litmus', '--backend', 'gpu', ...args, '--report', report], { PTXCONF_LITMUS_ROWS: rows, ...env }).then((r) => ({
    ...r,
    report: JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')),
  }));
};

describe('litmus --backend gpu with the stand-in launcher', () => {
  it('a correct run (only allowed outcomes): exit 0, every count in the histogram', async (ctx) => {
    if (noPtxas) ctx.skip();
    const r = await run([MP, '--iterations', '3', '--instances', '4096'], '0,0;1,1;0,1');
    expect(r.code, r.out).toBe(0);
    const g = r.report.results[0].gpu;
    expect(g.instances).toBe(3 * 4096);
    const count = (v: string) => g.histogram.find((h: { values: string[] }) => h.values.join(',') === v).count;
    expect(count('0,0')).toBe(3 * 1366); // rows cycle: 1366 of each 4096-instance launch
    expect(count('1,0')).toBe(0);
    expect(g.forbiddenSeen).toBe(0);
  }, 60_000);
  it('a planted forbidden outcome (1,0 for a third of the instances): exit 1, flagged with its count', async (ctx) => {
    if (noPtxas) ctx.skip();
    const r = await run([MP, '--iterations', '2', '--instances', '3072'], '0,0;1,1;1,0');
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/FORBIDDEN OUTCOME SEEN \(2048 of 6144\)/);
    expect(r.report.results[0].gpu.forbiddenSeen).toBe(2048);
    expect(r.report.results[0].status).toBe('failed');
  }, 60_000);
  it('an outcome outside the table lands in the other bin, sampled and judged (no execution has it)', async (ctx) => {
    if (noPtxas) ctx.skip();
    const r = await run([MP, '--iterations', '1', '--instances', '1024'], '0,0;7,7');
    expect(r.code, r.out).toBe(1);
    const g = r.report.results[0].gpu;
    expect(g.other).toEqual({ count: 512, samples: 64 });
    expect(g.histogram.find((h: { values: string[] }) => h.values.join(',') === '7,7')).toMatchObject({
      count: 64,
      allowed: false,
      why: 'no candidate execution has it',
    });
  }, 60_000);
  it('skips tests this slice does not run, with the reason; bad input exits 2', async (ctx) => {
    if (noPtxas) ctx.skip();
    const r = await run(['cases/litmus/Bulk+default-scope+bulk-other-gpu.litmus', MP, '--iterations', '1', '--instances', '1024'], '0,0');
    expect(r.code, r.out).toBe(0);
    expect(r.report.results[0]).toMatchObject({ status: 'skipped' });
    expect(r.report.results[0].reason).toMatch(/shared memory of a CTA on gpu 1 \(one GPU only\)/);
    const bad = await runWithStandin(['litmus', '--backend', 'gpu', '--iterations', 'x'], {});
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/--iterations takes a whole number/);
  }, 60_000);
  it('--mutants: each mutant run; one whose weak outcome (1,0) was seen is killed, one where it was not is not; the score per class', async (ctx) => {
    if (noPtxas) ctx.skip();
    // module 0 is the test (no weak outcome), then mutant k (module k) shows (1,0) when k mod 3 == 1
    const r = await run([MP, '--mutants', '--iterations', '1', '--instances', '1024', '--stress-warps', '2'], '', {
      PTXCONF_LITMUS_ROWS_BY_MODULE: '0,0;1,1|0,0;1,0|1,1',
    });
    expect(r.code, r.out).toBe(0);
    const res = r.report.results as { file: string; status: string; mutant?: { cls: string; weak: number } }[];
    expect(res[0]!.mutant).toBeUndefined();
    const ms = res.filter((x) => x.mutant);
    expect(ms.length).toBe(6);
    ms.forEach((m, i) => expect(m.mutant!.weak, m.file).toBe((i + 1) % 3 === 1 ? 512 : 0));
    const killed = (cls: string) => ms.filter((m, i) => m.mutant!.cls === cls && (i + 1) % 3 === 1).length;
    const total = (cls: string) => ms.filter((m) => m.mutant!.cls === cls).length;
    const per = r.report.run.mutation.perClass as { cls: string; killed: number; mutants: number }[];
    for (const c of per) expect([c.cls, c.killed, c.mutants]).toEqual([c.cls, killed(c.cls), total(c.cls)]);
    expect(r.report.run.mutation.all).toMatchObject({ killed: 2, mutants: 6 });
    expect(r.out).toMatch(/mutation score .*all 2\/6 \(33\.3 %\), target >= 85 %: NOT met/);
    expect(r.out).toMatch(
      /mutant \(sem: P0 line 9: 'atom\.release\.gpu\.global\.exch\.b32' weakened to 'atom\.relaxed\.gpu\.global\.exch\.b32'\)  weak outcome seen 512 times/,
    );
    // a class with no kill is named below 50 %
    const none = await run([MP, '--mutants', '--iterations', '1', '--instances', '1024', '--stress-warps', '2'], '0,0;1,1');
    expect(none.report.run.mutation.all).toMatchObject({ killed: 0, mutants: 6 });
    expect(none.out).toMatch(/class sem below 50 %: 2 mutant\(s\) never showed the weak outcome/);
  }, 60_000);
  it('--search-stress writes the best settings per class (cheapest on a tie) and the run reads them; bad combinations exit 2', async (ctx) => {
    if (noPtxas) ctx.skip();
    const f = join(mkdtempSync(join(tmpdir(), 'stress-')), 'gpu-stress.json');
    const r = await run([MP, '--search-stress', '--stress-file', f, '--iterations', '1', '--instances', '1024'], '0,0;1,0');
    expect(r.code, r.out).toBe(1); // the test itself shows the planted (1,0)
    const s = JSON.parse(readFileSync(f, 'utf8'));
    expect(Object.keys(s.classes)).toEqual(['MP']);
    expect(s.classes.MP, JSON.stringify(s.classes.MP.tried)).toMatchObject({ warps: 0, iters: 16, stride: 1, align: false, killed: 6, mutants: 6 });
    expect(s.classes.MP.tried).toHaveLength(42);
    // every setting (aligned, preloading and test-line modules too) compiled with ptxas and ran: each killed all 6
    for (const t of s.classes.MP.tried) expect(t.killed, JSON.stringify(t)).toBe(6);
    // the best killed every sampled mutant: no alternate adds one
    expect(s.classes.MP.alternates).toBeUndefined();
    expect(r.report.results.find((x: { mutant?: unknown }) => x.mutant).stress).toMatchObject({
      warps: 0,
      iters: 16,
      stride: 1,
      align: false,
      from: 'stress file, class MP',
    });
    const again = await run([MP, '--stress-file', f, '--iterations', '1', '--instances', '1024'], '0,0');
    expect(again.report.results[0].stress).toMatchObject({ warps: 0, iters: 16, from: 'stress file, class MP' });
    const bad = await runWithStandin(['litmus', '--backend', 'gpu', MP, '--search-stress', '--stress-warps', '2'], {});
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/--search-stress chooses/);
    const badTarget = await runWithStandin(['litmus', '--backend', 'gpu', MP, '--stress-target', 'test'], {});
    expect(badTarget.code).toBe(2);
    expect(badTarget.out).toMatch(/needs|--stride 2 or more/);
  }, 120_000);
  it('a class with alternates runs each test under every setting and adds the histograms up', async (ctx) => {
    if (noPtxas) ctx.skip();
    const f = join(mkdtempSync(join(tmpdir(), 'stress-')), 'gpu-stress.json');
    const one = { warps: 0, iters: 16, stride: 1, align: false, killed: 1, mutants: 6, weakPerM: 5 };
    writeFileSync(
      f,
      JSON.stringify({
        schema: 'ptx-reduction-conformance/litmus-gpu-stress',
        version: 1,
        classes: {
          MP: {
            ...one,
            tried: [],
            alternates: [
              { ...one, warps: 2, preload: true },
              { ...one, stride: 4, target: 'test' },
            ],
          },
        },
      }),
    );
    const r = await run([MP, '--stress-file', f, '--iterations', '1', '--instances', '1024'], '0,0;1,1');
    expect(r.code, r.out).toBe(0);
    const t = r.report.results[0];
    expect(t.stress).toMatchObject({ warps: 0, from: 'stress file, class MP' });
    expect(t.stressAlso).toEqual([
      expect.objectContaining({ warps: 2, preload: true, from: 'stress file, class MP, alternate 1' }),
      expect.objectContaining({ stride: 4, target: 'test', from: 'stress file, class MP, alternate 2' }),
    ]);
    expect(t.gpu.instances).toBe(3 * 1024);
    expect(t.gpu.histogram.find((h: { values: string[] }) => h.values.join(',') === '0,0').count).toBe(3 * 512);
  }, 60_000);
});
