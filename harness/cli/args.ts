/**
 * Command-line options of `npm run conformance`. Every problem is a UsageError that says what was
 * wrong and lists the valid values; the caller exits with code 2.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { findTarget, targetNames } from '../arch/targets.js';
import { BACKENDS, type BackendName } from '../backends/names.js';
import type { EntryKind } from '../catalog/enumerate.js';
import { resolveCacheDir } from '../util/cache-dir.js';
import { nearestWords as nearest } from '../util/nearest.js';
import { UsageError } from '../util/errors.js';
import { KEEP_WHOLE } from '../report/keep.js';
import { canonicalFilter } from '../catalog/select.js';
import { type Shard, parseShard } from '../util/shard.js';
import { EDITIONS, type Edition, NEWEST_EDITION, parseEdition } from '../catalog/editions.js';

/** Plain passes of catalog entries, and of cases, kept whole by default in a ptxas + reference run. */
export const DEFAULT_KEEP_PASSES = 1000;

/** Default report folders kept in reports/out/ after a run. */
export const DEFAULT_KEEP_RUNS = 20;

export const ENTRY_KINDS: readonly EntryKind[] = ['variant', 'neighbour', 'isa-neighbour', 'spelling'];

export interface Options {
  readonly arch: string;
  readonly backend: BackendName;
  readonly filter?: string;
  readonly kinds: readonly EntryKind[];
  readonly list: boolean;
  readonly report?: string;
  /** --overwrite: a --report folder that already holds a report may be written over (else exit 2). */
  readonly overwrite: boolean;
  readonly seed: number;
  readonly help: boolean;
  /** --vectors FILE|DIR, repeatable. */
  readonly vectors: readonly string[];
  /** --case ID: replay exactly this case. */
  readonly case?: string;
  /** --generated N: level-3 generated cases per variant on the gpu backend. */
  readonly generated: number;
  /** Whether --generated was given (a backend it does not apply to says it ignores it). */
  readonly generatedGiven: boolean;
  /** --workers N: gpu backend processes, each with its CUDA context (default: one per core, at most GPU_WORKERS). */
  readonly workers?: number;
  /** --expectations FILE (default cases/expectations/<arch>.yaml, where it exists). */
  readonly expectations?: string;
  /** --no-cases: a ptxas run checks the catalog only, without the case library on the reference. */
  readonly noCases: boolean;
  /** Plain passes kept whole in the report of the ptxas + reference run (every other result is kept; the rest counted); Infinity: all. */
  readonly keepPasses: number;
  /** Whether --keep was given (vector files keep their first KEEP_WHOLE cases whole without it). */
  readonly keepGiven: boolean;
  /** Default report folders (reports/out/) kept after a run: older ones are removed (0: keep all). */
  readonly keepRuns: number;
  /** --cache-dir DIR: where rebuildable results are kept (default defaultCacheDir()). */
  readonly cacheDir: string;
  /** --shard I/N: this run is shard I (from 0) of N; `merge` puts the N reports together. */
  readonly shard?: Shard;
  /** --filter alternatives written in another qualifier order, and the canonical spelling used. */
  readonly filterRespelled?: readonly (readonly [string, string])[];
  /** --spec-edition: the PTX ISA edition results are judged against (default the newest). */
  readonly specEdition: Edition;
  /** --ptxas PATH, repeatable: the ptxas to compile with; two or more run the plan under each (a toolchain matrix). */
  readonly ptxas: readonly string[];
  /** The multicast backend: the user's explicit permission to create multicast objects on this machine. */
  readonly allowMulticast: boolean;
  /** The multicast backend: print what it would allocate, bind and launch; change nothing. */
  readonly planOnly: boolean;
  /** The multicast backend: launches of each job from the same values (the nondeterminism histogram). */
  readonly launches: number;
}

export const DEFAULT_ARCH = 'sm_90';
export { DEFAULT_SEED } from '../../cases/generators/seed.js';
import { DEFAULT_SEED } from '../../cases/generators/seed.js';

export const USAGE = `usage: npm run conformance -- [options]          the main run (below)
       npm run conformance -- COMMAND [options]  a command (listed after the options)

  --arch ARCH        target to check (default ${DEFAULT_ARCH}); one of:
                     ${targetNames().join(' ')}
  --backend NAME     auto | reference | ptxas | gpu | multicast (default auto: the richest this
                     machine runs; never multicast, which runs only when named)
  --ptxas PATH       the ptxas to compile with (default: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin);
                     repeatable: a toolchain matrix, the same run under each ptxas, one report
                     each in a folder named after it, and matrix.json/matrix.txt comparing their
                     answers (docs/toolchains.md)
  --allow-multicast  multicast backend: allow it to create a multicast object bound to several GPUs
                     (an NVSwitch system you own; refused where NCCL_NVLS_ENABLE=0,
                     NVSHMEM_DISABLE_NVLS=1 or TORCH_SYMM_MEM_DISABLE_MULTICAST=1, or fewer than 2
                     devices report multicast support)
  --plan-only        multicast backend: print what it would allocate, bind and launch; change nothing
  --launches N       multicast backend: launches of each job from the same values (default 8)
  --filter PATTERN   entries whose id matches: comma-separated alternatives, each a glob over the
                     whole id (with * or ?) or else a substring, e.g. 'atom.global.*.f32,red.'
  --kind LIST        entry kinds to include (default all): ${ENTRY_KINDS.join(',')}
  --list             print the entries the filter selects, run nothing
  --report DIR       where the reports go (default reports/out/<timestamp>/): results.jsonl while
                     the run goes, then report.json, report.html and junit.xml; a folder that
                     already holds a report is refused (exit 2) unless --overwrite is given
  --overwrite        write over the report already in the --report folder
  --keep all|N       keep every result whole (all), or every result that is not a plain pass and the
                     first N passes: of catalog entries and of library cases (default ${DEFAULT_KEEP_PASSES}), of
                     --vectors/--case cases on either backend (default ${KEEP_WHOLE}); the rest are counted in
                     the report's stats and the summary, and replay by id
  --keep-runs N      default report folders kept in reports/out/ (default ${DEFAULT_KEEP_RUNS}; older ones are
                     removed after a run; 0 keeps all; a --report folder is never removed)
  --expectations F   known deviations (default cases/expectations/<arch>.yaml, where it exists)
  --no-cases         ptxas backend: check the catalog only, without running the case library
                     through the reference model
  --seed N           seed for generated cases (default ${DEFAULT_SEED}); recorded in the report
  --vectors PATH     run the cases of a vector file (YAML or JSON lines), or of every *.yaml,
                     *.yml and *.jsonl under a directory (repeatable), on the gpu backend where
                     there is one; validated first, every problem reported as file:line:col
  --case ID          replay exactly one case, by the id printed with it
  --generated N      gpu backend: random generated cases per variant (default 48; levels 1 and 2 add 8 each);
                     other backends say they ignore it (the reference model's library is fixed)
  --workers N        gpu backend: worker processes, each with its CUDA context (default: one per core,
                     at most 8: contexts start one after another, about 0.13 s each on an H200)
  --spec-edition E   the PTX ISA edition to judge against: ${EDITIONS.join(', ')} (default ${NEWEST_EDITION}, the
                     newest); recorded in the report; render re-judges a report under another
  --shard I/N        run shard I (counting from 0) of N: the catalog entries, cases, gpu variants,
                     sweeps or contention groups split into N parts of equal cost, the same on every
                     machine; put the N reports together with merge (below)
  --cache-dir DIR    where rebuildable results are kept (default $XDG_CACHE_HOME/ptx-reduction-conformance
                     or ~/.cache/ptx-reduction-conformance)
  --help             this text (the commands and exit codes follow)`;

/** What each string option takes, with an example: said when the value is missing. */
const VALUE_OF: Readonly<Record<string, string>> = {
  '--arch': `a target, e.g. --arch ${DEFAULT_ARCH}; one of ${targetNames().join(' ')}`,
  '--backend': `a backend, e.g. --backend reference; one of ${BACKENDS.join(', ')}`,
  '--filter': 'a pattern, e.g. --filter atom.global',
  '--kind': `entry kinds, comma-separated, e.g. --kind variant; of ${ENTRY_KINDS.join(', ')}`,
  '--report': 'a folder for the reports, e.g. --report reports/mine',
  '--seed': `a non-negative integer, e.g. --seed ${DEFAULT_SEED}`,
  '--vectors': 'a vector file or a folder of them, e.g. --vectors cases/vectors/atom-f32.yaml',
  '--case': 'a case id as a run prints it, e.g. --case atom.global.add.f32/vectors/atom-f32.yaml:atom.global.add.f32-signed-zeros',
  '--generated': 'a number of generated cases per variant, e.g. --generated 100',
  '--workers': 'a number of gpu worker processes, e.g. --workers 8',
  '--expectations': 'an expectations file, e.g. --expectations cases/expectations/sm_90.yaml',
  '--keep': `all, or a number of passes kept whole, e.g. --keep ${DEFAULT_KEEP_PASSES}`,
  '--keep-runs': `a number of report folders kept (0: all), e.g. --keep-runs ${DEFAULT_KEEP_RUNS}`,
  '--cache-dir': 'a folder, e.g. --cache-dir /tmp/ptxconf-cache',
  '--shard': "I/N, this run's part of N (from 0), e.g. --shard 0/4",
  '--spec-edition': `a PTX ISA edition, e.g. --spec-edition ${NEWEST_EDITION}; one of ${EDITIONS.join(', ')}`,
  '--launches': 'a number of launches (1 or more), e.g. --launches 8',
  '--ptxas': 'the path of a ptxas binary, e.g. --ptxas /usr/local/cuda/bin/ptxas (repeatable)',
};

/**
 * node's parseArgs message for a string option without its value, at the end ("Option '--filter
 * <value>' argument missing") or followed by another option ("... argument is ambiguous ..."), as
 * one line saying what the option takes; undefined for any other message.
 */
export function missingValue(msg: string, argv: readonly string[], valueOf: Readonly<Record<string, string>> = VALUE_OF): UsageError | undefined {
  const opt = /^Option '(?:-\w, )?(--[\w-]+)(?: <value>)?' argument (?:missing|is ambiguous)/.exec(msg)?.[1];
  if (!opt) return undefined;
  const next = argv[argv.indexOf(opt) + 1];
  const takes = valueOf[opt] ?? VALUE_OF[opt];
  return new UsageError(
    `${opt} needs a value${takes ? ` (${takes})` : ''}${next !== undefined ? `; '${next}' after it is an option (a value that starts with '-' is written ${opt}=VALUE)` : ''}`,
  );
}

export function parseOptions(argv: readonly string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        arch: { type: 'string' },
        backend: { type: 'string' },
        filter: { type: 'string' },
        kind: { type: 'string' },
        list: { type: 'boolean' },
        report: { type: 'string' },
        overwrite: { type: 'boolean' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        vectors: { type: 'string', multiple: true },
        case: { type: 'string' },
        generated: { type: 'string' },
        workers: { type: 'string' },
        expectations: { type: 'string' },
        'no-cases': { type: 'boolean' },
        'keep-runs': { type: 'string' },
        keep: { type: 'string' },
        'cache-dir': { type: 'string' },
        shard: { type: 'string' },
        'spec-edition': { type: 'string' },
        'allow-multicast': { type: 'boolean' },
        'plan-only': { type: 'boolean' },
        launches: { type: 'string' },
        ptxas: { type: 'string', multiple: true },
      },
    });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const missing = missingValue(msg, argv);
    if (missing) throw missing;
    const opt = /'(--?[^' ]+)'/.exec(msg)?.[1];
    const known = [
      '--arch',
      '--backend',
      '--filter',
      '--kind',
      '--list',
      '--report',
      '--overwrite',
      '--seed',
      '--vectors',
      '--case',
      '--generated',
      '--workers',
      '--expectations',
      '--no-cases',
      '--keep',
      '--keep-runs',
      '--shard',
      '--spec-edition',
      '--cache-dir',
      '--allow-multicast',
      '--plan-only',
      '--launches',
      '--ptxas',
      '--help',
    ];
    const hint = opt ? ` Did you mean ${nearest(opt, known, 2).join(' or ')}?` : '';
    throw new UsageError(`${msg}.${hint}\nValid options: ${known.join(' ')}\n\n${USAGE}`);
  }
  const v = parsed.values;
  const arch = v.arch ?? DEFAULT_ARCH;
  if (!findTarget(arch)) {
    throw new UsageError(`unknown --arch '${arch}' (did you mean ${nearest(arch, targetNames(), 2).join(' or ')}?). Valid values: ${targetNames().join(', ')}`);
  }
  const backend = (v.backend ?? 'auto') as BackendName;
  if (!BACKENDS.includes(backend)) {
    throw new UsageError(`unknown --backend '${v.backend}'. Valid values: ${BACKENDS.join(', ')}`);
  }
  let seed = DEFAULT_SEED;
  if (v.seed !== undefined) {
    if (!/^\d+$/.test(v.seed) || !Number.isSafeInteger(Number(v.seed))) {
      throw new UsageError(`--seed must be a non-negative integer, got '${v.seed}'`);
    }
    seed = Number(v.seed);
  }
  let kinds = ENTRY_KINDS;
  if (v.kind !== undefined) {
    const ks = v.kind
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const bad = ks.filter((k) => !ENTRY_KINDS.includes(k as EntryKind));
    if (bad.length || !ks.length)
      throw new UsageError(`unknown --kind '${bad.join(',') || v.kind}'. Valid values: ${ENTRY_KINDS.join(', ')} (comma-separated)`);
    kinds = ks as EntryKind[];
  }
  if (v.filter !== undefined && v.filter.trim() === '') throw new UsageError('--filter needs a pattern, e.g. --filter atom.global');
  const filter = v.filter !== undefined ? canonicalFilter(v.filter) : undefined;
  return {
    arch,
    backend,
    ...(filter ? { filter: filter.filter!, ...(filter.changed.length ? { filterRespelled: filter.changed } : {}) } : {}),
    kinds,
    list: v.list ?? false,
    ...(v.report !== undefined ? { report: v.report } : {}),
    overwrite: v.overwrite ?? false,
    seed,
    help: v.help ?? false,
    vectors: checkVectorPaths(v.vectors ?? []),
    ...(v.case !== undefined ? { case: v.case } : {}),
    ...(v.expectations !== undefined ? { expectations: v.expectations } : {}),
    noCases: v['no-cases'] ?? false,
    keepGiven: v.keep !== undefined,
    keepPasses: ((): number => {
      const k = v.keep;
      if (k === undefined) return DEFAULT_KEEP_PASSES;
      if (k === 'all') return Number.POSITIVE_INFINITY;
      if (!/^\d+$/.test(k)) throw new UsageError(`--keep takes 'all' or a number of passes to keep whole, got '${k}'`);
      return Number(k);
    })(),
    keepRuns: ((): number => {
      const k = v['keep-runs'];
      if (k === undefined) return DEFAULT_KEEP_RUNS;
      if (!/^\d+$/.test(k)) throw new UsageError(`--keep-runs takes a number of runs (0: keep all), got '${k}'`);
      return Number(k);
    })(),
    cacheDir: resolveCacheDir(v['cache-dir']),
    ...(v.shard !== undefined ? { shard: parseShard(v.shard) } : {}),
    specEdition: v['spec-edition'] !== undefined ? parseEdition(v['spec-edition']) : NEWEST_EDITION,
    ptxas: checkPtxasPaths(v.ptxas ?? []),
    allowMulticast: v['allow-multicast'] ?? false,
    planOnly: v['plan-only'] ?? false,
    launches: ((): number => {
      if (v.launches === undefined) return 8;
      if (!/^\d+$/.test(v.launches) || Number(v.launches) < 1) throw new UsageError(`--launches takes a number of launches (1 or more), got '${v.launches}'`);
      return Number(v.launches);
    })(),
    generatedGiven: v.generated !== undefined,
    ...((): { workers?: number } => {
      if (v.workers === undefined) return {};
      const n = Number(v.workers);
      if (!Number.isInteger(n) || n < 1) throw new UsageError(`--workers takes a positive integer, got '${v.workers}'`);
      return { workers: n };
    })(),
    generated: ((): number => {
      if (v.generated === undefined) return 48;
      if (!/^\d+$/.test(v.generated)) throw new UsageError(`--generated must be a non-negative integer, got '${v.generated}'`);
      return Number(v.generated);
    })(),
  };
}

/** The options of a run a command starts itself (peer): the defaults, with `fields` in their place. */
export function runOptions(fields: Partial<Options>): Options {
  return { ...parseOptions([]), ...fields };
}

/** --ptxas paths as given: each an existing file, none twice (else a UsageError naming it). */
export function checkPtxasPaths(paths: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new UsageError(`--ptxas ${p}: no such file; give the path of a ptxas binary, e.g. --ptxas /usr/local/cuda/bin/ptxas`);
    }
    if (!st.isFile()) throw new UsageError(`--ptxas ${p}: not a file; give the path of the ptxas binary itself, e.g. --ptxas ${join(p, 'ptxas')}`);
    const real = realpathSync(p);
    if (seen.has(real)) throw new UsageError(`--ptxas ${p}: given twice; a toolchain matrix runs each ptxas once`);
    seen.add(real);
  }
  return [...paths];
}

const VECTOR_FILE = /\.(ya?ml|jsonl)$/i;

/** Whether a folder holds a vector file anywhere below it. */
function holdsVectors(dir: string): boolean {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() ? holdsVectors(join(dir, e.name)) : VECTOR_FILE.test(e.name)) return true;
  }
  return false;
}

/** --vectors paths as given, each one a vector file or a folder holding one (else a UsageError naming it). */
export function checkVectorPaths(paths: readonly string[]): string[] {
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new UsageError(`--vectors ${p}: no such file or folder`);
    }
    if (st.isDirectory()) {
      if (!holdsVectors(p)) throw new UsageError(`--vectors ${p}: the folder holds no vector file (*.yaml, *.yml or *.jsonl, at any depth)`);
    } else if (!VECTOR_FILE.test(p)) {
      throw new UsageError(`--vectors ${p}: not a vector file; vector files are *.yaml, *.yml (the YAML format) or *.jsonl (JSON lines)`);
    }
  }
  return [...paths];
}
