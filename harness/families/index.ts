/**
 * The instruction families, listed, and their registration. Adding a family: write its folder under
 * harness/families/ (catalog.ts with its FamilyDef, index.ts with its FamilyPlugin; see
 * harness/registry/plugin.ts and docs/architecture.md "Families: one folder each") and list its
 * plugin in PLUGINS (and its gpu.ts, multicast.ts, litmus.ts in the tables below where it has them).
 *
 * The core never imports this module: the program calls `registerAllFamilies()` where it is put
 * together (harness/cli/main.ts, harness/backends/gpu/worker.ts, scripts, the tests' setup file),
 * and the core asks harness/registry/.
 */
import type { GpuFamily } from '../backends/gpu/family.js';
import type { MulticastFamily } from '../backends/multicast/family.js';
import { registerFamilies } from '../registry/index.js';
import { registerGpuFamilies } from '../registry/gpu.js';
import type { LitmusFamily } from '../registry/litmus-family.js';
import { registerLitmusFamilies } from '../registry/litmus.js';
import { registerMulticastFamilies } from '../registry/multicast.js';
import type { FamilyPlugin } from '../registry/plugin.js';
import { atomGpu } from './atom/gpu.js';
import { atomPlugin } from './atom/index.js';
import { atomLitmus } from './atom/litmus.js';
import { bulkGpu } from './cp-reduce-async-bulk/gpu.js';
import { cpReduceAsyncBulkPlugin } from './cp-reduce-async-bulk/index.js';
import { bulkLitmus } from './cp-reduce-async-bulk/litmus.js';
import { tensorGpu } from './cp-reduce-async-bulk-tensor/gpu.js';
import { cpReduceAsyncBulkTensorPlugin } from './cp-reduce-async-bulk-tensor/index.js';
import { multimemCpReduceAsyncBulkPlugin } from './multimem-cp-reduce-async-bulk/index.js';
import { multimemBulkMulticast } from './multimem-cp-reduce-async-bulk/multicast.js';
import { multimemLdReducePlugin } from './multimem-ld_reduce/index.js';
import { multimemLdReduceLitmus } from './multimem-ld_reduce/litmus.js';
import { ldReduceMulticast } from './multimem-ld_reduce/multicast.js';
import { multimemRedPlugin } from './multimem-red/index.js';
import { multimemRedLitmus } from './multimem-red/litmus.js';
import { redMulticast } from './multimem-red/multicast.js';
import { multimemStPlugin } from './multimem-st/index.js';
import { multimemStLitmus } from './multimem-st/litmus.js';
import { stMulticast } from './multimem-st/multicast.js';
import { redGpu } from './red/gpu.js';
import { redPlugin } from './red/index.js';
import { redLitmus } from './red/litmus.js';
import { redAsyncGpu } from './red-async/gpu.js';
import { redAsyncPlugin } from './red-async/index.js';
import { redAsyncLitmus } from './red-async/litmus.js';

/** Every family, in catalog order (the order of enumeration and of reports). */
export const PLUGINS: readonly FamilyPlugin[] = [
  atomPlugin,
  redPlugin,
  multimemLdReducePlugin,
  multimemStPlugin,
  multimemRedPlugin,
  cpReduceAsyncBulkPlugin,
  multimemCpReduceAsyncBulkPlugin,
  cpReduceAsyncBulkTensorPlugin,
  redAsyncPlugin,
];

/**
 * The families the gpu executor (one GPU, no multicast) can run, each with its own gpu.ts. A
 * family missing here is run by the other executors only (multimem needs a multicast object).
 */
export const GPU_FAMILIES: Readonly<Record<string, GpuFamily>> = {
  atom: atomGpu,
  red: redGpu,
  'cp.reduce.async.bulk': bulkGpu,
  'cp.reduce.async.bulk.tensor': tensorGpu,
  'red.async': redAsyncGpu,
};

/**
 * The families the multicast executor runs (harness/backends/multicast/), each with its own
 * multicast.ts. multimem.cp.reduce.async.bulk needs PTX ISA 9.1, which ptxas 13.0 does not write:
 * its jobs are skipped, with that reason, where the installed ptxas is older.
 */
export const MULTICAST_FAMILIES: Readonly<Record<string, MulticastFamily>> = {
  'multimem.ld_reduce': ldReduceMulticast,
  'multimem.red': redMulticast,
  'multimem.st': stMulticast,
  'multimem.cp.reduce.async.bulk': multimemBulkMulticast,
};

/** The families the litmus language reads (docs/litmus.md), each with its own litmus.ts. */
export const LITMUS_FAMILIES: readonly LitmusFamily[] = [atomLitmus, redLitmus, redAsyncLitmus, bulkLitmus, multimemRedLitmus, multimemStLitmus, multimemLdReduceLitmus];

/** Hands every family to the registry (harness/registry/): call it once where a program starts. */
export function registerAllFamilies(): void {
  registerFamilies(PLUGINS);
  registerGpuFamilies(GPU_FAMILIES);
  registerMulticastFamilies(MULTICAST_FAMILIES);
  registerLitmusFamilies(LITMUS_FAMILIES);
}
