/**
 * What one run of `npm run conformance` hands the executor it chose (run-backend.ts): the options,
 * the target, the backend selected and why, where to print, how to start the report, and the hooks
 * of a toolchain matrix. An executor (reference, gpu, ptxas, multicast) runs its cases into the
 * recorder it starts and returns it, or an exit code when nothing was run (2: bad input).
 */
import type { Target } from '../arch/targets.js';
import type { Selected } from '../backends/select.js';
import type { RunRecorder } from '../report/recorder.js';
import type { Options } from './args.js';
import type { Io } from './io.js';
import type { RunHooks } from './matrix.js';

export interface RunContext {
  readonly opts: Options;
  readonly target: Target;
  readonly io: Io;
  /** The backend that runs (auto resolved), why, and what was passed over. */
  readonly backend: Selected;
  /** Whether the run was given its cases (--vectors, --case) rather than running the library. */
  readonly wantsCases: boolean;
  readonly hooks: RunHooks;
  /** Starts the report (once the run is sure to start); `keepPasses`: the passes kept whole. */
  startRecorder(keepPasses?: number): RunRecorder;
}

/** One backend's run: the recorder it filled, or an exit code when nothing ran. */
export type Executor = (ctx: RunContext) => Promise<RunRecorder | number>;
