/**
 * Reads a PTX instruction as people write it (qualifiers in any order, a guard predicate, operands,
 * a trailing comment) and returns its family, its qualifiers by slot, and what the catalog says of
 * it, operand shape included. Used for the spec's own examples and for user vector files.
 */
import { familyById, families } from '../registry/index.js';
import { nearestRanked, nearestWords, withinReach } from '../util/nearest.js';
import { SPEC_FILES, cite } from './cite.js';
import { type Evaluation, type Violation, evaluate } from './evaluate.js';
import { vectorLength } from './elements.js';
import { spell, variantId } from './spelling.js';
import type { FamilyDef, OperandKind, Qualifiers } from './types.js';
import { allTokens, vocabulary } from './vocabulary.js';

export interface ParsedInstruction {
  readonly family: FamilyDef;
  readonly q: Qualifiers;
  /** Canonical spelling (grammar order). */
  readonly ptx: string;
  readonly id: string;
  readonly operands?: readonly string[];
  readonly evaluation: Evaluation;
  /** Operand problems (count, [address] brackets, vector length), found against the matched form. */
  readonly operandViolations: readonly Violation[];
  /** Evaluation and operand problems together; empty means the instruction is well formed. */
  readonly violations: readonly Violation[];
}

export class ParseError extends Error {
  constructor(
    message: string,
    /** 0-based column in the parsed text where the problem starts. */
    readonly column: number,
    /** The rule id, when the family is known: `<family>.grammar.unknown-qualifier`. */
    readonly rule?: string,
    /** For an unknown qualifier: the opcode respelled with each suggestion within a typo's reach in its place, likeliest first. */
    readonly respelled?: readonly string[],
  ) {
    super(message);
  }
}

let heads: { readonly of: readonly FamilyDef[]; readonly sorted: readonly FamilyDef[] } | undefined;

/** The registered families, longest head first (asked when parsing, not while the module loads). */
function headsLongestFirst(): readonly FamilyDef[] {
  const of = families();
  if (heads?.of !== of) heads = { of, sorted: [...of].sort((a, b) => b.head.length - a.head.length) };
  return heads.sorted;
}

/** Splits "a, {b, c}, [d]" at top-level commas. */
export function splitOperands(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '{' || ch === '[') depth++;
    if (ch === '}' || ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function specCite(fam: FamilyDef) {
  const key = (Object.keys(SPEC_FILES) as (keyof typeof SPEC_FILES)[]).find((k) => SPEC_FILES[k].file === fam.specFile)!;
  return cite(key, 'Syntax', fam.forms[0]!.syntax);
}

function operandChecks(fam: FamilyDef, q: Qualifiers, kinds: readonly OperandKind[], ops: readonly string[]): Violation[] {
  const out: Violation[] = [];
  const c = specCite(fam);
  const expected = kinds.filter((k) => k !== 'policy' || (q.hint ?? '') !== '');
  if (ops.length !== expected.length) {
    out.push({
      rule: `${fam.id}.operands.count`,
      text: `${fam.head} takes ${expected.length} operands (${expected.join(', ')}), this has ${ops.length}`,
      cite: c,
    });
    return out;
  }
  const lanes = (() => {
    try {
      return vectorLength(q.vec ?? '');
    } catch {
      return 1;
    }
  })();
  expected.forEach((k, i) => {
    const op = ops[i]!;
    if (k === 'tensor') {
      const coords = /\{([^{}]*)\}\s*\]$/.exec(op);
      const dims = Number((q.dim ?? '').replace('d', ''));
      if (dims && (!coords || splitOperands(coords[1]!).length !== dims)) {
        out.push({
          rule: `${fam.id}.operands.vector`,
          text: `operand ${i + 1} (tensorMap, tensorCoords) must end in a brace-enclosed list of ${dims} coordinates (.${q.dim}), got ${op}`,
          cite: c,
        });
      }
    }
    if (['a', 'dstMem', 'srcMem', 'mbar', 'tensor'].includes(k) && !/^\[.*\]$/.test(op)) {
      out.push({ rule: `${fam.id}.operands.address`, text: `operand ${i + 1} (${k}) is an address and must be written [${op}]`, cite: c });
    }
    if (['d', 'b', 'c'].includes(k) && lanes > 1 && !(k === 'd' && op === '_')) {
      const m = /^\{(.*)\}$/.exec(op);
      const n = m ? splitOperands(m[1]!).length : 1;
      if (n !== lanes) {
        out.push({ rule: `${fam.id}.operands.vector`, text: `operand ${i + 1} (${k}) must be a brace-enclosed vector of ${lanes}, got ${op}`, cite: c });
      }
    }
  });
  return out;
}

/**
 * "Did you mean" for a qualifier `tok` no PTX family has: the family's own values of the slots not
 * yet read that the grammar puts after the last one read (where the typo most likely stands), then
 * its other unread slots' values, those within a typo's reach only; where none is, the nearest of
 * every PTX qualifier.
 */
function suggestQualifiers(fam: FamilyDef, q: Readonly<Record<string, string>>, tok: string): string[] {
  const slots = fam.slots.filter((sl) => !sl.operand && !sl.descriptor);
  const last = Math.max(-1, ...slots.map((sl, i) => (sl.name in q ? i : -1)));
  const open = slots.filter((sl) => !(sl.name in q));
  const values = (ss: typeof slots) => ss.flatMap((sl) => sl.values.filter((v) => v !== ''));
  const next = values(open.filter((sl) => slots.indexOf(sl) > last));
  // the family's own within a typo's reach, where there are any; else the nearest of every qualifier
  const own = nearestRanked(tok, [next, values(open)], 3).filter((g) => withinReach(tok, g));
  return own.length ? own : nearestRanked(tok, [next, values(open), allTokens()], 3);
}

/**
 * Parses one instruction. Throws ParseError (with a column) for text that names no catalogued
 * family or a qualifier that PTX does not have; a qualifier that PTX has but the family does not
 * allow is parsed and reported as a violation instead.
 */
export function parseInstruction(text: string): ParsedInstruction {
  const { fam, q, operands } = parseQualifiers(text);
  const evaluation = evaluate(fam, q);
  const operandViolations = operands && evaluation.form ? operandChecks(fam, q, evaluation.form.operands, operands) : [];
  return {
    family: fam,
    q,
    ptx: spell(fam, q),
    id: variantId(fam, q),
    ...(operands ? { operands } : {}),
    evaluation,
    operandViolations,
    violations: [...evaluation.violations, ...operandViolations],
  };
}

/** parseInstruction's reading of the text (its family, qualifiers and operands), without judging them by the rules: it throws as parseInstruction does. */
function parseQualifiers(text: string): { fam: FamilyDef; q: Record<string, string>; operands: string[] | undefined } {
  let s = text.replace(/\/\/.*$/, '');
  const lead = s.length - s.trimStart().length;
  s = s.trim().replace(/;\s*$/, '');
  let col = lead;
  const guard = /^@!?\w+\s+/.exec(s);
  if (guard) {
    s = s.slice(guard[0].length);
    col += guard[0].length;
  }
  const ws = /\s/.exec(s);
  let opcode = ws ? s.slice(0, ws.index) : s;
  // values held outside the instruction (a tensor map's element type), written as id suffixes: (f32)
  const held: string[] = [];
  for (let m = /\(([\w:.]+)\)$/.exec(opcode); m && m[1] !== '_'; m = /\(([\w:.]+)\)$/.exec(opcode)) {
    held.unshift(m[1]!);
    opcode = opcode.slice(0, m.index);
  }
  const operandText = ws ? s.slice(ws.index).trim() : '';
  const fam = headsLongestFirst().find((f) => opcode === f.head || opcode.startsWith(`${f.head}.`));
  if (!fam) {
    const heads = families().map((f) => f.head);
    const guess = nearestWords(opcode.split('.').slice(0, 2).join('.'), heads, 2);
    throw new ParseError(`'${opcode}' is not an instruction of the catalog (${heads.join(', ')}); did you mean ${guess.join(' or ')}?`, col);
  }
  const vocab = vocabulary();
  const q: Record<string, string> = {};
  let pos = col + fam.head.length + 1;
  for (const tok of opcode
    .slice(fam.head.length + 1)
    .split('.')
    .filter((t, i, a) => t !== '' || i < a.length - 1)) {
    if (tok === '') throw new ParseError(`empty qualifier (two dots) in '${opcode}'`, pos);
    const own = fam.slots.filter((sl) => !sl.operand && !sl.descriptor && sl.values.includes(tok) && !(sl.name in q));
    const other = fam.slots.filter((sl) => !sl.operand && !sl.descriptor && !(sl.name in q) && (vocab.get(sl.name) ?? []).includes(tok));
    const slot = own[0] ?? other[0];
    if (!slot) {
      const rule = `${fam.id}.grammar.unknown-qualifier`;
      const holder = fam.slots.find((sl) => sl.descriptor && sl.values.includes(tok));
      if (holder)
        throw new ParseError(
          `'.${tok}' is not spelled in ${fam.head}: its .${holder.name} is held by ${holder.descriptor}; write it after the opcode in parentheses, e.g. '${fam.head}...(${tok})'`,
          pos,
          rule,
        );
      const taken = fam.slots.find((sl) => !sl.descriptor && (vocab.get(sl.name) ?? []).includes(tok));
      if (taken) throw new ParseError(`'${opcode}' has two .${taken.name} qualifiers ('.${q[taken.name]}' and '.${tok}')`, pos, rule);
      if (allTokens().includes(tok)) {
        throw new ParseError(
          `'.${tok}' is a PTX qualifier, but ${fam.head} has no qualifier of its kind (its slots: ${fam.slots
            .filter((x) => !x.operand)
            .map((x) => x.name)
            .join(', ')})`,
          pos,
          rule,
        );
      }
      const guesses = suggestQualifiers(fam, q, tok);
      const at = opcode.slice(0, pos - col);
      const respelled = guesses.filter((g) => withinReach(tok, g)).map((g) => `${at}${g}${opcode.slice(pos - col + tok.length)}`);
      throw new ParseError(`unknown qualifier '.${tok}' in '${opcode}'; did you mean ${guesses.map((t) => `.${t}`).join(', ')}?`, pos, rule, respelled);
    }
    q[slot.name] = tok;
    pos += tok.length + 1;
  }
  const descriptors = fam.slots.filter((sl) => sl.descriptor);
  if (held.length > descriptors.length) {
    throw new ParseError(
      descriptors.length
        ? `'${text.trim()}' gives ${held.length} values in parentheses; ${fam.head} takes ${descriptors.length} (${descriptors.map((d) => `${d.name}, held by ${d.descriptor}`).join('; ')})`
        : `'(${held.join(')(')})' after the opcode: ${fam.head} takes no value in parentheses (only a variant of an instruction whose operand holds its element type does, e.g. cp.reduce.async.bulk.tensor...bulk_group(f32))`,
      col,
    );
  }
  descriptors.forEach((d, i) => {
    if (held[i] !== undefined) q[d.name] = held[i]!;
  });
  for (const sl of fam.slots) q[sl.name] ??= '';
  const operands = operandText ? splitOperands(operandText) : undefined;
  if (operands && fam.slots.some((sl) => sl.name === 'd' && sl.operand) && operands[0] === '_') q.d = '_';
  return { fam, q, operands };
}

/** Per spelling, once: a report of 200,000 results has a few hundred instructions. */
const opAndTypeMemo = new Map<string, { readonly op: string; readonly type: string }>();

/**
 * The operation and element type of an instruction as the report's filters name them (`add`,
 * `f16x2`; `-` where the spelling has none), read by the grammar's parser: the op slot, or where a
 * family has none its instruction's last word (`multimem.st`: `st`). `id`: a result's id, whose
 * base (before `~`) is read when the spelling itself does not parse (a spelling neighbour that
 * writes a qualifier twice).
 */
export function opAndType(ptx: string, id?: string): { readonly op: string; readonly type: string } {
  const known = opAndTypeMemo.get(ptx);
  if (known) return known;
  // the qualifiers alone: what the rules make of them does not change the operation or type
  let p: { fam: FamilyDef; q: Record<string, string> } | undefined;
  for (const text of [ptx, id?.split('~')[0]]) {
    if (p || text === undefined) continue;
    try {
      p = parseQualifiers(text.replace(/\(_\)$/, ''));
    } catch {
      // not an instruction the catalog spells
    }
  }
  const found = p ? opTypeOf(p.fam, p.q) : Object.freeze({ op: '-', type: '-' });
  if (opAndTypeMemo.size < 100_000) opAndTypeMemo.set(ptx, found);
  return found;
}

type EntryFacts = { readonly ptx: string; readonly family: string; readonly kind: string; readonly q: Qualifiers };

/**
 * opAndType of a catalog entry's instruction from its qualifiers, without parsing it; undefined where
 * that may differ from the parse: a family holding a value outside the instruction (a tensor map's
 * type is not in its text) and a spelling neighbour (its text may not parse; its id is read then).
 * tests/catalog/op-and-type.test.ts holds it equal to opAndType for every other entry of four targets.
 */
export function entryOpAndType(e: EntryFacts): { readonly op: string; readonly type: string } | undefined {
  const fam = familyById(e.family);
  if (!fam || e.kind === 'spelling' || fam.slots.some((sl) => sl.descriptor)) return undefined;
  return opTypeOf(fam, e.q);
}

/** The report's operation and type of an instruction of `fam` with qualifiers `q` (an op-less family: the last word of its head). */
function opTypeOf(fam: FamilyDef, q: Qualifiers): { readonly op: string; readonly type: string } {
  const hasOp = fam.slots.some((sl) => sl.name === 'op');
  return Object.freeze({ op: q.op || (hasOp ? '-' : fam.head.split('.').at(-1)!), type: q.type || '-' });
}

/** What opAndType will answer for these entries' instructions, known now (a run's report asks it of every kept entry: 19,000 parses in a default CPU run). */
export function knowOpAndType(entries: readonly EntryFacts[]): void {
  for (const e of entries) {
    if (opAndTypeMemo.size >= 100_000) return;
    if (opAndTypeMemo.has(e.ptx)) continue;
    const known = entryOpAndType(e);
    if (known) opAndTypeMemo.set(e.ptx, known);
  }
}
