/**
 * The one per-case judge: bits a backend observed (or a vector file expects) against the outcomes
 * the reference model allows. Observed: `pass` when the bits are the one outcome the spec allows,
 * `observed` when they fall inside a set the spec leaves open (a NaN payload, an unstated order; the
 * value is recorded), `mismatch` otherwise, naming element, lane and the allowed set. Expected (a
 * file's `expect:` on the reference backend, backends/reference/cases.ts): the same check, said as
 * the file's. Every executor (gpu, multicast, sweep cells, the reference model) and render's
 * re-judging across editions go through here.
 */
import { parseInstruction } from '../catalog/parse.js';
import { type ElementFormat, elementFormat, splitLanes } from '../numerics/formats.js';
import { allows } from '../numerics/ops.js';
import { type ElementAllowed, type ModelVariant, type ReferenceCase, type ReferenceOutcome, reference } from '../reference/model.js';
import { hexBits as hex } from '../numerics/hex.js';

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

/** Element bits of one case, per place an outcome is seen. */
export interface CaseBits {
  readonly memory?: readonly bigint[];
  readonly returned?: readonly bigint[];
  readonly replicas?: readonly (readonly bigint[])[];
}

/** How a miss is said: of bits a backend observed, or of bits a file expects. */
const SAID = {
  observed: { none: (what: string) => `${what}: observed, but the reference says the instruction produces none`, bits: 'observed' },
  expected: { none: (what: string) => `${what}: the instruction produces none, the case expects some`, bits: 'expected' },
} as const;

/**
 * The first element lane of `bits` outside what `ref` allows (memory, returned, then each replica),
 * said as a mismatch's reason; and whether a lane checked before it had more than one allowed
 * outcome (the spec left it open).
 */
export function checkBits(fmt: ElementFormat, ref: ReferenceOutcome, bits: CaseBits, as: keyof typeof SAID): { miss?: string; widened: boolean } {
  let widened = false;
  const places = [
    ['memory', bits.memory, ref.memory] as const,
    ['returned', bits.returned, ref.returned] as const,
    ...(bits.replicas ?? []).map((b, r) => [`replicas[${r}]`, b, ref.replicas?.[r]] as const),
  ];
  for (const [what, obs, allowed] of places) {
    if (!obs) continue;
    const al = allowed as readonly ElementAllowed[] | undefined;
    if (!al) return { miss: SAID[as].none(what), widened };
    for (let i = 0; i < obs.length; i++) {
      const set = al[i];
      if (!set) return { miss: `${what}[${i}]: no such element`, widened };
      const lanes = splitLanes(fmt, obs[i]!);
      for (let l = 0; l < lanes.length; l++) {
        const s = set[l]!;
        if (!allows(fmt.lane, s, lanes[l]!)) {
          const shown = [...s.bits.map((b) => hex(fmt.lane.bits, b)), ...(s.anyNaN ? ['any NaN'] : [])].join('|');
          return {
            miss: `${what}[${i}]${fmt.lanes > 1 ? ` lane ${l}` : ''}: ${SAID[as].bits} ${hex(fmt.lane.bits, lanes[l]!)}, the reference allows ${shown}`,
            widened,
          };
        }
        if (s.anyNaN || s.bits.length > 1) widened = true;
      }
    }
  }
  return { widened };
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
export function judge(id: string, v: ModelVariant, input: ReferenceCase, observed: CaseBits): ObservationVerdict {
  const ref = reference(v, input);
  const { miss, widened } = checkBits(elementFormat(v.q.type ?? ''), ref, observed, 'observed');
  if (miss) return { id, verdict: 'mismatch', reason: miss, unspecified: ref.unspecified };
  return widened
    ? { id, verdict: 'observed', reason: `inside the set the spec leaves open (${ref.unspecified.join(', ')}); value recorded`, unspecified: ref.unspecified }
    : { id, verdict: 'pass', reason: 'the one outcome the spec allows', unspecified: [] };
}
