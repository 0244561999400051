/**
 * The families the multicast executor runs (harness/backends/multicast/), each with its own
 * multicast.ts. multimem.cp.reduce.async.bulk needs PTX ISA 9.1, which ptxas 13.0 does not write:
 * its jobs are skipped, with that reason, where the installed ptxas is older.
 */
import type { MulticastFamily } from '../backends/multicast/family.js';
import { multimemBulkMulticast } from './multimem-cp-reduce-async-bulk/multicast.js';
import { ldReduceMulticast } from './multimem-ld_reduce/multicast.js';
import { redMulticast } from './multimem-red/multicast.js';
import { stMulticast } from './multimem-st/multicast.js';

const MULTICAST: Readonly<Record<string, MulticastFamily>> = {
  'multimem.ld_reduce': ldReduceMulticast,
  'multimem.red': redMulticast,
  'multimem.st': stMulticast,
  'multimem.cp.reduce.async.bulk': multimemBulkMulticast,
};

export function multicastFamily(id: string): MulticastFamily | undefined {
  return MULTICAST[id];
}

export const MULTICAST_FAMILY_IDS: readonly string[] = Object.keys(MULTICAST);
