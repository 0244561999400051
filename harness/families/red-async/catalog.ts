/**
 * red.async: PTX ISA 9.4 9.7.15.7 (excerpt red-async.md, ../shared/ptx-spec-newer in CI; 9.7.13.7 in 9.1). Two forms:
 * the .relaxed.cluster form on a remote CTA's .shared::cluster memory, completing on that CTA's
 * mbarrier (PTX ISA 8.1, sm_90), and the .release form on .global memory without completion
 * mechanism (PTX ISA 8.7, sm_100). The .release form's scopes changed with the text: { .gpu, .cluster }
 * in 9.1 and 9.2, { .gpu, .sys } from 9.3 ("Clarified ... supports sys scope and not cluster scope").
 */
import { cite } from '../../catalog/cite.js';
import type { FamilyDef } from '../../catalog/types.js';

const FAM = 'red.async';
const c = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/red-async', part, quote);
/** The 9.1-9.2 text (section 9.7.13.7), as the same file quotes it. */
const e91 = (part: Parameters<typeof cite>[1], quote: string) => cite('editions/red-async-9.1', part, quote);
const S = 'Syntax';
const CLUSTER_OPS = ['inc', 'dec', 'min', 'max', 'and', 'or', 'xor', 'add'];
const TYPES = ['u32', 's32', 'b32', 'u64', 's64'];
const CLUSTER_SYNTAX = 'red.async.sem.scope{.ss}.completion_mechanism.op.type [a], b, [mbar];';
const RELEASE_SYNTAX = 'red.async{.mmio}.sem.scope{.ss}.add.type [a], b;';

export const redAsync: FamilyDef = {
  id: FAM,
  head: FAM,
  specFile: '../ptx-spec-newer/red-async.md',
  slots: [
    { name: 'mmio', values: ['', 'mmio'], cite: c(S, RELEASE_SYNTAX) },
    { name: 'sem', values: ['relaxed', 'release'], cite: c(S, '.sem = { .relaxed }; / .sem = { .release };') },
    { name: 'scope', values: ['cluster', 'gpu', 'sys'], cite: c(S, '.scope = { .cluster }; / .scope = { .gpu, .sys };') },
    { name: 'space', values: ['', 'shared::cluster', 'global'], cite: c(S, '.ss = { .shared::cluster }; / .ss = { .global };') },
    { name: 'completion', values: ['', 'mbarrier::complete_tx::bytes'], cite: c(S, '.completion_mechanism = { .mbarrier::complete_tx::bytes };') },
    { name: 'op', values: CLUSTER_OPS, cite: c(S, '.op = { .inc, .dec }; / .op = { .min, .max }; / .op = { .and, .or, .xor };') },
    {
      name: 'type',
      values: TYPES,
      cite: c(S, '.type = { .u32 }; / .type = { .u32, .s32 }; / .type = { .b32 }; / .type = { .u32, .s32, .u64 }; / .type = { .u32, .s32, .u64, .s64 };'),
    },
  ],
  forms: [
    {
      id: `${FAM}.form.cluster`,
      syntax: CLUSTER_SYNTAX,
      // the completion mechanism: written without braces, but "If .completion_mechanism is not specified, it defaults to" (table below)
      slots: {
        sem: ['relaxed'],
        scope: ['cluster'],
        space: ['', 'shared::cluster'],
        completion: ['', 'mbarrier::complete_tx::bytes'],
        op: CLUSTER_OPS,
        type: ['u32', 's32', 'b32', 'u64'],
      },
      operands: ['a', 'b', 'mbar'],
      cite: c(S, CLUSTER_SYNTAX),
    },
    {
      id: `${FAM}.form.release`,
      syntax: RELEASE_SYNTAX,
      slots: { mmio: ['', 'mmio'], sem: ['release'], scope: ['cluster', 'gpu', 'sys'], space: ['', 'global'], op: ['add'], type: ['u32', 's32', 'u64', 's64'] },
      operands: ['a', 'b'],
      cite: c(S, RELEASE_SYNTAX),
    },
  ],
  tables: [
    {
      id: `${FAM}.op-type`,
      text: '.op x .type of the .relaxed.cluster form (one syntax block per operation group)',
      appliesTo: { sem: ['relaxed'] },
      cite: c(S, CLUSTER_SYNTAX),
      rows: [
        { values: { op: ['inc', 'dec'], type: ['u32'] }, basis: 'grammar', cite: c(S, '.op = { .inc, .dec }; .type = { .u32 };') },
        { values: { op: ['min', 'max'], type: ['u32', 's32'] }, basis: 'grammar', cite: c(S, '.op = { .min, .max }; .type = { .u32, .s32 };') },
        { values: { op: ['and', 'or', 'xor'], type: ['b32'] }, basis: 'grammar', cite: c(S, '.op = { .and, .or, .xor }; .type = { .b32 };') },
        {
          values: { op: ['add'], type: ['u32', 's32', 'u64'] },
          basis: 'grammar',
          cite: c(S, 'red.async.sem.scope{.ss}.completion_mechanism.add.type [a], b, [mbar]; / .type = { .u32, .s32, .u64 };'),
        },
      ],
    },
    {
      id: `${FAM}.completion-omitted`,
      text: 'the .relaxed form without .completion_mechanism: the syntax writes it without braces, the Conditions say it defaults',
      appliesTo: { sem: ['relaxed'] },
      cite: c('Description', 'If .completion_mechanism is not specified, it defaults to .mbarrier::complete_tx::bytes.'),
      rows: [
        { values: { completion: ['mbarrier::complete_tx::bytes'] }, basis: 'grammar', cite: c(S, CLUSTER_SYNTAX) },
        {
          values: { completion: [''] },
          basis: 'description',
          ambiguity:
            'The syntax line writes .completion_mechanism as mandatory (no braces), while the Conditions say "If .completion_mechanism is not specified, it defaults to .mbarrier::complete_tx::bytes"; the text contradicts itself.',
          cite: c('Description', 'If .completion_mechanism is not specified, it defaults to .mbarrier::complete_tx::bytes.'),
        },
      ],
    },
    {
      id: `${FAM}.release-scope`,
      text: 'scopes of the .release form: { .gpu, .cluster } in PTX ISA 9.1-9.2, { .gpu, .sys } from 9.3',
      appliesTo: { sem: ['release'] },
      cite: c(S, '.scope = { .gpu, .sys };'),
      rows: [
        { values: { scope: ['gpu'] }, basis: 'grammar', cite: c(S, '.scope = { .gpu, .sys };') },
        { values: { scope: ['sys'] }, basis: 'grammar', cite: c(S, '.scope = { .gpu, .sys };'), editions: { from: '9.3' } },
        { values: { scope: ['cluster'] }, basis: 'grammar', cite: e91(S, '.scope = { .gpu, .cluster };'), editions: { until: '9.2' } },
        {
          values: { scope: ['sys'] },
          basis: 'grammar',
          ambiguity:
            'PTX ISA 9.1 and 9.2 list the .release scopes as { .gpu, .cluster }, but their own example writes red.async.release.sys.global.add.u32 (9.3 "Clarified that red.async instruction supports sys scope and not cluster scope with .release qualifier").',
          cite: e91('Examples', 'red.async.release.sys.global.add.u32 [addr], b;'),
          editions: { until: '9.2' },
        },
      ],
    },
    {
      id: `${FAM}.mmio-sys`,
      text: '.mmio needs .scope .sys',
      appliesTo: { mmio: ['mmio'] },
      cite: c('Description', 'If .mmio is specified, .scope must be .sys.'),
      rows: [{ values: { scope: ['sys'] }, basis: 'description', cite: c('Description', 'If .mmio is specified, .scope must be .sys.') }],
    },
  ],
  ambiguities: [],
  defaults: [
    {
      slot: 'space',
      spelled: '',
      implies: 'generic',
      text: 'no .ss: generic addressing (in the .shared::cluster window for .relaxed, the .global window for .release)',
      cite: c('Description', 'If .ss is not specified, Generic Addressing is used.'),
    },
    {
      slot: 'completion',
      spelled: '',
      when: { sem: ['relaxed'] },
      implies: 'mbarrier::complete_tx::bytes',
      text: 'no .completion_mechanism: .mbarrier::complete_tx::bytes',
      cite: c('Description', 'If .completion_mechanism is not specified, it defaults to .mbarrier::complete_tx::bytes.'),
    },
  ],
  requirements: [
    {
      id: `${FAM}.req.introduced`,
      feature: FAM,
      when: {},
      ptx: '8.1',
      targets: [{ kind: 'min-sm', sm: 90 }],
      cite: c('PTX ISA Notes', 'Introduced in PTX ISA version 8.1. / Requires sm_90 or higher.'),
    },
    {
      id: `${FAM}.req.release`,
      feature: '.release semantics, .mmio, .global, .gpu/.sys scopes',
      when: { sem: ['release'] },
      ptx: '8.7',
      targets: [{ kind: 'min-sm', sm: 100 }],
      cite: c(
        'PTX ISA Notes',
        'Support for .mmio qualifier, .release semantics, .global state space, and .gpu and .sys scopes introduced in PTX ISA version 8.7. / .mmio qualifier, .release semantics, .global state space, and .gpu and .sys scopes require sm_100 or higher.',
      ),
    },
  ],
  errata: [],
  fanout: [],
};
