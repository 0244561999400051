/**
 * The registry of instruction families. Adding a family: write its folder under harness/families/
 * (catalog.ts with its FamilyDef, index.ts with its FamilyPlugin; see plugin.ts and the README's
 * "Families: one folder each") and list its plugin in PLUGINS. The shared machinery asks
 * `familyPlugin(id)` and names no family.
 */
import type { FamilyDef, FamilyId } from '../catalog/types.js';
import type { FpRule, MinMaxBasis } from '../numerics/rules.js';
import { atomPlugin } from './atom/index.js';
import { cpReduceAsyncBulkPlugin } from './cp-reduce-async-bulk/index.js';
import { cpReduceAsyncBulkTensorPlugin } from './cp-reduce-async-bulk-tensor/index.js';
import { multimemCpReduceAsyncBulkPlugin } from './multimem-cp-reduce-async-bulk/index.js';
import { multimemLdReducePlugin } from './multimem-ld_reduce/index.js';
import { multimemRedPlugin } from './multimem-red/index.js';
import { multimemStPlugin } from './multimem-st/index.js';
import type { CaseInput, CaseLength, CaseShape, FamilyPlugin } from './plugin.js';
import { redPlugin } from './red/index.js';
import { redAsyncPlugin } from './red-async/index.js';

export type { CaseInput, CaseLength, CaseShape, FamilyPlugin };

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

export const FAMILIES: readonly FamilyDef[] = PLUGINS.map((p) => p.def);

export function familyById(id: string): FamilyDef | undefined {
  return FAMILIES.find((f) => f.id === id);
}

export const FAMILY_IDS: readonly FamilyId[] = FAMILIES.map((f) => f.id);

const BY_ID = new Map(PLUGINS.map((p) => [p.def.id, p]));

/** The plugin of family `id`; throws for an id no plugin registers. */
export function familyPlugin(id: string): FamilyPlugin {
  const p = BY_ID.get(id);
  if (!p) throw new Error(`unknown instruction family '${id}': the registered families are ${FAMILY_IDS.join(', ')}; add the family's folder and list its plugin in harness/families/index.ts`);
  return p;
}

/**
 * The floating-point rules of every family, each row once (atom and red share theirs). Re-exported
 * by harness/numerics/rules.ts as FP_RULES.
 */
export const FAMILY_FP_RULES: readonly FpRule[] = [...new Set(PLUGINS.flatMap((p) => p.rules))];

/** The rules families' models note in a trail (FamilyPlugin.modelRules), with the family of each. */
export const FAMILY_MODEL_RULES = PLUGINS.flatMap((p) => (p.modelRules ?? []).map((r) => ({ ...r, family: p.def.id })));

/** Each family's basis for its .min/.max (FamilyPlugin.minmax), each row once. Re-exported as MINMAX_BASIS. */
export const FAMILY_MINMAX_BASIS: readonly MinMaxBasis[] = [...new Set(PLUGINS.flatMap((p) => p.minmax ?? []))];
