/** `litmus --backend gpu` end to end on CPU with a stand-in launcher: a planted forbidden outcome is flagged with its count, a correct run is not. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { register } from 'tsx/cjs/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { runWithStandin } from '../helpers/standin.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'litmus-gpu-standin.cts');
const MP = 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus';
let noPtxas: string | undefined;
beforeAll(async () => {
  register();
  const p = await ptxasOrReason();
  noPtxas = typeof p === 'string' ? p : undefined;
});
const run = (args: string[], rows: string) => {
  const report = mkdtempSync(join(tmpdir(), 'litmus-gpu-'));
  return runWithStandin(['litmus', '--backend', 'gpu', ...args, '--report', report], { PTX_CONFORMANCE_ADDON: FIXTURE, PTXCONF_LITMUS_ROWS: rows }).then((r) => ({ ...r, report: JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')) }));
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
    expect(g.histogram.find((h: { values: string[] }) => h.values.join(',') === '7,7')).toMatchObject({ count: 64, allowed: false, why: 'no candidate execution has it' });
  }, 60_000);
  it('skips tests this slice does not run, with the reason; bad input exits 2', async (ctx) => {
    if (noPtxas) ctx.skip();
    const r = await run(['cases/litmus/Bulk+wait_group+release.litmus', MP, '--iterations', '1', '--instances', '1024'], '0,0');
    expect(r.code, r.out).toBe(0);
    expect(r.report.results[0]).toMatchObject({ status: 'skipped' });
    expect(r.report.results[0].reason).toMatch(/shared memory|not run in this slice/);
    const bad = await runWithStandin(['litmus', '--backend', 'gpu', '--iterations', 'x'], { PTX_CONFORMANCE_ADDON: FIXTURE });
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/--iterations takes a whole number/);
  }, 60_000);
});
