/**
 * The reference backend. It needs no toolchain: it records what the spec catalog expects of every
 * entry. Compile acceptance is a question only a toolchain answers, so every entry is `skipped` with
 * that reason; value checks against the reference model come with the case sources.
 */
import type { Target } from '../../arch/targets.js';
import type { CatalogEntry } from '../../catalog/enumerate.js';
import type { EntryResult } from '../../report/types.js';
import { resultWithout } from '../ptxas/backend.js';

export const REFERENCE_SKIP_REASON =
  'reference backend: acceptance by a toolchain was not checked (no ptxas run); the catalog expectation is recorded';

export function runReferenceBackend(entries: readonly CatalogEntry[], target: Target, ptx: string): EntryResult[] {
  void target;
  return entries.map((e) => resultWithout(e, ptx, 'skipped', REFERENCE_SKIP_REASON));
}
