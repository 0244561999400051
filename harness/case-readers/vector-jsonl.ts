/**
 * JSON-lines vector files (`*.jsonl`): one case per line, a JSON object with the fields of a YAML
 * case. An optional first line that has only `instruction` and/or `cite` is the file's header and
 * gives every line its default instruction and citation. A line of the common shape (string and
 * hex-list fields only, no escapes) is read by hand straight into a packed block (jsonl-pack-scan.ts,
 * then pack-fields.ts and packed.ts); any
 * other line is parsed with JSON.parse, and only a line with a problem is scanned again, by hand, to
 * find the column of the offending field.
 */
import { type CaseBatch, CaseSink, endNames } from './packed.js';
import { packItem } from './pack-fields.js';
import { type FileCtx, type Located, type Locator, type Path, checkCase, checkHeader, newFileCtx } from './vector-check.js';
import { type NativeScan, R_LEN, R_NL, Spellings, nativeScan, packRecord } from './native-scan.js';
import { JsonlLineScanner } from './jsonl-pack-scan.js';

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
  /** The packed path's line scanner (jsonl-pack-scan.ts). */
  private readonly lineScan = new JsonlLineScanner();
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
    const nl = this.lineScan.scan(u, s, n, last);
    if (nl < 0 || !packItem(this.sink, this.lineScan.PF, this.lineNo, this.lineNo)) return -1;
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
