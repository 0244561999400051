/**
 * What the GPU-only commands (`sweep`, `contend`) share: the --backend they accept, the GPU they
 * need (or a plain exit-2 message why there is none), and the toolchain fields of their reports.
 */
import type { Target } from '../arch/targets.js';
import { type Selected, selectBackend } from '../backends/select.js';
import { UsageError } from './errors.js';

/** --backend for a GPU-only command: gpu or auto (the same), else a UsageError saying why. */
export function checkGpuOnly(backend: string | undefined, what: string, why: string): void {
  if (backend !== undefined && backend !== 'gpu' && backend !== 'auto') throw new UsageError(`--backend ${backend}: ${what} runs on the gpu backend only (--backend gpu or auto): ${why}`);
}

/** The GPU for a GPU-only command; without one, a UsageError (exit 2) saying why and what to do instead. */
export async function gpuFor(target: Target, what: string, instead: string): Promise<Selected> {
  try {
    return await selectBackend('gpu', target);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new UsageError(`${what} on a GPU, and there is none to use here: ${e.message.replace(/\s*Use --backend ptxas or --backend reference\.?$/, '').replace(/\.$/, '')}. ${instead}`);
  }
}

/** A report's record of the ptxas a run used. */
export function ptxasFields(p: NonNullable<Selected['ptxas']>) {
  return { path: p.path, foundVia: p.foundVia, release: p.release, versionLine: p.versionLine, maxPtx: p.maxPtx, targets: p.targets };
}

/** The report's toolchain fields of a gpu run: ptxas as found, and the GPU. */
export function toolchainOf(b: Selected) {
  return { ...(b.ptxas ? { ptxas: ptxasFields(b.ptxas) } : {}), gpu: { device: b.device, driverVersion: b.driverVersion } };
}
