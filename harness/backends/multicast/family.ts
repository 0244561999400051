/**
 * What a family contributes to the multicast executor (harness/families/<family>/multicast.ts):
 * where its operands go and its effect, as a kernel line for the hardware and as a step of the
 * stand-in's simulated switch. The executor and the stand-in name no family.
 */
import { dataWidth } from '../ptxas/module.js';
import { vectorLength } from '../../catalog/elements.js';
import type { ModelVariant } from '../../reference/model.js';

/** The stand-in's switch as a family sees it: its reduction order and accumulation are the stand-in's configuration. */
export interface SimulatedSwitch {
  /** The reduction of one element over the replicas' values, as the switch computes it (multimem.ld_reduce). */
  reduce(v: ModelVariant, values: readonly bigint[]): bigint;
  /** One replica's value combined with an operand (multimem.red). */
  apply(v: ModelVariant, memory: bigint, b: bigint): bigint;
}

/** The memory one thread of the simulated kernel sees: element i of its slot. */
export interface SimulatedSlot {
  readonly replicas: number;
  readonly elements: number;
  replica(r: number, i: number): bigint;
  setReplica(r: number, i: number, bits: bigint): void;
  b(i: number): bigint;
  setOut(i: number, bits: bigint): void;
}

export interface MulticastFamily {
  /** Whether a thread loads an operand (from the issuing device's memory) for the instruction. */
  readonly takesB: boolean;
  /** The case input that operand comes from (default `b`; the bulk reduction's `source`). */
  readonly operand?: 'b' | 'source';
  /** Whether the instruction returns values (stored to the issuing device's `out`). */
  readonly returns: boolean;
  /** The instruction line of one thread: `regs` the operand registers ({...} for vectors), `addr` the multicast address register. */
  line(ptx: string, regs: string, addr: string): string;
  /** What the instruction does to one slot, on the stand-in's switch. */
  simulate(v: ModelVariant, sw: SimulatedSwitch, slot: SimulatedSlot): void;
  /**
   * The kernel module, where the family's instruction is not one register line per thread (the bulk
   * reduction stages its source in shared memory): default multicastModule. `elements`: a case's
   * elements per replica (every case of a job has as many).
   */
  module?(ptx: string, q: ModelVariant['q'], ptxIsa: string, target: string, elements: number): { text: string; slotBytes: number };
  /** The PTX ISA version its kernels need at least (default: the run's). */
  readonly ptxIsa?: string;
}

/** The effect of a reduction into every replica: each replica's element combined with the operand's, on its own. */
export function reduceIntoEachReplica(v: ModelVariant, sw: SimulatedSwitch, slot: SimulatedSlot): void {
  for (let r = 0; r < slot.replicas; r++) for (let i = 0; i < slot.elements; i++) slot.setReplica(r, i, sw.apply(v, slot.replica(r, i), slot.b(i)));
}

/** Bits of one element register, and elements per slot, of a variant. */
export function slotShape(q: ModelVariant['q']): { bits: number; elements: number } {
  return { bits: dataWidth(q.type ?? ''), elements: vectorLength(q.vec ?? '') };
}

/**
 * The start every multicast kernel shares: the module header (`head`: what the module declares
 * before the entry), the entry (p_mc, p_b, p_out, p_n) with registers %p<2>, %t<10>, %a<8> and
 * `regs`, and thread t = ctaid * ntid + tid (%t0; tid in %t4) leaving for DONE when t >= n; then
 * %a1 = mc + t*slot (the multicast address), %a2 = b + t*slot and %a3 = out + t*slot (global, on the
 * issuing device). KERNEL_EPILOGUE ends it.
 */
export function kernelPrologue(ptxIsa: string, target: string, slotBytes: number, head: readonly string[], regs: readonly string[]): string[] {
  return [
    `.version ${ptxIsa}`,
    `.target ${target}`,
    '.address_size 64',
    '',
    ...head,
    '.visible .entry multimem_kernel(.param .u64 p_mc, .param .u64 p_b, .param .u64 p_out, .param .u32 p_n)',
    '{',
    '  .reg .pred %p<2>;',
    '  .reg .b32 %t<10>;',
    '  .reg .b64 %a<8>;',
    ...regs.map((r) => `  ${r}`),
    '  mov.u32 %t4, %tid.x;',
    '  mov.u32 %t1, %ctaid.x;',
    '  mov.u32 %t2, %ntid.x;',
    '  mad.lo.u32 %t0, %t1, %t2, %t4;',
    '  ld.param.u32 %t3, [p_n];',
    '  setp.ge.u32 %p0, %t0, %t3;',
    '  @%p0 bra DONE;',
    `  mul.wide.u32 %a0, %t0, ${slotBytes};`,
    '  ld.param.u64 %a1, [p_mc];',
    '  add.u64 %a1, %a1, %a0;',
    '  ld.param.u64 %a2, [p_b];',
    '  cvta.to.global.u64 %a2, %a2;',
    '  add.u64 %a2, %a2, %a0;',
    '  ld.param.u64 %a3, [p_out];',
    '  cvta.to.global.u64 %a3, %a3;',
    '  add.u64 %a3, %a3, %a0;',
  ];
}

export const KERNEL_EPILOGUE: readonly string[] = ['DONE:', '  ret;', '}', ''];

/**
 * The kernel module: thread t (of n) issues the instruction at mc + t*slot; operands come from
 * b + t*slot and results go to out + t*slot on the issuing device, one register per element.
 */
export function multicastModule(f: MulticastFamily, ptx: string, q: ModelVariant['q'], ptxIsa: string, target: string): { text: string; slotBytes: number } {
  const { bits, elements } = slotShape(q);
  const bytes = bits / 8;
  const slotBytes = bytes * elements;
  const reg = (i: number) => `%v${i}`;
  const regs = elements === 1 ? reg(0) : `{${Array.from({ length: elements }, (_, i) => reg(i)).join(', ')}}`;
  const lines = [
    ...kernelPrologue(ptxIsa, target, slotBytes, [], [`.reg .b${bits} %v<${elements}>;`]),
    ...(f.takesB ? Array.from({ length: elements }, (_, i) => `  ld.global.b${bits} ${reg(i)}, [%a2+${i * bytes}];`) : []),
    `  ${f.line(ptx, regs, '%a1')}`,
    ...(f.returns ? Array.from({ length: elements }, (_, i) => `  st.global.b${bits} [%a3+${i * bytes}], ${reg(i)};`) : []),
    ...KERNEL_EPILOGUE,
  ];
  return { text: lines.join('\n'), slotBytes };
}
