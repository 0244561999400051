/**
 * The families the litmus language reads (docs/litmus.md), each with its own litmus.ts. The shared
 * reader (harness/memory-model/extended.ts) asks `litmusFamilyFor(parts)` and names no family.
 */
import { atomLitmus } from './atom/litmus.js';
import { bulkLitmus } from './cp-reduce-async-bulk/litmus.js';
import type { LitmusFamily } from './litmus-family.js';
import { multimemLdReduceLitmus } from './multimem-ld_reduce/litmus.js';
import { multimemRedLitmus } from './multimem-red/litmus.js';
import { multimemStLitmus } from './multimem-st/litmus.js';
import { redLitmus } from './red/litmus.js';
import { redAsyncLitmus } from './red-async/litmus.js';

export const LITMUS_FAMILIES: readonly LitmusFamily[] = [atomLitmus, redLitmus, redAsyncLitmus, bulkLitmus, multimemRedLitmus, multimemStLitmus, multimemLdReduceLitmus];

/** The family whose mnemonic is the longest prefix of `parts`, if any. */
export function litmusFamilyFor(parts: readonly string[]): LitmusFamily | undefined {
  let best: LitmusFamily | undefined;
  for (const f of LITMUS_FAMILIES) {
    if (f.mnemonic.length > parts.length || !f.mnemonic.every((m, i) => parts[i] === m)) continue;
    if (!best || f.mnemonic.length > best.mnemonic.length) best = f;
  }
  return best;
}
