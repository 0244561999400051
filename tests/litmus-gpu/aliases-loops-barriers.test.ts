/**
 * Virtual aliases and loops on the GPU runner (issue 42): a `y @ generic aliases x` location is
 * read and written through a second view of `mem` (one allocation mapped twice: run.ts,
 * native/src/views.cc), at the aliased location's copy; what plans and what is refused with its
 * reason; the texture, surface and constant proxies skipped with the reason no kernel overcomes.
 * A loop (a backward branch) runs bounded: a thread gives up after LOOP_BOUND turns, and lt_count
 * counts its instance apart (not judged); with the stand-in, a planted give-up is reported. A
 * barrier runs as the warp group's own hardware barrier with one warp per thread of its group; one
 * that would leave a thread waiting forever, deadlock, or count threads known only at run time is
 * refused with the reason.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/cjs/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STRESS, LOOP_BOUND, SAMPLES, launchGeometry, litmusModule } from '../../harness/litmus-gpu/kernel.js';
import { runWithStandin } from '../helpers/standin.js';
import { locationByte } from '../../harness/litmus-gpu/run.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import {
  BARRIER_DEADLOCK,
  BARRIER_DYNAMIC,
  BARRIER_HANG,
  NO_KERNEL_PROXY,
  im2colParameters,
  moduleArch,
  planTest,
  tensorMapGeometry,
} from '../../harness/litmus-gpu/plan.js';
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
        `add\\.u32 %LP, %LP, 1;\\n {2}setp\\.ge\\.u32 %p, %LP, ${LOOP_BOUND};\\n {2}@%p bra GIVEUP1_2;\\n {2}setp\\.eq\\.u32 %p, %R_r0, 0;\\n {2}@%p bra LB1_LC00;`,
      ),
    );
    expect(th1).toMatch(/bra DONE1;\nGIVEUP1_2:\n {2}st\.global\.u32 \[%AH\], 1;\n {2}bra DONE1;\nDONE1:/);
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

describe('barriers in the GPU runner', () => {
  const test = (rows: string[], header = ' P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;', init = ['x=0;', 'y=0;']) =>
    ['PTX B', '{', ...init, '}', header, ...rows, 'exists (P0:r0 == 0 /\\ P1:r0 == 0)'].join('\n');
  const SB = test([' st.weak x, 1   | st.weak y, 1   ;', ' bar.cta.sync 3 | bar.cta.sync 3 ;', ' ld.weak r0, y  | ld.weak r0, x  ;']);
  it("a barrier is the warp group's own hardware barrier for its id (warp group * ids + index), barrier.sync with one warp per thread of its group", () => {
    const { plan, ptx } = moduleOf(SB);
    expect(plan.placement.barrierIds).toBe(1);
    expect(plan.barriers).toEqual({ '0:1': { id: 0, threads: 2 }, '1:1': { id: 0, threads: 2 } });
    for (const t of [0, 1]) {
      const code = ptx.slice(ptx.indexOf(`\nTH${t}:`), ptx.indexOf('  ret;', ptx.indexOf(`\nTH${t}:`)));
      expect(code).toMatch(/st\.weak\.b32 \[%A\d\], %T0;\n {2}mad\.lo\.u32 %u, %wg, 1, 0;\n {2}barrier\.sync %u, 64;\n {2}ld\.weak/);
    }
    expect(ptx).not.toMatch(/\bbar\.(cta\.)?sync/);
    // 16 hardware barriers a CTA: a test of 3 ids gets at most 5 warp groups a CTA
    const three = test([
      ' bar.cta.sync 1 | bar.cta.sync 1 ;',
      ' bar.cta.sync 2 | bar.cta.sync 2 ;',
      ' bar.cta.arrive 0, 4, 2 | bar.cta.sync 4 ;',
      ' ld.weak r0, y  | ld.weak r0, x  ;',
    ]);
    const p = planOf(three);
    if (!p.ok) throw new Error(p.reason);
    expect(p.plan.placement.barrierIds).toBe(3);
    expect(launchGeometry(p.plan.placement, 132, { ...DEFAULT_STRESS, warps: 0 }).warpGroups).toBe(5);
    expect(launchGeometry(plan.placement, 132, { ...DEFAULT_STRESS, warps: 0 }).warpGroups).toBe(8);
  });
  it('refused with the reason: a barrier a thread would wait at forever, a deadlock, a loaded id, a barrier a branch skips, two arrivals of one thread', () => {
    const reason = (t: string) => {
      const p = planOf(t);
      return p.ok ? 'planned' : p.reason;
    };
    const three = ' P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;';
    expect(reason(test([' bar.cta.sync 1, 1, 2 | bar.cta.sync 1, 1, 2 | bar.cta.sync 1, 1, 2 ;', ' ld.weak r0, y | ld.weak r0, x | ;'], three))).toBe(
      `barrier 1 of CTA 0: 3 arrival(s) for a quorum of 2 (${BARRIER_HANG})`,
    );
    expect(reason(test([' bar.cta.sync 1, 1, 3 | bar.cta.sync 1, 1, 3 ;', ' ld.weak r0, y | ld.weak r0, x ;']))).toBe(
      `barrier 1 of CTA 0: 2 arrival(s) for a quorum of 3 (${BARRIER_HANG})`,
    );
    expect(reason(test([' bar.cta.sync 0 | bar.cta.sync 1 ;', ' bar.cta.sync 1 | bar.cta.sync 0 ;', ' ld.weak r0, y | ld.weak r0, x ;']))).toMatch(
      new RegExp(`the barriers deadlock \\(barrier \\d of CTA 0 waits on itself: ${BARRIER_DEADLOCK}\\)`),
    );
    // arrive does not wait: the same order with an arrive first is no deadlock
    expect(reason(test([' bar.cta.arrive 0, 2 | bar.cta.arrive 1, 2 ;', ' bar.cta.sync 1 | bar.cta.sync 0 ;', ' ld.weak r0, y | ld.weak r0, x ;']))).toBe(
      'planned',
    );
    expect(reason(test([' ld.weak r2, y | ld.weak r0, x ;', ' bar.cta.sync 1, r2 | bar.cta.sync 1, 1 ;', ' ld.weak r0, y | ;']))).toContain(BARRIER_DYNAMIC);
    // a register the thread never writes is its initial value
    expect(reason(test([' bar.cta.sync 1, r2 | bar.cta.sync 1, 1 ;', ' ld.weak r0, y | ld.weak r0, x ;'], undefined, ['x=0;', 'y=0;', 'P0:r2=1;']))).toBe(
      'planned',
    );
    expect(
      reason(test([' ld.weak r1, y | ld.weak r0, x ;', ' beq r1, 0, LC00 | bar.cta.sync 1 ;', ' bar.cta.sync 1 | ;', ' LC00: | ;', ' ld.weak r0, y | ;'])),
    ).toMatch(/a barrier a branch may skip or repeat/);
    expect(reason(test([' bar.cta.sync 1 | bar.cta.sync 1 ;', ' bar.cta.sync 1 | bar.cta.sync 1 ;', ' ld.weak r0, y | ld.weak r0, x ;']))).toMatch(
      /a second arrival at barrier 1/,
    );
  });
  it('a thread that gives up in a loop still meets its later barriers with their own instruction (barrier.sync here), so no thread of their groups waits forever', () => {
    const spin = test(
      [' st.weak x, 1 | LC00: ;', ' st.release.gpu y, 1 | ld.acquire.gpu r0, y ;', ' bar.cta.sync 2 | beq r0, 0, LC00 ;', ' ld.weak r0, x | bar.cta.sync 2 ;'],
      ' P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;',
    );
    const { ptx } = moduleOf(spin);
    expect(ptx).toMatch(/GIVEUP1_2:\n {2}st\.global\.u32 \[%AH\], 1;\n {2}mad\.lo\.u32 %u, %wg, 1, 0;\n {2}barrier\.sync %u, 64;\n {2}bra DONE1;/);
  });
});

describe('a kernel that faults', () => {
  it('ends the run with the results so far: the faulting test is an error naming the fault, every later one says it did not run and why; exit 1', async (ctx) => {
    if (noPtxas) ctx.skip();
    const report = mkdtempSync(join(tmpdir(), 'litmus-fault-'));
    const files = ['cases/litmus/MP+atom.release+atom.acquire.gpu.litmus', 'cases/litmus/Alias+MP.litmus', 'cases/litmus/Alias+CoRR.litmus'];
    const r = await runWithStandin(['litmus', '--backend', 'gpu', ...files, '--iterations', '1', '--instances', '1024', '--report', report], {
      PTXCONF_LITMUS_ROWS: '0,0',
      PTXCONF_LITMUS_FAULT: '2',
    });
    expect(r.code, r.out).toBe(1);
    expect(r.out).not.toMatch(/internal error/);
    const rs = JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')).results as { file: string; status: string; reason?: string }[];
    const by = (f: string) => rs.find((x) => x.file === f)!;
    expect(by(files[0]!).status).toBe('passed');
    expect(by(files[1]!).status).toBe('error');
    expect(by(files[1]!).reason).toMatch(/CUDA_ERROR_ILLEGAL_INSTRUCTION/);
    expect(by(files[2]!).reason).toBe(
      `not run: the GPU context was lost when ${files[1]}'s kernel faulted (${by(files[1]!).reason}) (every later test of this run is not run)`,
    );
  }, 60_000);
});

describe('tensor maps in the GPU runner', () => {
  const TM = 'cases/litmus/Tensormap+MP+fence.release+fence.acquire.litmus';
  it("each instance's map (ptm), restored by lt_count from the initial map (ptinit); tensormap.replace installs the target's tensor; the acquire fence and the tensor operation address the instance's map; the module targets sm_90a", () => {
    const { plan, ptx } = moduleOf(readFileSync(TM, 'utf8'));
    expect(plan.tensorMaps).toEqual([{ loc: plan.locs.indexOf('tm'), targets: [plan.locs.indexOf('d0'), plan.locs.indexOf('d1')], rank: 1, mode: 'tile' }]);
    expect(moduleArch(plan, 'sm_90')).toBe('sm_90a');
    const j = plan.locs.indexOf('tm');
    expect(ptx).toMatch(/\.param \.u64 pscratch, \.param \.u64 ptm\)/);
    expect(ptx).toMatch(/\.param \.u32 pk, \.param \.u64 ptm, \.param \.u64 ptinit\)/);
    // P0: the replace points the map at d1's tensor (location d1's copies: d1 * NI * stride * 128 bytes into mem; 128-byte slots)
    expect(ptx).toContain(
      `  mul.lo.u32 %u, %ni, %stride;\n  mul.wide.u32 %TMD, %u, ${plan.locs.indexOf('d1') * 128};\n  add.u64 %TMD, %mem, %TMD;\n  tensormap.replace.tile.global_address.global.b1024.b64 [%TM${j}], %TMD;`,
    );
    // P1: its acquire on the map, then the reduction at this instance's element of the tensor
    expect(ptx).toContain(
      `fence.proxy.tensormap::generic.acquire.gpu [%TM${j}], 128;\n  cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%TM${j}, {%CRD}], [%S`,
    );
    // the restored maps are acquired once before the test's code, by the thread that uses them (8.9.4)
    const p1 = ptx.slice(ptx.indexOf('\nTH1:'), ptx.indexOf('  ret;', ptx.indexOf('\nTH1:')));
    expect(p1.split(`fence.proxy.tensormap::generic.acquire.gpu [%TM${j}], 128;`).length).toBe(3);
    expect(ptx.slice(ptx.indexOf('\nTH0:'), ptx.indexOf('\nTH1:'))).not.toContain('acquire.gpu [%TM');
    // lt_count restores the 128 bytes of the instance's map
    expect(ptx.slice(ptx.indexOf('.entry lt_count')).match(/st\.global\.v4\.u32 \[%a\+\d+\], \{%M0, %M1, %M2, %M3\};/g)!.length).toBe(8);
  });
  it('with the stand-in: the maps are encoded and handed to both kernels (lt_test: ptm, lt_count: ptm and the initial map)', async (ctx) => {
    if (noPtxas) ctx.skip();
    const report = mkdtempSync(join(tmpdir(), 'litmus-tm-'));
    const log = join(report, 'launches.log');
    const r = await runWithStandin(['litmus', '--backend', 'gpu', TM, '--iterations', '1', '--instances', '1024', '--stress-warps', '0', '--report', report], {
      PTXCONF_LITMUS_ROWS: '0', // the stand-in writes the register keys only (its histogram here is not the point)
      PTXCONF_LITMUS_LOG: log,
    });
    expect(r.out).not.toMatch(/internal error/);
    const [test, count] = readFileSync(log, 'utf8').trim().split('\n');
    const ni = Number(test!.split(' ')[9]); // lt_test's fifth parameter: instances per launch
    expect(test!.split(' ').at(-1)).toMatch(new RegExp(`^${ni * 128}:`));
    expect(
      count!
        .split(' ')
        .slice(-2)
        .map((x) => x.split(':')[0]),
    ).toEqual([String(ni * 128), '128']);
  }, 60_000);
});

describe('tensor maps of 2 to 5 dimensions in the GPU runner', () => {
  it("a map's rank is its operations': the geometry puts the copy's elements first, the instances last, size-1 dimensions between; the operation's coordinates are 0 but the last (the instance)", () => {
    const { plan, ptx } = moduleOf(readFileSync('cases/litmus/Tensormap+2d+replace+fence.release+fence.acquire.litmus', 'utf8'));
    expect(plan.tensorMaps?.map((m) => m.rank)).toEqual([2]);
    const j = plan.locs.indexOf('tm');
    expect(ptx).toContain(`cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%TM${j}, {0, %CRN}], [%S`);
    expect(ptx).toContain('  mul.lo.u32 %CRN, %inst, %stride;\n  mul.lo.u32 %CRD, %CRN, 32;');
    const five = moduleOf(readFileSync('cases/litmus/Tensormap+5d+store+replace-no-fence.litmus', 'utf8'));
    expect(five.ptx).toMatch(/cp\.async\.bulk\.tensor\.5d\.global\.shared::cta\.tile\.bulk_group \[%TM\d+, \{0, 0, 0, 0, %CRN\}\], \[%S\d+\];/);
    const three = moduleOf(readFileSync('cases/litmus/Tensormap+3d+load+replace-no-fence.litmus', 'utf8'));
    expect(three.ptx).toMatch(
      /cp\.async\.bulk\.tensor\.3d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes \[%C\d+\], \[%TM\d+, \{0, 0, %CRN\}\], \[%C\d+\];/,
    );
    // the geometry: 1-D as before (the instances' copies as one row of elements), N-D with the instance last
    expect(tensorMapGeometry(1, 10, 128)).toEqual({ dims: [320], strides: [], box: [4], elementStrides: [1], coordinateScale: 32 });
    expect(tensorMapGeometry(3, 10, 128)).toEqual({ dims: [32, 1, 10], strides: [128, 128], box: [4, 1, 1], elementStrides: [1, 1, 1], coordinateScale: 1 });
    // an .im2col_no_offs reduction: its map in im2col mode, the coordinates as a tile's
    const im = moduleOf(readFileSync('cases/litmus/Tensormap+3d+im2col+replace-no-fence.litmus', 'utf8'));
    expect(im.plan.tensorMaps?.map((m) => `${m.rank} ${m.mode}`)).toEqual(['3 im2col']);
    expect(im.ptx).toMatch(/cp\.reduce\.async\.bulk\.tensor\.3d\.global\.shared::cta\.add\.im2col_no_offs\.bulk_group \[%TM\d+, \{0, 0, %CRN\}\], \[%S\d+\];/);
    // the copies' im2col forms: the load with its im2colInfo offsets (each 0, a .b16 register), the store with .im2col_no_offs
    const load = moduleOf(readFileSync('cases/litmus/Tensormap+4d+im2col+load+replace+fence.release+fence.acquire.litmus', 'utf8'));
    expect(load.plan.tensorMaps?.map((m) => `${m.rank} ${m.mode}`)).toEqual(['4 im2col']);
    expect(load.ptx).toMatch(
      /cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.im2col\.mbarrier::complete_tx::bytes \[%C\d+\], \[%TM\d+, \{0, 0, 0, %CRN\}\], \[%C\d+\], \{%IMO, %IMO\};/,
    );
    expect(load.ptx).toContain('  mov.b16 %IMO, 0;');
    const store = moduleOf(readFileSync('cases/litmus/Tensormap+5d+im2col_no_offs+store+replace-no-fence.litmus', 'utf8'));
    expect(store.ptx).toMatch(/cp\.async\.bulk\.tensor\.5d\.global\.shared::cta\.im2col_no_offs\.bulk_group \[%TM\d+, \{0, 0, 0, 0, %CRN\}\], \[%S\d+\];/);
    expect(im2colParameters(5)).toEqual({ lower: [0, 0, 0], upper: [0, 0, 0], channelsPerPixel: 4, pixelsPerColumn: 1 });
    expect(moduleOf(readFileSync('cases/litmus/Tensormap+2d+replace-no-fence.litmus', 'utf8')).plan.tensorMaps?.[0]?.mode).toBe('tile');
    // one map, one rank
    const mixed = readFileSync('cases/litmus/Tensormap+2d+replace+fence.release+fence.acquire.litmus', 'utf8').replace(
      ' cp.async.bulk.commit_group ;',
      ' cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [tm, {0}], [s] ;\n cp.async.bulk.commit_group ;',
    );
    const p = planTest(parseLitmus(mixed, 'x.litmus').test!, mixed);
    expect(p.ok ? '' : p.reason).toMatch(/tensor map tm is used as 2-D and 1-D \(a map has one rank\)/);
  });
  it('with the stand-in: a 3-D map is encoded with its rank, strides and box, and the run completes', async (ctx) => {
    if (noPtxas) ctx.skip();
    const report = mkdtempSync(join(tmpdir(), 'litmus-tm3-'));
    const r = await runWithStandin(
      [
        'litmus',
        '--backend',
        'gpu',
        'cases/litmus/Tensormap+3d+load+replace-no-fence.litmus',
        '--iterations',
        '1',
        '--instances',
        '1024',
        '--stress-warps',
        '0',
        '--report',
        report,
      ],
      { PTXCONF_LITMUS_ROWS: '0' },
    );
    expect(r.out).not.toMatch(/internal error|not run/);
    expect(r.out).toMatch(/Tensormap\+3d\+load\+replace-no-fence/);
  }, 60_000);
});

describe('arrays in the GPU runner', () => {
  it("an array's initial values are written in its array's copy at each element's offset (the first launch's memory; lt_count resets the later ones the same way)", () => {
    const { plan } = moduleOf(readFileSync('cases/litmus/Vector+atom.v4+returns.litmus', 'utf8'));
    const d = plan.locs.indexOf('d');
    const d12 = plan.locs.indexOf('d+12');
    expect(plan.init[d12]).toBe(0x40800000); // 4.0
    // instance 3 of 10, stride 2: d's copy, 12 bytes in
    expect(locationByte(plan, d12, 3, 10, 2)).toBe((d * 10 + 3) * 2 * plan.slotBytes + 12);
    expect(locationByte(plan, d, 3, 10, 2)).toBe((d * 10 + 3) * 2 * plan.slotBytes);
  });
  it("an array's element is addressed in its array's 16-byte copy at its offset: in lt_test (global and shared), in lt_count's key and reset; the element's own init writes only its word", () => {
    const { plan, ptx } = moduleOf(readFileSync('cases/litmus/Bulk+two-elements+wait_group+release.litmus', 'utf8'));
    const d = plan.locs.indexOf('d');
    const d4 = plan.locs.indexOf('d+4');
    const s = plan.locs.indexOf('s');
    const s4 = plan.locs.indexOf('s+4');
    expect(plan.slotBytes).toBe(16);
    expect(plan.elements![d4]).toEqual({ of: d, offset: 4 });
    expect(ptx).toContain(
      `  mad.lo.u32 %u, %ni, ${d}, %inst;\n  mul.lo.u32 %u, %u, %stride;\n  mul.wide.u32 %a, %u, 16;\n  add.u64 %A${d4}, %mem, %a;\n  add.u64 %A${d4}, %A${d4}, 4;`,
    );
    expect(ptx).toContain(`  add.u32 %S${s4}, %S${s}, 4;`);
    expect(ptx).toContain(`  st.shared::cta.u32 [%S${s4}], 1;\n`);
    expect(ptx).not.toContain(`[%S${s4}+8]`);
    // lt_count: its reset written at d's copy + 4; a key d+4 read there
    const count = ptx.slice(ptx.indexOf('.entry lt_count'));
    const keyed = readFileSync('cases/litmus/Bulk+two-elements+wait_group+release.litmus', 'utf8').replace(/exists \(.*\)\s*$/s, 'exists (d+4 == 0)\n');
    const kptx = moduleOf(keyed).ptx;
    expect(kptx.slice(kptx.indexOf('.entry lt_count'))).toMatch(
      new RegExp(
        `mad\\.lo\\.u32 %u, %ni, ${d}, %i;\\n {2}mul\\.lo\\.u32 %u, %u, %stride;\\n {2}mul\\.wide\\.u32 %a, %u, 16;\\n {2}add\\.u64 %a, %mem, %a;\\n {2}ld\\.global\\.u32 %V\\d, \\[%a\\+4\\];`,
      ),
    );
    expect(count).toContain(`  ld.global.u32 %w, [%init+${d4 * 4}];\n  st.global.u32 [%a+4], %w;`);
  });
});
