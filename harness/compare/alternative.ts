/**
 * The types of mismatch explanation (explain.ts): an alternative rule and the observed bits it is
 * tested against. Types only, reading no registry, so that the plugin interface
 * (harness/registry/plugin.ts) names them without an import cycle; explain.ts re-exports them.
 */
import type { Rounding } from '../numerics/exact.js';

/** Element-wise add, min/max; and the same inside a reduction over replicas (a family's hook). */
export type OpKind = 'add' | 'minmax' | 'ld_reduce.add' | 'ld_reduce.minmax';

export interface Alternative {
  readonly id: string;
  /** How a finding reads: "observed = reference with ..." */
  readonly text: string;
  /** Which float operations it applies to. */
  readonly applies: readonly OpKind[];
  readonly flushIn?: boolean;
  readonly flushOut?: boolean;
  readonly rounding?: Rounding;
  /** min/max: a NaN input gives NaN (IEEE 754-2019 minimum/maximum) instead of the other operand. */
  readonly nanPropagates?: boolean;
  /** min/max: -0.0 and +0.0 compare equal, either may come back. */
  readonly zerosUnordered?: boolean;
  /** multimem.ld_reduce: accumulate in this format instead of the variant's ('exact': exactly, one rounding at the end). */
  readonly acc?: 'f32' | 'f16' | 'f64' | 'type' | 'exact';
}

/** Observed bits of a case, as the report carries them (hex strings). */
export interface ObservedBits {
  readonly memory?: readonly string[];
  readonly returned?: readonly string[];
  readonly replicas?: readonly (readonly string[])[];
}
