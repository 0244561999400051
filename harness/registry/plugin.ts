/**
 * What one instruction family contributes beside its catalog: how the reference model evaluates it,
 * its floating-point rules, what a case of it holds (and how cases are generated and probed), and
 * how the explanation alternatives apply to it. The shared machinery (reference model, generators,
 * comparator, vector loader, executors) asks `familyPlugin(id)` (index.ts) and names no family.
 *
 * Import rule: this module names only types of modules that do not read the registry (reference
 * types, explanation types, rule rows), so that the registry imports it without an import cycle.
 */
import type fc from 'fast-check';

/** The fast-check module (its namespace), as the generator passes it to `arbitrary`. */
export type FastCheck = typeof fc;
import type { Alternative, ObservedBits } from '../compare/alternative.js';
import type { FamilyDef, Qualifiers } from '../catalog/types.js';
import type { Citation } from '../catalog/cite.js';
import type { ElementFormat } from '../numerics/formats.js';
import type { OrderedResult } from '../numerics/reduce.js';
import type { FpRule, MinMaxBasis } from '../numerics/rules.js';
import type { ElementAllowed, ModelVariant, ReferenceCase, RuleApplied } from '../reference/types.js';

/** The inputs a case can hold (the fields of `ReferenceCase` and of a vector file's case). */
export type CaseInput = 'memory' | 'replicas' | 'b' | 'c' | 'source';

/** How many elements each input of a case holds. */
export type CaseLength =
  /** One element per vector lane (1 for a scalar). */
  | { readonly kind: 'vector'; readonly elements: number }
  /**
   * A bulk copy: any multiple of `bytes` bytes (generated and directed cases use exactly `bytes`);
   * `rule`, the sentence of the family's section that sets the size (quoted when a case breaks it).
   */
  | { readonly kind: 'bulk'; readonly bytes: number; readonly rule?: Citation };

/** Where the outcome of the operation is observed (what an explanation compares). */
export type ResultsIn = 'memory' | 'replicas' | 'returned';

/** The directed probes of one case, as hex elements of the case's length, per probe operand. */
export interface ProbeLists {
  readonly a: readonly string[];
  readonly b: readonly string[];
  readonly c: readonly string[];
}

/** What a case of the family holds and how generators and the directed library fill it. */
export interface CaseShape {
  /** The inputs a case of variant `q` takes, in the order a case lists them. */
  inputs(q: Qualifiers): readonly CaseInput[];
  /** Elements per input. */
  length(q: Qualifiers): CaseLength;
  /** Whether the variant returns values in registers (atom with a register `d`, multimem.ld_reduce). */
  returns(q: Qualifiers): boolean;
  /** Where the operation's results are observed. */
  readonly results: ResultsIn;
  /** The state space the memory operand resolves to (a case's `space` decides generic addressing). */
  space(q: Qualifiers, c: ReferenceCase): 'global' | 'shared';
  /**
   * The generator's arbitrary of one case, given the arbitrary of one input list of the right length
   * at the requested level (elements drawn from the level's bit patterns). `fc` is the fast-check
   * module, passed by the generator (cases/generators/), so that a family loads no fast-check where
   * nothing is generated (`--list`, a vector run).
   */
  arbitrary(q: Qualifiers, list: fc.Arbitrary<bigint[]>, fc: FastCheck): fc.Arbitrary<ReferenceCase>;
  /** The operation whose probes (cases/generators/directed.ts) a directed case of `q` takes. */
  probeOp(q: Qualifiers): string;
  /** A directed case's fields, as the vector file writes them (key order is the file's). */
  directed(q: Qualifiers, probe: ProbeLists): Record<string, unknown>;
  /**
   * Whether a valid variant with default ordering, scope, hint and destination represents the family
   * in generated and directed cases (e.g. `.global` only, `.shared::cta` where the space changes the
   * numerics).
   */
  representative(q: Qualifiers): boolean;
}

/** The outcomes of one case that a family's model computes; the shared model adds the rule trail. */
export interface FamilyOutcome {
  readonly memory?: readonly ElementAllowed[];
  readonly replicas?: readonly (readonly ElementAllowed[])[];
  readonly returned?: readonly ElementAllowed[];
  readonly orders?: readonly (readonly (readonly OrderedResult[])[])[];
}

/** What the shared reference model hands a family's model for one case. */
export interface ModelContext {
  readonly fmt: ElementFormat;
  /** The variant's `.op` ('' where the family has none). */
  readonly op: string;
  /** The resolved state space (the family's `shape.space`). */
  readonly space: 'global' | 'shared';
  /** `x`, or a case error "the case needs <what>". */
  need<T>(x: T | undefined, what: string): T;
  /** Throws a case error (the case does not fit the variant). */
  fail(message: string): never;
  /** `op` on one element (all lanes) of memory `r` with operands `s`, `t`; records the rules applied. */
  elementOp(r: bigint, s: bigint, t: bigint): ElementAllowed;
  /** The family's floating-point rule for the case's type and space (not recorded). */
  fpRule(): FpRule;
  /** Records a rule in the case's trail (an id keeps the place of its first record). */
  note(rule: RuleApplied): void;
}

export type FamilyModel = (v: ModelVariant, c: ReferenceCase, ctx: ModelContext) => FamilyOutcome;

/** Family-specific parts of mismatch explanation (harness/compare/explain.ts). */
export interface ExplainHooks {
  /**
   * Whether `alt` reproduces every observed result of the case, for a family whose results are not
   * one operation per element (a reduction over replicas); undefined when `alt` does not apply.
   * Families without it are tested element by element on `shape.results`.
   */
  readonly reproduces?: (alt: Alternative, v: ModelVariant, c: ReferenceCase, obs: ObservedBits, rule: FpRule) => boolean | undefined;
}

export interface FamilyPlugin {
  /** The catalog: slots, forms, tables, defaults, requirements, errata, each row cited. */
  readonly def: FamilyDef;
  readonly model: FamilyModel;
  /** The floating-point rules of the family, each citing its sentence (a row may serve several families). */
  readonly rules: readonly FpRule[];
  /** What the family's text says about its floating-point .min/.max, per edition (absent: nothing). */
  readonly minmax?: readonly MinMaxBasis[];
  readonly shape: CaseShape;
  readonly explain: ExplainHooks;
  /**
   * Rules the model records in a case's trail (ctx.note) besides the floating-point and min/max
   * rows, each with its text and citation: the report's rules section names them from here.
   */
  readonly modelRules?: readonly ModelRule[];
}

/** A rule the model notes in a trail, cited (a report shows its text and the sentence it follows). */
export type ModelRule = RuleApplied & { readonly cite: Citation };

/** Vector length of a variant: 1, or the n of `.vn`. */
export function lanesOf(q: Qualifiers): number {
  const v = q.vec ?? '';
  return v === '' ? 1 : Number(v.slice(1));
}

/** The state space a spelled space qualifier resolves to; '' (generic) lands where the case says. */
export function resolveSpace(spelled: string | undefined, c: ReferenceCase): 'global' | 'shared' {
  const s = spelled ?? '';
  if (s.startsWith('shared')) return 'shared';
  if (s === 'global') return 'global';
  return c.space ?? 'global';
}
