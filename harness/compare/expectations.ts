/**
 * Expectations files, `cases/expectations/<arch>.yaml`: known deviations of one target, each a
 * pattern over result ids (the --filter syntax: globs with * and ?, or substrings, comma-separated),
 * the verdict and explanation it expects, a reason and a link. A result they match becomes
 * `known-deviation`; an expectation whose pattern matched results that ran but none of which
 * deviated is reported as an unexpected pass (the deviation went away: remove or narrow it).
 *
 * ```yaml
 * expectations:
 *   - id: bulk-add-f32-keeps-subnormals          # [A-Za-z0-9_.-], unique in the file
 *     pattern: "cp.reduce.async.bulk.global.*.add.f32*"
 *     verdict: mismatch                          # default; or compile-mismatch, error
 *     explanation: ftz-off                       # mismatch: alternative ids that must all explain it
 *                                                # ("none": no alternative does); compile-mismatch
 *                                                # and error: a piece of the tool's message instead
 *     reason: the H200 keeps subnormals in bulk .add.f32 although 9.7.9.25.4.2 says it flushes
 *     link: reports/baselines/h200-sm_90-gpu-run/report.json.gz
 *     editions: 9.1-9.3                          # optional: the editions whose text it deviates from;
 *                                                # judged under another edition it is not applied
 * ```
 *
 * A file may also name other expectations files, read as if their entries were written in it
 * (paths relative to the including file; ids stay unique over all of them). Behaviours of a
 * toolchain shared by several targets live in one file that each target's file includes:
 *
 * ```yaml
 * include:
 *   - ptxas-13.0.yaml
 * expectations: [...]                            # optional where include: is given
 * ```
 *
 * Problems are located like vector files' (`file:line:col: what; what to do`) and stop the run
 * before anything runs (exit 2).
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { LineCounter, type Node, type YAMLMap, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { InputProblem } from '../case-readers/types.js';
import type { EntryResult } from '../report/types.js';
import { PlainPass, copyResult } from '../report/lines.js';
import { compileFilter, compileFilterNameGate, nameStart } from '../util/filter.js';
import { EDITIONS, type EditionRange, inEdition, parseRange, rangeText, specEdition } from '../catalog/editions.js';
import { nearestWords } from '../util/nearest.js';
import { ALTERNATIVES } from './explain.js';
import { toolMessage } from './compare.js';
import { fromRoot, shown } from '../util/paths.js';

export type ExpectedVerdict = 'mismatch' | 'compile-mismatch' | 'error';
const EXPECTED_VERDICTS: readonly ExpectedVerdict[] = ['mismatch', 'compile-mismatch', 'error'];
const KEYS = ['id', 'pattern', 'verdict', 'explanation', 'reason', 'link', 'editions'];

export interface Expectation {
  readonly id: string;
  readonly pattern: string;
  readonly verdict: ExpectedVerdict;
  /** mismatch: alternative ids (empty: "none"); otherwise a piece of the tool's message. */
  readonly explanation: readonly string[] | string;
  readonly reason: string;
  readonly link: string;
  /** The PTX ISA editions whose text the deviation is from (absent: every edition): judged under another, it does not apply. */
  readonly editions?: EditionRange;
  readonly file: string;
  readonly line: number;
}

export interface ExpectationOutcome {
  readonly id: string;
  readonly pattern: string;
  readonly verdict: ExpectedVerdict;
  readonly reason: string;
  readonly link: string;
  readonly where: string;
  /**
   * occurred: matched results; unexpected-pass: results matched the pattern and ran, none deviated;
   * not-run: nothing the run checked matched; not-applicable: the pattern matched results, but none
   * could show the deviation (reference-model cases, whose mismatches are their vector file's
   * `expect:` against the spec; cases for a compile-mismatch; skipped results): `why` says which;
   * other-edition: the run was judged against an edition the expectation is not for (its
   * `editions`), so it was not applied.
   */
  readonly status: 'occurred' | 'unexpected-pass' | 'not-run' | 'not-applicable' | 'other-edition';
  /** The expectation's editions, where it names them. */
  readonly editions?: string;
  /** Results turned into known-deviation. */
  readonly matched: number;
  /** Results of the run whose id matches the pattern and that could have deviated (see couldDeviate). */
  readonly ran: number;
  /** Results whose id matches the pattern but that could not show the deviation (absent: none). */
  readonly seen?: number;
  /** What the pattern matched that did not become a known deviation, and why (absent where it occurred or matched nothing). */
  readonly why?: string;
}

export function expectationsPath(arch: string, dir = shown(fromRoot('cases', 'expectations'))): string {
  return join(dir, `${arch}.yaml`);
}

/** An `include:` item: the path as written and where. */
export interface ExpectationsInclude {
  readonly path: string;
  readonly line: number;
  readonly col: number;
}

/**
 * Loads and checks an expectations file and every file it includes (depth first, each once); a
 * missing top file is no expectations, not a problem, unless `mustExist`.
 */
export async function loadExpectations(file: string, mustExist = false): Promise<{ expectations: Expectation[]; problems: InputProblem[] }> {
  if (!existsSync(file)) {
    return mustExist
      ? { expectations: [], problems: [{ file, line: 1, col: 1, message: `no such expectations file; check the path given to --expectations` }] }
      : { expectations: [], problems: [] };
  }
  const expectations: Expectation[] = [];
  const problems: InputProblem[] = [];
  const firstSeen = new Map<string, Expectation>();
  const done = new Set<string>();
  const read = async (f: string, chain: readonly string[]): Promise<void> => {
    done.add(resolve(f));
    const parsed = parseExpectations(f, await readFile(f, 'utf8'));
    problems.push(...parsed.problems);
    for (const inc of parsed.includes) {
      const target = resolve(dirname(f), inc.path);
      const shown = relative(process.cwd(), target) || target;
      if (!existsSync(target))
        problems.push({
          file: f,
          line: inc.line,
          col: inc.col,
          message: `include: no such file '${inc.path}' (looked for ${shown}); paths are relative to this file's folder`,
        });
      else if (chain.includes(target))
        problems.push({
          file: f,
          line: inc.line,
          col: inc.col,
          message: `include: '${inc.path}' includes a file that includes it (${[...chain, target].map((c) => relative(process.cwd(), c)).join(' -> ')}); remove one of the includes`,
        });
      else if (!done.has(target)) await read(shown, [...chain, target]);
    }
    for (const e of parsed.expectations) {
      const before = firstSeen.get(e.id);
      if (before)
        problems.push({
          file: f,
          line: e.line,
          col: 1,
          message: `id: '${e.id}' is used already (${before.file}:${before.line}); ids must be unique over a file and the files it includes`,
        });
      else firstSeen.set(e.id, e);
      expectations.push(e);
    }
  };
  await read(file, [resolve(file)]);
  return { expectations: problems.length ? [] : expectations, problems };
}

export function parseExpectations(file: string, text: string): { expectations: Expectation[]; problems: InputProblem[]; includes: ExpectationsInclude[] } {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  const problems: InputProblem[] = [];
  const at = (node: Node | null | undefined, message: string) => {
    const pos = lc.linePos(node?.range?.[0] ?? 0);
    problems.push({ file, line: pos.line, col: pos.col, message });
  };
  for (const e of doc.errors) {
    const pos = lc.linePos(e.pos[0]);
    problems.push({ file, line: pos.line, col: pos.col, message: `YAML syntax: ${e.message.split('\n')[0]}; fix the YAML (indentation, quotes, colons)` });
  }
  const includes: ExpectationsInclude[] = [];
  if (problems.length) return { expectations: [], problems, includes };
  const root = doc.contents;
  const incNode = isMap(root) ? (root.get('include', true) as Node | undefined) : undefined;
  const listNode = isMap(root) ? (root.get('expectations', true) as Node | undefined) : undefined;
  if (!isMap(root) || (listNode === undefined ? incNode === undefined : !isSeq(listNode))) {
    at(
      (listNode ?? root) as Node,
      "the file must be a map with the key 'expectations:' holding a list of expectations, and/or 'include:' listing other expectations files (see docs/expectations.md)",
    );
    return { expectations: [], problems, includes };
  }
  for (const p of root.items) {
    const k = isScalar(p.key) ? String(p.key.value) : '?';
    if (k !== 'expectations' && k !== 'include') at(p.key as Node, `unknown top-level key '${k}'; the file's keys are 'expectations' and 'include'`);
  }
  if (incNode !== undefined) {
    if (!isSeq(incNode) || !incNode.items.every((n) => isScalar(n) && typeof n.value === 'string' && n.value.trim())) {
      at(incNode, "include: must be a list of file paths (relative to this file's folder), e.g. include: [ptxas-13.0.yaml]");
    } else {
      for (const n of incNode.items as Node[]) {
        const pos = lc.linePos(n.range?.[0] ?? 0);
        includes.push({ path: String((n as unknown as { value: string }).value), line: pos.line, col: pos.col });
      }
    }
  }
  const out: Expectation[] = [];
  const seen = new Map<string, number>();
  const altIds = ALTERNATIVES.map((a) => a.id);
  for (const item of listNode === undefined ? [] : (listNode as unknown as { items: Node[] }).items) {
    if (!isMap(item)) {
      at(item, 'each expectation is a map with id, pattern, explanation, reason and link');
      continue;
    }
    const m = item as YAMLMap;
    const line = lc.linePos(item.range?.[0] ?? 0).line;
    for (const p of m.items) {
      const k = isScalar(p.key) ? String(p.key.value) : '?';
      if (!KEYS.includes(k))
        at(p.key as Node, `unknown key '${k}' in an expectation; did you mean '${nearestWords(k, KEYS, 1)[0]}'? (keys: ${KEYS.join(', ')})`);
    }
    const str = (key: string, required: boolean): string | undefined => {
      const n = m.get(key, true) as Node | undefined;
      if (n === undefined) {
        if (required) at(item, `${key}: is missing; every expectation needs ${key}`);
        return undefined;
      }
      // editions: 9.4 unquoted is a YAML number; its text is the edition
      if (key === 'editions' && isScalar(n) && typeof n.value === 'number') return n.source ?? String(n.value);
      if (!isScalar(n) || typeof n.value !== 'string' || !n.value.trim()) {
        at(n, `${key}: must be a non-empty string`);
        return undefined;
      }
      return n.value;
    };
    const id = str('id', true);
    const pattern = str('pattern', true);
    const verdictText = str('verdict', false) ?? 'mismatch';
    const explanation = str('explanation', true);
    const reason = str('reason', true);
    const link = str('link', true);
    const editionsText = str('editions', false);
    const editions = editionsText !== undefined ? parseRange(editionsText) : undefined;
    if (editionsText !== undefined && !editions)
      at(
        m.get('editions', true) as Node,
        `editions: '${editionsText}' is not a range of the catalog's PTX ISA editions (${EDITIONS.join(', ')}); write e.g. "9.1-9.3" or "9.4"`,
      );
    if (id !== undefined) {
      if (!/^[A-Za-z0-9_.-]+$/.test(id)) at(m.get('id', true) as Node, `id: '${id}' may use letters, digits, '_', '.' and '-' only`);
      if (seen.has(id)) at(m.get('id', true) as Node, `id: '${id}' is used already (line ${seen.get(id)}); ids must be unique`);
      seen.set(id, line);
    }
    if (!EXPECTED_VERDICTS.includes(verdictText as ExpectedVerdict))
      at(m.get('verdict', true) as Node, `verdict: '${verdictText}' cannot be expected; use one of ${EXPECTED_VERDICTS.join(', ')}`);
    if (pattern !== undefined && pattern.split(',').every((x) => !x.trim()))
      at(m.get('pattern', true) as Node, 'pattern: is empty; write a glob over result ids, e.g. atom.global.add.f32*');
    let expl: readonly string[] | string | undefined = explanation;
    if (explanation !== undefined && verdictText === 'mismatch') {
      const ids = explanation === 'none' ? [] : explanation.split(',').map((s) => s.trim());
      const bad = ids.filter((x) => !altIds.includes(x));
      if (bad.length)
        at(
          m.get('explanation', true) as Node,
          `explanation: unknown alternative '${bad[0]}'; did you mean '${nearestWords(bad[0]!, altIds, 1)[0]}'? (alternatives: ${altIds.join(', ')}, or none)`,
        );
      expl = ids;
    }
    if (link !== undefined && !/^(https?:\/\/\S+|[\w./-]+)$/.test(link))
      at(m.get('link', true) as Node, `link: '${link}' is neither a URL (https://...) nor a path in the repository`);
    if (id && pattern && expl !== undefined && reason && link && EXPECTED_VERDICTS.includes(verdictText as ExpectedVerdict)) {
      out.push({ id, pattern, verdict: verdictText as ExpectedVerdict, explanation: expl, reason, link, ...(editions ? { editions } : {}), file, line });
    }
  }
  return { expectations: problems.length ? [] : out, problems, includes };
}

/**
 * Whether `r` could have shown the deviation `e` expects: a mismatch needs bits a backend observed
 * (hardware); a compile-mismatch needs ptxas's answer; an error, either. A case the reference model
 * evaluates says nothing about hardware: it passes, or its vector file's `expect:` disagrees with
 * the spec, which is a problem of the file, never a known deviation.
 */
function couldDeviate(e: Expectation, r: EntryResult, elsewhere: ReadonlySet<string>): boolean {
  if (r.verdict === 'skipped') return false;
  if (e.verdict === 'compile-mismatch') return r.ptxas !== undefined;
  const bits = r.case?.observed !== undefined || (elsewhere.has(r.id) && !namesAlternatives(e));
  if (e.verdict === 'mismatch') return bits;
  return r.ptxas !== undefined || bits;
}

/**
 * A mismatch expectation that names alternative rules (ftz-off, ...): a behaviour of single cases'
 * bits. A contention group is judged by the contention model, which explains no mismatch by an
 * alternative, so only `explanation: none` can cover one.
 */
const namesAlternatives = (e: Expectation) => e.verdict === 'mismatch' && typeof e.explanation !== 'string' && e.explanation.length > 0;
const CONTENTION_NO_ALTERNATIVES =
  "contention group(s): judged by the contention model, which names no alternative rule (an expectation over them says 'explanation: none')";

const ENTRIES_NO_BITS = "catalog entr(y/ies): a mismatch is of a case's bits on hardware, and an entry is checked for compile acceptance only";
const CASES_NO_PTXAS = "case(s): a compile-mismatch is ptxas's answer on a catalog entry, and no case is one";

/** Why `r`, whose id `e`'s pattern matches, could not show `e`'s deviation (see couldDeviate): a kind of result, said once per kind. */
function cannotShow(e: Expectation, r: EntryResult, elsewhere: ReadonlySet<string>): string {
  if (r.verdict === 'skipped') return 'skipped result(s): nothing ran';
  if (elsewhere.has(r.id) && namesAlternatives(e)) return CONTENTION_NO_ALTERNATIVES;
  if (r.kind !== 'case') return e.verdict === 'mismatch' ? ENTRIES_NO_BITS : 'catalog entr(y/ies) ptxas did not check';
  if (e.verdict === 'compile-mismatch') return CASES_NO_PTXAS;
  if (r.case?.observed === undefined) {
    return r.case?.expect
      ? "reference-model case(s) with an expect: (no hardware bits: a mismatch there is the vector file's expect: against the spec, a problem of the file, never a known deviation of hardware)"
      : 'reference-model case(s) (no hardware bits to deviate)';
  }
  return 'case(s) without observed bits';
}

function explains(e: Expectation, r: EntryResult, elsewhere: ReadonlySet<string>): boolean {
  if (e.verdict !== r.verdict || !couldDeviate(e, r, elsewhere)) return false;
  if (typeof e.explanation === 'string') return `${toolMessage(r)} ${r.reason}`.includes(e.explanation);
  const have = r.explanation?.ids ?? [];
  return e.explanation.length === 0 ? have.length === 0 : e.explanation.every((x) => have.includes(x));
}

/** Where an expectation is written, relative to the working folder when it is inside it. */
function where(e: Expectation): string {
  const rel = relative(process.cwd(), e.file);
  return `${rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : e.file}:${e.line}`;
}

/** The prefix a known deviation's reason gets: its expectation's id and where it is written (before: its reason and link). */
const KNOWN_PREFIX = /^known deviation '[^']+' \((?:.*?; \S+|[^()]*?:\d+)\): /;

/**
 * A result as the backend gave it, before the comparator's pass: the verdict a known deviation had
 * (read back from its evidence: observed bits make a mismatch, a ptxas crash an error, another ptxas
 * answer a compile-mismatch) and its reason, without explanation, expectation, finding or the sets
 * enrichment filled in. For judging a recorded report again (render, replays).
 */
export function undoJudgement(r: EntryResult): EntryResult {
  return undoJudgementOf(r, false);
}

/**
 * undoJudgement, where `observedElsewhere` says the result's hardware observation is kept outside it
 * (a contention group's, in the report's `contention`), so that a known deviation of it was a mismatch.
 */
export function undoJudgementOf(r: EntryResult, observedElsewhere: boolean): EntryResult {
  const { explanation: _e, expectation: _x, finding: _f, ...rest } = r;
  const verdict =
    r.verdict !== 'known-deviation'
      ? r.verdict
      : r.case?.observed || observedElsewhere
        ? 'mismatch'
        : r.ptxas?.crashed
          ? 'error'
          : r.ptxas
            ? 'compile-mismatch'
            : 'error';
  const reason = r.verdict === 'known-deviation' ? r.reason.replace(KNOWN_PREFIX, '') : r.reason;
  return { ...rest, verdict, reason, ...(r.case ? { case: { ...r.case, allowed: r.case.observed ? {} : r.case.allowed, nan: undefined } } : {}) };
}

/**
 * Turns results the expectations cover into known deviations. `covered` lists ids the run checked
 * but did not keep as results (a gpu run keeps a sample of its passing cases), so that an
 * expectation over them is not called not-run.
 */
/** How many ids of one prefix applyExpectations tests one by one before it works out the prefix's gate. */
const GATE_AFTER = 16;

export function applyExpectations(
  results: readonly EntryResult[],
  expectations: readonly Expectation[],
  covered: readonly string[] = [],
  /** Catalog entries ptxas checked, not kept: only a compile-mismatch or error expectation could have shown on them. */
  coveredEntries: readonly string[] = [],
  /**
   * Results whose hardware observation the report keeps outside `case.observed` (contention groups:
   * the report's `contention`): they could show a mismatch as a case with observed bits could.
   */
  observedElsewhere: ReadonlySet<string> = new Set(),
): { results: EntryResult[]; outcomes: ExpectationOutcome[] } {
  const edition = specEdition();
  const applies = expectations.map((e) => inEdition(e.editions, edition));
  const tests = expectations.map((e, k) => (applies[k] ? compileFilter(e.pattern) : () => false));
  const matched = expectations.map(() => 0);
  const ran = expectations.map(() => 0);
  // what each pattern matched that could not deviate (kind -> count and an example), and what
  // deviated otherwise (the same verdict, another explanation or message)
  const unfit = expectations.map(() => new Map<string, { n: number; example: string }>());
  const otherwise = expectations.map(() => ({ n: 0, example: '', got: '' }));
  const note = (k: number, why: string, id: string) => {
    const u = unfit[k]!.get(why) ?? { n: 0, example: id };
    u.n++;
    unfit[k]!.set(why, u);
  };
  // ids of one prefix and a name (a vector file's cases): each pattern asked once per prefix whether
  // any name could complete a match (compileFilterNameGate), and the ids of a prefix no pattern can
  // match are not tested one by one (a --keep all run keeps hundreds of thousands)
  const gates = expectations.map((e, k) => (applies[k] ? compileFilterNameGate(e.pattern) : () => false));
  // (a prefix is gated from its GATE_AFTER-th id on: a few ids are tested as cheaply as the gate is
  // worked out, and a gpu run's ids are a few per prefix: `<variant>/probe:<name>`, `<variant>/<file>:<name>`)
  const open = new Map<string, boolean[]>();
  const met = new Map<string, number>();
  const openFor = (r: EntryResult): boolean[] | undefined => {
    let prefix: string;
    if (r instanceof PlainPass) prefix = r.idPrefix;
    else {
      const at = nameStart(r.id);
      if (at < 0) return undefined;
      prefix = r.id.slice(0, at);
    }
    let o = open.get(prefix);
    if (!o) {
      const n = met.get(prefix) ?? 0;
      if (n < GATE_AFTER) {
        if (met.size >= 10_000) met.clear();
        met.set(prefix, n + 1);
        return undefined;
      }
      if (open.size >= 10_000) open.clear();
      open.set(prefix, (o = gates.map((g) => g(prefix))));
    }
    return o;
  };
  const out = results.map((r) => {
    const notes: string[] = [];
    const may = openFor(r);
    for (let k = 0; k < expectations.length; k++) {
      if (may && !may[k]) continue;
      if (!tests[k]!(r.id)) continue;
      const e = expectations[k]!;
      if (couldDeviate(e, r, observedElsewhere)) ran[k]!++;
      else {
        const why = cannotShow(e, r, observedElsewhere);
        note(k, why, r.id);
        if (r.verdict === e.verdict) notes.push(`expectation '${e.id}' covers this id but does not apply to it: ${why.replace(/\((?:y\/ies)\)|\(s\)/g, '')}`);
        continue;
      }
      if (explains(e, r, observedElsewhere)) {
        matched[k]!++;
        return copyResult(r, { verdict: 'known-deviation' as const, expectation: e.id, reason: `known deviation '${e.id}' (${where(e)}): ${r.reason}` });
      }
      if (r.verdict === e.verdict) {
        const o = otherwise[k]!;
        if (!o.n++) [o.example, o.got] = [r.id, r.explanation?.ids.join(',') || toolMessage(r) || 'none'];
        const want = typeof e.explanation === 'string' ? `a message containing '${e.explanation}'` : e.explanation.join(',') || 'none';
        notes.push(`expectation '${e.id}' covers this id but expects ${want}; this one: ${r.explanation?.ids.join(',') || toolMessage(r) || 'none'}`);
      }
    }
    return notes.length ? copyResult(r, { reason: `${r.reason} [${notes.join('; ')}]` }) : r;
  });
  // checked but not kept (passes counted only): run where they could have deviated, else seen
  for (const id of covered) tests.forEach((t, k) => t(id) && (expectations[k]!.verdict !== 'compile-mismatch' ? ran[k]!++ : note(k, CASES_NO_PTXAS, id)));
  for (const id of coveredEntries) tests.forEach((t, k) => t(id) && (expectations[k]!.verdict !== 'mismatch' ? ran[k]!++ : note(k, ENTRIES_NO_BITS, id)));
  const outcomes = expectations.map((e, k): ExpectationOutcome => {
    const seen = [...unfit[k]!.values()].reduce((t, u) => t + u.n, 0);
    const o = otherwise[k]!;
    const want = typeof e.explanation === 'string' ? `a message containing '${e.explanation}'` : e.explanation.join(',') || 'none';
    const why = [
      ...(o.n
        ? [
            `${o.n} ${e.verdict === 'error' ? 'error(s)' : `${e.verdict}(es)`} with another ${typeof e.explanation === 'string' ? 'message' : 'explanation'} than it expects (${want}), e.g. ${o.example}: ${o.got}`,
          ]
        : []),
      ...[...unfit[k]!].map(([what, u]) => `${u.n} ${what}, e.g. ${u.example}`),
    ].join('; ');
    return {
      id: e.id,
      pattern: e.pattern,
      verdict: e.verdict,
      reason: e.reason,
      link: e.link,
      where: `${e.file}:${e.line}`,
      status: !applies[k] ? 'other-edition' : matched[k]! > 0 ? 'occurred' : ran[k]! > 0 ? 'unexpected-pass' : seen > 0 ? 'not-applicable' : 'not-run',
      ...(e.editions ? { editions: rangeText(e.editions) } : {}),
      matched: matched[k]!,
      ran: ran[k]!,
      ...(seen ? { seen } : {}),
      ...(applies[k] && matched[k] === 0 && why ? { why } : {}),
    };
  });
  return { results: out, outcomes };
}
