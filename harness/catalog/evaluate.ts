/**
 * Decides whether a qualifier assignment is a valid variant of a family, by reading the family's
 * tables: grammar value sets, syntax forms, rule tables and ambiguity rows. Returns every rule that
 * fails, so an invalid neighbour names the rule it exercises.
 */
import { inEdition, specEdition } from './editions.js';
import type { Citation } from './cite.js';
import type { Basis, FamilyDef, FormRow, Match, Qualifiers, RuleTable } from './types.js';

export interface Violation {
  /** Rule id: `<family>.grammar.<slot>`, `<family>.form`, a table id, or `<family>.operands.*`. */
  readonly rule: string;
  readonly text: string;
  readonly cite: Citation;
  readonly basis?: Basis;
}

export interface AmbiguityNote {
  readonly rule: string;
  readonly text: string;
  readonly cite: Citation;
}

export type Status = 'valid' | 'invalid' | 'ambiguous';

export interface Evaluation {
  readonly status: Status;
  /** The syntax form that admits the variant (first in grammar order). */
  readonly form?: FormRow;
  readonly violations: readonly Violation[];
  readonly ambiguities: readonly AmbiguityNote[];
  /** Table rows that allow the variant, as `<table id>` with the row's citation. */
  readonly permits: readonly { rule: string; cite: Citation; basis: Basis }[];
}

const val = (q: Qualifiers, slot: string): string => q[slot] ?? '';

/** Whether every slot named by `m` holds one of its listed values. */
export function matches(m: Match, q: Qualifiers): boolean {
  for (const k in m) if (!m[k]!.includes(val(q, k))) return false;
  return true;
}

const show = (v: string) => (v === '' ? '(omitted)' : `.${v}`);
const showSet = (vs: readonly string[]) => `{${vs.map(show).join(', ')}}`;

function formMismatches(fam: FamilyDef, form: FormRow, q: Qualifiers): string[] {
  const out: string[] = [];
  for (const s of fam.slots) {
    const allowed = form.slots[s.name] ?? [''];
    if (!allowed.includes(val(q, s.name))) out.push(`${s.name} ${show(val(q, s.name))} not in ${showSet(allowed)}`);
  }
  return out;
}

function tableViolation(t: RuleTable, q: Qualifiers): Violation {
  const cols = [...new Set(t.rows.flatMap((r) => Object.keys(r.values)))];
  const have = cols.map((k) => `${k} ${show(val(q, k))}`).join(', ');
  const allowed =
    t.rows.length === 1
      ? ` needs ${Object.entries(t.rows[0]!.values)
          .map(([k, vs]) => `${k} in ${showSet(vs)}`)
          .join(' and ')}`
      : ' is not a row of the table';
  const cite = t.editionCites?.find((e) => inEdition(e.editions, specEdition()))?.cite ?? t.cite;
  return { rule: t.id, text: `${t.text}: (${have})${allowed}`, cite, basis: t.rows[0]?.basis ?? 'table' };
}

/**
 * What `evaluate(fam, q).status` says, without building a word of its violations: the enumerator
 * asks this of every combination the forms generate and of every neighbour, and keeps few. The same
 * tests in the same tables as evaluate (tests/catalog/evaluate-status.test.ts holds them equal).
 */
export function statusOf(fam: FamilyDef, q: Qualifiers): Status {
  for (const s of fam.slots) if (!s.values.includes(val(q, s.name))) return 'invalid';
  const edition = specEdition();
  let ambiguous = false;
  for (const t of fam.tables) {
    if (!matches(t.appliesTo, q)) continue;
    let any = false;
    let plain = false;
    for (const r of t.rows) {
      if (!matches(r.values, q) || !inEdition(r.editions, edition)) continue;
      any = true;
      if (!r.ambiguity) {
        plain = true;
        break;
      }
    }
    if (!any) return 'invalid';
    if (!plain) ambiguous = true;
  }
  let admitted = false;
  for (const f of fam.forms) {
    if (!inEdition(f.editions, edition)) continue;
    let ok = true;
    for (const sl of fam.slots) {
      if (!(f.slots[sl.name] ?? ['']).includes(val(q, sl.name))) {
        ok = false;
        break;
      }
    }
    if (ok) {
      admitted = true;
      break;
    }
  }
  if (!admitted) return 'invalid';
  if (ambiguous) return 'ambiguous';
  for (const a of fam.ambiguities) if (matches(a.when, q)) return 'ambiguous';
  return 'valid';
}

/** Evaluates `q` (one value per slot; a missing slot counts as omitted) against `fam`. */
export function evaluate(fam: FamilyDef, q: Qualifiers): Evaluation {
  const violations: Violation[] = [];
  const ambiguities: AmbiguityNote[] = [];
  const permits: { rule: string; cite: Citation; basis: Basis }[] = [];

  for (const s of fam.slots) {
    const v = val(q, s.name);
    if (!s.values.includes(v)) {
      violations.push({
        rule: `${fam.id}.grammar.${s.name}`,
        text:
          v === ''
            ? `${fam.head} requires a .${s.name} qualifier, one of ${showSet(s.values)}`
            : `${show(v)} is not in ${fam.head}'s ${s.name} set ${showSet(s.values)}`,
        cite: s.cite,
        basis: 'grammar',
      });
    }
  }

  const edition = specEdition();
  for (const t of fam.tables) {
    if (!matches(t.appliesTo, q)) continue;
    const rows = t.rows.filter((r) => matches(r.values, q) && inEdition(r.editions, edition));
    const plain = rows.find((r) => !r.ambiguity);
    if (plain) permits.push({ rule: t.id, cite: plain.cite, basis: plain.basis });
    else if (rows.length) for (const r of rows) ambiguities.push({ rule: t.id, text: r.ambiguity!, cite: r.cite });
    else violations.push(tableViolation(t, q));
  }

  const forms = fam.forms.filter((f) => inEdition(f.editions, edition));
  // the first form that admits q (tested without words; the mismatch texts only where none does)
  const form = forms.find((f) => fam.slots.every((sl) => (f.slots[sl.name] ?? ['']).includes(val(q, sl.name))));
  if (!form) {
    let best: { f: FormRow; m: string[] } | undefined;
    for (const f of forms) {
      const m = formMismatches(fam, f, q);
      if (!best || m.length < best.m.length) best = { f, m };
    }
    violations.push({
      rule: `${fam.id}.form`,
      text: `no syntax form of ${fam.head} admits this combination; nearest is "${best!.f.syntax}", where ${best!.m.join('; ')}`,
      cite: best!.f.cite,
      basis: 'grammar',
    });
  } else {
    permits.unshift({ rule: form.id, cite: form.cite, basis: 'grammar' });
  }

  for (const a of fam.ambiguities) if (matches(a.when, q)) ambiguities.push({ rule: a.id, text: a.text, cite: a.cite });

  const status = violations.length ? 'invalid' : ambiguities.length ? 'ambiguous' : 'valid';
  return { status, ...(form ? { form } : {}), violations, ambiguities, permits };
}

/** The meaning of each slot once the defaults of omitted qualifiers are applied (null: spec silent). */
export function effectiveQualifiers(fam: FamilyDef, q: Qualifiers): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const s of fam.slots) {
    const v = val(q, s.name);
    const d = fam.defaults.find((r) => r.slot === s.name && r.spelled === v && (!r.when || matches(r.when, q)) && inEdition(r.editions, specEdition()));
    out[s.name] = d ? d.implies : v;
  }
  return out;
}
