/**
 * The fast path of YAML vector files: one list item of the simple one-line forms (`key: value`,
 * `key: [ "0x..", ... ]`, `key: { b: [...] }`) read into a plain value, or undefined (the `yaml`
 * package then reads it). Its state is an ItemReader's own (one per scanner).
 */
import { CASE_KEYS, own } from './vector-check.js';

export const SP = 32;
export const NL = 10;
export const CR = 13;

const isKeyStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isKeyChar = (c: number) => isKeyStart(c) || (c >= 48 && c <= 57);

/** Keys a case uses (and the element-format shorthands), matched without allocating a string. */
const KNOWN = ['name', 'instruction', 'memory', 'operands', 'b', 'c', 'replicas', 'source', 'expect', 'space', 'returned'];

export const RESERVED = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;
const HEX_PLAIN = /^0x[0-9a-fA-F]+$/;

const FAIL = Symbol('fail');

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

/**
 * Reads list items of the simple one-line forms (the fast path of vector-yaml.ts's YamlScanner):
 * one reader per scanner; its position in the text being read is its own state.
 */
export class ItemReader {
  /** The text being read, the position in it, and the end of the item. */
  private T = '';
  private P = 0;
  private E = 0;
  /** Recent instruction spellings: the same few repeat on every case, and reusing one string skips a slice and a hash. */
  private readonly RECENT: string[] = [];

  private eol(p: number): boolean {
    return p >= this.E || this.T.charCodeAt(p) === NL || (this.T.charCodeAt(p) === CR && (p + 1 >= this.E || this.T.charCodeAt(p + 1) === NL));
  }

  skipSpaces(): void {
    while (this.P < this.E && this.T.charCodeAt(this.P) === SP) this.P++;
  }

  /** A plain key ([A-Za-z_][A-Za-z0-9_]*) or a double-quoted one without escapes. */
  readKey(): string | undefined {
    const c = this.T.charCodeAt(this.P);
    if (c === 34) {
      const k = this.readQuoted();
      return k === '__proto__' ? undefined : k;
    }
    if (!isKeyStart(c)) return undefined;
    const s = this.P++;
    while (this.P < this.E && isKeyChar(this.T.charCodeAt(this.P))) this.P++;
    const len = this.P - s;
    for (let i = 0; i < KNOWN.length; i++) {
      const k = KNOWN[i]!;
      if (k.length === len && this.T.startsWith(k, s)) return k;
    }
    const k = this.T.slice(s, this.P);
    return k === '__proto__' ? undefined : k;
  }

  /** A double-quoted string on one line without escapes. */
  readQuoted(): string | undefined {
    const s = ++this.P;
    for (; this.P < this.E; this.P++) {
      const c = this.T.charCodeAt(this.P);
      if (c === 34) return this.T.slice(s, this.P++);
      if (c === 92 || c === NL || c === CR) return undefined;
    }
    return undefined;
  }

  /**
   * The plain scalar T[s, e) if it resolves the same under every reading, else undefined: a word
   * ([A-Za-z][A-Za-z0-9_.-]*, and ':' in block context, not null/true/false) or a decimal int or float.
   */
  plainAt(s: number, e: number, block: boolean, intern: boolean): unknown {
    const c0 = this.T.charCodeAt(s);
    if ((c0 >= 97 && c0 <= 122) || (c0 >= 65 && c0 <= 90)) {
      for (let i = s + 1; i < e; i++) {
        const c = this.T.charCodeAt(i);
        if (
          !(
            (c >= 97 && c <= 122) ||
            (c >= 65 && c <= 90) ||
            (c >= 48 && c <= 57) ||
            c === 95 ||
            c === 46 ||
            c === 45 ||
            c === 40 ||
            c === 41 ||
            (c === 58 && block)
          )
        )
          return undefined;
      }
      if (this.T.charCodeAt(e - 1) === 58) return undefined;
      const len = e - s;
      if (intern) {
        for (let i = 0; i < this.RECENT.length; i++) {
          const r = this.RECENT[i]!;
          if (r.length === len && this.T.startsWith(r, s)) return r;
        }
      }
      const w = this.T.slice(s, e);
      if ((len === 4 || len === 5) && RESERVED.test(w)) return undefined;
      if (intern) {
        if (this.RECENT.length >= 16) this.RECENT.pop();
        this.RECENT.unshift(own(w));
      }
      return w;
    }
    const w = this.T.slice(s, e);
    if (HEX_PLAIN.test(w)) return w; // plain hex stays as written (plainOf)
    if (!NUMBER.test(w) || w === '-0') return undefined;
    return w.includes('.') ? Number.parseFloat(w) : Number(w);
  }

  flowValue(depth = 0): unknown {
    if (depth > 32) return FAIL;
    const c = this.T.charCodeAt(this.P);
    if (c === 91 /* [ */) {
      this.P++;
      this.skipSpaces();
      const out: unknown[] = [];
      if (this.T.charCodeAt(this.P) === 93) {
        this.P++;
        return out;
      }
      for (;;) {
        const v = this.flowValue(depth + 1);
        if (v === FAIL) return FAIL;
        out.push(v);
        this.skipSpaces();
        const d = this.T.charCodeAt(this.P++);
        if (d === 93) return out;
        if (d !== 44) return FAIL;
        this.skipSpaces();
        if (this.T.charCodeAt(this.P) === 93) return FAIL; // a trailing comma: leave it to the yaml package
      }
    }
    if (c === 123 /* { */) {
      this.P++;
      this.skipSpaces();
      const out: Record<string, unknown> = {};
      if (this.T.charCodeAt(this.P) === 125) {
        this.P++;
        return out;
      }
      for (;;) {
        const k = this.readKey();
        if (k === undefined || this.T.charCodeAt(this.P) !== 58 || this.T.charCodeAt(this.P + 1) !== SP || k in out) return FAIL;
        this.P += 2;
        this.skipSpaces();
        const v = this.flowValue(depth + 1);
        if (v === FAIL) return FAIL;
        out[k] = v;
        this.skipSpaces();
        const d = this.T.charCodeAt(this.P++);
        if (d === 125) return out;
        if (d !== 44) return FAIL;
        this.skipSpaces();
        if (this.T.charCodeAt(this.P) === 125) return FAIL;
      }
    }
    if (c === 34) {
      const s = this.readQuoted();
      return s === undefined ? FAIL : s;
    }
    // a plain scalar in flow context: up to , ] } (no ':' '#' '[' '{' inside)
    const s = this.P;
    for (; this.P < this.E; this.P++) {
      const d = this.T.charCodeAt(this.P);
      if (d === 44 || d === 93 || d === 125) break;
      if (d === NL || d === CR || d === 58 || d === 35 || d === 91 || d === 123 || d === 9) return FAIL;
    }
    let e = this.P;
    while (e > s && this.T.charCodeAt(e - 1) === SP) e--;
    if (e === s) return FAIL;
    const v = this.plainAt(s, e, false, false);
    return v === undefined ? FAIL : v;
  }

  /** After a value: spaces, then the end of the line or a comment. */
  endOfLine(): boolean {
    const s = this.P;
    this.skipSpaces();
    if (this.eol(this.P)) return true;
    return this.T.charCodeAt(this.P) === 35 && this.P > s;
  }

  /** Moves P to the start of the next line (or E). */
  nextLine(): void {
    const nl = this.T.indexOf('\n', this.P);
    this.P = nl < 0 || nl >= this.E ? this.E : nl + 1;
  }

  /** Parses the list item text[s, e) (its first line starts with `indent` spaces and `- `), or gives up. */
  read(text: string, s: number, e: number, indent: number): FastItem | undefined {
    this.T = text;
    this.E = e;
    this.P = s + indent + 1;
    if (this.T.charCodeAt(this.P) !== SP) return undefined;
    this.skipSpaces();
    const keyCol = this.P - s;
    const out = new FastCase() as unknown as Record<string, unknown>;
    let nameLine = 0;
    let line = 0;
    let first = true;
    while (this.P < this.E) {
      if (!first) {
        // a continuation line: blank, a comment, or a key at exactly the item's key column
        const ls = this.P;
        this.skipSpaces();
        if (this.eol(this.P) || this.T.charCodeAt(this.P) === 35) {
          this.nextLine();
          line++;
          continue;
        }
        if (this.P - ls !== keyCol) return undefined;
      }
      first = false;
      if (!isKeyStart(this.T.charCodeAt(this.P))) return undefined;
      const k = this.readKey();
      // only the keys of a case, each once (the yaml package reports anything else)
      if (k === undefined || this.T.charCodeAt(this.P) !== 58 || this.T.charCodeAt(this.P + 1) !== SP || !CASE_KEY_SET.has(k) || out[k] !== undefined)
        return undefined;
      this.P += 2;
      this.skipSpaces();
      const c = this.T.charCodeAt(this.P);
      let v: unknown;
      if (c === 91 || c === 123 || c === 34) {
        v = this.flowValue();
        if (v === FAIL || !this.endOfLine()) return undefined;
      } else {
        if (this.eol(this.P) || c === 35) return undefined; // an empty value, or a nested block: the yaml package
        const vs = this.P;
        let ve = this.P;
        for (; this.P < this.E; this.P++) {
          const d = this.T.charCodeAt(this.P);
          if (d === NL || d === CR) break;
          if (d === 35 && this.T.charCodeAt(this.P - 1) === SP) break;
          if (d === 9) return undefined;
        }
        ve = this.P;
        while (ve > vs && this.T.charCodeAt(ve - 1) === SP) ve--;
        v = ve > vs ? this.plainAt(vs, ve, true, k === 'instruction') : undefined;
        if (v === undefined || !(this.T.charCodeAt(this.P) === 35 || this.eol(this.P))) return undefined;
      }
      out[k] = v;
      if (k === 'name') nameLine = line;
      this.nextLine();
      line++;
    }
    return { value: out, nameLine, lines: line };
  }
}
