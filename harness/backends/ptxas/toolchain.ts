/**
 * Finding ptxas and reading what it can do: its release, the highest PTX ISA version it accepts and
 * the targets it knows. Everything is read from ptxas itself; nothing is assumed from its release.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { runCommand } from '../../util/run-command.js';

export interface Ptxas {
  readonly path: string;
  /** Where it was found: "PATH", "CUDA_HOME" or "/usr/local/cuda". */
  readonly foundVia: string;
  /** "13.0" */
  readonly release: string;
  /** The full version line, e.g. "Cuda compilation tools, release 13.0, V13.0.88". */
  readonly versionLine: string;
  /** Highest `.version` it accepts, e.g. "9.0". */
  readonly maxPtx: string;
  /** Values it accepts for --gpu-name (sm_* only). */
  readonly targets: readonly string[];
}

/** Candidate paths in search order, each with where it came from. */
export function ptxasCandidates(env: NodeJS.ProcessEnv = process.env): { path: string; via: string }[] {
  const out: { path: string; via: string }[] = [];
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir) out.push({ path: join(dir, 'ptxas'), via: 'PATH' });
  if (env.CUDA_HOME) out.push({ path: join(env.CUDA_HOME, 'bin', 'ptxas'), via: 'CUDA_HOME' });
  out.push({ path: '/usr/local/cuda/bin/ptxas', via: '/usr/local/cuda' });
  return out;
}

export class ToolchainError extends Error {}

/**
 * Where ptxas is, or why it is not: the error lists every place looked in. `chosen`: the path
 * `--ptxas PATH` gave this run (undefined: found in PATH, $CUDA_HOME or /usr/local/cuda).
 */
export function locatePtxas(chosen?: string, env: NodeJS.ProcessEnv = process.env): { path: string; via: string } {
  if (chosen !== undefined) {
    if (!existsSync(chosen)) throw new ToolchainError(`--ptxas ${chosen}: no such file; give the path of a ptxas binary, e.g. /usr/local/cuda/bin/ptxas`);
    return { path: chosen, via: '--ptxas' };
  }
  const cands = ptxasCandidates(env);
  const hit = cands.find((c) => existsSync(c.path));
  if (!hit) {
    const places = [...new Set(cands.map((c) => c.path))].join(', ');
    throw new ToolchainError(
      `ptxas not found (looked in PATH, $CUDA_HOME/bin and /usr/local/cuda/bin: ${places}). ` +
        'Install the CUDA toolkit, or set CUDA_HOME to its root, or use --backend reference.',
    );
  }
  return hit;
}

const cache = new Map<string, Promise<Ptxas>>();

export { toolchainName } from '../../util/toolchain-name.js';

/** Probes ptxas once per path: version, highest PTX ISA, known targets. `chosen`: --ptxas's path, if given. */
export function probePtxas(chosen?: string, env: NodeJS.ProcessEnv = process.env): Promise<Ptxas> {
  const loc = locatePtxas(chosen, env);
  let p = cache.get(loc.path);
  if (!p) {
    p = probe(loc.path, loc.via);
    cache.set(loc.path, p);
  }
  return p;
}

async function probe(path: string, via: string): Promise<Ptxas> {
  const v = await runCommand(path, ['--version']);
  if (v.spawnError)
    throw new ToolchainError(
      `${path}${via === '--ptxas' ? ' (--ptxas)' : ''} could not be run: ${v.spawnError.split('\n')[0]}; give the path of a ptxas binary`,
    );
  const line = v.stdout.split('\n').find((l) => /release \d+\.\d+/.test(l));
  if (!line || !/ptxas|cuda compilation tools/i.test(v.stdout)) {
    throw new ToolchainError(
      `${path}${via === '--ptxas' ? ' (--ptxas)' : ''} is not ptxas: \`${path} --version\` printed ${JSON.stringify((v.stdout || v.stderr).trim().slice(0, 120))}; give the path of a ptxas binary`,
    );
  }
  const release = line ? /release (\d+\.\d+)/.exec(line)![1]! : 'unknown';
  const help = await runCommand(path, ['--help']);
  const targets = parseGpuNames(help.stdout);
  const maxPtx = await probeMaxPtx(path, targets.includes('sm_90') ? 'sm_90' : (targets[0] ?? 'sm_75'));
  return { path, foundVia: via, release, versionLine: line?.trim() ?? v.stdout.trim(), maxPtx, targets };
}

/** The sm_* values listed under --gpu-name in `ptxas --help`. */
export function parseGpuNames(help: string): string[] {
  const i = help.indexOf('--gpu-name');
  if (i < 0) return [];
  const j = help.indexOf('Default value', i);
  const block = help.slice(i, j < 0 ? undefined : j);
  return [...block.matchAll(/'(sm_\d+[af]?)'/g)].map((m) => m[1]!);
}

/**
 * The highest `.version` ptxas accepts. ptxas answers an unsupported version with
 * "Unsupported .version 99.9; current version is '9.0'", which names it directly.
 */
async function probeMaxPtx(path: string, target: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ptxconf-probe-'));
  try {
    const file = join(dir, 'probe.ptx');
    await writeFile(file, `.version 99.9\n.target ${target}\n.address_size 64\n`);
    const r = await runCommand(path, ['-arch', target, file, '-o', join(dir, 'probe.cubin')]);
    const m = /current version is '(\d+\.\d+)'/.exec(r.stderr + r.stdout);
    if (!m) throw new ToolchainError(`could not read the highest PTX ISA version from ${path}: ${r.stderr.trim() || r.stdout.trim()}`);
    return m[1]!;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
