/**
 * The multicast backend's own cases for a library run: every variant of the multicast families that
 * the catalog says the target accepts, each with level-1 generated inputs (cases/generators) laid
 * out over 2, 4 and 8 replicas (the generated replicas repeated in turn to fill R). Ids end in
 * `:replicas=R` after the generated case's own id.
 */
import { generateCases } from '../../../cases/generators/cases.js';
import type { Target } from '../../arch/targets.js';
import type { Case } from '../../case-readers/types.js';
import { enumerateCatalog } from '../../catalog/enumerate.js';
import { multicastFamily } from '../../registry/multicast.js';

export const REPLICA_COUNTS = [2, 4, 8] as const;

export function multicastLibrary(target: Target, ptx: string, seed: number, perVariant = 2, keep: (variantId: string) => boolean = () => true): Case[] {
  const out: Case[] = [];
  for (const e of enumerateCatalog({ target, ptx, neighbours: false })) {
    if (e.kind !== 'variant' || e.status !== 'valid' || e.expect !== 'accept' || !multicastFamily(e.family) || !keep(e.id)) continue;
    const v = { family: e.family, q: e.q, ptx: e.ptx, id: e.id };
    for (const c of generateCases(v, seed, 1, perVariant)) {
      const reps = c.input.replicas!;
      for (const r of REPLICA_COUNTS) {
        out.push({ ...c, id: `${c.id}:replicas=${r}`, input: { ...c.input, replicas: Array.from({ length: r }, (_, k) => reps[k % reps.length]!) } });
      }
    }
  }
  return out;
}
