/**
 * What the gpu executor needs from a family that can run on one GPU (no multicast): its kernel
 * text and launch shape. Each GPU-runnable family implements this in its own folder
 * (`harness/families/<family>/gpu.ts`); the executor names no family.
 *
 * The launch contract, shared by every kernel: one thread per case; kernel parameters
 * (mem, b, c, out, n, mode); case i owns the 16-byte slot at byte 16*i of each buffer: memory at
 * [a] (bulk: the destination), operand b (bulk: the source), operand c, and the returned values.
 * `mode` 1 asks a generic-addressing kernel to land in shared memory (a case's `space: shared`).
 */
import type { CatalogEntry } from '../../catalog/enumerate.js';
import type { ReferenceCase } from '../../reference/model.js';
import type { Launcher } from './driver.js';

export const SLOT = 16;
export const BLOCK = 256;

/** The kernel's parameter list (every kernel takes the same). */
export const KERNEL_PARAMS = '(.param .u64 pmem, .param .u64 pb, .param .u64 pc, .param .u64 pout, .param .u64 pn, .param .u32 pmode)';

/** Case index i = ctaid.x * ntid.x + tid.x in %a5 (threads past n return), slot offset 16*i in %a6. */
export const CASE_INDEX = [
  '  mov.u32 %s0, %ctaid.x;',
  '  mov.u32 %s1, %ntid.x;',
  '  mov.u32 %s2, %tid.x;',
  '  mad.lo.u32 %s3, %s0, %s1, %s2;',
  '  cvt.u64.u32 %a5, %s3;',
  '  setp.ge.u64 %p, %a5, %a4;',
  '  @%p bra DONE;',
  `  mul.lo.u64 %a6, %a5, ${SLOT};`,
];

/** How one catalog variant runs: the executor fills this from the family's GpuFamily. */
export interface KernelShape {
  /** Element width in bits (the .type's, all packed lanes). */
  readonly width: number;
  /** Elements per case slot (vector length; bulk: 16 bytes' worth). */
  readonly elements: number;
  /** Whether the kernel writes returned values to `out`. */
  readonly returns: boolean;
  /** Whether the launch needs a cluster of 2 CTAs. */
  readonly clustered: boolean;
  /** Whether the variant takes generic addresses (a case's `space: shared` launches with mode 1). */
  readonly generic: boolean;
  /**
   * A bulk copy-reduction (cp.reduce.async.bulk): the memory it reduces into is named by its
   * destination (`.dst`), not by a `.space`, and a contention group of its scoped variants runs
   * across CTAs of the grid only (harness/contention/cases.ts asks this, not the family's name).
   */
  readonly bulkCopy?: boolean;
  /**
   * For a variant that reads a tensor map (cp.reduce.async.bulk.tensor): the executor encodes one per
   * launch over the launch's memory slots (tensorMapGeometry), copies it to device memory and passes
   * its address as the kernel's `pc` parameter (such a kernel takes no operand c).
   */
  readonly tensorMap?: { readonly dataType: number; readonly rank: number; readonly im2col?: boolean };
  /**
   * A case longer than one slot (a bulk reduction of more than 16 bytes): the case's bytes, a multiple
   * of SLOT. Case i of a launch then owns the `caseBytes / SLOT` slots from slot i * caseBytes / SLOT
   * of each buffer (its elements one after another, as in a one-slot case), `elements` counts all
   * of them, and the kernel (GpuFamily.wide) runs one CTA of `perCta.threads` per case, with
   * `perCta.sharedBytes` of dynamic shared memory and the case's bytes as its `pc` parameter.
   */
  readonly caseBytes?: number;
  readonly perCta?: { readonly threads: number; readonly sharedBytes: number };
}

/** The kernel name of a variant's kernel for cases longer than one slot (GpuFamily.wide). */
export const wideKernelName = (name: string): string => `${name}w`;

/** Slots a case of `shape` spans (1 unless caseBytes says more). */
export const slotsPerCase = (shape: KernelShape): number => (shape.caseBytes ?? SLOT) / SLOT;

/**
 * The tiled tensor map over n case slots of 16 bytes (E elements each) for a kernel whose case i
 * reduces one box of E elements at coordinates tensorCoords(i): rank 1 is one row of E*n elements;
 * rank d > 1 has an inner dimension of E, d-2 dimensions of 2 and an outer one of ceil(n / 2^(d-2)),
 * strides 16, 32, 64 ... bytes, box {E, 1, ...}, so that every coordinate takes several values.
 */
export function tensorMapGeometry(rank: number, elements: number, n: number): { dims: bigint[]; strides: bigint[]; box: number[]; elementStrides: number[] } {
  if (rank === 1) return { dims: [BigInt(elements * Math.max(n, 1))], strides: [], box: [elements], elementStrides: [1] };
  const twos = rank - 2;
  const dims = [BigInt(elements), ...Array.from({ length: twos }, () => 2n), BigInt(Math.max(1, Math.ceil(n / 2 ** twos)))];
  const strides = Array.from({ length: rank - 1 }, (_, k) => BigInt(SLOT * 2 ** k));
  return { dims, strides, box: [elements, ...Array.from({ length: rank - 1 }, () => 1)], elementStrides: Array.from({ length: rank }, () => 1) };
}

export interface GpuFamily {
  /** Why this executor cannot run the variant, or undefined when it can. */
  unsupported(e: CatalogEntry): string | undefined;
  shape(e: CatalogEntry): KernelShape;
  /** The kernel's PTX text, named `name`, with KERNEL_PARAMS and CASE_INDEX. */
  kernel(name: string, e: CatalogEntry, shape: KernelShape): string;
  /**
   * Why a case cannot run in a slot, or undefined. A family with `wide` answers undefined for a
   * case that `wide.bytes` places in a wide launch.
   */
  caseUnfit(c: ReferenceCase, shape: KernelShape): string | undefined;
  /**
   * Cases longer than one slot (bulk reductions of 32 bytes and more): `bytes` says how many bytes a
   * case spans (undefined: it fits the one-slot kernel), `shape` gives the launch shape of cases of
   * that many bytes (caseBytes, perCta) and `kernel` the one kernel (named wideKernelName(name)) that
   * runs every such size, reading it from `pc`.
   */
  readonly wide?: {
    bytes(c: ReferenceCase, shape: KernelShape): number | undefined;
    shape(e: CatalogEntry, base: KernelShape, bytes: number): KernelShape;
    kernel(name: string, e: CatalogEntry, shape: KernelShape): string;
  };
  /** How its variants run in exhaustive sweeps; absent: not swept. */
  readonly sweep?: SweepHooks;
  /**
   * How its variants run under contention (harness/contention/): the instruction on the address in
   * register `target` (u64 global or generic, u32 shared), operands %bv<k>/%cv<k>, returned values
   * into %d<k>; absent: not run under contention.
   */
  readonly contend?: {
    instruction(e: CatalogEntry, k: KernelShape, target: string): string[];
    /**
     * For a variant whose memory is `.shared::cluster` and that needs more than one instruction
     * there (a bulk reduction's mbarrier): the whole cluster path, given %slot (the group's global
     * slot), %sa (the group's slot in this CTA's `smem`), %gl (the group within the CTA), %n, %lead
     * (the cluster's first CTA) and the operands %bv<k>; it stages the slot in the first CTA, applies
     * the operation from every CTA, and copies the slot back. Such a variant runs only in clusters.
     */
    cluster?(e: CatalogEntry, k: KernelShape): { readonly decls: readonly string[]; readonly lines: readonly string[] };
  };
}

/**
 * The family's part of an exhaustive sweep kernel (harness/sweep/kernel.ts writes the rest: operands
 * from the pair index, results hashed into cell records). Optional: a family without it is not swept.
 */
export interface SweepHooks {
  /** The per-lane operation a sweep of `e` checks ('add', 'min', 'max', 'cas'), or undefined: not swept. */
  op(e: CatalogEntry): string | undefined;
  /** Where a sweep's memory lands: mode 0, and mode 1 too where a generic address may point into shared memory. */
  modes(e: CatalogEntry, k: KernelShape): readonly (0 | 1)[];
  /** Whether `e`, less its ordering, scope and cache hint, is the spelling on which each of those is swept. */
  qualifierRepresentative(e: CatalogEntry): boolean;
  /**
   * The PTX applying `e` to one thread's elements: memory in %m<k>, operand b in %bv<k>, c in %cv<k>
   * (registers .b<width>), returned values into %d<k> when k.returns. It may use %addr (u64: the
   * thread's 16-byte-aligned place in the results buffer, where a global memory operand lives), %sa
   * (u32: the thread's 16-byte slot in shared memory `smem`), %mode (u32: bit 0 = mode 1), %gen
   * (pred), %x64 (u64) and %pol (u64). `result` says where the results are read back: the load
   * (`ld.global`, `ld.shared`, `ld`) and the base register.
   */
  body(
    e: CatalogEntry,
    k: KernelShape,
  ): { readonly decls: readonly string[]; readonly lines: readonly string[]; readonly result: { readonly ld: string; readonly base: string } };
}

/** The 128-byte tensor map of a launch of n cases whose memory slots start at `base`. */
export function encodeTensorMap(
  l: Launcher,
  tm: { readonly dataType: number; readonly rank: number; readonly im2col?: boolean },
  base: bigint,
  elements: number,
  n: number,
): Buffer {
  const g = tensorMapGeometry(tm.rank, elements, n);
  if (tm.im2col) {
    // the same dims and strides read as C (the E elements of a slot), W, H, D (2 each), N; one pixel
    // of E channels per column; the bounding box the whole DHW extent (both corner offsets 0)
    const i = im2colGeometry(tm.rank);
    return l.tensorMapEncodeIm2col(tm.dataType, base, g.dims, g.strides, i.lower, i.upper, elements, i.pixelsPerColumn, g.elementStrides);
  }
  return l.tensorMapEncodeTiled(tm.dataType, base, g.dims, g.strides, g.box, g.elementStrides);
}

/**
 * The im2col parameters of a rank-3..5 map over the slots laid out as tensorMapGeometry lays them
 * (dims C = E, then W, H, D of 2 each, then N): Pixels-per-Column 1, both bounding-box corner
 * offsets 0 in each of the rank-2 DHW dimensions (cuTensorMapEncodeIm2col: the lower corner's offsets
 * are "from top/left/front corner", the upper's "from bottom/right/back corner", so the box is the
 * whole DHW extent and every filter base coordinate lies in it).
 */
export function im2colGeometry(rank: number): { lower: number[]; upper: number[]; pixelsPerColumn: number } {
  if (rank < 3 || rank > 5) throw new Error(`an im2col tensor map has rank 3-5, not ${rank}`);
  return { lower: Array.from({ length: rank - 2 }, () => 0), upper: Array.from({ length: rank - 2 }, () => 0), pixelsPerColumn: 1 };
}
