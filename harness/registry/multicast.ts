/**
 * The families the multicast executor runs (harness/backends/multicast/), each with its own
 * multicast.ts, handed in by `registerAllFamilies()` (harness/families/index.ts).
 */
import type { MulticastFamily } from '../backends/multicast/family.js';
import { NOT_REGISTERED } from './index.js';

let multicast: ReadonlyMap<string, MulticastFamily> | undefined;

/** Registers the multicast executor's families by family id (a second call replaces the first). */
export function registerMulticastFamilies(table: Readonly<Record<string, MulticastFamily>>): void {
  multicast = new Map(Object.entries(table));
}

function table(): ReadonlyMap<string, MulticastFamily> {
  if (!multicast) throw new Error(`${NOT_REGISTERED} (the multicast executor's families are registered with them)`);
  return multicast;
}

/** The multicast executor's part of family `id`, or undefined where that executor does not run it. */
export function multicastFamily(id: string): MulticastFamily | undefined {
  return table().get(id);
}

/** The ids of the families the multicast executor runs. */
export function multicastFamilyIds(): readonly string[] {
  return [...table().keys()];
}
