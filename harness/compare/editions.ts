/**
 * Which PTX ISA editions what the hardware did agrees with. Every kept case with observed bits
 * whose reference depends on the edition (a floating-point rule row that holds in some editions
 * only, e.g. bulk .add.f32's flushing, 9.1-9.3, against its keeping, 9.4) is judged again under
 * each edition the catalog has. The report gets, per such subject, the verdict counts under each
 * edition and the editions it agrees with (no mismatch) and is against; each finding whose results
 * are such cases gets the same in `editions`; `render --spec-edition` re-judges under another one.
 */
import { EDITIONS, type Edition, withEdition } from '../catalog/editions.js';
import { judgeObservation } from './judge-case.js';
import { findFpRule } from '../numerics/rule-lookup.js';
import type { ReportFinding } from './compare.js';
import { PlainPass } from '../report/lines.js';
import { resultVariant, subjectOf, variantOf } from './explain.js';
import type { EntryResult } from '../report/types.js';

export interface EditionSubject {
  readonly subject: string;
  readonly cases: number;
  /** Per edition: verdict counts of these cases judged under it. */
  readonly verdicts: Readonly<Record<Edition, Readonly<Record<string, number>>>>;
  /** Editions under which no case of the subject is a mismatch. */
  readonly agrees: readonly Edition[];
  readonly against: readonly Edition[];
}

export interface EditionCheck {
  /** Kept cases with observed bits whose reference depends on the edition, judged under every edition. */
  readonly judged: number;
  readonly subjects: readonly EditionSubject[];
}

const sensitive = new Map<string, boolean>();

/**
 * Whether the reference for a variant differs between editions: the floating-point rule the
 * editions give it differs in what it decides (subnormals, rounding), not only in the words cited
 * (9.4 reworded atom/red's flushing sentence without changing it).
 */
export function editionSensitive(ptx: string): boolean {
  let s = sensitive.get(ptx);
  if (s !== undefined) return s;
  s = false;
  try {
    const { family, q } = variantOf(ptx);
    const type = q.type ?? '';
    for (const space of ['global', 'shared'] as const) {
      const rules = EDITIONS.map((e) => {
        const r = findFpRule(family, space, type, e, q);
        return r ? `${String(r.ftz)}|${r.rounding}` : 'none';
      });
      if (new Set(rules).size > 1) s = true;
    }
  } catch {
    s = false;
  }
  sensitive.set(ptx, s);
  return s;
}

/** The id before '/': the catalog variant, with `(_)` for the bit bucket. */
const variantId = (r: EntryResult) => (r.id.includes('/') ? r.id.slice(0, r.id.indexOf('/')) : r.ptx);

/** A hardware case's verdict under edition `e` (before expectations). */
export function verdictUnder(r: EntryResult, e: Edition): ReturnType<typeof judgeObservation> {
  const c = r.case!;
  return withEdition(e, () => judgeObservation({ id: r.id, variant: variantId(r), input: c.input as never, observed: c.observed as never }));
}

/** Whether editionCheck judges a result under every edition: a hardware case whose reference depends on the edition. */
export function editionJudged(r: EntryResult): boolean {
  return r.kind === 'case' && !(r instanceof PlainPass) && !!r.case?.observed && editionSensitive(resultVariant(r));
}

const perCase = new WeakMap<object, Readonly<Record<Edition, string>>>();

/**
 * An editionJudged result's verdict under each edition, worked out once per case (the recorder asks
 * while the run goes, its event loop free, so that the report's editionCheck finds them done; a
 * copy of the result made by the comparator's later steps has the same case).
 */
export function editionVerdicts(r: EntryResult): Readonly<Record<Edition, string>> {
  const c = r.case!;
  let per = perCase.get(c);
  if (!per) {
    const v = {} as Record<Edition, string>;
    for (const e of EDITIONS) v[e] = verdictUnder(r, e).verdict;
    perCase.set(c, (per = v));
  }
  return per;
}

export function editionCheck(results: readonly EntryResult[]): { check: EditionCheck; byResult: Map<number, Record<Edition, string>> } {
  const bySubject = new Map<string, { cases: number; verdicts: Record<string, Record<string, number>> }>();
  const byResult = new Map<number, Record<Edition, string>>();
  results.forEach((r, i) => {
    if (!editionJudged(r)) return;
    const per = editionVerdicts(r);
    byResult.set(i, per);
    const subject = subjectOf(resultVariant(r));
    const g = bySubject.get(subject) ?? { cases: 0, verdicts: Object.fromEntries(EDITIONS.map((e) => [e, {} as Record<string, number>])) };
    g.cases++;
    for (const e of EDITIONS) g.verdicts[e]![per[e]] = (g.verdicts[e]![per[e]] ?? 0) + 1;
    bySubject.set(subject, g);
  });
  const subjects = [...bySubject].map(
    ([subject, g]): EditionSubject => ({
      subject,
      cases: g.cases,
      verdicts: g.verdicts as EditionSubject['verdicts'],
      agrees: EDITIONS.filter((e) => !g.verdicts[e]!.mismatch),
      against: EDITIONS.filter((e) => (g.verdicts[e]!.mismatch ?? 0) > 0),
    }),
  );
  return { check: { judged: byResult.size, subjects }, byResult };
}

/**
 * Hardware findings (their results have observed bits) with the editions their observations agree
 * with: judged under each edition where the reference depends on it, and otherwise the same under
 * every edition (a mismatch, or a known deviation, against all; anything else as all say).
 */
export function findingsWithEditions(
  findings: readonly ReportFinding[],
  results: readonly EntryResult[],
  byResult: Map<number, Record<Edition, string>>,
): ReportFinding[] {
  const per = new Map<string, { agrees: Set<Edition>; against: Set<Edition> }>();
  results.forEach((r, i) => {
    if (!r.finding || !r.case?.observed) return;
    const fixed = r.verdict === 'mismatch' || r.verdict === 'known-deviation' ? 'mismatch' : 'pass';
    const v = byResult.get(i) ?? (Object.fromEntries(EDITIONS.map((e) => [e, fixed])) as Record<Edition, string>);
    const f = per.get(r.finding) ?? { agrees: new Set(EDITIONS), against: new Set<Edition>() };
    for (const e of EDITIONS) {
      if (v[e] === 'mismatch') {
        f.agrees.delete(e);
        f.against.add(e);
      }
    }
    per.set(r.finding, f);
  });
  return findings.map((f) => {
    const e = per.get(f.key);
    return e ? { ...f, editions: { agrees: EDITIONS.filter((x) => e.agrees.has(x)), against: EDITIONS.filter((x) => e.against.has(x)) } } : f;
  });
}
