/**
 * PTX ISA 9.3 gave both bulk reductions an optional `{.sem.scope}`: `.sem = { .relaxed }` with
 * `.scope = { .cta, .cluster }` for a .shared::cluster destination and `{ .cta, .cluster, .gpu, .sys }`
 * for .global (and multimem), "When .sem.scope is not specified, it defaults to .relaxed.sys" (the
 * 9.1/9.2 text: "individually .relaxed.gpu" for the unicast form, ".relaxed.sys" for multimem). The
 * slots exist in every edition; a table row admits them from 9.3 on only, both together, and a
 * requirement asks for PTX ISA 9.3. Rows that hold in every edition but rest on reworded text (both
 * omitted; the .relaxed default) come as a 9.1-9.2 row and a 9.3 row, each citing its edition's text.
 */
import type { Citation } from '../../catalog/cite.js';
import type { DefaultRow, RequirementRow, RuleTable, SlotDef } from '../../catalog/types.js';

export const BULK_SCOPES = ['cta', 'cluster', 'gpu', 'sys'];

export interface SemScopeCites {
  readonly sem: Citation;
  readonly scope: Citation;
  /** The 9.1 syntax line without {.sem.scope}. */
  readonly without: Citation;
  /** The 9.3 syntax with {.sem.scope}. */
  readonly with: Citation;
  readonly note: Citation;
  readonly default93: Citation;
  /** The 9.1/9.2 default, where the text gave one. */
  readonly default91?: { readonly scope: string; readonly cite: Citation };
}

export function semScopeSlots(c: SemScopeCites): SlotDef[] {
  return [
    { name: 'sem', values: ['', 'relaxed'], cite: c.sem },
    { name: 'scope', values: ['', ...BULK_SCOPES], cite: c.scope },
  ];
}

/** Both or neither, from 9.3; `clusterScopes` for the .shared::cluster destination. */
export function semScopeTable(fam: string, c: SemScopeCites, clusterDst?: { readonly scopes: readonly string[]; readonly cite: Citation }): RuleTable {
  return {
    id: `${fam}.sem-scope`,
    text: '{.sem.scope}: both or neither, and only from PTX ISA 9.3 (.relaxed with a scope the destination allows)',
    appliesTo: {},
    cite: c.with,
    rows: [
      // neither: 9.1-9.2 have no {.sem.scope} in the line; from 9.3 the braces make it optional
      { values: { sem: [''], scope: [''] }, basis: 'grammar', cite: c.without, editions: { until: '9.2' } },
      { values: { sem: [''], scope: [''] }, basis: 'grammar', cite: c.with, editions: { from: '9.3' } },
      ...(clusterDst
        ? [
            {
              values: { sem: ['relaxed'], scope: [...clusterDst.scopes], dst: ['shared::cluster'] },
              basis: 'grammar' as const,
              cite: clusterDst.cite,
              editions: { from: '9.3' as const },
            },
            { values: { sem: ['relaxed'], scope: BULK_SCOPES, dst: ['global'] }, basis: 'grammar' as const, cite: c.with, editions: { from: '9.3' as const } },
          ]
        : [{ values: { sem: ['relaxed'], scope: BULK_SCOPES }, basis: 'grammar' as const, cite: c.with, editions: { from: '9.3' as const } }]),
    ],
  };
}

export function semScopeRequirement(fam: string, c: SemScopeCites): RequirementRow {
  return { id: `${fam}.req.sem-scope`, feature: '.sem.scope', when: { sem: ['relaxed'] }, ptx: '9.3', editions: { from: '9.3' }, cite: c.note };
}

export function semScopeDefaults(c: SemScopeCites, clusterDst = false): DefaultRow[] {
  return [
    // 9.1-9.2: "Each reduction ... has individually .relaxed.<scope> memory ordering semantics" (no .sem qualifier yet)
    ...(c.default91
      ? [
          {
            slot: 'sem',
            spelled: '',
            implies: 'relaxed',
            text: `no .sem: each reduction is .relaxed (PTX ISA 9.1-9.2: "individually .relaxed.${c.default91.scope}")`,
            cite: c.default91.cite,
            editions: { until: '9.2' as const },
          },
        ]
      : []),
    {
      slot: 'sem',
      spelled: '',
      implies: 'relaxed',
      text: 'no .sem: each reduction is .relaxed (PTX ISA 9.3 on: "it defaults to .relaxed.sys")',
      cite: c.default93,
      editions: { from: '9.3' },
    },
    // 9.3 on, .shared::cluster destination: the default .sys is not a scope its grammar allows
    ...(clusterDst
      ? [
          {
            slot: 'scope',
            spelled: '',
            when: { dst: ['shared::cluster'] },
            implies: null,
            text: 'no .scope with a .shared::cluster destination: the 9.3 text says the default is .relaxed.sys, but its grammar allows only .cta and .cluster there (inconsistent: no default is taken)',
            cite: c.default93,
            editions: { from: '9.3' as const },
          },
        ]
      : []),
    ...(c.default91
      ? [
          {
            slot: 'scope',
            spelled: '',
            implies: c.default91.scope,
            text: `no .scope: .${c.default91.scope} (PTX ISA 9.1-9.2)`,
            cite: c.default91.cite,
            editions: { until: '9.2' as const },
          },
        ]
      : []),
    {
      slot: 'scope',
      spelled: '',
      implies: 'sys',
      text: 'no .scope: .sys (PTX ISA 9.3 on: "it defaults to .relaxed.sys")',
      cite: c.default93,
      editions: { from: '9.3' },
    },
  ];
}
