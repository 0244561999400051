/**
 * Rows that atom (9.7.13.5) and red (9.7.13.6) state in the same words. Each builder takes the
 * family's own citation function, so every row still cites its own section. Also what the two share
 * beyond the catalog: their floating-point rules, reference model and case shape.
 */
import fc from 'fast-check';
import { type Citation, type SpecPart, cite } from '../../catalog/cite.js';
import type { DefaultRow, Qualifiers, RequirementRow, RuleTable } from '../../catalog/types.js';
import { splitLanes } from '../../numerics/formats.js';
import { exactly } from '../../numerics/ops.js';
import type { FpRule } from '../../numerics/rules.js';
import type { RuleApplied } from '../../reference/model.js';
import { type CaseShape, type FamilyModel, lanesOf, resolveSpace } from '../plugin.js';

export const SCALAR_TYPES = ['b32', 'b64', 'u32', 'u64', 's32', 's64', 'f32', 'f64'];
export const HALF_TYPES = ['f16', 'f16x2', 'bf16', 'bf16x2'];
export const SCOPES = ['cta', 'cluster', 'gpu', 'sys'];
export const SHARED_SPACES = ['shared', 'shared::cta', 'shared::cluster'];
export const VECTORS = ['v2', 'v4', 'v8'];

type Cite = (part: SpecPart, quote: string) => Citation;

export function vectorSpaceTable(fam: string, cite: Citation): RuleTable {
  return {
    id: `${fam}.vector-space`,
    text: 'vector forms only on .global or generic addressing',
    appliesTo: { vec: VECTORS },
    cite,
    rows: [{ values: { space: ['', 'global'] }, basis: 'description', cite }],
  };
}

export function cacheHintSpaceTable(fam: string, cite: Citation): RuleTable {
  return {
    id: `${fam}.cache-hint-space`,
    text: '.L2::cache_hint only on .global or generic addressing',
    appliesTo: { hint: ['L2::cache_hint'] },
    cite,
    rows: [{ values: { space: ['', 'global'] }, basis: 'description', cite }],
  };
}

export function noftzRequiredTable(fam: string, cite: Citation): RuleTable {
  return {
    id: `${fam}.noftz-required`,
    text: '.add on .f16/.f16x2/.bf16/.bf16x2 requires .noftz',
    appliesTo: { op: ['add'], type: HALF_TYPES },
    cite,
    rows: [{ values: { noftz: ['noftz'] }, basis: 'description', cite }],
  };
}

export function noftzOnlyHalfTable(fam: string, cite: Citation, f32From94: Citation): RuleTable {
  return {
    id: `${fam}.noftz-types`,
    text: '.noftz only with the half-precision types (PTX ISA 9.1-9.3), and with .f32 (9.4)',
    appliesTo: { noftz: ['noftz'] },
    cite,
    rows: [
      { values: { type: HALF_TYPES }, basis: 'grammar', cite },
      { values: { type: ['f32'] }, basis: 'grammar', cite: f32From94, editions: { from: '9.4' } },
    ],
  };
}

/** atom/red `.add.noftz.f32` (PTX ISA 9.4): keeps subnormals on global and shared memory. */
export function noftzF32Rule(quote: Citation): FpRule {
  return { id: 'fp.atom-red.add.noftz.f32', families: BOTH, spaces: ALL_SPACES, types: ['f32'], when: { noftz: ['noftz'] }, editions: { from: '9.4' }, ftz: false, rounding: 'rne', text: 'atom/red .add.noftz.f32 keeps subnormal inputs and results (PTX ISA 9.4: only ".add.f32 without .noftz" flushes, on global memory)', cite: quote };
}

export function memorySpaceDefaults(generic: Citation, sharedCta: Citation): DefaultRow[] {
  return [
    { slot: 'space', spelled: '', implies: 'generic', text: 'no state space: generic addressing', cite: generic },
    { slot: 'space', spelled: 'shared', implies: 'shared::cta', text: '.shared means .shared::cta', cite: sharedCta },
  ];
}

/** Requirement rows that atom and red state identically (qualifiers rather than operations). */
export function scopedAtomicRequirements(fam: 'atom' | 'red', c: Cite): RequirementRow[] {
  return [
    { id: `${fam}.req.scope`, feature: '.scope qualifier', when: { scope: SCOPES }, ptx: '5.0', targets: [{ kind: 'min-sm', sm: 60 }], cite: c('PTX ISA Notes', '.scope qualifier introduced in PTX ISA 5.0. / .scope qualifier requires sm_60 or higher.') },
    { id: `${fam}.req.sem`, feature: '.sem qualifier', when: { sem: ['relaxed', 'acquire', 'release', 'acq_rel'] }, ptx: '6.0', targets: [{ kind: 'min-sm', sm: 70 }], cite: c('PTX ISA Notes', '.sem qualifier introduced in PTX ISA version 6.0. / .sem qualifier requires sm_70 or higher.') },
    { id: `${fam}.req.generic`, feature: 'generic addressing', when: { space: [''] }, targets: [{ kind: 'min-sm', sm: 20 }], cite: c('Target ISA Notes', 'Use of generic addressing requires sm_20 or higher.') },
    { id: `${fam}.req.cache-hint`, feature: '.level::cache_hint', when: { hint: ['L2::cache_hint'] }, ptx: '7.4', targets: [{ kind: 'min-sm', sm: 80 }], cite: c('PTX ISA Notes', 'Support for .level::cache_hint qualifier introduced in PTX ISA version 7.4. / requires sm_80 or higher.') },
    { id: `${fam}.req.scope-cluster`, feature: '.cluster scope', when: { scope: ['cluster'] }, ptx: '7.8', targets: [{ kind: 'min-sm', sm: 90 }], cite: c('PTX ISA Notes', 'Support for .cluster scope qualifier introduced in PTX ISA version 7.8. / requires sm_90 or higher.') },
    { id: `${fam}.req.sub-cta`, feature: '::cta sub-qualifier', when: { space: ['shared::cta'] }, ptx: '7.8', targets: [{ kind: 'min-sm', sm: 30 }], cite: c('PTX ISA Notes', 'Support for ::cta and ::cluster sub-qualifiers introduced in PTX ISA version 7.8. / Sub-qualifier ::cta requires sm_30 or higher.') },
    { id: `${fam}.req.sub-cluster`, feature: '::cluster sub-qualifier', when: { space: ['shared::cluster'] }, ptx: '7.8', targets: [{ kind: 'min-sm', sm: 90 }], cite: c('PTX ISA Notes', 'Support for ::cta and ::cluster sub-qualifiers introduced in PTX ISA version 7.8. / Sub-qualifier ::cluster requires sm_90 or higher.') },
    { id: `${fam}.req.vector`, feature: 'vector types', when: { vec: VECTORS }, ptx: '8.1', targets: [{ kind: 'min-sm', sm: 90 }], cite: c('PTX ISA Notes', 'Support for vector types introduced in PTX ISA version 8.1. / Support for vector types requires sm_90 or higher.') },
  ];
}

/**
 * Floating-point rules of atom and red. red's section states none of its own: the sentences are
 * atom's, and red's .add is the same operation without the returned value.
 */
const atomCite = (part: SpecPart, quote: string) => cite('atom.md', part, quote);
const BOTH = ['atom', 'red'];
const ALL_SPACES: ('global' | 'shared')[] = ['global', 'shared'];

export const ATOMIC_RMW_FP_RULES: readonly FpRule[] = [
  // refines the .f32 rows below: it comes first
  noftzF32Rule(cite('editions/atom', 'Description', 'The atom.add.f32 operation without .noftz, flushes subnormal inputs and results to sign-preserving zero on global memory but supports subnormal inputs and results and doesn’t flush them to zero on shared memory.')),
  { id: 'fp.atom-red.add.f32.global', families: BOTH, spaces: ['global'], types: ['f32'], ftz: true, rounding: 'rne', text: 'atom/red .add.f32 on global memory flushes subnormal inputs and results to sign-preserving zero', cite: atomCite('Description', 'Current implementation of atom.add.f32 on global memory flushes subnormal inputs and results to sign-preserving zero') },
  { id: 'fp.atom-red.add.f32.shared', families: BOTH, spaces: ['shared'], types: ['f32'], ftz: false, rounding: 'rne', text: 'atom/red .add.f32 on shared memory keeps subnormal inputs and results', cite: atomCite('Description', 'whereas atom.add.f32 on shared memory supports subnormal inputs and results and doesn’t flush them to zero') },
  { id: 'fp.atom-red.add.f64', families: BOTH, spaces: ALL_SPACES, types: ['f64'], ftz: false, rounding: 'rne', text: 'atom/red .add.f64 keeps subnormals: the flushing sentence names .f32 only', cite: atomCite('Description', 'The floating-point operation .add operation rounds to nearest even.') },
  { id: 'fp.atom-red.noftz', families: BOTH, spaces: ALL_SPACES, types: HALF_TYPES, ftz: false, rounding: 'rne', text: '.noftz half types keep subnormal inputs and results', cite: atomCite('Description', 'it preserves subnormal inputs and results, and does not flush them to zero.') },
];

/**
 * The reference model of atom and red: the operation on each element at [a] (one per vector lane)
 * with the matching element of b (and c for cas). `returned` says whether the variant returns the
 * old value, and the rule that says so.
 */
export function rmwModel(returned?: { when: (q: Qualifiers) => boolean; rule: RuleApplied }): FamilyModel {
  return (v, c, ctx) => {
    const mem = ctx.need(c.memory, 'memory');
    const b = ctx.need(c.b, 'operand b');
    if (b.length !== mem.length) ctx.fail(`memory has ${mem.length} elements and b ${b.length}`);
    if ((v.q.vec ?? '') !== '' && ctx.space === 'shared') {
      ctx.fail(`${v.family} with a vector type "may be used only with .global space and with generic addressing where the address points to .global space" (PTX ISA 9.7.13.5 atom, 9.7.13.6 red): this case puts it in shared memory, where the spec gives it no meaning; use space: global`);
    }
    const memory = mem.map((r, i) => ctx.elementOp(r, b[i]!, c.c?.[i] ?? 0n));
    if (!returned?.when(v.q)) return { memory };
    ctx.note(returned.rule);
    return { memory, returned: mem.map((r) => splitLanes(ctx.fmt, r).map(exactly)) };
  };
}

/** A case of atom or red: memory at [a] and b (and c for cas), one element per vector lane. */
export function rmwShape(returns: (q: Qualifiers) => boolean): CaseShape {
  return {
    inputs: (q) => (q.op === 'cas' ? ['memory', 'b', 'c'] : ['memory', 'b']),
    length: (q) => ({ kind: 'vector', elements: lanesOf(q) }),
    returns,
    results: 'memory',
    space: (q, c) => resolveSpace(q.space, c),
    arbitrary: (q, list) => (q.op === 'cas' ? fc.record({ memory: list, b: list, c: list }) : fc.record({ memory: list, b: list })),
    probeOp: (q) => q.op ?? '',
    directed: (q, p) => ({ memory: p.a, operands: { b: p.b, ...(q.op === 'cas' ? { c: p.c } : {}) } }),
    // .global, and .shared::cta too where the space changes the numerics (scalar .add.f32)
    representative: (q) => {
      const sp = q.space ?? '';
      const numericSpace = q.op === 'add' && q.type === 'f32' && (q.vec ?? '') === '';
      return sp === 'global' || (numericSpace && sp === 'shared::cta');
    },
  };
}
