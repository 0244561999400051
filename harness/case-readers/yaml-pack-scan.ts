/**
 * The packed path of YAML vector files: an item of the common case shape read from the file's
 * UTF-8 bytes straight into packed fields (a PackScanner; pack-fields.ts's packItem then checks and
 * writes it), with no string per case. The TypeScript twin of native/reader/src/yaml_scan.cc, used
 * where the addon is absent and for the items the native scanner leaves. A scan is one
 * synchronous call on module-level state (the item's fields PF, valid until the next scan by any
 * scanner, which every reader hands to packItem at once); where the item ended is copied to the
 * calling scanner (newPackScanner). Measured: that state held per scanner (closures, a class, or
 * bound on entry) costs the twin's scan 14-25 % (V8 folds module-level constants into the scan).
 */
import { type ListSlot, MAX_ELEMS, NAME_BYTE, type PackFields, newPackFields, resetPackFields, setList } from './pack-fields.js';
import {
  B_EXPECT,
  B_GLOBAL,
  B_INSTRUCTION,
  B_MEMORY,
  B_NAME,
  B_OPERANDS,
  B_RETURNED,
  B_SHARED,
  B_SPACE,
  bytesIs,
  instructionOf,
  plainIsString,
} from './yaml-bytes.js';

// the bytes the scan compares against, local constants (folded into the compiled scan)
const SP = 32;
const NL = 10;
const CR = 13;

// ---------------------------------------------------------------------------------------------
// An item of the common shape read from the file's bytes straight into PF (then
// packItem checks and writes it), with no string per case. Anything else: false, and the item is
// read by the general path (vector-yaml.ts), which gives the same case or the located problem.
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

/** One packed scanner: `packScan` reads an item into PF; the numbers say where it was. */
export interface PackScanner {
  readonly PF: PackFields;
  packScan(u: Uint8Array, s: number, e: number, indent: number, findEnd?: boolean, complete?: boolean): boolean;
  /** Lines the last item scanned spans, and the line (from its first, 0) of its name: key. */
  readonly packLines: number;
  readonly packNameLine: number;
  /** Where the item scanned last ends (the start of the next item's line, or the end of the text). */
  readonly packEnd: number;
}

/** A packed scanner: where its last item was is its own; its fields, PF, are the module's (valid until the next scan). */
export function newPackScanner(): PackScanner {
  const me = {
    PF,
    packLines: 0,
    packNameLine: 0,
    packEnd: 0,
    packScan(u: Uint8Array, s: number, e: number, indent: number, findEnd = false, complete = true): boolean {
      const ok = packScan(u, s, e, indent, findEnd, complete);
      me.packLines = packLines;
      me.packNameLine = packNameLine;
      me.packEnd = packEnd;
      return ok;
    },
  };
  return me;
}
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
const isPlainByte = (c: number | undefined) =>
  c !== undefined && ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45 || c === 40 || c === 41);

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
      if (
        u[p + 11] === 58 &&
        u[p + 1] === 110 &&
        u[p + 2] === 115 &&
        u[p + 3] === 116 &&
        u[p + 4] === 114 &&
        u[p + 5] === 117 &&
        u[p + 6] === 99 &&
        u[p + 7] === 116 &&
        u[p + 8] === 105 &&
        u[p + 9] === 111 &&
        u[p + 10] === 110
      ) {
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
      if (
        u[p + 8] === 58 &&
        u[p + 1] === 112 &&
        u[p + 2] === 101 &&
        u[p + 3] === 114 &&
        u[p + 4] === 97 &&
        u[p + 5] === 110 &&
        u[p + 6] === 100 &&
        u[p + 7] === 115
      ) {
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
  if (
    c === 114 &&
    u[p + 8] === 58 &&
    u[p + 1] === 101 &&
    u[p + 2] === 116 &&
    u[p + 3] === 117 &&
    u[p + 4] === 114 &&
    u[p + 5] === 110 &&
    u[p + 6] === 101 &&
    u[p + 7] === 100
  ) {
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
