/**
 * Rows that atom (9.7.13.5) and red (9.7.13.6) state in the same words. Each builder takes the
 * family's own citation function, so every row still cites its own section.
 */
import type { Citation, SpecPart } from '../../catalog/cite.js';
import type { DefaultRow, RequirementRow, RuleTable } from '../../catalog/types.js';

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

export function noftzOnlyHalfTable(fam: string, cite: Citation): RuleTable {
  return {
    id: `${fam}.noftz-types`,
    text: '.noftz only with the half-precision types',
    appliesTo: { noftz: ['noftz'] },
    cite,
    rows: [{ values: { type: HALF_TYPES }, basis: 'grammar', cite }],
  };
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
