/**
 * multimem.cp.reduce.async.bulk on the multicast executor. A case is a destination range on every
 * bound GPU (its replicas) and a source range; thread t of the kernel stages its case's source from
 * the operand buffer (global, on the issuing device) into its own 128-byte area of shared memory and
 * issues the instruction on the multicast address of its slot, for at most 128 bytes at a time (a
 * case of up to 128 bytes is one instruction of its full size; a longer one, one per 128 bytes,
 * which an element-wise reduction does not tell apart), each waited for before the next.
 *
 * The instruction needs PTX ISA 9.1 (9.7.9.27, PTX ISA Notes), which ptxas 13.0 does not write: the
 * executor skips its jobs, with that reason, where the installed ptxas is older. The rest of this
 * kernel compiles with ptxas 13.0 around the unicast cp.reduce.async.bulk (a test does that).
 */
import { KERNEL_EPILOGUE, kernelPrologue, reduceIntoEachReplica, slotShape, type MulticastFamily } from '../../backends/multicast/family.js';

/** Bytes one thread stages in shared memory per instruction, and threads per block (native/src/multicast.cc). */
export const BULK_CHUNK = 128;
const BLOCK = 256;

/** The kernel of one job: its cases hold `elements` elements per replica. */
export function multimemBulkModule(
  line: (ptx: string, dst: string, src: string, size: string) => string,
  ptx: string,
  q: Parameters<typeof slotShape>[0],
  ptxIsa: string,
  target: string,
  elements: number,
): { text: string; slotBytes: number } {
  const slotBytes = (slotShape(q).bits / 8) * elements;
  const lines = [
    ...kernelPrologue(ptxIsa, target, slotBytes, [`.shared .align 128 .b8 stage[${BULK_CHUNK * BLOCK}];`, ''], ['.reg .b32 %d<4>;']),
    // this thread's staging area; %t6 the offset into the slot, %t7 this chunk's bytes
    '  mov.u32 %t5, stage;',
    `  mad.lo.u32 %t5, %t4, ${BULK_CHUNK}, %t5;`,
    '  mov.u32 %t6, 0;',
    'CHUNK:',
    `  sub.u32 %t7, ${slotBytes}, %t6;`,
    `  min.u32 %t7, %t7, ${BULK_CHUNK};`,
    '  mov.u32 %t8, 0;',
    'COPY:',
    '  add.u32 %t9, %t6, %t8;',
    '  cvt.u64.u32 %a4, %t9;',
    '  add.u64 %a4, %a2, %a4;',
    '  ld.global.v4.b32 {%d0, %d1, %d2, %d3}, [%a4];',
    '  add.u32 %t9, %t5, %t8;',
    '  st.shared.v4.b32 [%t9], {%d0, %d1, %d2, %d3};',
    '  add.u32 %t8, %t8, 16;',
    '  setp.lt.u32 %p1, %t8, %t7;',
    '  @%p1 bra COPY;',
    '  fence.proxy.async.shared::cta;',
    '  cvt.u64.u32 %a5, %t6;',
    '  add.u64 %a5, %a1, %a5;',
    `  ${line(ptx, '%a5', '%t5', '%t7')}`,
    '  cp.async.bulk.commit_group;',
    '  cp.async.bulk.wait_group 0;',
    '  add.u32 %t6, %t6, %t7;',
    `  setp.lt.u32 %p1, %t6, ${slotBytes};`,
    '  @%p1 bra CHUNK;',
    ...KERNEL_EPILOGUE,
  ];
  return { text: lines.join('\n'), slotBytes };
}

const bulkLine = (ptx: string, dst: string, src: string, size: string) => `${ptx} [${dst}], [${src}], ${size};`;

export const multimemBulkMulticast: MulticastFamily = {
  takesB: true,
  operand: 'source',
  returns: false,
  ptxIsa: '9.1',
  // one register line per thread is not how this instruction is issued: module writes the kernel
  line: (ptx, regs, addr) => bulkLine(ptx, addr, regs, 'size'),
  module: (ptx, q, ptxIsa, target, elements) => multimemBulkModule(bulkLine, ptx, q, ptxIsa, target, elements),
  // each replica's element reduced with the source element, on its own (as multimem.red with b)
  simulate: reduceIntoEachReplica,
};
