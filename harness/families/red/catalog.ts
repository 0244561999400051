/**
 * red: PTX ISA 9.7.13.6 (../shared/ptx-spec/red.md). One row per rule; every row cites the sentence
 * it encodes.
 */
import { cite } from '../../catalog/cite.js';
import type { FamilyDef } from '../../catalog/types.js';
import {
  HALF_TYPES,
  SCALAR_TYPES,
  SCOPES,
  SHARED_SPACES,
  cacheHintSpaceTable,
  memorySpaceDefaults,
  noftzOnlyHalfTable,
  noftzRequiredTable,
  scopedAtomicRequirements,
  noftzF64Default,
  scalarTableRows,
  vectorSpaceTable,
} from '../shared/atomic-rmw.js';

const c = (part: Parameters<typeof cite>[1], quote: string) => cite('red.md', part, quote);

const SEM = ['', 'relaxed', 'release'];
const SCOPE = ['', ...SCOPES];
const SPACE = ['', 'global', ...SHARED_SPACES];
const OPS = ['and', 'or', 'xor', 'add', 'inc', 'dec', 'min', 'max'];
const HINT = ['', 'L2::cache_hint'];
const SYNTAX = 'Syntax';
/** PTX ISA 9.4 text (the excerpt editions-9.2-9.4.md: ../shared/ptx-spec-newer in CI; not kept in the repository). */
const e94 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/red', part, quote);
/** PTX ISA 9.3 text (same file). */
const e93 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/red-9.3', part, quote);

export const red: FamilyDef = {
  id: 'red',
  head: 'red',
  specFile: 'red.md',
  slots: [
    { name: 'sem', values: SEM, cite: c(SYNTAX, '.sem = {.relaxed, .release};') },
    { name: 'scope', values: SCOPE, cite: c(SYNTAX, '.scope = {.cta, .cluster, .gpu, .sys};') },
    { name: 'space', values: SPACE, cite: c(SYNTAX, '.space = { .global, .shared{::cta, ::cluster} };') },
    { name: 'op', values: OPS, cite: c(SYNTAX, '.op = { .and, .or, .xor, .add, .inc, .dec, .min, .max };') },
    { name: 'noftz', values: ['', 'noftz'], cite: c(SYNTAX, 'red{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.f16 [a], b{, cache-policy};') },
    { name: 'hint', values: HINT, cite: c(SYNTAX, '.level::cache_hint = { .L2::cache_hint };') },
    { name: 'vec', values: ['', 'v2', 'v4', 'v8'], cite: c(SYNTAX, '.vec_16_bit = { .v2, .v4, .v8 } .vec_32_bit = { .v2, .v4 };') },
    {
      name: 'type',
      values: [...SCALAR_TYPES, ...HALF_TYPES],
      cite: c(SYNTAX, '~ .type = { .b32, .b64, .u32, .u64, .s32, .s64, .f32, .f64 }; plus the .noftz half types'),
    },
  ],
  forms: [
    {
      id: 'red.form.scalar',
      syntax: 'red{.sem}{.scope}{.space}.op{.level::cache_hint}.type [a], b{, cache-policy};',
      slots: { sem: SEM, scope: SCOPE, space: SPACE, op: OPS, hint: HINT, type: SCALAR_TYPES },
      operands: ['a', 'b', 'policy'],
      cite: c(SYNTAX, 'red{.sem}{.scope}{.space}.op{.level::cache_hint}.type [a], b{, cache-policy};'),
    },
    {
      id: 'red.form.add-noftz-half',
      editions: { until: '9.3' }, // 9.4 folds the four lines into .type1
      syntax: 'red{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.{f16,f16x2,bf16,bf16x2} [a], b{, cache-policy};',
      slots: { sem: SEM, scope: SCOPE, space: SPACE, op: ['add'], noftz: ['noftz'], hint: HINT, type: HALF_TYPES },
      operands: ['a', 'b', 'policy'],
      cite: c(SYNTAX, 'red{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.f16 [a], b{, cache-policy};'),
    },
    {
      id: 'red.form.add-noftz-type1',
      syntax:
        'red{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.type1 [a], b{, cache_policy}; (.type1 = .f16, .f16x2, .bf16, .bf16x2, .f32: PTX ISA 9.4)',
      slots: { sem: SEM, scope: SCOPE, space: SPACE, op: ['add'], noftz: ['noftz'], hint: HINT, type: [...HALF_TYPES, 'f32'] },
      operands: ['a', 'b', 'policy'],
      cite: e94(
        SYNTAX,
        'red{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.type1 [a], b{, cache_policy}; / .type1 = { .f16, .f16x2, .bf16, .bf16x2, .f32 };',
      ),
      editions: { from: '9.4' },
    },
    {
      id: 'red.form.vector-f32-noftz',
      syntax: 'red{.sem}{.scope}{.global}.add{.noftz}{.level::cache_hint}.vec_32_bit.f32 [a], b{, cache_policy}; (PTX ISA 9.4)',
      slots: { sem: SEM, scope: SCOPE, space: ['', 'global'], op: ['add'], noftz: ['', 'noftz'], hint: HINT, vec: ['v2', 'v4'], type: ['f32'] },
      operands: ['a', 'b', 'policy'],
      cite: e94(SYNTAX, 'red{.sem}{.scope}{.global}.add{.noftz}{.level::cache_hint}.vec_32_bit.f32 [a], b{, cache_policy};'),
      editions: { from: '9.4' },
    },
    {
      id: 'red.form.vector-f32',
      editions: { until: '9.3' }, // 9.4's line adds {.noftz}: red.form.vector-f32-noftz
      syntax: 'red{.sem}{.scope}{.global}.add{.level::cache_hint}.vec_32_bit.f32 [a], b{, cache-policy};',
      slots: { sem: SEM, scope: SCOPE, space: ['', 'global'], op: ['add'], hint: HINT, vec: ['v2', 'v4'], type: ['f32'] },
      operands: ['a', 'b', 'policy'],
      cite: c(SYNTAX, 'red{.sem}{.scope}{.global}.add{.level::cache_hint}.vec_32_bit.f32 [a], b{, cache-policy};'),
    },
    {
      id: 'red.form.vector-half',
      syntax: 'red{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_16_bit.half_word_type [a], b{, cache-policy};',
      slots: {
        sem: SEM,
        scope: SCOPE,
        space: ['', 'global'],
        op: ['add', 'min', 'max'],
        noftz: ['noftz'],
        hint: HINT,
        vec: ['v2', 'v4', 'v8'],
        type: ['f16', 'bf16'],
      },
      operands: ['a', 'b', 'policy'],
      cite: c(SYNTAX, 'red{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}. vec_16_bit.half_word_type [a], b{, cache-policy};'),
    },
    {
      id: 'red.form.vector-packed',
      syntax: 'red{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_32_bit.packed_type [a], b {, cache-policy};',
      slots: {
        sem: SEM,
        scope: SCOPE,
        space: ['', 'global'],
        op: ['add', 'min', 'max'],
        noftz: ['noftz'],
        hint: HINT,
        vec: ['v2', 'v4'],
        type: ['f16x2', 'bf16x2'],
      },
      operands: ['a', 'b', 'policy'],
      cite: c(SYNTAX, 'red{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_32_bit.packed_type [a], b {, cache-policy};'),
    },
  ],
  tables: [
    {
      id: 'red.op-type',
      text: "scalar .op x .type: bit-size ops take .b types, integer ops .u/.s types, floating-point .add .f types (PTX ISA 9.1-9.2, the Description's operation classes); from 9.3 the scalar type/operation table (Table 36, 42 in 9.4), where .s64 takes .min/.max only and .inc/.dec .u32 only",
      appliesTo: { vec: [''] },
      cite: c('Description', 'The bit-size operations are .and, .or, and .xor. The integer operations are .add, .inc, .dec, .min, .max.'),
      editionCites: [
        { editions: { from: '9.3' }, cite: e94('Scalar table', 'shows the valid combinations of types and reduction operations for scalar red instructions.') },
      ],
      rows: [
        {
          editions: { until: '9.2' },
          values: { op: ['and', 'or', 'xor'], type: ['b32', 'b64'] },
          basis: 'description',
          cite: c('Description', 'The bit-size operations are .and, .or, and .xor.'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['add'], type: ['u32', 's32', 'u64'] },
          basis: 'description',
          cite: c('Target ISA Notes', 'The integer operations are .add, ...; red.global.add.u64 requires sm_12 or higher.'),
        },
        {
          values: { op: ['add'], type: ['s64'] },
          basis: 'grammar',
          editions: { until: '9.2' }, // 9.3's scalar table decides: .s64 takes .min and .max only
          ambiguity:
            'The .type set lists .s64 for every .op and the Description calls .add an integer operation, but no table or note confirms add.s64 (the notes name only red.global.add.u64 and red.shared.add.u64).',
          cite: c(SYNTAX, '.type = { .b32, .b64, .u32, .u64, .s32, .s64, .f32, .f64 };'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['add'], type: ['f32', 'f64'] },
          basis: 'description',
          cite: c('Description', 'The floating-point operation .add operation rounds to nearest even.'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['add'], type: HALF_TYPES },
          basis: 'grammar',
          cite: c(SYNTAX, 'red{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.f16 [a], b{, cache-policy};'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['inc', 'dec'], type: ['u32'] },
          basis: 'description',
          cite: c('Description', 'The integer operations are .add, .inc, .dec, .min, .max. The .inc and .dec operations return a result in the range [0..b].'),
        },
        {
          values: { op: ['inc', 'dec'], type: ['u64', 's32', 's64'] },
          basis: 'grammar',
          editions: { until: '9.2' }, // 9.3's scalar table decides: .inc and .dec on .u32 only
          ambiguity:
            'The .type set admits .u64/.s32/.s64 with .inc/.dec and the Description calls them integer operations, but no table, note or example shows a 64-bit or signed inc/dec.',
          cite: c('Description', 'The .inc and .dec operations return a result in the range [0..b].'),
        },
        {
          editions: { until: '9.2' },
          values: { op: ['min', 'max'], type: ['u32', 's32', 'u64', 's64'] },
          basis: 'description',
          cite: c('PTX ISA Notes', '64-bit red.{and,or,xor,min,max} introduced in PTX ISA 3.1.'),
        },
        ...scalarTableRows(e93, e94, [
          {
            values: { op: ['and', 'or', 'xor'], type: ['b32', 'b64'] },
            basis: 'table',
            cite: e94('Scalar table', '.b32 | Not supported | Not supported | .and, .or, .xor / .b64 | Not supported | Not supported | .and, .or, .xor'),
          },
        ]),
      ],
    },
    {
      id: 'red.vector-op-type',
      text: 'vector qualifier x type x op (the vector table)',
      appliesTo: { vec: ['v2', 'v4', 'v8'] },
      cite: c(
        'Vector table',
        'For red with vector type, the supported combinations of vector qualifier, types and reduction operations supported on these combinations are depicted in following table',
      ),
      rows: [
        {
          values: { vec: ['v2', 'v4', 'v8'], type: ['f16', 'bf16'], op: ['add', 'min', 'max'] },
          basis: 'table',
          cite: c('Vector table', '~ .f16/bf16 column: .v2, .v4, .v8 -> .add, .min, .max'),
        },
        {
          values: { vec: ['v2', 'v4'], type: ['f16x2', 'bf16x2'], op: ['add', 'min', 'max'] },
          basis: 'table',
          cite: c('Vector table', '~ .f16x2/bf16x2 column: .v2, .v4 -> .add, .min, .max; .v8 -> Not supported'),
        },
        {
          values: { vec: ['v2', 'v4'], type: ['f32'], op: ['add'] },
          basis: 'table',
          cite: c('Vector table', '~ .f32 column: .v2, .v4 -> .add; .v8 -> Not Supported'),
        },
      ],
    },
    vectorSpaceTable(
      'red',
      c('Description', 'red with vector type may be used only with .global space and with generic addressing where the address points to .global space.'),
    ),
    cacheHintSpaceTable(
      'red',
      c(
        'Description',
        'The qualifier .level::cache_hint is only supported for .global state space and for generic addressing where the address points to the .global state space.',
      ),
    ),
    noftzRequiredTable(
      'red',
      c('Description', 'red.add.f16, red.add.f16x2, red.add.bf16 and red.add.bf16x2 operation requires the .noftz qualifier'),
      e93('Description', 'red.add.f16, red.add.f16x2, red.add.bf16 and red.add.bf16x2 operations require the .noftz qualifier'),
    ),
    noftzOnlyHalfTable(
      'red',
      c(SYNTAX, '~ .noftz appears only in the .f16/.f16x2/.bf16/.bf16x2 forms of the grammar'),
      e94(SYNTAX, '.type1 = { .f16, .f16x2, .bf16, .bf16x2, .f32 };'),
    ),
  ],
  ambiguities: [],
  defaults: [
    {
      slot: 'sem',
      spelled: '',
      implies: 'relaxed',
      text: 'no .sem means .relaxed',
      cite: c('Description', 'If the .sem qualifier is absent, .relaxed is assumed by default.'),
    },
    {
      slot: 'scope',
      spelled: '',
      implies: 'gpu',
      text: 'no .scope means .gpu',
      cite: c('Description', 'If the .scope qualifier is absent, .gpu scope is assumed by default.'),
    },
    noftzF64Default(e94('Scalar table', '.f64 | Not supported | .add (noftz by default) | Not supported')),
    ...memorySpaceDefaults(
      c('Description', 'If no state space is given, perform the memory accesses using Generic Addressing.'),
      c('Description', 'If no sub-qualifier is specified with .shared state space, then ::cta is assumed by default.'),
    ),
  ],
  requirements: [
    ...scopedAtomicRequirements('red', c),
    { id: 'red.req.introduced', feature: 'red', when: {}, ptx: '1.2', cite: c('PTX ISA Notes', 'Introduced in PTX ISA version 1.2.') },
    {
      id: 'red.req.global',
      feature: 'red.global',
      when: { space: ['global'] },
      targets: [{ kind: 'min-sm', sm: 11 }],
      cite: c('Target ISA Notes', 'red.global requires sm_11 or higher'),
    },
    {
      id: 'red.req.shared',
      feature: 'red.shared',
      when: { space: SHARED_SPACES },
      targets: [{ kind: 'min-sm', sm: 12 }],
      cite: c('Target ISA Notes', 'red.shared requires sm_12 or higher.'),
    },
    {
      id: 'red.req.global-add-u64',
      feature: 'red.global.add.u64',
      when: { space: ['global', ''], op: ['add'], type: ['u64'] },
      targets: [{ kind: 'min-sm', sm: 12 }],
      cite: c('Target ISA Notes', 'red.global.add.u64 requires sm_12 or higher.'),
    },
    {
      id: 'red.req.shared-add-u64',
      feature: 'red.shared.add.u64',
      when: { space: SHARED_SPACES, op: ['add'], type: ['u64'] },
      ptx: '2.0',
      targets: [{ kind: 'min-sm', sm: 20 }],
      cite: c('PTX ISA Notes', 'red.add.f32 and red.shared.add.u64 introduced in PTX ISA 2.0. / red.shared.add.u64 requires sm_20 or higher.'),
    },
    {
      id: 'red.req.64-logic-minmax',
      feature: '64-bit red.{and,or,xor,min,max}',
      when: { op: ['and', 'or', 'xor', 'min', 'max'], type: ['b64', 'u64', 's64'] },
      ptx: '3.1',
      targets: [{ kind: 'min-sm', sm: 32 }],
      cite: c('PTX ISA Notes', '64-bit red.{and,or,xor,min,max} introduced in PTX ISA 3.1. / require sm_32 or higher.'),
    },
    {
      id: 'red.req.add-f32',
      feature: 'red.add.f32',
      when: { op: ['add'], type: ['f32'] },
      ptx: '2.0',
      targets: [{ kind: 'min-sm', sm: 20 }],
      cite: c('PTX ISA Notes', 'red.add.f32 ... introduced in PTX ISA 2.0. / red.add.f32 requires sm_20 or higher.'),
    },
    {
      id: 'red.req.add-f64',
      feature: 'red.add.f64',
      when: { op: ['add'], type: ['f64'] },
      ptx: '5.0',
      targets: [{ kind: 'min-sm', sm: 60 }],
      cite: c('PTX ISA Notes', 'red.add.f64 introduced in PTX ISA 5.0. / red.add.f64 requires sm_60 or higher.'),
    },
    {
      id: 'red.req.noftz-f32',
      feature: '.noftz with .f32',
      when: { noftz: ['noftz'], type: ['f32'] },
      ptx: '9.4',
      targets: [{ kind: 'min-sm', sm: 90 }],
      editions: { from: '9.4' },
      cite: e94(
        'PTX ISA Notes',
        'Qualifier .noftz with .f32 type introduced in PTX ISA version 9.4. / Support for .noftz with .f32 type requires sm_90 or higher.',
      ),
    },
    {
      id: 'red.req.noftz-f16x2',
      feature: 'red.add.noftz.f16x2',
      when: { op: ['add'], type: ['f16x2'], vec: [''] },
      ptx: '6.2',
      targets: [{ kind: 'min-sm', sm: 60 }],
      cite: c('PTX ISA Notes', 'red.add.noftz.f16x2 introduced in PTX ISA 6.2. / requires sm_60 or higher.'),
    },
    {
      id: 'red.req.noftz-f16',
      feature: 'red.add.noftz.f16',
      when: { op: ['add'], type: ['f16'], vec: [''] },
      ptx: '6.3',
      targets: [{ kind: 'min-sm', sm: 70 }],
      cite: c('PTX ISA Notes', 'red.add.noftz.f16 introduced in PTX ISA 6.3. / requires sm_70 or higher.'),
    },
    {
      id: 'red.req.noftz-bf16',
      feature: 'red.add.noftz.bf16 / bf16x2',
      when: { op: ['add'], type: ['bf16', 'bf16x2'], vec: [''] },
      ptx: '7.8',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'red.add.noftz.bf16 and red.add.noftz.bf16x2 introduced in PTX ISA 7.8. / require sm_90 or higher.'),
    },
  ],
  errata: [
    {
      example: 'red.global.acquire.sys.add.u32 [gbl], 1;',
      violates: ['red.grammar.sem'],
      finding: "Example uses .acquire, which is not in red's .sem = {.relaxed, .release}.",
    },
    {
      example: 'red.global.v2.f16x2.max.noftz {%bd0, %bd1}, [g], {%b0, %b1};',
      violates: ['red.operands.count'],
      finding: 'Example gives red a destination operand; red has none ("[a], b").',
    },
    {
      example: 'red.global.v2.bf16x2.add.noftz {%bd0, %bd1}, [g], {%b0, %b1};',
      violates: ['red.operands.count'],
      finding: 'Example gives red a destination operand; red has none ("[a], b").',
    },
    {
      example: 'red.global.v2.f32.add {%f0, %f1}, [g], {%f0, %f1};',
      violates: ['red.operands.count'],
      finding: 'Example gives red a destination operand; red has none ("[a], b").',
    },
  ],
  fanout: ['sem', 'scope'],
};
