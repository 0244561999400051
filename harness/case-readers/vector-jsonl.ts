/**
 * JSON-lines vector files (`*.jsonl`): one case per line, a JSON object with the fields of a YAML
 * case. An optional first line that has only `instruction` and/or `cite` is the file's header and
 * gives every line its default instruction and citation. A line of the common shape (string and
 * hex-list fields only, no escapes) is read by hand straight into a packed block (packed.ts); any
 * other line is parsed with JSON.parse, and only a line with a problem is scanned again, by hand, to
 * find the column of the offending field.
 */
import { type CaseBatch, CaseSink, type ListSlot, MAX_ELEMS, NAME_BYTE, type PackFields, endNames, hex4, hex8, newPackFields, packItem, resetPackFields, setList, viewOf } from './packed.js';
import { type FileCtx, type Located, type Locator, type Path, checkCase, checkHeader, newFileCtx } from './vector-check.js';
import { type NativeScan, R_LEN, R_NL, Spellings, nativeScan, packRecord } from './native-scan.js';

const WS = (c: number) => c === 32 || c === 9 || c === 13 || c === 10;

/** A hand-written reader over one line of JSON: finds the offset of a path, or the first syntax error. */
class JsonScan {
  p = 0;
  constructor(readonly t: string) {}
  ws(): void {
    while (this.p < this.t.length && WS(this.t.charCodeAt(this.p))) this.p++;
  }
  fail(what: string): never {
    throw new JsonSyntax(this.p, what);
  }
  string(): string {
    const s = this.p;
    if (this.t[this.p] !== '"') this.fail('expected a string in double quotes');
    this.p++;
    for (;;) {
      if (this.p >= this.t.length) this.fail('unterminated string');
      const c = this.t.charCodeAt(this.p);
      if (c === 34) break;
      if (c < 32) this.fail('a control character inside a string');
      if (c === 92) {
        const e = this.t[this.p + 1] ?? '';
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.t.slice(this.p + 2, this.p + 6))) this.fail('a bad \\u escape');
          this.p += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e) || e === '') this.fail('a bad escape');
        this.p += 2;
        continue;
      }
      this.p++;
    }
    this.p++;
    return JSON.parse(this.t.slice(s, this.p)) as string;
  }
  /** Skips a value; at `path` (from `depth`) records where it starts. */
  value(path?: Path, depth = 0, asKey = false, found?: { off: number }): void {
    this.ws();
    // on the path: the deepest value reached so far (the key itself when asked for one)
    if (found && path && depth <= path.length && !(asKey && depth === path.length)) found.off = this.p;
    const c = this.t[this.p];
    if (c === '{') {
      this.p++;
      this.ws();
      if (this.t[this.p] === '}') {
        this.p++;
        return;
      }
      for (;;) {
        this.ws();
        const kOff = this.p;
        const k = this.string();
        this.ws();
        if (this.t[this.p] !== ':') this.fail("expected ':' after a key");
        this.p++;
        const here = found && path && depth < path.length && path[depth] === k;
        if (here && asKey && depth === path.length - 1) found.off = kOff;
        this.value(here ? path : undefined, depth + 1, asKey && !!here, here ? found : undefined);
        this.ws();
        const d = this.t[this.p++];
        if (d === '}') return;
        if (d !== ',') {
          this.p--;
          this.fail("expected ',' or '}' after a value");
        }
      }
    }
    if (c === '[') {
      this.p++;
      this.ws();
      if (this.t[this.p] === ']') {
        this.p++;
        return;
      }
      for (let i = 0; ; i++) {
        const here = found && path && depth < path.length && path[depth] === i;
        this.value(here ? path : undefined, depth + 1, asKey && !!here, here ? found : undefined);
        this.ws();
        const d = this.t[this.p++];
        if (d === ']') return;
        if (d !== ',') {
          this.p--;
          this.fail("expected ',' or ']' after an element");
        }
      }
    }
    if (c === '"') {
      this.string();
      return;
    }
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)/.exec(this.t.slice(this.p, this.p + 400));
    if (!m) this.fail(c === undefined ? 'the line ends where a value should be' : `unexpected ${JSON.stringify(c)}`);
    this.p += m[0].length;
  }
}

class JsonSyntax extends Error {
  constructor(
    readonly off: number,
    readonly what: string,
  ) {
    super(what);
  }
}

/** The first syntax error of a line that JSON.parse rejected: offset and what is wrong. */
export function jsonSyntaxError(line: string): { off: number; what: string } {
  const s = new JsonScan(line);
  try {
    s.value();
    s.ws();
    if (s.p < line.length) s.fail('more text after the object');
    return { off: 0, what: 'not valid JSON' };
  } catch (e) {
    if (e instanceof JsonSyntax) return { off: e.off, what: e.what };
    throw e;
  }
}

/** Locates a path on the current line. */
class LineLocator implements Locator {
  text = '';
  line = 0;
  locate(path: Path, asKey: boolean): Located {
    const found = { off: 0 };
    try {
      new JsonScan(this.text).value(path, 0, asKey, found);
    } catch {
      // a located problem on a line JSON.parse accepted cannot hit a syntax error; be safe anyway
    }
    return { line: this.line, col: found.off + 1, quoted: this.text[found.off] === '"' };
  }
}


// ---------------------------------------------------------------------------------------------
// The packed path: a line of the common shape, scanned by hand (JSON.parse alone costs ~1.3 us a line).

const PF: PackFields = newPackFields();

/** The fields the last scanPackedLine call left (the tests compare the native scanner's records with them). */
export const scannedFields = (): PackFields => PF;

/** End (after the closing quote) of a string without escapes or control characters at u[p], before `e`, or -1. */
function stringEnd(u: Uint8Array, p: number, e: number): number {
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
 * (PF.els, PF.cnt: packItem's readElems checks and reads them as hex); the offset after ']', or -1
 * (then the general path reads the line). Spaces are skipped in place (no call: the inliner's budget
 * is spent on the line's few calls).
 */
function listAt(u: Uint8Array, p: number, e: number, L: number): number {
  if (p < 0 || u[p] !== 91) return -1;
  p++;
  let c = u[p];
  while (c === 32 || c === 9) c = u[++p];
  const els = PF.els;
  const pre = PF.pre;
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
      PF.cnt[L] = k;
      return p + 1;
    }
    if (c !== 44) return -1;
    c = u[++p];
    while (c === 32 || c === 9) c = u[++p];
  }
}

const K = (k: string) => Uint8Array.from(k, (c) => c.charCodeAt(0));
const K_GLOBAL = K('global');
const K_SHARED = K('shared');

// Whether u[p] starts `"key"` (the quote at p, the first letter already matched by the caller): each
// key's bytes compared with constants (no loop over a key array: a few of these run per line).
/** "memory" */
const isMemory = (u: Uint8Array, p: number) => u[p + 7] === 34 && u[p + 2] === 101 && u[p + 3] === 109 && u[p + 4] === 111 && u[p + 5] === 114 && u[p + 6] === 121;
/** "expect" */
const isExpect = (u: Uint8Array, p: number) => u[p + 7] === 34 && u[p + 2] === 120 && u[p + 3] === 112 && u[p + 4] === 101 && u[p + 5] === 99 && u[p + 6] === 116;
/** "space" */
const isSpace = (u: Uint8Array, p: number) => u[p + 6] === 34 && u[p + 2] === 112 && u[p + 3] === 97 && u[p + 4] === 99 && u[p + 5] === 101;
/** "returned" */
const isReturned = (u: Uint8Array, p: number) => u[p + 9] === 34 && u[p + 2] === 101 && u[p + 3] === 116 && u[p + 4] === 117 && u[p + 5] === 114 && u[p + 6] === 110 && u[p + 7] === 101 && u[p + 8] === 100;

/**
 * `{ "b": [..], "c": [..] }` (operands) or `{ "memory": [..], "returned": [..] }` (expect) at u[p]:
 * records the lists in PF; the end, or -1.
 */
function innerMap(u: Uint8Array, p: number, e: number, expect: boolean): number {
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
    if (!setList(PF, slot as ListSlot, at)) return -1;
    p = listAt(u, at, e, slot);
    if (p < 0) return -1;
    c = u[p];
    while (c === 32 || c === 9) c = u[++p];
    if (c === 125) return p + 1;
    if (c !== 44) return -1;
    c = u[++p];
    while (c === 32 || c === 9) c = u[++p];
  }
}

/**
 * Recent instructions (a file uses a few), as bytes and as the one string handed on for each; and as
 * little-endian 32-bit words for comparing four bytes at a time: the whole words from the start, then
 * the last four bytes (overlapping the one before where the length is not a multiple of 4).
 */
const RECENT_BYTES: Uint8Array[] = [];
const RECENT_TEXT: string[] = [];
const RECENT_WORDS: Int32Array[] = [];

function wordsOf(b: Uint8Array): Int32Array {
  const n = b.length;
  if (n < 4) return new Int32Array(0);
  const dv = new DataView(b.buffer, b.byteOffset, n);
  const w = new Int32Array((n >> 2) + 1);
  for (let j = 0; j < n >> 2; j++) w[j] = dv.getInt32(4 * j, true);
  w[n >> 2] = dv.getInt32(n - 4, true);
  return w;
}


/** The instruction string at u[at] (a quoted string), or undefined; sets `instrEnd`. */
let instrEnd = -1;
function instructionAt(u: Uint8Array, at: number, e: number): string | undefined {
  if (at < 0 || u[at] !== 34) return undefined;
  for (let r = 0; r < RECENT_BYTES.length; r++) {
    const b = RECENT_BYTES[r]!;
    const n = b.length;
    if (u[at + 1 + n] !== 34) continue;
    // from the end: spellings of one file differ mostly in their last qualifiers (.f32, .b32, .u32)
    let i = n - 1;
    while (i >= 0 && u[at + 1 + i] === b[i]) i--;
    if (i < 0) {
      instrEnd = at + n + 2;
      return RECENT_TEXT[r];
    }
  }
  const q = stringEnd(u, at, e);
  if (q < 0) return undefined;
  const w = Buffer.from(u.buffer, u.byteOffset + at + 1, q - at - 2).toString('utf8');
  if (RECENT_BYTES.length >= 8) {
    RECENT_BYTES.pop();
    RECENT_TEXT.pop();
    RECENT_WORDS.pop();
  }
  const bytes = new Uint8Array(u.subarray(at + 1, q - 1)); // a copy: u may be the reader's reused buffer (Buffer.slice is a view)
  RECENT_BYTES.unshift(bytes);
  RECENT_TEXT.unshift(w);
  RECENT_WORDS.unshift(wordsOf(bytes));
  instrEnd = q;
  return w;
}

/** Whether u[p, q) is the quoted word `w` ("global", "shared"). */
function quotedIs(u: Uint8Array, p: number, q: number, w: Uint8Array): boolean {
  if (q - p !== w.length + 2) return false;
  for (let i = 0; i < w.length; i++) if (u[p + 1 + i] !== w[i]) return false;
  return true;
}

/**
 * Reads the line that starts at u[s] (the data ends at u[e]) into PF when it has the common shape
 * (string and hex-list fields, no escapes, each key once, then spaces or tabs to the line's end);
 * returns where the line ends: its '\n', or `e` where the data ends there and is the file's `last`
 * (a '\r' before either is the line's end too); -1 when the line is anything else or does not end
 * within the data (then the general path finds its end and reads it). Every byte the scanner takes
 * is one a line cannot end in (none is '\n'), so a line it reads lies within [s, e) and the search
 * for its end is this scan itself.
 */
export function scanPackedLine(u: Uint8Array, s: number, e: number, last: boolean): number {
  const f = PF;
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
        if (u[p + 5] !== 34 || u[p + 2] !== 97 || u[p + 3] !== 109 || u[p + 4] !== 101 || PF.nameAt >= 0) return -1; // "name"
        v = p + 6;
        break;
      case 105:
        if (
          u[p + 12] !== 34 || u[p + 2] !== 110 || u[p + 3] !== 115 || u[p + 4] !== 116 || u[p + 5] !== 114 || u[p + 6] !== 117 || u[p + 7] !== 99 || u[p + 8] !== 116 || u[p + 9] !== 105 || u[p + 10] !== 111 || u[p + 11] !== 110 ||
          PF.instruction !== undefined
        )
          return -1; // "instruction"
        v = p + 13;
        break;
      case 109:
        if (u[p + 7] !== 34 || u[p + 2] !== 101 || u[p + 3] !== 109 || u[p + 4] !== 111 || u[p + 5] !== 114 || u[p + 6] !== 121 || PF.memory >= 0) return -1; // "memory"
        v = p + 8;
        break;
      case 111:
        if (u[p + 9] !== 34 || u[p + 2] !== 112 || u[p + 3] !== 101 || u[p + 4] !== 114 || u[p + 5] !== 97 || u[p + 6] !== 110 || u[p + 7] !== 100 || u[p + 8] !== 115 || PF.operands) return -1; // "operands"
        v = p + 10;
        break;
      case 101:
        if (!isExpect(u, p) || PF.expect) return -1;
        v = p + 8;
        break;
      case 115:
        if (!isSpace(u, p) || PF.space !== undefined) return -1;
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
        PF.nameAt = v + 1;
        PF.nameEnd = i;
        PF.nameCol = v - s + 1;
        PF.nameHash = h | 1;
        PF.nameChecked = true;
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
        for (let r = 0; r < RECENT_BYTES.length; r++) {
          const b = RECENT_BYTES[r]!;
          const n = b.length;
          if (at + n >= e || u[at + n] !== 34) continue;
          // four bytes at a time (RECENT_WORDS), the last four first; a spelling of fewer, byte by byte
          let same = true;
          if (n >= 4) {
            const wd = RECENT_WORDS[r]!;
            const m = wd.length - 1;
            same = dv.getInt32(at + n - 4, true) === wd[m];
            for (let j = 0; same && j < m; j++) same = dv.getInt32(at + 4 * j, true) === wd[j];
          } else for (let i = 0; same && i < n; i++) same = u[at + i] === b[i];
          if (same) {
            w = RECENT_TEXT[r];
            q = at + n + 1;
            break;
          }
        }
        if (w === undefined) {
          w = instructionAt(u, v, e);
          if (w === undefined) return -1;
          q = instrEnd;
        }
        PF.instruction = w;
        break;
      }
      case 109:
        PF.memory = v;
        q = listAt(u, v, e, 0);
        break;
      case 111:
        PF.operands = true;
        q = innerMap(u, v, e, false);
        break;
      case 101:
        PF.expect = true;
        q = innerMap(u, v, e, true);
        break;
      default:
        // space
        q = stringEnd(u, v, e);
        if (q < 0) return -1;
        PF.space = quotedIs(u, v, q, K_GLOBAL) ? 'global' : quotedIs(u, v, q, K_SHARED) ? 'shared' : '?';
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

const HEADER_KEYS = ['instruction', 'cite', 'editions'];

/** Bytes past the data that JsonlScanner.lines' buffer should have (the scanner's look-ahead, at most 20 bytes, and the instruction's length, checked first). */
export const JSONL_SLACK = 64;

/** Reads one JSON-lines vector file given in pieces, returning the cases each piece completes. */
export class JsonlScanner {
  readonly ctx: FileCtx;
  private buf = '';
  private lineNo = 1;
  private sawFirst = false;
  private readonly loc = new LineLocator();
  private readonly sink: CaseSink;
  items = 0;
  /** Lines read by the packed path. */
  packedItems = 0;
  /** Of those, lines the native scanner read (native-scan.ts). */
  nativeItems = 0;
  /** The native scanner (undefined: every line by scanPackedLine), its records and this file's instruction spellings. */
  private readonly nat: NativeScan | undefined;
  private readonly rec: Int32Array;
  private readonly spellings = new Spellings();

  constructor(
    readonly file: string,
    readonly idFile: string,
    /** False: every line through JSON.parse and the general checks (the tests compare the two). */
    packing = true,
    /** The file's size, if known: the name set is made big enough for it at once. */
    bytes = 0,
  ) {
    this.ctx = newFileCtx(file, idFile, this.loc, 'no instruction for this case; give "instruction" on its line, or a first line {"instruction": ..., "cite": ...} for the file');
    this.sink = new CaseSink(this.ctx, packing);
    this.nat = packing ? nativeScan() : undefined;
    // records for about a quarter of the file's bytes (a line of the common shape is about 40 words in 110 bytes), 1K to 16K words
    this.rec = new Int32Array(this.nat ? Math.min(1 << 14, Math.max(1 << 10, bytes >> 2)) : 0);
    // about one name per 128 bytes (a packed line of one 32-bit element is ~110); more grow the set
    if (bytes > 0) this.ctx.names.reserve(Math.min(bytes / 128, 1 << 21));
  }

  /** Carried over from the last piece: the start of a line not yet ended. */
  private carry: Buffer | undefined;
  private started = false;

  /** A piece of the file's text (tests, small files): as its UTF-8 bytes. */
  push(text: string, last: boolean): CaseBatch[] {
    return this.pushBytes(Buffer.from(text, 'utf8'), last);
  }

  /**
   * The next piece of the file's bytes (the caller may reuse `chunk` once this returns). Lines are
   * split at '\n' bytes, which never fall inside a UTF-8 sequence; a line the packed path does not
   * take is decoded and read by the general path.
   */
  pushBytes(chunk: Uint8Array, last: boolean): CaseBatch[] {
    // the carried bytes and the chunk in one buffer, JSONL_SLACK bytes longer (see lines): the
    // chunk's own bytes where nothing is carried and its array has the slack after it, else a copy
    const had = this.carry?.length ?? 0;
    const n = had + chunk.length;
    let u: Buffer;
    if (!had && chunk.byteOffset + n + JSONL_SLACK <= chunk.buffer.byteLength) u = Buffer.from(chunk.buffer, chunk.byteOffset, n + JSONL_SLACK);
    else {
      u = Buffer.allocUnsafe(n + JSONL_SLACK);
      if (this.carry) this.carry.copy(u);
      u.set(chunk, had);
    }
    this.carry = undefined;
    const p = this.lines(u, n, last);
    if (p < n) this.carry = Buffer.from(u.subarray(p, n));
    return this.sink.take(last);
  }

  /**
   * The complete lines of u[0, n) (with `last`, the unterminated one at the end too); returns where
   * the first line not read starts (the caller keeps u[that, n) and appends the file's next bytes).
   * The cases come from take(). `u` should have JSONL_SLACK bytes past n (their values do not
   * matter): the packed scanner looks a few bytes ahead, past the data's end at its unfinished last
   * line, and an index past the array's end makes V8 undo the scanner's compiled code and compile a
   * slower one that allows for it, for the rest of the process.
   */
  lines(u: Buffer, n: number, last: boolean): number {
    let p = 0;
    if (!this.started && n >= 3 && u[0] === 0xef && u[1] === 0xbb && u[2] === 0xbf) p = 3;
    if (n) this.started = true;
    const packing = this.sink.packing;
    // the lines that end in the data (all of it when `last`): an unfinished line at the end waits for
    // the next bytes, unscanned (a scan of it would stop at the data's end, on paths the whole
    // lines never take, and V8 would compile the scanner again for them)
    const end = last ? n : u.lastIndexOf(10, n - 1) + 1;
    const nat = this.nat;
    for (;;) {
      if (p >= end) break;
      // lines the native scanner takes, many at a time; it stops at the first it does not take,
      // which the lines below read
      if (nat) {
        const k = nat.scan(u, p, end, n, last, this.rec, this.spellings.tbl, this.spellings.tix);
        if (k > 0) {
          p = this.records(u, p, k);
          continue;
        }
      }
      // a line the packed path takes: the scan finds its end (no search for the '\n' first)
      let nl = packing ? this.packed(u, p, n, last) : -1;
      if (nl < 0) {
        nl = u.indexOf(10, p);
        if (nl < 0 || nl >= n) {
          if (!last) break;
          nl = n;
        }
        const e = nl > p && u[nl - 1] === 13 ? nl - 1 : nl;
        if (e > p) this.one(u.toString('utf8', p, e));
      }
      p = nl + 1;
      this.lineNo++;
    }
    if (last) endNames(this.sink);
    return Math.min(p, n);
  }

  /** What the lines read so far made (a packed block still filling stays unless `last`). */
  take(last: boolean): CaseBatch[] {
    return this.sink.take(last);
  }

  /**
   * The `k` records the native scanner wrote for the lines from u[p], each to the sink as packItem
   * takes it (packRecord), and the general path for a line packItem does not take; returns where the
   * line after them starts.
   */
  private records(u: Buffer, p: number, k: number): number {
    const rec = this.rec;
    this.spellings.sync();
    const sink = this.sink;
    for (let r = 0, o = 0; r < k; r++) {
      const nl = rec[o + R_NL]!;
      const line = this.lineNo;
      if (packRecord(sink, rec, o, u, this.spellings, line, line)) {
        this.sawFirst = true;
        this.items++;
        this.packedItems++;
        this.nativeItems++;
      } else {
        const e = nl > p && u[nl - 1] === 13 ? nl - 1 : nl;
        if (e > p) this.one(u.toString('utf8', p, e));
      }
      o += rec[o + R_LEN]!;
      p = nl + 1;
      this.lineNo++;
    }
    return p;
  }

  /** The line at u[s] (the data ends at u[n]) by the packed path, if it takes it: where the line ends (its '\n', or n); else -1. */
  private packed(u: Uint8Array, s: number, n: number, last: boolean): number {
    const nl = scanPackedLine(u, s, n, last);
    if (nl < 0 || !packItem(this.sink, PF, this.lineNo, this.lineNo)) return -1;
    this.sawFirst = true;
    this.items++;
    this.packedItems++;
    return nl;
  }

  private one(text: string): void {
    const first = !this.sawFirst;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      if (/^\s*$/.test(text)) return;
      this.sawFirst = true;
      const e = jsonSyntaxError(text);
      this.ctx.problems.push({
        file: this.file,
        line: this.lineNo,
        col: e.off + 1,
        message: `JSON: ${e.what}; each line is one JSON object, e.g. {"name": "a", "memory": ["0x00000001"], "operands": {"b": ["0x00000002"]}}`,
      });
      return;
    }
    this.sawFirst = true;
    this.loc.text = text;
    this.loc.line = this.lineNo;
    if (first && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length > 0 && keys.every((k) => HEADER_KEYS.includes(k))) {
        checkHeader(this.ctx, v as Record<string, unknown>, HEADER_KEYS, 'the header line');
        return;
      }
    }
    this.items++;
    const c = checkCase(this.ctx, v, this.lineNo, this.lineNo);
    if (c) this.sink.case(c);
  }
}
