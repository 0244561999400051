/**
 * Helpers the families' litmus.ts share (docs/litmus.md): qualifiers read against the family's own
 * catalog slots, the ordering an instruction's `.sem`/`.scope` gives the model, and the value a
 * read-modify-write writes, computed by the project's reference model (harness/reference/model.ts).
 */
import type { Instr, Scope, Sem, SpaceQual } from '../../memory-model/events.js';
import { ELEMENT_FORMATS } from '../../numerics/formats.js';
import { reference, singleElement } from '../../reference/model.js';
import { familyPlugin } from '../../registry/index.js';
import type { LitmusContext, LitmusInstruction } from '../../registry/litmus-family.js';

/**
 * The instruction's qualifiers by catalog slot: each part after the mnemonic goes to the first slot
 * of the family's catalog, in catalog order, that lists it and is still empty. A part no slot takes
 * is a problem naming what the family accepts.
 */
export function qualifiers(
  family: string,
  ins: LitmusInstruction,
  skip: number,
  ctx: LitmusContext,
  extra: Readonly<Record<string, readonly string[]>> = {},
): Record<string, string> {
  const slots = familyPlugin(family).def.slots.filter((s) => !s.operand);
  const q: Record<string, string> = {};
  for (const part of ins.parts.slice(skip)) {
    const slot = slots.find((s) => q[s.name] === undefined && (s.values.includes(part) || (extra[s.name] ?? []).includes(part)));
    if (!slot) {
      const accepted = slots
        .map(
          (s) =>
            `${s.name} {${s.values
              .filter((v) => v !== '')
              .map((v) => `.${v}`)
              .join(' ')}}`,
        )
        .join('; ');
      ctx.fail(`'.${part}' is not a qualifier of ${family} here (or repeats one); ${family} takes ${accepted}`);
    }
    q[slot.name] = part;
  }
  return q;
}

const SEMS: readonly Sem[] = ['weak', 'relaxed', 'acquire', 'release', 'acq_rel', 'sc'];
const SCOPES: readonly Scope[] = ['cta', 'cluster', 'gpu', 'sys'];

/** `.sem`/`.scope` as the model takes them, with the instruction's defaults for omitted ones. */
export function ordering(q: Readonly<Record<string, string>>, defaults: { sem: Sem; scope: Scope }): { sem: Sem; scope: Scope } {
  const sem = (q.sem || defaults.sem) as Sem;
  const scope = (q.scope || defaults.scope) as Scope;
  if (!SEMS.includes(sem) || !SCOPES.includes(scope)) throw new Error(`ordering: ${sem}.${scope}`);
  return { sem, scope };
}

/** The state-space qualifier an instruction's space slot spells (absent: generic addressing). */
export function spaceQual(spelled: string | undefined): SpaceQual {
  if (spelled === 'global' || spelled === 'shared::cta' || spelled === 'shared::cluster') return spelled;
  if (spelled === 'shared') return 'shared::cta';
  return 'generic';
}

/** Dat3M writes untyped read-modify-writes (64-bit values); this project's tests name the `.type`. */
export const UNTYPED = 'u64';

/**
 * The value written by `op` on `old` with `args` (b, and c for cas), as the reference model computes
 * it for this family, qualifiers and memory space; `undefined` for a compare-and-swap that fails.
 * Where the model allows several results (an unstated flush mode, NaN payloads) the first is taken.
 */
export function rmwUpdate(
  family: string,
  q: Readonly<Record<string, string>>,
  space: 'global' | 'shared',
): (old: bigint, args: bigint[]) => bigint | undefined {
  const type = q.type ?? UNTYPED;
  const fmt = ELEMENT_FORMATS[type];
  if (!fmt) throw new Error(`rmwUpdate: no format .${type}`);
  const mask = (1n << BigInt(fmt.bits)) - 1n;
  if (q.op === 'sub') return (old, args) => (old - (args[0] ?? 0n)) & mask; // Dat3M's untyped atom.sub
  const variant = { family: family as never, q: { ...q, type } };
  return (old, args) => {
    const b = (args[0] ?? 0n) & mask;
    const c = (args[1] ?? 0n) & mask;
    if (q.op === 'cas' && (old & mask) !== b) return undefined;
    // the case as the family's shape takes it: the location's value is memory (or one replica), b/c or the source the operands
    const shape = familyPlugin(family).shape;
    const inputs = shape.inputs(variant.q);
    const kase = {
      ...(inputs.includes('memory') ? { memory: [old & mask] } : {}),
      ...(inputs.includes('replicas') ? { replicas: [[old & mask]] } : {}),
      ...(inputs.includes('source') ? { source: [b] } : {}),
      ...(inputs.includes('b') ? { b: [b] } : {}),
      ...(inputs.includes('c') ? { c: [c] } : {}),
      space,
    };
    const out = reference(variant, kase);
    const lanes = (shape.results === 'replicas' ? out.replicas?.[0]?.[0] : out.memory?.[0]) ?? [];
    if (!lanes.length) throw new Error(`rmwUpdate: the reference model of ${family} gave no result for ${JSON.stringify(variant.q)}`);
    const one = singleElement(fmt, lanes);
    if (one !== undefined) return one;
    // several allowed results (or any NaN): the first pattern of each lane, a quiet NaN where only "any NaN" is allowed
    let bits = 0n;
    const w = BigInt(fmt.lane.bits);
    lanes.forEach((l, i) => {
      const v = l.bits[0] ?? ((1n << w) - 1n) >> 1n; // all-ones exponent and mantissa: a NaN
      bits |= v << (w * BigInt(i));
    });
    return bits;
  };
}

/** The memory space a location operand resolves to, for the reference model's flush rules. */
export function modelSpace(space: SpaceQual, locSpace: 'global' | 'shared' | 'multimem'): 'global' | 'shared' {
  if (space === 'shared::cta' || space === 'shared::cluster') return 'shared';
  return locSpace === 'shared' ? 'shared' : 'global';
}

/** Type check of operand count. */
export function operands(ins: LitmusInstruction, ctx: LitmusContext, n: readonly number[], shape: string): void {
  if (!n.includes(ins.operands.length)) ctx.fail(`${ins.parts[0]} takes ${shape} (${n.join(' or ')} operands); this one has ${ins.operands.length}`);
}

export type { Instr };

/**
 * atom and red (9.7.13.5, 9.7.13.6): one read-modify-write on the location, its value computed by
 * the reference model. `reduction` marks red: its read returns nothing and forms no acquire pattern
 * (8.8 last note, 8.11.1). Without `.sem` atom and red are `.relaxed`, without `.scope` `.gpu`.
 * Dat3M's untyped forms (`atom.acq_rel.sys.sub r0, x, 1`, `red.acq_rel.sys.add x, 1`) are read as
 * 64-bit, with Dat3M's `sub` and its `acq_rel` red.
 */
export function atomicRmwLitmus(family: string, reduction: boolean) {
  return (ins: LitmusInstruction, ctx: LitmusContext): Instr[] => {
    const q = qualifiers(family, ins, 1, ctx, { op: ['sub'], sem: ['acq_rel'] });
    if (q.type && (q.op === 'sub' || (reduction && q.sem === 'acq_rel')))
      ctx.fail(`.${q.op === 'sub' ? 'sub' : 'acq_rel'} is Dat3M's untyped form only; a typed ${family} has no such qualifier (PTX ISA 9.7.13)`);
    if (!q.op) ctx.fail(`${family} needs an operation (.add, .min, .exch, ...)`);
    if (q.vec) return vectorRmw(family, reduction, q, ins, ctx);
    const cas = q.op === 'cas';
    const first = reduction ? 0 : 1;
    operands(ins, ctx, [first + (cas ? 2 : 1) + 1], reduction ? '[a], b' : cas ? 'd, [a], b, c' : 'd, [a], b');
    const sq = spaceQual(q.space);
    const loc = ctx.location(first, sq);
    const type = q.type ?? UNTYPED;
    const args = [ctx.value(first + 1, type), ...(cas ? [ctx.value(first + 2, type)] : [])];
    const o = ordering(q, { sem: 'relaxed', scope: 'gpu' });
    const dst = reduction || ins.operands[0]!.text === '_' ? undefined : ctx.register(0);
    return [
      {
        kind: 'rmw',
        ...(dst ? { dst } : {}),
        args,
        update: rmwUpdate(family, q, modelSpace(sq, ctx.spaceOf(loc))),
        reduction,
        op: q.op,
        loc,
        sem: o.sem,
        scope: o.scope,
        proxy: 'generic',
        space: sq,
        line: ins.line,
      },
    ];
  };
}

/**
 * A vector atom or red (`red.global.add.v2.f32 [d], {a, b}`, `atom.global.add.v4.f32 {r0, r1, r2, r3}, [d], {...}`):
 * one read-modify-write per element on the array `d` (`d = {0, 0};`: d, d+4, ...), each with the instruction's
 * `.sem.scope`, in no order among themselves: "Memory operations with a vector data type are modelled as a set
 * of equivalent memory operations with a scalar data type, executed in an unspecified order on the elements in
 * the vector" (8.2.4), and "the atomicity is guaranteed separately for each of the individual scalar elements;
 * the entire `red` is not guaranteed to be atomic as a single access" (9.7.13.6). 32-bit elements (.f32, .f16x2,
 * .bf16x2): a litmus location holds 32 bits.
 */
function vectorRmw(family: string, reduction: boolean, q: Readonly<Record<string, string>>, ins: LitmusInstruction, ctx: LitmusContext): Instr[] {
  const n = Number(q.vec!.slice(1));
  const type = q.type ?? '';
  if (!['f32', 'f16x2', 'bf16x2'].includes(type))
    ctx.fail(
      `.${q.vec} of .${type || '(no type)'}: the litmus language has the vector forms of 32-bit elements (.v2/.v4 of .f32, .f16x2, .bf16x2; a litmus location holds 32 bits; for .f16/.bf16 elements write the packed .f16x2/.bf16x2 form)`,
    );
  if (n > 4) ctx.fail(`.${q.vec} takes 16-bit elements (.f16, .bf16); the 32-bit element types take .v2 and .v4`);
  if (q.space && q.space !== 'global') ctx.fail(`a vector ${family} is .global only (9.7.13: '${family}{.sem}{.scope}{.global}...vec_32_bit...')`);
  const first = reduction ? 0 : 1;
  operands(ins, ctx, [first + 2], reduction ? '[a], {b0, b1, ...}' : '{d0, d1, ...}, [a], {b0, b1, ...}');
  const sq = spaceQual(q.space);
  const base = ctx.location(first, sq);
  if (ctx.spaceOf(base) !== 'global') ctx.fail(`${base} is not global memory: a vector ${family} is .global only`, first);
  const names = Array.from({ length: n }, (_, k) => (k ? `${base}+${4 * k}` : base));
  const missing = names.find((l) => !ctx.declared(l));
  if (missing)
    ctx.fail(
      `${base} has no element ${names.indexOf(missing)} (${missing}): a .${q.vec} accesses ${n} adjacent 32-bit elements; declare ${base} as an array of ${n}, e.g. '${base} = {${Array(n).fill(0).join(', ')}};'`,
      first,
    );
  const dsts = reduction ? [] : ctx.registers(0, n);
  const args = ctx.values(first + 1, n, type);
  const { vec: _vec, ...scalar } = q;
  const update = rmwUpdate(family, scalar, modelSpace(sq, 'global'));
  const o = ordering(q, { sem: 'relaxed', scope: 'gpu' });
  return names.map((loc, k) => ({
    kind: 'rmw' as const,
    ...(dsts[k] ? { dst: dsts[k] } : {}),
    args: [args[k]!],
    update,
    reduction,
    op: q.op,
    loc,
    sem: o.sem,
    scope: o.scope,
    proxy: 'generic' as const,
    space: sq,
    vector: { group: ins.line, element: k },
    line: ins.line,
  }));
}

/** Bytes of one element of `.type`. */
export function elementBytes(type: string): bigint {
  const f = ELEMENT_FORMATS[type];
  if (!f) throw new Error(`elementBytes: .${type}`);
  return BigInt(f.bits / 8);
}
