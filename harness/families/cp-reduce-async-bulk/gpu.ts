/**
 * cp.reduce.async.bulk on one GPU: each thread stages its 16-byte source slot in shared memory,
 * fences the async proxy and reduces it into its destination slot. The .global form completes
 * through a bulk async-group (commit, wait); the .shared::cluster form reduces into a shared-memory
 * copy of the destination, completing on an mbarrier with complete_tx, and copies it back (launched
 * in clusters of 2 CTAs).
 *
 * A case of any other size the spec allows (a multiple of 16 bytes) runs through the wide kernel
 * (`wideKernel`): one CTA per case stages the case's source (and, for .shared::cluster, its
 * destination) in dynamic shared memory, and one thread issues the reduction over all of it.
 */
import { BLOCK, CASE_INDEX, type GpuFamily, KERNEL_PARAMS, type KernelShape, SLOT, type SweepHooks } from '../../backends/gpu/family.js';
import { formatCitation } from '../../catalog/cite.js';
import { BULK_SIZE_RULE } from '../shared/bulk.js';
import type { CatalogEntry } from '../../catalog/enumerate.js';
import { elementType } from '../../catalog/elements.js';
import type { ReferenceCase } from '../../reference/model.js';

/*
 * The size rule (BULK_SIZE_RULE: PTX ISA 9.1 9.7.9.25.4.2 cp.reduce.async.bulk, Description, "size
 * must be a multiple of 16; dstMem and srcMem must be 16-byte aligned."; the 9.4 text, 9.7.10.28.4.2:
 * "`size` must be a multiple of 16. If the value is not a multiple of 16, then the behavior is
 * undefined. ... The addresses `dstMem` and `srcMem` must be aligned to 16 bytes."). A case has no
 * address: every address the kernels below give the instruction is 16-byte aligned (case slots of
 * 16 bytes from an allocation's start, shared memory declared .align 16 or 128 and staged in steps of
 * 16), so only the size can break it.
 */

/** Threads of a wide kernel's CTA: each stages 16 bytes per step. */
export const WIDE_THREADS = 128;

/** Bytes of a bulk case (destination and source of one length), or why it is not a valid size. */
export function bulkCaseBytes(c: ReferenceCase, width: number): number | string {
  const n = c.memory?.length ?? 0;
  const s = c.source?.length ?? 0;
  if (n !== s)
    return `a bulk reduction reduces a destination array with a source array of the same size; this case has ${n} destination and ${s} source elements`;
  const bits = n * width;
  if (n === 0 || bits % (SLOT * 8) !== 0)
    return `a bulk reduction of ${n} elements of ${width} bits is ${bits / 8} bytes, not a multiple of 16: ${formatCitation(BULK_SIZE_RULE)}; give a multiple of ${(SLOT * 8) / width} elements`;
  return bits / 8;
}

/**
 * One CTA per case (case i = %ctaid.x; case bytes in `pc`): its threads stage the case's source (and,
 * for .shared::cluster, its destination after it) in dynamic shared memory 16 bytes per step, fence
 * the async proxy and meet at a barrier; thread 0 reduces all of it in one instruction of `size` =
 * the case's bytes and waits (bulk async-group, or the mbarrier placed after the staged destination
 * expecting that many bytes); .shared::cluster then copies the destination back, every thread 16
 * bytes per step. Shared memory: the case's bytes (.global), twice that and 8 (.shared::cluster).
 */
function wideKernel(name: string, e: CatalogEntry): string {
  const cluster = e.q.dst === 'shared::cluster';
  const hint = (e.q.hint ?? '') !== '';
  // a loop over this thread's 16-byte steps of the case: %s3 = byte offset, body given
  const loop = (label: string, body: string[]) => [
    '  shl.b32 %s3, %s1, 4;',
    `${label}:`,
    '  setp.ge.u32 %q, %s3, %s7;',
    `  @%q bra ${label}_END;`,
    '  cvt.u64.u32 %a9, %s3;',
    '  add.u32 %s6, %s4, %s3;',
    ...body,
    '  add.u32 %s3, %s3, %s5;',
    `  bra ${label};`,
    `${label}_END:`,
  ];
  const lines = [
    // dynamic shared memory is declared at module scope, one name per kernel
    `.extern .shared .align 128 .b8 ${name}_dyn[];`,
    `.visible .entry ${name}${KERNEL_PARAMS}`,
    '{',
    '  .reg .b64 %a<12>, %st, %pol, %x<2>;',
    '  .reg .b32 %s<12>;',
    '  .reg .pred %p, %q, %w;',
    '  ld.param.u64 %a0, [pmem];',
    '  ld.param.u64 %a1, [pb];',
    '  ld.param.u64 %a3, [pc];',
    '  ld.param.u64 %a4, [pn];',
    '  mov.u32 %s0, %ctaid.x;',
    '  cvt.u64.u32 %a5, %s0;',
    '  setp.ge.u64 %p, %a5, %a4;',
    '  @%p bra DONE;',
    '  cvt.u32.u64 %s7, %a3;',
    '  mul.lo.u64 %a6, %a5, %a3;',
    '  add.u64 %a7, %a0, %a6;',
    '  add.u64 %a8, %a1, %a6;',
    '  mov.u32 %s1, %tid.x;',
    '  mov.u32 %s2, %ntid.x;',
    '  shl.b32 %s5, %s2, 4;',
    `  mov.u32 %s4, ${name}_dyn;`,
    '  add.u32 %s8, %s4, %s7;',
    '  add.u32 %s9, %s8, %s7;',
    ...loop('STAGE', [
      '  add.u64 %a10, %a8, %a9;',
      '  ld.global.v2.b64 {%x0, %x1}, [%a10];',
      '  st.shared.v2.b64 [%s6], {%x0, %x1};',
      ...(cluster
        ? ['  add.u64 %a10, %a7, %a9;', '  ld.global.v2.b64 {%x0, %x1}, [%a10];', '  add.u32 %s10, %s8, %s3;', '  st.shared.v2.b64 [%s10], {%x0, %x1};']
        : []),
    ]),
    '  fence.proxy.async.shared::cta;',
    '  bar.sync 0;',
    '  setp.ne.u32 %q, %s1, 0;',
  ];
  if (!cluster) {
    lines.push('  @%q bra DONE;');
    if (hint) lines.push('  createpolicy.fractional.L2::evict_last.b64 %pol, 1.0;');
    lines.push(`  ${e.ptx} [%a7], [%s4], %s7${hint ? ', %pol' : ''};`, '  cp.async.bulk.commit_group;', '  cp.async.bulk.wait_group 0;');
  } else {
    lines.push(
      '  @%q bra WAITED;',
      '  mbarrier.init.shared::cta.b64 [%s9], 1;',
      '  fence.mbarrier_init.release.cluster;',
      '  mbarrier.arrive.expect_tx.shared::cta.b64 %st, [%s9], %s7;',
      `  ${e.ptx} [%s8], [%s4], %s7, [%s9];`,
      'WAIT:',
      '  mbarrier.try_wait.parity.shared::cta.b64 %w, [%s9], 0;',
      '  @!%w bra WAIT;',
      'WAITED:',
      '  bar.sync 0;',
      ...loop('BACK', [
        '  add.u64 %a10, %a7, %a9;',
        '  add.u32 %s10, %s8, %s3;',
        '  ld.shared.v2.b64 {%x0, %x1}, [%s10];',
        '  st.global.v2.b64 [%a10], {%x0, %x1};',
      ]),
    );
  }
  lines.push('DONE:', '  ret;', '}');
  return lines.join('\n');
}

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
    lines.push(
      '  fence.proxy.async.shared::cta;',
      `  ${e.ptx} [%a7], [%s4], ${SLOT}${hint ? ', %pol' : ''};`,
      '  cp.async.bulk.commit_group;',
      '  cp.async.bulk.wait_group 0;',
    );
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
    lines.push(
      '  fence.proxy.async;',
      `  ${e.ptx} [%addr], [%sa], ${SLOT}${hint ? ', %pol' : ''};`,
      '  cp.async.bulk.commit_group;',
      '  cp.async.bulk.wait_group 0;',
      '  fence.proxy.async;',
    );
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
    lines.push(
      '  fence.proxy.async;',
      `  ${e.ptx} [${target}], [%u], ${SLOT}${hint ? ', %pol' : ''};`,
      '  cp.async.bulk.commit_group;',
      '  cp.async.bulk.wait_group 0;',
      '  fence.proxy.async;',
    );
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
    return {
      decls: [
        `  .shared .align 16 .b8 ssrc[${BLOCK * SLOT}];`,
        `  .shared .align 8 .b64 cmbar[${BLOCK}];`,
        '  .reg .b32 %mb, %mr, %sr, %dr;',
        '  .reg .pred %w;',
        '  .reg .b64 %st;',
      ],
      lines,
    };
  },
};

export const bulkGpu: GpuFamily = {
  sweep: bulkSweep,
  contend: bulkContend,
  unsupported: () => undefined,
  shape: (e): KernelShape => {
    const width = elementType(e.q.type ?? '').bits;
    return { width, elements: (SLOT * 8) / width, returns: false, clustered: e.q.dst === 'shared::cluster', generic: false, bulkCopy: true };
  },
  kernel: (name, e) => kernel(name, e),
  caseUnfit: (c, k) => {
    const bytes = bulkCaseBytes(c, k.width);
    return typeof bytes === 'string' ? bytes : undefined;
  },
  wide: {
    bytes: (c, k) => {
      const bytes = bulkCaseBytes(c, k.width);
      return typeof bytes === 'number' && bytes !== SLOT ? bytes : undefined;
    },
    shape: (e, base, bytes) => ({
      ...base,
      elements: (bytes * 8) / base.width,
      caseBytes: bytes,
      perCta: { threads: WIDE_THREADS, sharedBytes: e.q.dst === 'shared::cluster' ? 2 * bytes + 8 : bytes },
    }),
    kernel: (name, e) => wideKernel(name, e),
  },
};
