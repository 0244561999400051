/**
 * Which variants the GPU backend runs, in a fixed order shared by the side that compiles the
 * module and the side that launches it: every sm_90 atom, red and cp.reduce.async.bulk variant the catalog expects
 * ptxas to accept, except the lines ptxas 13.0 crashes on (atom with `_` and a bf16 type), which are
 * reported as skipped with that reason.
 */
import { findTarget } from '../../arch/targets.js';
import { type CatalogEntry, enumerateCatalog } from '../../catalog/enumerate.js';
import { FAMILIES } from '../../families/index.js';
import { type KernelPlan, planKernel } from './emit.js';

export const PTXAS_CRASH_REASON = 'ptxas 13.0 crashes (SIGSEGV) on atom with the bit bucket _ and a bf16 type; no cubin can hold it';

export function gpuPlans(arch = 'sm_90', ptx = '9.0'): { plans: KernelPlan[]; skipped: { entry: CatalogEntry; reason: string }[] } {
  const entries = enumerateCatalog({ target: findTarget(arch)!, ptx, neighbours: false, isaNeighbours: false, families: FAMILIES.filter((f) => f.id === 'atom' || f.id === 'red' || f.id === 'cp.reduce.async.bulk') }).filter(
    (e) => e.expect === 'accept',
  );
  const plans: KernelPlan[] = [];
  const skipped: { entry: CatalogEntry; reason: string }[] = [];
  for (const e of entries) {
    if ((e.q.d ?? '') === '_' && /bf16/.test(e.q.type ?? '')) skipped.push({ entry: e, reason: PTXAS_CRASH_REASON });
    else plans.push(planKernel(e, plans.length));
  }
  return { plans, skipped };
}
