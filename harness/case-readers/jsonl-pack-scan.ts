/**
 * The packed path of JSON-lines vector files: a line of the common shape (string and hex-list
 * fields, no escapes) scanned by hand into packed fields (JSON.parse alone costs ~1.3 us a line);
 * pack-fields.ts's packItem checks and writes it.
 */
import { viewOf } from './packed.js';
import { type ListSlot, MAX_ELEMS, NAME_BYTE, type PackFields, hex4, hex8, newPackFields, resetPackFields, setList } from './pack-fields.js';

const K = (k: string) => Uint8Array.from(k, (c) => c.charCodeAt(0));
const K_GLOBAL = K('global');
const K_SHARED = K('shared');

// Whether u[p] starts `"key"` (the quote at p, the first letter already matched by the caller): each
// key's bytes compared with constants (no loop over a key array: a few of these run per line).
/** "memory" */
const isMemory = (u: Uint8Array, p: number) =>
  u[p + 7] === 34 && u[p + 2] === 101 && u[p + 3] === 109 && u[p + 4] === 111 && u[p + 5] === 114 && u[p + 6] === 121;
/** "expect" */
const isExpect = (u: Uint8Array, p: number) =>
  u[p + 7] === 34 && u[p + 2] === 120 && u[p + 3] === 112 && u[p + 4] === 101 && u[p + 5] === 99 && u[p + 6] === 116;
/** "space" */
const isSpace = (u: Uint8Array, p: number) => u[p + 6] === 34 && u[p + 2] === 112 && u[p + 3] === 97 && u[p + 4] === 99 && u[p + 5] === 101;
/** "returned" */
const isReturned = (u: Uint8Array, p: number) =>
  u[p + 9] === 34 && u[p + 2] === 101 && u[p + 3] === 116 && u[p + 4] === 117 && u[p + 5] === 114 && u[p + 6] === 110 && u[p + 7] === 101 && u[p + 8] === 100;

function wordsOf(b: Uint8Array): Int32Array {
  const n = b.length;
  if (n < 4) return new Int32Array(0);
  const dv = new DataView(b.buffer, b.byteOffset, n);
  const w = new Int32Array((n >> 2) + 1);
  for (let j = 0; j < n >> 2; j++) w[j] = dv.getInt32(4 * j, true);
  w[n >> 2] = dv.getInt32(n - 4, true);
  return w;
}

/**
 * The packed path's line scanner (the TypeScript twin of native/reader/src/jsonl_scan.cc where it
 * is built): one per file scanner, its fields and recent instructions its own. `scan` reads a line
 * into PF.
 */
export class JsonlLineScanner {
  /** The fields of the line scanned last (the tests compare the native scanner's records with them). */
  readonly PF: PackFields = newPackFields();
  /** Where the instruction string instructionAt read ends. */
  private instrEnd = -1;
  /**
   * Recent instructions (a file uses a few), as bytes and as the one string handed on for each; and as
   * little-endian 32-bit words for comparing four bytes at a time: the whole words from the start, then
   * the last four bytes (overlapping the one before where the length is not a multiple of 4).
   */
  private readonly RECENT_BYTES: Uint8Array[] = [];
  private readonly RECENT_TEXT: string[] = [];
  private readonly RECENT_WORDS: Int32Array[] = [];

  /** End (after the closing quote) of a string without escapes or control characters at u[p], before `e`, or -1. */
  private stringEnd(u: Uint8Array, p: number, e: number): number {
    if (u[p] !== 34) return -1;
    for (let i = p + 1; i < e; i++) {
      const c = u[i]!;
      if (c === 34) return i + 1;
      if (c === 92 || c < 32) return -1;
    }
    return -1;
  }

  /**
   * The list of strings `["..", ".."]` at u[p] (spaces and tabs between items, no escapes or control
   * characters in a string), before `e`: each string recorded (with its quotes) as element k of list L
   * (this.PF.els, this.PF.cnt: packItem's readElems checks and reads them as hex); the offset after ']', or -1
   * (then the general path reads the line). Spaces are skipped in place (no call: the inliner's budget
   * is spent on the line's few calls).
   */
  private listAt(u: Uint8Array, p: number, e: number, L: number): number {
    if (p < 0 || u[p] !== 91) return -1;
    p++;
    let c = u[p];
    while (c === 32 || c === 9) c = u[++p];
    const els = this.PF.els;
    const pre = this.PF.pre;
    let x = L * 2 * MAX_ELEMS;
    const end = x + 2 * MAX_ELEMS;
    for (let k = 1; ; k++) {
      if (c !== 34 || x >= end) return -1;
      // "0x" and 8, 4 or 16 hex digits (the common elements) read as hex here, at once (pre, for
      // readElems); any other string checked byte by byte
      const h = (x >> 1) * 3;
      let i = -1;
      if (u[p + 1] === 48 && u[p + 2] === 120) {
        // the digits: up to the first quote of p + 7, p + 11 and p + 19 (a digit is never a quote; a
        // later one may be the next string's: `"0x3c00"], "` has one at p + 11 too)
        const dg = u[p + 7] === 34 ? 4 : u[p + 11] === 34 ? 8 : u[p + 19] === 34 ? 16 : 0;
        if (dg && p + 3 + dg < e) {
          const lo = dg === 4 ? hex4(u, p + 3) : hex8(u, p + 3 + dg - 8);
          const hi = dg === 16 ? hex8(u, p + 3) : 0;
          if (lo >= 0 && hi >= 0) {
            pre[h] = dg;
            pre[h + 1] = lo;
            pre[h + 2] = hi;
            i = p + 3 + dg;
          }
        }
      }
      if (i < 0) {
        pre[h] = -1;
        i = p + 1;
        for (;;) {
          if (i >= e) return -1;
          const d = u[i]!;
          if (d === 34) break;
          if (d === 92 || d < 32) return -1;
          i++;
        }
      }
      els[x++] = p;
      els[x++] = ++i;
      p = i;
      c = u[p];
      while (c === 32 || c === 9) c = u[++p];
      if (c === 93) {
        this.PF.cnt[L] = k;
        return p + 1;
      }
      if (c !== 44) return -1;
      c = u[++p];
      while (c === 32 || c === 9) c = u[++p];
    }
  }

  /**
   * `{ "b": [..], "c": [..] }` (operands) or `{ "memory": [..], "returned": [..] }` (expect) at u[p]:
   * records the lists in this.PF; the end, or -1.
   */
  private innerMap(u: Uint8Array, p: number, e: number, expect: boolean): number {
    if (p < 0 || u[p] !== 123) return -1;
    let c = u[++p];
    while (c === 32 || c === 9) c = u[++p];
    for (;;) {
      if (c !== 34) return -1;
      let at = -1;
      let slot = 0;
      const k = u[p + 1];
      if (!expect) {
        if ((k === 98 || k === 99) && u[p + 2] === 34) {
          at = p + 3;
          slot = k === 98 ? 1 : 2;
        }
      } else if (k === 109 && isMemory(u, p)) {
        at = p + 8;
        slot = 3;
      } else if (k === 114 && isReturned(u, p)) {
        at = p + 10;
        slot = 4;
      }
      if (at < 0) return -1;
      // after the key: spaces, ':', spaces (afterKey, in place)
      c = u[at];
      while (c === 32 || c === 9) c = u[++at];
      if (c !== 58) return -1;
      c = u[++at];
      while (c === 32 || c === 9) c = u[++at];
      if (!setList(this.PF, slot as ListSlot, at)) return -1;
      p = this.listAt(u, at, e, slot);
      if (p < 0) return -1;
      c = u[p];
      while (c === 32 || c === 9) c = u[++p];
      if (c === 125) return p + 1;
      if (c !== 44) return -1;
      c = u[++p];
      while (c === 32 || c === 9) c = u[++p];
    }
  }

  /** The instruction string at u[at] (a quoted string), or undefined; sets `this.instrEnd`. */
  private instructionAt(u: Uint8Array, at: number, e: number): string | undefined {
    if (at < 0 || u[at] !== 34) return undefined;
    for (let r = 0; r < this.RECENT_BYTES.length; r++) {
      const b = this.RECENT_BYTES[r]!;
      const n = b.length;
      if (u[at + 1 + n] !== 34) continue;
      // from the end: spellings of one file differ mostly in their last qualifiers (.f32, .b32, .u32)
      let i = n - 1;
      while (i >= 0 && u[at + 1 + i] === b[i]) i--;
      if (i < 0) {
        this.instrEnd = at + n + 2;
        return this.RECENT_TEXT[r];
      }
    }
    const q = this.stringEnd(u, at, e);
    if (q < 0) return undefined;
    const w = Buffer.from(u.buffer, u.byteOffset + at + 1, q - at - 2).toString('utf8');
    if (this.RECENT_BYTES.length >= 8) {
      this.RECENT_BYTES.pop();
      this.RECENT_TEXT.pop();
      this.RECENT_WORDS.pop();
    }
    const bytes = new Uint8Array(u.subarray(at + 1, q - 1)); // a copy: u may be the reader's reused buffer (Buffer.slice is a view)
    this.RECENT_BYTES.unshift(bytes);
    this.RECENT_TEXT.unshift(w);
    this.RECENT_WORDS.unshift(wordsOf(bytes));
    this.instrEnd = q;
    return w;
  }

  /** Whether u[p, q) is the quoted word `w` ("global", "shared"). */
  private quotedIs(u: Uint8Array, p: number, q: number, w: Uint8Array): boolean {
    if (q - p !== w.length + 2) return false;
    for (let i = 0; i < w.length; i++) if (u[p + 1 + i] !== w[i]) return false;
    return true;
  }

  /**
   * Reads the line that starts at u[s] (the data ends at u[e]) into this.PF when it has the common shape
   * (string and hex-list fields, no escapes, each key once, then spaces or tabs to the line's end);
   * returns where the line ends: its '\n', or `e` where the data ends there and is the file's `last`
   * (a '\r' before either is the line's end too); -1 when the line is anything else or does not end
   * within the data (then the general path finds its end and reads it). Every byte the scanner takes
   * is one a line cannot end in (none is '\n'), so a line it reads lies within [s, e) and the search
   * for its end is this scan itself.
   */
  scan(u: Uint8Array, s: number, e: number, last: boolean): number {
    const f = this.PF;
    resetPackFields(f, u);
    f.elems = true; // the lists' elements recorded as the line is scanned (listAt), read by packItem
    // spaces and tabs are skipped in place throughout (`while (c === 32 || c === 9) c = u[++p]`): a
    // call per skip would spend the inliner's budget, and a line has a dozen of them
    let p = s;
    let c = u[p];
    while (c === 32 || c === 9) c = u[++p];
    if (c !== 123) return -1;
    c = u[++p];
    while (c === 32 || c === 9) c = u[++p];
    for (;;) {
      if (c !== 34) return -1;
      // the key (its first letter picks it, its bytes are compared whole), then spaces, ':', spaces
      const key = u[p + 1];
      let v: number;
      switch (key) {
        case 110:
          if (u[p + 5] !== 34 || u[p + 2] !== 97 || u[p + 3] !== 109 || u[p + 4] !== 101 || this.PF.nameAt >= 0) return -1; // "name"
          v = p + 6;
          break;
        case 105:
          if (
            u[p + 12] !== 34 ||
            u[p + 2] !== 110 ||
            u[p + 3] !== 115 ||
            u[p + 4] !== 116 ||
            u[p + 5] !== 114 ||
            u[p + 6] !== 117 ||
            u[p + 7] !== 99 ||
            u[p + 8] !== 116 ||
            u[p + 9] !== 105 ||
            u[p + 10] !== 111 ||
            u[p + 11] !== 110 ||
            this.PF.instruction !== undefined
          )
            return -1; // "instruction"
          v = p + 13;
          break;
        case 109:
          if (u[p + 7] !== 34 || u[p + 2] !== 101 || u[p + 3] !== 109 || u[p + 4] !== 111 || u[p + 5] !== 114 || u[p + 6] !== 121 || this.PF.memory >= 0)
            return -1; // "memory"
          v = p + 8;
          break;
        case 111:
          if (
            u[p + 9] !== 34 ||
            u[p + 2] !== 112 ||
            u[p + 3] !== 101 ||
            u[p + 4] !== 114 ||
            u[p + 5] !== 97 ||
            u[p + 6] !== 110 ||
            u[p + 7] !== 100 ||
            u[p + 8] !== 115 ||
            this.PF.operands
          )
            return -1; // "operands"
          v = p + 10;
          break;
        case 101:
          if (!isExpect(u, p) || this.PF.expect) return -1;
          v = p + 8;
          break;
        case 115:
          if (!isSpace(u, p) || this.PF.space !== undefined) return -1;
          v = p + 7;
          break;
        default:
          return -1;
      }
      c = u[v];
      while (c === 32 || c === 9) c = u[++v];
      if (c !== 58) return -1;
      c = u[++v];
      while (c === 32 || c === 9) c = u[++v];
      // the value at v; q: after it
      let q = -1;
      switch (key) {
        case 110: {
          // name: its bytes, checked and hashed in one go
          if (c !== 34) return -1;
          let h = 0x811c9dc5;
          let i = v + 1;
          for (; i < e; i++) {
            const d = u[i]!;
            if (d === 34) break;
            if (!NAME_BYTE[d]) return -1;
            h = Math.imul(h ^ d, 0x01000193);
          }
          if (i >= e || i === v + 1) return -1;
          this.PF.nameAt = v + 1;
          this.PF.nameEnd = i;
          this.PF.nameCol = v - s + 1;
          this.PF.nameHash = h | 1;
          this.PF.nameChecked = true;
          q = i + 1;
          break;
        }
        case 105: {
          // one of the recent spellings (a file uses a few; compared from the end, where they differ),
          // else instructionAt reads it and makes it one of them
          if (c !== 34) return -1;
          let w: string | undefined;
          const at = v + 1;
          const dv = viewOf(u);
          for (let r = 0; r < this.RECENT_BYTES.length; r++) {
            const b = this.RECENT_BYTES[r]!;
            const n = b.length;
            if (at + n >= e || u[at + n] !== 34) continue;
            // four bytes at a time (this.RECENT_WORDS), the last four first; a spelling of fewer, byte by byte
            let same = true;
            if (n >= 4) {
              const wd = this.RECENT_WORDS[r]!;
              const m = wd.length - 1;
              same = dv.getInt32(at + n - 4, true) === wd[m];
              for (let j = 0; same && j < m; j++) same = dv.getInt32(at + 4 * j, true) === wd[j];
            } else for (let i = 0; same && i < n; i++) same = u[at + i] === b[i];
            if (same) {
              w = this.RECENT_TEXT[r];
              q = at + n + 1;
              break;
            }
          }
          if (w === undefined) {
            w = this.instructionAt(u, v, e);
            if (w === undefined) return -1;
            q = this.instrEnd;
          }
          this.PF.instruction = w;
          break;
        }
        case 109:
          this.PF.memory = v;
          q = this.listAt(u, v, e, 0);
          break;
        case 111:
          this.PF.operands = true;
          q = this.innerMap(u, v, e, false);
          break;
        case 101:
          this.PF.expect = true;
          q = this.innerMap(u, v, e, true);
          break;
        default:
          // space
          q = this.stringEnd(u, v, e);
          if (q < 0) return -1;
          this.PF.space = this.quotedIs(u, v, q, K_GLOBAL) ? 'global' : this.quotedIs(u, v, q, K_SHARED) ? 'shared' : '?';
      }
      if (q < 0) return -1;
      p = q;
      c = u[p];
      while (c === 32 || c === 9) c = u[++p];
      if (c === 125) {
        // the line's end within the data: every byte read was the data's (past e may be a reused
        // buffer's stale bytes, and a '\n' there is not the line's end)
        c = u[++p];
        while (c === 32 || c === 9) c = u[++p];
        if (p < e) {
          if (c === 10) return p;
          if (c === 13) {
            if (p + 1 < e && u[p + 1] === 10) return p + 1;
            if (p + 1 === e && last) return e;
          }
          return -1;
        }
        return p === e && last ? e : -1;
      }
      if (c !== 44) return -1;
      c = u[++p];
      while (c === 32 || c === 9) c = u[++p];
    }
  }
}
