/**
 * Which variants the gpu backend can run for a target, in a fixed order: every variant of a
 * GPU-runnable family that the catalog expects ptxas to accept, each with a stable kernel name and
 * module. Modules hold MODULE_SIZE kernels, so a run that needs a few variants compiles (or finds in
 * the cubin cache) only their modules, and the same variant always lands in the same module text.
 */
import { specEdition } from '../../catalog/editions.js';
import { comparePtx } from '../../arch/targets.js';
import { findTarget } from '../../arch/targets.js';
import { type CatalogEntry, enumerateCatalog, enumerateMatching } from '../../catalog/enumerate.js';
import { compileFilter, compileFilterPrefix } from '../../util/filter.js';
import { families } from '../../registry/index.js';
import { gpuFamilyIds, gpuFamily } from '../../registry/gpu.js';
import { type GpuFamily, type KernelShape, wideKernelName } from './family.js';

export const MODULE_SIZE = 256;

export interface GpuVariant {
  readonly index: number;
  readonly name: string;
  readonly module: number;
  readonly entry: CatalogEntry;
  readonly shape: KernelShape;
  readonly gpu: GpuFamily;
}

export interface GpuPlan {
  readonly arch: string;
  readonly ptx: string;
  readonly variants: readonly GpuVariant[];
  readonly skipped: readonly { entry: CatalogEntry; reason: string }[];
  readonly modules: readonly (readonly GpuVariant[])[];
  readonly byId: ReadonlyMap<string, GpuVariant>;
}

const plans = new Map<string, GpuPlan>();

/**
 * `filter` (a --filter pattern): only the variants whose id it keeps, found by the catalog's pruned
 * walk (a run that names a few variants does not evaluate all 17,000). Their index, kernel name and
 * module are then those of the filtered plan, not the full one: for callers that compile their own
 * module from it (sweeps), not for the cubin-cached modules of the gpu backend.
 */
export function gpuPlan(arch: string, ptx: string, filter?: string): GpuPlan {
  const key = `${arch}@${ptx}${filter ? `#${filter}` : ''}/${specEdition()}`;
  const hit = plans.get(key);
  if (hit) return hit;
  const base = { target: findTarget(arch)!, ptx, neighbours: false, isaNeighbours: false, spellings: false, families: families().filter((f) => gpuFamilyIds().includes(f.id)) };
  const entries = (filter ? enumerateMatching({ ...base, kinds: ['variant'], keep: compileFilter(filter), viable: compileFilterPrefix(filter) }) : enumerateCatalog(base)).filter((e) => e.expect === 'accept');
  const variants: GpuVariant[] = [];
  const skipped: { entry: CatalogEntry; reason: string }[] = [];
  for (const e of entries) {
    const gpu = gpuFamily(e.family)!;
    // a variant newer than the toolchain's PTX ISA (e.g. 9.4's .noftz.f32 under ptxas 13.0) cannot be compiled here
    const late = e.requirements.filter((r) => r.ptx && comparePtx(r.ptx, ptx) > 0);
    const why = late.length ? `toolchain too old: ${late.map((r) => `${r.feature} needs PTX ISA ${r.ptx}`).join('; ')}, and this ptxas writes PTX ISA ${ptx} at most` : gpu.unsupported(e);
    if (why) {
      skipped.push({ entry: e, reason: why });
      continue;
    }
    const index = variants.length;
    variants.push({ index, name: `k${index}`, module: Math.floor(index / MODULE_SIZE), entry: e, shape: gpu.shape(e), gpu });
  }
  const modules: GpuVariant[][] = [];
  for (const v of variants) (modules[v.module] ??= []).push(v);
  const plan = { arch, ptx, variants, skipped, modules, byId: new Map(variants.map((v) => [v.entry.id, v])) };
  plans.set(key, plan);
  return plan;
}

/** A module's PTX text: one kernel per variant (two where the family runs wide cases). */
export function moduleText(plan: GpuPlan, module: number): string {
  return kernelsText(plan, plan.modules[module]!);
}

/** A module of the given variants' kernels. */
export function kernelsText(plan: GpuPlan, vs: readonly GpuVariant[], ptx = plan.ptx, opts: { wide?: boolean } = {}): string {
  // a family with cases longer than one slot (GpuFamily.wide) adds that kernel beside the variant's,
  // unless the caller runs one-slot cases only (a reproducer of one case: opts.wide false)
  const kernels = vs.flatMap((v) => [v.gpu.kernel(v.name, v.entry, v.shape), ...(v.gpu.wide && opts.wide !== false ? [v.gpu.wide.kernel(wideKernelName(v.name), v.entry, v.shape)] : [])]);
  return [`.version ${ptx}`, `.target ${plan.arch}`, '.address_size 64', '', ...kernels, ''].join('\n');
}
