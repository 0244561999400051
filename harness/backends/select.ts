/**
 * Backend selection. `auto` takes the richest backend this machine can run and says why; an
 * explicitly requested backend that cannot run is a usage error naming what is missing.
 */
import { UsageError } from '../util/errors.js';
import type { Target } from '../arch/targets.js';
import { type DeviceInfo, loadLauncher, probeDevices } from './gpu/driver.js';
import { type Ptxas, ToolchainError, probePtxas } from './ptxas/toolchain.js';

import type { BackendName } from './names.js';

export { BACKENDS, type BackendName } from './names.js';

export interface Selected {
  readonly name: 'reference' | 'ptxas' | 'gpu' | 'multicast';
  readonly device?: DeviceInfo;
  readonly driverVersion?: number;
  readonly reason: string;
  readonly ptxas?: Ptxas;
  /** Why richer backends were passed over. */
  readonly passedOver: readonly string[];
  /** Why the gpu backend cannot run here, where the probe found it cannot. */
  readonly gpuUnavailable?: string;
}

/** Whether a device of compute capability `sm` runs code built for `t` (a: same sm; f: same family, >=). */
export function deviceRuns(sm: number, t: Target): boolean {
  if (t.suffix === 'a') return sm === t.sm;
  if (t.suffix === 'f') return Math.floor(sm / 10) === Math.floor(t.sm / 10) && sm >= t.sm;
  return sm >= t.sm;
}

function probeGpu(target: Target): { device: DeviceInfo; driverVersion: number } | string {
  const l = loadLauncher();
  if (!('launcher' in l)) return `gpu backend: ${l.reason} (fixes: ${l.fixes.join('; ')})`;
  const st = l.launcher.status();
  if (!st.driver) return `gpu backend: ${st.reason}`;
  let info;
  try {
    info = probeDevices(l.launcher);
  } catch (e) {
    return `gpu backend: the driver failed: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (!info.devices.length) return 'gpu backend: the driver reports no device';
  const d = info.devices.find((x) => deviceRuns(x.sm, target));
  if (!d) return `gpu backend: ${info.devices.map((x) => `${x.name} (sm_${x.sm})`).join(', ')} cannot run ${target.name}; compiled with ptxas only`;
  return { device: d, driverVersion: info.driverVersion };
}

async function tryPtxas(chosen: string | undefined): Promise<Ptxas | string> {
  try {
    return await probePtxas(chosen);
  } catch (e) {
    if (e instanceof ToolchainError) return e.message;
    throw e;
  }
}

/** The backend to run (`ptxasPath`: the ptxas --ptxas chose; undefined: the one found). */
export async function selectBackend(requested: BackendName, target: Target, ptxasPath?: string): Promise<Selected> {
  if (requested === 'reference') return { name: 'reference', reason: 'requested with --backend reference', passedOver: [] };
  const g = probeGpu(target);
  const gpuUnavailable = typeof g === 'string' ? g : 'gpu backend: not probed';
  const p = await tryPtxas(ptxasPath);
  if (requested === 'gpu' || (requested === 'auto' && typeof g !== 'string' && typeof p !== 'string')) {
    if (typeof g === 'string') throw new UsageError(`${g}. Use --backend ptxas or --backend reference.`);
    if (typeof p === 'string') throw new UsageError(`gpu backend needs ptxas to compile its kernels: ${p}`);
    return {
      name: 'gpu',
      reason: `${requested === 'auto' ? 'auto' : 'requested with --backend gpu'}: ${g.device.name} (sm_${g.device.sm}, driver ${g.driverVersion}, multicast ${g.device.multicastSupported ? 'supported' : 'not supported'}); ${describe(p)}`,
      ptxas: p,
      device: g.device,
      driverVersion: g.driverVersion,
      passedOver: [],
    };
  }
  if (requested === 'ptxas') {
    if (typeof p === 'string') throw new UsageError(p);
    return { name: 'ptxas', reason: `requested with --backend ptxas; ${describe(p)}`, ptxas: p, passedOver: [], gpuUnavailable };
  }
  const passedOver = [gpuUnavailable];
  if (typeof p !== 'string') return { name: 'ptxas', reason: `auto: ${describe(p)}; ${gpuUnavailable}`, ptxas: p, passedOver, gpuUnavailable };
  passedOver.push(`ptxas backend: ${p}`);
  return { name: 'reference', reason: `auto: no toolchain: ${p}; ${gpuUnavailable}`, passedOver, gpuUnavailable };
}

function describe(p: Ptxas): string {
  return `ptxas ${p.release} (PTX ISA up to ${p.maxPtx}) found via ${p.foundVia} at ${p.path}`;
}
