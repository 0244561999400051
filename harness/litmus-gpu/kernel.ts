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
 * Only global memory, plain and atomic 32-bit accesses (ld, st, atom, red) and fences run; any other
 * test is skipped with the reason ({@link planTest}).
 */
import type { Cond, Expr, Instr, LitmusTest, Term } from '../memory-model/events.js';

/** Other-outcome samples kept per run (device buffer rows). */
export const SAMPLES = 64;

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
}
export const DEFAULT_STRESS: StressOptions = { warps: 2, iters: 64, lines: 64 };

/** Where each test thread runs, and the launch that holds NG groups. */
export interface Placement {
  /** Test clusters (KC), the CTAs of the largest (CS), the test threads of the largest test CTA (TW). */
  readonly clusters: number;
  readonly clusterSize: number;
  readonly threadsPerCta: number;
  /** Per test thread: its test cluster, CTA rank in that cluster, warp index in its CTA. */
  readonly at: readonly { cluster: number; rank: number; warp: number }[];
}

export interface TestPlan {
  readonly test: LitmusTest;
  readonly placement: Placement;
  /** Location names in the order of `mem` (j). */
  readonly locs: readonly string[];
  /** The condition's keys (`P1:r0`, `x`) in key order: registers first, then locations. */
  readonly keys: readonly string[];
  readonly regKeys: readonly { thread: number; reg: string }[];
  readonly memKeys: readonly string[];
  readonly init: readonly number[];
  /** The test's source text (instructions are emitted from their own column). */
  readonly text: string;
}

export type Plan = { ok: true; plan: TestPlan } | { ok: false; reason: string };

const TYPE_RE = /\.(b|u|s|f)(8|16|32|64|128)$/;

function terms(c: Cond, acc: Term[] = []): Term[] {
  if (c.k === 'cmp') acc.push(c.a, c.b);
  else if (c.k === 'and' || c.k === 'or') (terms(c.a, acc), terms(c.b, acc));
  else if (c.k === 'not') terms(c.a, acc);
  return acc;
}

/** The source text of a thread's instruction (its column of its row). */
function sourceOf(lines: readonly string[], ins: { line?: number }, thread: number): string | undefined {
  if (ins.line === undefined) return undefined;
  const col = lines[ins.line - 1]?.split('|')[thread];
  return col?.replace(/;\s*$/, '').trim();
}

/**
 * An untyped `atom`/`red` (Dat3M's peer tests write `atom.relaxed.gpu.add`) with the 32-bit type its
 * operation takes: `.u32` for add/inc/dec/min/max, `.b32` for exch/cas/and/or/xor; undefined for others.
 */
export function typedRmw(op: string): string | undefined {
  if (TYPE_RE.test(op)) return op;
  const last = op.split('.').pop() ?? '';
  if (['add', 'inc', 'dec', 'min', 'max'].includes(last)) return `${op}.u32`;
  if (['exch', 'cas', 'and', 'or', 'xor'].includes(last)) return `${op}.b32`;
  return undefined;
}

/** Whether the test runs in this slice, and its placement; else why not. */
export function planTest(test: LitmusTest, text: string): Plan {
  const no = (reason: string): Plan => ({ ok: false, reason });
  if (test.threads.length > 8) return no(`${test.threads.length} threads (at most 8 run)`);
  for (const l of Object.values(test.locations)) {
    if (l.space !== 'global') return no(`location ${l.name} is in ${l.space} memory (only global memory runs in this slice)`);
    if (l.aliasOf || (l.proxy && l.proxy !== 'generic')) return no(`location ${l.name} is an alias or uses the ${l.proxy} proxy (not run in this slice)`);
    if (l.init < 0n || l.init > 0xffffffffn) return no(`location ${l.name} starts at ${l.init}, not a 32-bit value`);
  }
  const lines = text.split('\n');
  for (const th of test.threads) {
    if (th.gpu !== 0) return no(`P${th.id} runs on gpu ${th.gpu} (one GPU only)`);
    for (const ins of th.code) {
      if (ins.kind === 'read' || ins.kind === 'write' || ins.kind === 'rmw') {
        if (ins.proxy !== 'generic') return no(`P${th.id} line ${ins.line}: a ${ins.proxy}-proxy access (not run in this slice)`);
        if (ins.space && ins.space !== 'global' && ins.space !== 'generic') return no(`P${th.id} line ${ins.line}: .${ins.space} (only global memory runs in this slice)`);
        const src = sourceOf(lines, ins, th.id);
        const op = src?.split(/\s+/)[0] ?? '';
        const ty = TYPE_RE.exec(op);
        if (ty && ty[2] !== '32') return no(`P${th.id} line ${ins.line}: ${op} is not a 32-bit access (only 32-bit values run in this slice)`);
        if (ins.kind === 'rmw' && !/^(atom|red)\./.test(op)) return no(`P${th.id} line ${ins.line}: '${op}' (only atom and red run as read-modify-writes)`);
        if (/^red\./.test(op) && /\.(acq_rel|acquire)(\.|$)/.test(op)) return no(`P${th.id} line ${ins.line}: '${op}' is not PTX (red takes .relaxed or .release only: 9.7.13.6 red, Syntax, ".sem = { .relaxed, .release }")`);
        if (ins.kind === 'rmw' && !ty && !typedRmw(op)) return no(`P${th.id} line ${ins.line}: '${op}' has no type and no 32-bit type follows from its operation`);
        const exprs: Expr[] = ins.kind === 'write' ? [ins.value] : ins.kind === 'rmw' ? ins.args : [];
        for (const e of exprs) if (e.k === 'bin') return no(`P${th.id} line ${ins.line}: a computed operand (register arithmetic is not run in this slice)`);
      } else if (ins.kind === 'fence') {
        const op = sourceOf(lines, ins, th.id)?.split(/\s+/)[0] ?? '';
        if (!/^(fence\.(sc|acq_rel|acquire|release)\.(cta|cluster|gpu|sys)|membar\.(cta|gl|sys))$/.test(op)) return no(`P${th.id} line ${ins.line}: fence '${op}' not run in this slice`);
      } else {
        return no(`P${th.id}${'line' in ins && ins.line ? ` line ${ins.line}` : ''}: a ${ins.kind} instruction (bulk, mbarrier, proxy fences, barriers, branches and register arithmetic are not run in this slice)`);
      }
    }
  }
  // placement: test clusters, CTA ranks, warps
  const clusterOf = (t: (typeof test.threads)[number]) => (t.cluster !== undefined ? `k${t.cluster}` : `c${t.cta}`);
  const clusters = [...new Set(test.threads.map(clusterOf))];
  const ctasOf = new Map<string, number[]>();
  for (const t of test.threads) {
    const k = clusterOf(t);
    const l = ctasOf.get(k) ?? [];
    if (!l.includes(t.cta)) l.push(t.cta);
    ctasOf.set(k, l);
  }
  const warpCount = new Map<string, number>();
  const at = test.threads.map((t) => {
    const k = clusterOf(t);
    const rank = ctasOf.get(k)!.indexOf(t.cta);
    const key = `${k}/${t.cta}`;
    const warp = warpCount.get(key) ?? 0;
    warpCount.set(key, warp + 1);
    return { cluster: clusters.indexOf(k), rank, warp };
  });
  const clusterSize = Math.max(...[...ctasOf.values()].map((l) => l.length));
  if (clusterSize > 8) return no(`a cluster of ${clusterSize} CTAs (at most 8)`);
  const threadsPerCta = Math.max(...warpCount.values());
  // keys
  const ts = terms(test.cond).filter((t) => t.k !== 'const');
  const regKeys: { thread: number; reg: string }[] = [];
  const memKeys: string[] = [];
  for (const t of ts) {
    if (t.k === 'reg' && !regKeys.some((r) => r.thread === t.thread && r.reg === t.reg)) regKeys.push({ thread: t.thread, reg: t.reg });
    if (t.k === 'mem' && !memKeys.includes(t.loc)) memKeys.push(t.loc);
  }
  for (const r of regKeys) if (!test.threads[r.thread]) return no(`the condition names P${r.thread}, which is not a thread`);
  for (const m of memKeys) if (!test.locations[m]) return no(`the condition names ${m}, not a location of the test`);
  const locs = Object.keys(test.locations);
  return {
    ok: true,
    plan: { test, placement: { clusters: clusters.length, clusterSize, threadsPerCta, at }, locs, keys: [...regKeys.map((r) => `P${r.thread}:${r.reg}`), ...memKeys], regKeys, memKeys, init: locs.map((l) => Number(test.locations[l]!.init)), text },
  };
}

/** How many groups (NG) and warp groups per CTA (WG) fill the GPU once: NI = NG * WG * 32 instances per launch. */
export function launchGeometry(p: Placement, smCount: number, stress: StressOptions, instances?: number): { groups: number; warpGroups: number; instances: number; block: number; grid: number } {
  const warpGroups = Math.max(1, Math.floor(Math.min(16, 24 - stress.warps) / p.threadsPerCta));
  const block = (warpGroups * p.threadsPerCta + stress.warps) * 32;
  // about 2 CTAs of block threads per SM, all resident at once
  const ctasPerSm = Math.max(1, Math.floor(2048 / block) >= 2 ? 2 : 1);
  let groups = Math.max(1, Math.floor((smCount * ctasPerSm) / (p.clusters * p.clusterSize)));
  if (instances !== undefined) groups = Math.max(1, Math.min(groups, Math.ceil(instances / (warpGroups * 32))));
  return { groups, warpGroups, instances: groups * warpGroups * 32, block, grid: groups * p.clusters * p.clusterSize };
}

/** A planted fault for the self-test: thread 0's instructions in reverse order with a pause between (MP's flag store hoisted above its data store). */
export type Plant = 'none' | 'hoist';

/** The module (`lt_test`, `lt_count`) of a planned test. */
export function litmusModule(plan: TestPlan, arch: string, ptx: string, stress: StressOptions, warpGroups: number, plant: Plant = 'none'): string {
  const { test, placement: pl, locs } = plan;
  const regsOf = (th: number) => {
    const s = new Set<string>();
    for (const ins of test.threads[th]!.code) {
      if ('dst' in ins && ins.dst) s.add(ins.dst);
      const exprs: Expr[] = ins.kind === 'write' ? [ins.value] : ins.kind === 'rmw' ? ins.args : [];
      for (const e of exprs) if (e.k === 'reg') s.add(e.r);
    }
    for (const r of plan.regKeys) if (r.thread === th) s.add(r.reg);
    for (const r of Object.keys(test.regInit[th] ?? {})) s.add(r);
    return [...s];
  };
  const reg = (r: string) => `%R_${r.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const L: string[] = [`.version ${ptx}`, `.target ${arch}`, '.address_size 64', ''];
  // ---- lt_test(mem, regs, perm, iter, ni, stride, scratch)
  L.push('.visible .entry lt_test(.param .u64 pmem, .param .u64 pregs, .param .u64 pperm, .param .u32 piter, .param .u32 pni, .param .u32 pstride, .param .u64 pscratch)', '{');
  L.push('  .reg .b64 %mem, %regs, %perm, %a, %o, %sc;', '  .reg .b32 %iter, %ni, %stride, %th, %warp, %lane, %cta, %cl, %rank, %wg, %role, %g, %slot, %inst, %u, %v, %k;', '  .reg .pred %p;');
  const allRegs = new Set<string>();
  test.threads.forEach((_, t) => regsOf(t).forEach((r) => allRegs.add(r)));
  if (allRegs.size) L.push(`  .reg .b32 ${[...allRegs].map(reg).join(', ')};`);
  L.push('  .reg .b32 %T<8>, %SINK;', `  .reg .b64 ${locs.map((_, j) => `%A${j}`).join(', ')};`);
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
    '  @%p bra STRESS;',
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
  locs.forEach((_, j) => L.push(`  mad.lo.u32 %u, %ni, ${j}, %inst;`, '  mul.lo.u32 %u, %u, %stride;', '  mul.wide.u32 %a, %u, 4;', `  add.u64 %A${j}, %mem, %a;`));
  // dispatch to the test thread by (test cluster, rank, role)
  test.threads.forEach((_, t) => {
    const a = pl.at[t]!;
    L.push(`  setp.eq.u32 %p, %k, ${a.cluster};`, `  @!%p bra NOT${t};`, `  setp.eq.u32 %p, %rank, ${a.rank};`, `  @!%p bra NOT${t};`, `  setp.eq.u32 %p, %role, ${a.warp};`, `  @%p bra TH${t};`, `NOT${t}:`);
  });
  L.push('  ret;');
  const textLines = plan.text.split('\n');
  test.threads.forEach((th, t) => {
    L.push(`TH${t}:`);
    if (stress.align) {
      // the instance's barrier word (location index L, reset by lt_count): arrive, then poll (at most 4096 times) until every test thread has
      L.push(`  mad.lo.u32 %u, %ni, ${locs.length}, %inst;`, '  mul.lo.u32 %u, %u, %stride;', '  mul.wide.u32 %a, %u, 4;', '  add.u64 %a, %mem, %a;', '  atom.relaxed.gpu.global.add.u32 %u, [%a], 1;', '  mov.u32 %v, 0;', `ALIGN${t}:`, '  ld.relaxed.gpu.global.u32 %u, [%a];', `  setp.ge.u32 %p, %u, ${test.threads.length};`, `  @%p bra ALIGNED${t};`, '  add.u32 %v, %v, 1;', '  setp.lt.u32 %p, %v, 4096;', `  @%p bra ALIGN${t};`, `ALIGNED${t}:`);
    }
    for (const r of regsOf(t)) L.push(`  mov.b32 ${reg(r)}, ${String(test.regInit[t]?.[r] ?? 0n)};`);
    let code = th.code.map((ins) => emit(ins, t, textLines, locs, reg));
    if (plant === 'hoist' && t === 0) code = code.reverse().flatMap((c, i) => (i === 0 ? [c] : [['  nanosleep.u32 2000;', ...c]]));
    for (const c of code) L.push(...c);
    // store the condition's registers
    plan.regKeys.forEach((r, k) => {
      if (r.thread !== t) return;
      L.push(`  mad.lo.u32 %u, %inst, ${plan.regKeys.length}, ${k};`, '  mul.wide.u32 %a, %u, 4;', '  add.u64 %a, %regs, %a;', `  st.global.u32 [%a], ${reg(r.reg)};`);
    });
    L.push('  ret;');
  });
  // stress: warps past the test's hammer scratch lines
  L.push('STRESS:', `  mov.u32 %u, %ctaid.x;`, '  add.u32 %u, %u, %warp;', `  rem.u32 %u, %u, ${stress.lines};`, '  mul.wide.u32 %a, %u, 128;', '  add.u64 %a, %sc, %a;', '  mul.wide.u32 %o, %lane, 4;', '  add.u64 %a, %a, %o;', '  mov.u32 %v, 0;', 'SLOOP:', `  setp.ge.u32 %p, %v, ${stress.iters};`, '  @%p bra SDONE;', '  st.relaxed.gpu.global.u32 [%a], %v;', '  ld.relaxed.gpu.global.u32 %u, [%a];', '  add.u32 %v, %v, 1;', '  bra SLOOP;', 'SDONE:', '  ret;', '}', '');
  // ---- lt_count(mem, regs, table, hist, init, ni, stride, k)
  const R = plan.regKeys.length;
  const V = plan.keys.length;
  L.push('.visible .entry lt_count(.param .u64 pmem, .param .u64 pregs, .param .u64 ptab, .param .u64 phist, .param .u64 pinit, .param .u32 pni, .param .u32 pstride, .param .u32 pk)', '{');
  L.push('  .reg .b64 %mem, %regs, %tab, %hist, %init, %a, %t;', `  .reg .b32 %ni, %stride, %K, %i, %u, %j, %w, %n, %V<${Math.max(V, 1)}>;`, '  .reg .pred %p, %q;');
  L.push('  ld.param.u64 %mem, [pmem];', '  ld.param.u64 %regs, [pregs];', '  ld.param.u64 %tab, [ptab];', '  ld.param.u64 %hist, [phist];', '  ld.param.u64 %init, [pinit];', '  ld.param.u32 %ni, [pni];', '  ld.param.u32 %stride, [pstride];', '  ld.param.u32 %K, [pk];');
  L.push('  mov.u32 %u, %ctaid.x;', '  mov.u32 %j, %ntid.x;', '  mov.u32 %i, %tid.x;', '  mad.lo.u32 %i, %u, %j, %i;', '  setp.ge.u32 %p, %i, %ni;', '  @%p ret;');
  for (let k = 0; k < R; k++) L.push(`  mad.lo.u32 %u, %i, ${R}, ${k};`, '  mul.wide.u32 %a, %u, 4;', '  add.u64 %a, %regs, %a;', `  ld.global.u32 %V${k}, [%a];`, '  st.global.u32 [%a], 0;');
  plan.memKeys.forEach((m, x) => {
    const j = locs.indexOf(m);
    L.push(`  mad.lo.u32 %u, %ni, ${j}, %i;`, '  mul.lo.u32 %u, %u, %stride;', '  mul.wide.u32 %a, %u, 4;', '  add.u64 %a, %mem, %a;', `  ld.global.u32 %V${R + x}, [%a];`);
  });
  // reset memory for the next iteration
  locs.forEach((_, j) => L.push(`  mad.lo.u32 %u, %ni, ${j}, %i;`, '  mul.lo.u32 %u, %u, %stride;', '  mul.wide.u32 %a, %u, 4;', '  add.u64 %a, %mem, %a;', `  ld.global.u32 %w, [%init+${j * 4}];`, '  st.global.u32 [%a], %w;'));
  if (stress.align) L.push(`  mad.lo.u32 %u, %ni, ${locs.length}, %i;`, '  mul.lo.u32 %u, %u, %stride;', '  mul.wide.u32 %a, %u, 4;', '  add.u64 %a, %mem, %a;', '  st.global.u32 [%a], 0;');
  // table search
  L.push('  mov.u32 %n, 0;', 'SEARCH:', '  setp.ge.u32 %p, %n, %K;', '  @%p bra OTHER;', `  mul.lo.u32 %u, %n, ${V * 4};`, '  cvt.u64.u32 %a, %u;', '  add.u64 %a, %tab, %a;', '  setp.eq.u32 %q, %n, %n;');
  for (let x = 0; x < V; x++) L.push(`  ld.global.u32 %w, [%a+${x * 4}];`, `  setp.eq.and.u32 %q, %w, %V${x}, %q;`);
  L.push('  @%q bra FOUND;', '  add.u32 %n, %n, 1;', '  bra SEARCH;', 'FOUND:', '  mul.wide.u32 %a, %n, 4;', '  add.u64 %a, %hist, %a;', '  red.global.add.u32 [%a], 1;', '  ret;');
  L.push('OTHER:', '  mul.wide.u32 %a, %K, 4;', '  add.u64 %a, %hist, %a;', '  atom.global.add.u32 %n, [%a], 1;', `  setp.ge.u32 %p, %n, ${SAMPLES};`, '  @%p ret;', `  mul.lo.u32 %u, %n, ${V * 4};`, '  cvt.u64.u32 %t, %u;', '  add.u64 %a, %a, 4;', '  add.u64 %a, %a, %t;');
  for (let x = 0; x < V; x++) L.push(`  st.global.u32 [%a+${x * 4}], %V${x};`);
  L.push('  ret;', '}', '');
  return L.join('\n');
}

function emit(ins: Instr, t: number, lines: readonly string[], locs: readonly string[], reg: (r: string) => string): string[] {
  const out: string[] = [];
  const A = (loc: string) => `[%A${locs.indexOf(loc)}]`;
  const src = sourceOf(lines, ins, t) ?? '';
  const op = src.split(/\s+/)[0] ?? '';
  const ty = TYPE_RE.exec(op)?.[0].slice(1) ?? 'b32';
  let tmp = 0;
  const operand = (e: Expr): string => {
    if (e.k === 'reg') return reg(e.r);
    if (e.k === 'const') {
      const r = `%T${tmp++}`;
      out.push(`  mov.b32 ${r}, ${BigInt.asUintN(32, e.v)};`);
      return r;
    }
    throw new Error('a computed operand');
  };
  const q = (i: { sem: string; scope: string; volatile?: boolean }) => (i.volatile ? '.volatile' : i.sem === 'weak' ? '.weak' : `.${i.sem}.${i.scope}`);
  const sp = (i: { space?: string }) => (i.space === 'global' ? '.global' : '');
  if (ins.kind === 'read') out.push(`  ld${q(ins)}${sp(ins)}.${ty} ${reg(ins.dst)}, ${A(ins.loc)};`);
  else if (ins.kind === 'write') {
    const v = operand(ins.value);
    out.push(`  st${q(ins)}${sp(ins)}.${ty} ${A(ins.loc)}, ${v};`);
  } else if (ins.kind === 'rmw') {
    const args = ins.args.map(operand);
    const top = typedRmw(op) ?? op;
    if (op.startsWith('red.')) out.push(`  ${top} ${A(ins.loc)}, ${args.join(', ')};`);
    else out.push(`  ${top} ${ins.dst ? reg(ins.dst) : '%SINK'}, ${A(ins.loc)}, ${args.join(', ')};`);
  } else if (ins.kind === 'fence') out.push(`  ${op};`);
  else throw new Error(`${ins.kind} is not run in this slice`);
  return out;
}
