/**
 * Every rule id the catalog can cite, with its text and citation: the report's `rules` section and
 * the lookup behind `--list` details.
 */
import { families, familyFpRules, familyMinMaxBasis, familyModelRules } from '../registry/index.js';
import { SPELLING_TEXT } from './spelling.js';
import { MINMAX_RULES, UNSPECIFIED } from '../numerics/rules.js';
import type { Citation } from './cite.js';
import { rangeText } from './editions.js';

export interface RuleInfo {
  readonly id: string;
  readonly family: string;
  readonly kind: 'grammar' | 'form' | 'table' | 'ambiguity' | 'requirement' | 'operands' | 'numerics';
  readonly text: string;
  readonly cite: Citation;
  /** The PTX ISA editions whose text the row encodes, e.g. "9.1-9.3" ("9.1-9.4": unchanged in every edition the catalog has). */
  readonly editions: string;
}

let index: Map<string, RuleInfo> | undefined;

export function ruleIndex(): Map<string, RuleInfo> {
  if (index) return index;
  const m = new Map<string, RuleInfo>();
  const add = (r: Omit<RuleInfo, 'editions'> & { editions?: string }) => m.set(r.id, { ...r, editions: r.editions ?? rangeText(undefined) });
  for (const f of families()) {
    const syntax = f.forms[0]!.cite;
    for (const s of f.slots) {
      if (!s.operand)
        add({ id: `${f.id}.grammar.${s.name}`, family: f.id, kind: 'grammar', text: `.${s.name} takes one of the grammar's values`, cite: s.cite });
    }
    add({ id: `${f.id}.grammar.unknown-qualifier`, family: f.id, kind: 'grammar', text: `every qualifier is one of ${f.head}'s, once`, cite: syntax });
    add({ id: `${f.id}.form`, family: f.id, kind: 'form', text: `some syntax form of ${f.head} must admit the combination`, cite: syntax });
    for (const fm of f.forms) add({ id: fm.id, family: f.id, kind: 'form', text: fm.syntax, cite: fm.cite, editions: rangeText(fm.editions) });
    for (const t of f.tables) add({ id: t.id, family: f.id, kind: 'table', text: t.text, cite: t.cite });
    for (const a of f.ambiguities) add({ id: a.id, family: f.id, kind: 'ambiguity', text: a.text, cite: a.cite });
    for (const [k, text] of Object.entries(SPELLING_TEXT)) add({ id: `${f.id}.spelling.${k}`, family: f.id, kind: 'ambiguity', text, cite: syntax });
    for (const r of f.requirements) {
      add({
        id: r.id,
        family: f.id,
        kind: 'requirement',
        text: `${r.feature}${r.ptx ? `: PTX ISA ${r.ptx}` : ''}`,
        cite: r.cite,
        editions: rangeText(r.editions),
      });
    }
    for (const [k, text] of [
      ['count', 'the operands of the syntax form, no more and no fewer'],
      ['address', 'address operands are written [a]'],
      ['vector', 'a vector operand is a brace-enclosed list as long as the .vec qualifier says'],
    ] as const) {
      add({ id: `${f.id}.operands.${k}`, family: f.id, kind: 'operands', text, cite: syntax });
    }
  }
  for (const r of familyFpRules())
    add({ id: r.id, family: r.families.join(', '), kind: 'numerics', text: r.text, cite: r.cite, editions: rangeText(r.editions) });
  for (const r of familyMinMaxBasis())
    add({ id: r.id, family: r.families.join(', '), kind: 'numerics', text: r.text, cite: r.cite, editions: rangeText(r.editions) });
  for (const r of [...Object.values(UNSPECIFIED), ...Object.values(MINMAX_RULES)])
    add({ id: r.id, family: '(all)', kind: 'numerics', text: r.text, cite: r.cite });
  // what a model notes in a case's trail besides those rows (atom's returned value, ld_reduce's accumulation)
  for (const r of familyModelRules()) add({ id: r.rule, family: r.family, kind: 'numerics', text: r.text, cite: r.cite });
  index = m;
  return m;
}
