/** Dat3M's peer tests (the peer corpus: tests/helpers/third-party.ts) in the GPU runner: which plan, and that their modules assemble. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STRESS, launchGeometry, litmusModule } from '../../harness/litmus-gpu/kernel.js';
import { BARRIER_DEADLOCK, BARRIER_DYNAMIC, BARRIER_HANG, NO_KERNEL_PROXY, planTest, typedRmw } from '../../harness/litmus-gpu/plan.js';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { peerRoot } from '../helpers/third-party.js';

const root = peerRoot('Dat3M peer tests on the GPU runner (planning, ptxas)');
const PEERS = root ? join(root, 'litmus') : '';
let ptxas: string | undefined;
beforeAll(async () => {
  const p = await ptxasOrReason();
  ptxas = typeof p === 'string' ? undefined : p.path;
});

describe('Dat3M peer tests on the GPU runner', () => {
  it('an untyped atom/red gets the 32-bit type of its operation; others are refused', () => {
    expect(typedRmw('atom.relaxed.gpu.add')).toBe('atom.relaxed.gpu.add.u32');
    expect(typedRmw('atom.acq_rel.gpu.cas')).toBe('atom.acq_rel.gpu.cas.b32');
    expect(typedRmw('atom.relaxed.gpu.global.add.f32')).toBe('atom.relaxed.gpu.global.add.f32');
    expect(typedRmw('atom.acq_rel.sys.sub')).toBeUndefined();
  });
  it('124 plan (global memory, generic proxy and its virtual aliases, one GPU; register arithmetic computed, branches taken, loops bounded, barriers); the rest are refused with reasons no kernel overcomes: the texture, surface and constant proxies with the reason no kernel overcomes; every planned module assembles with ptxas', (ctx) => {
    if (!root) ctx.skip();
    const files = execFileSync('find', [PEERS, '-name', '*.litmus']).toString().trim().split('\n').sort();
    expect(files.length).toBe(265);
    const dir = mkdtempSync(join(tmpdir(), 'peer-ptx-'));
    const planned: string[] = [];
    const notPtx: string[] = [];
    const loops: string[] = [];
    const noKernel: string[] = [];
    const skips = new Map<string, number>();
    const aliased: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const t = parseLitmus(text, f).test!;
      const p = planTest(t, text);
      if (!p.ok) {
        const why = [
          NO_KERNEL_PROXY,
          BARRIER_HANG,
          BARRIER_DEADLOCK,
          BARRIER_DYNAMIC,
          'runs on gpu 1 (one GPU only)',
          'is not PTX',
          'no 32-bit type follows',
        ].find((w) => p.reason.includes(w));
        skips.set(why ?? p.reason, (skips.get(why ?? p.reason) ?? 0) + 1);
        if (p.reason.includes(NO_KERNEL_PROXY)) noKernel.push(f);
        if (/is not PTX/.test(p.reason)) notPtx.push(f);
        continue;
      }
      planned.push(f);
      if (p.plan.aliases) aliased.push(f.split('/').pop()!);
      if (p.plan.loops) loops.push(f.split('/').pop()!);
      if (ptxas === undefined) continue;
      const bin = ptxas;
      const m = litmusModule(p.plan, 'sm_90', '8.0', DEFAULT_STRESS, launchGeometry(p.plan.placement, 132, DEFAULT_STRESS).warpGroups);
      writeFileSync(join(dir, 'm.ptx'), m);
      expect(() => execFileSync(bin, ['-arch', 'sm_90', join(dir, 'm.ptx'), '-o', join(dir, 'm.cubin')], { stdio: 'pipe' }), f).not.toThrow();
    }
    expect(planned.length).toBe(124);
    // every test still skipped, by its reason: none a kernel of this runner could overcome
    expect(Object.fromEntries(skips)).toEqual({
      [NO_KERNEL_PROXY]: 119,
      [BARRIER_HANG]: 8,
      [BARRIER_DEADLOCK]: 2,
      [BARRIER_DYNAMIC]: 2,
      'runs on gpu 1 (one GPU only)': 6,
      'is not PTX': 3,
      'no 32-bit type follows': 1,
    });
    // the virtual-alias tests that use the generic proxy alone (the others read or write through surface or texture objects)
    expect(aliased.sort()).toEqual(
      [
        'Proxy-Alias-AliasFence',
        'Proxy-MP-Alias+sameProxy-aliasFence',
        'Proxy-MP-Alias+sameProxy-aliasFence1',
        'Proxy-MP-Alias+sameProxy-noFence',
        'Proxy-MP-cta-synonym1',
        'Proxy-MP-cta-synonym19',
        'Proxy-MP-cta-synonym20',
      ].map((n) => `${n}.litmus`),
    );
    expect(noKernel.length).toBe(119);
    // the loops run, bounded: the MICRO24, ticket-lock (one GPU) and XF-Barrier tests
    expect(loops.sort()).toEqual(
      [
        'MICRO24-Fig4a',
        'MICRO24-Fig4a-correct',
        'MICRO24-Fig4b',
        'MICRO24-Fig4b-correct',
        'Ticketlock-acq2rlx-1',
        'Ticketlock-acq2rlx-2',
        'Ticketlock-rel2rlx',
        'Ticketlock-same-gpu',
        'XF-Barrier-relacq',
        'XF-Barrier-rlx',
        'XF-Barrier-weak',
      ]
        .map((n) => `${n}.litmus`)
        .sort(),
    );
    // the forward branches of MP-dlb and the SL tests run
    expect(planned.map((f) => f.split('/').pop())).toEqual(expect.arrayContaining(['MP-dlb.litmus', 'SL-cas-plus.litmus', 'SL-future-minus.litmus']));
    expect(notPtx.map((f) => f.split('/').pop())).toEqual(['Atom-plus-register.litmus', 'Red-minus-location_.litmus', 'Red-plus-location_.litmus']);
  }, 120_000);
});
