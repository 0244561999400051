/**
 * Virtual aliases and loops on the GPU runner (issue 42): a `y @ generic aliases x` location is
 * read and written through a second view of `mem` (one allocation mapped twice: run.ts,
 * native/src/views.cc), at the aliased location's copy; what plans and what is refused with its
 * reason; the texture, surface and constant proxies skipped with the reason no kernel overcomes.
 * A loop (a backward branch) runs bounded: a thread gives up after LOOP_BOUND turns, and lt_count
 * counts its instance apart (not judged); with the stand-in, a planted give-up is reported.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/cjs/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STRESS, LOOP_BOUND, SAMPLES, launchGeometry, litmusModule } from '../../harness/litmus-gpu/kernel.js';
import { runWithStandin } from '../helpers/standin.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { NO_KERNEL_PROXY, planTest } from '../../harness/litmus-gpu/plan.js';
import { parseLitmus } from '../../harness/memory-model/extended.js';

const planOf = (text: string) => planTest(parseLitmus(text, 'x.litmus').test!, text);
const moduleOf = (text: string) => {
  const p = planOf(text);
  if (!p.ok) throw new Error(p.reason);
  return { plan: p.plan, ptx: litmusModule(p.plan, 'sm_90', '8.0', DEFAULT_STRESS, launchGeometry(p.plan.placement, 132, DEFAULT_STRESS).warpGroups) };
};
const ALIAS_MP = readFileSync('cases/litmus/Alias+MP+fence.proxy.alias-writer.litmus', 'utf8');

describe('virtual aliases in the GPU runner', () => {
  it("an alias is the aliased location's copy in view 1 of mem: lt_test takes the bytes between views, and fence.proxy.alias is emitted as written", () => {
    const { plan, ptx } = moduleOf(ALIAS_MP);
    expect(plan.locs).toEqual(['x', 'f', 'y']);
    expect(plan.aliases).toEqual([undefined, undefined, { view: 1, of: 0 }]);
    expect(ptx).toMatch(/\.param \.u64 pscratch, \.param \.u64 pview\)/);
    // y's address: x's copy (location 0) of this instance, plus one view
    const at = ptx.indexOf('add.u64 %A2, %mem, %a;');
    expect(ptx.slice(ptx.lastIndexOf('mad.lo.u32 %u, %ni,', at), at)).toMatch(/^mad\.lo\.u32 %u, %ni, 0, %inst;/);
    expect(ptx.slice(at).split('\n')[1]).toBe('  mad.lo.u64 %A2, %view, 1, %A2;');
    expect(ptx).toMatch(/fence\.proxy\.alias;/);
    expect(ptx).toMatch(/ld\.weak\.global\.u32 %R_r1, \[%A2\];/);
    // no alias: the seven parameters as before
    expect(moduleOf(readFileSync('cases/litmus/MP+atom.release+atom.acquire.gpu.litmus', 'utf8')).ptx).toMatch(/\.param \.u64 pscratch\)/);
  });
  it("a condition naming the alias reads the aliased location's copy in lt_count", () => {
    const text = ['PTX A', '{', 'x=0;', 'y @ generic aliases x;', '}', ' P0@cta 0,gpu 0 ;', ' st.weak.global.u32 y, 1 ;', 'exists (y == 0)'].join('\n');
    const { ptx } = moduleOf(text);
    const count = ptx.slice(ptx.indexOf('.entry lt_count'));
    // the key y (location 1) is read at location 0's copy
    expect(count).toMatch(
      /mad\.lo\.u32 %u, %ni, 0, %i;\n {2}mul\.lo\.u32 %u, %u, %stride;\n {2}mul\.wide\.u32 %a, %u, 4;\n {2}add\.u64 %a, %mem, %a;\n {2}ld\.global\.u32 %V0/,
    );
  });
  it('refused with the reason: an alias of shared memory, more than four aliases; a texture, surface or constant access names the reason no kernel overcomes', () => {
    const shared = ['PTX A', '{', 's @ shared cta 0;', 'y @ generic aliases s;', '}', ' P0@cta 0,gpu 0 ;', ' ld.weak r0, y ;', 'exists (P0:r0 == 1)'].join(
      '\n',
    );
    const p = planOf(shared);
    expect(p.ok ? '' : p.reason).toMatch(/virtual alias of shared memory/);
    const five = [
      'PTX A',
      '{',
      'x=0;',
      ...[1, 2, 3, 4, 5].map((k) => `y${k} @ generic aliases x;`),
      '}',
      ' P0@cta 0,gpu 0 ;',
      ' ld.weak r0, y5 ;',
      'exists (P0:r0 == 1)',
    ];
    const q = planOf(five.join('\n'));
    expect(q.ok ? '' : q.reason).toBe('5 virtual aliases (at most 4 run)');
    const sur = ['PTX A', '{', 'x=0;', 's @ surface aliases x;', '}', ' P0@cta 0,gpu 0 ;', ' sust.weak s, 1 ;', 'exists (x == 0)'].join('\n');
    const r = planOf(sur);
    expect(r.ok ? '' : r.reason).toContain(NO_KERNEL_PROXY);
    // a surface alias that no instruction uses does not stop the test
    const unused = ['PTX A', '{', 'x=0;', 's @ surface aliases x;', '}', ' P0@cta 0,gpu 0 ;', ' st.weak x, 1 ;', 'exists (x == 0)'].join('\n');
    expect(planOf(unused).ok).toBe(true);
  });
});

let noPtxas: string | undefined;
beforeAll(async () => {
  register();
  const p = await ptxasOrReason();
  noPtxas = typeof p === 'string' ? p : undefined;
});
const SPIN = 'cases/litmus/MP+spin-loop.acquire.litmus';

describe('loops in the GPU runner', () => {
  it("a backward branch counts the thread's turns and gives up at LOOP_BOUND: the instance's give-up word is set, and lt_count counts it in the histogram's last word instead of the table", () => {
    const { plan, ptx } = moduleOf(readFileSync(SPIN, 'utf8'));
    expect(plan.loops).toBe(true);
    const th1 = ptx.slice(ptx.indexOf('\nTH1:'), ptx.indexOf('  ret;', ptx.indexOf('\nTH1:')));
    // the count and the bound come before the backward branch itself
    expect(th1).toMatch(
      new RegExp(
        `add\\.u32 %LP, %LP, 1;\\n {2}setp\\.ge\\.u32 %p, %LP, ${LOOP_BOUND};\\n {2}@%p bra GIVEUP1;\\n {2}setp\\.eq\\.u32 %p, %R_r0, 0;\\n {2}@%p bra LB1_LC00;`,
      ),
    );
    expect(th1).toMatch(/bra DONE1;\nGIVEUP1:\n {2}st\.global\.u32 \[%AH\], 1;\nDONE1:/);
    // the give-up word is location index L + 1 (after the alignment word)
    expect(ptx).toContain(`mad.lo.u32 %u, %ni, ${plan.locs.length + 1}, %inst;`);
    const count = ptx.slice(ptx.indexOf('.entry lt_count'));
    expect(count).toContain(`mad.lo.u32 %u, %ni, ${plan.locs.length + 1}, %i;`);
    expect(count).toContain(`add.u32 %u, %K, ${1 + SAMPLES * plan.keys.length};`);
    // P0 has no loop: no count
    expect(ptx.slice(ptx.indexOf('\nTH0:'), ptx.indexOf('\nTH1:'))).not.toContain('%LP');
    // a test without loops has neither
    expect(moduleOf(ALIAS_MP).ptx).not.toContain('%AH');
  });
  it('with the stand-in: instances given up on are counted apart, reported, and not judged', async (ctx) => {
    if (noPtxas) ctx.skip();
    const report = mkdtempSync(join(tmpdir(), 'litmus-loop-'));
    const r = await runWithStandin(['litmus', '--backend', 'gpu', SPIN, '--iterations', '2', '--instances', '1024', '--report', report], {
      PTXCONF_LITMUS_ROWS: '1',
      PTXCONF_LITMUS_GIVEUP: '4',
    });
    expect(r.code, r.out).toBe(0);
    const g = JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')).results[0].gpu;
    expect(g.gaveUp).toBe(2 * 256);
    expect(g.histogram.find((h: { values: string[] }) => h.values[0] === '1').count).toBe(2 * 768);
    expect(r.out).toContain(`512 instance(s) not judged: a thread's loop ran ${LOOP_BOUND} times and gave up`);
  }, 60_000);
});
