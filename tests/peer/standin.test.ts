/**
 * The peer command end to end against the stand-in launcher with two devices (tests/fixtures/standin-launcher.cts, PTXCONF_STANDIN_DEVICES=2), in
 * this process and its gpu workers: cross-GPU contention that is atomic passes (exit 0); a planted
 * lost update (device 0's launch reads the memory as it was before device 1's) is a mismatch at
 * .sys and observed, counted, at .gpu and no scope (exit 1); a planted wrong bit in single-thread
 * cases on peer memory is a mismatch in the peer run only, the local run passing (exit 1).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { register } from 'tsx/cjs/api';
import { runWithStandin } from '../helpers/standin.js';

register();

const SAFE = { NCCL_NVLS_ENABLE: '0', NVSHMEM_DISABLE_NVLS: '1', TORCH_SYMM_MEM_DISABLE_MULTICAST: '1' };
/** The stand-in launcher with its second device. */
const TWO_DEVICES = { PTXCONF_STANDIN_DEVICES: '2' };

describe('peer command on the two-device stand-in', () => {
  const contend = async (env: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'peer-'));
    const r = await runWithStandin(
      [
        'peer',
        '--only',
        'contend',
        '--filter',
        'atom.global.add.u32,atom.sys.global.add.u32,red.gpu.global.add.f32,red.sys.global.add.f32',
        '--reps',
        '32',
        '--report',
        dir,
      ],
      { ...SAFE, ...TWO_DEVICES, ...env },
    );
    const j = JSON.parse(gunzipSync(readFileSync(join(dir, 'peer.json.gz'))).toString()) as {
      contention: { groups: { variant: string; scope: string; verdict: string; lostUpdates: number; outcomes: { reason: string }[] }[] };
    };
    return { r, groups: j.contention.groups };
  };
  it('contention across the stand-in devices: atomic -> exit 0; a planted lost update at .sys is a mismatch, at .gpu and default observed and counted', async () => {
    const ok = await contend({});
    expect(ok.r.code).toBe(0);
    expect(ok.groups.filter((g) => g.scope === 'sys').every((g) => g.verdict === 'pass')).toBe(true);
    expect(ok.groups.filter((g) => g.scope !== 'sys').every((g) => g.verdict === 'observed' && g.lostUpdates === 0)).toBe(true);
    const lost = await contend({ PTXCONF_PEER_STANDIN_LOSE: '1' });
    expect(lost.r.code).toBe(1);
    const sys = lost.groups.filter((g) => g.scope === 'sys');
    expect(sys.length).toBeGreaterThan(0);
    for (const g of sys) expect(g.verdict, g.variant).toBe('mismatch');
    expect(sys.some((g) => g.outcomes.some((o) => /not atomic: .*a split read\/write interleaving gives it/.test(o.reason)))).toBe(true);
    const narrow = lost.groups.filter((g) => g.scope !== 'sys');
    for (const g of narrow) expect(g.verdict, g.variant).toBe('observed');
    expect(narrow.some((g) => g.lostUpdates > 0)).toBe(true);
    expect(lost.r.out).toMatch(/^sys .* 0 +\d+ +0 /m);
  }, 300_000);
  it('single-thread cases: a planted wrong bit on peer memory is a mismatch in the peer run only (exit 1), and the comparison names it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'peer-'));
    const r = await runWithStandin(
      ['peer', '--only', 'single', '--filter', 'atom.sys.global.add.f32,red.global.add.u64', '--generated', '4', '--report', dir],
      { ...SAFE, ...TWO_DEVICES, PTXCONF_PEER_STANDIN_FLIP: '3' },
    );
    expect(r.code).toBe(1);
    const j = JSON.parse(gunzipSync(readFileSync(join(dir, 'peer.json.gz'))).toString()) as {
      single: { memory: string; memoryDevice: string; exitCode: number; notPassing: { verdict: string }[] }[];
      compare: { differ: unknown[] };
    };
    const [local, peer] = j.single;
    expect(local!.memory).toBe('local');
    expect(local!.memoryDevice).toMatch(/^0: /);
    expect(local!.exitCode).toBe(0);
    expect(local!.notPassing).toEqual([]);
    expect(peer!.memoryDevice).toMatch(/^1: /);
    expect(peer!.exitCode).toBe(1);
    expect(peer!.notPassing.length).toBeGreaterThan(0);
    expect(peer!.notPassing.every((x) => x.verdict === 'mismatch')).toBe(true);
    expect(j.compare.differ.length).toBeGreaterThan(0);
  }, 300_000);
});
