/** Dat3M's peer tests (the peer corpus: tests/helpers/third-party.ts) in the GPU runner: which plan, and that their modules assemble. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STRESS, launchGeometry, litmusModule } from '../../harness/litmus-gpu/kernel.js';
import { planTest, typedRmw } from '../../harness/litmus-gpu/plan.js';
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
  it('79 plan (global memory, generic proxy, one GPU; register arithmetic computed, forward branches taken); a loop and red.acq_rel are refused with the reason; every planned module assembles with ptxas', (ctx) => {
    if (!root) ctx.skip();
    const files = execFileSync('find', [PEERS, '-name', '*.litmus']).toString().trim().split('\n').sort();
    expect(files.length).toBe(265);
    const dir = mkdtempSync(join(tmpdir(), 'peer-ptx-'));
    const planned: string[] = [];
    const notPtx: string[] = [];
    const loops: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const t = parseLitmus(text, f).test!;
      const p = planTest(t, text);
      if (!p.ok) {
        if (/is not PTX/.test(p.reason)) notPtx.push(f);
        if (/a backward branch to \S+ \(a loop; forward branches run\)/.test(p.reason)) loops.push(f);
        continue;
      }
      planned.push(f);
      if (ptxas === undefined) continue;
      const bin = ptxas;
      const m = litmusModule(p.plan, 'sm_90', '8.0', DEFAULT_STRESS, launchGeometry(p.plan.placement, 132, DEFAULT_STRESS).warpGroups);
      writeFileSync(join(dir, 'm.ptx'), m);
      expect(() => execFileSync(bin, ['-arch', 'sm_90', join(dir, 'm.ptx'), '-o', join(dir, 'm.cubin')], { stdio: 'pipe' }), f).not.toThrow();
    }
    expect(planned.length).toBe(79);
    expect(loops.length).toBe(12);
    // the forward branches of MP-dlb and the SL tests run
    expect(planned.map((f) => f.split('/').pop())).toEqual(expect.arrayContaining(['MP-dlb.litmus', 'SL-cas-plus.litmus', 'SL-future-minus.litmus']));
    expect(notPtx.map((f) => f.split('/').pop())).toEqual(['Atom-plus-register.litmus', 'Red-minus-location_.litmus', 'Red-plus-location_.litmus']);
  }, 120_000);
});
