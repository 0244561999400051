/**
 * JSON-lines vector files (`*.jsonl`): one case per line, a JSON object with the fields of a YAML
 * case. An optional first line that has only `instruction` and/or `cite` is the file's header and
 * gives every line its default instruction and citation. A line of the common shape (string and
 * hex-list fields only, no escapes) is read by hand straight into a packed block (packed.ts); any
 * other line is parsed with JSON.parse, and only a line with a problem is scanned again, by hand, to
 * find the column of the offending field.
 */
import { type CaseBatch, CaseSink, type PackFields, newPackFields, packItem, resetPackFields } from './packed.js';
import { type FileCtx, type Located, type Locator, type Path, checkCase, checkHeader, newFileCtx, own } from './vector-check.js';

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

/** Spaces and tabs from p. */
function wsAt(t: string, p: number): number {
  for (;;) {
    const c = t.charCodeAt(p);
    if (c !== 32 && c !== 9) return p;
    p++;
  }
}

/** End (after the closing quote) of a string without escapes or control characters at t[p], before `e`, or -1. */
function stringEnd(t: string, p: number, e: number): number {
  if (t.charCodeAt(p) !== 34) return -1;
  for (let i = p + 1; i < e; i++) {
    const c = t.charCodeAt(i);
    if (c === 34) return i + 1;
    if (c === 92 || c < 32) return -1;
  }
  return -1;
}

/** End of a string at t[p] whose characters are those of a case name (letters, digits, _ . -), or -1. */
function nameEnd(t: string, p: number, e: number): number {
  if (t.charCodeAt(p) !== 34) return -1;
  for (let i = p + 1; i < e; i++) {
    const c = t.charCodeAt(i);
    if (c === 34) return i > p + 1 ? i + 1 : -1;
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45)) return -1;
  }
  return -1;
}

/** The end of a list of hex strings at t[p] (its syntax is checked when it is read), before `e`, or -1. */
function listEnd(t: string, p: number, e: number): number {
  if (t.charCodeAt(p) !== 91) return -1;
  const q = t.indexOf(']', p);
  return q < 0 || q >= e ? -1 : q + 1;
}

/** After the key that ends at t[p] (its closing quote): spaces, ':', spaces; the value's offset, or -1. */
function afterKey(t: string, p: number): number {
  let c = t.charCodeAt(p);
  if (c !== 58) {
    p = wsAt(t, p);
    if (t.charCodeAt(p) !== 58) return -1;
  }
  p++;
  c = t.charCodeAt(p);
  return c === 32 || c === 9 ? wsAt(t, p) : p;
}

/** `"key"` at t[p], with the quote at p: whether it is `key` exactly (then the key ends at p + key.length + 2). */
const keyIs = (t: string, p: number, key: string) => t.charCodeAt(p + key.length + 1) === 34 && t.startsWith(key, p + 1);

/**
 * `{ "b": [..], "c": [..] }` (operands) or `{ "memory": [..], "returned": [..] }` (expect) at t[p]:
 * records the lists in PF; the end, or -1.
 */
function innerMap(t: string, p: number, e: number, expect: boolean): number {
  if (t.charCodeAt(p) !== 123) return -1;
  p = wsAt(t, p + 1);
  for (;;) {
    if (t.charCodeAt(p) !== 34) return -1;
    let at = -1;
    let slot = 0;
    const k = t.charCodeAt(p + 1);
    if (!expect) {
      if ((k === 98 || k === 99) && t.charCodeAt(p + 2) === 34) {
        at = afterKey(t, p + 3);
        slot = k === 98 ? 1 : 2;
      }
    } else if (k === 109 && keyIs(t, p, 'memory')) {
      at = afterKey(t, p + 8);
      slot = 3;
    } else if (k === 114 && keyIs(t, p, 'returned')) {
      at = afterKey(t, p + 10);
      slot = 4;
    }
    if (at < 0) return -1;
    const q = listEnd(t, at, e);
    if (q < 0) return -1;
    if (slot === 1) {
      if (PF.b >= 0) return -1;
      PF.b = at;
    } else if (slot === 2) {
      if (PF.c >= 0) return -1;
      PF.c = at;
    } else if (slot === 3) {
      if (PF.expMemory >= 0) return -1;
      PF.expMemory = at;
    } else {
      if (PF.expReturned >= 0) return -1;
      PF.expReturned = at;
    }
    p = t.charCodeAt(q) === 32 ? wsAt(t, q) : q;
    const d = t.charCodeAt(p);
    if (d === 125) return p + 1;
    if (d !== 44) return -1;
    p = wsAt(t, p + 1);
  }
}

/** Recent instruction strings (a file uses a few): matching one in place skips a slice and a hash. */
const RECENT: string[] = [];

function instructionAt(t: string, at: number, e: number): string | undefined {
  if (t.charCodeAt(at) !== 34) return undefined;
  for (let i = 0; i < RECENT.length; i++) {
    const r = RECENT[i]!;
    if (t.charCodeAt(at + 1 + r.length) === 34 && t.startsWith(r, at + 1)) return r;
  }
  const q = stringEnd(t, at, e);
  if (q < 0) return undefined;
  const w = own(t.slice(at + 1, q - 1));
  if (RECENT.length >= 8) RECENT.pop();
  RECENT.unshift(w);
  return w;
}

/**
 * Reads the line t[s, e) into PF when it has the common shape (string and hex-list fields, no
 * escapes, each key once); false when it is anything else.
 */
export function scanPackedLine(t: string, s = 0, e = t.length): boolean {
  resetPackFields(PF, t);
  let p = wsAt(t, s);
  if (t.charCodeAt(p) !== 123) return false;
  p = wsAt(t, p + 1);
  for (;;) {
    if (t.charCodeAt(p) !== 34) return false;
    let q = -1;
    switch (t.charCodeAt(p + 1)) {
      case 110: // name
        if (!keyIs(t, p, 'name') || PF.name !== undefined) return false;
        p = afterKey(t, p + 6);
        q = nameEnd(t, p, e);
        if (q < 0) return false;
        PF.name = t.slice(p + 1, q - 1);
        PF.nameChecked = true;
        break;
      case 105: // instruction
        if (!keyIs(t, p, 'instruction') || PF.instruction !== undefined) return false;
        p = afterKey(t, p + 13);
        PF.instruction = instructionAt(t, p, e);
        if (PF.instruction === undefined) return false;
        q = p + PF.instruction.length + 2;
        break;
      case 109: // memory
        if (!keyIs(t, p, 'memory') || PF.memory >= 0) return false;
        p = afterKey(t, p + 8);
        PF.memory = p;
        q = listEnd(t, p, e);
        break;
      case 111: // operands
        if (!keyIs(t, p, 'operands') || PF.operands) return false;
        PF.operands = true;
        q = innerMap(t, afterKey(t, p + 10), e, false);
        break;
      case 101: // expect
        if (!keyIs(t, p, 'expect') || PF.expect) return false;
        PF.expect = true;
        q = innerMap(t, afterKey(t, p + 8), e, true);
        break;
      case 115: // space
        if (!keyIs(t, p, 'space') || PF.space !== undefined) return false;
        p = afterKey(t, p + 7);
        q = stringEnd(t, p, e);
        if (q < 0) return false;
        PF.space = t.slice(p + 1, q - 1);
        break;
      default:
        return false;
    }
    if (q < 0) return false;
    p = t.charCodeAt(q) === 32 ? wsAt(t, q) : q;
    const d = t.charCodeAt(p);
    if (d === 125) return wsAt(t, p + 1) >= e;
    if (d !== 44) return false;
    p = wsAt(t, p + 1);
  }
}

const HEADER_KEYS = ['instruction', 'cite'];

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

  constructor(
    readonly file: string,
    readonly idFile: string,
    /** False: every line through JSON.parse and the general checks (the tests compare the two). */
    packing = true,
  ) {
    this.ctx = newFileCtx(file, idFile, this.loc, 'no instruction for this case; give "instruction" on its line, or a first line {"instruction": ..., "cite": ...} for the file');
    this.sink = new CaseSink(this.ctx, packing);
  }

  push(text: string, last: boolean): CaseBatch[] {
    const buf = this.buf.length ? this.buf + text : text;
    let p = 0;
    for (;;) {
      let nl = buf.indexOf('\n', p);
      if (nl < 0) {
        if (!last || p >= buf.length) break;
        nl = buf.length;
      }
      const e = nl > p && buf.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      if (e > p && !(this.sink.packing && this.packed(buf, p, e))) this.one(buf.slice(p, e));
      p = nl + 1;
      this.lineNo++;
    }
    this.buf = p < buf.length ? buf.slice(p) : '';
    return this.sink.take();
  }

  /** The line buf[s, e) by the packed path, if it takes it. */
  private packed(buf: string, s: number, e: number): boolean {
    if (!scanPackedLine(buf, s, e) || !packItem(this.sink, PF, this.lineNo, this.lineNo)) return false;
    this.sawFirst = true;
    this.items++;
    this.packedItems++;
    return true;
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
