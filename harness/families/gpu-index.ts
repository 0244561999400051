/**
 * The families the gpu executor (one GPU, no multicast) can run, each with its own gpu.ts. A
 * family missing here is run by the other executors only (multimem needs a multicast object).
 */
import type { GpuFamily } from '../backends/gpu/family.js';
import { atomGpu } from './atom/gpu.js';
import { bulkGpu } from './cp-reduce-async-bulk/gpu.js';
import { tensorGpu } from './cp-reduce-async-bulk-tensor/gpu.js';
import { redGpu } from './red/gpu.js';
import { redAsyncGpu } from './red-async/gpu.js';

const GPU: Readonly<Record<string, GpuFamily>> = {
  atom: atomGpu,
  red: redGpu,
  'cp.reduce.async.bulk': bulkGpu,
  'cp.reduce.async.bulk.tensor': tensorGpu,
  'red.async': redAsyncGpu,
};

export function gpuFamily(id: string): GpuFamily | undefined {
  return GPU[id];
}

export const GPU_FAMILY_IDS: readonly string[] = Object.keys(GPU);
