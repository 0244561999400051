/**
 * Issue 26, first slice: a litmus test (harness/memory-model/, docs/litmus.md) as ONE PTX module of
 * two kernels that run many instances of the test at once over every SM.
 *
 * - `lt_test`: each instance's threads placed as its scope tree says. The launch is clusters of CS
 *   CTAs (CS = the most CTAs a test cluster holds); test cluster k of group g is physical cluster
 *   k * NG + g (so a test's clusters sit far apart in the grid); a test CTA is a CTA rank of its
 *   cluster; the test threads of one test CTA are different warps (warp = wg * TW + index). An
 *   instance slot is (g * WG + wg) * 32 + lane; the instance it runs is `perm[iter * NI + slot]` (a
 *   permutation per iteration, made on the host), which picks its memory: location j of instance i
 *   is word (j * NI + i) * stride of `mem`. After its code each thread stores the registers the final
 *   condition names to `regs[i * R + k]`. SW extra warps per CTA hammer scratch lines (stress).
 * - `lt_count`: one thread per instance, after `lt_test` (same stream): the outcome key (registers,
 *   then the locations the condition names, as 32-bit words) looked up in the host's table of the
 *   outcomes the model enumerates; `hist[k]` counts table row k, `hist[K]` counts the others and the
 *   first SAMPLES of them are kept as samples; then the instance's memory and registers are reset.
 *
 * Global memory and a CTA's shared memory (a `.shared` array per shared location, one copy per instance
 * slot of the CTA; `.shared::cta` the slot's own copy, `.shared::cluster` the owner CTA's by mapa,
 * generic by cvta; initialised by the owner CTA's first test thread, the cluster's test threads meet on
 * barrier.cluster before and after their code, then that thread copies the final value to the
 * location's copy in `mem` for lt_count), plain and atomic 32- and 64-bit accesses (ld, st, atom, red;
 * `.f16x2`/`.bf16x2` as one 32-bit word; a 64-bit key is two words of the outcome) and fences run; any
 * other test is skipped with the reason (plan.ts, planTest).
 */
import type { Expr, Instr } from '../memory-model/events.js';
import { type Placement, type TestPlan, TYPE_RE, bulkBytes, regsIn, sourceOf, tensorMapGeometry, typedRmw } from './plan.js';
import { SAMPLES, countKernel, histWords, keyWords, regWords } from './count-kernel.js';

export { SAMPLES, histWords, keyWords, regWords };

/** Backward branches a thread takes before it gives up on its instance (plan.loops). */
export const LOOP_BOUND = 1 << 20;

export interface StressOptions {
  /** Extra warps per CTA that hammer scratch lines (0: none). */
  readonly warps: number;
  /** Store/load pairs each stress thread does. */
  readonly iters: number;
  /** Scratch lines (128 bytes each) the stress warps spread over. */
  readonly lines: number;
  /**
   * Align the threads of an instance before its code: each arrives on the instance's barrier word
   * (one word past its locations) and spins, at most 4096 polls, until all have arrived.
   */
  readonly align?: boolean;
  /**
   * Before its code (and before the alignment), each test thread loads, with a weak L1-cacheable
   * `ld.global.ca`, every global location it reads after its first read: a stale copy in the SM's L1
   * that a load whose scope or order no longer requires a fresh value may return (a reader narrowed
   * to `.cta` or weakened to `.relaxed`). An extra read adds no order to the test's own events.
   */
  readonly preload?: boolean;
  /**
   * Where the stress warps hammer: their scratch lines (default), or the test's own memory, on the
   * words between instances' copies of a location (word offset 1; the stress does nothing at stride 1,
   * where there is no such word), so the lines the test's accesses use are the contended ones.
   */
  readonly target?: 'scratch' | 'test';
}
export const DEFAULT_STRESS: StressOptions = { warps: 2, iters: 64, lines: 64 };

export function launchGeometry(
  p: Placement,
  smCount: number,
  stress: StressOptions,
  instances?: number,
): { groups: number; warpGroups: number; instances: number; block: number; grid: number } {
  // a test with barriers: each warp group its own hardware barriers (16 per CTA)
  const warpGroups = Math.max(
    1,
    Math.min(Math.floor(Math.min(16, 24 - stress.warps) / p.threadsPerCta), Math.floor(16 / (p.barrierIds ?? 1)), p.maxWarpGroups ?? 16),
  );
  const block = (warpGroups * p.threadsPerCta + stress.warps) * 32;
  // about 2 CTAs of block threads per SM, all resident at once
  const ctasPerSm = Math.max(1, Math.floor(2048 / block) >= 2 ? 2 : 1);
  let groups = Math.max(1, Math.floor((smCount * ctasPerSm) / (p.clusters * p.clusterSize)));
  if (instances !== undefined) groups = Math.max(1, Math.min(groups, Math.ceil(instances / (warpGroups * 32))));
  return { groups, warpGroups, instances: groups * warpGroups * 32, block, grid: groups * p.clusters * p.clusterSize };
}

/**
 * A planted fault for the self-test: `hoist`, thread 0's instructions in reverse order with a pause
 * between (MP's flag store hoisted above its data store); `drop-wait`, thread 0's
 * cp.async.bulk.wait_group{.read} dropped (what follows may touch a bulk reduction's source or
 * destination before it is done with them).
 */
export type Plant = 'none' | 'hoist' | 'drop-wait';

/** The module (`lt_test`, `lt_count`) of a planned test. */
export function litmusModule(plan: TestPlan, arch: string, ptx: string, stress: StressOptions, warpGroups: number, plant: Plant = 'none'): string {
  const { test, placement: pl, locs } = plan;
  const regsOf = (th: number) => {
    const s = new Set<string>();
    for (const ins of test.threads[th]!.code) {
      if ('dst' in ins && ins.dst) s.add(ins.dst);
      const exprs: Expr[] = ins.kind === 'write' || ins.kind === 'local' ? [ins.value] : ins.kind === 'rmw' ? ins.args : [];
      for (const e of exprs) for (const r of regsIn(e)) s.add(r);
      if (ins.kind === 'branch' && ins.cond) for (const r of regsIn(ins.cond)) s.add(r);
    }
    for (const r of plan.regKeys) if (r.thread === th) s.add(r.reg);
    for (const r of Object.keys(test.regInit[th] ?? {})) s.add(r);
    return [...s];
  };
  const bitsOfReg = (t: number, r: string) => plan.regBits?.[`${t}:${r}`] ?? 32;
  const regOf = (t: number) => (r: string) => `%R${bitsOfReg(t, r) === 64 ? 'D' : ''}_${r.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const sb = plan.slotBytes ?? 4;
  const sharedLocs = locs.flatMap((_, j) => (plan.shared?.[j] ? [j] : []));
  const slotsPerCta = warpGroups * 32;
  const L: string[] = [`.version ${ptx}`, `.target ${arch}`, '.address_size 64', ''];
  // shared locations: one array per location in every CTA, one copy per instance slot of the CTA (warp group * 32 + lane)
  if (sharedLocs.length) L.push(`.shared .align ${Math.max(16, sb)} .b8 lt_sh[${sharedLocs.length * slotsPerCta * sb}];`, '');
  // ---- lt_test(mem, regs, perm, iter, ni, stride, scratch)
  // a test with virtual aliases takes one more parameter: the bytes between views of mem (plan.aliases)
  L.push(
    `.visible .entry lt_test(.param .u64 pmem, .param .u64 pregs, .param .u64 pperm, .param .u32 piter, .param .u32 pni, .param .u32 pstride, .param .u64 pscratch${plan.aliases ? ', .param .u64 pview' : ''}${plan.tensorMaps ? ', .param .u64 ptm' : ''})`,
    '{',
  );
  L.push(
    '  .reg .b64 %mem, %regs, %perm, %a, %o, %sc;',
    '  .reg .b32 %iter, %ni, %stride, %th, %warp, %lane, %cta, %cl, %rank, %wg, %role, %g, %slot, %inst, %u, %v, %k;',
    '  .reg .pred %p;',
  );
  const allRegs = new Set<string>();
  test.threads.forEach((_, t) => regsOf(t).forEach((r) => allRegs.add(regOf(t)(r))));
  const r32 = [...allRegs].filter((r) => !r.startsWith('%RD_'));
  const r64 = [...allRegs].filter((r) => r.startsWith('%RD_'));
  if (r32.length) L.push(`  .reg .b32 ${r32.join(', ')};`);
  if (r64.length) L.push(`  .reg .b64 ${r64.join(', ')};`);
  L.push('  .reg .b32 %T<8>, %SINK;', `  .reg .b64 ${locs.map((_, j) => `%A${j}`).join(', ')};`);
  if (r64.length || sharedLocs.length) L.push('  .reg .b64 %TD<8>, %XD;', '  .reg .b32 %X, %W0, %W1, %shl;');
  if (sharedLocs.length)
    L.push(`  .reg .b32 ${sharedLocs.map((j) => `%S${j}, %C${j}`).join(', ')};`, `  .reg .b64 ${sharedLocs.map((j) => `%G${j}`).join(', ')};`);
  L.push(
    '  ld.param.u64 %mem, [pmem];',
    '  ld.param.u64 %regs, [pregs];',
    '  ld.param.u64 %perm, [pperm];',
    '  ld.param.u32 %iter, [piter];',
    '  ld.param.u32 %ni, [pni];',
    '  ld.param.u32 %stride, [pstride];',
    '  ld.param.u64 %sc, [pscratch];',
    '  mov.u32 %th, %tid.x;',
    '  shr.u32 %warp, %th, 5;',
    '  and.b32 %lane, %th, 31;',
    pl.clusterSize > 1 ? '  mov.u32 %cl, %clusterid.x;' : '  mov.u32 %cl, %ctaid.x;',
    pl.clusterSize > 1 ? '  mov.u32 %rank, %cluster_ctarank;' : '  mov.u32 %rank, 0;',
    `  setp.ge.u32 %p, %warp, ${warpGroups * pl.threadsPerCta};`,
    sharedLocs.length ? '  @%p bra SBAR;' : '  @%p bra STRESS;',
    // physical cluster = k * NG + g: NG = nclusters / KC
    pl.clusterSize > 1 ? '  mov.u32 %u, %nclusterid.x;' : '  mov.u32 %u, %nctaid.x;',
    `  div.u32 %u, %u, ${pl.clusters};`, // NG
    '  div.u32 %k, %cl, %u;', // test cluster
    '  rem.u32 %g, %cl, %u;', // group
    `  div.u32 %wg, %warp, ${pl.threadsPerCta};`,
    `  rem.u32 %role, %warp, ${pl.threadsPerCta};`,
    `  mad.lo.u32 %slot, %g, ${warpGroups}, %wg;`,
    '  mad.lo.u32 %slot, %slot, 32, %lane;',
    '  mad.lo.u32 %u, %iter, %ni, %slot;',
    '  mul.wide.u32 %a, %u, 4;',
    '  add.u64 %a, %perm, %a;',
    '  ld.global.u32 %inst, [%a];',
  );
  // location j's copy for this instance; a virtual alias: the aliased location's copy in the alias's view of mem
  if (plan.aliases) L.push('  .reg .b64 %view;', '  ld.param.u64 %view, [pview];');
  // a test with loops: the instance's give-up word (location index L + 1) and each thread's count of backward branches taken
  if (plan.loops)
    L.push(
      '  .reg .b32 %LP;',
      '  .reg .b64 %AH;',
      `  mad.lo.u32 %u, %ni, ${locs.length + 1}, %inst;`,
      '  mul.lo.u32 %u, %u, %stride;',
      `  mul.wide.u32 %a, %u, ${sb};`,
      '  add.u64 %AH, %mem, %a;',
    );
  locs.forEach((_, j) => {
    const al = plan.aliases?.[j];
    const el = plan.elements?.[j];
    L.push(
      `  mad.lo.u32 %u, %ni, ${al ? al.of : el ? el.of : j}, %inst;`,
      '  mul.lo.u32 %u, %u, %stride;',
      `  mul.wide.u32 %a, %u, ${sb};`,
      `  add.u64 %A${j}, %mem, %a;`,
    );
    if (al) L.push(`  mad.lo.u64 %A${j}, %view, ${al.view}, %A${j};`);
    if (el) L.push(`  add.u64 %A${j}, %A${j}, ${el.offset};`); // an array's element, in its array's copy
  });
  // tensor maps: this instance's map of each (%TM, 128 bytes in ptm), and the coordinate its tensor operations address in the
  // map's last dimension (tensorMapGeometry): %CRD for a 1-D map (this instance's copy, in 32-bit elements of the location's
  // tensor), %CRN for a map of more dimensions (the instance's copy itself)
  if (plan.tensorMaps) {
    // %IMO: an .im2col load's im2colInfo offsets (each 0)
    L.push(
      `  .reg .b64 %tmb, %TMD, ${plan.tensorMaps.map((m) => `%TM${m.loc}`).join(', ')};`,
      '  .reg .b32 %CRD, %CRN;',
      '  .reg .b16 %IMO;',
      '  mov.b16 %IMO, 0;',
      '  ld.param.u64 %tmb, [ptm];',
    );
    plan.tensorMaps.forEach((m, k) => L.push(`  mad.lo.u32 %u, %ni, ${k}, %inst;`, '  mul.wide.u32 %a, %u, 128;', `  add.u64 %TM${m.loc}, %tmb, %a;`));
    L.push('  mul.lo.u32 %CRN, %inst, %stride;', `  mul.lo.u32 %CRD, %CRN, ${tensorMapGeometry(1, 1, sb).coordinateScale};`);
  }
  // shared location j: its copy for this slot in the CTA's array (%S, .shared::cta), the owner CTA's copy (%C, .shared::cluster, by mapa), and that as a generic address (%G)
  if (sharedLocs.length) L.push(`  mad.lo.u32 %shl, %wg, 32, %lane;`);
  for (const j of sharedLocs) {
    const own = pl.at[plan.shared[j]!.owner]!;
    L.push('  mov.u32 %u, lt_sh;', `  mad.lo.u32 %S${j}, %shl, ${sb}, %u;`, `  add.u32 %S${j}, %S${j}, ${plan.shared[j]!.index * slotsPerCta * sb};`);
    L.push(`  mapa.shared::cluster.u32 %C${j}, %S${j}, ${own.rank};`, `  cvt.u64.u32 %XD, %C${j};`, `  cvta.shared::cluster.u64 %G${j}, %XD;`);
  }
  // a shared array's element: in its array's copy, at its offset
  for (const j of sharedLocs) {
    const el = plan.elements?.[j];
    if (el) L.push(`  add.u32 %S${j}, %S${el.of}, ${el.offset};`, `  add.u32 %C${j}, %C${el.of}, ${el.offset};`, `  add.u64 %G${j}, %G${el.of}, ${el.offset};`);
  }
  // dispatch to the test thread by (test cluster, rank, role)
  test.threads.forEach((_, t) => {
    const a = pl.at[t]!;
    L.push(
      `  setp.eq.u32 %p, %k, ${a.cluster};`,
      `  @!%p bra NOT${t};`,
      `  setp.eq.u32 %p, %rank, ${a.rank};`,
      `  @!%p bra NOT${t};`,
      `  setp.eq.u32 %p, %role, ${a.warp};`,
      `  @%p bra TH${t};`,
      `NOT${t}:`,
    );
  });
  L.push('  ret;');
  const textLines = plan.text.split('\n');
  const asyncTest = test.threads.some((th) => th.code.some((i) => i.kind === 'async'));
  test.threads.forEach((th, t) => {
    const reg = regOf(t);
    L.push(`TH${t}:`);
    // shared locations: the owner CTA's first thread writes the initial value; the cluster's test threads meet (barrier.cluster, 8.9.4 item 3) before their code
    const owned = sharedLocs.filter((j) => plan.shared[j]!.owner === t);
    // an mbarrier: one expected arrival, made at once with the expected tx bytes (9.7.15.16); then the init is made visible to the cluster
    for (const j of owned.filter((x) => plan.mbarriers?.[x] !== undefined))
      L.push(
        `  mbarrier.init.shared::cta.b64 [%S${j}], 1;`,
        `  mbarrier.arrive.expect_tx.shared::cta.b64 %XD, [%S${j}], ${plan.mbarriers![j]};`,
        '  fence.mbarrier_init.release.cluster;',
      );
    for (const j of owned.filter((x) => plan.mbarriers?.[x] === undefined))
      L.push(
        `  st.shared::cta.u32 [%S${j}], ${plan.init[j]};`,
        // the rest of the copy zeroed (not for an array's element: it lies inside its array's copy, zeroed with it first)
        ...((plan.locBits[j] === 64 || sb >= 16) && !plan.elements?.[j] ? [`  st.shared::cta.u32 [%S${j}+4], 0;`] : []),
        ...(sb >= 16 && !plan.elements?.[j] ? [`  st.shared::cta.v2.u32 [%S${j}+8], {0, 0};`] : []),
        // an array of more than four elements: its further chunks zeroed
        ...(sb > 16 && sb < 128 && !plan.elements?.[j]
          ? Array.from({ length: sb / 16 - 1 }, (_, c) => `  st.shared::cta.v4.u32 [%S${j}+${16 * (c + 1)}], {0, 0, 0, 0};`)
          : []),
      );
    // the initial values precede every access of the test, in every proxy (8.2.6): where the test has
    // asynchronous operations, the owner's generic stores are ordered before them by a proxy fence
    // (8.6) ahead of the barrier
    if (asyncTest && owned.some((j) => plan.mbarriers?.[j] === undefined)) L.push('  fence.proxy.async.shared::cta;');
    if (sharedLocs.length) L.push('  barrier.cluster.arrive;', '  barrier.cluster.wait;');
    // the maps lt_count restored (generic writes before the launch) are acquired for the tensormap proxy, which kernel start does
    // not do (8.9.4: it "must therefore be acquired explicitly using fence.proxy.tensormap::generic.acquire"); before the test's
    // own code, so it orders none of the test's writes of a map
    for (const m of plan.tensorMaps ?? [])
      if (th.code.some((i) => i.kind === 'async' && i.accesses.some((a) => a.loc === locs[m.loc])))
        L.push(`  fence.proxy.tensormap::generic.acquire.gpu [%TM${m.loc}], 128;`);
    if (stress.preload) L.push(...preloads(th.code, locs, (l) => test.locations[l]?.space === 'global'));
    if (stress.align) {
      // the instance's barrier word (location index L, reset by lt_count): arrive, then poll (at most 4096 times) until every test thread has
      L.push(
        `  mad.lo.u32 %u, %ni, ${locs.length}, %inst;`,
        '  mul.lo.u32 %u, %u, %stride;',
        `  mul.wide.u32 %a, %u, ${sb};`,
        '  add.u64 %a, %mem, %a;',
        '  atom.relaxed.gpu.global.add.u32 %u, [%a], 1;',
        '  mov.u32 %v, 0;',
        `ALIGN${t}:`,
        '  ld.relaxed.gpu.global.u32 %u, [%a];',
        `  setp.ge.u32 %p, %u, ${test.threads.length};`,
        `  @%p bra ALIGNED${t};`,
        '  add.u32 %v, %v, 1;',
        '  setp.lt.u32 %p, %v, 4096;',
        `  @%p bra ALIGN${t};`,
        `ALIGNED${t}:`,
      );
    }
    for (const r of regsOf(t)) L.push(`  mov.b${bitsOfReg(t, r)} ${reg(r)}, ${String(BigInt.asUintN(bitsOfReg(t, r), test.regInit[t]?.[r] ?? 0n))};`);
    // a backward branch (a loop) counts itself first; at LOOP_BOUND the thread gives up on the instance
    const backward = (i: number) => {
      const ins = th.code[i]!;
      return ins.kind === 'branch' && th.code.findIndex((x) => x.kind === 'label' && x.name === ins.target) <= i;
    };
    const loopy = th.code.some((_, i) => backward(i));
    if (loopy) L.push('  mov.u32 %LP, 0;');
    // a barrier (8.9.4): the warp group's own hardware barrier for its id, counting one warp per test thread of its
    // group; barrier.sync/arrive, not bar.sync (= barrier.sync.aligned), as an instance's lanes may diverge in branches
    const nb = pl.barrierIds ?? 0;
    const barrier = (i: number, arrive: boolean) => {
      const b = plan.barriers![`${t}:${i}`]!;
      return [`  mad.lo.u32 %u, %wg, ${nb}, ${b.id};`, `  barrier.${arrive ? 'arrive' : 'sync'} %u, ${32 * b.threads};`];
    };
    let code = th.code.map((ins, i) => [
      ...(backward(i) ? ['  add.u32 %LP, %LP, 1;', `  setp.ge.u32 %p, %LP, ${LOOP_BOUND};`, `  @%p bra GIVEUP${t}_${i};`] : []),
      ...(ins.kind === 'barrier' ? barrier(i, !!ins.arrive) : emit(ins, t, textLines, locs, reg, plan, vectorFrom(th.code, i))),
    ]);
    if (plant === 'hoist' && t === 0) code = code.reverse().flatMap((c, i) => (i === 0 ? [c] : [['  nanosleep.u32 2000;', ...c]]));
    if (plant === 'drop-wait' && t === 0) code = code.map((c, i) => (th.code[i]!.kind === 'bulkWait' ? [] : c));
    for (const c of code) L.push(...c);
    // giving up in the loop at i: the instance's give-up word, then each later barrier as the code has it (sync or arrive: the
    // lanes of a warp that gave up and those that did not meet each barrier with the same instruction, and no thread of its group waits forever)
    if (loopy) {
      L.push(`  bra DONE${t};`);
      th.code.forEach((_, i) => {
        if (!backward(i)) return;
        L.push(`GIVEUP${t}_${i}:`, '  st.global.u32 [%AH], 1;');
        th.code.forEach((b, k) => k > i && b.kind === 'barrier' && L.push(...barrier(k, !!b.arrive)));
        L.push(`  bra DONE${t};`);
      });
      L.push(`DONE${t}:`);
    }
    // a thread that issued bulk operations waits for them before it stores and exits (its CTA's shared source stays valid; the final values are complete)
    if (th.code.some((i) => i.kind === 'async')) L.push('  cp.async.bulk.wait_group 0;');
    // the owner of an mbarrier waits for its phase to complete (every complete-tx done) before the cluster's last barrier: no CTA exits under an asynchronous operation
    // (bounded: a phase that never completes ends the wait after 2^20 polls instead of hanging the kernel)
    for (const j of owned.filter((x) => plan.mbarriers?.[x] !== undefined))
      L.push(
        '  mov.u32 %v, 0;',
        `MBW${t}_${j}:`,
        `  mbarrier.try_wait.parity.shared::cta.b64 %p, [%S${j}], 0;`,
        `  @%p bra MBD${t}_${j};`,
        '  add.u32 %v, %v, 1;',
        '  setp.lt.u32 %p, %v, 1048576;',
        `  @%p bra MBW${t}_${j};`,
        `MBD${t}_${j}:`,
      );
    // store the condition's registers
    const RW = regWords(plan);
    let w = 0;
    plan.regKeys.forEach((r, k) => {
      const wide = (plan.keyBits?.[k] ?? 32) === 64;
      w += wide ? 2 : 1;
      if (r.thread !== t) return;
      L.push(`  mad.lo.u32 %u, %inst, ${RW}, ${w - (wide ? 2 : 1)};`, '  mul.wide.u32 %a, %u, 4;', '  add.u64 %a, %regs, %a;');
      if (wide) L.push(`  mov.b64 {%W0, %W1}, ${reg(r.reg)};`, '  st.global.u32 [%a], %W0;', '  st.global.u32 [%a+4], %W1;');
      else L.push(`  st.global.u32 [%a], ${reg(r.reg)};`);
    });
    // shared locations: after every test thread of the cluster is done, the owner's first thread copies the final value to the location's copy in mem (lt_count reads it there)
    if (sharedLocs.length) L.push('  barrier.cluster.arrive;', '  barrier.cluster.wait;');
    for (const j of owned)
      L.push(
        `  ld.shared::cta.u32 %X, [%S${j}];`,
        `  st.global.u32 [%A${j}], %X;`,
        ...(plan.locBits[j] === 64 ? [`  ld.shared::cta.u32 %X, [%S${j}+4];`, `  st.global.u32 [%A${j}+4], %X;`] : []),
      );
    L.push('  ret;');
  });
  // stress warps of a test with shared locations take part in the cluster's first barrier (so it does not wait for them to exit), then stress
  if (sharedLocs.length) L.push('SBAR:', '  barrier.cluster.arrive;', '  barrier.cluster.wait;', '  bra STRESS;');
  // stress: warps past the test's hammer scratch lines
  if (stress.target === 'test') {
    // the words between instances' copies (offset 1 of location j of a pseudo-random instance r, r
    // stepping by 977 each iteration); at stride 1 there are none, and the stress does nothing
    L.push(
      'STRESS:',
      '  setp.lt.u32 %p, %stride, 2;',
      '  @%p ret;',
      '  mov.u32 %u, %ctaid.x;',
      '  mul.lo.u32 %u, %u, 8191;',
      '  mad.lo.u32 %u, %warp, 131, %u;',
      '  mad.lo.u32 %u, %lane, 33, %u;',
      '  rem.u32 %slot, %u, %ni;',
      '  mov.u32 %v, 0;',
      'SLOOP:',
      `  setp.ge.u32 %p, %v, ${stress.iters};`,
      '  @%p bra SDONE;',
      `  rem.u32 %k, %v, ${Math.max(1, locs.length)};`,
      '  mad.lo.u32 %u, %k, %ni, %slot;',
      '  mad.lo.u32 %u, %u, %stride, 1;',
      `  mul.wide.u32 %a, %u, ${sb};`,
      '  add.u64 %a, %mem, %a;',
      '  st.relaxed.gpu.global.u32 [%a], %v;',
      '  ld.relaxed.gpu.global.u32 %u, [%a];',
      '  add.u32 %slot, %slot, 977;',
      '  rem.u32 %slot, %slot, %ni;',
      '  add.u32 %v, %v, 1;',
      '  bra SLOOP;',
      'SDONE:',
      '  ret;',
      '}',
      '',
    );
  } else
    L.push(
      'STRESS:',
      `  mov.u32 %u, %ctaid.x;`,
      '  add.u32 %u, %u, %warp;',
      `  rem.u32 %u, %u, ${stress.lines};`,
      '  mul.wide.u32 %a, %u, 128;',
      '  add.u64 %a, %sc, %a;',
      '  mul.wide.u32 %o, %lane, 4;',
      '  add.u64 %a, %a, %o;',
      '  mov.u32 %v, 0;',
      'SLOOP:',
      `  setp.ge.u32 %p, %v, ${stress.iters};`,
      '  @%p bra SDONE;',
      '  st.relaxed.gpu.global.u32 [%a], %v;',
      '  ld.relaxed.gpu.global.u32 %u, [%a];',
      '  add.u32 %v, %v, 1;',
      '  bra SLOOP;',
      'SDONE:',
      '  ret;',
      '}',
      '',
    );
  L.push(...countKernel(plan, stress));
  return L.join('\n');
}

/**
 * The preload (StressOptions.preload) of a thread: a weak, L1-cacheable load of every location (of
 * those `keep` accepts) the thread reads with a plain load after its first read, summed into %SINK, which is stored to
 * the scratch buffer only if it equals a value it cannot reach in practice (so ptxas keeps the loads).
 */
export function preloads(code: readonly Instr[], locs: readonly string[], keep: (loc: string) => boolean): string[] {
  // locations in the order the thread first reads them (a read-modify-write reads too); the first is
  // not preloaded (it is the one whose fresh value the test waits on), a location only an atom reads
  // is not either (atomics are performed at L2, not in L1)
  const read: string[] = [];
  for (const ins of code) if ((ins.kind === 'read' || ins.kind === 'rmw') && !read.includes(ins.loc)) read.push(ins.loc);
  const plain = new Set(code.flatMap((ins) => (ins.kind === 'read' ? [ins.loc] : [])));
  const out: string[] = [];
  for (const loc of read.slice(1)) {
    if (!keep(loc) || !plain.has(loc)) continue;
    out.push(`  ld.global.ca.u32 %u, [%A${locs.indexOf(loc)}];`, '  add.u32 %SINK, %SINK, %u;');
  }
  if (out.length) out.unshift('  mov.u32 %SINK, 0;');
  if (out.length) out.push('  setp.eq.u32 %p, %SINK, 0x7fffff5a;', '  @%p st.global.u32 [%sc], %SINK;');
  return out;
}

/** A vector operation's elements (8.2.4), from its first at `i` (the lowering gives them one after another); empty elsewhere. */
function vectorFrom(code: readonly Instr[], i: number): Extract<Instr, { kind: 'rmw' }>[] {
  const first = code[i];
  if (first?.kind !== 'rmw' || first.vector?.element !== 0) return [];
  const out = [first];
  for (let k = i + 1; k < code.length; k++) {
    const x = code[k]!;
    if (x.kind !== 'rmw' || x.vector?.group !== first.vector.group || x.vector.element !== out.length) break;
    out.push(x);
  }
  return out;
}

/**
 * The PTX of one instruction of thread t. A vector operation (`vector`: its elements, at its first) is
 * emitted once, as written, at its first element, with `{...}` operands; its other elements emit nothing.
 */
function emit(
  ins: Instr,
  t: number,
  lines: readonly string[],
  locs: readonly string[],
  reg: (r: string) => string,
  plan?: TestPlan,
  vector: readonly Extract<Instr, { kind: 'rmw' }>[] = [],
): string[] {
  const out: string[] = [];
  // the address of a location as the access names it: global copy, or for shared memory the .shared::cta, .shared::cluster or generic address
  const A = (loc: string, space?: string) => {
    const j = locs.indexOf(loc);
    if (!plan?.shared?.[j]) return `[%A${j}]`;
    return space === 'shared::cta' ? `[%S${j}]` : space === 'shared::cluster' ? `[%C${j}]` : `[%G${j}]`;
  };
  const src = sourceOf(lines, ins, t) ?? '';
  const op = src.split(/\s+/)[0] ?? '';
  const bits = 'loc' in ins ? (plan?.locBits?.[locs.indexOf(ins.loc)] ?? 32) : ins.kind === 'local' && reg(ins.dst).startsWith('%RD_') ? 64 : 32;
  const ty = TYPE_RE.exec(op)?.[0].slice(1) ?? `b${bits}`;
  let tmp = 0;
  const operandAt = (e: Expr, w: number): string => {
    if (e.k === 'reg') return reg(e.r);
    if (e.k === 'const') {
      const r = w === 64 ? `%TD${tmp++}` : `%T${tmp++}`;
      out.push(`  mov.b${w} ${r}, ${BigInt.asUintN(w, e.v)};`);
      return r;
    }
    // register arithmetic, into a temporary
    const a = operandAt(e.a, w);
    const b = operandAt(e.b, w);
    const r = w === 64 ? `%TD${tmp++}` : `%T${tmp++}`;
    const ops: Record<string, string> = { '+': 'add.u', '-': 'sub.u', '*': 'mul.lo.u', '&': 'and.b', '|': 'or.b', '^': 'xor.b' };
    if (!ops[e.op]) throw new Error(`'${e.op}' is not register arithmetic the kernel computes`);
    out.push(`  ${ops[e.op]}${w} ${r}, ${a}, ${b};`);
    return r;
  };
  const operand = (e: Expr): string => operandAt(e, bits);
  const q = (i: { sem: string; scope: string; volatile?: boolean }) => (i.volatile ? '.volatile' : i.sem === 'weak' ? '.weak' : `.${i.sem}.${i.scope}`);
  const sp = (i: { space?: string }) => (i.space === 'global' ? '.global' : i.space === 'shared::cta' || i.space === 'shared::cluster' ? `.${i.space}` : '');
  // a tensor map's location: its address (%TM), and the address of a location's tensor (the copies of every instance)
  const tmOf = (loc: string) => `%TM${locs.indexOf(loc)}`;
  const tensorOf = (loc: string) => [
    '  mul.lo.u32 %u, %ni, %stride;',
    `  mul.wide.u32 %TMD, %u, ${locs.indexOf(loc) * (plan?.slotBytes ?? 4)};`,
    '  add.u64 %TMD, %mem, %TMD;',
  ];
  const map = plan?.tensorMaps?.find((m) => 'loc' in ins && locs[m.loc] === ins.loc);
  if (ins.kind === 'write' && map && ins.value.k === 'const') {
    // tensormap.replace of the map's global address: the tensor of the location it now points at
    out.push(...tensorOf(locs[map.targets[Number(ins.value.v)]!]!), `  ${op} [${tmOf(ins.loc)}], %TMD;`);
  } else if (ins.kind === 'proxyFence' && ins.covers) out.push(`  ${op} [${tmOf(ins.covers)}], 128;`);
  else if (ins.kind === 'async' && ins.accesses[0]?.proxy === 'tensormap') {
    // a bulk tensor operation: it reads its tensor map first (in the tensormap proxy), then its source
    const tm = ins.accesses[0]!.loc;
    const src = ins.accesses[1]!;
    const dst = ins.accesses[2]!;
    // the coordinates: the first element of this instance's copy (0 in every dimension but the last)
    const rank = plan?.tensorMaps?.find((m) => locs[m.loc] === tm)?.rank ?? 1;
    const crd = rank === 1 ? '{%CRD}' : `{${[...Array<string>(rank - 1).fill('0'), '%CRN'].join(', ')}}`;
    // into shared memory (a tensor load, mbarrier completion), or from it (a store or reduction into the mapped tensor)
    const offsets = /\.im2col\./.test(`${op}.`)
      ? `, {${Array<string>(rank - 2)
          .fill('%IMO')
          .join(', ')}}`
      : '';
    if (!dst.via && ins.completion.kind === 'mbarrier')
      out.push(`  ${op} ${A(dst.loc, 'shared::cluster')}, [${tmOf(tm)}, ${crd}], ${A(ins.completion.mbar, 'shared::cluster')}${offsets};`);
    else out.push(`  ${op} [${tmOf(tm)}, ${crd}], ${A(src.loc, src.space)};`);
  } else if (ins.kind === 'read') out.push(`  ld${q(ins)}${sp(ins)}.${ty} ${reg(ins.dst)}, ${A(ins.loc, ins.space)};`);
  else if (ins.kind === 'write') {
    const v = operand(ins.value);
    out.push(`  st${q(ins)}${sp(ins)}.${ty} ${A(ins.loc, ins.space)}, ${v};`);
  } else if (ins.kind === 'rmw' && ins.vector) {
    // a vector atom or red: at its first element, the instruction as written, each operand a vector of the elements'
    if (ins.vector.element !== 0) return out;
    const args = `{${vector.map((e) => operand(e.args[0]!)).join(', ')}}`;
    if (op.startsWith('red.')) out.push(`  ${op} ${A(ins.loc, ins.space)}, ${args};`);
    else out.push(`  ${op} {${vector.map((e) => (e.dst ? reg(e.dst) : '%SINK')).join(', ')}}, ${A(ins.loc, ins.space)}, ${args};`);
  } else if (ins.kind === 'rmw') {
    const args = ins.args.map(operand);
    const top = typedRmw(op) ?? op;
    if (op.startsWith('red.')) out.push(`  ${top} ${A(ins.loc, ins.space)}, ${args.join(', ')};`);
    else out.push(`  ${top} ${ins.dst ? reg(ins.dst) : bits === 64 ? '%XD' : '%SINK'}, ${A(ins.loc, ins.space)}, ${args.join(', ')};`);
  } else if (ins.kind === 'local') out.push(`  mov.b${bits} ${reg(ins.dst)}, ${operand(ins.value)};`);
  else if (ins.kind === 'fence' || ins.kind === 'proxyFence' || ins.kind === 'bulkCommit' || ins.kind === 'bulkWait') out.push(`  ${src};`);
  else if (ins.kind === 'async') {
    // a bulk copy or reduction: one 16-byte slot of each location (the test's element first, the rest zero; a bulk operation moves a multiple of 16 bytes)
    const wr = ins.accesses.find((a) => a.kind !== 'read')!;
    // the mbarrier as the destination's state space names it (a .shared::cta destination: the executing CTA's own)
    const mb = ins.completion.kind === 'mbarrier' ? `, ${A(ins.completion.mbar, wr.space === 'shared::cta' ? 'shared::cta' : 'shared::cluster')}` : '';
    // from a source location (a bulk copy or reduction), or of a value (an asynchronous red)
    const rd = ins.accesses.find((a) => a.kind === 'read');
    if (rd) out.push(`  ${op} ${A(wr.loc, wr.space)}, ${A(rd.loc, rd.space)}, ${bulkBytes(ins)}${mb};`);
    else if (wr.kind === 'rmw') out.push(`  ${op} ${A(wr.loc, wr.space)}, ${operand(wr.args[0]!)}${mb};`);
  } else if (ins.kind === 'mbarrier' && ins.op === 'try_wait') {
    // the phase the test waits for is the mbarrier's first (parity 0); the result as 0 or 1
    out.push(
      `  ${op.replace('mbarrier.try_wait', 'mbarrier.try_wait.parity')} %p, ${A(ins.mbar, 'shared::cta')}, 0;`,
      `  selp.u32 ${reg(ins.dst!)}, 1, 0, %p;`,
    );
  } else if (ins.kind === 'label') out.push(`LB${t}_${ins.name.replace(/[^A-Za-z0-9_]/g, '_')}:`);
  else if (ins.kind === 'branch') {
    const target = `LB${t}_${ins.target.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const c = ins.cond;
    if (!c) out.push(`  bra ${target};`);
    else if (c.k === 'bin' && (c.op === '==' || c.op === '!=')) {
      // compared at the width of its registers (a 64-bit one: .u64)
      const b = [...regsIn(c.a), ...regsIn(c.b)].some((r) => reg(r).startsWith('%RD_')) ? 64 : 32;
      const cmp = (e: Expr): string => (e.k === 'const' ? String(BigInt.asUintN(b, e.v)) : operandAt(e, b));
      const a = cmp(c.a);
      out.push(`  setp.${c.op === '==' ? 'eq' : 'ne'}.u${b} %p, ${a}, ${cmp(c.b)};`, `  @%p bra ${target};`);
    } else throw new Error(`a branch on '${c.k === 'bin' ? c.op : c.k}' is not run`);
  } else throw new Error(`${ins.kind} is not run in this slice`);
  return out;
}
