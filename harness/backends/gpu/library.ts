/**
 * A GPU job's library cases (the default run's per variant): the directed probes and the level-1/2
 * generated cases as objects, and a wide job's cases (the bulk families' cases of more than 16 bytes),
 * which the worker writes straight into their slots (fillWideLibrary) and reads back lazily.
 */
import { generateCases, randomShape, sampleEntries } from '../../../cases/generators/cases.js';
import { directedCases } from '../../../cases/generators/directed.js';
import type { Case, CaseVariant } from '../../case-readers/types.js';
import type { ReferenceCase } from '../../reference/model.js';
import { decodeWideCase } from './batch.js';
import { SLOT } from './family.js';
import type { GpuVariant } from './plan.js';

/** Level-1 and level-2 generated cases per variant in the library. */
const LEVEL12 = 8;

/** Generated cases of each size in a library run's wide jobs (bulk cases of more than 16 bytes). */
export const WIDE_LIBRARY_CASES = 2;

/**
 * The variant's library cases: directed probes, 8 level-1 and 8 level-2 generated cases; for a wide
 * job (cases of `caseBytes` bytes), WIDE_LIBRARY_CASES generated cases of that size.
 */
export function libraryCases(v: CaseVariant, seed: number, caseBytes?: number): Case[] {
  if (caseBytes !== undefined) return generateCases(v, seed, 3, WIDE_LIBRARY_CASES, 0, caseBytes);
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
  return [...probes, ...generateCases(v, seed, 1, LEVEL12), ...generateCases(v, seed, 2, LEVEL12)];
}

/**
 * The sampled inputs the level-1/2 cases of these (narrow) variants' library cases use, for the gpu
 * run's thread to make once and send every worker (cases.ts preloadSamples): each worker sampled
 * fast-check itself before, about 60% of its time making cases in a default run.
 */
export function librarySamples(vs: readonly GpuVariant[], seed: number): [string, ReferenceCase[]][] {
  const cvs = vs.map((gv) => ({ family: gv.entry.family, q: gv.entry.q, ptx: gv.entry.ptx, id: gv.entry.id }));
  return sampleEntries(cvs, seed, LEVEL12) as [string, ReferenceCase[]][];
}

/**
 * A probe's hex operand list as numbers, made once per list: the probes' lists are shared by every
 * variant of the same operation, type and length (directed.ts), so are their numbers (frozen), and
 * so the slot bytes encodeCase writes for them (batch.ts).
 */
function big(xs: unknown): readonly bigint[] {
  const l = xs as readonly string[];
  let b = bigs.get(l);
  if (!b) bigs.set(l, (b = Object.freeze(l.map((x) => BigInt(x)))));
  return b;
}
const bigs = new WeakMap<readonly string[], readonly bigint[]>();

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
