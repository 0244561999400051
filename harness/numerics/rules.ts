/**
 * Floating-point rules of the reductions, one row per (instruction family, state space, type):
 * subnormal handling, rounding, NaN results, fp8 overflow, min/max. Each row cites the sentence it
 * encodes. Where no text decides, the row says `unspecified` and the reference model returns every
 * plausible outcome, marked so, for the comparator to record what the hardware does.
 *
 * A family's rows live in its folder (harness/families/<family>/, FamilyPlugin.rules); the registry
 * (harness/registry/) holds their union and rule-lookup.ts looks a row up. This module keeps the
 * row types and the rules that hold for every family (what no text decides, min/max); it reads no
 * registry, so that the plugin interface can name its types without an import cycle.
 */
import { cite } from '../catalog/cite.js';
import type { Citation } from '../catalog/cite.js';
import type { FamilyId, Match } from '../catalog/types.js';
import type { EditionRange } from '../catalog/editions.js';

/** true: flush subnormal inputs and results to sign-preserving zero; false: keep them. */
export type Ftz = boolean | 'unspecified';

export interface FpRule {
  readonly id: string;
  readonly families: readonly FamilyId[];
  /** Resolved state space of the memory the reduction lands in ('global' or 'shared'), or any. */
  readonly spaces: readonly ('global' | 'shared')[];
  readonly types: readonly string[];
  readonly ftz: Ftz;
  /** 'rne': round to nearest even, stated; 'unspecified': not stated (RNE assumed, marked). */
  readonly rounding: 'rne' | 'unspecified';
  readonly text: string;
  readonly cite: Citation;
  /** The editions whose text this row encodes (absent: the same text in every edition the catalog has). */
  readonly editions?: EditionRange;
  /** Qualifiers the row needs (e.g. .noftz): such rows come before the rows without, which they refine. */
  readonly when?: Match;
  /** Where a family states the rule in its own words (red beside atom): that family's citation. */
  readonly familyCites?: Partial<Record<FamilyId, Citation>>;
}

/**
 * What a family's own text says about its floating-point .min/.max, per edition. The operation is
 * MINMAX_RULES' (the non-atomic min/max); this row says on what basis it applies to the family.
 */
export interface MinMaxBasis {
  readonly id: string;
  readonly families: readonly FamilyId[];
  readonly editions?: EditionRange;
  readonly text: string;
  readonly cite: Citation;
  readonly familyCites?: Partial<Record<FamilyId, Citation>>;
}

/** The citation of `rule` as `family` reads it (its own words where it has them). */
export function citeFor(rule: { readonly cite: Citation; readonly familyCites?: Partial<Record<FamilyId, Citation>> }, family: FamilyId): Citation {
  return rule.familyCites?.[family] ?? rule.cite;
}

/** Rules for what no text of the reductions decides, applied everywhere. */
export const UNSPECIFIED = {
  nanPayload: {
    id: 'fp.nan-payload',
    text: 'the sign and payload of a NaN result are not specified (the cited sentence, worded so in every edition 9.1-9.4, is the only rounding rule .add has; none speaks of NaN results): any NaN encoding is allowed',
    cite: cite('atom.md', 'Description', '... .add operation rounds to nearest even.'),
  },
  fp8Overflow: {
    id: 'fp.fp8-overflow',
    text: 'what an fp8 sum beyond the largest finite value gives is not specified (the section states only the accumulation precision): infinity (e5m2) or NaN (e4m3), or the largest finite value (saturation)',
    cite: cite(
      'multimem-ld_reduce-st-red.md',
      'Description',
      'For multimem.ld_reduce, the default precision of the intermediate accumulation is same as the specified type.',
    ),
  },
  ftzUnstated: {
    id: 'fp.ftz-unstated',
    text: "subnormal handling is not stated (multimem.ld_reduce/red, cp.reduce.async.bulk.tensor; the family's own row in the same trail cites its section): flushed and kept results are both allowed",
    cite: cite(
      'multimem-ld_reduce-st-red.md',
      'Description',
      '~ the section states the precision of the intermediate accumulation and nothing of subnormal inputs or results (cp.reduce.async.bulk.tensor states no floating-point rule at all)',
    ),
  },
  fp8MinMax: {
    id: 'fp.fp8-minmax',
    text: 'no text gives min/max of fp8 types; the half-precision min/max rules are applied by analogy',
    cite: cite('halfMin', 'Semantics', 'else d = (a < b) ? a : b;'),
  },
} as const;

export const MINMAX_RULES = {
  min: {
    id: 'fp.min',
    text: 'min: NaN and NaN is NaN; one NaN gives the other operand; -0.0 < +0.0',
    cite: cite(
      'halfMin',
      'Semantics',
      'if (isNaN(a) && isNaN(b)) d = NaN; ... else if (isNaN(a)) d = b; else if (isNaN(b)) d = a; else d = (a < b) ? a : b; / If values of both inputs are 0.0, then +0.0 > -0.0.',
    ),
  },
  max: {
    id: 'fp.max',
    text: 'max: NaN and NaN is NaN; one NaN gives the other operand; +0.0 > -0.0',
    cite: cite(
      'halfMax',
      'Semantics',
      'if (isNaN(a) && isNaN(b)) d = NaN; ... else if (isNaN(a)) d = b; else if (isNaN(b)) d = a; else d = (a > b) ? a : b; / If values of both inputs are 0.0, then +0.0 > -0.0.',
    ),
  },
} as const;
