/**
 * The directed library's probes: for each operation, the named operand pairs that probe an edge of
 * the spec (signed zeros, subnormal boundaries, overflow, inf - inf, NaN in each position, ties to
 * even and to odd, wrap-around, signed extremes, inc/dec bounds, cas equal and unequal, bit
 * patterns). scripts/gen-directed.ts writes them out as cases/vectors/*.yaml, one case per probe and
 * representative variant; vector and packed lanes take successive probes.
 */
import type { CaseVariant } from '../../harness/case-readers/types.js';
import { familyPlugin } from '../../harness/registry/index.js';
import { type ScalarFormat, elementFormat, joinLanes } from '../../harness/numerics/formats.js';
import { caseElements } from './cases.js';
import { edges } from './values.js';

export interface Probe {
  readonly name: string;
  readonly a: bigint;
  readonly b: bigint;
  readonly c?: bigint;
}

function named(f: ScalarFormat): (n: string) => bigint {
  const m = new Map(edges(f).map((e) => [e.name, e.bits]));
  return (n) => {
    const v = m.get(n);
    if (v === undefined) throw new Error(`no edge '${n}' for ${f.name}`);
    return v;
  };
}

const P = (name: string, a: bigint, b: bigint, c?: bigint): Probe => ({ name, a, b, ...(c !== undefined ? { c } : {}) });

/** Probes for `op` on lane format `f` (made once per operation and format: a GPU worker asks per variant). */
export function probes(op: string, f: ScalarFormat): Probe[] {
  const key = `${op}/${f.name}/${f.kind}/${f.bits}`;
  let ps = madeProbes.get(key);
  if (!ps) madeProbes.set(key, (ps = makeProbes(op, f)));
  return ps;
}
const madeProbes = new Map<string, Probe[]>();

function makeProbes(op: string, f: ScalarFormat): Probe[] {
  const e = named(f);
  if (f.kind === 'float') {
    const nanNames = edges(f)
      .filter((x) => /nan/.test(x.name) && !x.name.startsWith('neg-'))
      .map((x) => x.name);
    if (op === 'add') {
      return [
        P('signed-zeros', e('zero'), e('neg-zero')),
        P('negative-zeros', e('neg-zero'), e('neg-zero')),
        P('smallest-subnormal-doubled', e('smallest-subnormal'), e('smallest-subnormal')),
        P('subnormal-to-normal', e('largest-subnormal'), e('smallest-subnormal')),
        P('normal-to-subnormal', e('smallest-normal'), e('neg-smallest-subnormal')),
        P('largest-finite-doubled', e('largest-finite'), e('largest-finite')),
        P('negative-overflow', e('neg-largest-finite'), e('neg-largest-finite')),
        ...(f.hasInf ? [P('inf-minus-inf', e('inf'), e('neg-inf')), P('inf-plus-one', e('inf'), e('one'))] : []),
        ...nanNames.flatMap((n) => [P(`${n}-first`, e(n), e('one')), P(`${n}-second`, e('one'), e(n))]),
        P('tie-to-even-down', e('one'), e('half-ulp-of-one')),
        P('tie-to-odd-up', e('one-plus-ulp'), e('half-ulp-of-one')),
        P('exact-cancel', e('one'), e('neg-one')),
      ];
    }
    return [
      P('signed-zeros', e('zero'), e('neg-zero')),
      P('signed-zeros-swapped', e('neg-zero'), e('zero')),
      ...nanNames.flatMap((n) => [P(`${n}-first`, e(n), e('one')), P(`${n}-second`, e('neg-one'), e(n))]),
      P('both-nan', e(nanNames[0]!), e(`neg-${nanNames[0]!}`)),
      P('subnormal-vs-zero', e('smallest-subnormal'), e('zero')),
      P('negative-subnormal-vs-zero', e('neg-smallest-subnormal'), e('zero')),
      P('largest-vs-inf-or-largest', f.hasInf ? e('inf') : e('largest-finite'), e('largest-finite')),
      P('negative-vs-positive', e('neg-one'), e('one')),
    ];
  }
  const all = e('all-ones');
  switch (op) {
    case 'add':
      return [
        P('wrap-around', all, e('one')),
        P('signed-max-plus-one', e('max-signed'), e('one')),
        P('high-bits', e('high-bit'), e('high-bit')),
        P('zero-plus-zero', 0n, 0n),
      ];
    case 'min':
    case 'max':
      return [
        P('signed-extremes', e('high-bit'), e('max-signed')),
        P('all-ones-vs-one', all, e('one')),
        P('equal', e('two'), e('two')),
        P('zero-vs-one', 0n, e('one')),
      ];
    case 'inc':
    case 'dec':
      return [
        P('at-zero', 0n, 5n),
        P('at-bound', 5n, 5n),
        P('above-bound', 6n, 5n),
        P('below-bound', 4n, 5n),
        P('all-ones-bound', all, all),
        P('all-ones-value', all, 5n),
        P('zero-bound', 0n, 0n),
      ];
    case 'and':
    case 'or':
    case 'xor':
      return [
        P('alternating', e('alternating'), e('alternating-inverse')),
        P('same', e('alternating'), e('alternating')),
        P('all-ones', all, e('alternating')),
        P('zero', 0n, e('alternating')),
      ];
    case 'cas':
      return [
        P('equal', e('alternating'), e('alternating'), e('alternating-inverse')),
        P('unequal', e('alternating'), e('alternating-inverse'), all),
        P('equal-zero', 0n, 0n, all),
      ];
    case 'exch':
      return [P('pattern', e('alternating'), e('alternating-inverse')), P('all-ones', 0n, all)];
    default:
      throw new Error(`no integer probes for .${op}`);
  }
}

export interface DirectedCase {
  readonly name: string;
  readonly variant: CaseVariant;
  /** Key -> element hex strings (or lists of them for replicas), ready for YAML. */
  readonly fields: Record<string, unknown>;
}

const hex = (bits: number, v: bigint) => `0x${v.toString(16).padStart(bits / 4, '0')}`;

/**
 * The directed cases of one representative variant: one per probe of the variant's operation, laid
 * out as the family's shape says (`directed`: which probe operand fills memory, replicas, b, c,
 * source).
 */
export function directedCases(v: CaseVariant): DirectedCase[] {
  const shape = familyPlugin(v.family).shape;
  const fmt = elementFormat(v.q.type ?? '');
  const op = shape.probeOp(v.q);
  const ps = probes(op === 'exch' && fmt.lane.kind === 'float' ? 'min' : op, fmt.lane);
  const n = caseElements(v, fmt);
  // the probes' operand lists depend on the probes, the type and the length alone: made once for all variants that share them
  const key = `${op}/${v.q.type ?? ''}/${n}`;
  let lists = probeLists.get(key);
  if (!lists) {
    const H = (x: bigint) => hex(fmt.bits, x);
    const element = (k: number, pick: (p: Probe) => bigint) =>
      joinLanes(
        fmt,
        Array.from({ length: fmt.lanes }, (_, j) => pick(ps[(k + j) % ps.length]!)),
      );
    const vec = (k: number, pick: (p: Probe) => bigint) => Array.from({ length: n }, (_, i) => H(element(k + i * fmt.lanes, pick)));
    probeLists.set(
      key,
      (lists = ps.map((_, k) =>
        Object.freeze({ a: Object.freeze(vec(k, (x) => x.a)), b: Object.freeze(vec(k, (x) => x.b)), c: Object.freeze(vec(k, (x) => x.c ?? 0n)) }),
      )),
    );
  }
  const base = v.id.replace(/[^A-Za-z0-9_.-]/g, '_');
  return ps.map((p, k) => ({
    name: `${base}-${p.name}`,
    variant: v,
    fields: shape.directed(v.q, lists[k]!),
  }));
}
const probeLists = new Map<string, Readonly<{ a: readonly string[]; b: readonly string[]; c: readonly string[] }>[]>();
