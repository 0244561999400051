/**
 * The default run's workers, started with the run, before its expectations are read and its backend
 * chosen: their CUDA contexts (about 1 s for 8 on an H200, one after another) start while the run
 * gets that far. Only where the run can be a default gpu run (--backend gpu or auto, no --vectors,
 * --case, --filter or --shard) on a machine with an NVIDIA device node; the run closes them where
 * it does not take them (another backend, an error). The gpu backend's module is loaded only then.
 */
import { existsSync } from 'node:fs';
import type { WorkerPool } from './pool.js';

/** The options that make a run the default gpu run's shape (every variant: no cases given, no --filter or --shard). */
interface RunShape {
  readonly vectors: readonly string[];
  readonly case?: string;
  readonly filter?: string;
  readonly shard?: unknown;
}

/** Whether a run is the whole library's (the gpu backend starts its workers early for it: startEarly). */
export function wholeLibraryRun(o: RunShape): boolean {
  return !o.vectors.length && o.case === undefined && !o.filter && !o.shard;
}

export async function prestartGpuWorkers(
  o: RunShape & {
    readonly backend: string;
    readonly workers?: number;
    /** The device node whose presence says an NVIDIA driver is loaded (tests name another file). */
    readonly deviceNode?: string;
  },
): Promise<WorkerPool | undefined> {
  if ((o.backend !== 'gpu' && o.backend !== 'auto') || !wholeLibraryRun(o)) return undefined;
  if (!existsSync(o.deviceNode ?? '/dev/nvidiactl')) return undefined;
  return (await import('./backend.js')).startGpuWorkers(o.workers);
}
