/**
 * Tables of PTX ISA 9.7.9.14 (../shared/ptx-spec/multimem-ld_reduce-st-red.md) that multimem.ld_reduce,
 * multimem.st and multimem.red share. The section states them once for all three instructions; each
 * family takes the rows under its own rule id. Also what the families share beyond the catalog: the
 * floating-point rule the section does not state, and the shape of a multimem case.
 */
import type { TargetClause } from '../../arch/targets.js';
import { cite } from '../../catalog/cite.js';
import type { AmbiguityRow, Qualifiers, RequirementRow, RuleTable } from '../../catalog/types.js';
import type { FpRule } from '../../numerics/rules.js';
import { type CaseShape, type ResultsIn, lanesOf } from '../../registry/plugin.js';

export const c = (part: Parameters<typeof cite>[1], quote: string) => cite('multimem-ld_reduce-st-red.md', part, quote);

export const INT_TYPES = ['b32', 'b64', 'u32', 'u64', 's32', 's64'];
export const FP8_TYPES = ['e5m2', 'e5m2x2', 'e5m2x4', 'e4m3', 'e4m3x2', 'e4m3x4'];
export const FLOAT_TYPES = ['f16', 'f16x2', 'bf16', 'bf16x2', 'f32', 'f64', ...FP8_TYPES];
export const RED_FLOAT_TYPES = ['f16', 'f16x2', 'bf16', 'bf16x2', 'f32', 'f64'];
export const SCOPE = ['', 'cta', 'cluster', 'gpu', 'sys'];
export const SS = ['', 'global'];
export const VEC = ['', 'v2', 'v4', 'v8'];

/** ".vec x base float type": the size rule (32, 64 or 128 bits) spelled out as the spec's table. */
export function vecTypeTable(fam: string, floatTypes: readonly string[]): RuleTable {
  const only = (types: string[]) => types.filter((t) => floatTypes.includes(t));
  return {
    id: `${fam}.vec-type`,
    text: '.vec x base floating-point type: the vector must be 32, 64 or 128 bits; .f64 takes no .vec',
    appliesTo: { type: floatTypes },
    cite: c(
      'Vector table',
      'For floating-point type multi- operations, the size of the specified type along with .vec must equal either 32-bits or 64-bits or 128-bits. No other combinations of .vec and type are allowed. Type .f64 cannot be used with .vec qualifier.',
    ),
    rows: [
      {
        values: { vec: [''], type: only(['f16x2', 'bf16x2', 'f32', 'f64', 'e5m2x4', 'e4m3x4']) },
        basis: 'table',
        cite: c('Vector table', 'No .vec specified | .f16x2, .bf16x2, .f32, .f64, .e5m2x4, .e4m3x4'),
      },
      {
        values: { vec: ['v2'], type: only(['f16', 'f16x2', 'bf16', 'bf16x2', 'f32', 'e5m2x2', 'e5m2x4', 'e4m3x2', 'e4m3x4']) },
        basis: 'table',
        cite: c('Vector table', '.v2 | .f16, .f16x2, .bf16, .bf16x2 .f32, .e5m2x2, .e5m2x4, .e4m3x2, .e4m3x4'),
      },
      {
        values: { vec: ['v4'], type: only(['f16', 'f16x2', 'bf16', 'bf16x2', 'f32', 'e5m2', 'e5m2x2', 'e5m2x4', 'e4m3', 'e4m3x2', 'e4m3x4']) },
        basis: 'table',
        cite: c('Vector table', '.v4 | .f16, .f16x2, .bf16, .bf16x2 .f32, .e5m2, .e5m2x2, .e5m2x4, .e4m3, .e4m3x2, .e4m3x4'),
      },
      {
        values: { vec: ['v8'], type: only(['f16', 'bf16', 'e5m2', 'e4m3', 'e5m2x2', 'e4m3x2']) },
        basis: 'table',
        cite: c('Vector table', '.v8 | .f16, .bf16, .e5m2, .e4m3, .e5m2x2, .e4m3x2'),
      },
    ],
  };
}

/** ".op x base type", the section's second table. */
export function opTypeTable(fam: string): RuleTable {
  return {
    id: `${fam}.op-type`,
    text: '.op x base type (the op table)',
    appliesTo: {},
    cite: c('Valid combinations table', 'The following table describes the valid combinations of .op and base type'),
    rows: [
      {
        values: { op: ['add'], type: ['u32', 'u64', 's32', 'f16', 'f16x2', 'bf16', 'bf16x2', 'f32', 'f64', ...FP8_TYPES] },
        basis: 'table',
        cite: c(
          'Valid combinations table',
          '.add | .u32, .u64, .s32 .f16, .f16x2, .bf16, .bf16x2 .f32, .f64, .e5m2, .e5m2x2, .e5m2x4, .e4m3, .e4m3x2, .e4m3x4',
        ),
      },
      { values: { op: ['and', 'or', 'xor'], type: ['b32', 'b64'] }, basis: 'table', cite: c('Valid combinations table', '.and, .or, .xor | .b32, .b64') },
      {
        values: { op: ['min', 'max'], type: ['u32', 's32', 'u64', 's64', 'f16', 'f16x2', 'bf16', 'bf16x2', ...FP8_TYPES] },
        basis: 'table',
        cite: c(
          'Valid combinations table',
          '.min, .max | .u32, .s32, .u64, .s64 .f16, .f16x2, .bf16, .bf16x2 .e5m2, .e5m2x2, .e5m2x4, .e4m3, .e4m3x2, .e4m3x4',
        ),
      },
    ],
  };
}

/** A scope spelled without a semantics qualifier, where the omitted one means `.weak`. */
export function weakScopeAmbiguity(fam: string, sem: string): AmbiguityRow {
  return {
    id: `${fam}.scope-without-sem`,
    when: { sem: [''], scope: ['cta', 'cluster', 'gpu', 'sys'] },
    text: `The grammar makes {.${sem}} and {.scope} independently optional, but an omitted .${sem} means .weak and the .weak form takes no .scope; whether a .scope alone is allowed is not said.`,
    cite: c('Description', 'If explicit semantics qualifiers are not specified, then multimem.ld_reduce and multimem.st default to .weak'),
  };
}

/** A semantics qualifier spelled without a scope, where the spec states no default scope. */
export function semWithoutScopeAmbiguity(fam: string, sems: string[], sem: string): AmbiguityRow {
  return {
    id: `${fam}.sem-without-scope`,
    when: { sem: sems, scope: [''] },
    text: `The grammar makes {.${sem}} and {.scope} independently optional, but states a default .scope only for multimem.red; what scope .${sems.join('/.')} without .scope has on ${fam} is not said.`,
    cite: c('Description', 'If the .scope qualifier is not specified for multimem.red then .sys scope is assumed by default.'),
  };
}

/** "Types .e5m2, .e5m2x2, ... are supported on following architectures" (and the same list for .acc::f16). */
export const FP8_TARGETS: readonly TargetClause[] = [
  { kind: 'arch', name: 'sm_100a' },
  { kind: 'arch', name: 'sm_101a' },
  { kind: 'arch', name: 'sm_120a' },
  { kind: 'arch', name: 'sm_121a' },
  { kind: 'family', name: 'sm_100f', fromPtx: '8.8' },
  { kind: 'family', name: 'sm_101f', fromPtx: '8.8' },
  { kind: 'family', name: 'sm_110f' },
];

export function commonRequirements(fam: string): RequirementRow[] {
  return [
    {
      id: `${fam}.req.introduced`,
      feature: fam,
      when: {},
      ptx: '8.1',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'Introduced in PTX ISA version 8.1. / Requires sm_90 or higher.'),
    },
    {
      id: `${fam}.req.fp8`,
      feature: 'types .e5m2, .e5m2x2, .e5m2x4, .e4m3, .e4m3x2, .e4m3x4',
      when: { type: FP8_TYPES },
      ptx: '8.6',
      targets: FP8_TARGETS,
      cite: c(
        'Target ISA Notes',
        '~ Types .e5m2, .e5m2x2, .e5m2x4, .e4m3, .e4m3x2, .e4m3x4 are supported on following architectures: sm_100a; sm_101a (Renamed to sm_110a from PTX ISA version 9.0); sm_120a; sm_121a; from PTX ISA version 8.8 sm_100f or higher in the same family and sm_101f or higher in the same family (Renamed to sm_110f from PTX ISA version 9.0); sm_110f or higher in the same family',
      ),
    },
  ];
}

const ALL_SPACES: ('global' | 'shared')[] = ['global', 'shared'];

/** The floating-point rule of multimem.ld_reduce and multimem.red: the section states none. */
export const MULTIMEM_FP_UNSTATED: FpRule = {
  id: 'fp.multimem.unstated',
  families: ['multimem.ld_reduce', 'multimem.red'],
  spaces: ALL_SPACES,
  types: ['f32', 'f64', 'f16', 'f16x2', 'bf16', 'bf16x2', 'e4m3', 'e4m3x2', 'e4m3x4', 'e5m2', 'e5m2x2', 'e5m2x4'],
  ftz: 'unspecified',
  rounding: 'unspecified',
  text: 'multimem.ld_reduce/red: the section states neither subnormal handling nor rounding; both flushing and keeping are allowed, round to nearest even is assumed and marked',
  cite: c('Description', 'For multimem.ld_reduce, the default precision of the intermediate accumulation is same as the specified type.'),
};

/**
 * A multimem case: the memory of each replica (2 to 8 when generated) and, where the instruction
 * takes one, operand b; one element per vector lane. Multimem addresses are in the .global window
 * (generic addressing lands there too).
 */
export function multimemShape(o: { takesB: boolean; returns: boolean; results: ResultsIn; probeOp: (q: Qualifiers) => string }): CaseShape {
  return {
    inputs: () => (o.takesB ? ['replicas', 'b'] : ['replicas']),
    length: (q) => ({ kind: 'vector', elements: lanesOf(q) }),
    returns: () => o.returns,
    results: o.results,
    space: () => 'global',
    // b is drawn whether or not it is kept, so that every multimem family draws the same stream
    arbitrary: (_q, list, fc) =>
      fc
        .record({ replicas: fc.integer({ min: 2, max: 8 }).chain((r) => fc.array(list, { minLength: r, maxLength: r })), b: list })
        .map((x) => (o.takesB ? x : { replicas: x.replicas })),
    probeOp: o.probeOp,
    // ld_reduce reduces a with b over two replicas; st and red apply b to two replicas holding a
    directed: (_q, p) => (o.takesB ? { replicas: [[...p.a], [...p.a]], operands: { b: p.b } } : { replicas: [[...p.a], [...p.b]] }),
    representative: (q) => (q.ss ?? '') === 'global',
  };
}
