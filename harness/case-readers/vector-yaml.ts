/**
 * YAML vector files, read piecewise. A file in the simple block layout (top-level `instruction:`,
 * `cite:`, then `cases:` as a block list whose items all start `- ` at one indentation) is split at
 * its list items and each item is parsed alone: an item of the common case shape (in any ordinary
 * spelling: block or flow maps and lists, quoted or plain hex, comments, any key order) straight from
 * the file's UTF-8 bytes into a packed block (packScan, then packed.ts; where it is built, its C++
 * twin native/reader/src/yaml_scan.cc reads such items many at a time), else by a hand-written
 * parser for the common one-line forms (`key: value`, `key: [ "0x..", ... ]`, `key: { b: [...] }`),
 * and by the `yaml` package for anything else. Either way an item becomes the same plain value, and a problem is located by
 * parsing the item with the `yaml` package (only then) and walking to the offending node, with line
 * numbers offset to the real file. A file that is not in that layout, or (small files only) whose
 * items do not parse on their own, is parsed as one document, as long as it is small.
 */
import { type Document, LineCounter, type Node, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { type CaseBatch, CaseSink, type ListSlot, MAX_ELEMS, NAME_BYTE, endNames, type PackFields, newPackFields, packItem, resetPackFields, setList } from './packed.js';
import { type NativeScan, R_LEN, R_LINES, R_NAMELINE, R_NL, Spellings, YAML_SLACK, nativeScan, packRecord } from './native-scan.js';
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
  if (isScalar(n)) {
    // a plain hex scalar (`0x0000abcd`, which YAML's core schema reads as an integer) stays the hex
    // text as written: an element's digits say its width (docs/vector-files.md)
    if (n.format === 'HEX' && n.type === 'PLAIN' && n.tag === undefined && typeof n.source === 'string') return n.source;
    return n.value;
  }
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
const HEX_PLAIN = /^0x[0-9a-fA-F]+$/;

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
  if (HEX_PLAIN.test(w)) return w; // plain hex stays as written (plainOf)
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
// The packed path: an item of the common shape read from the file's bytes straight into PF (then
// packItem checks and writes it), with no string per case. Anything else: false, and the item is
// read by the general path below, which gives the same case or the located problem.
//
// Taken: every line of the item blank, a comment, or a key of a case at the item's key column
// (`name:`, `instruction:`, `space:` with a plain, "double" or 'single'-quoted scalar; `memory:`
// with a hex list; `operands:` / `expect:` with a map of hex lists), each key once, in any order,
// trailing comments (` # ...`) anywhere a line may end; a map in flow style on its line
// (`{ b: [..], c: [..] }`) or in block style (its keys alone on the lines under it, one column
// past the key); a hex list in flow style (`["0x..", '0x..', 0x..]`) or as a block sequence (`- 0x..`
// lines under its key, at its column or past it); quoted or plain keys; CRLF line ends.
//
// native/reader/src/yaml_scan.cc is this packScan in C++, function for function (YamlScanner.packRun
// calls it first where it is built): a change here is made there too, and
// tests/case-readers/yaml-native.test.ts holds the two to the same fields on generated items.

const PF: PackFields = newPackFields();
const ELS = PF.els;
const CNT = PF.cnt;

/** Lines the last item packScan read spans, and the line (from its first, 0) of its name: key. */
let packLines = 0;
let packNameLine = 0;
/** Lines consumed so far by packScan (every function that passes a line end counts it). */
let LN = 0;
/** The key keyAt found: 1 name, 2 instruction, 3 space, 4 memory, 5 operands, 6 expect; 11 b, 12 c (operands), 13 memory, 14 returned (expect). */
let KEY = 0;

const isKeyByte = (c: number | undefined) => c !== undefined && ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 48 && c <= 57));
const isAlnum = (c: number | undefined) => c !== undefined && ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57));
/** A byte of a plain scalar the packed path takes (letters, digits, _ . - ( )). */
const isPlainByte = (c: number | undefined) => c !== undefined && ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45 || c === 40 || c === 41);
const isLetter = (c: number | undefined) => c !== undefined && ((c >= 97 && c <= 122) || (c >= 65 && c <= 90));

const bytesOf = (k: string) => Uint8Array.from(k, (c) => c.charCodeAt(0));
const B_NAME = bytesOf('name');
const B_INSTRUCTION = bytesOf('instruction');
const B_SPACE = bytesOf('space');
const B_MEMORY = bytesOf('memory');
const B_OPERANDS = bytesOf('operands');
const B_EXPECT = bytesOf('expect');
const B_RETURNED = bytesOf('returned');
const B_GLOBAL = bytesOf('global');
const B_SHARED = bytesOf('shared');

/** Whether u[s, e) is exactly the bytes w. */
function bytesIs(u: Uint8Array, s: number, e: number, w: Uint8Array): boolean {
  if (e - s !== w.length) return false;
  for (let i = 0; i < w.length; i++) if (u[s + i] !== w[i]) return false;
  return true;
}

/**
 * The key at u[p] (plain [A-Za-z0-9_]+, or the same in double or single quotes) followed by ':', as
 * one of the keys of `inner` (0 a case, 1 operands, 2 expect) in KEY; the offset after the ':', or -1.
 */
function keyAt(u: Uint8Array, p: number, inner: number): number {
  // the usual spelling first: the plain key and ':' matched in place (no second pass over its bytes)
  const k = inner === 0 ? plainKey(u, p) : inner === 1 ? plainOperand(u, p) : plainExpect(u, p);
  if (k > 0) return k;
  return keyAtSlow(u, p, inner);
}

/** `name:`, `instruction:`, `space:`, `memory:`, `operands:` or `expect:` at u[p] (KEY set): the offset after ':', or -1. */
function plainKey(u: Uint8Array, p: number): number {
  switch (u[p]) {
    case 110: // name
      if (u[p + 1] === 97 && u[p + 2] === 109 && u[p + 3] === 101 && u[p + 4] === 58) {
        KEY = 1;
        return p + 5;
      }
      return -1;
    case 105: // instruction
      if (u[p + 11] === 58 && u[p + 1] === 110 && u[p + 2] === 115 && u[p + 3] === 116 && u[p + 4] === 114 && u[p + 5] === 117 && u[p + 6] === 99 && u[p + 7] === 116 && u[p + 8] === 105 && u[p + 9] === 111 && u[p + 10] === 110) {
        KEY = 2;
        return p + 12;
      }
      return -1;
    case 115: // space
      if (u[p + 5] === 58 && u[p + 1] === 112 && u[p + 2] === 97 && u[p + 3] === 99 && u[p + 4] === 101) {
        KEY = 3;
        return p + 6;
      }
      return -1;
    case 109: // memory
      if (u[p + 6] === 58 && u[p + 1] === 101 && u[p + 2] === 109 && u[p + 3] === 111 && u[p + 4] === 114 && u[p + 5] === 121) {
        KEY = 4;
        return p + 7;
      }
      return -1;
    case 111: // operands
      if (u[p + 8] === 58 && u[p + 1] === 112 && u[p + 2] === 101 && u[p + 3] === 114 && u[p + 4] === 97 && u[p + 5] === 110 && u[p + 6] === 100 && u[p + 7] === 115) {
        KEY = 5;
        return p + 9;
      }
      return -1;
    case 101: // expect
      if (u[p + 6] === 58 && u[p + 1] === 120 && u[p + 2] === 112 && u[p + 3] === 101 && u[p + 4] === 99 && u[p + 5] === 116) {
        KEY = 6;
        return p + 7;
      }
      return -1;
    default:
      return -1;
  }
}

/** `b:` or `c:` at u[p] (KEY set): the offset after ':', or -1. */
function plainOperand(u: Uint8Array, p: number): number {
  const c = u[p];
  if ((c === 98 || c === 99) && u[p + 1] === 58) {
    KEY = c === 98 ? 11 : 12;
    return p + 2;
  }
  return -1;
}

/** `memory:` or `returned:` at u[p] (KEY set): the offset after ':', or -1. */
function plainExpect(u: Uint8Array, p: number): number {
  const c = u[p];
  if (c === 109 && u[p + 6] === 58 && u[p + 1] === 101 && u[p + 2] === 109 && u[p + 3] === 111 && u[p + 4] === 114 && u[p + 5] === 121) {
    KEY = 13;
    return p + 7;
  }
  if (c === 114 && u[p + 8] === 58 && u[p + 1] === 101 && u[p + 2] === 116 && u[p + 3] === 117 && u[p + 4] === 114 && u[p + 5] === 110 && u[p + 6] === 101 && u[p + 7] === 100) {
    KEY = 14;
    return p + 9;
  }
  return -1;
}

/** keyAt for any other spelling: a quoted key, or a plain one that is none of the keys (then -1). */
function keyAtSlow(u: Uint8Array, p: number, inner: number): number {
  const q = u[p];
  let s = p;
  let i: number;
  if (q === 34 || q === 39) {
    s = p + 1;
    i = s;
    while (isKeyByte(u[i])) i++;
    if (u[i] !== q) return -1;
    p = i + 1;
  } else {
    i = p;
    while (isKeyByte(u[i])) i++;
    p = i;
  }
  if (u[p] !== 58) return -1;
  const n = i - s;
  const c0 = u[s];
  KEY = 0;
  if (inner === 0) {
    if (n === 4 && c0 === 110) KEY = bytesIs(u, s, i, B_NAME) ? 1 : 0;
    else if (n === 11 && c0 === 105) KEY = bytesIs(u, s, i, B_INSTRUCTION) ? 2 : 0;
    else if (n === 5 && c0 === 115) KEY = bytesIs(u, s, i, B_SPACE) ? 3 : 0;
    else if (n === 6 && c0 === 109) KEY = bytesIs(u, s, i, B_MEMORY) ? 4 : 0;
    else if (n === 8 && c0 === 111) KEY = bytesIs(u, s, i, B_OPERANDS) ? 5 : 0;
    else if (n === 6 && c0 === 101) KEY = bytesIs(u, s, i, B_EXPECT) ? 6 : 0;
  } else if (inner === 1) {
    if (n === 1) KEY = c0 === 98 ? 11 : c0 === 99 ? 12 : 0;
  } else if (n === 6 && c0 === 109) KEY = bytesIs(u, s, i, B_MEMORY) ? 13 : 0;
  else if (n === 8 && c0 === 114) KEY = bytesIs(u, s, i, B_RETURNED) ? 14 : 0;
  return KEY ? p + 1 : -1;
}

/** After a value at u[p]: spaces, an optional comment (' #...'), the line's end. The next line's start (LN counts the line), or -1. */
function endLine(u: Uint8Array, p: number, e: number): number {
  const s = p;
  while (u[p] === SP) p++;
  if (p >= e) {
    LN++;
    return e;
  }
  const c = u[p];
  if (c === 35) {
    if (p === s) return -1;
    return skipRest(u, p, e);
  }
  if (c === CR) {
    if (u[p + 1] !== NL) return -1;
    p++;
  } else if (c !== NL) return -1;
  LN++;
  return p + 1;
}

/** Whether the line whose first non-space byte is at u[p] holds nothing (blank, or a comment). */
function emptyAt(u: Uint8Array, p: number, e: number): boolean {
  if (p >= e) return true;
  const c = u[p];
  return c === NL || c === 35 || (c === CR && u[p + 1] === NL);
}

/** The start of the line after u[p] (the item's end when there is none); LN counts the line. */
function skipRest(u: Uint8Array, p: number, e: number): number {
  while (p < e && u[p] !== NL) p++;
  LN++;
  return p < e ? p + 1 : e;
}

/** The end of an element token at u[p]: "double-quoted" (no escape), 'single-quoted' (no ''), or plain letters and digits; or -1. */
function tokenEnd(u: Uint8Array, p: number): number {
  const q = u[p];
  if (q === 34) {
    for (let i = p + 1; ; i++) {
      const c = u[i];
      if (c === 34) return i + 1;
      if (c === undefined || c === 92 || c < 32) return -1;
    }
  }
  if (q === 39) {
    for (let i = p + 1; ; i++) {
      const c = u[i];
      if (c === 39) return u[i + 1] === 39 ? -1 : i + 1;
      if (c === undefined || c < 32) return -1;
    }
  }
  let i = p;
  while (isAlnum(u[i])) i++;
  return i > p ? i : -1;
}

/** Records element k of list L, u[s, t); false past MAX_ELEMS. */
function element(L: number, k: number, s: number, t: number): boolean {
  if (k >= MAX_ELEMS) return false;
  const x = L * 2 * MAX_ELEMS + 2 * k;
  ELS[x] = s;
  ELS[x + 1] = t;
  return true;
}

/** The flow list `[ a, b ]` at u[p] ('['), its elements recorded as list L; the offset after ']', or -1. */
function flowList(u: Uint8Array, p: number, L: number): number {
  p++;
  while (u[p] === SP) p++;
  for (let k = 0; ; ) {
    const t = tokenEnd(u, p);
    if (t < 0 || !element(L, k, p, t)) return -1;
    k++;
    p = t;
    while (u[p] === SP) p++;
    const c = u[p];
    if (c === 93) {
      CNT[L] = k;
      return p + 1;
    }
    if (c !== 44) return -1;
    p++;
    while (u[p] === SP) p++;
  }
}

/**
 * A block sequence from the line at u[p] (after its key's line): `- element` lines, all at one
 * column, at least `col` (its key's column), blank and comment lines between; recorded as list L.
 * The start of the first line after it, or -1.
 */
function blockSeq(u: Uint8Array, p: number, e: number, col: number, L: number): number {
  let at = -1;
  let k = 0;
  while (p < e) {
    const ls = p;
    while (u[p] === SP) p++;
    if (emptyAt(u, p, e)) {
      p = skipRest(u, p, e);
      continue;
    }
    const ind = p - ls;
    if (at < 0) {
      if (ind < col || u[p] !== 45) return -1;
      at = ind;
    } else if (ind < at || (ind === at && u[p] !== 45)) {
      p = ls;
      break;
    } else if (ind !== at) return -1;
    if (u[p + 1] !== SP) return -1;
    p += 2;
    while (u[p] === SP) p++;
    const t = tokenEnd(u, p);
    if (t < 0 || !element(L, k, p, t)) return -1;
    k++;
    p = endLine(u, t, e);
    if (p < 0) return -1;
  }
  if (k === 0) return -1;
  CNT[L] = k;
  return p;
}

/** Marks list L (1..4: operands b, c, expect memory, returned) present; false when it already is (a duplicate key). */
const markList = (L: number) => setList(PF, L as ListSlot, 0);

/** The flow map `{ b: [..], c: [..] }` (inner 1) or `{ memory: [..], returned: [..] }` (inner 2) at u[p] ('{'); the offset after '}', or -1. */
function flowMap(u: Uint8Array, p: number, inner: number): number {
  p++;
  while (u[p] === SP) p++;
  for (;;) {
    const a = keyAt(u, p, inner);
    if (a < 0 || u[a] !== SP) return -1;
    const L = KEY - 10;
    let q = a;
    while (u[q] === SP) q++;
    if (u[q] !== 91 || !markList(L)) return -1;
    p = flowList(u, q, L);
    if (p < 0) return -1;
    while (u[p] === SP) p++;
    const c = u[p];
    if (c === 125) return p + 1;
    if (c !== 44) return -1;
    p++;
    while (u[p] === SP) p++;
  }
}

/**
 * A block map from the line at u[p] (after the line of its key, at column keyCol): key lines at one
 * column past keyCol, each with a flow list on its line or a block sequence under it; blank and
 * comment lines between. The start of the first line after it, or -1.
 */
function blockMap(u: Uint8Array, p: number, e: number, keyCol: number, inner: number): number {
  let col = -1;
  let n = 0;
  while (p < e) {
    const ls = p;
    while (u[p] === SP) p++;
    if (emptyAt(u, p, e)) {
      p = skipRest(u, p, e);
      continue;
    }
    const ind = p - ls;
    if (ind <= keyCol) {
      p = ls;
      break;
    }
    if (col < 0) col = ind;
    else if (ind !== col) return -1;
    const a = keyAt(u, p, inner);
    if (a < 0) return -1;
    const L = KEY - 10;
    if (!markList(L)) return -1;
    let q = a;
    while (u[q] === SP) q++;
    if (q > a && u[q] === 91) {
      const t = flowList(u, q, L);
      if (t < 0) return -1;
      p = endLine(u, t, e);
    } else {
      const nx = endLine(u, a, e);
      if (nx < 0) return -1;
      p = blockSeq(u, nx, e, col, L);
    }
    if (p < 0) return -1;
    n++;
  }
  return n > 0 ? p : -1;
}

/**
 * The end of a scalar value at u[p] (quoted as tokenEnd takes it, or plain: bytes of isPlainByte,
 * and ':' not followed by a space or the line's end, as in `atom.shared::cta.add.u32`), or -1.
 */
function scalarEnd(u: Uint8Array, p: number): number {
  const q = u[p];
  if (q === 34 || q === 39) return tokenEnd(u, p);
  let i = p;
  for (;;) {
    const c = u[i];
    if (isPlainByte(c)) i++;
    else if (c === 58 && i > p) {
      let j = i + 1;
      while (u[j] === 58) j++;
      if (!isPlainByte(u[j])) break;
      i = j;
    } else break;
  }
  return i > p ? i : -1;
}

/** Whether the plain scalar u[s, e) (bytes of isPlainByte) is a string as written under YAML's core schema (not null, a boolean or a number). */
function plainIsString(u: Uint8Array, s: number, e: number): boolean {
  const c0 = u[s]!;
  if (isLetter(c0)) {
    const n = e - s;
    return !((n === 4 || n === 5) && RESERVED.test(latin1(u, s, e)));
  }
  if (c0 === 95) return true;
  // a digit first: a string when something in it is not of a number (and it is no 0x/0o prefix)
  if (!(c0 >= 48 && c0 <= 57) || u[s + 1] === 120 || u[s + 1] === 111) return false;
  for (let i = s + 1; i < e; i++) {
    const c = u[i]!;
    if (!((c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45)) return true;
  }
  return false;
}

const latin1 = (u: Uint8Array, s: number, e: number) => Buffer.from(u.buffer, u.byteOffset + s, e - s).toString('latin1');

/** Recent instruction spellings as bytes, and the one string handed on for each (packItem matches strings by identity). */
const RECENT_B: Uint8Array[] = [];
const RECENT_T: string[] = [];

function instructionOf(u: Uint8Array, s: number, e: number): string {
  const n = e - s;
  for (let r = 0; r < RECENT_B.length; r++) {
    const b = RECENT_B[r]!;
    if (b.length !== n) continue;
    // from the end: spellings of one file differ mostly in their last qualifiers (.f32, .b32, .u32)
    let i = n - 1;
    while (i >= 0 && u[s + i] === b[i]) i--;
    if (i < 0) return RECENT_T[r]!;
  }
  const w = Buffer.from(u.buffer, u.byteOffset + s, n).toString('utf8');
  if (RECENT_B.length >= 16) {
    RECENT_B.pop();
    RECENT_T.pop();
  }
  RECENT_B.unshift(new Uint8Array(u.subarray(s, e))); // a copy: the bytes are the reader's reused buffer
  RECENT_T.unshift(w);
  return w;
}

/** A scalar of key 1-3 at u[s, e) (as scalarEnd found it) into PF; false when it does not pack. */
function scalarValue(key: number, u: Uint8Array, s: number, e: number): boolean {
  const q = u[s];
  const quoted = q === 34 || q === 39;
  if (!quoted && !plainIsString(u, s, e)) return false;
  const qs = quoted ? s + 1 : s;
  const qe = quoted ? e - 1 : e;
  if (key === 1) {
    if (PF.nameAt >= 0 || qe <= qs) return false;
    let h = 0x811c9dc5;
    for (let i = qs; i < qe; i++) {
      const c = u[i]!;
      if (!NAME_BYTE[c]) return false;
      h = Math.imul(h ^ c, 0x01000193);
    }
    PF.nameAt = qs;
    PF.nameEnd = qe;
    PF.nameHash = h | 1;
    PF.nameChecked = true;
    PF.nameCol = s - nameLineStart + 1;
    return true;
  }
  if (key === 2) {
    if (PF.instruction !== undefined || qe <= qs) return false;
    PF.instruction = instructionOf(u, qs, qe);
    return true;
  }
  if (PF.space !== undefined) return false;
  PF.space = bytesIs(u, qs, qe, B_GLOBAL) ? 'global' : bytesIs(u, qs, qe, B_SHARED) ? 'shared' : '?';
  return true;
}

/** Zero bytes after the work buffer's data, where the packed scanners stop (YamlScanner.sbuf). */
const SLACK = YAML_SLACK;

/** Where the item packScan read ends (the start of the next item's line, or the end of the text). */
let packEnd = 0;
/** Where the line of the item's name: key starts. */
let nameLineStart = 0;

/**
 * Scans the list item starting at u[s] (first line: `indent` spaces and `- `) into PF when it has
 * the packed shape (above); packLines and packNameLine say where its lines are, packEnd where it
 * ends. `findEnd` false: the item is u[s, e). `findEnd` true: u[s, e) holds the item and what
 * follows; the item ends at the next line that starts an item (`indent` spaces and `- `), or at `e`
 * when `complete` (else an item that reaches `e` may go on in text not yet read: false).
 */
function packScan(u: Uint8Array, s: number, e: number, indent: number, findEnd = false, complete = true): boolean {
  resetPackFields(PF, u);
  PF.elems = true;
  LN = 0;
  packNameLine = 0;
  let p = s + indent + 1;
  if (u[p] !== SP) return false;
  while (u[p] === SP) p++;
  const keyCol = p - s;
  for (;;) {
    const a = keyAt(u, p, 0);
    if (a < 0) return false;
    const key = KEY;
    if (key === 1) {
      packNameLine = LN;
      nameLineStart = p - keyCol;
    }
    let v = a;
    while (u[v] === SP) v++;
    const c = u[v];
    const eol = v >= e || c === NL || c === CR;
    if (v === a && !eol) return false; // `key:value` is one plain scalar in YAML
    if (eol || c === 35) {
      // nothing on the key's line: a block value under it
      const nx = endLine(u, a, e);
      if (nx < 0) return false;
      if (key === 4) {
        if (PF.memory >= 0) return false;
        PF.memory = 0;
        p = blockSeq(u, nx, e, keyCol, 0);
      } else if (key === 5 || key === 6) {
        if (key === 5 ? PF.operands : PF.expect) return false;
        if (key === 5) PF.operands = true;
        else PF.expect = true;
        p = blockMap(u, nx, e, keyCol, key - 4);
      } else return false;
      if (p < 0) return false;
    } else {
      let t: number;
      if (key === 4) {
        if (PF.memory >= 0 || c !== 91) return false;
        PF.memory = 0;
        t = flowList(u, v, 0);
      } else if (key === 5 || key === 6) {
        if (c !== 123 || (key === 5 ? PF.operands : PF.expect)) return false;
        if (key === 5) PF.operands = true;
        else PF.expect = true;
        t = flowMap(u, v, key - 4);
      } else {
        t = scalarEnd(u, v);
        if (t < 0 || !scalarValue(key, u, v, t)) return false;
      }
      if (t < 0) return false;
      p = endLine(u, t, e);
      if (p < 0) return false;
    }
    // the next key's line (blank and comment lines skipped), or the item's end
    for (;;) {
      if (p >= e) {
        if (findEnd && !complete) return false;
        packLines = LN;
        packEnd = e;
        return PF.nameAt >= 0;
      }
      const ls = p;
      while (u[p] === SP) p++;
      if (!emptyAt(u, p, e)) {
        if (p - ls === keyCol) break;
        if (findEnd && p - ls === indent && u[p] === 45 && u[p + 1] === SP) {
          packLines = LN;
          packEnd = ls;
          return PF.nameAt >= 0;
        }
        return false;
      }
      p = skipRest(u, p, e);
    }
  }
}

/**
 * packScan as YamlScanner.packRun calls it, for the tests: the item at u[s] (u[0, n) the data, SLACK
 * zero bytes after it) read to the next item's line, or to n when `last`; its fields (the module's
 * PackFields, valid until the next scan), where it ends and its lines, or undefined.
 */
export function packScanRun(u: Uint8Array, s: number, n: number, indent: number, last: boolean): { f: PackFields; end: number; lines: number; nameLine: number } | undefined {
  return itemStartAt(u, s, indent) && packScan(u, s, n, indent, true, last) ? { f: PF, end: packEnd, lines: packLines, nameLine: packNameLine } : undefined;
}

/** Whether u[s] starts a list item's first line: `indent` spaces, '-', ' '. */
function itemStartAt(u: Uint8Array, s: number, indent: number): boolean {
  const lim = s + indent;
  let i = s;
  while (i < lim && u[i] === SP) i++;
  return i === lim && u[i] === 45 && u[i + 1] === SP;
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
  /** The bytes not yet consumed: from the header's start, the current item's, or the next line's. */
  private buf: Buffer = Buffer.alloc(0);
  private p = 0;
  private lineNo = 1;
  private phase: 'header' | 'start' | 'items' | 'after' | 'done' = 'header';
  private indent = 0;
  /** A newline, the list's indentation and '- ': where the next item starts. */
  private needle = Buffer.from('\n- ');
  private itemStart = -1;
  private itemLine = 0;
  private notSimple: NotSimple | undefined;
  private itemErrors = false;
  /** `whole`: the text as given, for the one-document reading. */
  private text = '';
  private readonly chunkLoc = new ChunkLocator();
  private readonly sink: CaseSink;
  /** Items checked (cases and items with problems), for progress. */
  items = 0;
  /** Items the fast path read. */
  fastItems = 0;
  /** Items the packed path read. */
  packedItems = 0;
  /** Of those, items the native scanner read (native-scan.ts). */
  nativeItems = 0;
  /** The native scanner (undefined: every item by packScan), its records and this file's instruction spellings. */
  private readonly nat: NativeScan | undefined;
  private readonly rec: Int32Array;
  private readonly spellings = new Spellings();

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
    this.nat = packing ? nativeScan() : undefined;
    // records for about a quarter of the file's bytes (an item of the common shape is about 40 words in 150 bytes), 1K to 16K words
    this.rec = new Int32Array(this.nat ? Math.min(1 << 14, Math.max(1 << 10, bytes >> 2)) : 0);
    // about one name per 128 bytes; more grow the set
    if (bytes > 0) this.ctx.names.reserve(Math.min(bytes / 192, 1 << 21));
  }

  /** The next piece of the file's text: its UTF-8 bytes go straight into the work buffer. */
  push(text: string, last: boolean): CaseBatch[] {
    if (this.phase === 'done') return [];
    if (this.whole) this.text += text;
    const at = this.keepFront(text.length * 3);
    const n = at + this.work.write(text, at, 'utf8');
    return this.scan(n, last);
  }

  /** The next piece of the file's bytes (UTF-8, without a byte-order mark); `chunk` is copied, not kept. */
  pushBytes(chunk: Uint8Array, last: boolean): CaseBatch[] {
    if (this.phase === 'done') return [];
    const at = this.keepFront(chunk.length);
    this.work.set(chunk, at);
    return this.scan(at + chunk.length, last);
  }

  /** One buffer for the bytes, reused from piece to piece (no allocation per piece). */
  private work: Buffer = Buffer.alloc(0);

  /**
   * Moves what is not consumed (the header until it is read, then the current item) to the front of
   * the work buffer, which then has room for `more` bytes after it; returns where they go.
   */
  private keepFront(more: number): number {
    const keep = this.phase === 'header' ? 0 : this.itemStart >= 0 ? this.itemStart : this.p;
    const len = Math.max(0, this.buf.length - keep);
    if (len + more + SLACK > this.work.length) {
      const w = Buffer.allocUnsafe(Math.max(len + more + SLACK, 2 * this.work.length, 1 << 16));
      this.buf.copy(w, 0, keep);
      this.work = w;
    } else if (len > 0 && keep > 0) this.work.copyWithin(0, this.buf.byteOffset - this.work.byteOffset + keep, this.buf.byteOffset - this.work.byteOffset + keep + len);
    this.p = Math.max(0, this.p - keep);
    if (this.itemStart >= 0) this.itemStart -= keep;
    return len;
  }

  /**
   * The bytes the packed scanner reads: the work buffer's first n and SLACK zero bytes after them.
   * packScan stops at a zero byte wherever it stops at the end of an array (every test of a byte it
   * makes fails alike for 0 and for undefined, and its bounds are n, never the array's length), so
   * its reads stay inside the array: V8 compiles them as plain byte loads (a read past the end, met
   * once, makes every load of that site return a tagged value or undefined, a good deal slower).
   */
  private sbuf: Buffer = Buffer.alloc(SLACK);

  /** Scans the work buffer's first n bytes (the kept ones and the new piece). */
  private scan(n: number, last: boolean): CaseBatch[] {
    const buf = (this.buf = this.work.subarray(0, n));
    this.work.fill(0, n, n + SLACK);
    this.sbuf = this.work.subarray(0, n + SLACK);
    let p = this.p;
    for (;;) {
      if (this.phase === 'items' && this.itemStart < 0) p = this.packRun(this.sbuf, p, n, last);
      let nl = buf.indexOf(NL, p);
      if (nl < 0) {
        if (!last || p >= n) break;
        nl = n;
      }
      p = this.line(buf, p, nl, last);
      if ((this.phase as string) === 'done') return this.sink.take();
    }
    this.p = Math.min(p, n);
    if (this.phase === 'header' && !last && !this.whole && n > HEADER_LIMIT) {
      this.stop({ line: 1, why: `no top-level cases: line in its first ${HEADER_LIMIT >> 20} MB` });
    } else if (last) {
      if (this.itemStart >= 0) this.item(buf, this.itemStart, n);
      this.itemStart = -1;
      this.finish();
    }
    return this.sink.take(last);
  }

  /**
   * From the line at buf[p] on: the items the packed path takes, one after another, each found by
   * scanning it (no search for the next item first); returns where the first line it does not take
   * starts (the line-by-line reading goes on from there). The native scanner reads them many at a
   * time where it is built; an item it does not take, packScan reads.
   */
  private packRun(buf: Buffer, p: number, n: number, last: boolean): number {
    if (this.notSimple || !this.sink.packing) return p;
    const I = this.indent;
    const nat = this.nat;
    while (p < n) {
      if (nat) {
        const k = nat.scanYaml(buf, p, n, last, I, this.rec, this.spellings.tbl, this.spellings.tix);
        if (k > 0) {
          const q = this.records(buf, p, k);
          if (q < 0) return -q - 1;
          p = q;
          continue;
        }
      }
      if (!itemStartAt(buf, p, I) || !packScan(buf, p, n, I, true, last) || !packItem(this.sink, PF, this.lineNo, this.lineNo + packNameLine)) break;
      this.items++;
      this.packedItems++;
      this.lineNo += packLines;
      p = packEnd;
    }
    return p;
  }

  /**
   * The `k` records the native scanner wrote for the items from buf[p], each to the sink as packItem
   * takes it (packRecord); returns where the item after them starts, or -(p + 1) for the start p of
   * the first item packItem does not take (where packRun stops, as it does after packScan).
   */
  private records(buf: Buffer, p: number, k: number): number {
    const rec = this.rec;
    this.spellings.sync();
    for (let r = 0, o = 0; r < k; r++) {
      const line = this.lineNo;
      if (!packRecord(this.sink, rec, o, buf, this.spellings, line, line + rec[o + R_NAMELINE]!)) return -p - 1;
      this.items++;
      this.packedItems++;
      this.nativeItems++;
      this.lineNo += rec[o + R_LINES]!;
      p = rec[o + R_NL]!;
      o += rec[o + R_LEN]!;
    }
    return p;
  }

  /** Classifies the line buf[p, nl) and acts on it; returns where the next line starts. */
  private line(buf: Buffer, p: number, nl: number, last: boolean): number {
    switch (this.phase) {
      case 'header':
        if (buf[p] === 99 /* c */ && CASES_LINE.test(buf.toString('latin1', p, nl))) this.header(buf.toString('utf8', 0, Math.min(nl + 1, buf.length)));
        break;
      case 'start': {
        let q = p;
        while (q < nl && buf[q] === SP) q++;
        if (q >= nl || buf[q] === 35 || (buf[q] === CR && q + 1 >= nl)) break; // blank or comment
        const next = buf[q + 1];
        if (buf[q] === 45 /* - */ && (next === SP || q + 1 >= nl || next === CR)) {
          this.indent = q - p;
          this.needle = Buffer.from(`\n${' '.repeat(this.indent)}- `);
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
        while (q < lim && buf[q] === SP) q++;
        const c = buf[q];
        if (q >= nl || c === 35 || (c === CR && q + 1 >= nl)) break; // blank or comment
        if (q - p > I) break; // inside the item
        if (q - p === I && c === 45 && (q + 1 >= nl || buf[q + 1] === SP || buf[q + 1] === CR)) {
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
   * An item starts on the line buf[p, nl): take it whole when the packed or the fast path reads
   * everything up to the next item start; otherwise go on line by line (and read it when it ends).
   */
  private begin(buf: Buffer, p: number, nl: number, last: boolean): number {
    const nx = buf.indexOf(this.needle, nl - 1);
    const e = nx >= 0 ? nx + 1 : last ? buf.length : -1;
    if (e > p && !this.notSimple && this.sink.packing && packScan(this.sbuf, p, e, this.indent) && packItem(this.sink, PF, this.lineNo, this.lineNo + packNameLine)) {
      this.items++;
      this.packedItems++;
      this.itemStart = -1;
      this.lineNo += packLines;
      return e;
    }
    if (e > p && !this.notSimple && this.fastPath) {
      const text = buf.toString('utf8', p, e);
      const fast = fastItem(text, 0, text.length, this.indent);
      if (fast) {
        this.items++;
        this.fast(fast, text, this.lineNo);
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
  private item(buf: Buffer, s: number, e: number): void {
    if (this.notSimple) return;
    this.items++;
    const line = this.itemLine;
    if (this.sink.packing && packScan(this.sbuf, s, e, this.indent) && packItem(this.sink, PF, line, line + packNameLine)) {
      this.packedItems++;
      return;
    }
    const text = buf.toString('utf8', s, e);
    const fast = this.fastPath ? fastItem(text, 0, text.length, this.indent) : undefined;
    if (fast) this.fast(fast, text, line);
    else this.slowItem(text, line);
  }

  /** Checks an item the fast path read (its problems, rare, are located by parsing it again). */
  private fast(fast: FastItem, text: string, line: number): void {
    this.fastItems++;
    const loc = this.chunkLoc;
    loc.text = text;
    loc.s = 0;
    loc.e = text.length;
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
    endNames(this.sink);
    this.ctx.problems.push({
      file: this.file,
      line: Math.max(1, why.line),
      col: 1,
      message: `${why.why}: this file (${(this.bytes / 2 ** 20).toFixed(1)} MB) is too big to read as one YAML document (limit ${WHOLE_DOC_LIMIT >> 20} MB); write it in the simple block layout (instruction: and cite: at the top, then cases: with each case starting "  - " at one indentation) or as JSON lines (*.jsonl, see docs/vector-files.md)`,
    });
    this.phase = 'done';
  }

  private finish(): void {
    const simple = !this.notSimple && (this.phase === 'items' || this.phase === 'after');
    if (this.whole && (!simple || this.itemErrors)) {
      // read it the way it always was: one document
      this.sink.take();
      this.ctx.problems.length = 0;
      this.ctx.names.clear();
      for (const c of wholeDocument(this.ctx, this.text)) this.sink.case(c);
    } else {
      endNames(this.sink);
      if (!simple && (this.phase as string) !== 'done') this.stop({ line: this.lineNo - 1, why: this.phase === 'header' ? 'no top-level cases: line' : 'an empty cases: list' });
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
