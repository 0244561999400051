/**
 * The family registry, handed in. The core (catalog, numerics, reference, compare, case readers)
 * asks this module for the instruction families and never imports harness/families/: the program
 * registers them where it is put together (the CLI entry harness/cli/main.ts, the gpu worker, the
 * scripts, the tests' setup file), by `registerAllFamilies()` of harness/families/index.ts, which
 * calls `registerFamilies` here and the executors' registrations beside it (gpu.ts, multicast.ts,
 * litmus.ts). Nothing reads the registry while a module loads: every list is asked for when used.
 *
 * tests/house/dependencies.test.ts keeps it so (dependency-cruiser, .dependency-cruiser.cjs).
 */
import type { FamilyDef, FamilyId } from '../catalog/types.js';
import type { FpRule, MinMaxBasis } from '../numerics/rules.js';
import type { FamilyPlugin, ModelRule } from './plugin.js';

export type { CaseInput, CaseLength, CaseShape, FamilyPlugin } from './plugin.js';

/** What the registry derives from the plugins, computed once per registration. */
interface Registered {
  readonly plugins: readonly FamilyPlugin[];
  readonly defs: readonly FamilyDef[];
  readonly ids: readonly FamilyId[];
  readonly byId: ReadonlyMap<string, FamilyPlugin>;
  readonly fpRules: readonly FpRule[];
  readonly minmax: readonly MinMaxBasis[];
  readonly modelRules: readonly (ModelRule & { readonly family: FamilyId })[];
}

let registered: Registered | undefined;

/** The error every lookup throws before a program has registered its families. */
export const NOT_REGISTERED =
  "no instruction family is registered: the program registers them where it is put together; call registerAllFamilies() of harness/families/index.ts first (the CLI entry, a worker entry, a script, or the tests' setup file tests/helpers/register-families.ts)";

/**
 * Registers the instruction families, in catalog order (the order of enumeration and of reports).
 * A second call replaces the first (the same list again changes nothing).
 */
export function registerFamilies(plugins: readonly FamilyPlugin[]): void {
  if (registered?.plugins === plugins) return;
  if (!plugins.length) throw new Error('registerFamilies: the list of family plugins is empty');
  const byId = new Map<string, FamilyPlugin>();
  for (const p of plugins) {
    if (byId.has(p.def.id)) throw new Error(`registerFamilies: family '${p.def.id}' is listed twice`);
    byId.set(p.def.id, p);
  }
  registered = {
    plugins,
    defs: plugins.map((p) => p.def),
    ids: plugins.map((p) => p.def.id),
    byId,
    // atom and red share their rows: each row once
    fpRules: [...new Set(plugins.flatMap((p) => p.rules))],
    minmax: [...new Set(plugins.flatMap((p) => p.minmax ?? []))],
    modelRules: plugins.flatMap((p) => (p.modelRules ?? []).map((r) => ({ ...r, family: p.def.id }))),
  };
}

/** Whether a program has registered its families. */
export function familiesRegistered(): boolean {
  return registered !== undefined;
}

function reg(): Registered {
  if (!registered) throw new Error(NOT_REGISTERED);
  return registered;
}

/** Every registered family's plugin, in catalog order. */
export function familyPlugins(): readonly FamilyPlugin[] {
  return reg().plugins;
}

/** Every registered family's catalog, in catalog order. */
export function families(): readonly FamilyDef[] {
  return reg().defs;
}

/** The registered family ids, in catalog order. */
export function familyIds(): readonly FamilyId[] {
  return reg().ids;
}

export function familyById(id: string): FamilyDef | undefined {
  return reg().byId.get(id)?.def;
}

/** The plugin of family `id`; throws for an id no plugin registers. */
export function familyPlugin(id: string): FamilyPlugin {
  const r = reg();
  const p = r.byId.get(id);
  if (!p)
    throw new Error(
      `unknown instruction family '${id}': the registered families are ${r.ids.join(', ')}; add the family's folder and list its plugin in harness/families/index.ts`,
    );
  return p;
}

/** The floating-point rules of every family, each row once (atom and red share theirs). */
export function familyFpRules(): readonly FpRule[] {
  return reg().fpRules;
}

/** Each family's basis for its .min/.max (FamilyPlugin.minmax), each row once. */
export function familyMinMaxBasis(): readonly MinMaxBasis[] {
  return reg().minmax;
}

/** The rules families' models note in a trail (FamilyPlugin.modelRules), with the family of each. */
export function familyModelRules(): readonly (ModelRule & { readonly family: FamilyId })[] {
  return reg().modelRules;
}
