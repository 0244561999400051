/**
 * The contracts between backends, the comparator and reports: verdicts and per-entry results.
 * The JSON report (reports/schema/run-report.schema.json) is these types serialised.
 */
import { tallyRows } from './tally.js';
import type { Citation } from '../catalog/cite.js';
import type { EntryKind, Expectation } from '../catalog/enumerate.js';
import type { Status } from '../catalog/evaluate.js';
import type { FamilyId } from '../catalog/types.js';

export { VERDICTS, VERDICT_MEANING, type Verdict } from './verdicts.js';
import { VERDICTS, type Verdict } from './verdicts.js';

export interface RuleDetail {
  readonly rule: string;
  readonly text: string;
  readonly cite: Citation;
}

export interface EntryResult {
  readonly id: string;
  readonly family: FamilyId;
  /** Catalog entry kinds, or 'case' for a case run through a backend. */
  readonly kind: EntryKind | 'case';
  /** Opcode with qualifiers in canonical order. */
  readonly ptx: string;
  /** PTX ISA version of the module the entry was checked in. */
  readonly modulePtx: string;
  readonly catalog: {
    readonly status: Status;
    readonly expect: Expectation;
    readonly reason: string;
    /** Ids of the rules that make the entry valid, invalid or ambiguous (details in the report's `rules`). */
    readonly rules: readonly string[];
    /** Full rule texts with citations; present on every result that is not a pass. */
    readonly detail?: readonly RuleDetail[];
  };
  readonly verdict: Verdict;
  /** Why this verdict, in one line. */
  readonly reason: string;
  /** Mismatches and known deviations: the alternative rules that reproduce the observation. */
  readonly explanation?: { readonly ids: readonly string[]; readonly text: string };
  /** The expectation (cases/expectations/<arch>.yaml) that made this a known deviation. */
  readonly expectation?: string;
  /** The key of the finding (report.findings) this result belongs to. */
  readonly finding?: string;
  /** gpu: the SASS instructions the variant's kernel became (cuobjdump). */
  readonly sass?: string;
  /**
   * The toolchain that compiled what this result shows (its ptxas answer, its kernel and SASS), e.g.
   * "ptxas 13.0 (V13.0.88)"; absent where nothing was compiled (the reference model's cases).
   */
  readonly toolchain?: string;
  /** For kind 'case': where it came from, its bits, what the reference allows, what its file expects. */
  readonly case?: {
    /** Where the case came from (a vector file's case: file, line, name, and the file's `cite:`). */
    readonly origin: Record<string, string | number>;
    readonly input: Record<string, unknown>;
    readonly expect?: Record<string, unknown>;
    /** What a backend observed (gpu), where the verdict is not a plain pass. */
    readonly observed?: Record<string, unknown>;
    readonly allowed: Record<string, unknown>;
    readonly unspecified: readonly string[];
    /** observed NaN results: canonical, an input's payload, or another payload. */
    readonly nan?: string;
    /** observed float .add where no rule says how subnormals go: kept, flushed, or some of each (lanes that tell them apart). */
    readonly subnormals?: 'kept' | 'flushed' | 'mixed';
    /** A file case run on hardware: whether the observed bits are the ones its `expect:` names. */
    readonly fileExpect?: { readonly agrees: boolean; readonly reason: string };
  };
  readonly ptxas?: {
    readonly accepted: boolean;
    /** Three answers: accept, accept with an advisory or warning on the line (its text in messages), reject. */
    readonly answer?: 'accept' | 'accept-with-warning' | 'reject';
    /** The signal ptxas died of on this line, if it crashed. */
    readonly crashed?: string;
    readonly line: string;
    readonly messages: readonly string[];
  };
}

/** What a case's catalog judgement is until the comparator fills in its rule trail (harness/compare/compare.ts). */
export const CASE_REASON = 'a case of a catalog variant';

/** The first fields of a case's result, as every executor writes them; the comparator completes the catalog judgement. */
export function caseResultHead(
  c: { readonly id: string; readonly variant: { readonly family: FamilyId; readonly ptx: string } },
  modulePtx: string,
): Pick<EntryResult, 'id' | 'family' | 'kind' | 'ptx' | 'modulePtx' | 'catalog'> {
  return {
    id: c.id,
    family: c.variant.family,
    kind: 'case',
    ptx: c.variant.ptx,
    modulePtx,
    catalog: { status: 'valid', expect: 'accept', reason: CASE_REASON, rules: [] },
  };
}

export type Counts = Record<string, Partial<Record<Verdict, number>>>;

export function countResults(results: readonly EntryResult[]): { byFamily: Counts; byKind: Counts; total: Partial<Record<Verdict, number>> } {
  const byFamily: Counts = {};
  const byKind: Counts = {};
  const total: Partial<Record<Verdict, number>> = {};
  for (const r of results) {
    const f = (byFamily[r.family] ??= {});
    f[r.verdict] = (f[r.verdict] ?? 0) + 1;
    const k = (byKind[r.kind] ??= {});
    k[r.verdict] = (k[r.verdict] ?? 0) + 1;
    total[r.verdict] = (total[r.verdict] ?? 0) + 1;
  }
  return { byFamily, byKind, total };
}

/**
 * The passes a run counted and did not keep whole, from its stats `dropped.<family>.<cases|entries>`
 * (the ptxas + reference run keeps every result that is not a plain pass and the first --keep
 * passes of entries and of cases; merge applies --keep again over the whole run).
 */
export function passesNotKept(stats: Readonly<Record<string, number>>): { family: string; what: 'cases' | 'entries'; n: number }[] {
  return tallyRows(stats, 'dropped')
    .filter((t) => (t.what === 'cases' || t.what === 'entries') && t.n > 0)
    .map((t) => ({ family: t.family, what: t.what as 'cases' | 'entries', n: t.n }));
}

/**
 * The `observed` results a run counted and did not keep whole, from its stats
 * `droppedObserved.<family>.cases` (the gpu backend past its --keep: NaN lanes where the model allows
 * any NaN, every other lane its one outcome, as the fast judge decides them).
 */
export function observedNotKept(stats: Readonly<Record<string, number>>): { family: string; n: number }[] {
  return tallyRows(stats, 'droppedObserved')
    .filter((t) => t.what === 'cases' && t.n > 0)
    .map((t) => ({ family: t.family, n: t.n }));
}

/**
 * The verdict totals over every result a run judged: the results the report keeps, and the passes
 * and `observed` results it counted and did not keep whole. What the console's "all results" line
 * and the HTML page's header say.
 */
export function allResultTotals(report: {
  readonly counts: { readonly total: Partial<Record<Verdict, number>> };
  readonly results: readonly unknown[];
  readonly stats: Readonly<Record<string, number>>;
}): {
  total: Partial<Record<Verdict, number>>;
  all: number;
  kept: number;
  notKept: { entries: number; cases: number; observed: number; all: number };
} {
  const notKept = { entries: 0, cases: 0, observed: 0, all: 0 };
  for (const d of passesNotKept(report.stats)) {
    notKept[d.what] += d.n;
    notKept.all += d.n;
  }
  for (const d of observedNotKept(report.stats)) {
    notKept.observed += d.n;
    notKept.all += d.n;
  }
  const total: Partial<Record<Verdict, number>> = { ...report.counts.total };
  const passes = notKept.entries + notKept.cases;
  if (passes) total.pass = (total.pass ?? 0) + passes;
  if (notKept.observed) total.observed = (total.observed ?? 0) + notKept.observed;
  return { total, all: report.results.length + notKept.all, kept: report.results.length, notKept };
}

/**
 * The verdict table of a report, per family and kind (catalog entries, cases), the results counted
 * but not kept whole included: a header row (`family`, the verdicts that occur, `total`), one row a
 * group, and `all results`. The console's summary and the HTML report's `<noscript>` show it.
 */
export function familyVerdictRows(report: {
  readonly counts: { readonly total: Partial<Record<Verdict, number>> };
  readonly results: readonly { readonly family: string; readonly kind: string; readonly verdict: Verdict }[];
  readonly stats: Readonly<Record<string, number>>;
}): { rows: string[][]; used: Verdict[]; every: ReturnType<typeof allResultTotals> } {
  const { total } = report.counts;
  const used = VERDICTS.filter((v) => total[v]);
  const groups = new Map<string, Record<string, number>>();
  const add = (key: string, v: string, n: number) => {
    const g = groups.get(key) ?? {};
    g[v] = (g[v] ?? 0) + n;
    groups.set(key, g);
  };
  for (const r of report.results) add(`${r.family} ${r.kind === 'case' ? 'cases' : 'catalog entries'}`, r.verdict, 1);
  // passes counted but not kept whole (stats dropped.<family>.<cases|entries>)
  for (const { family, what, n } of passesNotKept(report.stats)) add(`${family} ${what === 'cases' ? 'cases' : 'catalog entries'}`, 'pass', n);
  for (const { family, n } of observedNotKept(report.stats)) add(`${family} cases`, 'observed', n);
  const every = allResultTotals(report);
  if (every.notKept.entries + every.notKept.cases && !used.includes('pass')) used.unshift('pass');
  if (every.notKept.observed && !used.includes('observed')) used.splice(used.includes('pass') ? 1 : 0, 0, 'observed');
  // the columns: every verdict of a kept result, and those of the results counted but not kept
  const rows = [['family', ...used, 'total']];
  const sum = (c: Record<string, number | undefined>) => Object.values(c).reduce<number>((a, b) => a + (b ?? 0), 0);
  for (const [key, c] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) rows.push([key, ...used.map((v) => String(c[v] ?? 0)), String(sum(c))]);
  rows.push(['all results', ...used.map((v) => String(every.total[v] ?? 0)), String(every.all)]);
  return { rows, used, every };
}
