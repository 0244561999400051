/**
 * Rows that atom (9.7.13.5) and red (9.7.13.6) state in the same words. Each builder takes the
 * family's own citation function, so every row still cites its own section. Also what the two share
 * beyond the catalog: their floating-point rules, reference model and case shape.
 */
import { type Citation, type SpecPart, cite } from '../../catalog/cite.js';
import type { AllowRow, DefaultRow, Qualifiers, RequirementRow, RuleTable } from '../../catalog/types.js';
import { splitLanes } from '../../numerics/formats.js';
import { exactly } from '../../numerics/ops.js';
import type { FpRule, MinMaxBasis } from '../../numerics/rules.js';
import type { RuleApplied } from '../../reference/model.js';
import { type CaseShape, type FamilyModel, lanesOf, resolveSpace } from '../../registry/plugin.js';

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

/** `until92`: the 9.1-9.2 sentence ("operation requires"); `from93`: 9.3's bullet ("operations require"). */
export function noftzRequiredTable(fam: string, until92: Citation, from93: Citation): RuleTable {
  return {
    id: `${fam}.noftz-required`,
    text: '.add on .f16/.f16x2/.bf16/.bf16x2 requires .noftz',
    appliesTo: { op: ['add'], type: HALF_TYPES },
    cite: until92,
    editionCites: [{ editions: { from: '9.3' }, cite: from93 }],
    rows: [
      { values: { noftz: ['noftz'] }, basis: 'description', cite: until92, editions: { until: '9.2' } },
      { values: { noftz: ['noftz'] }, basis: 'description', cite: from93, editions: { from: '9.3' } },
    ],
  };
}

/**
 * The rows of the scalar type/operation table that atom (Table 35 in 9.3, 41 in 9.4) and red
 * (Tables 36, 42) print alike; `bitRows` are each family's own "Bit Operations" column. From 9.3
 * this table, not the Description's operation classes, decides which .op goes with which .type.
 * `t94` cites the 9.4 table (rows 9.3 prints the same are cited there); `t93` the two rows 9.4 changed.
 */
export function scalarTableRows(t93: Cite, t94: Cite, bitRows: readonly AllowRow[]): AllowRow[] {
  const T = 'Scalar table';
  const from93 = { from: '9.3' } as const;
  return [
    {
      values: { op: ['add', 'inc', 'dec', 'min', 'max'], type: ['u32'] },
      basis: 'table',
      editions: from93,
      cite: t94(T, '.u32 | .add, .inc, .dec, .min, .max | Not supported | Not supported'),
    },
    {
      values: { op: ['add', 'min', 'max'], type: ['s32', 'u64'] },
      basis: 'table',
      editions: from93,
      cite: t94(T, '.s32 | .add, .min, .max | Not supported | Not supported / .u64 | .add, .min, .max | Not supported | Not supported'),
    },
    { values: { op: ['min', 'max'], type: ['s64'] }, basis: 'table', editions: from93, cite: t94(T, '.s64 | .min, .max | Not supported | Not supported') },
    {
      values: { op: ['add'], type: ['f32', 'f64'] },
      basis: 'table',
      editions: { from: '9.3', until: '9.3' },
      cite: t93(T, '.f32 | Not supported | .add | Not supported / .f64 | Not supported | .add | Not supported'),
    },
    {
      values: { op: ['add'], type: ['f32', 'f64'] },
      basis: 'table',
      editions: { from: '9.4' },
      cite: t94(T, '.f32 | Not supported | .add{.noftz} | Not supported / .f64 | Not supported | .add (noftz by default) | Not supported'),
    },
    {
      values: { op: ['add'], type: HALF_TYPES },
      basis: 'table',
      editions: from93,
      cite: t94(
        T,
        '.f16 | Not supported | .add (requires .noftz) | Not supported / .f16x2 | Not supported | .add (requires .noftz) | Not supported / .bf16 | Not supported | .add (requires .noftz) | Not supported / .bf16x2 | Not supported | .add (requires .noftz) | Not supported',
      ),
    },
    ...bitRows.map((r) => ({ ...r, editions: from93 })),
  ];
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
  return {
    id: 'fp.atom-red.add.noftz.f32',
    families: BOTH,
    spaces: ALL_SPACES,
    types: ['f32'],
    when: { noftz: ['noftz'] },
    editions: { from: '9.4' },
    ftz: false,
    rounding: 'rne',
    text: 'atom/red .add.noftz.f32 keeps subnormal inputs and results (PTX ISA 9.4: only ".add.f32 without .noftz" flushes, on global memory)',
    cite: quote,
  };
}

export function memorySpaceDefaults(generic: Citation, sharedCta: Citation): DefaultRow[] {
  return [
    { slot: 'space', spelled: '', implies: 'generic', text: 'no state space: generic addressing', cite: generic },
    { slot: 'space', spelled: 'shared', implies: 'shared::cta', text: '.shared means .shared::cta', cite: sharedCta },
  ];
}

/** 9.4's scalar tables: `.f64 | ... | .add (noftz by default)`: an .add.f64 without .noftz means .noftz. */
export function noftzF64Default(tableRow: Citation): DefaultRow {
  return {
    slot: 'noftz',
    spelled: '',
    when: { op: ['add'], type: ['f64'], vec: [''] },
    implies: 'noftz',
    editions: { from: '9.4' },
    text: 'an .add.f64 without .noftz is .noftz (keeps subnormals)',
    cite: tableRow,
  };
}

/** Requirement rows that atom and red state identically (qualifiers rather than operations). */
export function scopedAtomicRequirements(fam: 'atom' | 'red', c: Cite): RequirementRow[] {
  return [
    {
      id: `${fam}.req.scope`,
      feature: '.scope qualifier',
      when: { scope: SCOPES },
      ptx: '5.0',
      targets: [{ kind: 'min-sm', sm: 60 }],
      cite: c('PTX ISA Notes', '.scope qualifier introduced in PTX ISA 5.0. / .scope qualifier requires sm_60 or higher.'),
    },
    {
      id: `${fam}.req.sem`,
      feature: '.sem qualifier',
      when: { sem: ['relaxed', 'acquire', 'release', 'acq_rel'] },
      ptx: '6.0',
      targets: [{ kind: 'min-sm', sm: 70 }],
      cite: c('PTX ISA Notes', '.sem qualifier introduced in PTX ISA version 6.0. / .sem qualifier requires sm_70 or higher.'),
    },
    {
      id: `${fam}.req.generic`,
      feature: 'generic addressing',
      when: { space: [''] },
      targets: [{ kind: 'min-sm', sm: 20 }],
      cite: c('Target ISA Notes', 'Use of generic addressing requires sm_20 or higher.'),
    },
    {
      id: `${fam}.req.cache-hint`,
      feature: '.level::cache_hint',
      when: { hint: ['L2::cache_hint'] },
      ptx: '7.4',
      targets: [{ kind: 'min-sm', sm: 80 }],
      cite: c('PTX ISA Notes', 'Support for .level::cache_hint qualifier introduced in PTX ISA version 7.4. / requires sm_80 or higher.'),
    },
    {
      id: `${fam}.req.scope-cluster`,
      feature: '.cluster scope',
      when: { scope: ['cluster'] },
      ptx: '7.8',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'Support for .cluster scope qualifier introduced in PTX ISA version 7.8. / requires sm_90 or higher.'),
    },
    {
      id: `${fam}.req.sub-cta`,
      feature: '::cta sub-qualifier',
      when: { space: ['shared::cta'] },
      ptx: '7.8',
      targets: [{ kind: 'min-sm', sm: 30 }],
      cite: c(
        'PTX ISA Notes',
        'Support for ::cta and ::cluster sub-qualifiers introduced in PTX ISA version 7.8. / Sub-qualifier ::cta requires sm_30 or higher.',
      ),
    },
    {
      id: `${fam}.req.sub-cluster`,
      feature: '::cluster sub-qualifier',
      when: { space: ['shared::cluster'] },
      ptx: '7.8',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c(
        'PTX ISA Notes',
        'Support for ::cta and ::cluster sub-qualifiers introduced in PTX ISA version 7.8. / Sub-qualifier ::cluster requires sm_90 or higher.',
      ),
    },
    {
      id: `${fam}.req.vector`,
      feature: 'vector types',
      when: { vec: VECTORS },
      ptx: '8.1',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'Support for vector types introduced in PTX ISA version 8.1. / Support for vector types requires sm_90 or higher.'),
    },
  ];
}

/**
 * Floating-point rules of atom and red. Each family states them in its own sentences (atom.md and
 * red.md Description, word for word alike but for the instruction's name): a rule cites atom's,
 * and red's through `familyCites`. The 9.1-9.3 flushing sentence ("Current implementation of
 * atom.add.f32 on global memory flushes ...") was reworded in 9.4 ("The atom.add.f32 operation
 * without .noftz, flushes ..."), with the same meaning: the rows are split by edition so that each
 * cites the text of the edition judged against.
 */
const atomCite = (part: SpecPart, quote: string) => cite('atom.md', part, quote);
const redCite = (part: SpecPart, quote: string) => cite('red.md', part, quote);
const BOTH = ['atom', 'red'];
const ALL_SPACES: ('global' | 'shared')[] = ['global', 'shared'];
const both = (atom: Citation, red: Citation) => ({ cite: atom, familyCites: { red } });
const flush94 = (fam: 'atom' | 'red') =>
  `The ${fam}.add.f32 operation without .noftz, flushes subnormal inputs and results to sign-preserving zero on global memory`;
const keep94 = 'but supports subnormal inputs and results and doesn’t flush them to zero on shared memory';

export const ATOMIC_RMW_FP_RULES: readonly FpRule[] = [
  // refines the .f32 rows below: it comes first
  {
    ...noftzF32Rule(cite('editions/atom', 'Description', `${flush94('atom')} ${keep94}.`)),
    familyCites: { red: cite('editions/red', 'Description', `${flush94('red')} ${keep94}.`) },
  },
  {
    id: 'fp.atom-red.add.f32.global',
    families: BOTH,
    spaces: ['global'],
    types: ['f32'],
    ftz: true,
    rounding: 'rne',
    editions: { until: '9.3' },
    text: 'atom/red .add.f32 on global memory flushes subnormal inputs and results to sign-preserving zero',
    ...both(
      atomCite('Description', 'Current implementation of atom.add.f32 on global memory flushes subnormal inputs and results to sign-preserving zero'),
      redCite('Description', 'Current implementation of red.add.f32 on global memory flushes subnormal inputs and results to sign-preserving zero'),
    ),
  },
  {
    id: 'fp.atom-red.add.f32.global.9.4',
    families: BOTH,
    spaces: ['global'],
    types: ['f32'],
    ftz: true,
    rounding: 'rne',
    editions: { from: '9.4' },
    text: 'atom/red .add.f32 without .noftz on global memory flushes subnormal inputs and results to sign-preserving zero',
    ...both(cite('editions/atom', 'Description', flush94('atom')), cite('editions/red', 'Description', flush94('red'))),
  },
  {
    id: 'fp.atom-red.add.f32.shared',
    families: BOTH,
    spaces: ['shared'],
    types: ['f32'],
    ftz: false,
    rounding: 'rne',
    editions: { until: '9.3' },
    text: 'atom/red .add.f32 on shared memory keeps subnormal inputs and results',
    ...both(
      atomCite('Description', 'whereas atom.add.f32 on shared memory supports subnormal inputs and results and doesn’t flush them to zero'),
      redCite('Description', 'whereas red.add.f32 on shared memory supports subnormal inputs and results and doesn’t flush them to zero'),
    ),
  },
  {
    id: 'fp.atom-red.add.f32.shared.9.4',
    families: BOTH,
    spaces: ['shared'],
    types: ['f32'],
    ftz: false,
    rounding: 'rne',
    editions: { from: '9.4' },
    text: 'atom/red .add.f32 without .noftz on shared memory keeps subnormal inputs and results',
    ...both(cite('editions/atom', 'Description', `${flush94('atom')} ${keep94}`), cite('editions/red', 'Description', `${flush94('red')} ${keep94}`)),
  },
  {
    id: 'fp.atom-red.add.f64',
    families: BOTH,
    spaces: ALL_SPACES,
    types: ['f64'],
    ftz: false,
    rounding: 'rne',
    editions: { until: '9.3' },
    text: 'atom/red .add.f64 keeps subnormals: no sentence flushes them (the flushing sentence names .f32 only)',
    ...both(
      atomCite('Description', 'The floating-point operation .add operation rounds to nearest even.'),
      redCite('Description', 'The floating-point operation .add operation rounds to nearest even.'),
    ),
  },
  {
    id: 'fp.atom-red.add.f64.9.4',
    families: BOTH,
    spaces: ALL_SPACES,
    types: ['f64'],
    ftz: false,
    rounding: 'rne',
    editions: { from: '9.4' },
    text: 'atom/red .add.f64 keeps subnormals: the 9.4 scalar tables say ".add (noftz by default)"',
    ...both(
      cite('editions/atom', 'Scalar table', '.f64 | Not supported | .add (noftz by default) | Not supported'),
      cite('editions/red', 'Scalar table', '.f64 | Not supported | .add (noftz by default) | Not supported'),
    ),
  },
  {
    id: 'fp.atom-red.noftz',
    families: BOTH,
    spaces: ALL_SPACES,
    types: HALF_TYPES,
    ftz: false,
    rounding: 'rne',
    text: '.noftz half types keep subnormal inputs and results',
    ...both(
      atomCite('Description', 'it preserves subnormal inputs and results, and does not flush them to zero.'),
      redCite('Description', 'it preserves subnormal inputs and results, and does not flush them to zero.'),
    ),
  },
];

/**
 * The basis of atom/red floating-point .min/.max (the vector half forms): 9.3 states that they are
 * the non-atomic min/max performed atomically; 9.1-9.2 list them in the vector table and say no
 * more, so the non-atomic rules (fp.min/fp.max) are applied by analogy there.
 */
export const ATOMIC_RMW_MINMAX: readonly MinMaxBasis[] = [
  {
    id: 'fp.atom-red.minmax.analogy',
    families: BOTH,
    editions: { until: '9.2' },
    text: 'PTX ISA 9.1-9.2 list .min/.max on half types (the vector table) but do not say what they do with NaN or signed zeros: the non-atomic min/max rules (fp.min, fp.max) are applied by analogy (9.3 states it)',
    ...both(
      atomCite(
        'Vector table',
        'For atom with vector type, the supported combinations of vector qualifier and types, and atomic operations supported on these combinations are depicted in the following table',
      ),
      redCite(
        'Vector table',
        'For red with vector type, the supported combinations of vector qualifier, types and reduction operations supported on these combinations are depicted in following table',
      ),
    ),
  },
  {
    id: 'fp.atom-red.minmax',
    families: BOTH,
    editions: { from: '9.3' },
    text: 'atom/red .min/.max implement the non-atomic min/max instructions (fp.min, fp.max), performed atomically',
    ...both(
      cite(
        'editions/atom-9.3',
        'Description',
        'The .min and .max operations implement the exact same floating-point instructions as the non-atomic min and max instructions, but perform them atomically.',
      ),
      cite(
        'editions/red-9.3',
        'Description',
        'The .min and .max operations implement the exact same floating-point instructions as the non-atomic min and max instructions, but perform them atomically.',
      ),
    ),
  },
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
      ctx.fail(
        `${v.family} with a vector type "may be used only with .global space and with generic addressing where the address points to .global space" (PTX ISA 9.7.13.5 atom, 9.7.13.6 red): this case puts it in shared memory, where the spec gives it no meaning; use space: global`,
      );
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
    arbitrary: (q, list, fc) => (q.op === 'cas' ? fc.record({ memory: list, b: list, c: list }) : fc.record({ memory: list, b: list })),
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
