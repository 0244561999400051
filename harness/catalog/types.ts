/**
 * The shape of the spec catalog. A family is pure data: its qualifier slots, the syntax forms of its
 * grammar, its rule tables, the defaults of omitted qualifiers, its requirements and its operands.
 * `evaluate.ts` reads these tables; nothing else in the harness encodes a PTX rule.
 */
import type { TargetClause } from '../arch/targets.js';
import type { Citation } from './cite.js';
import type { EditionRange } from './editions.js';

/** Qualifier values by slot name; '' means the qualifier is omitted. */
export type Qualifiers = Readonly<Record<string, string>>;

/**
 * A pattern over qualifiers: every named slot must hold one of the listed values. Slots not named
 * are unconstrained. `{ vec: ['v2', 'v4'] }` matches any v2 or v4 variant.
 */
export type Match = Readonly<Record<string, readonly string[]>>;

export interface SlotDef {
  readonly name: string;
  /**
   * The value set the grammar gives this slot; '' when it may be omitted. Slots carry no editions:
   * the set is the union over every edition (9.3 moves atom's .cas/.exch out of `.op`, for one),
   * and the forms, which do carry editions, say which values each edition's lines take.
   */
  readonly values: readonly string[];
  /** The grammar line of the oldest edition that gives the set (forms cite each edition's own lines). */
  readonly cite: Citation;
  /**
   * Set for a slot that is an operand choice rather than a qualifier (atom's bit bucket `_` as `d`):
   * it is not spelled in the opcode, and a variant id shows it as a `(_)` suffix.
   */
  readonly operand?: true;
  /**
   * Set for a slot whose value the instruction does not spell but an object it names holds (the
   * tensor map's element type for cp.reduce.async.bulk.tensor): what holds it, in words. ptxas never
   * sees it, so no invalid neighbour changes it; a variant id shows it as a `(<value>)` suffix, and an
   * instruction written in a vector file or --case gives it the same way.
   */
  readonly descriptor?: string;
}

/** Operand kinds, in the order the instruction takes them. */
export type OperandKind =
  | 'd' //     destination register(s) of the data type, or the bit bucket `_`
  | 'a' //     [address]
  | 'b' //     source register(s) of the data type
  | 'c' //     second source (cas)
  | 'policy' // 64-bit cache-policy operand, present only with .L2::cache_hint
  | 'dstMem' // [address]
  | 'srcMem' // [address]
  | 'size' //  32-bit byte count
  | 'mbar' //   [mbarrier address]
  | 'tensor'; // [tensorMap{, gAddrToOverride}{, attributeOverrideInfo}, {coordinates, one per .dim}]

/** One syntax line of the spec's grammar. A variant is grammatical if some form admits it. */
export interface FormRow {
  readonly id: string;
  /** The grammar line as the spec writes it. */
  readonly syntax: string;
  /** Allowed values per slot in this form; a slot missing here must be omitted (''). */
  readonly slots: Match;
  readonly operands: readonly OperandKind[];
  readonly cite: Citation;
  /** PTX ISA editions whose text has this line (absent: all the catalog has). */
  readonly editions?: EditionRange;
}

/** Why a table row holds: stated by the spec, or inferred by us from its prose. */
export type Basis = 'table' | 'grammar' | 'description' | 'inferred';

export interface AllowRow {
  readonly values: Match;
  /** Set when the spec leaves this combination open: the variant is enumerated as `ambiguous`. */
  readonly ambiguity?: string;
  readonly basis: Basis;
  readonly cite: Citation;
  /** PTX ISA editions whose text allows this (absent: all the catalog has). */
  readonly editions?: EditionRange;
}

/**
 * A validity table. For each variant that `appliesTo` matches, some row must match the variant's
 * values in every column, else the variant violates this rule. A row with `ambiguity` matches but
 * marks the variant ambiguous.
 */
export interface RuleTable {
  readonly id: string;
  /** The rule in words, as a reader of the report should see it. */
  readonly text: string;
  readonly appliesTo: Match;
  readonly rows: readonly AllowRow[];
  readonly cite: Citation;
  /**
   * Where the text giving the table changed between editions (rows carry their own editions): the
   * citation a violation shows when judged against each range (absent or no match: `cite`).
   */
  readonly editionCites?: readonly { readonly editions: EditionRange; readonly cite: Citation }[];
}

/** A combination the spec leaves open that no table decides (the variant stays enumerated). */
export interface AmbiguityRow {
  readonly id: string;
  readonly when: Match;
  readonly text: string;
  readonly cite: Citation;
}

/** What an omitted (or shorthand) qualifier means. `implies: null` records that the spec is silent. */
export interface DefaultRow {
  readonly slot: string;
  readonly spelled: string;
  readonly when?: Match;
  readonly implies: string | null;
  readonly text: string;
  readonly cite: Citation;
  /** PTX ISA editions whose text gives this default (absent: all the catalog has). */
  readonly editions?: EditionRange;
}

/** A "PTX ISA Notes" / "Target ISA Notes" line: what a feature needs. */
export interface RequirementRow {
  readonly id: string;
  readonly feature: string;
  readonly when: Match;
  /** Lowest PTX ISA version that has the feature. */
  readonly ptx?: string;
  /** Target clauses, any of which suffices; absent when the note names no target. */
  readonly targets?: readonly TargetClause[];
  readonly cite: Citation;
  /** PTX ISA editions whose text has this note (absent: all the catalog has). */
  readonly editions?: EditionRange;
}

/** A spec example that cannot be valid as written, and the rule it breaks. */
export interface ErratumRow {
  /** The example line exactly as it stands in the excerpt (whitespace collapsed). */
  readonly example: string;
  /** Rule ids the catalog reports for it; the test checks the catalog still finds them. */
  readonly violates: readonly string[];
  readonly finding: string;
  /**
   * PTX ISA editions whose text has this example (absent: all the catalog has); judged against
   * another edition the line is no erratum (tests/catalog/spec-examples.test.ts).
   */
  readonly editions?: EditionRange;
}

/**
 * An instruction family's id (its opcode head, e.g. `multimem.ld_reduce`). The registry
 * (harness/families/index.ts) holds the valid ids: `familyPlugin(id)` throws for any other.
 */
export type FamilyId = string;

export interface FamilyDef {
  readonly id: FamilyId;
  /** The opcode text before the qualifiers. */
  readonly head: string;
  /** The excerpt file of this family. */
  readonly specFile: string;
  /** Slots in the grammar's order, which is also the canonical spelling order. */
  readonly slots: readonly SlotDef[];
  readonly forms: readonly FormRow[];
  readonly tables: readonly RuleTable[];
  readonly ambiguities: readonly AmbiguityRow[];
  readonly defaults: readonly DefaultRow[];
  readonly requirements: readonly RequirementRow[];
  readonly errata: readonly ErratumRow[];
  /**
   * Slots whose every value is enumerated for each core variant but which do not change the
   * operation (memory-ordering and scope). Invalid neighbours are built from core variants, in
   * which these slots are omitted.
   */
  readonly fanout: readonly string[];
}
