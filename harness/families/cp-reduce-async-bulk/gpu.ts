/**
 * cp.reduce.async.bulk on one GPU: each thread stages its 16-byte source slot in shared memory,
 * fences the async proxy and reduces it into its destination slot. The .global form completes
 * through a bulk async-group (commit, wait); the .shared::cluster form reduces into a shared-memory
 * copy of the destination, completing on an mbarrier with complete_tx, and copies it back (launched
 * in clusters of 2 CTAs).
 */
import { BLOCK, CASE_INDEX, type GpuFamily, KERNEL_PARAMS, type KernelShape, SLOT, type SweepHooks } from '../../backends/gpu/family.js';
import type { CatalogEntry } from '../../catalog/enumerate.js';
import { elementType } from '../../catalog/elements.js';

function kernel(name: string, e: CatalogEntry): string {
  const cluster = e.q.dst === 'shared::cluster';
  const lines = [
    `.visible .entry ${name}${KERNEL_PARAMS}`,
    '{',
    `  .shared .align 16 .b8 ssrc[${BLOCK * SLOT}];`,
    ...(cluster ? [`  .shared .align 16 .b8 sdst[${BLOCK * SLOT}];`, `  .shared .align 8 .b64 mbar[${BLOCK}];`] : []),
    '  .reg .b64 %a<12>, %st, %pol;',
    '  .reg .b32 %s<8>;',
    '  .reg .pred %p, %w;',
    '  ld.param.u64 %a0, [pmem];',
    '  ld.param.u64 %a1, [pb];',
    '  ld.param.u64 %a4, [pn];',
    ...CASE_INDEX,
    '  add.u64 %a7, %a0, %a6;',
    '  add.u64 %a8, %a1, %a6;',
    '  mov.u32 %s4, ssrc;',
    `  mad.lo.u32 %s4, %s2, ${SLOT}, %s4;`,
    '  ld.global.v2.b64 {%a9, %a10}, [%a8];',
    '  st.shared.v2.b64 [%s4], {%a9, %a10};',
  ];
  const hint = (e.q.hint ?? '') !== '';
  if (hint) lines.push('  createpolicy.fractional.L2::evict_last.b64 %pol, 1.0;');
  if (!cluster) {
    lines.push('  fence.proxy.async.shared::cta;', `  ${e.ptx} [%a7], [%s4], ${SLOT}${hint ? ', %pol' : ''};`, '  cp.async.bulk.commit_group;', '  cp.async.bulk.wait_group 0;');
  } else {
    lines.push(
      '  mov.u32 %s5, sdst;',
      `  mad.lo.u32 %s5, %s2, ${SLOT}, %s5;`,
      '  mov.u32 %s6, mbar;',
      '  mad.lo.u32 %s6, %s2, 8, %s6;',
      '  ld.global.v2.b64 {%a9, %a10}, [%a7];',
      '  st.shared.v2.b64 [%s5], {%a9, %a10};',
      '  mbarrier.init.shared::cta.b64 [%s6], 1;',
      '  fence.mbarrier_init.release.cluster;',
      '  fence.proxy.async.shared::cta;',
      `  mbarrier.arrive.expect_tx.shared::cta.b64 %st, [%s6], ${SLOT};`,
      `  ${e.ptx} [%s5], [%s4], ${SLOT}, [%s6];`,
      'WAIT:',
      '  mbarrier.try_wait.parity.shared::cta.b64 %w, [%s6], 0;',
      '  @!%w bra WAIT;',
      '  ld.shared.v2.b64 {%a9, %a10}, [%s5];',
      '  st.global.v2.b64 [%a7], {%a9, %a10};',
    );
  }
  lines.push('DONE:', '  ret;', '}');
  return lines.join('\n');
}

/**
 * Sweeps: the .global form (the form that takes 16- and 32-bit floats), 16 bytes per thread: the
 * memory elements written to the thread's place in the results buffer (the destination), the
 * operands to its shared slot (the source); proxy fences order the generic writes before the async
 * proxy's reduction and its writes before the generic read-back (a missing order would show as
 * mismatches: the sweep compares every result). The cache hint is swept on add.noftz.f16.
 */
const bulkSweep: SweepHooks = {
  op: (e) => (e.q.dst === 'shared::cluster' ? undefined : e.q.op),
  modes: () => [0],
  qualifierRepresentative: (e) => e.q.op === 'add' && e.q.type === 'f16',
  body: (e, k) => {
    const T = `b${k.width}`;
    const bytes = k.width / 8;
    const hint = (e.q.hint ?? '') !== '';
    const lines: string[] = [];
    for (let i = 0; i < k.elements; i++) lines.push(`  st.global.${T} [%addr+${i * bytes}], %m${i};`, `  st.shared.${T} [%sa+${i * bytes}], %bv${i};`);
    if (hint) lines.push('  createpolicy.fractional.L2::evict_last.b64 %pol, 1.0;');
    lines.push('  fence.proxy.async;', `  ${e.ptx} [%addr], [%sa], ${SLOT}${hint ? ', %pol' : ''};`, '  cp.async.bulk.commit_group;', '  cp.async.bulk.wait_group 0;', '  fence.proxy.async;');
    return { decls: [], lines, result: { ld: 'ld.global', base: '%addr' } };
  },
};

/**
 * Under contention (the .global form): each participant stages its 16-byte source in its own
 * shared slot (smem + tid x 16) and reduces it into the group's global slot; several CTAs (or
 * threads) race element by element.
 */
const bulkContend = {
  instruction: (e: CatalogEntry, k: KernelShape, target: string): string[] => {
    const T = `b${k.width}`;
    const bytes = k.width / 8;
    const hint = (e.q.hint ?? '') !== '';
    const lines = ['  mov.u32 %u, smem;', `  mad.lo.u32 %u, %tx, ${SLOT}, %u;`];
    for (let i = 0; i < k.elements; i++) lines.push(`  st.shared.${T} [%u+${i * bytes}], %bv${i};`);
    if (hint) lines.push('  createpolicy.fractional.L2::evict_last.b64 %pol, 1.0;');
    lines.push('  fence.proxy.async;', `  ${e.ptx} [${target}], [%u], ${SLOT}${hint ? ', %pol' : ''};`, '  cp.async.bulk.commit_group;', '  cp.async.bulk.wait_group 0;', '  fence.proxy.async;');
    return lines;
  },
  /**
   * .shared::cluster: the first CTA holds the group's slot and an mbarrier expecting n x 16 bytes;
   * every CTA of the cluster reduces its 16-byte source into that slot (mapa), completing on that
   * mbarrier; the first CTA waits for all of them, then copies the slot back.
   */
  cluster: (e: CatalogEntry, k: KernelShape) => {
    const T = `b${k.width}`;
    const bytes = k.width / 8;
    const lines = [
      '  @%lead ld.global.v2.b64 {%pol, %x64}, [%slot];',
      '  @%lead st.shared.v2.b64 [%sa], {%pol, %x64};',
      '  mov.u32 %mb, cmbar;',
      '  mad.lo.u32 %mb, %gl, 8, %mb;',
      '  @%lead mbarrier.init.shared::cta.b64 [%mb], 1;',
      '  @%lead fence.mbarrier_init.release.cluster;',
      `  shl.b32 %u, %n, 4;`,
      '  @%lead mbarrier.arrive.expect_tx.shared::cta.b64 %st, [%mb], %u;',
      '  mov.u32 %sr, ssrc;',
      `  mad.lo.u32 %sr, %gl, ${SLOT}, %sr;`,
    ];
    for (let i = 0; i < k.elements; i++) lines.push(`  st.shared.${T} [%sr+${i * bytes}], %bv${i};`);
    lines.push(
      '  fence.proxy.async.shared::cta;',
      '  barrier.cluster.arrive;',
      '  barrier.cluster.wait;',
      '  mapa.shared::cluster.u32 %dr, %sa, 0;',
      '  mapa.shared::cluster.u32 %mr, %mb, 0;',
      `  ${e.ptx} [%dr], [%sr], ${SLOT}, [%mr];`,
      '  @!%lead bra CWAITED;',
      'CWAIT:',
      '  mbarrier.try_wait.parity.shared::cta.b64 %w, [%mb], 0;',
      '  @!%w bra CWAIT;',
      'CWAITED:',
      '  barrier.cluster.arrive;',
      '  barrier.cluster.wait;',
      '  @%lead ld.shared.v2.b64 {%pol, %x64}, [%sa];',
      '  @%lead st.global.v2.b64 [%slot], {%pol, %x64};',
    );
    return { decls: [`  .shared .align 16 .b8 ssrc[${BLOCK * SLOT}];`, `  .shared .align 8 .b64 cmbar[${BLOCK}];`, '  .reg .b32 %mb, %mr, %sr, %dr;', '  .reg .pred %w;', '  .reg .b64 %st;'], lines };
  },
};

export const bulkGpu: GpuFamily = {
  sweep: bulkSweep,
  contend: bulkContend,
  unsupported: () => undefined,
  shape: (e): KernelShape => {
    const width = elementType(e.q.type ?? '').bits;
    return { width, elements: (SLOT * 8) / width, returns: false, clustered: e.q.dst === 'shared::cluster', generic: false };
  },
  kernel: (name, e) => kernel(name, e),
  caseUnfit: (c, k) => {
    const n = c.memory?.length ?? 0;
    if (n !== k.elements || (c.source?.length ?? 0) !== n) {
      return `the gpu executor runs bulk reductions of 16 bytes (${k.elements} elements of ${k.width} bits); this case has ${n} destination and ${c.source?.length ?? 0} source elements`;
    }
    return undefined;
  },
};
