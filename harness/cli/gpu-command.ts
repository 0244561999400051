/**
 * What the GPU-only commands (`sweep`, `contend`) share: their common options (--arch, --filter,
 * --report, --cache-dir, --backend, --shard, --spec-edition, --help), the --backend they accept, the
 * GPU they need (or a plain exit-2 message why there is none), and the toolchain fields of their
 * reports.
 */
import { parseArgs } from 'node:util';
import { type Target, findTarget } from '../arch/targets.js';
import { type Selected, selectBackend } from '../backends/select.js';
import { type Edition, NEWEST_EDITION, parseEdition } from '../catalog/editions.js';
import { type Shard, parseShard } from '../util/shard.js';
import { DEFAULT_ARCH, checkPtxasPaths, missingValue } from './args.js';
import { UsageError } from '../util/errors.js';

const COMMON = {
  arch: { type: 'string' },
  filter: { type: 'string' },
  report: { type: 'string' },
  overwrite: { type: 'boolean' },
  'cache-dir': { type: 'string' },
  backend: { type: 'string' },
  shard: { type: 'string' },
  'spec-edition': { type: 'string' },
  ptxas: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What the GPU-only commands' own string options take (the common ones: args.ts). */
const OWN_VALUE_OF: Readonly<Record<string, string>> = {
  '--cells': 'how many of the 65,536 cells to sweep, e.g. --cells 4096',
  '--budget': 'seconds the 32-bit sweeps may take (0: none), e.g. --budget 60',
  '--workers': 'a number of worker processes, e.g. --workers 2',
  '--expectations': 'an expectations file, e.g. --expectations cases/expectations/sm_90.yaml',
  '--reps': 'a multiple of 32 from 32 to 1024, e.g. --reps 256',
  '--ptxas': 'the path of a ptxas binary, e.g. --ptxas /usr/local/cuda/bin/ptxas (repeatable)',
};

type Own = Record<string, { readonly type: 'string' | 'boolean' }>;
/** Parsed values: a string per string option, a boolean per flag, each absent when not given. */
type Values<T> = { [K in keyof T]?: T[K] extends { readonly type: 'boolean' } ? boolean : string };

/**
 * The options of a GPU-only command: the common ones and its `own`, parsed (a UsageError with the
 * command's usage text on a bad one); with the target, the shard and the spec edition (set for
 * this process and its children) read from them. `undefined` after printing the usage for --help.
 */
export function parseGpuCommand<O extends Own>(argv: readonly string[], own: O, usage: string, out: (s: string) => void) {
  let v: Values<typeof COMMON & O>;
  try {
    v = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: { ...COMMON, ...own } }).values as Values<typeof COMMON & O>;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const missing = missingValue(msg, argv, OWN_VALUE_OF);
    if (missing) throw missing;
    throw new UsageError(`${msg}\n\n${usage}`);
  }
  if (v.help) {
    out(usage);
    return undefined;
  }
  const c = v as Values<typeof COMMON> & { ptxas?: string[] };
  checkPtxasPaths(c.ptxas ?? []);
  const shard: Shard | undefined = c.shard !== undefined ? parseShard(c.shard) : undefined;
  // the command runs inside withEdition(edition) (commands.ts commandEdition, run.ts): checked here with the other options
  const edition: Edition = c['spec-edition'] !== undefined ? parseEdition(c['spec-edition']) : NEWEST_EDITION;
  const arch = c.arch ?? DEFAULT_ARCH;
  const target = findTarget(arch);
  if (!target) throw new UsageError(`unknown --arch '${arch}'`);
  return { v, target, shard, edition };
}

/**
 * --ptxas for a GPU-only command: none, the one found; one, that ptxas; two or more, the command once
 * per ptxas and a comparison (a toolchain matrix, matrix.ts).
 */
export async function withPtxas(
  command: string,
  argv: readonly string[],
  io: { out: (s: string) => void; err: (s: string) => void; outGone?: () => boolean; isTTY: boolean },
  run: (argv: readonly string[]) => Promise<number>,
): Promise<number> {
  const paths: string[] = [];
  let report: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--ptxas' || a === '--report') {
      const val = argv[i + 1];
      if (val === undefined || val.startsWith('--')) break; // parseGpuCommand says what is missing
      if (a === '--ptxas') paths.push(val);
      else report = val;
      i++;
    } else if (a.startsWith('--ptxas=')) paths.push(a.slice(8));
    else if (a.startsWith('--report=')) report = a.slice(9);
    else if (a === '--help' || a === '-h') return run(argv);
  }
  if (paths.length > 1) {
    checkPtxasPaths(paths);
    const { commandMatrix } = await import('./matrix.js');
    return commandMatrix(command, argv, paths, report, io, (a) => withPtxas(command, a, io, run));
  }
  return run(argv);
}

/** --backend for a GPU-only command: gpu or auto (the same), else a UsageError saying why. */
export function checkGpuOnly(backend: string | undefined, what: string, why: string): void {
  if (backend !== undefined && backend !== 'gpu' && backend !== 'auto')
    throw new UsageError(`--backend ${backend}: ${what} runs on the gpu backend only (--backend gpu or auto): ${why}`);
}

/** The GPU for a GPU-only command; without one, a UsageError (exit 2) saying why and what to do instead. */
export async function gpuFor(target: Target, what: string, instead: string, ptxasPath?: string): Promise<Selected> {
  try {
    return await selectBackend('gpu', target, ptxasPath);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new UsageError(
      `${what} on a GPU, and there is none to use here: ${e.message.replace(/\s*Use --backend ptxas or --backend reference\.?$/, '').replace(/\.$/, '')}. ${instead}`,
    );
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
