/**
 * Canonical PTX spelling of a variant: the family head, then the qualifiers in the grammar's order.
 * Variant ids add `(_)` for atom's bit-bucket destination and `@ptxX.Y` for a variant checked under
 * an older PTX ISA version; a value held outside the instruction (a tensor map's element type) is
 * not spelled, and ids add it as `(<value>)`.
 */
import type { FamilyDef, Qualifiers } from './types.js';

export function spell(fam: FamilyDef, q: Qualifiers): string {
  let s = fam.head;
  for (const slot of fam.slots) {
    if (slot.operand || slot.descriptor) continue;
    const v = q[slot.name] ?? '';
    if (v !== '') s += `.${v}`;
  }
  return s;
}

/** The `(<value>)` suffix of a variant's descriptor slots (the tensor map's element type), in slot order. */
export function descriptorSuffix(fam: FamilyDef, q: Qualifiers): string {
  let s = '';
  for (const slot of fam.slots) if (slot.descriptor && (q[slot.name] ?? '') !== '') s += `(${q[slot.name]})`;
  return s;
}

/**
 * The stable id of a variant: its spelling, `(_)` for a bit-bucket destination, `(<value>)` per
 * descriptor slot, `@ptxX.Y` if pinned.
 */
export function variantId(fam: FamilyDef, q: Qualifiers, ptx?: string): string {
  let id = spell(fam, q);
  if ((q.d ?? '') === '_') id += '(_)';
  id += descriptorSuffix(fam, q);
  if (ptx) id += `@ptx${ptx}`;
  return id;
}

/**
 * The ways a spelling neighbour differs from its variant: ptxas 13.0 accepts qualifiers in any order
 * and rejects one written twice, while the grammar writes one order and one value per slot; the text
 * says neither, so each is `ambiguous` (expect either) and what ptxas does is recorded.
 */
export const SPELLINGS = [
  { kind: 'reversed', rule: 'order', respell: (qs: readonly string[]) => [...qs].reverse() },
  { kind: 'type-first', rule: 'order', respell: (qs: readonly string[]) => [qs.at(-1)!, ...qs.slice(0, -1)] },
  { kind: 'repeated', rule: 'repeated', respell: (qs: readonly string[]) => [qs[0]!, ...qs] },
] as const;

export const SPELLING_TEXT = {
  order: 'The syntax writes the qualifiers in one order; the text does not say whether another order is an error.',
  repeated: 'Each qualifier slot takes one value; the text does not say whether a qualifier written twice is an error.',
} as const;
