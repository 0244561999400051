/**
 * GPU fault isolation (harness/backends/gpu/isolate.ts). On the CPU, against a stand-in executor
 * that faults or hangs on marked cases: exactly the culprits become errors and every other case
 * keeps its result. On a machine with a CUDA driver, the real kernels of scripts/gpu/isolation.ptx
 * (a store to address 0, an endless loop); the run recorded on an H200 is checked here too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIsolated } from '../../harness/backends/gpu/isolate.js';

const FAKE = join(import.meta.dirname, '..', 'fixtures', 'fake-executor.mjs');
const hex = (v: number) => `0x${v.toString(16).padStart(8, '0')}`;
const cases = (n: number, marks: Record<number, number>) => Array.from({ length: n }, (_, i) => ({ memory: [hex(100 + i)], b: [hex(marks[i] ?? i)] }));

describe('fault isolation against a stand-in executor', () => {
  it('splits until the faulting and the endless case stand alone; every other case has its result', async () => {
    const launches = [
      { kernel: 'a', width: 32, lanes: 1, clustered: false, cases: cases(20, { 3: 0xdead, 11: 0xdead }) },
      { kernel: 'b', width: 32, lanes: 1, clustered: false, cases: cases(9, { 7: 0xbeef }) },
      { kernel: 'c', width: 32, lanes: 1, clustered: false, cases: cases(5, {}) },
    ];
    const r = await runIsolated(launches, { executor: [process.execPath, FAKE], cubin: 'unused', timeoutMs: 1500 });
    r.outcomes.forEach((os, li) =>
      os.forEach((o, ci) => {
        const culprit = (li === 0 && (ci === 3 || ci === 11)) || (li === 1 && ci === 7);
        if (culprit)
          expect(o, `${li}/${ci}`).toEqual({
            error: li === 0 ? 'CUDA_ERROR_ILLEGAL_ADDRESS' : 'no answer within 1.5 s: the child was killed (a launch that never ends)',
          });
        else expect(o, `${li}/${ci}`).toEqual({ memory: [hex(100 + ci + ci)], returned: [hex(100 + ci)] });
      }),
    );
    expect(r.splits).toBeGreaterThan(3);
  });
});

describe('fault isolation on the GPU (recorded H200 run of scripts/gpu/isolation.ts)', () => {
  const doc = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h200-isolation.json'), 'utf8'));
  it('named the store to address 0 and the endless loop, and nothing else', () => {
    expect(doc.problems).toEqual([]);
    expect(doc.culprits.fault).toEqual({ error: 'CUDA_ERROR_ILLEGAL_ADDRESS' });
    expect(doc.culprits.endless.error).toMatch(/no answer within 8 s/);
  });
});

describe("fault isolation on this machine's GPU", async () => {
  const { loadLauncher } = await import('../../harness/backends/gpu/driver.js');
  const loaded = loadLauncher();
  const status = 'launcher' in loaded ? loaded.launcher.status() : { driver: false, reason: loaded.reason };
  if (!status.driver) console.warn(`[skip] GPU fault-isolation test: ${status.reason}`);
  it.skipIf(!status.driver)('a store to address 0 and an endless loop are isolated to their cases', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'ptxconf-iso-'));
    const root = join(import.meta.dirname, '..', '..');
    execFileSync('ptxas', ['-arch', 'sm_90', join(root, 'scripts', 'gpu', 'isolation.ptx'), '-o', join(dir, 'iso.cubin')]);
    const launches = [
      { kernel: 'fault_if_marked', width: 32, lanes: 1, clustered: false, cases: cases(16, { 9: 0xdead }) },
      { kernel: 'endless_if_marked', width: 32, lanes: 1, clustered: false, cases: cases(8, { 2: 0xbeef }) },
    ];
    const r = await runIsolated(launches, {
      executor: [process.execPath, '--import', 'tsx', join(root, 'harness', 'backends', 'gpu', 'executor.ts')],
      cubin: join(dir, 'iso.cubin'),
      timeoutMs: 8000,
    });
    expect(r.outcomes[0]![9]).toEqual({ error: 'CUDA_ERROR_ILLEGAL_ADDRESS' });
    expect((r.outcomes[1]![2] as { error: string }).error).toMatch(/no answer within/);
    expect(r.outcomes.flat().filter((o) => 'error' in o)).toHaveLength(2);
  });
});
