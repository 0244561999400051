/**
 * The CUDA C++ lens's manifest (cases/cuda-lens/lens.yaml): each C++ call, the .cu file whose
 * LENS_OP writes its three kernels (NAME_dsmem, NAME_shared, NAME_global), and the catalog variant
 * whose contention group it stands for, per memory. Read and checked here: a bad manifest is a
 * UsageError naming the entry and what to fix.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import YAML from 'yaml';
import { UsageError } from '../util/errors.js';
import type { Layout } from '../contention/cases.js';
import { fromRoot } from '../util/paths.js';

/** cases/cuda-lens beside this source, else under the package root (util/paths.ts; the bundle of npm run gpu:pack). */
export const LENS_DIR = ((here) => (existsSync(join(here, 'lens.yaml')) ? here : fromRoot('cases', 'cuda-lens')))(
  resolve(import.meta.dirname, '..', '..', 'cases', 'cuda-lens'),
);
export const LENS_HEADER = 'lens.cuh';

export type Memory = 'dsmem' | 'shared' | 'global';
export const MEMORIES: readonly Memory[] = ['dsmem', 'shared', 'global'];

/** Each memory: the state space its variant names, what a reader calls it, and the layouts it runs in. */
export const MEMORY: Readonly<Record<Memory, { space: string; what: string; layouts: readonly Layout[] }>> = {
  dsmem: { space: 'shared::cluster', what: "distributed shared memory (another CTA's, through cluster.map_shared_rank)", layouts: ['cluster'] },
  shared: { space: 'shared::cta', what: "the CTA's own shared memory", layouts: ['cta', 'warp'] },
  global: { space: 'global', what: 'global memory', layouts: ['cluster', 'grid', 'warp'] },
};

export interface LensCall {
  readonly name: string;
  readonly file: string;
  readonly call: string;
  readonly type: string;
  /** The variant id with {space}. */
  readonly variant: string;
  readonly memories: readonly Memory[];
}

export interface LensKernel {
  /** The kernel's symbol (extern "C"): NAME_memory. */
  readonly kernel: string;
  readonly call: LensCall;
  readonly memory: Memory;
  /** The catalog variant whose contention group this kernel stands for. */
  readonly variant: string;
}

export function loadManifest(dir = LENS_DIR): LensCall[] {
  const file = join(dir, 'lens.yaml');
  if (!existsSync(file)) throw new UsageError(`no lens manifest at ${file}: the CUDA C++ lens needs cases/cuda-lens/lens.yaml`);
  let doc: unknown;
  try {
    doc = YAML.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`${file}: not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const calls = (doc as { calls?: unknown })?.calls;
  if (!Array.isArray(calls) || !calls.length) throw new UsageError(`${file}: needs a non-empty list 'calls'`);
  const seen = new Set<string>();
  return calls.map((c: Record<string, unknown>, i) => {
    const where = `${file}: calls[${i}]`;
    for (const k of ['name', 'file', 'call', 'type', 'variant'])
      if (typeof c?.[k] !== 'string' || !(c[k] as string).length) throw new UsageError(`${where}: '${k}' must be a non-empty string`);
    const name = c.name as string;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`${where}: name '${name}' is no C identifier`);
    if (seen.has(name)) throw new UsageError(`${where}: name '${name}' appears twice`);
    seen.add(name);
    if (!existsSync(join(dir, c.file as string))) throw new UsageError(`${where}: file '${c.file}' is not in ${dir}`);
    if (!(c.variant as string).includes('{space}')) throw new UsageError(`${where}: variant '${c.variant}' must contain {space}`);
    const memories = c.memories === undefined ? MEMORIES : c.memories;
    if (!Array.isArray(memories) || !memories.every((m) => MEMORIES.includes(m as Memory)))
      throw new UsageError(`${where}: memories must be a list of ${MEMORIES.join(', ')}`);
    for (const k of Object.keys(c))
      if (!['name', 'file', 'call', 'type', 'variant', 'memories'].includes(k)) throw new UsageError(`${where}: unknown key '${k}'`);
    return { name, file: c.file as string, call: c.call as string, type: c.type as string, variant: c.variant as string, memories: memories as Memory[] };
  });
}

/** Every kernel of the manifest (a call on each of its memories), those whose kernel, call or variant matches `filter` (comma-separated substrings or globs). */
export function lensKernels(calls: readonly LensCall[], filter?: string): LensKernel[] {
  const all = calls.flatMap((c) =>
    c.memories.map((m) => ({ kernel: `${c.name}_${m}`, call: c, memory: m, variant: c.variant.replace('{space}', MEMORY[m].space) })),
  );
  if (!filter) return all;
  const pats = filter
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map(
      (p) =>
        new RegExp(
          p
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.'),
          'i',
        ),
    );
  return all.filter((k) => pats.some((re) => re.test(k.kernel) || re.test(k.call.call) || re.test(k.variant) || re.test(k.call.file)));
}
