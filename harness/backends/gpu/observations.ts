/**
 * Judges what a GPU did against the reference model: `pass` when the observed bits are the one
 * outcome the spec allows, `observed` when they fall inside a set the spec leaves open (a NaN
 * payload, an unstated order; the value is recorded), `mismatch` otherwise, naming element, lane
 * and the allowed set.
 */
import { parseInstruction } from '../../catalog/parse.js';
import { elementFormat, splitLanes } from '../../numerics/formats.js';
import { allows } from '../../numerics/ops.js';
import { type ElementAllowed, type ModelVariant, type ReferenceCase, reference } from '../../reference/model.js';
import { hexBits as hex } from '../../numerics/hex.js';

export interface GpuObservation {
  readonly id: string;
  readonly variant: string;
  readonly input: { memory?: string[]; b?: string[]; c?: string[]; source?: string[] };
  readonly observed: { memory?: string[]; returned?: string[] };
}

export interface ObservationVerdict {
  readonly id: string;
  readonly verdict: 'pass' | 'observed' | 'mismatch';
  readonly reason: string;
  readonly unspecified: readonly string[];
}


export function judgeObservation(o: GpuObservation): ObservationVerdict {
  // a bit-bucket variant's id ends in (_): parse it with its operand to recover the destination
  const p = parseInstruction(o.variant.endsWith('(_)') ? `${o.variant.slice(0, -3)} _, [a], b;` : o.variant);
  const big = (xs?: string[]) => xs?.map((x) => BigInt(x));
  const input: ReferenceCase = {
    ...(o.input.memory ? { memory: big(o.input.memory)! } : {}),
    ...(o.input.b ? { b: big(o.input.b)! } : {}),
    ...(o.input.c ? { c: big(o.input.c)! } : {}),
    ...(o.input.source ? { source: big(o.input.source)! } : {}),
  };
  return judge(o.id, { family: p.family.id, q: p.q }, input, { memory: big(o.observed.memory), returned: big(o.observed.returned) });
}

/** The verdict for observed bits of one case. */
export function judge(id: string, v: ModelVariant, input: ReferenceCase, observed: { memory?: readonly bigint[]; returned?: readonly bigint[]; replicas?: readonly (readonly bigint[])[] }): ObservationVerdict {
  const fmt = elementFormat(v.q.type ?? '');
  const ref = reference(v, input);
  let widened = false;
  const o = { id };
  const replicas = (observed.replicas ?? []).map((obs, r) => [`replicas[${r}]`, obs, ref.replicas?.[r]] as const);
  for (const [what, obs, allowed] of [['memory', observed.memory, ref.memory] as const, ['returned', observed.returned, ref.returned] as const, ...replicas]) {
    if (!obs) continue;
    const al = allowed as readonly ElementAllowed[] | undefined;
    if (!al) return { id: o.id, verdict: 'mismatch', reason: `${what}: observed, but the reference says the instruction produces none`, unspecified: ref.unspecified };
    for (let i = 0; i < obs.length; i++) {
      const lanes = splitLanes(fmt, obs[i]!);
      for (let l = 0; l < lanes.length; l++) {
        const set = al[i]![l]!;
        if (!allows(fmt.lane, set, lanes[l]!)) {
          const shown = [...set.bits.map((b) => hex(fmt.lane.bits, b)), ...(set.anyNaN ? ['any NaN'] : [])].join('|');
          return { id: o.id, verdict: 'mismatch', reason: `${what}[${i}]${fmt.lanes > 1 ? ` lane ${l}` : ''}: observed ${hex(fmt.lane.bits, lanes[l]!)}, the reference allows ${shown}`, unspecified: ref.unspecified };
        }
        if (set.anyNaN || set.bits.length > 1) widened = true;
      }
    }
  }
  return widened
    ? { id: o.id, verdict: 'observed', reason: `inside the set the spec leaves open (${ref.unspecified.join(', ')}); value recorded`, unspecified: ref.unspecified }
    : { id: o.id, verdict: 'pass', reason: 'the one outcome the spec allows', unspecified: [] };
}
