/**
 * JSON-lines vector files (`*.jsonl`): one case per line, a JSON object with the fields of a YAML
 * case. An optional first line that has only `instruction` and/or `cite` is the file's header and
 * gives every line its default instruction and citation. A line of the common shape (string and
 * hex-list fields only, no escapes) is read by hand straight into a packed block (jsonl-pack-scan.ts,
 * then pack-fields.ts and packed.ts); any
 * other line is parsed with JSON.parse; a problem is located by the `yaml` package (yaml-locate.ts)
 * and a syntax error by JSON.parse's own message.
 */
import { type CaseBatch, CaseSink, endNames } from './packed.js';
import { packItem } from './pack-fields.js';
import { type FileCtx, checkCase, checkHeader, newFileCtx } from './vector-check.js';
import { type NativeScan, R_LEN, R_NL, Spellings, nativeScan, packRecord } from './native-scan.js';
import { JsonlLineScanner } from './jsonl-pack-scan.js';
import { TextLocator } from './yaml-locate.js';

/**
 * The first syntax error of a line that JSON.parse rejected: its offset and what is wrong, both from
 * JSON.parse. Where its message gives no position ("Unexpected token 'x', ..."), the error is at the
 * end of the longest prefix JSON.parse still reads as an unfinished text (a prefix that is not, has
 * the error in it: the property is monotone, so a binary search finds it).
 */
export function jsonSyntaxError(line: string): { off: number; what: string } {
  const message = parseError(line);
  if (message === undefined) return { off: 0, what: 'not valid JSON' };
  const what = message
    .replace(/, .* is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/^Unexpected token/, 'unexpected')
    .replace(/^./, (c) => c.toLowerCase());
  const at = / at position (\d+)/.exec(message);
  if (at) return { off: Number(at[1]), what };
  let lo = 0; // line.slice(0, lo) reads as unfinished
  let hi = line.length; // line.slice(0, hi) has the error
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (unfinished(line.slice(0, mid))) lo = mid;
    else hi = mid;
  }
  return { off: lo, what };
}

function parseError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Whether JSON.parse reads `text` as valid or as cut short (its error at the end, not inside). */
function unfinished(text: string): boolean {
  const m = parseError(text);
  if (m === undefined || /Unexpected end of JSON input/.test(m)) return true;
  const at = / at position (\d+)/.exec(m);
  return at !== null && Number(at[1]) >= text.trimEnd().length;
}

const HEADER_KEYS = ['instruction', 'cite', 'editions'];

/** Bytes past the data that JsonlScanner.lines' buffer should have (the scanner's look-ahead, at most 20 bytes, and the instruction's length, checked first). */
export const JSONL_SLACK = 64;

/** Reads one JSON-lines vector file given in pieces, returning the cases each piece completes. */
export class JsonlScanner {
  readonly ctx: FileCtx;
  private lineNo = 1;
  private sawFirst = false;
  private readonly loc = new TextLocator(false);
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
    this.ctx = newFileCtx(
      file,
      idFile,
      this.loc,
      'no instruction for this case; give "instruction" on its line, or a first line {"instruction": ..., "cite": ...} for the file',
    );
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
    this.loc.baseLine = this.lineNo;
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
