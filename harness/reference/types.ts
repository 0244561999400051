/**
 * The reference model's data types: a variant as the model takes it, a case, the rules a trail
 * records and the allowed outcomes of one element. Types only, importing nothing that reads the
 * family registry, so that the plugin interface (harness/registry/plugin.ts) can name them without
 * an import cycle; harness/reference/model.ts re-exports them.
 */
import type { Citation } from '../catalog/cite.js';
import type { FamilyId, Qualifiers } from '../catalog/types.js';
import type { Allowed } from '../numerics/ops.js';

/** A variant as the model needs it: family and qualifiers (catalog entries have both). */
export interface ModelVariant {
  readonly family: FamilyId;
  readonly q: Qualifiers;
}

export interface ReferenceCase {
  /** Initial memory at [a]: one element (bits of .type, all lanes) per vector lane; bulk: destination elements. */
  readonly memory?: readonly bigint[];
  /** multimem: initial memory of each replica. */
  readonly replicas?: readonly (readonly bigint[])[];
  /** Operand b (and c for cas), one element per vector lane. */
  readonly b?: readonly bigint[];
  readonly c?: readonly bigint[];
  /** Bulk reductions: the source array in shared memory. */
  readonly source?: readonly bigint[];
  /** Where generic addressing lands (default global). */
  readonly space?: 'global' | 'shared';
}

export interface RuleApplied {
  readonly rule: string;
  readonly text: string;
  readonly cite?: Citation;
}

/** Allowed outcomes of one element: one set per packed lane (lane 0 = low bits). */
export type ElementAllowed = readonly Allowed[];
