/**
 * The comparator's last pass over a run's results, the same for every backend:
 *  - each case result gets its rule trail (reference rule ids, cited in the report's `rules`) and,
 *    where the verdict is not a pass, the reference's allowed sets beside the observed bits;
 *  - each mismatch is explained (explain.ts): the alternative rules that reproduce it;
 *  - each `observed` NaN result says what NaN came back (canonical, an input's payload, another);
 *  - results are grouped into findings (one hardware or toolchain behaviour, one finding with a
 *    count), and every non-pass result names its finding, so a report links the two both ways.
 *
 * What the hardware observed is `case.observed`; on the reference backend a vector file's `expect:`
 * takes its place (a file that expects other bits is explained the same way).
 */
import type { Edition } from '../catalog/editions.js';
import { type ElementFormat, classify, elementFormat, splitLanes } from '../numerics/formats.js';
import type { Allowed } from '../numerics/ops.js';
import { type ElementAllowed, CaseError, reference } from '../reference/model.js';
import { CASE_REASON, type EntryResult, type Verdict } from '../report/types.js';
import { PlainPass, copyResult } from '../report/lines.js';
import {
  type Explainable,
  explain,
  explanationText,
  groupExplained,
  nanBehaviour,
  referenceCaseOf,
  resultVariant,
  subjectOf,
  subnormalBehaviour,
  variantOf,
} from './explain.js';
import { hexBits as hex } from '../numerics/hex.js';

function allowedHex(fmt: ElementFormat, xs?: readonly ElementAllowed[]) {
  return xs?.map((e) => e.map((l: Allowed) => ({ bits: l.bits.map((b) => hex(fmt.lane.bits, b)), anyNaN: l.anyNaN })));
}

/** The case as explain() takes it, or undefined when the result has no bits to explain. */
export function explainable(r: EntryResult): Explainable | undefined {
  const c = r.case;
  if (!c) return undefined;
  const observed = (c.observed ?? c.expect) as Explainable['observed'] | undefined;
  if (!observed) return undefined;
  return { variant: resultVariant(r), input: c.input as Explainable['input'], observed };
}

/**
 * Whether an executor's bits are the ones a file's `expect:` names, element by element; a NaN
 * matches a NaN in a lane where the reference leaves the payload open (fp.nan-payload).
 */
export function expectAgreement(
  fmt: ElementFormat,
  expect: Record<string, unknown>,
  observed: Record<string, unknown>,
  ref: { memory?: readonly ElementAllowed[]; returned?: readonly ElementAllowed[] },
): { agrees: boolean; reason: string } {
  for (const what of ['memory', 'returned'] as const) {
    const want = (expect[what] as string[] | undefined)?.map((x) => BigInt(x));
    if (!want) continue;
    const got = (observed[what] as string[] | undefined)?.map((x) => BigInt(x));
    if (!got) return { agrees: false, reason: `${what}: the file expects values, the executor gave none` };
    for (let i = 0; i < want.length; i++) {
      const wl = splitLanes(fmt, want[i]!);
      const gl = splitLanes(fmt, got[i] ?? 0n);
      for (let l = 0; l < wl.length; l++) {
        if (wl[l] === gl[l]) continue;
        const open = ref[what]?.[i]?.[l]?.anyNaN && fmt.lane.kind === 'float' && classify(fmt.lane, wl[l]!) === 'nan' && classify(fmt.lane, gl[l]!) === 'nan';
        if (!open)
          return {
            agrees: false,
            reason: `${what}[${i}]${fmt.lanes > 1 ? ` lane ${l}` : ''}: the file expects ${hex(fmt.lane.bits, wl[l]!)}, the executor gave ${hex(fmt.lane.bits, gl[l]!)}`,
          };
      }
    }
  }
  return { agrees: true, reason: "the executor gave the bits the file's expect names" };
}

/** SASS evidence: a field of its own (older reports kept it in catalog.reason as "SASS: ..."). */
function sassOf(r: EntryResult): string | undefined {
  return r.sass ?? (r.catalog.reason.startsWith('SASS: ') ? /^SASS: (.*)$/.exec(r.catalog.reason)?.[1] : undefined);
}

/**
 * Catalog judgements whose rule trail the reference model computed for the results that carry
 * them (harness/backends/reference/cases.ts marks the ones it makes): an empty trail there is the
 * model's answer, not a trail still to compute. Results read back from JSON carry none of them.
 */
export const TRAILS_COMPUTED = new WeakSet<object>();

/** Fills rule trail, allowed sets, explanation, NaN behaviour and SASS of one result. */
export function enrichResult(r: EntryResult): EntryResult {
  // a plain pass of the reference model (its trail computed, nothing observed): nothing to add, and its case is not read
  if (r instanceof PlainPass) return r;
  const sass = sassOf(r);
  let out: EntryResult = sass && !r.sass ? copyResult(r, { sass, catalog: { ...r.catalog, reason: CASE_REASON } }) : r;
  const c = out.case;
  if (!c) return out;
  const trailKnown = out.catalog.rules.length > 0 || TRAILS_COMPUTED.has(out.catalog);
  // a file's case run by an executor: its allowed set beside its expect, and whether the two agree
  const judgesExpect = c.observed !== undefined && c.expect !== undefined;
  const needsAllowed = (out.verdict !== 'pass' || judgesExpect) && Object.keys(c.allowed).length === 0;
  const needsModel = !trailKnown || needsAllowed || (judgesExpect && !c.fileExpect);
  const needsExplanation = (out.verdict === 'mismatch' || out.verdict === 'known-deviation') && !out.explanation;
  // an observed result enriched already (a gpu worker enriches what it keeps): its NaN and subnormal behaviour are there
  const observedDone = out.verdict === 'observed' && (c.nan !== undefined || c.subnormals !== undefined);
  // nothing to add (a million-case run keeps 20,000 plain passes): the result as it is, which is
  // what the steps below would give, copied
  if (!needsModel && !needsExplanation && (out.verdict !== 'observed' || observedDone)) return out;
  const ex = explainable(out);
  if (!ex) return out;
  let rules = out.catalog.rules;
  let allowed = c.allowed;
  let fileExpect = c.fileExpect;
  if (needsModel) {
    try {
      const v = variantOf(resultVariant(out));
      const fmt = elementFormat(v.q.type ?? '');
      const ref = reference(v, referenceCaseOf(ex.input));
      rules = ref.trail.map((t) => t.rule);
      if (judgesExpect && !fileExpect) fileExpect = expectAgreement(fmt, c.expect!, c.observed!, ref);
      if (needsAllowed) {
        allowed = {
          ...(ref.memory ? { memory: allowedHex(fmt, ref.memory) } : {}),
          ...(ref.returned ? { returned: allowedHex(fmt, ref.returned) } : {}),
          ...(ref.replicas ? { replicas: ref.replicas.map((x) => allowedHex(fmt, x)) } : {}),
        };
      }
    } catch (e) {
      if (!(e instanceof CaseError)) throw e;
    }
  }
  let explanation = out.explanation;
  if (needsExplanation) {
    const ids = explain(ex).map((a) => a.id);
    explanation = { ids, text: explanationText(ids) };
  }
  const nan = out.verdict === 'observed' ? nanBehaviour(ex) : undefined;
  const subnormals = out.verdict === 'observed' && c.unspecified.includes('fp.ftz-unstated') ? subnormalBehaviour(ex) : undefined;
  out = {
    ...out,
    catalog: { ...out.catalog, rules },
    ...(explanation ? { explanation } : {}),
    case: { ...c, allowed, ...(nan ? { nan } : {}), ...(subnormals ? { subnormals } : {}), ...(fileExpect ? { fileExpect } : {}) },
  };
  return out;
}

export interface ReportFinding {
  /** Short key (F1, F2, ...) that results name in their `finding` field. */
  readonly key: string;
  readonly verdict: Verdict;
  /** What the finding is about: family, operation, type and space, or catalog rule. */
  readonly subject: string;
  /** Alternative ids (mismatches), the unspecified rule and NaN kind (observed), or the tool's message. */
  readonly explanation: string;
  /** One line a person reads. */
  readonly text: string;
  readonly count: number;
  readonly examples: readonly string[];
  /** Expectation id, where the finding is a known deviation. */
  readonly expectation?: string;
  /** Hardware findings whose reference depends on the PTX ISA edition: the editions its observations pass under, and those they do not. */
  readonly editions?: { readonly agrees: readonly Edition[]; readonly against: readonly Edition[] };
}

/** The message ptxas gave, without the register names and numbers that vary between lines. */
export function toolMessage(r: EntryResult): string {
  if (!r.ptxas) return '';
  if (r.ptxas.crashed) return `ptxas crashed (${r.ptxas.crashed})`;
  if (r.ptxas.accepted) return 'ptxas accepts';
  const errs = r.ptxas.messages.filter((m) => !m.startsWith('warning'));
  return (errs[0] ?? r.ptxas.messages[0] ?? 'rejected').replace(/%r\d+_\d+/g, '%r');
}

const ORDER: readonly Verdict[] = ['mismatch', 'error', 'compile-mismatch', 'known-deviation', 'observed', 'skipped'];

/**
 * Groups every non-pass result into findings and returns the results with their `finding` key.
 * Mismatches and known deviations group by subject and explanation; compile-mismatches, errors
 * and ptxas observations by catalog expectation, rule and tool message; observed cases by subject,
 * unspecified rule and NaN kind; skipped entries by reason.
 */
export function findingsOf(results: readonly EntryResult[]): { findings: ReportFinding[]; results: EntryResult[] } {
  type Raw = Omit<ReportFinding, 'key' | 'count' | 'examples'> & { ids: number[] };
  const raws: Raw[] = [];
  const byKey = new Map<string, Raw>();
  const add = (k: string, make: () => Omit<Raw, 'ids'>, id: number) => {
    let g = byKey.get(k);
    if (!g) {
      g = { ...make(), ids: [] };
      byKey.set(k, g);
      raws.push(g);
    }
    g.ids.push(id);
  };
  // mismatches and known deviations of cases: one finding per subject and explanation
  for (const verdict of ['mismatch', 'known-deviation'] as const) {
    const cases = results.flatMap((r, i) =>
      r.verdict === verdict && r.kind === 'case'
        ? [{ id: String(i), subject: `${subjectOf(resultVariant(r))}${r.expectation ? ` [${r.expectation}]` : ''}`, explanation: r.explanation?.ids ?? [] }]
        : [],
    );
    for (const g of groupExplained(cases)) {
      const exp = results[Number(g.examples[0])]?.expectation;
      const k = `${verdict}|${g.subject}|${g.explanation}`;
      for (const id of g.ids)
        add(k, () => ({ verdict, subject: g.subject, explanation: g.explanation, text: g.text, ...(exp ? { expectation: exp } : {}) }), Number(id));
    }
  }
  for (const [i, r] of results.entries()) {
    if (r.verdict === 'pass' || ((r.verdict === 'mismatch' || r.verdict === 'known-deviation') && r.kind === 'case')) continue;
    if (r.verdict === 'skipped') {
      // by family and reason: the subject names the family, so a reason shared by several families is one finding each
      add(`skipped|${r.family}|${r.reason}`, () => ({ verdict: 'skipped', subject: r.family, explanation: '', text: r.reason }), i);
    } else if (r.kind === 'case') {
      const uns = r.case?.unspecified.join(', ') ?? '';
      const nan = r.case?.nan;
      const sub = r.case?.subnormals;
      const subject = subjectOf(resultVariant(r));
      const text =
        r.verdict === 'observed'
          ? `inside the set the spec leaves open (${uns || 'order'})${sub ? `; subnormals: ${sub}` : ''}${nan ? `; NaN results: ${nan}` : ''}`
          : r.reason;
      add(
        `${r.verdict}|${subject}|${text}`,
        () => ({ verdict: r.verdict, subject, explanation: [uns, sub && `subnormals ${sub}`, nan].filter(Boolean).join('; '), text }),
        i,
      );
    } else {
      const rule = r.catalog.rules[0] ?? '';
      const tool = toolMessage(r) || r.reason;
      const subject = `${r.family}: expect ${r.catalog.expect} | ${rule}`;
      add(
        `${r.verdict}|${subject}|${tool}${r.expectation ?? ''}`,
        () => ({
          verdict: r.verdict,
          subject,
          explanation: tool,
          text: `${r.catalog.expect === 'either' ? 'the spec leaves it open' : `the catalog expects ${r.catalog.expect}`} (${rule}); ${tool}`,
          ...(r.expectation ? { expectation: r.expectation } : {}),
        }),
        i,
      );
    }
  }
  raws.sort((a, b) => ORDER.indexOf(a.verdict) - ORDER.indexOf(b.verdict) || b.ids.length - a.ids.length || a.subject.localeCompare(b.subject));
  const keyOf: (string | undefined)[] = new Array(results.length);
  const findings = raws.map((g, n) => {
    const key = `F${n + 1}`;
    for (const i of g.ids) keyOf[i] = key;
    const { ids, ...rest } = g;
    return { key, ...rest, count: ids.length, examples: ids.slice(0, 3).map((i) => results[i]!.id) };
  });
  return { findings, results: results.map((r, i) => (keyOf[i] ? copyResult(r, { finding: keyOf[i] }) : r)) };
}
