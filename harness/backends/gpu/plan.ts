/**
 * Which variants the gpu backend can run for a target, in a fixed order: every variant of a
 * GPU-runnable family that the catalog expects ptxas to accept, each with a stable kernel name and
 * module. Modules hold planModuleSize kernels, so a run that needs a few variants compiles (or finds in
 * the cubin cache) only their modules, and the same variant always lands in the same module text.
 */
import { availableParallelism } from 'node:os';
import { specEdition } from '../../catalog/editions.js';
import { comparePtx } from '../../arch/targets.js';
import { findTarget } from '../../arch/targets.js';
import { type CatalogEntry, enumerateCatalog, enumerateMatching } from '../../catalog/enumerate.js';
import { cachedCatalog } from '../../catalog/cache.js';
import { compileFilter, compileFilterPrefix } from '../../util/filter.js';
import { families } from '../../registry/index.js';
import { gpuFamilyIds, gpuFamily } from '../../registry/gpu.js';
import { type GpuFamily, type KernelShape, wideKernelName } from './family.js';

/**
 * Kernels per module of a run's given cases (GivenPlan); a plan's modules: planModuleSize.
 * PTXCONF_MODULE_SIZE: another count for both.
 */
export const MODULE_SIZE = Number(process.env.PTXCONF_MODULE_SIZE ?? 512);

/**
 * Kernels per module of a plan of `variants`: two modules per core, 256 to 1024 kernels each, so that
 * ptxas runs in two full rounds on the cores. On a 16-core H200 host, with the SASS read from each
 * distinct kernel code (sass.ts), the default run's cold run took 9.80 / 10.23 s in 32 modules of 561
 * against 10.48 / 10.62 s in 48 of 374 and 10.76 / 11.35 s in 65 of 280, in turn
 * (reports/baselines/h200-sm_90-gpu-run/2026-11-29-session10/); with whole cubins disassembled, 36
 * modules of 512 had beaten 71 of 256 (session9/).
 */
export function planModuleSize(variants: number, cores = availableParallelism()): number {
  if (process.env.PTXCONF_MODULE_SIZE) return MODULE_SIZE;
  return Math.min(1024, Math.max(256, Math.ceil(variants / (2 * cores))));
}

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
export function gpuPlan(arch: string, ptx: string, filter?: string, cacheDir?: string): GpuPlan {
  const key = `${arch}@${ptx}${filter ? `#${filter}` : ''}/${specEdition()}`;
  const hit = plans.get(key);
  if (hit) return hit;
  const base = {
    target: findTarget(arch)!,
    ptx,
    neighbours: false,
    isaNeighbours: false,
    spellings: false,
    families: families().filter((f) => gpuFamilyIds().includes(f.id)),
  };
  const entries = (
    filter
      ? enumerateMatching({ ...base, kinds: ['variant'], keep: compileFilter(filter), viable: compileFilterPrefix(filter) })
      : cachedCatalog(cacheDir, { what: 'gpu-plan', target: arch, ptx, families: base.families.map((f) => f.id) }, () => enumerateCatalog(base), true)
  ).filter((e) => e.expect === 'accept');
  const skipped: { entry: CatalogEntry; reason: string }[] = [];
  const runnable = entries.filter((e) => {
    const why = unrunnable(e, ptx);
    if (why) skipped.push({ entry: e, reason: why });
    return !why;
  });
  const size = planModuleSize(runnable.length);
  const variants: GpuVariant[] = runnable.map((e, index) => {
    const gpu = gpuFamily(e.family)!;
    return { index, name: `k${index}`, module: Math.floor(index / size), entry: e, shape: gpu.shape(e), gpu };
  });
  const modules: GpuVariant[][] = [];
  for (const v of variants) (modules[v.module] ??= []).push(v);
  const plan = { arch, ptx, variants, skipped, modules, byId: new Map(variants.map((v) => [v.entry.id, v])) };
  plans.set(key, plan);
  return plan;
}

/** Why the gpu executor cannot run an accepted variant under a ptxas that writes PTX ISA `ptx` at most, or undefined. */
function unrunnable(e: CatalogEntry, ptx: string): string | undefined {
  // a variant newer than the toolchain's PTX ISA (e.g. 9.4's .noftz.f32 under ptxas 13.0) cannot be compiled here
  const late = e.requirements.filter((r) => r.ptx && comparePtx(r.ptx, ptx) > 0);
  return late.length
    ? `toolchain too old: ${late.map((r) => `${r.feature} needs PTX ISA ${r.ptx}`).join('; ')}, and this ptxas writes PTX ISA ${ptx} at most`
    : gpuFamily(e.family)!.unsupported(e);
}

/**
 * The kernel name of a variant in a plan of given cases (GivenPlan): `v_` and the variant id spelled
 * as a PTX identifier (letters and digits as they are, `.` as `_`, any other character as `$` and
 * two hex digits), ended by `$`; its wide kernel (wideKernelName) adds `w`. Any executor, the
 * stand-in launcher too, reads the variant back from the name alone (givenKernelId).
 */
export function givenKernelName(id: string): string {
  let s = 'v_';
  for (const ch of id) s += /[A-Za-z0-9]/.test(ch) ? ch : ch === '.' ? '_' : `$${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
  return `${s}$`;
}

/** The variant id a givenKernelName names, and whether it is the wide kernel; undefined for any other name. */
export function givenKernelId(name: string): { id: string; wide: boolean } | undefined {
  const m = /^v_((?:[A-Za-z0-9_]|\$[0-9a-f]{2})*)\$(w?)$/.exec(name);
  if (!m) return undefined;
  const id = m[1]!.replace(/_|\$([0-9a-f]{2})/g, (x, h: string | undefined) => (h ? String.fromCharCode(parseInt(h, 16)) : '.'));
  return { id, wide: m[2] === 'w' };
}

/**
 * The variants of given cases (vector files, --case), looked up as their ids come: the catalog's
 * pruned walk finds only those ids (milliseconds, where the whole plan evaluates 17,000 variants),
 * each runnable one named by its id (givenKernelName), so the same variant has the same kernel in
 * any run; modules are made of the variants a run needs (assign), MODULE_SIZE at most, sorted by id,
 * so that a file run again finds its modules in the cubin cache. A variant the executor does not run
 * gets the reason gpuPlan would give: the catalog's (not accepted, or no such variant), too new for
 * the toolchain, or the family's.
 */
export class GivenPlan {
  readonly variants: GpuVariant[] = [];
  readonly modules: GpuVariant[][] = [];
  /** Milliseconds spent looking variants up. */
  ms = 0;
  private readonly found = new Map<string, GpuVariant | { why: string }>();
  private readonly moduleOfVariant = new Map<GpuVariant, number>();

  constructor(
    readonly arch: string,
    readonly ptx: string,
  ) {}

  /** Looks up, in one walk per family, every id not seen before (ids of GPU-runnable families). */
  prepare(vs: Iterable<{ readonly id: string; readonly family: string }>): void {
    const want = new Map<string, Set<string>>();
    for (const v of vs) if (!this.found.has(v.id)) (want.get(v.family) ?? want.set(v.family, new Set()).get(v.family)!).add(v.id);
    if (!want.size) return;
    const t0 = performance.now();
    const target = findTarget(this.arch)!;
    for (const [family, ids] of want) {
      const prefixes = new Set<string>();
      for (const id of ids) for (let i = 1; i <= id.length; i++) prefixes.add(id.slice(0, i));
      const entries = enumerateMatching({
        target,
        ptx: this.ptx,
        neighbours: false,
        isaNeighbours: false,
        spellings: false,
        kinds: ['variant'],
        keep: (id) => ids.has(id),
        viable: (p) => prefixes.has(p),
        families: families().filter((f) => f.id === family),
      });
      for (const e of entries) {
        if (this.found.has(e.id)) continue;
        if (e.expect !== 'accept') {
          this.found.set(e.id, { why: notAccepted(e.id, this.arch, this.ptx, e.reason) });
          continue;
        }
        const why = unrunnable(e, this.ptx);
        if (why) {
          this.found.set(e.id, { why });
          continue;
        }
        const gpu = gpuFamily(e.family)!;
        const v: GpuVariant = { index: this.variants.length, name: givenKernelName(e.id), module: -1, entry: e, shape: gpu.shape(e), gpu };
        this.variants.push(v);
        this.found.set(e.id, v);
      }
      for (const id of ids)
        if (!this.found.has(id))
          this.found.set(id, { why: notAccepted(id, this.arch, this.ptx, 'the catalog has no such variant; --list shows the ones it has') });
    }
    this.ms += performance.now() - t0;
  }

  /** The variant of an id (looked up now if prepare() has not seen it), or why the executor does not run it. */
  get(id: string, family: string): GpuVariant | { why: string } {
    if (!this.found.has(id)) this.prepare([{ id, family }]);
    return this.found.get(id)!;
  }

  /** The module holding a variant, once assign() has put it in one. */
  moduleOf(v: GpuVariant): number | undefined {
    return this.moduleOfVariant.get(v);
  }

  /** Puts the variants not in a module yet into new modules (sorted by id, MODULE_SIZE each). */
  assign(vs: Iterable<GpuVariant>): void {
    const fresh = [...new Set(vs)].filter((v) => !this.moduleOfVariant.has(v)).sort((a, b) => (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0));
    for (let i = 0; i < fresh.length; i += MODULE_SIZE) {
      const m = fresh.slice(i, i + MODULE_SIZE);
      for (const v of m) this.moduleOfVariant.set(v, this.modules.length);
      this.modules.push(m);
    }
  }

  /** A module's PTX text. */
  text(module: number): string {
    return kernelsText(this, this.modules[module]!);
  }
}

/** Why a given case's variant does not run: not one the catalog expects ptxas to accept. */
export function notAccepted(id: string, arch: string, ptx: string, reason: string): string {
  return `${id} is not a variant the catalog expects ptxas to accept for ${arch} (PTX ISA ${ptx}): ${reason}`;
}

const givenVariants = new Map<string, GpuVariant | undefined>();
/**
 * The variant a givenKernelName names, for an executor that has only the name (the stand-in
 * launcher): looked up alone, with the same shape and entry as in the run's GivenPlan.
 */
export function givenVariant(arch: string, ptx: string, id: string): GpuVariant | undefined {
  const key = `${arch}@${ptx}/${specEdition()}/${id}`;
  if (!givenVariants.has(key)) {
    // the family whose grammar spells the id (its head starts it)
    let gv: GpuVariant | undefined;
    for (const f of families().filter((x) => gpuFamilyIds().includes(x.id) && id.startsWith(x.head))) {
      const r = new GivenPlan(arch, ptx).get(id, f.id);
      if (!('why' in r)) gv = r;
    }
    givenVariants.set(key, gv);
  }
  return givenVariants.get(key);
}

/**
 * What, besides the harness's code, module `module`'s text is made of: the plan's target and PTX
 * ISA, the edition, and the module's variants (ids and kernel names, in order). The cubin cache
 * finds a warm run's modules by it without writing their text (cache.ts indexedKey).
 */
export function moduleIdentity(plan: GpuPlan, module: number): string {
  return [`plan ${plan.arch} ${plan.ptx} ${specEdition()} module ${module}`, ...plan.modules[module]!.map((v) => `${v.name} ${v.entry.id}`)].join('\n');
}

/** A module's PTX text: one kernel per variant (two where the family runs wide cases). */
export function moduleText(plan: GpuPlan, module: number): string {
  return kernelsText(plan, plan.modules[module]!);
}

/** A module of the given variants' kernels. */
export function kernelsText(plan: Pick<GpuPlan, 'arch' | 'ptx'>, vs: readonly GpuVariant[], ptx = plan.ptx, opts: { wide?: boolean } = {}): string {
  // a family with cases longer than one slot (GpuFamily.wide) adds that kernel beside the variant's,
  // unless the caller runs one-slot cases only (a reproducer of one case: opts.wide false)
  const kernels = vs.flatMap((v) => [
    v.gpu.kernel(v.name, v.entry, v.shape),
    ...(v.gpu.wide && opts.wide !== false ? [v.gpu.wide.kernel(wideKernelName(v.name), v.entry, v.shape)] : []),
  ]);
  return [`.version ${ptx}`, `.target ${plan.arch}`, '.address_size 64', '', ...kernels, ''].join('\n');
}
