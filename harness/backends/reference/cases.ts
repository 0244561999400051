/**
 * Runs cases through the reference model. Without hardware there is nothing to observe: a case
 * passes when the model evaluates it and, where its file states `expect:`, every expected element is
 * among the outcomes the model allows; a mismatch names the element, lane and allowed set; a case
 * the model cannot evaluate is an error with the reason.
 */
import type { Case } from '../../case-readers/types.js';
import { type ElementFormat, elementFormat } from '../../numerics/formats.js';
import type { Allowed } from '../../numerics/ops.js';
import { CaseError, type ElementAllowed, type ReferenceOutcome, reference } from '../../reference/model.js';
import { CASE_REASON, type EntryResult } from '../../report/types.js';
import { TRAILS_COMPUTED } from '../../compare/compare.js';
import { checkBits } from '../../compare/judge-case.js';
import { hexBits as hex } from '../../numerics/hex.js';

function allowedHex(fmt: ElementFormat, a: Allowed) {
  return { bits: a.bits.map((b) => hex(fmt.lane.bits, b)), anyNaN: a.anyNaN };
}

/** The bits of a case, and what its file expects, as hex strings (the report's `case` detail). */
function caseBits(c: Case, fmt: ElementFormat) {
  const w = fmt.bits;
  const input = {
    ...(c.input.memory ? { memory: hexes(w, c.input.memory) } : {}),
    ...(c.input.replicas ? { replicas: c.input.replicas.map((r) => hexes(w, r)) } : {}),
    ...(c.input.b ? { b: hexes(w, c.input.b) } : {}),
    ...(c.input.c ? { c: hexes(w, c.input.c) } : {}),
    ...(c.input.source ? { source: hexes(w, c.input.source) } : {}),
    ...(c.input.space ? { space: c.input.space } : {}),
  };
  const expect = c.expect
    ? {
        ...(c.expect.memory ? { memory: hexes(w, c.expect.memory) } : {}),
        ...(c.expect.returned ? { returned: hexes(w, c.expect.returned) } : {}),
        ...(c.expect.replicas ? { replicas: c.expect.replicas.map((r) => hexes(w, r)) } : {}),
      }
    : undefined;
  return { input, expect };
}

// The helpers of a case's detail are module functions, not closures made per case: under tsx
// (esbuild's keepNames) every named closure costs a defineProperty call, per case.
function hexes(bits: number, xs: readonly bigint[]): string[] {
  return xs.map((x) => hex(bits, x));
}
function allowedSets(fmt: ElementFormat, xs: readonly ElementAllowed[] | undefined) {
  return xs?.map((e) => e.map((l) => allowedHex(fmt, l)));
}
function buildDetail(c: Case, fmt: ElementFormat, outcome: ReferenceOutcome): CaseDetail {
  const { input, expect } = caseBits(c, fmt);
  return {
    origin: { ...c.origin, ...(c.cite !== undefined ? { cite: c.cite } : {}) },
    input,
    ...(expect ? { expect } : {}),
    allowed: {
      ...(outcome.memory ? { memory: allowedSets(fmt, outcome.memory) } : {}),
      ...(outcome.returned ? { returned: allowedSets(fmt, outcome.returned) } : {}),
      ...(outcome.replicas ? { replicas: outcome.replicas.map((r) => allowedSets(fmt, r)!) } : {}),
    },
    unspecified: outcome.unspecified,
  };
}

type CaseDetail = NonNullable<EntryResult['case']>;

const EVALUATED_ONE = 'reference evaluated; one allowed outcome';
const AGREES_ONE = 'reference evaluated and agrees with the expect: of the file; one allowed outcome';

/** Number of outcomes the sets allow (1: the model decided every bit). */
function outcomeCount(xs: readonly ElementAllowed[] | undefined, n: number): number {
  if (!xs) return n;
  for (const e of xs) for (const l of e) n *= l.bits.length + (l.anyNaN ? 1 : 0);
  return n;
}

type CatalogJudgement = EntryResult['catalog'];

/**
 * One catalog judgement object per distinct rule trail (a file's cases cite a few trails): results
 * share it, so a run does not make an object and an array per case, and the report writers, which
 * write each distinct judgement once (harness/report/json.ts), find it by identity. Handed out
 * frozen (nothing may change a shared judgement); bounded.
 */
const JUDGEMENTS = new Map<string, CatalogJudgement>();
function judgementFor(trail: readonly { readonly rule: string }[]): CatalogJudgement {
  let key = '';
  for (let i = 0; i < trail.length; i++) key += i ? `\u0000${trail[i]!.rule}` : trail[i]!.rule;
  let j = JUDGEMENTS.get(key);
  if (!j) {
    if (JUDGEMENTS.size >= 1024) JUDGEMENTS.clear();
    j = Object.freeze({ status: 'valid', expect: 'accept', reason: CASE_REASON, rules: Object.freeze(trail.map((t) => t.rule)) }) as CatalogJudgement;
    TRAILS_COMPUTED.add(j);
    JUDGEMENTS.set(key, j);
  }
  return j;
}

/**
 * One case through the reference model. The heavy part of the result, `case` (every input, expected
 * and allowed value as hex), is built only when something reads it (a report writer, JSON.stringify,
 * a non-pass printer): an own enumerable getter that computes it once, so the result looks and
 * serialises exactly as a plain object would, while a run over millions of passing cases does not
 * format millions of BigInts it may never show.
 */
export function runCaseOnReference(c: Case, opts?: { whole?: boolean }): EntryResult {
  const fmt = elementFormat(c.variant.q.type ?? '');
  let detail: CaseDetail | undefined;
  let o: ReturnType<typeof reference>;
  const base = { id: c.id, family: c.variant.family, kind: 'case' as const, ptx: c.variant.ptx, modulePtx: '-' };
  try {
    o = reference(c.variant, c.input);
  } catch (e) {
    if (!(e instanceof CaseError)) throw e;
    const { input } = caseBits(c, fmt);
    return {
      ...base,
      catalog: { status: 'valid', expect: 'accept', reason: CASE_REASON, rules: [] },
      verdict: 'error',
      reason: `the reference model cannot evaluate this case: ${e.message}`,
      case: { origin: { ...c.origin, ...(c.cite !== undefined ? { cite: c.cite } : {}) }, input, allowed: {}, unspecified: [] },
    };
  }
  const ex = c.expect;
  // the file's expect: judged as a backend's observed bits are (compare/judge-case.ts), said as the file's
  const miss = ex ? checkBits(fmt, o, ex, 'expected').miss : undefined;
  const catalog = judgementFor(o.trail);
  let n = outcomeCount(o.returned, outcomeCount(o.memory, 1));
  if (o.replicas) for (const r of o.replicas) n = outcomeCount(r, n);
  const outcome = o;
  const verdict = miss ? 'mismatch' : 'pass';
  const reason = miss
    ? `the file's expect disagrees with the reference model: ${miss}`
    : n === 1
      ? ex
        ? AGREES_ONE
        : EVALUATED_ONE
      : `reference evaluated${ex ? ' and agrees with the expect: of the file' : ''}; allowed outcomes widened by ${o.unspecified.join(', ') || 'order'}`;
  // a result that will be kept whole (the caller says so): its detail now, as a plain property (the
  // same keys in the same order as the getter's object below; no getter to define, and the report
  // writers serialise a plain object faster)
  if (opts?.whole)
    return { id: base.id, family: base.family, kind: 'case', ptx: base.ptx, modulePtx: '-', catalog, verdict, reason, case: buildDetail(c, fmt, outcome) };
  return {
    ...base,
    catalog,
    verdict,
    reason,
    get case(): CaseDetail {
      return (detail ??= buildDetail(c, fmt, outcome));
    },
    set case(v: CaseDetail) {
      detail = v;
    },
  };
}
