/**
 * How a case run on the GPU becomes a result, and which results a report keeps. Every case is
 * judged; a report keeps every case from a file (with observed bits, the reference's allowed set,
 * the file's expect and whether the hardware agrees with it), every mismatch and error, the directed
 * probes of variants without ordering/scope/hint qualifiers, and a seeded 1/997 sample of each
 * variant's first 4000 cases (generated cases replay from their ids), so that a whole run stays a
 * few MB however many cases it judges.
 */
import type { Case } from '../../cases/types.js';
import type { Qualifiers } from '../../catalog/types.js';
import { type ElementFormat, elementFormat, splitLanes } from '../../numerics/formats.js';
import { allows } from '../../numerics/ops.js';
import { type ElementAllowed, CaseError, reference } from '../../reference/model.js';
import type { EntryResult } from '../../report/types.js';
import type { ObservationVerdict } from './observations.js';

const hex = (bits: number, v: bigint) => `0x${v.toString(16).padStart(Math.ceil(bits / 4), '0')}`;

/** Generated cases past this index of a job are only counted, never sampled. */
export const SAMPLE_WINDOW = 4000;

export function keepCase(q: Qualifiers, probe: boolean, verdict: string, j: number, seed: number): boolean {
  const plain = !q.sem && !q.scope && !q.hint && !q.d;
  // the sample: 1/997 of a variant's first 4000 cases, so --generated 10^5 keeps no more than a default run
  return verdict === 'mismatch' || verdict === 'error' || (plain && probe) || (j < SAMPLE_WINDOW && ((j + 1) * 2654435761 + seed) % 997 === 0);
}

function allowedHex(fmt: ElementFormat, xs?: readonly ElementAllowed[]) {
  return xs?.map((e) => e.map((l) => ({ bits: l.bits.map((b) => hex(fmt.lane.bits, b)), anyNaN: l.anyNaN })));
}

/** Whether observed elements equal the file's expected ones (a NaN matches a NaN where the reference leaves the payload open). */
function agreement(fmt: ElementFormat, what: string, expected: readonly bigint[] | undefined, observed: readonly bigint[] | undefined, allowed: readonly ElementAllowed[] | undefined): string | undefined {
  if (!expected) return undefined;
  if (!observed) return `${what}: the file expects values, the instruction returned none`;
  for (let i = 0; i < expected.length; i++) {
    if (expected[i] === observed[i]) continue;
    const el = splitLanes(fmt, expected[i]!);
    const ol = splitLanes(fmt, observed[i] ?? 0n);
    for (let l = 0; l < el.length; l++) {
      if (el[l] === ol[l]) continue;
      const set = allowed?.[i]?.[l];
      const bothNaN = set?.anyNaN && fmt.lane.kind === 'float' && allows(fmt.lane, { bits: [], anyNaN: true, unspecified: [] }, el[l]!) && allows(fmt.lane, { bits: [], anyNaN: true, unspecified: [] }, ol[l]!);
      if (!bothNaN) return `${what}[${i}]${fmt.lanes > 1 ? ` lane ${l}` : ''}: the file expects ${hex(fmt.lane.bits, el[l]!)}, the hardware gave ${hex(fmt.lane.bits, ol[l]!)}`;
    }
  }
  return undefined;
}

export function caseResult(c: Case, v: Pick<ObservationVerdict, 'verdict' | 'reason' | 'unspecified'>, observed: { memory: readonly bigint[]; returned?: readonly bigint[] }, o: { modulePtx: string; sass: string; full: boolean }): EntryResult {
  const fmt = elementFormat(c.variant.q.type ?? '');
  const H = (xs?: readonly bigint[]) => xs?.map((x) => hex(fmt.bits, x));
  const input = {
    ...(c.input.memory ? { memory: H(c.input.memory) } : {}),
    ...(c.input.b ? { b: H(c.input.b) } : {}),
    ...(c.input.c ? { c: H(c.input.c) } : {}),
    ...(c.input.source ? { source: H(c.input.source) } : {}),
    ...(c.input.space ? { space: c.input.space } : {}),
  };
  let allowed: Record<string, unknown> = {};
  let expect: Record<string, unknown> | undefined;
  let fileExpect: { agrees: boolean; reason: string } | undefined;
  let rules: string[] = [];
  if (o.full) {
    try {
      const ref = reference(c.variant, c.input);
      rules = ref.trail.map((t) => t.rule);
      allowed = { ...(ref.memory ? { memory: allowedHex(fmt, ref.memory) } : {}), ...(ref.returned ? { returned: allowedHex(fmt, ref.returned) } : {}) };
      if (c.expect) {
        expect = { ...(c.expect.memory ? { memory: H(c.expect.memory) } : {}), ...(c.expect.returned ? { returned: H(c.expect.returned) } : {}) };
        const miss = agreement(fmt, 'memory', c.expect.memory, observed.memory, ref.memory) ?? agreement(fmt, 'returned', c.expect.returned, observed.returned, ref.returned);
        fileExpect = miss ? { agrees: false, reason: miss } : { agrees: true, reason: 'the hardware gave the bits the file expects' };
      }
    } catch (e) {
      if (!(e instanceof CaseError)) throw e;
    }
  }
  return {
    id: c.id,
    family: c.variant.family,
    kind: 'case',
    ptx: c.variant.ptx,
    modulePtx: o.modulePtx,
    catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules },
    sass: o.sass,
    verdict: v.verdict,
    reason: fileExpect ? `${v.reason}; file's expect: ${fileExpect.agrees ? 'agrees' : `disagrees (${fileExpect.reason})`}` : v.reason,
    case: {
      origin: { ...c.origin } as Record<string, string | number>,
      input,
      ...(expect ? { expect } : {}),
      observed: { memory: H(observed.memory), ...(observed.returned ? { returned: H(observed.returned) } : {}) },
      allowed,
      unspecified: v.unspecified,
      ...(fileExpect ? { fileExpect } : {}),
    },
  };
}
