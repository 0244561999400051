/**
 * PTX for running atom and red cases on a GPU: one kernel per variant, one thread per case. Case i
 * owns a 16-byte slot at offset 16*i of each buffer (memory at [a], operand b, operand c, returned
 * d), so every vector and 128-bit form is aligned. Shared-memory variants copy their slot into
 * shared memory, operate there and copy it back. The instruction line is the catalog's spelling
 * with the operand shape of its syntax form, so what runs is exactly what the catalog names.
 */
import type { CatalogEntry } from '../../catalog/enumerate.js';
import { elementType, vectorLength } from '../../catalog/elements.js';

export const SLOT = 16;
export const BLOCK = 256;

/** Case index i = ctaid.x * ntid.x + tid.x in %a5 (threads past n return), slot offset 16*i in %a6. */
const CASE_INDEX = [
  '  mov.u32 %s0, %ctaid.x;',
  '  mov.u32 %s1, %ntid.x;',
  '  mov.u32 %s2, %tid.x;',
  '  mad.lo.u32 %s3, %s0, %s1, %s2;',
  '  cvt.u64.u32 %a5, %s3;',
  '  setp.ge.u64 %p, %a5, %a4;',
  '  @%p bra DONE;',
  `  mul.lo.u64 %a6, %a5, ${SLOT};`,
];

export interface KernelPlan {
  readonly name: string;
  readonly entry: CatalogEntry;
  /** Whether the instruction operates on shared memory (slots are staged there). */
  readonly shared: boolean;
  /** Element width in bits and lanes (vector length). */
  readonly width: number;
  readonly lanes: number;
}

const W = (w: number) => (w === 128 ? 'b128' : `b${w}`);

function regList(prefix: string, lanes: number): string[] {
  return Array.from({ length: lanes }, (_, i) => `${prefix}${i}`);
}

/** The body of one kernel (params: mem, b, c, out, n). */
export function kernelText(k: KernelPlan): string {
  const e = k.entry;
  const w = k.width;
  const n = k.lanes;
  const bytes = w / 8;
  const lines: string[] = [];
  const regType = w === 128 ? 'b128' : `b${w}`;
  lines.push(`.visible .entry ${k.name}(.param .u64 pmem, .param .u64 pb, .param .u64 pc, .param .u64 pout, .param .u64 pn)`, '{');
  if (k.shared) lines.push(`  .shared .align 16 .b8 smem[${BLOCK * SLOT}];`);
  lines.push('  .reg .b64 %a<12>;', '  .reg .b32 %s<6>;', '  .reg .pred %p;', `  .reg .${regType} %d<${n}>, %b<${n}>, %c<${n}>;`);
  if (w === 128) lines.push('  .reg .b64 %lo, %hi;');
  lines.push('  .reg .b64 %pol;');
  lines.push(
    '  ld.param.u64 %a0, [pmem];',
    '  ld.param.u64 %a1, [pb];',
    '  ld.param.u64 %a2, [pc];',
    '  ld.param.u64 %a3, [pout];',
    '  ld.param.u64 %a4, [pn];',
    ...CASE_INDEX,
    '  add.u64 %a7, %a0, %a6;', // memory slot
    '  add.u64 %a8, %a1, %a6;', // b slot
    '  add.u64 %a9, %a2, %a6;', // c slot
    '  add.u64 %a10, %a3, %a6;', // out slot
  );
  const load = (reg: string, base: string, i: number) =>
    w === 128
      ? [`  ld.global.v2.b64 {%lo, %hi}, [${base}+${i * bytes}];`, `  mov.b128 ${reg}, {%lo, %hi};`]
      : [`  ld.global.${W(w)} ${reg}, [${base}+${i * bytes}];`];
  const store = (base: string, i: number, reg: string) =>
    w === 128 ? [`  mov.b128 {%lo, %hi}, ${reg};`, `  st.global.v2.b64 [${base}+${i * bytes}], {%lo, %hi};`] : [`  st.global.${W(w)} [${base}+${i * bytes}], ${reg};`];
  for (let i = 0; i < n; i++) lines.push(...load(`%b${i}`, '%a8', i), ...load(`%c${i}`, '%a9', i));
  let addr = '%a7';
  if (k.shared) {
    // stage the 16-byte slot in shared memory at 16*tid
    lines.push('  mov.u32 %s4, smem;', `  mad.lo.u32 %s4, %s2, ${SLOT}, %s4;`, '  ld.global.v2.b64 {%a11, %a6}, [%a7];', '  st.shared.v2.b64 [%s4], {%a11, %a6};');
    addr = '%s4';
  }
  if ((e.q.hint ?? '') !== '') lines.push('  createpolicy.fractional.L2::evict_last.b64 %pol, 1.0;');
  const vec = (p: string) => (n === 1 ? `${p}0` : `{${regList(p, n).join(', ')}}`);
  const ops: string[] = [];
  for (const kind of e.operands) {
    if (kind === 'd') ops.push((e.q.d ?? '') === '_' ? '_' : vec('%d'));
    else if (kind === 'a') ops.push(`[${addr}]`);
    else if (kind === 'b') ops.push(vec('%b'));
    else if (kind === 'c') ops.push(vec('%c'));
    else if (kind === 'policy' && (e.q.hint ?? '') !== '') ops.push('%pol');
  }
  lines.push(`  ${e.ptx} ${ops.join(', ')};`);
  if (k.shared) lines.push('  ld.shared.v2.b64 {%a11, %a6}, [%s4];', '  st.global.v2.b64 [%a7], {%a11, %a6};');
  if (e.operands.includes('d') && (e.q.d ?? '') !== '_') for (let i = 0; i < n; i++) lines.push(...store('%a10', i, `%d${i}`));
  lines.push('DONE:', '  ret;', '}');
  return lines.join('\n');
}

/**
 * cp.reduce.async.bulk: each thread stages its 16-byte source slot in shared memory, fences the
 * async proxy and reduces it into its destination slot. The .global form completes through a
 * bulk async-group (commit, wait); the .shared::cluster form reduces into a shared-memory copy of
 * the destination, completing on an mbarrier with complete_tx, and copies it back.
 */
export function bulkKernelText(k: KernelPlan): string {
  const e = k.entry;
  const cluster = e.q.dst === 'shared::cluster';
  const lines = [
    `.visible .entry ${k.name}(.param .u64 pmem, .param .u64 pb, .param .u64 pc, .param .u64 pout, .param .u64 pn)`,
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

export function planKernel(entry: CatalogEntry, index: number): KernelPlan {
  const type = entry.q.type ?? '';
  const space = entry.q.space ?? '';
  const bulk = entry.family === 'cp.reduce.async.bulk';
  const width = elementType(type).bits;
  return {
    name: `k${index}`,
    entry,
    shared: space.startsWith('shared'),
    width,
    lanes: bulk ? (SLOT * 8) / width : vectorLength(entry.q.vec ?? ''),
  };
}

/** A module with one kernel per plan, for `target` in PTX ISA `ptx`. */
export function gpuModule(plans: readonly KernelPlan[], target: string, ptx: string): string {
  return [`.version ${ptx}`, `.target ${target}`, '.address_size 64', '', ...plans.map((p) => (p.entry.family === 'cp.reduce.async.bulk' ? bulkKernelText(p) : kernelText(p))), ''].join('\n');
}
