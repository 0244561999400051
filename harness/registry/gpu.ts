/**
 * The families the gpu executor (one GPU, no multicast) can run, each with its own gpu.ts, handed in
 * by `registerAllFamilies()` (harness/families/index.ts). A family missing here is run by the other
 * executors only (multimem needs a multicast object).
 */
import type { GpuFamily } from '../backends/gpu/family.js';
import { NOT_REGISTERED } from './index.js';

let gpu: ReadonlyMap<string, GpuFamily> | undefined;

/** Registers the gpu executor's families by family id (a second call replaces the first). */
export function registerGpuFamilies(table: Readonly<Record<string, GpuFamily>>): void {
  gpu = new Map(Object.entries(table));
}

function table(): ReadonlyMap<string, GpuFamily> {
  if (!gpu) throw new Error(`${NOT_REGISTERED} (the gpu executor's families are registered with them)`);
  return gpu;
}

/** The gpu executor's part of family `id`, or undefined where that executor does not run it. */
export function gpuFamily(id: string): GpuFamily | undefined {
  return table().get(id);
}

/** The ids of the families the gpu executor runs. */
export function gpuFamilyIds(): readonly string[] {
  return [...table().keys()];
}
