/**
 * The contention kernel of a variant: participant i of group g (by the launch's layout) loads its
 * operands from `ops` (32 bytes per participant: b, then c), applies the catalog's instruction (the
 * family's `contend.instruction`) to group g's 16-byte slot, and stores its returned values to
 * `out` (16 bytes per participant). A slot in shared memory (spelled, or a generic address with mode
 * 1) is copied in by participant 0 before a barrier and back after one; shared layouts keep a group
 * inside one CTA. The self-test kernel does a plain load, add and store instead (f32 add only).
 *
 * Parameters (mem, ops, out, n, layout, mode): layout 0 warp (group = global thread / n, participant
 * = its remainder), 1 cta (group = CTA x 32 + lane, participant = warp), 2 grid (group = thread,
 * participant = CTA), 3 cluster (clusters of n CTAs: group = cluster x threads + thread, participant
 * = the CTA's rank; a .shared::cluster slot lives in rank 0's shared memory, reached by mapa,
 * staged around cluster barriers). 128-bit elements move as two 64-bit halves.
 */
import { BLOCK, SLOT } from '../backends/gpu/family.js';
import type { GpuVariant } from '../backends/gpu/plan.js';

export const CONTEND_PARAMS = '(.param .u64 pmem, .param .u64 pops, .param .u64 pout, .param .u32 pn, .param .u32 playout, .param .u32 pmode)';

export function contendKernelName(gv: Pick<GpuVariant, 'entry'>, selftest = false): string {
  let h = 0x811c9dc5;
  for (const ch of gv.entry.id) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `c${selftest ? 't' : ''}_${h.toString(16).padStart(8, '0')}`;
}

export function contendKernel(gv: GpuVariant, selftest = false): string {
  const e = gv.entry;
  const k = gv.shape;
  const hooks = gv.gpu.contend;
  if (!hooks) throw new Error(`${e.family} has no contention hooks`);
  const n = k.elements;
  const w = k.width;
  const bytes = w / 8;
  const T = `b${w}`;
  const shared = (e.q.space ?? '').startsWith('shared');
  const clusterSpace = e.q.space === 'shared::cluster' || e.q.dst === 'shared::cluster';
  const whole = clusterSpace ? hooks.cluster?.(e, k) : undefined;
  const L: string[] = [];
  L.push(`.visible .entry ${contendKernelName(gv, selftest)}${CONTEND_PARAMS}`, '{');
  L.push(`  .shared .align 16 .b8 smem[${BLOCK * SLOT}];`);
  L.push(
    '  .reg .b64 %mem, %ops, %out, %slot, %po, %x64, %pol, %lo, %hi;',
    '  .reg .b32 %t, %tx, %nt, %n, %lay, %mode, %g, %i, %u, %sa, %gl, %sc;',
    '  .reg .pred %p, %lead, %sh, %cl;',
  );
  L.push(`  .reg .${T} %d<${n}>, %bv<${n}>, %cv<${n}>;`, '  .reg .f32 %fa, %fb;', ...(whole?.decls ?? []));
  L.push(
    '  ld.param.u64 %mem, [pmem];',
    '  ld.param.u64 %ops, [pops];',
    '  ld.param.u64 %out, [pout];',
    '  ld.param.u32 %n, [pn];',
    '  ld.param.u32 %lay, [playout];',
    '  ld.param.u32 %mode, [pmode];',
    '  mov.u32 %t, %ctaid.x;',
    '  mov.u32 %tx, %tid.x;',
    '  mov.u32 %nt, %ntid.x;',
    // layout 0: warp
    '  mad.lo.u32 %u, %t, %nt, %tx;',
    '  div.u32 %g, %u, %n;',
    '  rem.u32 %i, %u, %n;',
    '  rem.u32 %gl, %tx, %n;', // (unused in layout 0)
    '  div.u32 %gl, %tx, %n;', // group within the CTA
    // layout 1: cta
    '  setp.eq.u32 %p, %lay, 1;',
    '  and.b32 %u, %tx, 31;',
    '  @%p mad.lo.u32 %g, %t, 32, %u;',
    '  @%p shr.u32 %i, %tx, 5;',
    '  @%p mov.u32 %gl, %u;',
    // layout 2: grid
    '  setp.eq.u32 %p, %lay, 2;',
    '  @%p mov.u32 %g, %tx;',
    '  @%p mov.u32 %i, %t;',
    '  @%p mov.u32 %gl, %tx;',
    // layout 3: cluster
    '  setp.eq.u32 %cl, %lay, 3;',
    '  @%cl mov.u32 %i, %cluster_ctarank;',
    '  @%cl mov.u32 %u, %clusterid.x;',
    '  @%cl mad.lo.u32 %g, %u, %nt, %tx;',
    '  @%cl mov.u32 %gl, %tx;',
    // operands
    '  mul.wide.u32 %po, %i, 32;',
    '  add.u64 %po, %ops, %po;',
  );
  for (let j = 0; j < n; j++) {
    if (w === 128)
      L.push(
        '  ld.global.v2.b64 {%lo, %hi}, [%po];',
        `  mov.b128 %bv${j}, {%lo, %hi};`,
        '  ld.global.v2.b64 {%lo, %hi}, [%po+16];',
        `  mov.b128 %cv${j}, {%lo, %hi};`,
      );
    else L.push(`  ld.global.${T} %bv${j}, [%po+${j * bytes}];`, `  ld.global.${T} %cv${j}, [%po+${16 + j * bytes}];`);
  }
  L.push(
    `  mul.wide.u32 %slot, %g, ${SLOT};`,
    '  add.u64 %slot, %mem, %slot;',
    '  mov.u32 %sa, smem;',
    `  mad.lo.u32 %sa, %gl, ${SLOT}, %sa;`,
    '  setp.eq.u32 %lead, %i, 0;',
  );
  const stageIn = ['  @%lead ld.global.v2.b64 {%pol, %x64}, [%slot];', '  @%lead st.shared.v2.b64 [%sa], {%pol, %x64};', '  bar.sync 0;'];
  const stageOut = ['  bar.sync 0;', '  @%lead ld.shared.v2.b64 {%pol, %x64}, [%sa];', '  @%lead st.global.v2.b64 [%slot], {%pol, %x64};'];
  const op = (target: string, space: string): string[] =>
    selftest
      ? [`  ld${space}.f32 %fa, [${target}];`, '  mov.b32 %fb, %bv0;', '  add.rn.f32 %fa, %fa, %fb;', `  st${space}.f32 [${target}], %fa;`, '  mov.b32 %d0, 0;']
      : hooks.instruction(e, k, target);
  if (whole) {
    // the family's own cluster path (launched in clusters only)
    L.push(...whole.lines);
  } else if (clusterSpace) {
    // in a cluster launch, the slot is rank 0's; otherwise this CTA's
    const cIn = [
      '  @%lead ld.global.v2.b64 {%pol, %x64}, [%slot];',
      '  @%lead st.shared.v2.b64 [%sa], {%pol, %x64};',
      '  barrier.cluster.arrive;',
      '  barrier.cluster.wait;',
    ];
    const cOut = [
      '  barrier.cluster.arrive;',
      '  barrier.cluster.wait;',
      '  @%lead ld.shared.v2.b64 {%pol, %x64}, [%sa];',
      '  @%lead st.global.v2.b64 [%slot], {%pol, %x64};',
    ];
    L.push(
      '  @%cl bra CLUSTER;',
      ...stageIn,
      ...op('%sa', '.shared::cluster'),
      ...stageOut,
      '  bra DONEOP;',
      'CLUSTER:',
      ...cIn,
      '  mapa.shared::cluster.u32 %sc, %sa, 0;',
      ...op('%sc', '.shared::cluster'),
      ...cOut,
      'DONEOP:',
    );
  } else if (shared) {
    L.push(...stageIn, ...op('%sa', '.shared'), ...stageOut);
  } else if (k.generic) {
    L.push(
      '  and.b32 %u, %mode, 1;',
      '  setp.ne.u32 %sh, %u, 0;',
      '  @!%sh bra GLOBAL;',
      ...stageIn,
      '  cvt.u64.u32 %x64, %sa;',
      '  cvta.shared.u64 %x64, %x64;',
      ...op('%x64', ''),
      ...stageOut,
      '  bra DONEOP;',
      'GLOBAL:',
      ...op('%slot', ''),
      'DONEOP:',
    );
  } else {
    L.push(...op('%slot', '.global'));
  }
  if (k.returns && !selftest) {
    L.push('  mad.lo.u32 %u, %g, %n, %i;', '  mul.wide.u32 %po, %u, 16;', '  add.u64 %po, %out, %po;');
    for (let j = 0; j < n; j++)
      L.push(...(w === 128 ? [`  mov.b128 {%lo, %hi}, %d${j};`, '  st.global.v2.b64 [%po], {%lo, %hi};'] : [`  st.global.${T} [%po+${j * bytes}], %d${j};`]));
  }
  L.push('  ret;', '}');
  return L.join('\n');
}

export function contendModule(arch: string, ptx: string, gvs: readonly { gv: GpuVariant; selftest?: boolean }[]): string {
  const uniq = new Map<string, string>();
  for (const x of gvs) uniq.set(contendKernelName(x.gv, x.selftest), contendKernel(x.gv, x.selftest));
  return [`.version ${ptx}`, `.target ${arch}`, '.address_size 64', '', ...uniq.values(), ''].join('\n');
}
