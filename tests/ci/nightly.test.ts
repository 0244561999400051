/**
 * The nightly GPU job's script (.ci/nightly-gpu, which the workflow runs): the run on the GPU (a
 * stand-in here that writes a recorded H100 report), then the diff against the accepted baseline that
 * fails only on regressions. And the accepted baseline itself: committed, from a real GPU run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadReport } from '../../harness/report/load.js';

const root = join(import.meta.dirname, '..', '..');
const recorded = join(root, 'reports', 'baselines', 'h100-sm_90-gpu-default', '2026-11-26-final', 'report.json.gz');
const tmp = mkdtempSync(join(tmpdir(), 'nightly-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function nightly(env: Record<string, string>) {
  const r = spawnSync('bash', [join(root, '.ci', 'nightly-gpu')], {
    encoding: 'utf8',
    env: {
      ...process.env,
      CONFORMANCE: `${process.execPath} ${join(root, 'tests', 'ci', 'nightly-stand-in.mjs')}`,
      NIGHTLY_STAND_IN_REPORT: recorded,
      NIGHTLY_REPORT: join(tmp, 'nightly'),
      ...env,
    },
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('.ci/nightly-gpu', () => {
  it('the same bits as the accepted baseline: exit 0, though the run itself exits 1 on known findings; the diff is kept', () => {
    const r = nightly({ NIGHTLY_BASELINE: recorded });
    expect(r.out).toMatch(/--backend gpu --arch sm_90 --report /);
    expect(r.out).toMatch(/nightly: the run exited 1/);
    expect(r.out).toMatch(/regressions \(new mismatches, compile-mismatches or errors; changed bits\): 0/);
    expect(r.code).toBe(0);
    expect(readFileSync(join(tmp, 'nightly', 'diff.txt'), 'utf8')).toMatch(/0 change\(s\)/);
  });
  it('one result whose bits changed: exit 1, naming it', () => {
    const r = nightly({ NIGHTLY_BASELINE: recorded, NIGHTLY_STAND_IN_FLIP: 'atom.and.b32/probe:atom.and.b32-alternating' });
    expect(r.out).toMatch(/atom\.and\.b32\/probe:atom\.and\.b32-alternating: observed/);
    expect(r.code).toBe(1);
  });
  it('no accepted baseline: exit 2, saying how to accept the run (it compared nothing)', () => {
    const r = nightly({ NIGHTLY_BASELINE: join(tmp, 'none.json.gz') });
    expect(r.out).toMatch(/no accepted baseline at .*none\.json\.gz, so nothing was compared; .*npm run accept-baseline/);
    expect(r.code).toBe(2);
  });
  it('a run that fails on bad input (2) or inside (3): that code, no diff', () => {
    const r = nightly({ NIGHTLY_BASELINE: recorded, NIGHTLY_STAND_IN_EXIT: '3' });
    expect(r.code).toBe(3);
    expect(r.out).not.toMatch(/nightly: diff /);
  });
});

describe('the accepted baseline (reports/accepted/)', () => {
  const base = join(root, 'reports', 'accepted', 'sm_90-gpu.json.gz');
  it('sm_90: a whole gpu run on a Hopper GPU, with results kept and observed bits', async () => {
    expect(existsSync(base), `${base} is committed`).toBe(true);
    const r = await loadReport(base);
    expect([r.arch, r.backend.name, r.partial]).toEqual(['sm_90', 'gpu', false]);
    expect(JSON.stringify(r.toolchain.gpu?.device)).toMatch(/"name":"NVIDIA H[12]00/);
    expect(r.results.filter((x) => x.case?.observed).length).toBeGreaterThan(1000);
  });
});
