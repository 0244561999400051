/**
 * Runs cases through the reference model. Without hardware there is nothing to observe: a case
 * passes when the model evaluates it and, where its file states `expect:`, every expected element is
 * among the outcomes the model allows; a mismatch names the element, lane and allowed set; a case
 * the model cannot evaluate is an error with the reason.
 */
import type { Case } from '../../cases/types.js';
import { type ElementFormat, elementFormat, splitLanes } from '../../numerics/formats.js';
import { type Allowed, allows } from '../../numerics/ops.js';
import { CaseError, type ElementAllowed, reference } from '../../reference/model.js';
import type { EntryResult } from '../../report/types.js';

const hex = (bits: number, v: bigint) => `0x${v.toString(16).padStart(Math.ceil(bits / 4), '0')}`;

function allowedHex(fmt: ElementFormat, a: Allowed) {
  return { bits: a.bits.map((b) => hex(fmt.lane.bits, b)), anyNaN: a.anyNaN };
}

function describe(fmt: ElementFormat, e: ElementAllowed): string {
  return e.map((l) => [...l.bits.map((b) => hex(fmt.lane.bits, b)), ...(l.anyNaN ? ['any NaN'] : [])].join('|')).join(' ; ');
}

/** Where `expected` (elements) falls outside `allowed`, or undefined. */
function firstMiss(fmt: ElementFormat, what: string, expected: readonly bigint[] | undefined, allowed: readonly ElementAllowed[] | undefined): string | undefined {
  if (!expected) return undefined;
  if (!allowed) return `${what}: the instruction produces none, the case expects some`;
  for (let i = 0; i < expected.length; i++) {
    const lanes = splitLanes(fmt, expected[i]!);
    const al = allowed[i];
    if (!al) return `${what}[${i}]: no such element`;
    for (let l = 0; l < lanes.length; l++) {
      if (!allows(fmt.lane, al[l]!, lanes[l]!)) {
        return `${what}[${i}]${fmt.lanes > 1 ? ` lane ${l}` : ''}: expected ${hex(fmt.lane.bits, lanes[l]!)}, the reference allows ${describe(fmt, [al[l]!])}`;
      }
    }
  }
  return undefined;
}

export function runCaseOnReference(c: Case): EntryResult {
  const fmt = elementFormat(c.variant.q.type ?? '');
  const H = (xs: readonly bigint[] | undefined) => xs?.map((x) => hex(fmt.bits, x));
  const input = {
    ...(c.input.memory ? { memory: H(c.input.memory) } : {}),
    ...(c.input.replicas ? { replicas: c.input.replicas.map((r) => H(r)!) } : {}),
    ...(c.input.b ? { b: H(c.input.b) } : {}),
    ...(c.input.c ? { c: H(c.input.c) } : {}),
    ...(c.input.source ? { source: H(c.input.source) } : {}),
    ...(c.input.space ? { space: c.input.space } : {}),
  };
  const expect = c.expect
    ? {
        ...(c.expect.memory ? { memory: H(c.expect.memory) } : {}),
        ...(c.expect.returned ? { returned: H(c.expect.returned) } : {}),
        ...(c.expect.replicas ? { replicas: c.expect.replicas.map((r) => H(r)!) } : {}),
      }
    : undefined;
  const base = {
    id: c.id,
    family: c.variant.family,
    kind: 'case' as const,
    ptx: c.variant.ptx,
    modulePtx: '-',
  };
  try {
    const o = reference(c.variant, c.input);
    const miss =
      firstMiss(fmt, 'memory', c.expect?.memory, o.memory) ??
      firstMiss(fmt, 'returned', c.expect?.returned, o.returned) ??
      (c.expect?.replicas ? c.expect.replicas.map((r, k) => firstMiss(fmt, `replicas[${k}]`, r, o.replicas?.[k])).find(Boolean) : undefined);
    const rules = o.trail.map((t) => t.rule);
    const sets = (xs?: readonly ElementAllowed[]) => xs?.map((e) => e.map((l) => allowedHex(fmt, l)));
    const outcomes = [...(o.memory ?? []), ...(o.returned ?? []), ...(o.replicas ?? []).flat()];
    const n = outcomes.reduce((p, e) => p * e.reduce((q, l) => q * (l.bits.length + (l.anyNaN ? 1 : 0)), 1), 1);
    return {
      ...base,
      catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules },
      verdict: miss ? 'mismatch' : 'pass',
      reason: miss
        ? `the file's expect disagrees with the reference model: ${miss}`
        : `reference evaluated${c.expect ? ' and agrees with the expect: of the file' : ''}; ${n === 1 ? 'one allowed outcome' : `allowed outcomes widened by ${o.unspecified.join(', ') || 'order'}`}`,
      case: {
        origin: c.origin.kind === 'vectors' ? { ...c.origin } : { ...c.origin },
        input,
        ...(expect ? { expect } : {}),
        allowed: {
          ...(o.memory ? { memory: sets(o.memory) } : {}),
          ...(o.returned ? { returned: sets(o.returned) } : {}),
          ...(o.replicas ? { replicas: o.replicas.map((r) => sets(r)!) } : {}),
        },
        unspecified: o.unspecified,
      },
    };
  } catch (e) {
    if (!(e instanceof CaseError)) throw e;
    return {
      ...base,
      catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules: [] },
      verdict: 'error',
      reason: `the reference model cannot evaluate this case: ${e.message}`,
      case: { origin: { ...c.origin }, input, allowed: {}, unspecified: [] },
    };
  }
}
