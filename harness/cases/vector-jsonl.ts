/**
 * JSON-lines vector files (`*.jsonl`): one case per line, a JSON object with the fields of a YAML
 * case. An optional first line that has only `instruction` and/or `cite` is the file's header and
 * gives every line its default instruction and citation. Lines are parsed with JSON.parse; only a
 * line with a problem is scanned again, by hand, to find the column of the offending field.
 */
import { type FileCtx, type Located, type Locator, type Path, checkCase, checkHeader, newFileCtx } from './vector-check.js';
import type { Case } from './types.js';

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

const HEADER_KEYS = ['instruction', 'cite'];

/** Reads one JSON-lines vector file given in pieces, returning the cases each piece completes. */
export class JsonlScanner {
  readonly ctx: FileCtx;
  private buf = '';
  private lineNo = 1;
  private sawFirst = false;
  private readonly loc = new LineLocator();
  items = 0;

  constructor(
    readonly file: string,
    readonly idFile: string,
  ) {
    this.ctx = newFileCtx(file, idFile, this.loc, 'no instruction for this case; give "instruction" on its line, or a first line {"instruction": ..., "cite": ...} for the file');
  }

  push(text: string, last: boolean): Case[] {
    const buf = this.buf.length ? this.buf + text : text;
    const out: Case[] = [];
    let p = 0;
    for (;;) {
      let nl = buf.indexOf('\n', p);
      if (nl < 0) {
        if (!last || p >= buf.length) break;
        nl = buf.length;
      }
      const e = nl > p && buf.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      if (e > p) this.one(buf.slice(p, e), out);
      p = nl + 1;
      this.lineNo++;
    }
    this.buf = p < buf.length ? buf.slice(p) : '';
    return out;
  }

  private one(text: string, out: Case[]): void {
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
    if (c) out.push(c);
  }
}
