/**
 * Validation of vector-file cases, shared by every input form (YAML, fast YAML, JSON lines). A case
 * arrives as a plain value (what YAML or JSON parse to: objects, arrays, strings, numbers, null); a
 * problem names the path of the offending value (`['operands', 'b', 0]`) and a `Locator`, which the
 * form supplies, turns it into a line and column only when a problem is reported, so the pass path
 * never computes positions.
 */
import { type Citation, formatCitation } from '../catalog/cite.js';
import { EDITIONS, parseRange } from '../catalog/editions.js';
import { familyPlugin } from '../registry/index.js';
import { familyVariants } from '../catalog/enumerate.js';
import { ParseError, parseInstruction } from '../catalog/parse.js';
import { variantId } from '../catalog/spelling.js';
import { decodeNumber, floatBits } from '../numerics/encode.js';
import { type ElementFormat, type FloatFormat, elementFormat, joinLanes } from '../numerics/formats.js';
import { nearestWords } from '../util/nearest.js';
import type { Case, CaseExpect, CaseVariant, InputProblem } from './types.js';
import { NameSet } from './name-set.js';

export const NAME = /^[A-Za-z0-9_.-]+$/;
export const FILE_KEYS = ['instruction', 'cite', 'editions', 'cases'];
export const CASE_KEYS = ['name', 'instruction', 'memory', 'replicas', 'source', 'operands', 'expect', 'space'];

export type Path = readonly (string | number)[];

/** Where a value (or, with `asKey`, the key that names it) starts; `quoted` when it is a quoted string. */
export interface Located {
  readonly line: number;
  readonly col: number;
  readonly quoted: boolean;
}

/** Finds the value at a path of the current case (or, when the path does not exist, the deepest value that does). */
export interface Locator {
  locate(path: Path, asKey: boolean): Located;
}

/** A copy of `s` that does not keep a large source text alive (V8 slices share their parent's storage). */
export function own(s: string): string {
  return s.length < 13 ? s : (s + ' ').slice(0, -1);
}

/** Per-file state: where problems go, the file's defaults, and the names seen so far. */
export interface FileCtx {
  readonly file: string;
  readonly idFile: string;
  readonly problems: InputProblem[];
  loc: Locator;
  /**
   * Names seen in this file and the line of each, for the duplicate check. One entry per case:
   * fine up to a few million short names (roughly 100 bytes each), which bounds a file's memory.
   */
  readonly names: NameSet;
  /** The file's instruction (YAML `instruction:` at the top, a JSON-lines header line). */
  fileInfo?: VariantInfo | undefined;
  fileHasInstruction: boolean;
  cite?: string | undefined;
  /** What to tell a case that has no instruction (the forms say where it goes differently). */
  noInstruction: string;
  /** False in a validation pass: good cases are checked, not built (checkCase returns VALID). */
  build: boolean;
  /**
   * False in the streaming pass that follows a clean validation: names were found unique there, and
   * the set of names (the one cost that grows with the file) is not built again.
   */
  checkNames: boolean;
}

export function newFileCtx(
  file: string,
  idFile: string,
  loc: Locator,
  noInstruction = 'no instruction: for this case; give one at the top of the file or in the case',
): FileCtx {
  return { file, idFile, problems: [], loc, names: new NameSet(), fileHasInstruction: false, noInstruction, build: true, checkNames: true };
}

export function at(ctx: FileCtx, path: Path, message: string, colOffset = 0, asKey = false, quoteAdjust = false): void {
  const p = ctx.loc.locate(path, asKey);
  ctx.problems.push({ file: ctx.file, line: p.line, col: p.col + colOffset + (quoteAdjust && p.quoted ? 1 : 0), message: own(message) });
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * Plain values never hold `undefined` (JSON and YAML have no such value; YAML's empty value is null),
 * so a key whose value is undefined counts as absent: the fast YAML path fills a fixed-shape object
 * (every case key, undefined where the item has none), which keeps property reads monomorphic.
 */
const has = (o: Record<string, unknown>, k: string) => o[k] !== undefined;
const CASE_KEY_SET = new Set(CASE_KEYS);

function keysOf(ctx: FileCtx, map: Record<string, unknown>, path: Path, allowed: readonly string[], where: string): void {
  for (const k in map) {
    if (map[k] !== undefined && !allowed.includes(k))
      at(ctx, [...path, k], `unknown key '${k}' in ${where}; did you mean '${nearestWords(k, allowed, 1)[0]}'? (keys: ${allowed.join(', ')})`, 0, true);
  }
}

/** Exact bits of a number in a float format, or undefined if not representable. */
function exactFloatBits(f: FloatFormat, v: unknown): bigint | undefined {
  let x: number;
  if (typeof v === 'number') x = v;
  else if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v))
    x = Number(v); // plain hex in YAML (plainOf)
  else if (typeof v === 'string' && /^[-+]?\.?(inf|infinity)$/i.test(v)) x = v.startsWith('-') ? -Infinity : Infinity;
  else if (typeof v === 'string' && /^[-+]?\.?nan$/i.test(v)) return BigInt(f.canonicalNaN);
  else return undefined;
  if (f.bits === 64) return floatBits(f, x);
  if (!f.hasInf && !Number.isFinite(x)) return undefined;
  const bits = Number(floatBits(f, x));
  return Object.is(decodeNumber(f, bits), x) ? BigInt(bits) : undefined;
}

/** True when every character of `s` from index 2 on is a hex digit. */
function hexDigits(s: string): boolean {
  for (let i = 2; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return s.length > 2;
}

/** One element value: a hex string of exactly the element's digits, or a typed shorthand. */
function element(ctx: FileCtx, v: unknown, parent: Path, index: number, fmt: ElementFormat, what: string): bigint | undefined {
  const digits = fmt.bits >> 2;
  if (typeof v === 'string') {
    // the pass path: "0x" and exactly the digits (a validation pass does not need the value)
    if (v.length === digits + 2 && v.charCodeAt(0) === 48 && v.charCodeAt(1) === 120 && hexDigits(v)) return ctx.build ? BigInt(v) : 0n;
    const path = [...parent, index];
    const example = `0x${'0'.repeat(digits - 1)}1`;
    if (!/^0x[0-9a-fA-F]+$/.test(v)) {
      at(
        ctx,
        path,
        `${what}: '${v}' is not a hex bit pattern; write 0x and exactly ${digits} hex digits for .${fmt.name} (e.g. ${example}), or a typed shorthand like {${fmt.name}: 1.5}`,
      );
      return undefined;
    }
    at(ctx, path, `${what}: '${v}' has ${v.length - 2} hex digit(s); .${fmt.name} elements take exactly ${digits} (e.g. ${example})`);
    return undefined;
  }
  const path = [...parent, index];
  if (isObj(v)) {
    const ks = Object.keys(v);
    if (ks.length === 1) {
      const k = ks[0]!;
      if (k !== fmt.name) {
        at(ctx, path, `${what}: shorthand {${k}: ...} does not match the element type .${fmt.name}; write {${fmt.name}: value}`);
        return undefined;
      }
      const raw = v[k];
      const lanes = fmt.lanes === 1 ? [raw] : Array.isArray(raw) ? raw : undefined;
      if (!lanes || lanes.length !== fmt.lanes) {
        at(
          ctx,
          path,
          `${what}: .${fmt.name} packs ${fmt.lanes} lanes; write {${fmt.name}: [${Array(fmt.lanes).fill('v').join(', ')}]} (lane 0 first, in the low bits)`,
        );
        return undefined;
      }
      const out: bigint[] = [];
      for (const x of lanes) {
        if (fmt.lane.kind === 'int') {
          const lf = fmt.lane;
          // a plain hex scalar in YAML arrives as its text (vector-yaml.ts plainOf)
          const n =
            typeof x === 'number' && Number.isInteger(x) ? BigInt(x) : typeof x === 'string' && /^(?:-?\d+|0x[0-9a-fA-F]+)$/.test(x) ? BigInt(x) : undefined;
          const lo = lf.signed ? -(1n << BigInt(lf.bits - 1)) : 0n;
          const hi = lf.signed ? (1n << BigInt(lf.bits - 1)) - 1n : (1n << BigInt(lf.bits)) - 1n;
          if (n === undefined || n < lo || n > hi) {
            at(ctx, path, `${what}: ${JSON.stringify(x)} is not a .${lf.name} integer in [${lo}, ${hi}]`);
            return undefined;
          }
          out.push(n < 0n ? n + (1n << BigInt(lf.bits)) : n);
        } else {
          const b = exactFloatBits(fmt.lane, x);
          if (b === undefined) {
            at(ctx, path, `${what}: ${JSON.stringify(x)} is not exactly a .${fmt.lane.name} value; write the bit pattern in hex instead`);
            return undefined;
          }
          out.push(b);
        }
      }
      return joinLanes(fmt, out);
    }
  }
  at(ctx, path, `${what}: expected a hex string like 0x${'0'.repeat(digits - 1)}1 or a shorthand like {${fmt.name}: 1.5}`);
  return undefined;
}

/** A list of elements at `path` (`v` undefined: the key is missing, reported at its owner). */
function list(ctx: FileCtx, v: unknown, path: Path, fmt: ElementFormat, what: string, length?: number, lengthIs = 'one per vector lane'): bigint[] | undefined {
  if (!Array.isArray(v)) {
    const key = what.split(' ')[0];
    at(
      ctx,
      path,
      v !== undefined
        ? `${what} must be a list of elements, e.g. ["0x${'0'.repeat(fmt.bits / 4)}"]`
        : `${key}: is missing; add ${key}: ["0x${'0'.repeat(fmt.bits / 4)}"]`,
    );
    return undefined;
  }
  if (length !== undefined && v.length !== length) {
    at(ctx, path, `${what} has ${v.length} elements; this instruction takes ${length} (${lengthIs})`);
  }
  const out: bigint[] = new Array(v.length);
  let ok = true;
  for (let i = 0; i < v.length; i++) {
    const x = element(ctx, v[i], path, i, fmt, `${what}[${i}]`);
    if (x === undefined) ok = false;
    else out[i] = x;
  }
  return ok ? out : undefined;
}

/** A bulk range of `len` elements is 16 bytes or a multiple (cp.reduce.async.bulk's size operand); the family's sentence says why. */
function bulkSize(ctx: FileCtx, path: Path, len: number, fmt: ElementFormat, per: string, rule?: Citation): void {
  if ((len * fmt.bits) % 128 !== 0)
    at(
      ctx,
      path,
      `bulk size must be a multiple of 16 bytes: ${len} x ${fmt.bits / 8} bytes is not${rule ? ` (${formatCitation(rule)})` : ''}; use ${128 / fmt.bits} elements${per} or a multiple`,
    );
}

/** The sentence that sets a bulk family's size (its shape's length rule), if it names one. */
function bulkRule(v: CaseVariant): Citation | undefined {
  const len = familyPlugin(v.family).shape.length(v.q);
  return len.kind === 'bulk' ? len.rule : undefined;
}

/** Replica lists of `length` elements each, or (`length` undefined: a bulk range) of any one length. */
function replicaLists(ctx: FileCtx, v: unknown, path: Path, fmt: ElementFormat, what: string, length: number | undefined): bigint[][] | undefined {
  if (!Array.isArray(v) || v.length < 1 || v.length > 8) {
    at(ctx, path, `${what} must be a list of 1 to 8 replicas, each a list of ${length ?? 'the same number of'} element(s)`);
    return undefined;
  }
  const out: bigint[][] = [];
  let ok = true;
  for (let i = 0; i < v.length; i++) {
    const r = list(ctx, v[i], [...path, i], fmt, `${what}[${i}]`, length);
    if (!r) ok = false;
    else out.push(r);
  }
  return ok ? out : undefined;
}

export interface VariantInfo {
  readonly variant?: CaseVariant;
  readonly fmt?: ElementFormat;
  readonly lanes?: number;
  /** When the spelling is not a valid variant: the problem and its column offset (from the value's start). */
  readonly problem?: string;
  readonly col?: number;
  readonly quoteAdjust?: boolean;
}

/** Variants by spelling: a file names a handful, and parsing one is far dearer than checking a case. */
const VARIANTS = new Map<string, VariantInfo>();

function lanesOf(q: CaseVariant['q']): number {
  const v = q.vec ?? '';
  return v === '' ? 1 : Number(v.slice(1));
}

export function variantInfo(text: string): VariantInfo {
  let info = VARIANTS.get(text);
  if (info) return info;
  try {
    const p = parseInstruction(text);
    if (p.violations.length) {
      const v = p.violations[0]!;
      const valid = familyVariants(p.family).map((q) => variantId(p.family, q));
      info = { problem: `${text} is not a valid variant: ${v.rule}: ${v.text}; nearest valid spellings: ${nearestWords(p.id, valid, 3).join(', ')}`, col: 0 };
    } else {
      const variant: CaseVariant = { family: p.family.id, q: p.q, ptx: p.ptx, id: p.id };
      info = { variant, fmt: elementFormat(variant.q.type ?? ''), lanes: lanesOf(variant.q) };
    }
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    info = { problem: e.message, col: e.column, quoteAdjust: true };
  }
  if (VARIANTS.size >= 4096) VARIANTS.clear();
  VARIANTS.set(own(text), info);
  return info;
}

function variantOf(ctx: FileCtx, v: unknown, path: Path): VariantInfo | undefined {
  if (typeof v !== 'string') {
    at(ctx, path, 'instruction must be a PTX spelling without operands, e.g. atom.global.add.f32');
    return undefined;
  }
  const info = variantInfo(v);
  if (info.problem !== undefined) {
    // the value's position is its first character, the opening quote of a quoted scalar
    at(ctx, path, info.problem, info.col, false, info.quoteAdjust);
    return undefined;
  }
  return info;
}

const P_ROOT: Path = [];
const P_NAME: Path = ['name'];
const P_INSTRUCTION: Path = ['instruction'];
const P_MEMORY: Path = ['memory'];
const P_SOURCE: Path = ['source'];
const P_REPLICAS: Path = ['replicas'];
const P_OPERANDS: Path = ['operands'];
const P_OPERAND: Record<'b' | 'c', Path> = { b: ['operands', 'b'], c: ['operands', 'c'] };
const P_SPACE: Path = ['space'];
const P_EXPECT: Path = ['expect'];

/** Operand b or c of a case. */
function need(ctx: FileCtx, opMap: Record<string, unknown> | undefined, key: 'b' | 'c', info: VariantInfo): bigint[] | undefined {
  const v = opMap?.[key];
  const fmt = info.fmt!;
  if (v === undefined) {
    at(
      ctx,
      P_OPERANDS,
      `${info.variant!.ptx} needs operand ${key}: add operands: { ${key}: [${Array(info.lanes!)
        .fill(`"0x${'0'.repeat(fmt.bits / 4)}"`)
        .join(', ')}] }`,
    );
    return undefined;
  }
  return list(ctx, v, P_OPERAND[key], fmt, key === 'b' ? 'operands.b' : 'operands.c', info.lanes);
}

/** What a validation pass (FileCtx.build false) returns for a good case. */
export const VALID: Case = Object.freeze({
  id: '',
  variant: { family: '', q: {}, ptx: '', id: '' },
  input: {},
  origin: { kind: 'vectors', file: '', line: 0, name: '' },
}) as Case;

const scalar = (v: unknown) => v !== undefined && (typeof v !== 'object' || v === null);

/** The file-level keys (`instruction:`, `cite:`) of a YAML root map or a JSON-lines header line. */
export function checkHeader(ctx: FileCtx, root: Record<string, unknown>, allowed: readonly string[] = FILE_KEYS, where = 'the file'): void {
  keysOf(ctx, root, [], allowed, where);
  ctx.fileHasInstruction = has(root, 'instruction');
  const info = ctx.fileHasInstruction ? variantOf(ctx, root.instruction, ['instruction']) : undefined;
  ctx.fileInfo = info;
  ctx.cite = scalar(root.cite) ? own(String(root.cite)) : undefined;
  if (has(root, 'editions') && !(scalar(root.editions) && parseRange(String(root.editions)))) {
    at(
      ctx,
      ['editions'],
      `editions: '${String(root.editions)}' is not a range of the catalog's PTX ISA editions (${EDITIONS.join(', ')}); write e.g. "9.1-9.3" or "9.4": the editions whose text the file's expect: values follow`,
    );
  }
}

/**
 * Validates one case and builds it, or reports its problems (and returns undefined). `line` is the
 * line of the case (its first key), `nameLine` the line of its name: value.
 */
export function checkCase(ctx: FileCtx, item: unknown, line: number, nameLine: number): Case | undefined {
  if (!isObj(item)) {
    at(ctx, P_ROOT, 'each case is a map with name:, memory: or replicas:, operands:');
    return undefined;
  }
  const before = ctx.problems.length;
  for (const k in item) {
    if (!CASE_KEY_SET.has(k) && item[k] !== undefined) {
      keysOf(ctx, item, P_ROOT, CASE_KEYS, 'a case');
      break;
    }
  }
  const nameV = item.name;
  const name = scalar(nameV) ? String(nameV) : undefined;
  let nm = '';
  if (!name) at(ctx, P_ROOT, 'case without name:; give each case a name of letters, digits, _ . -');
  else if (!NAME.test(name)) at(ctx, P_NAME, `case name '${name}' may use only letters, digits, _ . and -`);
  else if (!ctx.checkNames) nm = own(name);
  else {
    const first = ctx.names.get(name);
    if (first !== undefined) at(ctx, P_NAME, `duplicate case name '${name}' (first at line ${first}); names must be unique in a file`);
    else ctx.names.set((nm = own(name)), nameLine);
  }
  const hasInstr = has(item, 'instruction');
  const info = hasInstr ? variantOf(ctx, item.instruction, P_INSTRUCTION) : ctx.fileInfo;
  if (!info?.variant) {
    if (!hasInstr && !ctx.fileHasInstruction) at(ctx, P_ROOT, ctx.noInstruction);
    return undefined;
  }
  const variant = info.variant;
  const fmt = info.fmt!;
  const n = info.lanes!;
  const ops = item.operands;
  if (ops !== undefined && !isObj(ops)) at(ctx, P_OPERANDS, 'operands: is a map like { b: [...] } (and c: for cas)');
  const opMap = isObj(ops) ? ops : undefined;
  if (opMap) {
    for (const k in opMap) {
      if (k !== 'b' && k !== 'c') {
        keysOf(ctx, opMap, P_OPERANDS, ['b', 'c'], 'operands');
        break;
      }
    }
  }
  const input: { memory?: bigint[]; replicas?: bigint[][]; b?: bigint[]; c?: bigint[]; source?: bigint[]; space?: 'global' | 'shared' } = {};
  const fam = variant.family;
  const takes = familyPlugin(fam).shape.inputs(variant.q);
  if (takes.includes('replicas')) {
    if (has(item, 'memory')) at(ctx, P_MEMORY, `${fam} cases give replicas: (one memory list per replica) instead of memory:`);
    const bulk = takes.includes('source');
    const r = replicaLists(ctx, item.replicas, P_REPLICAS, fmt, 'replicas', bulk ? undefined : n);
    if (r) input.replicas = r;
    if (bulk && r) {
      // a bulk range: the destination on each GPU, and the source, all of one length
      const len = r[0]!.length;
      const odd = r.findIndex((x) => x.length !== len);
      if (odd > 0)
        at(ctx, [...P_REPLICAS, odd], `replicas[${odd}] has ${r[odd]!.length} elements and replicas[0] ${len}; every replica holds the same destination range`);
      else bulkSize(ctx, P_REPLICAS, len, fmt, ' per replica', bulkRule(variant));
    }
    if (bulk) {
      const s = list(ctx, item.source, P_SOURCE, fmt, 'source (shared-memory elements)', input.replicas?.[0]?.length, 'as many as the destination range');
      if (s) input.source = s;
    }
    if (takes.includes('b')) {
      const b = need(ctx, opMap, 'b', info);
      if (b) input.b = b;
    }
  } else if (takes.includes('source')) {
    const m = list(ctx, item.memory, P_MEMORY, fmt, 'memory (destination elements)');
    const s = list(ctx, item.source, P_SOURCE, fmt, 'source (shared-memory elements)', m?.length, 'as many as the destination range');
    if (m) bulkSize(ctx, P_MEMORY, m.length, fmt, '', bulkRule(variant));
    if (m) input.memory = m;
    if (s) input.source = s;
  } else {
    const m = list(ctx, item.memory, P_MEMORY, fmt, 'memory', n);
    if (m) input.memory = m;
    const b = need(ctx, opMap, 'b', info);
    if (b) input.b = b;
    if (variant.q.op === 'cas') {
      const c = need(ctx, opMap, 'c', info);
      if (c) input.c = c;
    }
  }
  // an operand the instruction does not take is a mistake in the file, not something to ignore
  if (opMap) {
    const extra = (['b', 'c'] as const).filter((k) => has(opMap, k) && !(k === 'c' ? variant.q.op === 'cas' && takes.includes('c') : takes.includes('b')));
    if (extra.length)
      at(
        ctx,
        P_OPERANDS,
        `operands: ${extra.join(', ')} ${extra.length > 1 ? 'are' : 'is'} not an operand of ${variant.ptx ?? fam}${takes.includes('source') ? ` (a bulk case gives ${takes.includes('replicas') ? 'replicas:' : 'memory:'} and source:)` : variant.q.op === 'cas' ? '' : ' (c is the swap value of cas only)'}; remove it`,
      );
  }
  const sp = item.space;
  if (sp !== undefined) {
    const v = scalar(sp) ? String(sp) : '';
    if (v !== 'global' && v !== 'shared') at(ctx, P_SPACE, `space: is 'global' or 'shared' (where generic addressing lands), not '${v}'`);
    else input.space = v;
  }
  let expect: CaseExpect | undefined;
  const ex = item.expect;
  if (ex !== undefined) {
    if (!isObj(ex)) at(ctx, P_EXPECT, 'expect: is a map with memory:, returned: or replicas:');
    else {
      keysOf(ctx, ex, P_EXPECT, ['memory', 'returned', 'replicas'], 'expect');
      const e: { memory?: bigint[]; returned?: bigint[]; replicas?: bigint[][] } = {};
      if (has(ex, 'memory')) e.memory = list(ctx, ex.memory, ['expect', 'memory'], fmt, 'expect.memory', input.memory?.length);
      if (has(ex, 'returned')) {
        if (!familyPlugin(fam).shape.returns(variant.q)) at(ctx, ['expect', 'returned'], `${fam} returns nothing; expect memory: (or replicas:) instead`);
        else e.returned = list(ctx, ex.returned, ['expect', 'returned'], fmt, 'expect.returned', n);
      }
      if (has(ex, 'replicas'))
        e.replicas = replicaLists(ctx, ex.replicas, ['expect', 'replicas'], fmt, 'expect.replicas', takes.includes('source') ? input.source?.length : n);
      expect = e;
    }
  }
  if (ctx.problems.length > before || !name) return undefined;
  if (!ctx.build) return VALID;
  const c: { -readonly [K in keyof Case]: Case[K] } = {
    id: `${variant.id}/${ctx.idFile}:${nm}`,
    variant,
    input,
    origin: { kind: 'vectors', file: ctx.idFile, line, name: nm },
  };
  if (expect) c.expect = expect;
  if (ctx.cite !== undefined) c.cite = ctx.cite;
  return c;
}
