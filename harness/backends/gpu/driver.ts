/**
 * Loads the native CUDA launcher (native/) and wraps it with typed, checked calls. Loading never
 * throws: a missing addon or driver comes back as a reason with the fixes to try, so callers can
 * fall back to the backends they still have. Nothing here can create a multicast object: the addon
 * has no binding for it.
 */
import { specEdition } from '../../catalog/editions.js';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromRoot } from '../../util/paths.js';

export interface Launcher {
  status(): { driver: boolean; reason?: string };
  init(): { driverVersion: number; deviceCount: number };
  device(ordinal: number, attrs: number[]): { name: string; values: (number | null)[] };
  useDevice(ordinal: number): void;
  loadModule(cubin: Buffer): bigint;
  unloadModule(m: bigint): void;
  getFunction(m: bigint, name: string): bigint;
  memAlloc(bytes: number): bigint;
  memFree(p: bigint): void;
  copyToDevice(p: bigint, b: Buffer): void;
  copyFromDevice(b: Buffer, p: bigint): void;
  launch(
    fn: bigint,
    grid: [number, number, number],
    block: [number, number, number],
    sharedBytes: number,
    cluster: [number, number, number],
    params: bigint[],
  ): void;
  synchronize(): void;
  /**
   * cuTensorMapEncodeTiled (no interleave, swizzle or L2 promotion; out-of-bound elements zero):
   * the 128-byte tensor map, to copy where a kernel reads it. Strides in bytes, one fewer than dims.
   */
  tensorMapEncodeTiled(
    dataType: number,
    globalAddress: bigint,
    globalDim: bigint[],
    globalStrides: bigint[],
    boxDim: number[],
    elementStrides: number[],
  ): Buffer;
  /**
   * cuTensorMapEncodeIm2col (rank 3-5; no interleave, swizzle or L2 promotion; out-of-bound elements
   * zero): corners are the rank-2 {D, H, W} offsets of the bounding box from the tensor's first and
   * last pixel (both 0: the whole DHW extent).
   */
  tensorMapEncodeIm2col(
    dataType: number,
    globalAddress: bigint,
    globalDim: bigint[],
    globalStrides: bigint[],
    lowerCorner: number[],
    upperCorner: number[],
    channelsPerPixel: number,
    pixelsPerColumn: number,
    elementStrides: number[],
  ): Buffer;
  /** cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES): needed before a launch with more than 48 KiB of dynamic shared memory. */
  funcMaxDynamicShared(fn: bigint, bytes: number): void;
  /** native/src/peer.cc (absent in an addon built before it): cuDeviceCanAccessPeer both ways and cuDeviceGetP2PAttribute a -> b. */
  peerLink?(a: number, b: number): PeerLinkInfo;
  /** cuCtxEnablePeerAccess between the two devices' primary contexts, both ways (the current context is kept). */
  peerEnable?(a: number, b: number): void;
  /** cuMemAlloc in a device's primary context (the current context is kept). */
  memAllocOn?(ordinal: number, bytes: number): bigint;
  /** cuCtxSynchronize of a device's primary context (the current context is kept). */
  synchronizeOn?(ordinal: number): void;
  /**
   * native/src/views.cc (absent in an addon built before it): one physical allocation of at least
   * `bytes` (cuMemCreate once) mapped `views` times back to back (cuMemMap per view): byte o of view
   * k, at base + k * viewBytes, is byte o of view 0 under another virtual address. No multicast.
   */
  memAllocViews?(bytes: number, views: number): { base: bigint; viewBytes: number };
  /** Unmaps every view of memAllocViews's allocation at `base`, frees its addresses and releases it. */
  memFreeViews?(base: bigint): void;
}

/** What the driver says of the link from device a to device b (null: the driver gave no value). */
export interface PeerLinkInfo {
  readonly canAccess: readonly [boolean, boolean];
  readonly attributes: {
    readonly performanceRank: number | null;
    readonly accessSupported: number | null;
    readonly nativeAtomicSupported: number | null;
    readonly cudaArrayAccessSupported: number | null;
  };
}

/** CU_TENSOR_MAP_DATA_TYPE_* values from cuda.h (CUDA 13.0). */
export const TENSOR_MAP_TYPE = {
  UINT8: 0,
  UINT16: 1,
  UINT32: 2,
  INT32: 3,
  UINT64: 4,
  INT64: 5,
  FLOAT16: 6,
  FLOAT32: 7,
  FLOAT64: 8,
  BFLOAT16: 9,
  FLOAT32_FTZ: 10,
} as const;

/** CU_DEVICE_ATTRIBUTE_* values from cuda.h (CUDA 13.0). */
export const ATTR = {
  MULTIPROCESSOR_COUNT: 16,
  COMPUTE_CAPABILITY_MAJOR: 75,
  COMPUTE_CAPABILITY_MINOR: 76,
  MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 97,
  MULTICAST_SUPPORTED: 132,
} as const;

export type LoadResult = { launcher: Launcher; path: string } | { reason: string; fixes: string[]; tried: string[] };

/** Candidate addon paths: beside the repository's native/ build, or beside a bundle. */
function candidates(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  return [
    process.env.PTX_CONFORMANCE_ADDON,
    resolve(here, '..', '..', '..', 'native', 'build', 'Release', 'cuda_launcher.node'),
    join(here, 'cuda_launcher.node'),
    fromRoot('native', 'build', 'Release', 'cuda_launcher.node'),
  ].filter((p): p is string => !!p);
}

export function loadLauncher(): LoadResult {
  const req = createRequire(import.meta.url);
  const tried: string[] = [];
  const errors: string[] = [];
  for (const p of candidates()) {
    tried.push(p);
    if (!existsSync(p)) continue;
    try {
      const launcher = req(p) as Launcher & { bindRun?: (h: { specEdition: () => string }) => void };
      // a launcher written in JS (the tests' stand-ins) judges with a copy of the harness of its own:
      // it is handed this one's run context, so that it works under the run's edition
      launcher.bindRun?.({ specEdition });
      return { launcher, path: p };
    } catch (e) {
      errors.push(`${p}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const statusFile = fromRoot('native', 'build', 'status.json');
  let built = '';
  if (existsSync(statusFile)) {
    const s = JSON.parse(readFileSync(statusFile, 'utf8')) as { built: boolean; reason?: string };
    if (!s.built) built = ` (the install did not build it: ${s.reason})`;
  }
  return {
    reason: errors.length ? `the native CUDA launcher did not load: ${errors.join('; ')}` : `the native CUDA launcher is not built${built}`,
    fixes: [
      'run `npm rebuild` (needs python3, make, g++ and the CUDA headers; set CUDA_HOME)',
      'set PTX_CONFORMANCE_ADDON to a built cuda_launcher.node',
      'use --backend ptxas or --backend reference',
    ],
    tried,
  };
}

/** Loads the launcher, makes device 0 current and loads a cubin; throws with the reason if it cannot. */
export function openModule(cubin: Buffer): { launcher: Launcher; module: bigint } {
  const loaded = loadLauncher();
  if (!('launcher' in loaded)) throw new Error(loaded.reason);
  const l = loaded.launcher;
  l.init();
  l.useDevice(0);
  return { launcher: l, module: l.loadModule(cubin) };
}

export interface DeviceInfo {
  readonly ordinal: number;
  readonly name: string;
  readonly cc: string;
  readonly sm: number;
  readonly smCount: number;
  readonly multicastSupported: boolean;
  /** Shared memory one CTA may have once a kernel asks (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), bytes; absent: not asked. */
  readonly sharedPerBlockOptin?: number;
}

/** Driver version and every device's properties; throws with the CUresult name on driver errors. */
export function probeDevices(l: Launcher): { driverVersion: number; devices: DeviceInfo[] } {
  const { driverVersion, deviceCount } = l.init();
  const devices: DeviceInfo[] = [];
  for (let i = 0; i < deviceCount; i++) {
    const d = l.device(i, [
      ATTR.COMPUTE_CAPABILITY_MAJOR,
      ATTR.COMPUTE_CAPABILITY_MINOR,
      ATTR.MULTIPROCESSOR_COUNT,
      ATTR.MULTICAST_SUPPORTED,
      ATTR.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
    ]);
    const [maj, min, sms, mc, shm] = d.values;
    devices.push({
      ordinal: i,
      name: d.name,
      cc: `${maj}.${min}`,
      sm: (maj ?? 0) * 10 + (min ?? 0),
      smCount: sms ?? 0,
      multicastSupported: mc === 1,
      ...(shm ? { sharedPerBlockOptin: shm } : {}),
    });
  }
  return { driverVersion, devices };
}
