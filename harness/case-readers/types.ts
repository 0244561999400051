/**
 * A case: what every backend is fed. It names its variant, its initial memory and operands as bit
 * patterns, optionally the outcome its author expects, and where it came from, which makes its id
 * stable and replayable with `--case ID`.
 */
import type { FamilyId, Qualifiers } from '../catalog/types.js';
import type { ReferenceCase } from '../reference/model.js';

export interface CaseVariant {
  readonly family: FamilyId;
  readonly q: Qualifiers;
  /** Canonical spelling and id of the variant (`atom.global.add.f32`, `atom.global.add.u32(_)`). */
  readonly ptx: string;
  readonly id: string;
}

export type CaseOrigin =
  | { readonly kind: 'vectors'; readonly file: string; readonly line: number; readonly name: string }
  | { readonly kind: 'gen'; readonly seed: number; readonly level: number; readonly index: number };

export interface CaseExpect {
  readonly memory?: readonly bigint[];
  readonly returned?: readonly bigint[];
  readonly replicas?: readonly (readonly bigint[])[];
}

export interface Case {
  /** `<variant id>/<file>:<name>` or `<variant id>/gen:seed=S:level=L:i=K`. */
  readonly id: string;
  readonly variant: CaseVariant;
  readonly input: ReferenceCase;
  readonly expect?: CaseExpect;
  readonly origin: CaseOrigin;
  /** The citation the file gives (`cite:`), if any. */
  readonly cite?: string;
}

/** A problem in an input file, located: printed as `file:line:col: message`. */
export interface InputProblem {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** What is wrong; what to do. */
  readonly message: string;
}

export function formatProblem(p: InputProblem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.message}`;
}

/** Problems as printed: in file order, then by line and column (the order they were found in is the checker's, not the reader's). */
export function problemLines(ps: readonly InputProblem[]): string[] {
  const order = new Map<string, number>();
  for (const p of ps) if (!order.has(p.file)) order.set(p.file, order.size);
  return [...ps].sort((a, b) => order.get(a.file)! - order.get(b.file)! || a.line - b.line || a.col - b.col).map(formatProblem);
}
