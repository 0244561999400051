/**
 * The cases the gpu backend runs for a planned variant, which of them a report keeps, and how one
 * becomes a result. Shared by the parent (backend.ts) and the worker processes (worker.ts).
 */
import { generateCases } from '../../../cases/generators/cases.js';
import { directedCases } from '../../../cases/generators/directed.js';
import type { CaseVariant } from '../../cases/types.js';
import type { ReferenceCase } from '../../reference/model.js';
import type { EntryResult } from '../../report/types.js';
import type { KernelPlan } from './emit.js';
import type { ObservationVerdict } from './observations.js';

export interface GpuCase {
  readonly id: string;
  readonly input: ReferenceCase;
}

const hex = (bits: number, v: bigint) => `0x${v.toString(16).padStart(bits / 4, '0')}`;

/** Directed probes, 8 level-1 and 8 level-2 cases, and `generated` random ones. */
export function casesFor(plan: KernelPlan, seed: number, generated: number): GpuCase[] {
  const e = plan.entry;
  const v: CaseVariant = { family: e.family, q: e.q, ptx: e.ptx, id: e.id };
  const big = (xs: unknown) => (xs as string[]).map((x) => BigInt(x));
  const directed = directedCases(v).map((c) => {
    const ops = c.fields.operands as { b?: string[]; c?: string[] } | undefined;
    return {
      id: `${v.id}/probe:${c.name}`,
      input: { memory: big(c.fields.memory), ...(ops?.b ? { b: big(ops.b) } : {}), ...(ops?.c ? { c: big(ops.c) } : {}), ...(c.fields.source ? { source: big(c.fields.source) } : {}) },
    };
  });
  const gen = ([1, 2, 3] as const).flatMap((level) => generateCases(v, seed, level, level === 3 ? generated : 8).map((c) => ({ id: c.id, input: c.input })));
  return [...directed, ...gen];
}

/**
 * Every case is judged; a report keeps every mismatch and error, the directed probes of the
 * variants without ordering/scope/hint qualifiers, and a seeded 1/997 sample of the rest (generated
 * cases replay from their ids), so that a whole run stays a few MB.
 */
export function keepCase(e: KernelPlan['entry'], id: string, verdict: string, j: number, seed: number): boolean {
  const plain = !e.q.sem && !e.q.scope && !e.q.hint && !e.q.d;
  return verdict === 'mismatch' || verdict === 'error' || (plain && id.includes('/probe:')) || ((j + 1) * 2654435761 + seed) % 997 === 0;
}

export function resultFor(p: KernelPlan, c: GpuCase, v: ObservationVerdict, observed: { memory: bigint[]; returned?: bigint[] }, ptx: string, sass: string): EntryResult {
  const e = p.entry;
  const H = (xs?: readonly bigint[]) => xs?.map((x) => hex(p.width, x));
  return {
    id: c.id,
    family: e.family,
    kind: 'case',
    ptx: e.ptx,
    modulePtx: ptx,
    catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules: [] },
    sass,
    verdict: v.verdict,
    reason: v.reason,
    // every kept result carries its bits, so a CPU can replay it through the comparator
    case: {
      origin: { kind: c.id.includes('/gen:') ? 'gen' : 'vectors' },
      input: { memory: H(c.input.memory), ...(c.input.b ? { b: H(c.input.b) } : {}), ...(c.input.c ? { c: H(c.input.c) } : {}), ...(c.input.source ? { source: H(c.input.source) } : {}) },
      allowed: {},
      observed: { memory: H(observed.memory), ...(observed.returned ? { returned: H(observed.returned) } : {}) },
      unspecified: v.unspecified,
    },
  };
}
