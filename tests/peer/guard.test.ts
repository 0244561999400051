/**
 * The peer command (harness/peer/, harness/cli/peer.ts) without a GPU: the environment guard (exit 2
 * naming the settings), the plan (every group with no scope, .gpu and .sys; only .sys must be
 * atomic), the start-flag kernel (ptxas assembles it), --plan-only, the refusals (environment, a
 * host without peer access, bad options). Whole runs against the two-device stand-in:
 * tests/peer/standin.test.ts (long suite).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { register } from 'tsx/cjs/api';
import { gpuPlan } from '../../harness/backends/gpu/plan.js';
import type { Launcher } from '../../harness/backends/gpu/driver.js';
import { MEMORY_DEVICE_ENV, peerEnvironmentRefusal, peerMemoryDevice } from '../../harness/peer/guard.js';
import { CONTENTION_FILTER, PEER_RULES, peerContendKernel, peerContendModule, peerContentionPlan, scopedId } from '../../harness/peer/plan.js';
import { compareRuns } from '../../harness/cli/peer.js';
import { runWithStandin } from '../helpers/standin.js';

register();

const SAFE = { NCCL_NVLS_ENABLE: '0', NVSHMEM_DISABLE_NVLS: '1', TORCH_SYMM_MEM_DISABLE_MULTICAST: '1' };
const UNSAFE = { NCCL_NVLS_ENABLE: '', NVSHMEM_DISABLE_NVLS: '', TORCH_SYMM_MEM_DISABLE_MULTICAST: '' };
/** The stand-in launcher with its second device. */
const TWO_DEVICES = { PTXCONF_STANDIN_DEVICES: '2' };

function hasPtxas(): boolean {
  try {
    execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('environment guard', () => {
  it('allows a run only with all three multicast-off settings at their values', () => {
    expect(peerEnvironmentRefusal(SAFE)).toBeUndefined();
    for (const k of Object.keys(SAFE)) {
      const r = peerEnvironmentRefusal({ ...SAFE, [k]: undefined });
      expect(r).toContain(`${k} is not set`);
      expect(peerEnvironmentRefusal({ ...SAFE, [k]: '2' })).toContain(`${k} is '2'`);
    }
  });
  it('a worker asked for peer memory refuses without them, without peer access, and enables it both ways otherwise', () => {
    const calls: string[] = [];
    const l = {
      peerLink: () => ({ canAccess: [true, true], attributes: {} }),
      peerEnable: (a: number, b: number) => calls.push(`${a}<->${b}`),
      memAllocOn: () => 0n,
    } as unknown as Launcher;
    expect(peerMemoryDevice(l, {})).toBeUndefined();
    expect(() => peerMemoryDevice(l, { [MEMORY_DEVICE_ENV]: '1' })).toThrow(/NVLink multicast is kept off/);
    expect(peerMemoryDevice(l, { ...SAFE, [MEMORY_DEVICE_ENV]: '1' })).toBe(1);
    expect(calls).toEqual(['0<->1']);
    const no = { ...l, peerLink: () => ({ canAccess: [true, false], attributes: {} }) } as unknown as Launcher;
    expect(() => peerMemoryDevice(no, { ...SAFE, [MEMORY_DEVICE_ENV]: '1' })).toThrow(/no peer access between devices 0 and 1/);
  });
});

describe('plan', () => {
  const plan = gpuPlan('sm_90', '9.0', CONTENTION_FILTER);
  const { groups, missing } = peerContentionPlan(plan);
  it('every representative with no scope, .gpu and .sys; only .sys must be atomic (8.5: .gpu holds one device)', () => {
    expect(missing).toEqual([]);
    expect(groups.length).toBeGreaterThan(600);
    const by = new Map<string, Set<string>>();
    for (const g of groups) {
      const base = g.gv.entry.id.replace(/^(atom|red)\.(gpu|sys)\.global\./, '$1.global.');
      by.set(`${base}|${g.set.name}`, (by.get(`${base}|${g.set.name}`) ?? new Set()).add(g.scope || 'default'));
      expect(g.atomic).toBe(g.scope === 'sys');
      expect(g.layout).toBe('grid');
      expect(g.onFirst).toBe(Math.ceil(g.set.b.length / 2));
    }
    for (const s of by.values()) expect([...s].sort()).toEqual(['default', 'gpu', 'sys']);
    expect(scopedId('atom.global.cas.b64', 'atom', 'sys')).toBe('atom.sys.global.cas.b64');
    expect(PEER_RULES.sysIncludesPeer.cite.quote).toContain('on all compute devices');
  });
  it('the start-flag kernel: arrive, bounded spin, overlap count, done count; ptxas assembles a module of them', () => {
    const gv = plan.byId.get('atom.sys.global.add.noftz.f16')!;
    const k = peerContendKernel(gv);
    expect(k).toContain('red.relaxed.sys.global.add.u32 [%pctl], 1;');
    expect(k).toMatch(/PSPIN:[\s\S]*%globaltimer[\s\S]*PGO:[\s\S]*atom[\s\S]*\[%pw\+64\], 1;\n {2}ret;/);
    if (!hasPtxas()) return;
    const dir = mkdtempSync(join(tmpdir(), 'peer-kernel-'));
    const ids = ['atom.sys.global.add.noftz.f16', 'red.global.add.f32', 'atom.gpu.global.cas.b64', 'atom.global.exch.b128'].filter((id) => plan.byId.has(id));
    writeFileSync(
      join(dir, 'm.ptx'),
      peerContendModule(
        'sm_90',
        '9.0',
        ids.map((id) => plan.byId.get(id)!),
      ),
    );
    execFileSync('ptxas', ['-arch', 'sm_90', join(dir, 'm.ptx'), '-o', join(dir, 'm.cubin')]);
  }, 60_000);
});

describe('peer CLI', () => {
  it('--plan-only lists roles, link checks and jobs without a device or the environment', async () => {
    const r = await runWithStandin(['peer', '--plan-only'], { ...UNSAFE });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/environment: a run would be refused here/);
    expect(r.out).toMatch(
      /^\d{4} single-thread variants \(x2: local and peer; 8 generated cases each plus the library\), 735 cross-GPU contention groups x 256 addresses x 2 launches/m,
    );
    expect(r.out).toContain('atom.sys.global.add.u32/peer-contend-2+2-small\tcontend\t2 CTA(s) on 0 + 2 on 1, memory on 1, must be atomic (.sys)');
  }, 120_000);
  it('refuses a run without the three settings (exit 2, naming them, no stack trace), and a host without peer access', async () => {
    const r = await runWithStandin(['peer', '--filter', 'atom.sys.global.add.u32'], { ...UNSAFE, ...TWO_DEVICES });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^error: the peer command runs only where NVLink multicast is kept off/m);
    expect(r.out).toContain("NCCL_NVLS_ENABLE is ''");
    expect(r.out).not.toMatch(/\n\s+at /);
    const n = await runWithStandin(['peer', '--filter', 'atom.sys.global.add.u32', '--report', mkdtempSync(join(tmpdir(), 'peer-'))], {
      ...SAFE,
      ...TWO_DEVICES,
      PTXCONF_PEER_STANDIN_NOPEER: '1',
    });
    expect(n.code).toBe(2);
    expect(n.out).toMatch(/error: no peer access between devices 0 \(Stand-in 0 \(reference model\)\) and 1/);
    for (const bad of [
      ['--only', 'both-ways'],
      ['--reps', '100'],
      ['--generated', '-1'],
      ['--shard', '0/2'],
    ]) {
      const b = await runWithStandin(['peer', '--plan-only', ...bad], SAFE);
      expect(b.code, bad.join(' ')).toBe(2);
    }
  }, 120_000);

  it('compareRuns: equal bits agree, a changed bit or verdict differs', () => {
    const c = (v: string, m: string) => ({ cases: new Map([['x/1', { verdict: v, observed: { memory: [m] } }]]) });
    expect(compareRuns(c('pass', '0x1'), c('pass', '0x1'))).toEqual({ both: 1, differ: [] });
    expect(compareRuns(c('pass', '0x1'), c('pass', '0x0')).differ.length).toBe(1);
    expect(compareRuns(c('pass', '0x1'), c('mismatch', '0x1')).differ.length).toBe(1);
  });
});
