/**
 * Backend selection. `auto` takes the richest backend this machine can run and says why; an
 * explicitly requested backend that cannot run is a usage error naming what is missing.
 */
import { UsageError } from '../cli/errors.js';
import { type Ptxas, ToolchainError, probePtxas } from './ptxas/toolchain.js';

export const BACKENDS = ['auto', 'reference', 'ptxas', 'gpu'] as const;
export type BackendName = (typeof BACKENDS)[number];

export interface Selected {
  readonly name: 'reference' | 'ptxas';
  readonly reason: string;
  readonly ptxas?: Ptxas;
  /** Why richer backends were passed over. */
  readonly passedOver: readonly string[];
}

/** Why the gpu backend cannot run in this build. */
export const GPU_UNAVAILABLE =
  'gpu backend: the native CUDA launcher (native/) is not part of this build yet, so nothing can run on a GPU';

async function tryPtxas(): Promise<Ptxas | string> {
  try {
    return await probePtxas();
  } catch (e) {
    if (e instanceof ToolchainError) return e.message;
    throw e;
  }
}

export async function selectBackend(requested: BackendName): Promise<Selected> {
  if (requested === 'gpu') throw new UsageError(`${GPU_UNAVAILABLE}. Use --backend ptxas or --backend reference.`);
  if (requested === 'reference') return { name: 'reference', reason: 'requested with --backend reference', passedOver: [] };
  const p = await tryPtxas();
  if (requested === 'ptxas') {
    if (typeof p === 'string') throw new UsageError(p);
    return { name: 'ptxas', reason: `requested with --backend ptxas; ${describe(p)}`, ptxas: p, passedOver: [] };
  }
  const passedOver = [GPU_UNAVAILABLE];
  if (typeof p !== 'string') return { name: 'ptxas', reason: `auto: ${describe(p)}; ${GPU_UNAVAILABLE}`, ptxas: p, passedOver };
  passedOver.push(`ptxas backend: ${p}`);
  return { name: 'reference', reason: `auto: no toolchain: ${p}; ${GPU_UNAVAILABLE}`, passedOver };
}

function describe(p: Ptxas): string {
  return `ptxas ${p.release} (PTX ISA up to ${p.maxPtx}) found via ${p.foundVia} at ${p.path}`;
}
