/**
 * The families the litmus language reads (docs/litmus.md), each with its own litmus.ts, handed in by
 * `registerAllFamilies()` (harness/families/index.ts). The shared reader
 * (harness/memory-model/extended.ts) asks `litmusFamilyFor(parts)` and names no family.
 */
import { NOT_REGISTERED } from './index.js';
import type { LitmusFamily } from './litmus-family.js';

let litmus: readonly LitmusFamily[] | undefined;

/** Registers the litmus language's families (a second call replaces the first). */
export function registerLitmusFamilies(list: readonly LitmusFamily[]): void {
  litmus = list;
}

/** Every registered litmus family. */
export function litmusFamilies(): readonly LitmusFamily[] {
  if (!litmus) throw new Error(`${NOT_REGISTERED} (the litmus language's families are registered with them)`);
  return litmus;
}

/** The family whose mnemonic is the longest prefix of `parts`, if any. */
export function litmusFamilyFor(parts: readonly string[]): LitmusFamily | undefined {
  let best: LitmusFamily | undefined;
  for (const f of litmusFamilies()) {
    if (f.mnemonic.length > parts.length || !f.mnemonic.every((m, i) => parts[i] === m)) continue;
    if (!best || f.mnemonic.length > best.mnemonic.length) best = f;
  }
  return best;
}
