/**
 * A GPU job's library cases (the default run's per variant): the directed probes and the level-1/2
 * generated cases as objects, and a wide job's cases (the bulk families' cases of more than 16 bytes),
 * which the worker writes straight into their slots (fillWideLibrary) and reads back lazily.
 */
import { generateCases, randomShape } from '../../../cases/generators/cases.js';
import { directedCases } from '../../../cases/generators/directed.js';
import type { Case, CaseVariant } from '../../case-readers/types.js';
import type { ReferenceCase } from '../../reference/model.js';
import { decodeWideCase } from './batch.js';
import { SLOT } from './family.js';

/** Generated cases of each size in a library run's wide jobs (bulk cases of more than 16 bytes). */
export const WIDE_LIBRARY_CASES = 2;

/**
 * The variant's library cases: directed probes, 8 level-1 and 8 level-2 generated cases; for a wide
 * job (cases of `caseBytes` bytes), WIDE_LIBRARY_CASES generated cases of that size.
 */
export function libraryCases(v: CaseVariant, seed: number, caseBytes?: number): Case[] {
  if (caseBytes !== undefined) return generateCases(v, seed, 3, WIDE_LIBRARY_CASES, 0, caseBytes);
  const big = (xs: unknown) => (xs as string[]).map((x) => BigInt(x));
  const probes: Case[] = directedCases(v).map((c) => {
    const ops = c.fields.operands as { b?: string[]; c?: string[] } | undefined;
    return {
      id: `${v.id}/probe:${c.name}`,
      variant: v,
      input: {
        memory: big(c.fields.memory),
        ...(ops?.b ? { b: big(ops.b) } : {}),
        ...(ops?.c ? { c: big(ops.c) } : {}),
        ...(c.fields.source ? { source: big(c.fields.source) } : {}),
      },
      origin: { kind: 'gen', seed: 0, level: 0, index: 0 },
    } as Case;
  });
  return [...probes, ...generateCases(v, seed, 1, 8), ...generateCases(v, seed, 2, 8)];
}

/**
 * The case objects of a wide library job whose bits fillWideLibrary writes at slot `first` on: ids and
 * origins as generateCases gives them, each input read back from the batch's input buffers when asked.
 */
export function lazyWideCases(v: CaseVariant, seed: number, bytes: number, width: number, first: number, inputs: () => readonly Buffer[]): Case[] {
  const shape = randomShape(v);
  const spc = bytes / SLOT;
  return Array.from({ length: WIDE_LIBRARY_CASES }, (_, i) => {
    let input: ReferenceCase | undefined;
    return {
      id: `${v.id}/gen:seed=${seed}:level=3:bytes=${bytes}:i=${i}`,
      variant: v,
      get input() {
        return (input ??= decodeWideCase(inputs(), first + i * spc, width, shape, bytes));
      },
      origin: { kind: 'gen', seed, level: 3, index: i },
    } as Case;
  });
}
