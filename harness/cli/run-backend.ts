/**
 * Which executor runs: the backend the options ask for (auto: the richest this machine has), said
 * with why; the --vectors files another PTX ISA edition's text judges, left out; then one row of
 * EXECUTORS. Adding a backend is one row here and its module.
 */
import type { Target } from '../arch/targets.js';
import { type Selected, selectBackend } from '../backends/select.js';
import { GENERATED_PER_LEVEL } from '../case-readers/sources.js';
import { vectorFilesByEdition } from '../case-readers/vectors.js';
import type { RunRecorder } from '../report/recorder.js';
import { UsageError } from '../util/errors.js';
import type { Options } from './args.js';
import type { Io } from './io.js';
import type { RunHooks } from './matrix.js';
import type { Executor } from './run-context.js';

/** The executor of each backend, loaded when it runs. */
const EXECUTORS: Record<Selected['name'], () => Promise<Executor>> = {
  reference: async () => (await import('./run-reference.js')).runReference,
  gpu: async () => (await import('./run-gpu.js')).runGpu,
  ptxas: async () => (await import('./run-ptxas.js')).runPtxas,
  multicast: async () => (await import('./multicast.js')).runMulticast,
};

/** Runs the backend the options choose into the recorder `startRecorder` makes once the run is sure to start. */
export async function runBackend(
  opts: Options,
  target: Target,
  io: Io,
  startRecorder: (keepPasses?: number) => RunRecorder,
  hooks: RunHooks = {},
): Promise<RunRecorder | number> {
  const wantsCases = opts.vectors.length > 0 || opts.case !== undefined;
  if (opts.backend === 'multicast') {
    const why = generatedIgnored(opts, 'multicast', wantsCases);
    if (why) io.err(why);
    // never chosen by auto: it runs only when named (with --allow-multicast), and selects its devices itself
    const backend: Selected = { name: 'multicast', reason: 'requested with --backend multicast', passedOver: [] };
    return (await EXECUTORS.multicast())({ opts, target, io, backend, wantsCases, hooks, startRecorder });
  }
  if (wantsCases && opts.backend === 'ptxas')
    throw new UsageError('--vectors and --case run cases, which the ptxas backend (compile acceptance only) cannot; use --backend reference or --backend gpu');
  let backend: Selected = await selectBackend(opts.backend, target, opts.ptxas[0]);
  if (wantsCases && backend.name === 'ptxas') {
    const why = backend.gpuUnavailable ?? 'gpu backend: not probed';
    backend = {
      name: 'reference',
      reason: `auto: --vectors/--case run cases: the gpu backend would run them on hardware, but ${why.replace(/^gpu backend: /, '')}; the reference model runs them here`,
      passedOver: [why],
    };
  }
  io.err(`backend: ${backend.name} (${backend.reason})`);
  const ignored = generatedIgnored(opts, backend.name, wantsCases);
  if (ignored) io.err(ignored);
  if (opts.vectors.length) {
    // files whose editions: header names other PTX ISA editions: their expect: values follow another text
    const { files, leftOut } = await vectorFilesByEdition(opts.vectors);
    for (const l of leftOut)
      io.err(`--vectors: left out ${l.file}: its editions: header says ${l.editions}, this run is judged against PTX ISA ${opts.specEdition} (--spec-edition)`);
    if (!files.length)
      throw new UsageError(
        `--vectors: every file is for other PTX ISA editions (${leftOut.map((l) => `${l.file}: ${l.editions}`).join('; ')}); run with --spec-edition set to one of them`,
      );
  }
  const executor = await EXECUTORS[backend.name]();
  return executor({ opts, target, io, backend, wantsCases, hooks, startRecorder });
}

/**
 * Why --generated, when given, does not apply to this run (it sets the gpu backend's random cases
 * per variant), and what runs instead; undefined where it applies.
 */
function generatedIgnored(opts: Options, backend: string, wantsCases: boolean): string | undefined {
  if (!opts.generatedGiven) return undefined;
  const head = `--generated ${opts.generated} is ignored: it sets the random generated cases per variant of the gpu backend`;
  if (wantsCases) return `${head}, and --vectors/--case run only the cases given`;
  if (backend === 'gpu') return undefined;
  if (backend === 'multicast') return `${head}; the multicast backend runs its library and every accepted variant over 2, 4 and 8 replicas`;
  const lib = `the reference model runs the case library as always: the directed cases and, per representative variant, ${GENERATED_PER_LEVEL[1]} level-1, ${GENERATED_PER_LEVEL[2]} level-2 and ${GENERATED_PER_LEVEL[3]} random generated cases (seed ${opts.seed}; --seed gives other values)`;
  if (backend === 'ptxas') return `${head}; this run uses the ptxas backend${opts.noCases ? ' with --no-cases: no case runs' : `, and ${lib}`}`;
  return `${head}; this run uses the ${backend} backend: ${lib}`;
}
