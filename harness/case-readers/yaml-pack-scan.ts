/**
 * The packed path of YAML vector files: an item of the common case shape read from the file's
 * UTF-8 bytes straight into packed fields (PackScanner; packed.ts's packItem then checks and writes
 * it), with no string per case. The TypeScript twin of native/reader/src/yaml_scan.cc, used where
 * the addon is absent and for the items the native scanner leaves.
 */
import { type ListSlot, MAX_ELEMS, NAME_BYTE, type PackFields, newPackFields, resetPackFields, setList } from './pack-fields.js';
import { CR, NL, RESERVED, SP } from './yaml-item.js';

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



















const latin1 = (u: Uint8Array, s: number, e: number) => Buffer.from(u.buffer, u.byteOffset + s, e - s).toString('latin1');

/** Recent instruction spellings as bytes, and the one string handed on for each (packItem matches strings by identity). */







/**
 * The packed path's scanner (the TypeScript twin of native/reader/src/yaml_scan.cc): one per file
 * scanner, its fields and positions its own. `scan` reads one item into PF.
 */
/** Whether u[s, e) is exactly the bytes w. */
function bytesIs(u: Uint8Array, s: number, e: number, w: Uint8Array): boolean {
  if (e - s !== w.length) return false;
  for (let i = 0; i < w.length; i++) if (u[s + i] !== w[i]) return false;
  return true;
}

/** Whether the line whose first non-space byte is at u[p] holds nothing (blank, or a comment). */
function emptyAt(u: Uint8Array, p: number, e: number): boolean {
  if (p >= e) return true;
  const c = u[p];
  return c === NL || c === 35 || (c === CR && u[p + 1] === NL);
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

export class PackScanner {
  /** The fields of the item scanned last (packItem writes them into the block). */
  readonly PF: PackFields = newPackFields();
  private readonly ELS = this.PF.els;
  private readonly CNT = this.PF.cnt;
  /** Lines the last item scanned spans, and the line (from its first, 0) of its name: key. */
  packLines = 0;
  packNameLine = 0;
  /** Lines consumed so far by the scan (every method that passes a line end counts it). */
  private LN = 0;
  /** The key keyAt found: 1 name, 2 instruction, 3 space, 4 memory, 5 operands, 6 expect; 11 b, 12 c (operands), 13 memory, 14 returned (expect). */
  private KEY = 0;
  /** Where the item scanned last ends (the start of the next item's line, or the end of the text). */
  packEnd = 0;
  /** Where the line of the item's name: key starts. */
  private nameLineStart = 0;
  /** Recent instruction spellings, as bytes and as strings (the same few repeat on every case). */
  private readonly RECENT_B: Uint8Array[] = [];
  private readonly RECENT_T: string[] = [];

  /** Marks list L (1..4: operands b, c, expect memory, returned) present; false when it already is (a duplicate key). */
  private markList(L: number): boolean {
    const PF = this.PF;
    return setList(PF, L as ListSlot, 0);
  }


  /**
   * The key at u[p] (plain [A-Za-z0-9_]+, or the same in double or single quotes) followed by ':', as
   * one of the keys of `inner` (0 a case, 1 operands, 2 expect) in this.KEY; the offset after the ':', or -1.
   */
  keyAt(u: Uint8Array, p: number, inner: number): number {
    // the usual spelling first: the plain key and ':' matched in place (no second pass over its bytes)
    const k = inner === 0 ? this.plainKey(u, p) : inner === 1 ? this.plainOperand(u, p) : this.plainExpect(u, p);
    if (k > 0) return k;
    return this.keyAtSlow(u, p, inner);
  }

  /** `name:`, `instruction:`, `space:`, `memory:`, `operands:` or `expect:` at u[p] (this.KEY set): the offset after ':', or -1. */
  plainKey(u: Uint8Array, p: number): number {
    switch (u[p]) {
      case 110: // name
        if (u[p + 1] === 97 && u[p + 2] === 109 && u[p + 3] === 101 && u[p + 4] === 58) {
          this.KEY = 1;
          return p + 5;
        }
        return -1;
      case 105: // instruction
        if (u[p + 11] === 58 && u[p + 1] === 110 && u[p + 2] === 115 && u[p + 3] === 116 && u[p + 4] === 114 && u[p + 5] === 117 && u[p + 6] === 99 && u[p + 7] === 116 && u[p + 8] === 105 && u[p + 9] === 111 && u[p + 10] === 110) {
          this.KEY = 2;
          return p + 12;
        }
        return -1;
      case 115: // space
        if (u[p + 5] === 58 && u[p + 1] === 112 && u[p + 2] === 97 && u[p + 3] === 99 && u[p + 4] === 101) {
          this.KEY = 3;
          return p + 6;
        }
        return -1;
      case 109: // memory
        if (u[p + 6] === 58 && u[p + 1] === 101 && u[p + 2] === 109 && u[p + 3] === 111 && u[p + 4] === 114 && u[p + 5] === 121) {
          this.KEY = 4;
          return p + 7;
        }
        return -1;
      case 111: // operands
        if (u[p + 8] === 58 && u[p + 1] === 112 && u[p + 2] === 101 && u[p + 3] === 114 && u[p + 4] === 97 && u[p + 5] === 110 && u[p + 6] === 100 && u[p + 7] === 115) {
          this.KEY = 5;
          return p + 9;
        }
        return -1;
      case 101: // expect
        if (u[p + 6] === 58 && u[p + 1] === 120 && u[p + 2] === 112 && u[p + 3] === 101 && u[p + 4] === 99 && u[p + 5] === 116) {
          this.KEY = 6;
          return p + 7;
        }
        return -1;
      default:
        return -1;
    }
  }

  /** `b:` or `c:` at u[p] (this.KEY set): the offset after ':', or -1. */
  plainOperand(u: Uint8Array, p: number): number {
    const c = u[p];
    if ((c === 98 || c === 99) && u[p + 1] === 58) {
      this.KEY = c === 98 ? 11 : 12;
      return p + 2;
    }
    return -1;
  }

  /** `memory:` or `returned:` at u[p] (this.KEY set): the offset after ':', or -1. */
  plainExpect(u: Uint8Array, p: number): number {
    const c = u[p];
    if (c === 109 && u[p + 6] === 58 && u[p + 1] === 101 && u[p + 2] === 109 && u[p + 3] === 111 && u[p + 4] === 114 && u[p + 5] === 121) {
      this.KEY = 13;
      return p + 7;
    }
    if (c === 114 && u[p + 8] === 58 && u[p + 1] === 101 && u[p + 2] === 116 && u[p + 3] === 117 && u[p + 4] === 114 && u[p + 5] === 110 && u[p + 6] === 101 && u[p + 7] === 100) {
      this.KEY = 14;
      return p + 9;
    }
    return -1;
  }

  /** keyAt for any other spelling: a quoted key, or a plain one that is none of the keys (then -1). */
  keyAtSlow(u: Uint8Array, p: number, inner: number): number {
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
    this.KEY = 0;
    if (inner === 0) {
      if (n === 4 && c0 === 110) this.KEY = bytesIs(u, s, i, B_NAME) ? 1 : 0;
      else if (n === 11 && c0 === 105) this.KEY = bytesIs(u, s, i, B_INSTRUCTION) ? 2 : 0;
      else if (n === 5 && c0 === 115) this.KEY = bytesIs(u, s, i, B_SPACE) ? 3 : 0;
      else if (n === 6 && c0 === 109) this.KEY = bytesIs(u, s, i, B_MEMORY) ? 4 : 0;
      else if (n === 8 && c0 === 111) this.KEY = bytesIs(u, s, i, B_OPERANDS) ? 5 : 0;
      else if (n === 6 && c0 === 101) this.KEY = bytesIs(u, s, i, B_EXPECT) ? 6 : 0;
    } else if (inner === 1) {
      if (n === 1) this.KEY = c0 === 98 ? 11 : c0 === 99 ? 12 : 0;
    } else if (n === 6 && c0 === 109) this.KEY = bytesIs(u, s, i, B_MEMORY) ? 13 : 0;
    else if (n === 8 && c0 === 114) this.KEY = bytesIs(u, s, i, B_RETURNED) ? 14 : 0;
    return this.KEY ? p + 1 : -1;
  }

  /** After a value at u[p]: spaces, an optional comment (' #...'), the line's end. The next line's start (this.LN counts the line), or -1. */
  endLine(u: Uint8Array, p: number, e: number): number {
    const s = p;
    while (u[p] === SP) p++;
    if (p >= e) {
      this.LN++;
      return e;
    }
    const c = u[p];
    if (c === 35) {
      if (p === s) return -1;
      return this.skipRest(u, p, e);
    }
    if (c === CR) {
      if (u[p + 1] !== NL) return -1;
      p++;
    } else if (c !== NL) return -1;
    this.LN++;
    return p + 1;
  }


  /** The start of the line after u[p] (the item's end when there is none); this.LN counts the line. */
  skipRest(u: Uint8Array, p: number, e: number): number {
    while (p < e && u[p] !== NL) p++;
    this.LN++;
    return p < e ? p + 1 : e;
  }


  /** Records element k of list L, u[s, t); false past MAX_ELEMS. */
  element(L: number, k: number, s: number, t: number): boolean {
    const ELS = this.ELS;
    if (k >= MAX_ELEMS) return false;
    const x = L * 2 * MAX_ELEMS + 2 * k;
    ELS[x] = s;
    ELS[x + 1] = t;
    return true;
  }

  /** The flow list `[ a, b ]` at u[p] ('['), its elements recorded as list L; the offset after ']', or -1. */
  flowList(u: Uint8Array, p: number, L: number): number {
    const CNT = this.CNT;
    p++;
    while (u[p] === SP) p++;
    for (let k = 0; ; ) {
      const t = tokenEnd(u, p);
      if (t < 0 || !this.element(L, k, p, t)) return -1;
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
  blockSeq(u: Uint8Array, p: number, e: number, col: number, L: number): number {
    const CNT = this.CNT;
    let at = -1;
    let k = 0;
    while (p < e) {
      const ls = p;
      while (u[p] === SP) p++;
      if (emptyAt(u, p, e)) {
        p = this.skipRest(u, p, e);
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
      if (t < 0 || !this.element(L, k, p, t)) return -1;
      k++;
      p = this.endLine(u, t, e);
      if (p < 0) return -1;
    }
    if (k === 0) return -1;
    CNT[L] = k;
    return p;
  }

  /** The flow map `{ b: [..], c: [..] }` (inner 1) or `{ memory: [..], returned: [..] }` (inner 2) at u[p] ('{'); the offset after '}', or -1. */
  flowMap(u: Uint8Array, p: number, inner: number): number {
    p++;
    while (u[p] === SP) p++;
    for (;;) {
      const a = this.keyAt(u, p, inner);
      if (a < 0 || u[a] !== SP) return -1;
      const L = this.KEY - 10;
      let q = a;
      while (u[q] === SP) q++;
      if (u[q] !== 91 || !this.markList(L)) return -1;
      p = this.flowList(u, q, L);
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
  blockMap(u: Uint8Array, p: number, e: number, keyCol: number, inner: number): number {
    let col = -1;
    let n = 0;
    while (p < e) {
      const ls = p;
      while (u[p] === SP) p++;
      if (emptyAt(u, p, e)) {
        p = this.skipRest(u, p, e);
        continue;
      }
      const ind = p - ls;
      if (ind <= keyCol) {
        p = ls;
        break;
      }
      if (col < 0) col = ind;
      else if (ind !== col) return -1;
      const a = this.keyAt(u, p, inner);
      if (a < 0) return -1;
      const L = this.KEY - 10;
      if (!this.markList(L)) return -1;
      let q = a;
      while (u[q] === SP) q++;
      if (q > a && u[q] === 91) {
        const t = this.flowList(u, q, L);
        if (t < 0) return -1;
        p = this.endLine(u, t, e);
      } else {
        const nx = this.endLine(u, a, e);
        if (nx < 0) return -1;
        p = this.blockSeq(u, nx, e, col, L);
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
  scalarEnd(u: Uint8Array, p: number): number {
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


  instructionOf(u: Uint8Array, s: number, e: number): string {
    const n = e - s;
    for (let r = 0; r < this.RECENT_B.length; r++) {
      const b = this.RECENT_B[r]!;
      if (b.length !== n) continue;
      // from the end: spellings of one file differ mostly in their last qualifiers (.f32, .b32, .u32)
      let i = n - 1;
      while (i >= 0 && u[s + i] === b[i]) i--;
      if (i < 0) return this.RECENT_T[r]!;
    }
    const w = Buffer.from(u.buffer, u.byteOffset + s, n).toString('utf8');
    if (this.RECENT_B.length >= 16) {
      this.RECENT_B.pop();
      this.RECENT_T.pop();
    }
    this.RECENT_B.unshift(new Uint8Array(u.subarray(s, e))); // a copy: the bytes are the reader's reused buffer
    this.RECENT_T.unshift(w);
    return w;
  }

  /** A scalar of key 1-3 at u[s, e) (as scalarEnd found it) into this.PF; false when it does not pack. */
  scalarValue(key: number, u: Uint8Array, s: number, e: number): boolean {
    const PF = this.PF;
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
      PF.nameCol = s - this.nameLineStart + 1;
      return true;
    }
    if (key === 2) {
      if (PF.instruction !== undefined || qe <= qs) return false;
      PF.instruction = this.instructionOf(u, qs, qe);
      return true;
    }
    if (PF.space !== undefined) return false;
    PF.space = bytesIs(u, qs, qe, B_GLOBAL) ? 'global' : bytesIs(u, qs, qe, B_SHARED) ? 'shared' : '?';
    return true;
  }

  /**
   * Scans the list item starting at u[s] (first line: `indent` spaces and `- `) into this.PF when it has
   * the packed shape (above); this.packLines and this.packNameLine say where its lines are, this.packEnd where it
   * ends. `findEnd` false: the item is u[s, e). `findEnd` true: u[s, e) holds the item and what
   * follows; the item ends at the next line that starts an item (`indent` spaces and `- `), or at `e`
   * when `complete` (else an item that reaches `e` may go on in text not yet read: false).
   */
  packScan(u: Uint8Array, s: number, e: number, indent: number, findEnd = false, complete = true): boolean {
    const PF = this.PF;
    resetPackFields(PF, u);
    PF.elems = true;
    this.LN = 0;
    this.packNameLine = 0;
    let p = s + indent + 1;
    if (u[p] !== SP) return false;
    while (u[p] === SP) p++;
    const keyCol = p - s;
    for (;;) {
      const a = this.keyAt(u, p, 0);
      if (a < 0) return false;
      const key = this.KEY;
      if (key === 1) {
        this.packNameLine = this.LN;
        this.nameLineStart = p - keyCol;
      }
      let v = a;
      while (u[v] === SP) v++;
      const c = u[v];
      const eol = v >= e || c === NL || c === CR;
      if (v === a && !eol) return false; // `key:value` is one plain scalar in YAML
      if (eol || c === 35) {
        // nothing on the key's line: a block value under it
        const nx = this.endLine(u, a, e);
        if (nx < 0) return false;
        if (key === 4) {
          if (PF.memory >= 0) return false;
          PF.memory = 0;
          p = this.blockSeq(u, nx, e, keyCol, 0);
        } else if (key === 5 || key === 6) {
          if (key === 5 ? PF.operands : PF.expect) return false;
          if (key === 5) PF.operands = true;
          else PF.expect = true;
          p = this.blockMap(u, nx, e, keyCol, key - 4);
        } else return false;
        if (p < 0) return false;
      } else {
        let t: number;
        if (key === 4) {
          if (PF.memory >= 0 || c !== 91) return false;
          PF.memory = 0;
          t = this.flowList(u, v, 0);
        } else if (key === 5 || key === 6) {
          if (c !== 123 || (key === 5 ? PF.operands : PF.expect)) return false;
          if (key === 5) PF.operands = true;
          else PF.expect = true;
          t = this.flowMap(u, v, key - 4);
        } else {
          t = this.scalarEnd(u, v);
          if (t < 0 || !this.scalarValue(key, u, v, t)) return false;
        }
        if (t < 0) return false;
        p = this.endLine(u, t, e);
        if (p < 0) return false;
      }
      // the next key's line (blank and comment lines skipped), or the item's end
      for (;;) {
        if (p >= e) {
          if (findEnd && !complete) return false;
          this.packLines = this.LN;
          this.packEnd = e;
          return PF.nameAt >= 0;
        }
        const ls = p;
        while (u[p] === SP) p++;
        if (!emptyAt(u, p, e)) {
          if (p - ls === keyCol) break;
          if (findEnd && p - ls === indent && u[p] === 45 && u[p + 1] === SP) {
            this.packLines = this.LN;
            this.packEnd = ls;
            return PF.nameAt >= 0;
          }
          return false;
        }
        p = this.skipRest(u, p, e);
      }
    }
  }

}
