/**
 * The GPU litmus command's usage text, its default stress file and the self-test's planted tests.
 */
import { DEFAULT_STRESS, type Plant } from './kernel.js';
import { FINDINGS_FILE } from './findings.js';

export const STRESS_FILE = 'cases/litmus/gpu-stress.json';

export const LITMUS_GPU_USAGE = `npm run conformance -- litmus --backend gpu [PATH...] [options]
  runs each runnable litmus test on the GPU (issue 26: global and shared memory; ld, st, atom, red
  and fences on 32- and 64-bit values; other tests are skipped with the reason), many instances at once over
  every SM, the outcomes counted on the device, every observed outcome judged against the model
  --iterations N    launches per test (default: enough for --total instances)
  --instances N     instances per launch (default: as many as fill the GPU once)
  --total N         instances per test when --iterations is not given (default 1000000)
  --stress-warps N  extra warps per CTA hammering scratch lines (default ${DEFAULT_STRESS.warps}; 0: none)
  --stress-iters N  store/load pairs per stress thread (default ${DEFAULT_STRESS.iters})
  --stride N        words between instances' copies of a location (default 1)
  --align           the threads of an instance meet on a barrier word before their code (default off)
  --preload         each thread first loads (weak, into L1) the locations it reads after its first read
  --stress-target T scratch (default): stress warps hammer their own lines; test: the words between
                    instances' copies of the test's locations (needs --stride 2 or more)
  --seed N          seed of the per-iteration permutations (default 1)
  --mutants         also run every test's mutants (mutants.ts: the model forbids the test's weak
                    outcome, allows the mutant's) and report the mutation score per class
  --search-stress   try stress settings (align off/on x warps 0/2/8 x iters 16/64/256 at stride 1,
                    then strides 4 and 32 at the best) per test class on a sample of mutants; write the best by mutation score
                    to --stress-file, then run with them
  --stress-file F   per-class stress settings read by default (default ${STRESS_FILE}; given
                    --stress-warps, --stress-iters or --stride, those apply to every test)
  --self-test       run the planted kernels (MP with the flag write hoisted above the data write; a
                    bulk reduction's source overwritten with its wait_group.read dropped) whose
                    forbidden outcomes must be seen; exit 1 if one is not
  --replay R        rerun exactly the launches of the run that wrote report R (its files, seed, stress,
                    iterations, instances, geometry); refused (exit 2) if a test's source changed
  --only TEST       with --replay: only this result (its file as the report names it; repeatable)
  --repro TEST      also write a standalone reproducer of TEST (file as given, or file#mutant) as this
                    run ran it (one is written for every forbidden outcome seen anyway; repeatable)
  --out DIR         the folder of --repro's reproducer (default: REPORT/repro/<test>)
  --filter F, --arch A, --cache-dir D, --report DIR, --overwrite (as without --backend gpu)
  --findings F      explained findings (default ${FINDINGS_FILE}): a forbidden outcome seen that
                    the file names for its test is a known deviation (finding, count; exit 0)
  exit: 0 no forbidden outcome seen (or only known deviations); 1 a forbidden outcome seen (or a test failed to run); 2 bad usage
  or a file that does not parse`;

export const SELF_TEST_FILE = 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus';
/**
 * The self-test's planted kernels, each of a test whose weak outcome the model forbids: MP with the
 * flag write hoisted above the data write, and a thread that overwrites a bulk reduction's source
 * with its wait_group.read dropped (before the reduction has read it). (A read of the destination
 * with its wait dropped, Bulk+wait_group+read-destination, never showed the old value on an H200 in
 * 2.16 M instances, so it cannot be the plant: reports/baselines/h200-sm_90-litmus-async/.)
 */
export const SELF_TESTS: readonly { file: string; plant: Plant }[] = [
  { file: SELF_TEST_FILE, plant: 'hoist' },
  { file: 'cases/litmus/Bulk+wait_group.read+overwrite-source.litmus', plant: 'drop-wait' },
];
