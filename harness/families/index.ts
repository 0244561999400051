/**
 * The instruction families, listed, and their registration. Adding a family: write its folder under
 * harness/families/ (catalog.ts with its FamilyDef, index.ts with its FamilyPlugin; see
 * harness/registry/plugin.ts and docs/architecture.md "Families: one folder each") and list its
 * row in FAMILIES: its plugin, and its gpu.ts, multicast.ts and litmus.ts where it has them.
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
import { tensorLitmus } from './cp-reduce-async-bulk-tensor/litmus.js';
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

/** One family: its plugin (catalog, model, rules, shape) and the executors' parts it has. */
export interface FamilyEntry {
  readonly plugin: FamilyPlugin;
  /** The one-GPU executor's part (its gpu.ts); a family without it runs on the other executors only (multimem needs a multicast object). */
  readonly gpu?: GpuFamily;
  /**
   * The multicast executor's part (its multicast.ts). multimem.cp.reduce.async.bulk needs PTX ISA
   * 9.1, which ptxas 13.0 does not write: its jobs are skipped, with that reason, where the
   * installed ptxas is older.
   */
  readonly multicast?: MulticastFamily;
  /** The litmus language's part (its litmus.ts; docs/litmus.md). */
  readonly litmus?: LitmusFamily;
}

/** Every family, in catalog order (the order of enumeration and of reports), with its parts: adding a family is a row here. */
export const FAMILIES: readonly FamilyEntry[] = [
  { plugin: atomPlugin, gpu: atomGpu, litmus: atomLitmus },
  { plugin: redPlugin, gpu: redGpu, litmus: redLitmus },
  { plugin: multimemLdReducePlugin, multicast: ldReduceMulticast, litmus: multimemLdReduceLitmus },
  { plugin: multimemStPlugin, multicast: stMulticast, litmus: multimemStLitmus },
  { plugin: multimemRedPlugin, multicast: redMulticast, litmus: multimemRedLitmus },
  { plugin: cpReduceAsyncBulkPlugin, gpu: bulkGpu, litmus: bulkLitmus },
  { plugin: multimemCpReduceAsyncBulkPlugin, multicast: multimemBulkMulticast },
  { plugin: cpReduceAsyncBulkTensorPlugin, gpu: tensorGpu, litmus: tensorLitmus },
  { plugin: redAsyncPlugin, gpu: redAsyncGpu, litmus: redAsyncLitmus },
];

/** The plugins, in catalog order. */
export const PLUGINS: readonly FamilyPlugin[] = FAMILIES.map((f) => f.plugin);

/** One executor's parts by family id, from the table. */
function parts<K extends 'gpu' | 'multicast'>(k: K): Readonly<Record<string, NonNullable<FamilyEntry[K]>>> {
  return Object.fromEntries(FAMILIES.filter((f) => f[k]).map((f) => [f.plugin.def.id, f[k]!]));
}

/** Hands every family to the registry (harness/registry/): call it once where a program starts. */
export function registerAllFamilies(): void {
  registerFamilies(PLUGINS);
  registerGpuFamilies(parts('gpu'));
  registerMulticastFamilies(parts('multicast'));
  registerLitmusFamilies(FAMILIES.flatMap((f) => (f.litmus ? [f.litmus] : [])));
}
