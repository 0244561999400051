/**
 * YAML vector files, read piecewise. A file in the simple block layout (top-level `instruction:`,
 * `cite:`, then `cases:` as a block list whose items all start `- ` at one indentation) is split at
 * its list items and each item is parsed alone: an item of the common case shape straight into a
 * packed block (packed.ts), else by a hand-written parser for the common one-line
 * forms (`key: value`, `key: [ "0x..", ... ]`, `key: { b: [...] }`), and by the `yaml` package for
 * anything else. Either way an item becomes the same plain value, and a problem is located by
 * parsing the item with the `yaml` package (only then) and walking to the offending node, with line
 * numbers offset to the real file. A file that is not in that layout, or (small files only) whose
 * items do not parse on their own, is parsed as one document, as long as it is small.
 */
import { type Document, LineCounter, type Node, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { type CaseBatch, CaseSink, type ListSlot, type PackFields, nameHash, newPackFields, packItem, resetPackFields, setList } from './packed.js';
import type { Case } from './types.js';
import { CASE_KEYS, type FileCtx, type Located, type Locator, type Path, at, checkCase, checkHeader, newFileCtx, own } from './vector-check.js';

/** Files up to this size may be parsed as one document when they are not in the simple layout. */
export const WHOLE_DOC_LIMIT = 4 * 1024 * 1024;
/** The header (everything before `cases:`) of a big file may be this long. */
const HEADER_LIMIT = 1024 * 1024;

const YAML_OPTS = { prettyErrors: false, uniqueKeys: true } as const;

function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** A yaml node as a plain value (what the checks read); aliases resolve, to a bounded depth. */
export function plainOf(n: unknown, doc: Document | undefined, depth = 0): unknown {
  if (n === null || n === undefined || depth > 64) return null;
  if (isScalar(n)) return n.value;
  if (isSeq(n)) return n.items.map((x) => plainOf(x, doc, depth + 1));
  if (isMap(n)) {
    const o: Record<string, unknown> = {};
    for (const p of n.items) setKey(o, isScalar(p.key) ? String(p.key.value) : '?', plainOf(p.value, doc, depth + 1));
    return o;
  }
  if (isAlias(n) && doc) return plainOf(n.resolve(doc), doc, depth + 1);
  return null;
}

/** Where a path leads in a yaml node (the deepest node that exists on the way). */
function nodeAt(root: unknown, path: Path, asKey: boolean): Node | undefined {
  let cur = root as Node | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isMap(cur) && typeof seg === 'string') {
      const pair = cur.items.find((p) => (isScalar(p.key) ? String(p.key.value) : '?') === seg);
      if (!pair) break;
      if ((i === path.length - 1 && asKey) || pair.value === null || pair.value === undefined) return pair.key as Node;
      cur = pair.value as Node;
    } else if (isSeq(cur) && typeof seg === 'number' && seg < cur.items.length) {
      cur = cur.items[seg] as Node;
    } else break;
  }
  return cur;
}

function locatedIn(node: Node | undefined, lc: LineCounter, baseLine: number): Located {
  const off = node?.range?.[0] ?? 0;
  const p = lc.linePos(off);
  const quoted = isScalar(node) && (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE');
  return { line: baseLine + p.line - 1, col: p.col, quoted };
}

/** Locates within one parsed yaml node (a case item or a file root). */
class NodeLocator implements Locator {
  constructor(
    public node: unknown,
    public lc: LineCounter,
    public baseLine: number,
  ) {}
  locate(path: Path, asKey: boolean): Located {
    return locatedIn(nodeAt(this.node, path, asKey), this.lc, this.baseLine);
  }
}

/** Locates within an item the fast parser read: parses the item with the yaml package on demand. */
class ChunkLocator implements Locator {
  text = '';
  s = 0;
  e = 0;
  baseLine = 1;
  locate(path: Path, asKey: boolean): Located {
    const lc = new LineCounter();
    const doc = parseDocument(this.text.slice(this.s, this.e), { ...YAML_OPTS, lineCounter: lc });
    const seq = doc.contents;
    const item = isSeq(seq) ? seq.items[0] : seq;
    return locatedIn(nodeAt(item, path, asKey), lc, this.baseLine);
  }
}

// ---------------------------------------------------------------------------------------------
// The fast path: one list item of the simple forms, or undefined (the yaml package then reads it).

const SP = 32;
const NL = 10;
const CR = 13;

let T = '';
let P = 0;
let E = 0;

const isKeyStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isKeyChar = (c: number) => isKeyStart(c) || (c >= 48 && c <= 57);
const eol = (p: number) => p >= E || T.charCodeAt(p) === NL || (T.charCodeAt(p) === CR && (p + 1 >= E || T.charCodeAt(p + 1) === NL));

function skipSpaces(): void {
  while (P < E && T.charCodeAt(P) === SP) P++;
}

/** Keys a case uses (and the element-format shorthands), matched without allocating a string. */
const KNOWN = ['name', 'instruction', 'memory', 'operands', 'b', 'c', 'replicas', 'source', 'expect', 'space', 'returned'];

/** A plain key ([A-Za-z_][A-Za-z0-9_]*) or a double-quoted one without escapes. */
function readKey(): string | undefined {
  const c = T.charCodeAt(P);
  if (c === 34) {
    const k = readQuoted();
    return k === '__proto__' ? undefined : k;
  }
  if (!isKeyStart(c)) return undefined;
  const s = P++;
  while (P < E && isKeyChar(T.charCodeAt(P))) P++;
  const len = P - s;
  for (let i = 0; i < KNOWN.length; i++) {
    const k = KNOWN[i]!;
    if (k.length === len && T.startsWith(k, s)) return k;
  }
  const k = T.slice(s, P);
  return k === '__proto__' ? undefined : k;
}

/** A double-quoted string on one line without escapes. */
function readQuoted(): string | undefined {
  const s = ++P;
  for (; P < E; P++) {
    const c = T.charCodeAt(P);
    if (c === 34) return T.slice(s, P++);
    if (c === 92 || c === NL || c === CR) return undefined;
  }
  return undefined;
}

const RESERVED = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

/** Recent instruction spellings: the same few repeat on every case, and reusing one string skips a slice and a hash. */
const RECENT: string[] = [];

/**
 * The plain scalar T[s, e) if it resolves the same under every reading, else undefined: a word
 * ([A-Za-z][A-Za-z0-9_.-]*, and ':' in block context, not null/true/false) or a decimal int or float.
 */
function plainAt(s: number, e: number, block: boolean, intern: boolean): unknown {
  const c0 = T.charCodeAt(s);
  if ((c0 >= 97 && c0 <= 122) || (c0 >= 65 && c0 <= 90)) {
    for (let i = s + 1; i < e; i++) {
      const c = T.charCodeAt(i);
      if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45 || c === 40 || c === 41 || (c === 58 && block))) return undefined;
    }
    if (T.charCodeAt(e - 1) === 58) return undefined;
    const len = e - s;
    if (intern) {
      for (let i = 0; i < RECENT.length; i++) {
        const r = RECENT[i]!;
        if (r.length === len && T.startsWith(r, s)) return r;
      }
    }
    const w = T.slice(s, e);
    if ((len === 4 || len === 5) && RESERVED.test(w)) return undefined;
    if (intern) {
      if (RECENT.length >= 16) RECENT.pop();
      RECENT.unshift(own(w));
    }
    return w;
  }
  const w = T.slice(s, e);
  if (!NUMBER.test(w) || w === '-0') return undefined;
  return w.includes('.') ? Number.parseFloat(w) : Number(w);
}

const FAIL = Symbol('fail');

function flowValue(depth = 0): unknown {
  if (depth > 32) return FAIL;
  const c = T.charCodeAt(P);
  if (c === 91 /* [ */) {
    P++;
    skipSpaces();
    const out: unknown[] = [];
    if (T.charCodeAt(P) === 93) {
      P++;
      return out;
    }
    for (;;) {
      const v = flowValue(depth + 1);
      if (v === FAIL) return FAIL;
      out.push(v);
      skipSpaces();
      const d = T.charCodeAt(P++);
      if (d === 93) return out;
      if (d !== 44) return FAIL;
      skipSpaces();
      if (T.charCodeAt(P) === 93) return FAIL; // a trailing comma: leave it to the yaml package
    }
  }
  if (c === 123 /* { */) {
    P++;
    skipSpaces();
    const out: Record<string, unknown> = {};
    if (T.charCodeAt(P) === 125) {
      P++;
      return out;
    }
    for (;;) {
      const k = readKey();
      if (k === undefined || T.charCodeAt(P) !== 58 || T.charCodeAt(P + 1) !== SP || k in out) return FAIL;
      P += 2;
      skipSpaces();
      const v = flowValue(depth + 1);
      if (v === FAIL) return FAIL;
      out[k] = v;
      skipSpaces();
      const d = T.charCodeAt(P++);
      if (d === 125) return out;
      if (d !== 44) return FAIL;
      skipSpaces();
      if (T.charCodeAt(P) === 125) return FAIL;
    }
  }
  if (c === 34) {
    const s = readQuoted();
    return s === undefined ? FAIL : s;
  }
  // a plain scalar in flow context: up to , ] } (no ':' '#' '[' '{' inside)
  const s = P;
  for (; P < E; P++) {
    const d = T.charCodeAt(P);
    if (d === 44 || d === 93 || d === 125) break;
    if (d === NL || d === CR || d === 58 || d === 35 || d === 91 || d === 123 || d === 9) return FAIL;
  }
  let e = P;
  while (e > s && T.charCodeAt(e - 1) === SP) e--;
  if (e === s) return FAIL;
  const v = plainAt(s, e, false, false);
  return v === undefined ? FAIL : v;
}

/** After a value: spaces, then the end of the line or a comment. */
function endOfLine(): boolean {
  const s = P;
  skipSpaces();
  if (eol(P)) return true;
  return T.charCodeAt(P) === 35 && P > s;
}

/** Moves P to the start of the next line (or E). */
function nextLine(): void {
  const nl = T.indexOf('\n', P);
  P = nl < 0 || nl >= E ? E : nl + 1;
}

/** A case item as the fast path reads it: every case key, undefined where absent (one shape for all). */
class FastCase {
  name: unknown = undefined;
  instruction: unknown = undefined;
  memory: unknown = undefined;
  replicas: unknown = undefined;
  source: unknown = undefined;
  operands: unknown = undefined;
  expect: unknown = undefined;
  space: unknown = undefined;
}
const CASE_KEY_SET = new Set(CASE_KEYS);

export interface FastItem {
  readonly value: Record<string, unknown>;
  /** Line of the name: key, counted from the item's first line (0). */
  readonly nameLine: number;
  /** Lines the item spans. */
  readonly lines: number;
}

/** Parses the list item text[s, e) (its first line starts with `indent` spaces and `- `), or gives up. */
export function fastItem(text: string, s: number, e: number, indent: number): FastItem | undefined {
  T = text;
  E = e;
  P = s + indent + 1;
  if (T.charCodeAt(P) !== SP) return undefined;
  skipSpaces();
  const keyCol = P - s;
  const out = new FastCase() as unknown as Record<string, unknown>;
  let nameLine = 0;
  let line = 0;
  let first = true;
  while (P < E) {
    if (!first) {
      // a continuation line: blank, a comment, or a key at exactly the item's key column
      const ls = P;
      skipSpaces();
      if (eol(P) || T.charCodeAt(P) === 35) {
        nextLine();
        line++;
        continue;
      }
      if (P - ls !== keyCol) return undefined;
    }
    first = false;
    if (!isKeyStart(T.charCodeAt(P))) return undefined;
    const k = readKey();
    // only the keys of a case, each once (the yaml package reports anything else)
    if (k === undefined || T.charCodeAt(P) !== 58 || T.charCodeAt(P + 1) !== SP || !CASE_KEY_SET.has(k) || out[k] !== undefined) return undefined;
    P += 2;
    skipSpaces();
    const c = T.charCodeAt(P);
    let v: unknown;
    if (c === 91 || c === 123 || c === 34) {
      v = flowValue();
      if (v === FAIL || !endOfLine()) return undefined;
    } else {
      if (eol(P) || c === 35) return undefined; // an empty value, or a nested block: the yaml package
      const vs = P;
      let ve = P;
      for (; P < E; P++) {
        const d = T.charCodeAt(P);
        if (d === NL || d === CR) break;
        if (d === 35 && T.charCodeAt(P - 1) === SP) break;
        if (d === 9) return undefined;
      }
      ve = P;
      while (ve > vs && T.charCodeAt(ve - 1) === SP) ve--;
      v = ve > vs ? plainAt(vs, ve, true, k === 'instruction') : undefined;
      if (v === undefined || !(T.charCodeAt(P) === 35 || eol(P))) return undefined;
    }
    out[k] = v;
    if (k === 'name') nameLine = line;
    nextLine();
    line++;
  }
  return { value: out, nameLine, lines: line };
}


// ---------------------------------------------------------------------------------------------
// The packed path: an item of the common shape, every line `key: value` at the key column, read
// straight into PF (then packItem checks and writes it). Anything else: undefined.

const PF: PackFields = newPackFields();

/** A plain word at t[s, e) that YAML reads as exactly that string ([A-Za-z][A-Za-z0-9_.:-]*, no reserved word, no trailing ':'). */
function plainWord(t: string, s: number, e: number): boolean {
  const c0 = t.charCodeAt(s);
  if (!((c0 >= 97 && c0 <= 122) || (c0 >= 65 && c0 <= 90))) return false;
  for (let i = s + 1; i < e; i++) {
    const c = t.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45 || c === 58)) return false;
  }
  if (t.charCodeAt(e - 1) === 58) return false;
  const len = e - s;
  return !((len === 4 || len === 5) && RESERVED.test(t.slice(s, e)));
}

/** The recent instruction words (the same few on every item): reusing one skips a slice. */
const RECENT_WORDS: string[] = [];

/** A scalar value t[s, e) (trailing spaces already cut): a plain word or a double-quoted string without escapes. */
function scalarAt(t: string, s: number, e: number, intern: boolean): string | undefined {
  if (t.charCodeAt(s) === 34) {
    if (e - s < 2 || t.charCodeAt(e - 1) !== 34) return undefined;
    for (let i = s + 1; i < e - 1; i++) {
      const c = t.charCodeAt(i);
      if (c === 34 || c === 92 || c < 32) return undefined;
    }
    return t.slice(s + 1, e - 1);
  }
  if (!plainWord(t, s, e)) return undefined;
  if (intern) {
    const len = e - s;
    for (let i = 0; i < RECENT_WORDS.length; i++) {
      const r = RECENT_WORDS[i]!;
      if (r.length === len && t.startsWith(r, s)) return r;
    }
    const w = own(t.slice(s, e));
    if (RECENT_WORDS.length >= 16) RECENT_WORDS.pop();
    RECENT_WORDS.unshift(w);
    return w;
  }
  return t.slice(s, e);
}

/** The end of the hex list at t[p] (its syntax is checked when it is read), or -1. */
function listEndAt(t: string, p: number, e: number): number {
  if (t.charCodeAt(p) !== 91) return -1;
  const q = t.indexOf(']', p);
  return q < 0 || q >= e ? -1 : q + 1;
}

/** After a flow key at t[p] (plain `b` or `"b"`): which key (1 b, 2 c, 3 memory, 4 returned) and where its value starts. */
let flowKey = 0;
function flowKeyAt(t: string, p: number, expect: boolean): number {
  let q = p;
  const quoted = t.charCodeAt(q) === 34;
  if (quoted) q++;
  const s = q;
  while (isKeyChar(t.charCodeAt(q))) q++;
  const len = q - s;
  if (quoted) {
    if (t.charCodeAt(q) !== 34) return -1;
    q++;
  }
  flowKey = 0;
  if (!expect && len === 1) flowKey = t.charCodeAt(s) === 98 ? 1 : t.charCodeAt(s) === 99 ? 2 : 0;
  else if (expect && len === 6 && t.startsWith('memory', s)) flowKey = 3;
  else if (expect && len === 8 && t.startsWith('returned', s)) flowKey = 4;
  if (flowKey === 0 || t.charCodeAt(q) !== 58 || t.charCodeAt(q + 1) !== SP) return -1;
  q += 2;
  while (t.charCodeAt(q) === SP) q++;
  return q;
}

/** `{ b: [..], c: [..] }` or `{ memory: [..], returned: [..] }` at t[p], lists recorded in PF; the end, or -1. */
function flowMap(t: string, p: number, e: number, expect: boolean): number {
  if (t.charCodeAt(p) !== 123) return -1;
  p++;
  while (t.charCodeAt(p) === SP) p++;
  for (;;) {
    const at = flowKeyAt(t, p, expect);
    if (at < 0) return -1;
    const q = listEndAt(t, at, e);
    if (q < 0) return -1;
    if (!setList(PF, flowKey as ListSlot, at)) return -1;
    p = q;
    while (t.charCodeAt(p) === SP) p++;
    const d = t.charCodeAt(p);
    if (d === 125) return p + 1;
    if (d !== 44) return -1;
    p++;
    while (t.charCodeAt(p) === SP) p++;
  }
}

/** Result of packScan: the line (from the item's first, 0) of its name: key, and the lines it spans. */
let packNameLine = 0;
let packLines = 0;

/** From t[p] (after a value): spaces, then an optional comment (a '#' after a space), then the end of the line; the next line's start, or -1. */
function lineEndAt(t: string, p: number, e: number): number {
  const s = p;
  while (p < e && t.charCodeAt(p) === SP) p++;
  if (p >= e) return p;
  let c = t.charCodeAt(p);
  if (c === 35) {
    if (p === s) return -1;
    const nl = t.indexOf('\n', p);
    return nl < 0 || nl >= e ? e : nl + 1;
  }
  if (c === CR) c = t.charCodeAt(++p);
  return c === NL ? p + 1 : -1;
}

/** Whether t[p, e) from a line's first non-space character is blank or a comment (the line holds nothing). */
function emptyLineAt(t: string, p: number, e: number): boolean {
  if (p >= e) return true;
  const c = t.charCodeAt(p);
  return c === NL || c === 35 || (c === CR && t.charCodeAt(p + 1) === NL);
}

/** The start of the line after t[p] (the item's end when there is none). */
function nextLineAt(t: string, p: number, e: number): number {
  const nl = t.indexOf('\n', p);
  return nl < 0 || nl >= e ? e : nl + 1;
}

/**
 * A block map under `operands:` or `expect:` (the key's line ended at p): lines indented past keyCol,
 * all at one column, each `b: [..]`/`c: [..]` (or `memory: [..]`/`returned: [..]`), blank lines and
 * comments between; lists recorded in PF. The start of the first line after the map, or -1. Counts
 * its lines into packLines.
 */
function blockMap(t: string, p: number, e: number, keyCol: number, expect: boolean): number {
  let col = -1;
  let n = 0;
  while (p < e) {
    const ls = p;
    while (p < e && t.charCodeAt(p) === SP) p++;
    if (emptyLineAt(t, p, e)) {
      p = nextLineAt(t, p, e);
      blockLines++;
      continue;
    }
    const ind = p - ls;
    if (ind <= keyCol) {
      p = ls;
      break;
    }
    if (col < 0) col = ind;
    else if (ind !== col) return -1;
    const at = flowKeyAt(t, p, expect);
    if (at < 0) return -1;
    const q = listEndAt(t, at, e);
    if (q < 0 || !setList(PF, flowKey as ListSlot, at)) return -1;
    p = lineEndAt(t, q, e);
    if (p < 0) return -1;
    blockLines++;
    n++;
  }
  return n > 0 ? p : -1;
}
let blockLines = 0;

/**
 * Scans the list item t[s, e) (first line: `indent` spaces and `- `) into PF when it has the packed
 * shape: every line blank, a comment, or `key: value` at the key column (a trailing comment allowed),
 * keys of a case each once in any order, values plain words, double-quoted strings without escapes,
 * hex lists, and maps of hex lists in flow (`{ b: [..] }`) or block style (`expect:` with
 * `memory: [..]` and `returned: [..]` on the lines under it).
 */
function packScan(t: string, s: number, e: number, indent: number): boolean {
  resetPackFields(PF, SCRATCH);
  packName = undefined;
  let p = s + indent + 1;
  if (t.charCodeAt(p) !== SP) return false;
  while (t.charCodeAt(p) === SP) p++;
  const keyCol = p - s;
  let line = 0;
  let first = true;
  while (p < e) {
    if (!first) {
      const ls = p;
      while (p < e && t.charCodeAt(p) === SP) p++;
      if (emptyLineAt(t, p, e)) {
        p = nextLineAt(t, p, e);
        line++;
        continue;
      }
      if (p - ls !== keyCol) return false;
    }
    first = false;
    // the key
    const ks = p;
    while (isKeyChar(t.charCodeAt(p))) p++;
    const klen = p - ks;
    if (klen === 0 || t.charCodeAt(p) !== 58) return false;
    p++;
    const k0 = t.charCodeAt(ks);
    const inner = (klen === 8 && k0 === 111 && t.startsWith('operands', ks)) || (klen === 6 && k0 === 101 && t.startsWith('expect', ks));
    if (inner) {
      // `operands:`/`expect:` ending its line: a block map under it
      const after = lineEndAt(t, p, e);
      if (after >= 0) {
        const ex = k0 === 101;
        if (ex ? PF.expect : PF.operands) return false;
        if (ex) PF.expect = true;
        else PF.operands = true;
        blockLines = 0;
        p = blockMap(t, after, e, keyCol, ex);
        if (p < 0) return false;
        line += 1 + blockLines;
        continue;
      }
    }
    if (t.charCodeAt(p) !== SP) return false;
    p++;
    while (t.charCodeAt(p) === SP) p++;
    let q: number;
    if (klen === 6 && k0 === 109 && t.startsWith('memory', ks)) {
      if (PF.memory >= 0) return false;
      PF.memory = p;
      q = listEndAt(t, p, e);
    } else if (inner && k0 === 111) {
      if (PF.operands) return false;
      PF.operands = true;
      q = flowMap(t, p, e, false);
    } else if (inner) {
      if (PF.expect) return false;
      PF.expect = true;
      q = flowMap(t, p, e, true);
    } else {
      const which = klen === 4 && t.startsWith('name', ks) ? 1 : klen === 11 && t.startsWith('instruction', ks) ? 2 : klen === 5 && t.startsWith('space', ks) ? 3 : 0;
      if (which === 0) return false;
      // a scalar to the end of the line or a comment (' #'; no tab)
      const vs = p;
      while (p < e) {
        const c = t.charCodeAt(p);
        if (c === NL || c === CR || c === 9 || (c === 35 && t.charCodeAt(p - 1) === SP)) break;
        p++;
      }
      let ve = p;
      while (ve > vs && t.charCodeAt(ve - 1) === SP) ve--;
      if (ve === vs || (p < e && t.charCodeAt(p) === 9)) return false;
      const v = scalarAt(t, vs, ve, which === 2);
      if (v === undefined) return false;
      if (which === 1) {
        if (packName !== undefined) return false;
        packName = v;
        packNameLine = line;
      } else if (which === 2) {
        if (PF.instruction !== undefined) return false;
        PF.instruction = v;
      } else {
        if (PF.space !== undefined) return false;
        PF.space = v;
      }
      q = ve;
    }
    if (q < 0) return false;
    p = lineEndAt(t, q, e);
    if (p < 0) return false;
    line++;
  }
  packLines = line;
  return toBytes(t);
}

/** The bytes the packed checks read (packed.ts works on bytes; a YAML item is a string). */
let SCRATCH = new Uint8Array(1 << 12);
let packName: string | undefined;

/**
 * Copies what packScan found into SCRATCH: the name's char codes, and each list from its '[' to its
 * ']'; PF's offsets then point into SCRATCH. A char code over 255 is written as 0, which no name or
 * list accepts (the general path then reads the item).
 */
function toBytes(t: string): boolean {
  const name = packName;
  if (name === undefined) return false;
  // at most: the name, then each list (up to 64 chars for 8 lanes of 16 hex digits, and spaces) and a stop
  const need = name.length + 5 * 400;
  if (need > SCRATCH.length) SCRATCH = new Uint8Array(need * 2);
  const u = SCRATCH;
  PF.src = u;
  let d = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    u[d++] = c > 255 ? 0 : c;
  }
  PF.nameAt = 0;
  PF.nameEnd = d;
  PF.nameHash = nameHash(u, 0, d);
  u[d++] = 0;
  // the lists' offsets in the item text, then the same lists copied to bytes
  const src = [PF.memory, PF.b, PF.c, PF.expMemory, PF.expReturned] as const;
  PF.memory = PF.b = PF.c = PF.expMemory = PF.expReturned = -1;
  if (src[0] >= 0) {
    PF.memory = d;
    d = copyList(t, src[0], d);
  }
  for (const slot of [1, 2, 3, 4] as const) {
    if (src[slot] < 0) continue;
    setList(PF, slot, d);
    d = copyList(t, src[slot], d);
  }
  return d >= 0;
}

/**
 * Copies the list starting at t[from] ('[') through its ']' (at most 398 chars) into SCRATCH at d,
 * then a stop byte; the next free offset, or -1 (too long: the general path reads the item).
 */
function copyList(t: string, from: number, d: number): number {
  if (d < 0) return -1;
  const u = SCRATCH;
  let quote = 0;
  for (let i = from, n = 0; n < 398; i++, n++) {
    const c = t.charCodeAt(i);
    if (quote) {
      // inside a quoted element: 'single' is written "double" (the same string when nothing needs escaping)
      if (c === quote) {
        quote = 0;
        u[d++] = 34;
      } else if (c === 34 || c === 39 || c === 92 || c < 32) return -1;
      else u[d++] = c > 255 ? 0 : c;
      continue;
    }
    if (c === 34 || c === 39) {
      quote = c;
      u[d++] = 34;
      continue;
    }
    u[d++] = c > 255 ? 0 : c;
    if (c === 93) {
      u[d++] = 0;
      return d;
    }
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// The file scanner.

const CASES_LINE = /^cases:[ \t]*(?:#.*)?\r?$/;

/** Why a file cannot be read piecewise, and the line that shows it. */
interface NotSimple {
  readonly line: number;
  readonly why: string;
}

/**
 * Reads one YAML vector file given in pieces (`push` each piece of text, the last with `last`),
 * returning the cases each piece completes. `whole`: the text arrives in one piece and may be parsed
 * as one document when it is not in the simple layout or its items do not parse alone (the old
 * behaviour exactly); otherwise such a file gets one located problem.
 */
export class YamlScanner {
  readonly ctx: FileCtx;
  private buf = '';
  private p = 0;
  private lineNo = 1;
  private phase: 'header' | 'start' | 'items' | 'after' | 'done' = 'header';
  private indent = 0;
  /** A newline, the list's indentation and '- ': where the next item starts. */
  private needle = '\n- ';
  private itemStart = -1;
  private itemLine = 0;
  private notSimple: NotSimple | undefined;
  private itemErrors = false;
  private readonly chunkLoc = new ChunkLocator();
  private readonly sink: CaseSink;
  /** Items checked (cases and items with problems), for progress. */
  items = 0;
  /** Items the fast path read. */
  fastItems = 0;
  /** Items the packed path read. */
  packedItems = 0;

  constructor(
    readonly file: string,
    readonly idFile: string,
    readonly whole: boolean,
    readonly bytes = 0,
    /** False: every item through the yaml package (tests compare the two readings). */
    readonly fastPath = true,
    /** False: nothing read by the packed path. */
    packing = fastPath,
  ) {
    this.ctx = newFileCtx(file, idFile, this.chunkLoc);
    this.sink = new CaseSink(this.ctx, packing);
  }

  push(text: string, last: boolean): CaseBatch[] {
    if (this.phase === 'done') return [];
    // drop what is consumed: keep the header until it is read, then the current item
    const keep = this.phase === 'header' ? 0 : this.itemStart >= 0 ? this.itemStart : this.p;
    this.buf = keep >= this.buf.length ? text : this.buf.slice(keep) + text;
    this.p -= keep;
    if (this.itemStart >= 0) this.itemStart -= keep;
    const buf = this.buf;
    let p = this.p;
    for (;;) {
      let nl = buf.indexOf('\n', p);
      if (nl < 0) {
        if (!last || p >= buf.length) break;
        nl = buf.length;
      }
      p = this.line(buf, p, nl, last);
      if ((this.phase as string) === 'done') return this.sink.take();
    }
    this.p = Math.min(p, buf.length);
    if (this.phase === 'header' && !last && !this.whole && buf.length > HEADER_LIMIT) {
      this.stop({ line: 1, why: `no top-level cases: line in its first ${HEADER_LIMIT >> 20} MB` });
    } else if (last) {
      if (this.itemStart >= 0) this.item(buf, this.itemStart, buf.length);
      this.itemStart = -1;
      this.finish(buf);
    }
    return this.sink.take(last);
  }

  /** Classifies the line buf[p, nl) and acts on it; returns where the next line starts. */
  private line(buf: string, p: number, nl: number, last: boolean): number {
    switch (this.phase) {
      case 'header':
        if (buf.charCodeAt(p) === 99 /* c */ && CASES_LINE.test(buf.slice(p, nl))) this.header(buf.slice(0, nl + 1));
        break;
      case 'start': {
        let q = p;
        while (q < nl && buf.charCodeAt(q) === SP) q++;
        if (q >= nl || buf.charCodeAt(q) === 35 || (buf.charCodeAt(q) === CR && q + 1 >= nl)) break; // blank or comment
        const next = buf.charCodeAt(q + 1);
        if (buf.charCodeAt(q) === 45 /* - */ && (next === SP || q + 1 >= nl || next === CR)) {
          this.indent = q - p;
          this.needle = `\n${' '.repeat(this.indent)}- `;
          this.phase = 'items';
          return this.begin(buf, p, nl, last);
        }
        this.stop({ line: this.lineNo, why: 'cases: is not followed by a block list of cases (lines starting "  - ")' });
        break;
      }
      case 'items': {
        const I = this.indent;
        let q = p;
        const lim = Math.min(nl, p + I + 1);
        while (q < lim && buf.charCodeAt(q) === SP) q++;
        const c = buf.charCodeAt(q);
        if (q >= nl || c === 35 || (c === CR && q + 1 >= nl)) break; // blank or comment
        if (q - p > I) break; // inside the item
        if (q - p === I && c === 45 && (q + 1 >= nl || buf.charCodeAt(q + 1) === SP || buf.charCodeAt(q + 1) === CR)) {
          if (this.itemStart >= 0) this.item(buf, this.itemStart, p);
          return this.begin(buf, p, nl, last);
        }
        if (this.itemStart >= 0) this.item(buf, this.itemStart, p);
        this.itemStart = -1;
        if (q === p) {
          this.phase = 'after';
          this.stop({ line: this.lineNo, why: 'a top-level key after the cases: list (put instruction: and cite: before cases:)' });
        } else {
          this.stop({ line: this.lineNo, why: `a line inside the cases: list that is not indented past its items (${I} spaces) and does not start a new item` });
        }
        break;
      }
      default:
    }
    this.lineNo++;
    return nl + 1;
  }

  /**
   * An item starts on the line buf[p, nl): take it whole when the fast path reads everything up to
   * the next item start; otherwise go on line by line (and read it when it ends).
   */
  private begin(buf: string, p: number, nl: number, last: boolean): number {
    const nx = buf.indexOf(this.needle, nl - 1);
    const e = nx >= 0 ? nx + 1 : last ? buf.length : -1;
    if (e > p && !this.notSimple && this.sink.packing && packScan(buf, p, e, this.indent) && packItem(this.sink, PF, this.lineNo, this.lineNo + packNameLine)) {
      this.items++;
      this.packedItems++;
      this.itemStart = -1;
      this.lineNo += packLines;
      return e;
    }
    if (e > p && !this.notSimple && this.fastPath) {
      const fast = fastItem(buf, p, e, this.indent);
      if (fast) {
        this.items++;
        this.fast(fast, buf, p, e, this.lineNo);
        this.itemStart = -1;
        this.lineNo += fast.lines;
        return e;
      }
    }
    this.itemStart = p;
    this.itemLine = this.lineNo;
    this.lineNo++;
    return nl + 1;
  }

  private header(text: string): void {
    const lc = new LineCounter();
    const doc = parseDocument(text, { ...YAML_OPTS, lineCounter: lc });
    if (doc.errors.length || !isMap(doc.contents)) {
      // the whole-document reading reports it (small files); a big file gets the errors as they are
      if (this.whole) return this.stop({ line: 1, why: 'the header does not parse' });
      yamlErrors(this.ctx, doc, lc, 1);
      this.phase = 'done';
      return;
    }
    const loc = new NodeLocator(doc.contents, lc, 1);
    this.ctx.loc = loc;
    checkHeader(this.ctx, plainOf(doc.contents, doc) as Record<string, unknown>);
    this.ctx.loc = this.chunkLoc;
    this.phase = 'start';
  }

  /** One list item, buf[s, e). */
  private item(buf: string, s: number, e: number): void {
    if (this.notSimple) return;
    this.items++;
    const line = this.itemLine;
    if (this.sink.packing && packScan(buf, s, e, this.indent) && packItem(this.sink, PF, line, line + packNameLine)) {
      this.packedItems++;
      return;
    }
    const fast = this.fastPath ? fastItem(buf, s, e, this.indent) : undefined;
    if (fast) this.fast(fast, buf, s, e, line);
    else this.slowItem(buf.slice(s, e), line);
  }

  /** Checks an item the fast path read (its problems, rare, are located by parsing it again). */
  private fast(fast: FastItem, buf: string, s: number, e: number, line: number): void {
    this.fastItems++;
    const loc = this.chunkLoc;
    loc.text = buf;
    loc.s = s;
    loc.e = e;
    loc.baseLine = line;
    this.ctx.loc = loc;
    const c = checkCase(this.ctx, fast.value, line, line + fast.nameLine);
    if (c) this.sink.case(c);
  }

  /** An item the fast path does not read: the yaml package parses it alone. */
  private slowItem(text: string, line: number): void {
    const lc = new LineCounter();
    const doc = parseDocument(text, { ...YAML_OPTS, lineCounter: lc });
    if (doc.errors.length) {
      this.itemErrors = true;
      if (!this.whole) yamlErrors(this.ctx, doc, lc, line);
      return;
    }
    const items = isSeq(doc.contents) ? doc.contents.items : [doc.contents];
    for (const node of items) {
      const loc = new NodeLocator(node, lc, line);
      this.ctx.loc = loc;
      const first = loc.locate([], false).line;
      const c = checkCase(this.ctx, plainOf(node, doc), first, loc.locate(['name'], false).line);
      if (c) this.sink.case(c);
    }
    this.ctx.loc = this.chunkLoc;
  }

  /** Not the simple layout: a small file is read as one document at the end, a big one stops here. */
  private stop(why: NotSimple): void {
    this.notSimple ??= why;
    if (this.whole) return;
    this.ctx.problems.push({
      file: this.file,
      line: Math.max(1, why.line),
      col: 1,
      message: `${why.why}: this file (${(this.bytes / 2 ** 20).toFixed(1)} MB) is too big to read as one YAML document (limit ${WHOLE_DOC_LIMIT >> 20} MB); write it in the simple block layout (instruction: and cite: at the top, then cases: with each case starting "  - " at one indentation) or as JSON lines (*.jsonl, see docs/vector-files.md)`,
    });
    this.phase = 'done';
  }

  private finish(buf: string): void {
    const simple = !this.notSimple && (this.phase === 'items' || this.phase === 'after');
    if (this.whole && (!simple || this.itemErrors)) {
      // read it the way it always was: one document
      this.sink.take();
      this.ctx.problems.length = 0;
      this.ctx.names.clear();
      for (const c of wholeDocument(this.ctx, buf)) this.sink.case(c);
    } else if (!simple && (this.phase as string) !== 'done') {
      this.stop({ line: this.lineNo - 1, why: this.phase === 'header' ? 'no top-level cases: line' : 'an empty cases: list' });
    }
    this.phase = 'done';
  }
}

function yamlErrors(ctx: FileCtx, doc: Document, lc: LineCounter, baseLine: number): void {
  for (const e of doc.errors) {
    const pos = e.linePos?.[0] ?? lc.linePos(e.pos[0]);
    ctx.problems.push({ file: ctx.file, line: baseLine + pos.line - 1, col: pos.col, message: `YAML: ${e.message.split('\n')[0]}; fix the syntax (indentation, brackets, quotes)` });
  }
}

/** The whole text as one YAML document (files not in the simple layout; small ones only). */
function wholeDocument(ctx: FileCtx, text: string): Case[] {
  const lc = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTS, lineCounter: lc });
  yamlErrors(ctx, doc, lc, 1);
  if (doc.errors.length) return [];
  const root = doc.contents;
  const loc = new NodeLocator(root, lc, 1);
  ctx.loc = loc;
  if (!isMap(root)) {
    at(ctx, [], 'a vector file is a map with instruction:, cite: (optional) and cases:');
    return [];
  }
  checkHeader(ctx, plainOf(root, doc, 0) as Record<string, unknown>);
  const casesNode = root.get('cases', true) as Node | undefined;
  if (!isSeq(casesNode)) {
    at(ctx, casesNode ? ['cases'] : [], 'cases: must be a list of cases (each with name:, memory: or replicas:, operands:)');
    return [];
  }
  const out: Case[] = [];
  for (const node of casesNode.items) {
    loc.node = node;
    const line = loc.locate([], false).line;
    const c = checkCase(ctx, plainOf(node, doc, 1), line, loc.locate(['name'], false).line);
    if (c) out.push(c);
  }
  return out;
}
