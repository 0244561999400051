/**
 * YAML vector files, read piecewise. A file in the simple block layout (top-level `instruction:`,
 * `cite:`, then `cases:` as a block list whose items all start `- ` at one indentation) is split at
 * its list items and each item is parsed alone: an item of the common case shape (in any ordinary
 * spelling: block or flow maps and lists, quoted or plain hex, comments, any key order) straight from
 * the file's UTF-8 bytes into a packed block (yaml-pack-scan.ts, then packed.ts; where it is built,
 * its C++ twin native/reader/src/yaml_scan.cc reads such items many at a time), else by a
 * hand-written reader of the common one-line forms (yaml-item.ts: `key: value`, `key: [ "0x..", ... ]`, `key: { b: [...] }`),
 * and by the `yaml` package for anything else. Either way an item becomes the same plain value, and a problem is located by
 * parsing the item with the `yaml` package (only then) and walking to the offending node, with line
 * numbers offset to the real file. A file that is not in that layout, or (small files only) whose
 * items do not parse on their own, is parsed as one document, as long as it is small.
 */
import { type Document, LineCounter, type Node, isMap, isSeq, parseDocument } from 'yaml';
import { NodeLocator, TextLocator, YAML_OPTS, plainOf } from './yaml-locate.js';
import { type CaseBatch, CaseSink, endNames } from './packed.js';
import { type PackFields, packItem } from './pack-fields.js';
import { type NativeScan, R_LEN, R_LINES, R_NAMELINE, R_NL, Spellings, YAML_SLACK, nativeScan, packRecord } from './native-scan.js';
import type { Case } from './types.js';
import { CR, type FastItem, ItemReader, NL, SP } from './yaml-item.js';
import { newPackScanner } from './yaml-pack-scan.js';
import { type FileCtx, at, checkCase, checkHeader, newFileCtx } from './vector-check.js';

/** Files up to this size may be parsed as one document when they are not in the simple layout. */
export const WHOLE_DOC_LIMIT = 4 * 1024 * 1024;
/** The header (everything before `cases:`) of a big file may be this long. */
const HEADER_LIMIT = 1024 * 1024;

/** Whether u[s] starts a list item's first line: `indent` spaces, '-', ' '. */
function itemStartAt(u: Uint8Array, s: number, indent: number): boolean {
  const lim = s + indent;
  let i = s;
  while (i < lim && u[i] === SP) i++;
  return i === lim && u[i] === 45 && u[i + 1] === SP;
}

/**
 * packScan as YamlScanner.packRun calls it, for the tests: the item at u[s] (u[0, n) the data, SLACK
 * zero bytes after it) read to the next item's line, or to n when `last`; its fields (a scanner's
 * PackFields), where it ends and its lines, or undefined.
 */
export function packScanRun(
  u: Uint8Array,
  s: number,
  n: number,
  indent: number,
  last: boolean,
): { f: PackFields; end: number; lines: number; nameLine: number } | undefined {
  const ps = newPackScanner();
  return itemStartAt(u, s, indent) && ps.packScan(u, s, n, indent, true, last)
    ? { f: ps.PF, end: ps.packEnd, lines: ps.packLines, nameLine: ps.packNameLine }
    : undefined;
}

// ---------------------------------------------------------------------------------------------
// The file scanner.

/** Zero bytes after the work buffer's data, where the packed scanners stop (YamlScanner.sbuf). */
const SLACK = YAML_SLACK;

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
  private readonly chunkLoc = new TextLocator(true);
  /** The fast path's reader of one-line item forms (yaml-item.ts). */
  private readonly itemReader = new ItemReader();
  /** The packed path's scanner (its fields and positions). */
  private readonly pack = newPackScanner();
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
    } else if (len > 0 && keep > 0)
      this.work.copyWithin(0, this.buf.byteOffset - this.work.byteOffset + keep, this.buf.byteOffset - this.work.byteOffset + keep + len);
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
      if (
        !itemStartAt(buf, p, I) ||
        !this.pack.packScan(buf, p, n, I, true, last) ||
        !packItem(this.sink, this.pack.PF, this.lineNo, this.lineNo + this.pack.packNameLine)
      )
        break;
      this.items++;
      this.packedItems++;
      this.lineNo += this.pack.packLines;
      p = this.pack.packEnd;
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
          this.stop({
            line: this.lineNo,
            why: `a line inside the cases: list that is not indented past its items (${I} spaces) and does not start a new item`,
          });
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
    if (
      e > p &&
      !this.notSimple &&
      this.sink.packing &&
      this.pack.packScan(this.sbuf, p, e, this.indent) &&
      packItem(this.sink, this.pack.PF, this.lineNo, this.lineNo + this.pack.packNameLine)
    ) {
      this.items++;
      this.packedItems++;
      this.itemStart = -1;
      this.lineNo += this.pack.packLines;
      return e;
    }
    if (e > p && !this.notSimple && this.fastPath) {
      const text = buf.toString('utf8', p, e);
      const fast = this.itemReader.read(text, 0, text.length, this.indent);
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
    if (this.sink.packing && this.pack.packScan(this.sbuf, s, e, this.indent) && packItem(this.sink, this.pack.PF, line, line + this.pack.packNameLine)) {
      this.packedItems++;
      return;
    }
    const text = buf.toString('utf8', s, e);
    const fast = this.fastPath ? this.itemReader.read(text, 0, text.length, this.indent) : undefined;
    if (fast) this.fast(fast, text, line);
    else this.slowItem(text, line);
  }

  /** Checks an item the fast path read (its problems, rare, are located by parsing it again). */
  private fast(fast: FastItem, text: string, line: number): void {
    this.fastItems++;
    const loc = this.chunkLoc;
    loc.text = text;
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
      if (!simple && (this.phase as string) !== 'done')
        this.stop({ line: this.lineNo - 1, why: this.phase === 'header' ? 'no top-level cases: line' : 'an empty cases: list' });
    }
    this.phase = 'done';
  }
}

function yamlErrors(ctx: FileCtx, doc: Document, lc: LineCounter, baseLine: number): void {
  for (const e of doc.errors) {
    const pos = e.linePos?.[0] ?? lc.linePos(e.pos[0]);
    ctx.problems.push({
      file: ctx.file,
      line: baseLine + pos.line - 1,
      col: pos.col,
      message: `YAML: ${e.message.split('\n')[0]}; fix the syntax (indentation, brackets, quotes)`,
    });
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
