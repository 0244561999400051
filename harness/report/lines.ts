/**
 * A result's JSON line, where its maker wrote it already: a backend that makes many plain passes
 * from packed data (harness/backends/reference/packed-pass.ts) writes each one's text as bytes
 * while it makes it, exactly the text JSON.stringify gives for the object (tests hold it to that),
 * and the report writers copy those bytes instead of serialising the object: the stream line as
 * written, report.json's with the catalog judgement's index in place of the judgement. A copy of
 * the object (copyResult) has no line and is serialised as usual.
 */
import type { EntryResult } from './types.js';

/**
 * Bytes many lines are written into, one after another, in chunks: a line is begun with `line(k)`
 * (room for k bytes, in a fresh chunk if this one has not), so that it never spans two; a chunk,
 * once left, is never written again (the lines recorded in it stay as they are).
 */
export class LineBytes {
  buf: Uint8Array;
  n = 0;
  constructor(private readonly size = 1 << 20) {
    this.buf = Buffer.allocUnsafeSlow(size);
  }
  /** Begins a line of at most k bytes. */
  line(k: number): void {
    if (this.n + k > this.buf.length) {
      this.buf = Buffer.allocUnsafeSlow(Math.max(this.size, k));
      this.n = 0;
    }
  }
  /** Appends bytes. */
  bytes(u: Uint8Array): void {
    const b = this.buf;
    let at = this.n;
    // a loop: most pieces are a few bytes, where TypedArray.set costs more than it copies
    if (u.length < 64) for (let k = 0; k < u.length; k++) b[at++] = u[k]!;
    else {
      b.set(u, at);
      at += u.length;
    }
    this.n = at;
  }
}

/**
 * Where a result's line is: bytes [start, end) of `buf` (a chunk of a LineBytes; a newline follows
 * at `end`), the catalog judgement's JSON at [cat, catEnd).
 */
export interface LineRef {
  readonly buf: Uint8Array;
  readonly start: number;
  readonly cat: number;
  readonly catEnd: number;
  readonly end: number;
}

const DECODER = new TextDecoder();
type CaseDetail = NonNullable<EntryResult['case']>;

/**
 * A plain pass whose line its maker wrote (a reference-model case that passed with its trail
 * computed and nothing observed: there is nothing to enrich). Its fields are getters of the class
 * (its `case` read back from the line when asked for), so that making one costs no closure and
 * little memory (a run under --keep all makes hundreds of thousands), which means that a spread
 * (`{ ...r }`) or a structured clone would lose them: copy one with copyResult, which every
 * copying step of the comparator uses.
 */
export interface PlainPassGroup {
  readonly family: string;
  readonly ptx: string;
  readonly catalog: EntryResult['catalog'];
  readonly reason: string;
  /** The id up to the case's name (`<variant>/<file>:`). */
  readonly idPrefix: string;
}

export class PlainPass implements EntryResult, LineRef {
  // what the results of a group share, and where this one's name is: the fields a result has are
  // getters over them, so that a run keeping hundreds of thousands holds small objects (the
  // collector copies every one of them while the run goes)
  readonly #g: PlainPassGroup;
  readonly #names: { name(i: number): string };
  readonly #i: number;
  // where its line is (LineRef, as getters: no object per line)
  readonly #buf: Uint8Array;
  readonly #start: number;
  readonly #cat: number;
  readonly #catEnd: number;
  readonly #end: number;
  #id: string | undefined;
  #case: CaseDetail | undefined;
  constructor(g: PlainPassGroup, names: { name(i: number): string }, i: number, buf: Uint8Array, start: number, cat: number, catEnd: number, end: number) {
    this.#g = g;
    this.#names = names;
    this.#i = i;
    this.#buf = buf;
    this.#start = start;
    this.#cat = cat;
    this.#catEnd = catEnd;
    this.#end = end;
  }
  get id(): string {
    return (this.#id ??= this.#g.idPrefix + this.#names.name(this.#i));
  }
  /** The id up to its case name (its group's). */
  get idPrefix(): string {
    return this.#g.idPrefix;
  }
  get family(): string {
    return this.#g.family;
  }
  get kind(): 'case' {
    return 'case';
  }
  get ptx(): string {
    return this.#g.ptx;
  }
  get modulePtx(): string {
    return '-';
  }
  get catalog(): EntryResult['catalog'] {
    return this.#g.catalog;
  }
  get verdict(): 'pass' {
    return 'pass';
  }
  get reason(): string {
    return this.#g.reason;
  }
  get buf(): Uint8Array {
    return this.#buf;
  }
  get start(): number {
    return this.#start;
  }
  get cat(): number {
    return this.#cat;
  }
  get catEnd(): number {
    return this.#catEnd;
  }
  get end(): number {
    return this.#end;
  }
  get case(): CaseDetail {
    return (this.#case ??= (JSON.parse(resultLine(this)) as { case: CaseDetail }).case);
  }
  /** Where its line is. */
  static lineOf(r: EntryResult): LineRef | undefined {
    return r instanceof PlainPass ? r : undefined;
  }
  /** The result as a plain object, `case` included (JSON.stringify takes this; copyResult copies it). */
  toJSON(): EntryResult {
    return {
      id: this.id,
      family: this.family,
      kind: this.kind,
      ptx: this.ptx,
      modulePtx: this.modulePtx,
      catalog: this.catalog,
      verdict: this.verdict,
      reason: this.reason,
      case: this.case,
    };
  }
}

/** `{ ...r, ...extra }` for any result, a PlainPass's `case` included. */
export function copyResult(r: EntryResult, extra: Partial<EntryResult>): EntryResult {
  return r instanceof PlainPass ? { ...r.toJSON(), ...extra } : { ...r, ...extra };
}

/** The recorded line of `r`, or undefined (serialise it). */
export const lineOf = PlainPass.lineOf;

/** The JSON text of `r`: its recorded line, or JSON.stringify. */
export function resultLine(r: EntryResult): string {
  const l = lineOf(r);
  return l ? DECODER.decode(l.buf.subarray(l.start, l.end)) : JSON.stringify(r);
}
