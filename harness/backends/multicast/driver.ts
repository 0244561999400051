/**
 * The driver calls the multicast executor makes, as an interface: the native binding
 * (native/src/multicast.cc, loaded only by this backend) implements it over the CUDA driver API on
 * a user's NVLS system; the stand-in (standin.ts) implements it in TypeScript for tests, simulating
 * the switch with a configurable reduction order and accumulation precision and recording every
 * call. Each method names the driver function(s) it stands for.
 */

/** An opaque handle (CUmemGenericAllocationHandle, CUfunction, ...). */
export type Handle = bigint;

/** One kernel: every thread t < `threads` issues the variant once, on the t-th slot of `slotBytes`. */
export interface MulticastKernel {
  /** The instruction, canonical spelling (e.g. multimem.ld_reduce.relaxed.sys.global.add.f32). */
  readonly ptx: string;
  readonly family: string;
  /** Module text for the native path (PTX, one entry `multimem_kernel(mc, b, out, n)`). */
  readonly module: string;
  readonly threads: number;
  readonly slotBytes: number;
}

export interface MulticastDriver {
  /** Which driver this is (printed in the report): 'cuda <version>' or 'stand-in ...'. */
  readonly name: string;
  /** cuMulticastGetGranularity (CU_MULTICAST_GRANULARITY_RECOMMENDED) for `devices` devices. */
  granularity(devices: number, bytes: number): number;
  /** cuMulticastCreate: a multicast object of `bytes` for `devices` devices. */
  createMulticast(devices: number, bytes: number): Handle;
  /** cuMulticastAddDevice (before any memory is bound). */
  addDevice(mc: Handle, device: number): void;
  /** cuMemCreate on `device` (pinned device memory, exportable for multicast). */
  allocPhysical(device: number, bytes: number): Handle;
  /** cuMulticastBindMem: `mem` becomes `device`'s replica of the object, offset 0. */
  bindMemory(mc: Handle, device: number, mem: Handle, bytes: number): void;
  /** cuMemAddressReserve + cuMemMap(mc) + cuMemSetAccess for `device`: the multicast address. */
  mapMulticast(mc: Handle, device: number, bytes: number): bigint;
  /** cuMemAddressReserve + cuMemMap(mem) + cuMemSetAccess for `device`: one replica's own address. */
  mapUnicast(mem: Handle, device: number, bytes: number): bigint;
  /** cuMemAlloc on `device`: the issuing device's operand and result buffers. */
  allocPlain(device: number, bytes: number): bigint;
  /** cuMemcpyHtoD on `device`'s context (synchronous). */
  write(device: number, va: bigint, data: Buffer): void;
  /** cuMemcpyDtoH on `device`'s context (synchronous). */
  read(device: number, va: bigint, bytes: number): Buffer;
  /** cuModuleLoadData (via ptxas's cubin or the PTX) + cuModuleGetFunction on `device`. */
  loadKernel(device: number, k: MulticastKernel): Handle;
  /** cuLaunchKernel(mc, b, out, n) on `device`, then cuCtxSynchronize. */
  launch(device: number, fn: Handle, k: MulticastKernel, args: { readonly mc: bigint; readonly b: bigint; readonly out: bigint }): void;
  /** cuModuleUnload. */
  unloadKernel(device: number, fn: Handle): void;
  /** cuMemFree. */
  freePlain(device: number, va: bigint): void;
  /** cuMemUnmap + cuMemAddressFree. */
  unmap(va: bigint, bytes: number): void;
  /** cuMulticastUnbind. */
  unbindMemory(mc: Handle, device: number, bytes: number): void;
  /** cuMemRelease of a physical allocation. */
  releasePhysical(mem: Handle): void;
  /** cuMemRelease of the multicast handle. */
  releaseMulticast(mc: Handle): void;
}
