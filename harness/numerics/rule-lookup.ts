/**
 * Looks up the floating-point rule and the min/max basis of one reduction among the rows the
 * registered families contribute (harness/registry/, FamilyPlugin.rules and .minmax). Apart from
 * rules.ts (the row types and the rules every family shares), because it reads the registry.
 */
import { type Edition, inEdition, specEdition } from '../catalog/editions.js';
import { matches } from '../catalog/evaluate.js';
import type { FamilyId, Qualifiers } from '../catalog/types.js';
import { familyFpRules, familyMinMaxBasis } from '../registry/index.js';
import type { FpRule, MinMaxBasis } from './rules.js';

/** The basis of `family`'s .min/.max in the edition judged against, or undefined where its text has none. */
export function findMinMaxBasis(family: FamilyId, edition: Edition = specEdition()): MinMaxBasis | undefined {
  return familyMinMaxBasis().find((x) => x.families.includes(family) && inEdition(x.editions, edition));
}

/** The rule for one reduction in the edition judged against (specEdition()), or undefined where no row covers it. */
export function findFpRule(family: FamilyId, space: 'global' | 'shared', type: string, edition: Edition = specEdition(), q?: Qualifiers): FpRule | undefined {
  return familyFpRules().find(
    (x) =>
      x.families.includes(family) &&
      x.spaces.includes(space) &&
      x.types.includes(type) &&
      inEdition(x.editions, edition) &&
      (!x.when || (q !== undefined && matches(x.when, q))),
  );
}

/** The rule for one reduction; throws when no row covers it (a gap in a family's rules, not user input). */
export function fpRule(family: FamilyId, space: 'global' | 'shared', type: string, q?: Qualifiers): FpRule {
  const r = findFpRule(family, space, type, specEdition(), q);
  if (!r) throw new Error(`no floating-point rule for ${family} on .${space} with .${type} (the rules of harness/families/<family>/, FamilyPlugin.rules)`);
  return r;
}
