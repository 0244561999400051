/**
 * Where a case of the gpu backend goes (backend.ts runs them): its variant in the plan, its launch
 * mode and, for a family that runs wide cases, its shape and kernel; or why this executor does not
 * run it (a skipped result with the reason). Also a shard's part of the directed library and the
 * counts of results the report does not keep whole.
 */
import type { Shard } from '../../util/shard.js';
import { findTarget } from '../../arch/targets.js';
import { type CaseBatch, type PackedCases, isPacked } from '../../case-readers/packed.js';
import type { Case } from '../../case-readers/types.js';
import { enumerateMatching } from '../../catalog/enumerate.js';
import { families } from '../../registry/index.js';
import { gpuFamily } from '../../registry/gpu.js';
import { type EntryResult, caseResultHead } from '../../report/types.js';
import { Tally, tallyRows } from '../../report/tally.js';
import type { DeviceInfo } from './driver.js';
import { type GpuPlan, type GpuVariant, notAccepted } from './plan.js';
import { type KernelShape, wideKernelName } from './family.js';

/** The passes and observed results counted in `totals` beyond those the report keeps whole, as counts of their own. */
export function notKept(
  totals: Readonly<Record<string, number>>,
  keptPasses: Readonly<Record<string, number>>,
  keptObserved: Readonly<Record<string, number>>,
): Record<string, number> {
  const t = new Tally();
  for (const r of tallyRows(totals, 'total')) {
    if (r.what === 'pass' && r.n > (keptPasses[r.family] ?? 0)) t.dropped(r.family, 'cases', r.n - (keptPasses[r.family] ?? 0));
    if (r.what === 'observed' && r.n > (keptObserved[r.family] ?? 0)) t.add('droppedObserved', r.family, 'cases', r.n - (keptObserved[r.family] ?? 0));
  }
  return t.stats();
}

export function skippedCase(c: Case, reason: string): EntryResult {
  return {
    ...caseResultHead(c, '-'),
    verdict: 'skipped',
    reason,
  };
}

/** Bulk sizes of a library run's wide jobs: every bulk variant runs generated cases of each (and of 16 bytes in its own job). */
export const WIDE_LIBRARY_BYTES = [32, 48, 4096, 65536] as const;

/**
 * The launch shape and kernel of a case of `bytes` bytes of a variant whose family runs wide cases,
 * or why this device cannot give it the shared memory it needs.
 */
export function wideShape(gv: GpuVariant, bytes: number, device?: DeviceInfo): { shape: KernelShape; kernel: string } | { why: string } {
  const shape = gv.gpu.wide!.shape(gv.entry, gv.shape, bytes);
  const need = shape.perCta?.sharedBytes ?? 0;
  if (device?.sharedPerBlockOptin !== undefined && need > device.sharedPerBlockOptin) {
    return {
      why: `a case of ${bytes} bytes needs ${need} bytes of shared memory in one CTA and ${device.name} allows ${device.sharedPerBlockOptin} (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN); split it into cases of fewer bytes`,
    };
  }
  return { shape, kernel: wideKernelName(gv.name) };
}

const catalogWhys = new Map<string, string>();
/** The catalog's reason for a case's variant on the plan's target (e.g. "not supported on sm_90: ... needs sm_100 or higher"), once per variant. */
function catalogWhy(plan: GpuPlan, c: Case): string {
  const key = `${plan.arch}@${plan.ptx}/${c.variant.id}`;
  let why = catalogWhys.get(key);
  if (why === undefined) {
    const target = findTarget(plan.arch);
    const e =
      target &&
      enumerateMatching({
        target,
        ptx: plan.ptx,
        neighbours: false,
        isaNeighbours: false,
        spellings: false,
        kinds: ['variant'],
        keep: (id) => id === c.variant.id,
        families: families().filter((f) => f.id === c.variant.family),
      })[0];
    why = e ? e.reason : 'the catalog has no such variant; --list shows the ones it has';
    catalogWhys.set(key, why);
  }
  return why;
}

/** A case's variant in the whole plan (a library run), or why the executor does not run it. */
export function inPlan(plan: GpuPlan, c: Case): GpuVariant | { why: string } {
  const gv = plan.byId.get(c.variant.id);
  if (gv) return gv;
  const s = plan.skipped.find((x) => x.entry.id === c.variant.id);
  return { why: s ? s.reason : notAccepted(c.variant.id, plan.arch, plan.ptx, catalogWhy(plan, c)) };
}

/** Why the gpu executor does not run this case, or its variant, launch mode and (a wide case) shape and kernel. */
export function placeCase(
  find: (c: Case) => GpuVariant | { why: string },
  c: Case,
  multicastWhy: string,
  device?: DeviceInfo,
): { why: string } | { gv: GpuVariant; mode: 0 | 1; wide?: { shape: KernelShape; kernel: string } } {
  if (!gpuFamily(c.variant.family)) return { why: multicastWhy };
  const gv = find(c);
  if ('why' in gv) return gv;
  const unfit = gv.gpu.caseUnfit(c.input, gv.shape);
  if (unfit) return { why: `${unfit}; the reference backend runs it` };
  const mode = c.input.space === 'shared' && gv.shape.generic ? 1 : 0;
  const bytes = gv.gpu.wide?.bytes(c.input, gv.shape);
  if (bytes === undefined) return { gv, mode };
  const wide = wideShape(gv, bytes, device);
  return 'why' in wide ? { why: `${wide.why}; the reference backend runs it` } : { gv, mode, wide };
}

/** A shard's part of the directed library's cases: those of its own variants, and by ordinal those of variants no shard runs. */
export async function* ownCases(
  batches: AsyncIterable<CaseBatch> | Iterable<CaseBatch>,
  mine: ReadonlySet<string>,
  runs: ReadonlySet<string>,
  shard: Shard,
): AsyncGenerator<CaseBatch> {
  let n = 0;
  for await (const b of batches) {
    if (isPacked(b)) yield b.filter((i) => (runs.has(b.variantId(i)) ? mine.has(b.variantId(i)) : n++ % shard.count === shard.index));
    else yield b.filter((c) => (runs.has(c.variant.id) ? mine.has(c.variant.id) : n++ % shard.count === shard.index));
  }
}

/** Given cases waiting to become a job: objects, and packed cases of one file. */
export interface Group {
  readonly gv: GpuVariant;
  readonly mode: 0 | 1;
  /** The kernel and launch shape of the group's cases (the variant's, or its wide kernel's for one size). */
  readonly kernel: string;
  readonly shape: KernelShape;
  cases: Case[];
  packed?: PackedCases | undefined;
}

/** The variant as a job names it. */
export function variantOf(gv: GpuVariant) {
  const e = gv.entry;
  return { family: e.family, q: e.q, ptx: e.ptx, id: e.id };
}
