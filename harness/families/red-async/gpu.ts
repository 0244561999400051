/**
 * red.async on one GPU (the .relaxed.cluster form; the .release form needs sm_100): launched in
 * clusters of 2 CTAs. Thread t of CTA r owns case (r, t): it stages the case's memory element in its
 * own shared slot and arms its own mbarrier (arrival count 1, expecting the element's bytes); after a
 * cluster barrier, thread t of the other CTA applies red.async to that slot and mbarrier through
 * mapa (the spec's condition: destination and mbarrier in one CTA of the cluster, not the executing
 * thread's). The owner waits for the mbarrier's phase and copies the slot back. Threads without a
 * case of their own, or whose peer has none, still take part in both cluster barriers.
 */
import { BLOCK, type GpuFamily, KERNEL_PARAMS, type KernelShape, SLOT } from '../../backends/gpu/family.js';
import type { CatalogEntry } from '../../catalog/enumerate.js';
import { elementType } from '../../catalog/elements.js';
import { rmwCaseUnfit } from '../shared/rmw-gpu.js';

function kernel(name: string, e: CatalogEntry, k: KernelShape): string {
  const T = `b${k.width}`;
  const bytes = k.width / 8;
  const generic = (e.q.space ?? '') === '';
  return [
    `.visible .entry ${name}${KERNEL_PARAMS}`,
    '{',
    `  .shared .align 16 .b8 sdst[${BLOCK * SLOT}];`,
    `  .shared .align 8 .b64 mbar[${BLOCK}];`,
    '  .reg .b64 %a<16>, %st;',
    '  .reg .b32 %s<16>;',
    '  .reg .pred %own, %peer, %w;',
    `  .reg .${T} %m, %bv;`,
    '  ld.param.u64 %a0, [pmem];',
    '  ld.param.u64 %a1, [pb];',
    '  ld.param.u64 %a4, [pn];',
    '  mov.u32 %s0, %ctaid.x;',
    '  mov.u32 %s1, %ntid.x;',
    '  mov.u32 %s2, %tid.x;',
    '  mov.u32 %s7, %cluster_ctarank;',
    // own case i = ctaid * ntid + tid; the peer's case: the other CTA of the pair, same thread
    '  mad.lo.u32 %s3, %s0, %s1, %s2;',
    '  xor.b32 %s8, %s0, 1;',
    '  mad.lo.u32 %s9, %s8, %s1, %s2;',
    '  xor.b32 %s10, %s7, 1;',
    '  cvt.u64.u32 %a5, %s3;',
    '  setp.lt.u64 %own, %a5, %a4;',
    '  cvt.u64.u32 %a11, %s9;',
    '  setp.lt.u64 %peer, %a11, %a4;',
    `  mul.lo.u64 %a6, %a5, ${SLOT};`,
    `  mul.lo.u64 %a12, %a11, ${SLOT};`,
    '  add.u64 %a7, %a0, %a6;',
    '  add.u64 %a13, %a1, %a12;',
    '  mov.u32 %s4, sdst;',
    `  mad.lo.u32 %s4, %s2, ${SLOT}, %s4;`,
    '  mov.u32 %s6, mbar;',
    '  mad.lo.u32 %s6, %s2, 8, %s6;',
    `  @%own ld.global.${T} %m, [%a7];`,
    `  @%own st.shared.${T} [%s4], %m;`,
    '  @%own mbarrier.init.shared::cta.b64 [%s6], 1;',
    '  @%own fence.mbarrier_init.release.cluster;',
    `  @%own mbarrier.arrive.expect_tx.shared::cta.b64 %st, [%s6], ${bytes};`,
    '  barrier.cluster.arrive.release;',
    '  barrier.cluster.wait.acquire;',
    '  @!%peer bra ISSUED;',
    `  ld.global.${T} %bv, [%a13];`,
    ...(generic
      ? [
          '  cvt.u64.u32 %a8, %s4;',
          '  cvta.shared.u64 %a8, %a8;',
          '  mapa.u64 %a9, %a8, %s10;',
          '  cvt.u64.u32 %a8, %s6;',
          '  cvta.shared.u64 %a8, %a8;',
          '  mapa.u64 %a10, %a8, %s10;',
          `  ${e.ptx} [%a9], %bv, [%a10];`,
        ]
      : ['  mapa.shared::cluster.u32 %s11, %s4, %s10;', '  mapa.shared::cluster.u32 %s12, %s6, %s10;', `  ${e.ptx} [%s11], %bv, [%s12];`]),
    'ISSUED:',
    '  @!%own bra WAITED;',
    'WAIT:',
    '  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %w, [%s6], 0;',
    '  @!%w bra WAIT;',
    `  ld.shared.${T} %m, [%s4];`,
    `  st.global.${T} [%a7], %m;`,
    'WAITED:',
    '  barrier.cluster.arrive.release;',
    '  barrier.cluster.wait.acquire;',
    '  ret;',
    '}',
  ].join('\n');
}

export const redAsyncGpu: GpuFamily = {
  unsupported: (e) =>
    e.q.sem === 'relaxed'
      ? undefined
      : 'the gpu executor runs the .relaxed.cluster form only (the .release form needs sm_100, which this executor has not been built for)',
  shape: (e): KernelShape => ({ width: elementType(e.q.type ?? '').bits, elements: 1, returns: false, clustered: true, generic: false }),
  kernel: (name, e, k) => kernel(name, e, k),
  caseUnfit: (c, k) =>
    c.space === 'global' ? "red.async.relaxed works on a remote CTA's shared memory; this case asks for global memory" : rmwCaseUnfit(c, k),
};
