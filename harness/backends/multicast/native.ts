/**
 * The MulticastDriver over the native binding (native/src/multicast.cc, cuda_multicast.node), for a
 * user's NVLS system. Loaded only by the multicast backend's child process after the guard has
 * passed; kernels are compiled by ptxas (one cubin per kernel) and loaded from the cubin.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromRoot } from '../../util/paths.js';
import type { Handle, MulticastDriver, MulticastKernel } from './driver.js';

interface Binding {
  status(): { driver: boolean; reason?: string };
  granularity(devices: number, bytes: number, ordinal: number): number;
  createMulticast(devices: number, bytes: number): bigint;
  addDevice(mc: bigint, ordinal: number): void;
  allocPhysical(ordinal: number, bytes: number): bigint;
  bindMemory(mc: bigint, ordinal: number, mem: bigint, bytes: number): void;
  map(handle: bigint, ordinal: number, bytes: number): bigint;
  unmap(va: bigint, bytes: number): void;
  allocPlain(ordinal: number, bytes: number): bigint;
  freePlain(ordinal: number, va: bigint): void;
  write(ordinal: number, va: bigint, data: Buffer): void;
  read(ordinal: number, va: bigint, bytes: number): Buffer;
  loadKernel(ordinal: number, cubin: Buffer): [bigint, bigint];
  unloadKernel(ordinal: number, module: bigint): void;
  launch(ordinal: number, fn: bigint, threads: number, mc: bigint, b: bigint, out: bigint): void;
  unbindMemory(mc: bigint, ordinal: number, bytes: number): void;
  release(handle: bigint): void;
}

/** The binding, or why it cannot be loaded. */
export function loadMulticastBinding(): { binding: Binding; path: string } | { reason: string } {
  const here = dirname(fileURLToPath(import.meta.url));
  const paths = [
    process.env.PTX_CONFORMANCE_MULTICAST_ADDON,
    resolve(here, '..', '..', '..', 'native', 'build', 'Release', 'cuda_multicast.node'),
    fromRoot('native', 'build', 'Release', 'cuda_multicast.node'),
  ].filter((p): p is string => !!p);
  const req = createRequire(import.meta.url);
  for (const p of paths) {
    if (!existsSync(p)) continue;
    try {
      return { binding: req(p) as Binding, path: p };
    } catch (e) {
      return { reason: `${p} did not load: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  return { reason: `the native multicast binding is not built (looked for ${paths.join(', ')}); run \`npm rebuild\` with the CUDA headers present` };
}

export class NativeMulticast implements MulticastDriver {
  readonly name: string;
  private readonly functions = new Map<Handle, bigint>();
  constructor(
    private readonly b: Binding,
    private readonly ptxasPath: string,
    private readonly target: string,
    driverName: string,
  ) {
    this.name = driverName;
  }
  granularity(devices: number, bytes: number): number {
    return this.b.granularity(devices, bytes, 0);
  }
  createMulticast(devices: number, bytes: number): Handle {
    return this.b.createMulticast(devices, bytes);
  }
  addDevice(mc: Handle, device: number): void {
    this.b.addDevice(mc, device);
  }
  allocPhysical(device: number, bytes: number): Handle {
    return this.b.allocPhysical(device, bytes);
  }
  bindMemory(mc: Handle, device: number, mem: Handle, bytes: number): void {
    this.b.bindMemory(mc, device, mem, bytes);
  }
  mapMulticast(mc: Handle, device: number, bytes: number): bigint {
    return this.b.map(mc, device, bytes);
  }
  mapUnicast(mem: Handle, device: number, bytes: number): bigint {
    return this.b.map(mem, device, bytes);
  }
  allocPlain(device: number, bytes: number): bigint {
    return this.b.allocPlain(device, bytes);
  }
  write(device: number, va: bigint, data: Buffer): void {
    this.b.write(device, va, data);
  }
  read(device: number, va: bigint, bytes: number): Buffer {
    return this.b.read(device, va, bytes);
  }
  loadKernel(device: number, k: MulticastKernel): Handle {
    const dir = mkdtempSync(join(tmpdir(), 'ptxconf-mc-'));
    try {
      writeFileSync(join(dir, 'k.ptx'), k.module);
      execFileSync(this.ptxasPath, [`-arch=${this.target}`, join(dir, 'k.ptx'), '-o', join(dir, 'k.cubin')], { stdio: 'pipe' });
      const [module, fn] = this.b.loadKernel(device, readFileSync(join(dir, 'k.cubin')));
      this.functions.set(module, fn);
      return module;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  launch(device: number, module: Handle, k: MulticastKernel, args: { mc: bigint; b: bigint; out: bigint }): void {
    this.b.launch(device, this.functions.get(module)!, k.threads, args.mc, args.b, args.out);
  }
  unloadKernel(device: number, module: Handle): void {
    this.functions.delete(module);
    this.b.unloadKernel(device, module);
  }
  freePlain(device: number, va: bigint): void {
    this.b.freePlain(device, va);
  }
  unmap(va: bigint, bytes: number): void {
    this.b.unmap(va, bytes);
  }
  unbindMemory(mc: Handle, device: number, bytes: number): void {
    this.b.unbindMemory(mc, device, bytes);
  }
  releasePhysical(mem: Handle): void {
    this.b.release(mem);
  }
  releaseMulticast(mc: Handle): void {
    this.b.release(mc);
  }
}
