/**
 * Validation of vector-file cases, shared by every input form (YAML, fast YAML, JSON lines). A case
 * arrives as a plain value (what YAML or JSON parse to: objects, arrays, strings, numbers, null); a
 * problem names the path of the offending value (`['operands', 'b', 0]`) and a `Locator`, which the
 * form supplies, turns it into a line and column only when a problem is reported, so the pass path
 * never computes positions.
 */
import { type Citation, formatCitation } from '../catalog/cite.js';
import { EDITIONS, parseRange } from '../catalog/editions.js';
import { familyPlugin } from '../registry/index.js';
import { familyVariants } from '../catalog/enumerate.js';
import { ParseError, parseInstruction } from '../catalog/parse.js';
import { variantId } from '../catalog/spelling.js';
import { decodeNumber, floatBits } from '../numerics/encode.js';
import { type ElementFormat, type FloatFormat, elementFormat, joinLanes } from '../numerics/formats.js';
import { nearestWords } from '../util/nearest.js';
import type { Case, CaseExpect, CaseVariant, InputProblem } from './types.js';

export const NAME = /^[A-Za-z0-9_.-]+$/;
export const FILE_KEYS = ['instruction', 'cite', 'editions', 'cases'];
export const CASE_KEYS = ['name', 'instruction', 'memory', 'replicas', 'source', 'operands', 'expect', 'space'];

export type Path = readonly (string | number)[];

/** Where a value (or, with `asKey`, the key that names it) starts; `quoted` when it is a quoted string. */
export interface Located {
  readonly line: number;
  readonly col: number;
  readonly quoted: boolean;
}

/** Finds the value at a path of the current case (or, when the path does not exist, the deepest value that does). */
export interface Locator {
  locate(path: Path, asKey: boolean): Located;
}

/** A copy of `s` that does not keep a large source text alive (V8 slices share their parent's storage). */
export function own(s: string): string {
  return s.length < 13 ? s : (s + ' ').slice(0, -1);
}

/**
 * The names of a file's cases and the line of each, for the duplicate check: an open-addressing
 * table of FNV-1a hashes, the names kept as bytes in one arena to compare on a hash match (names are
 * ASCII: letters, digits, _ . -). The packed readers look names up by their bytes in the file, the
 * general path by string; both hash the same char codes. About a quarter of the cost of a Map of a
 * million fresh strings, and no string per name.
 */
export class NameSet {
  private mask = (1 << 10) - 1;
  /** Entry p: table[2p] the hash, table[2p + 1] the name's number + 1 (0: empty); one cache line for both. */
  private table = new Int32Array(2 << 10);
  private arena = new Uint8Array(1 << 12);
  private used = 0;
  /** Name x: its bytes are srcs[srcOf[x]] (the arena where srcOf[x] < 0) at starts[x], lens[x] of them. */
  private starts = new Uint32Array(1 << 9);
  private lens = new Uint32Array(1 << 9);
  private srcOf = new Int32Array(1 << 9);
  /** Arrays that hold names the set refers to where they are (deferRef: a packed block's names). */
  private srcs: Uint8Array[] = [];
  private lastSrc: Uint8Array | undefined;
  private lastSrcIdx = -1;
  private lines = new Uint32Array(1 << 9);
  private count = 0;
  /** Where the last lookup that found nothing stopped, and for which hash. */
  private probeAt = -1;
  private probeHash = 0;
  private readonly scratch = new Uint8Array(256);

  /** Names recorded (deferred ones included, duplicates among them too until a flush finds them). */
  get size(): number {
    return this.count;
  }

  /** Makes room for `n` names without growing (an estimate from a file's size; cheaper than rehashing). */
  reserve(n: number): void {
    let cap = this.mask + 1;
    while (cap < 2 * n) cap *= 2;
    if (cap > this.mask + 1) this.grow(cap);
    // the per-name arrays too (they would double their way there, copying)
    let m = this.starts.length;
    while (m < n) m *= 2;
    if (m > this.starts.length) this.growNames(m);
  }

  /**
   * Names recorded by `defer` (the packed readers) and not yet in the table: numbers pend..count-1.
   * They are checked in batches (`flush`), in the order of their home slots, so that the probes walk
   * the table once from low to high instead of landing anywhere (a million random probes into a
   * table of 16 MB cost ~0.5 s of a million-case read). The first of equal names (by number, that is
   * file order) goes into the table; every later one is a duplicate (`dups`).
   */
  private pend = 0;
  private hashes = new Int32Array(1 << 9);
  private cols = new Uint32Array(1 << 9);
  private tags = new Int32Array(1 << 9);
  /** Duplicates the batches found: the later name's number, and the line of the first. */
  readonly dups: { readonly x: number; readonly firstLine: number }[] = [];

  /** Records the name u[s, e) (hash `h`) at `line` and `col` (its value's), to be checked by the next flush; `tag`: the caller's number for it. */
  defer(u: Uint8Array, s: number, e: number, h: number, line: number, col: number, tag: number): void {
    const x = this.append(u, s, e, line);
    this.hashes[x] = h;
    this.cols[x] = col;
    this.tags[x] = tag;
  }

  /**
   * Records the name src[s, e) where it is, without a copy (`src` must not change there: a packed
   * block's name bytes, written once); otherwise as `defer`.
   */
  deferRef(src: Uint8Array, s: number, e: number, h: number, line: number, col: number, tag: number): void {
    if (this.count === this.starts.length) this.growNames(this.count * 2);
    if (src !== this.lastSrc) {
      this.lastSrc = src;
      this.lastSrcIdx = this.srcs.push(src) - 1;
    }
    const x = this.count;
    this.starts[x] = s;
    this.lens[x] = e - s;
    this.srcOf[x] = this.lastSrcIdx;
    this.lines[x] = line;
    this.hashes[x] = h;
    this.cols[x] = col;
    this.tags[x] = tag;
    this.count = x + 1;
  }

  /** The array holding name x's bytes (at starts[x], lens[x] of them). */
  private src(x: number): Uint8Array {
    const i = this.srcOf[x]!;
    return i < 0 ? this.arena : this.srcs[i]!;
  }

  /** Checks the deferred names: each goes into the table, or (equal to one there or before it) into `dups`. */
  flush(): void {
    const from = this.pend;
    const to = this.count;
    if (from === to) return;
    this.pend = to;
    let inTable = this.inTable;
    let cap = this.mask + 1;
    while ((inTable + (to - from)) * 2 > cap - 1) cap *= 2;
    if (cap > this.mask + 1) this.grow(cap);
    const m = this.mask;
    const n = to - from;
    // (hash, number) pairs in order of the table region their home slot is in (regions of 512 slots,
    // 4 KB of table; a stable counting sort, one pass: equal names keep file order), so that the
    // loop below walks the table upwards, a page at a time
    let K = this.hashes.subarray(from, to);
    const X = new Int32Array(n);
    const bits = 32 - Math.clz32(m);
    const shift = bits > 9 ? 9 : bits;
    const buckets = 1 << (bits - shift);
    if (n > 64 && buckets > 1) {
      const K2 = new Int32Array(n);
      const cnt = new Int32Array(buckets + 1);
      for (let i = 0; i < n; i++) cnt[((K[i]! & m) >>> shift) + 1]!++;
      for (let d = 0; d < buckets; d++) cnt[d + 1]! += cnt[d]!;
      for (let i = 0; i < n; i++) {
        const h = K[i]!;
        const j = cnt[(h & m) >>> shift]!++;
        K2[j] = h;
        X[j] = from + i;
      }
      K = K2;
    } else for (let i = 0; i < n; i++) X[i] = from + i;
    const tb = this.table;
    for (let i = 0; i < n; i++) {
      const h = K[i]!;
      let p = h & m;
      let first = -1;
      for (; ; p = (p + 1) & m) {
        const y = tb[2 * p + 1]!;
        if (y === 0) break;
        if (tb[2 * p] !== h) continue;
        // a hash match (rare but for duplicates): compare the bytes
        const x = X[i]!;
        const len = this.lens[x]!;
        if (this.lens[y - 1] !== len) continue;
        const a = this.starts[x]!;
        const b = this.starts[y - 1]!;
        const A = this.src(x);
        const B = this.src(y - 1);
        let k = 0;
        while (k < len && B[b + k] === A[a + k]) k++;
        if (k === len) {
          first = y - 1;
          break;
        }
      }
      if (first >= 0) this.dups.push({ x: X[i]!, firstLine: this.lines[first]! });
      else {
        tb[2 * p] = h;
        tb[2 * p + 1] = X[i]! + 1;
        inTable++;
      }
    }
    this.inTable = inTable;
    this.probeAt = -1;
  }

  /** Name number x: its bytes as a string, its line, its value's column and its tag. */
  nameOf(x: number): string {
    const a = this.starts[x]!;
    const src = this.src(x);
    return Buffer.from(src.buffer, src.byteOffset + a, this.lens[x]!).toString('latin1');
  }
  lineOf(x: number): number {
    return this.lines[x]!;
  }
  colOf(x: number): number {
    return this.cols[x]!;
  }
  tagOf(x: number): number {
    return this.tags[x]!;
  }

  /** Names in the table (deferred ones not yet flushed are not). */
  private inTable = 0;

  /** The line of the name u[s, e) (its hash `h`, from nameHash), or undefined. */
  getBytes(u: Uint8Array, s: number, e: number, h: number): number | undefined {
    this.flush();
    const m = this.mask;
    const len = e - s;
    const tb = this.table;
    for (let p = h & m; ; p = (p + 1) & m) {
      const x = tb[2 * p + 1]!;
      if (x === 0) {
        this.probeAt = p;
        this.probeHash = h;
        return undefined;
      }
      if (tb[2 * p] !== h) continue;
      if (this.lens[x - 1] !== len) continue;
      const a = this.starts[x - 1]!;
      const A = this.src(x - 1);
      let k = 0;
      while (k < len && A[a + k] === u[s + k]) k++;
      if (k === len) return this.lines[x - 1];
    }
  }

  /** Records the name u[s, e) (hash `h`) at `line` unless it is there: then its line, else undefined. */
  addBytes(u: Uint8Array, s: number, e: number, h: number, line: number): number | undefined {
    const first = this.getBytes(u, s, e, h);
    if (first === undefined) this.setBytes(u, s, e, h, line);
    return first;
  }

  /** Records the name u[s, e) (not in the set; hash `h`) at `line`. */
  setBytes(u: Uint8Array, s: number, e: number, h: number, line: number): void {
    if (this.probeAt < 0 || this.probeHash !== h) {
      if (this.getBytes(u, s, e, h) !== undefined) return;
    }
    const at = this.probeAt;
    this.probeAt = -1;
    const x = this.append(u, s, e, line);
    this.hashes[x] = h;
    this.pend = this.count;
    this.table[2 * at] = h;
    this.table[2 * at + 1] = x + 1;
    this.inTable++;
    if (this.inTable * 2 > this.mask) this.grow();
  }

  /** Room for `n` names in the per-name arrays (a method of its own: no closure in append, which runs per name). */
  private growNames(n: number): void {
    const c = this.count;
    const u32 = (a: Uint32Array) => {
      const b = new Uint32Array(n);
      b.set(a.subarray(0, c));
      return b;
    };
    const i32 = (a: Int32Array) => {
      const b = new Int32Array(n);
      b.set(a.subarray(0, c));
      return b;
    };
    this.starts = u32(this.starts);
    this.lens = u32(this.lens);
    this.srcOf = i32(this.srcOf);
    this.lines = u32(this.lines);
    this.cols = u32(this.cols);
    this.hashes = i32(this.hashes);
    this.tags = i32(this.tags);
  }

  /** Appends the name u[s, e) at `line` to the arena (its number). */
  private append(u: Uint8Array, s: number, e: number, line: number): number {
    const len = e - s;
    if (this.used + len > this.arena.length) {
      const a = new Uint8Array(Math.max(this.used + len, this.arena.length * 2));
      a.set(this.arena.subarray(0, this.used));
      this.arena = a;
    }
    if (this.count === this.starts.length) this.growNames(this.count * 2);
    const ar = this.arena;
    const at = this.used;
    for (let k = 0; k < len; k++) ar[at + k] = u[s + k]!;
    const x = this.count;
    this.starts[x] = at;
    this.lens[x] = len;
    this.srcOf[x] = -1;
    this.lines[x] = line;
    this.used = at + len;
    this.count = x + 1;
    return x;
  }

  /** `name` as bytes in the scratch (names are ASCII; a longer one gets its own array). */
  private bytesOf(name: string): Uint8Array {
    const b = name.length <= this.scratch.length ? this.scratch : new Uint8Array(name.length);
    for (let i = 0; i < name.length; i++) b[i] = name.charCodeAt(i) & 0xff;
    return b;
  }

  /** The line of `name`, or undefined. */
  get(name: string): number | undefined {
    const b = this.bytesOf(name);
    return this.getBytes(b, 0, name.length, nameHash(b, 0, name.length));
  }

  /** Records `name` (not yet in the set) at `line`. */
  set(name: string, line: number): void {
    const b = this.bytesOf(name);
    this.setBytes(b, 0, name.length, nameHash(b, 0, name.length), line);
  }

  clear(): void {
    this.mask = (1 << 10) - 1;
    this.table = new Int32Array(2 << 10);
    this.used = 0;
    this.count = 0;
    this.srcs = [];
    this.lastSrc = undefined;
    this.lastSrcIdx = -1;
    this.pend = 0;
    this.inTable = 0;
    this.dups.length = 0;
    this.probeAt = -1;
  }

  private grow(cap = (this.mask + 1) * 2): void {
    const m = cap - 1;
    const old = this.table;
    const tb = new Int32Array(2 * cap);
    for (let p = 0; p <= this.mask; p++) {
      const x = old[2 * p + 1]!;
      if (!x) continue;
      const h = old[2 * p]!;
      let q = h & m;
      while (tb[2 * q + 1]) q = (q + 1) & m;
      tb[2 * q] = h;
      tb[2 * q + 1] = x;
    }
    this.table = tb;
    this.mask = m;
    this.probeAt = -1;
  }
}

/** FNV-1a over the bytes u[s, e), never 0 (the name set's hash). */
export function nameHash(u: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ u[i]!, 0x01000193);
  return h | 1;
}

/** Per-file state: where problems go, the file's defaults, and the names seen so far. */
export interface FileCtx {
  readonly file: string;
  readonly idFile: string;
  readonly problems: InputProblem[];
  loc: Locator;
  /**
   * Names seen in this file and the line of each, for the duplicate check. One entry per case:
   * fine up to a few million short names (roughly 100 bytes each), which bounds a file's memory.
   */
  readonly names: NameSet;
  /** The file's instruction (YAML `instruction:` at the top, a JSON-lines header line). */
  fileInfo?: VariantInfo | undefined;
  fileHasInstruction: boolean;
  cite?: string | undefined;
  /** What to tell a case that has no instruction (the forms say where it goes differently). */
  noInstruction: string;
  /** False in a validation pass: good cases are checked, not built (checkCase returns VALID). */
  build: boolean;
  /**
   * False in the streaming pass that follows a clean validation: names were found unique there, and
   * the set of names (the one cost that grows with the file) is not built again.
   */
  checkNames: boolean;
}

export function newFileCtx(file: string, idFile: string, loc: Locator, noInstruction = 'no instruction: for this case; give one at the top of the file or in the case'): FileCtx {
  return { file, idFile, problems: [], loc, names: new NameSet(), fileHasInstruction: false, noInstruction, build: true, checkNames: true };
}

export function at(ctx: FileCtx, path: Path, message: string, colOffset = 0, asKey = false, quoteAdjust = false): void {
  const p = ctx.loc.locate(path, asKey);
  ctx.problems.push({ file: ctx.file, line: p.line, col: p.col + colOffset + (quoteAdjust && p.quoted ? 1 : 0), message: own(message) });
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * Plain values never hold `undefined` (JSON and YAML have no such value; YAML's empty value is null),
 * so a key whose value is undefined counts as absent: the fast YAML path fills a fixed-shape object
 * (every case key, undefined where the item has none), which keeps property reads monomorphic.
 */
const has = (o: Record<string, unknown>, k: string) => o[k] !== undefined;
const CASE_KEY_SET = new Set(CASE_KEYS);

function keysOf(ctx: FileCtx, map: Record<string, unknown>, path: Path, allowed: readonly string[], where: string): void {
  for (const k in map) {
    if (map[k] !== undefined && !allowed.includes(k)) at(ctx, [...path, k], `unknown key '${k}' in ${where}; did you mean '${nearestWords(k, allowed, 1)[0]}'? (keys: ${allowed.join(', ')})`, 0, true);
  }
}

/** Exact bits of a number in a float format, or undefined if not representable. */
function exactFloatBits(f: FloatFormat, v: unknown): bigint | undefined {
  let x: number;
  if (typeof v === 'number') x = v;
  else if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)) x = Number(v); // plain hex in YAML (plainOf)
  else if (typeof v === 'string' && /^[-+]?\.?(inf|infinity)$/i.test(v)) x = v.startsWith('-') ? -Infinity : Infinity;
  else if (typeof v === 'string' && /^[-+]?\.?nan$/i.test(v)) return BigInt(f.canonicalNaN);
  else return undefined;
  if (f.bits === 64) return floatBits(f, x);
  if (!f.hasInf && !Number.isFinite(x)) return undefined;
  const bits = Number(floatBits(f, x));
  return Object.is(decodeNumber(f, bits), x) ? BigInt(bits) : undefined;
}

/** True when every character of `s` from index 2 on is a hex digit. */
function hexDigits(s: string): boolean {
  for (let i = 2; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return s.length > 2;
}

/** One element value: a hex string of exactly the element's digits, or a typed shorthand. */
function element(ctx: FileCtx, v: unknown, parent: Path, index: number, fmt: ElementFormat, what: string): bigint | undefined {
  const digits = fmt.bits >> 2;
  if (typeof v === 'string') {
    // the pass path: "0x" and exactly the digits (a validation pass does not need the value)
    if (v.length === digits + 2 && v.charCodeAt(0) === 48 && v.charCodeAt(1) === 120 && hexDigits(v)) return ctx.build ? BigInt(v) : 0n;
    const path = [...parent, index];
    const example = `0x${'0'.repeat(digits - 1)}1`;
    if (!/^0x[0-9a-fA-F]+$/.test(v)) {
      at(ctx, path, `${what}: '${v}' is not a hex bit pattern; write 0x and exactly ${digits} hex digits for .${fmt.name} (e.g. ${example}), or a typed shorthand like {${fmt.name}: 1.5}`);
      return undefined;
    }
    at(ctx, path, `${what}: '${v}' has ${v.length - 2} hex digit(s); .${fmt.name} elements take exactly ${digits} (e.g. ${example})`);
    return undefined;
  }
  const path = [...parent, index];
  if (isObj(v)) {
    const ks = Object.keys(v);
    if (ks.length === 1) {
      const k = ks[0]!;
      if (k !== fmt.name) {
        at(ctx, path, `${what}: shorthand {${k}: ...} does not match the element type .${fmt.name}; write {${fmt.name}: value}`);
        return undefined;
      }
      const raw = v[k];
      const lanes = fmt.lanes === 1 ? [raw] : Array.isArray(raw) ? raw : undefined;
      if (!lanes || lanes.length !== fmt.lanes) {
        at(ctx, path, `${what}: .${fmt.name} packs ${fmt.lanes} lanes; write {${fmt.name}: [${Array(fmt.lanes).fill('v').join(', ')}]} (lane 0 first, in the low bits)`);
        return undefined;
      }
      const out: bigint[] = [];
      for (const x of lanes) {
        if (fmt.lane.kind === 'int') {
          const lf = fmt.lane;
          // a plain hex scalar in YAML arrives as its text (vector-yaml.ts plainOf)
          const n = typeof x === 'number' && Number.isInteger(x) ? BigInt(x) : typeof x === 'string' && /^(?:-?\d+|0x[0-9a-fA-F]+)$/.test(x) ? BigInt(x) : undefined;
          const lo = lf.signed ? -(1n << BigInt(lf.bits - 1)) : 0n;
          const hi = lf.signed ? (1n << BigInt(lf.bits - 1)) - 1n : (1n << BigInt(lf.bits)) - 1n;
          if (n === undefined || n < lo || n > hi) {
            at(ctx, path, `${what}: ${JSON.stringify(x)} is not a .${lf.name} integer in [${lo}, ${hi}]`);
            return undefined;
          }
          out.push(n < 0n ? n + (1n << BigInt(lf.bits)) : n);
        } else {
          const b = exactFloatBits(fmt.lane, x);
          if (b === undefined) {
            at(ctx, path, `${what}: ${JSON.stringify(x)} is not exactly a .${fmt.lane.name} value; write the bit pattern in hex instead`);
            return undefined;
          }
          out.push(b);
        }
      }
      return joinLanes(fmt, out);
    }
  }
  at(ctx, path, `${what}: expected a hex string like 0x${'0'.repeat(digits - 1)}1 or a shorthand like {${fmt.name}: 1.5}`);
  return undefined;
}

/** A list of elements at `path` (`v` undefined: the key is missing, reported at its owner). */
function list(ctx: FileCtx, v: unknown, path: Path, fmt: ElementFormat, what: string, length?: number, lengthIs = 'one per vector lane'): bigint[] | undefined {
  if (!Array.isArray(v)) {
    const key = what.split(' ')[0];
    at(ctx, path, v !== undefined ? `${what} must be a list of elements, e.g. ["0x${'0'.repeat(fmt.bits / 4)}"]` : `${key}: is missing; add ${key}: ["0x${'0'.repeat(fmt.bits / 4)}"]`);
    return undefined;
  }
  if (length !== undefined && v.length !== length) {
    at(ctx, path, `${what} has ${v.length} elements; this instruction takes ${length} (${lengthIs})`);
  }
  const out: bigint[] = new Array(v.length);
  let ok = true;
  for (let i = 0; i < v.length; i++) {
    const x = element(ctx, v[i], path, i, fmt, `${what}[${i}]`);
    if (x === undefined) ok = false;
    else out[i] = x;
  }
  return ok ? out : undefined;
}

/** A bulk range of `len` elements is 16 bytes or a multiple (cp.reduce.async.bulk's size operand); the family's sentence says why. */
function bulkSize(ctx: FileCtx, path: Path, len: number, fmt: ElementFormat, per: string, rule?: Citation): void {
  if ((len * fmt.bits) % 128 !== 0) at(ctx, path, `bulk size must be a multiple of 16 bytes: ${len} x ${fmt.bits / 8} bytes is not${rule ? ` (${formatCitation(rule)})` : ''}; use ${128 / fmt.bits} elements${per} or a multiple`);
}

/** The sentence that sets a bulk family's size (its shape's length rule), if it names one. */
function bulkRule(v: CaseVariant): Citation | undefined {
  const len = familyPlugin(v.family).shape.length(v.q);
  return len.kind === 'bulk' ? len.rule : undefined;
}

/** Replica lists of `length` elements each, or (`length` undefined: a bulk range) of any one length. */
function replicaLists(ctx: FileCtx, v: unknown, path: Path, fmt: ElementFormat, what: string, length: number | undefined): bigint[][] | undefined {
  if (!Array.isArray(v) || v.length < 1 || v.length > 8) {
    at(ctx, path, `${what} must be a list of 1 to 8 replicas, each a list of ${length ?? 'the same number of'} element(s)`);
    return undefined;
  }
  const out: bigint[][] = [];
  let ok = true;
  for (let i = 0; i < v.length; i++) {
    const r = list(ctx, v[i], [...path, i], fmt, `${what}[${i}]`, length);
    if (!r) ok = false;
    else out.push(r);
  }
  return ok ? out : undefined;
}

export interface VariantInfo {
  readonly variant?: CaseVariant;
  readonly fmt?: ElementFormat;
  readonly lanes?: number;
  /** When the spelling is not a valid variant: the problem and its column offset (from the value's start). */
  readonly problem?: string;
  readonly col?: number;
  readonly quoteAdjust?: boolean;
}

/** Variants by spelling: a file names a handful, and parsing one is far dearer than checking a case. */
const VARIANTS = new Map<string, VariantInfo>();

function lanesOf(q: CaseVariant['q']): number {
  const v = q.vec ?? '';
  return v === '' ? 1 : Number(v.slice(1));
}

export function variantInfo(text: string): VariantInfo {
  let info = VARIANTS.get(text);
  if (info) return info;
  try {
    const p = parseInstruction(text);
    if (p.violations.length) {
      const v = p.violations[0]!;
      const valid = familyVariants(p.family).map((q) => variantId(p.family, q));
      info = { problem: `${text} is not a valid variant: ${v.rule}: ${v.text}; nearest valid spellings: ${nearestWords(p.id, valid, 3).join(', ')}`, col: 0 };
    } else {
      const variant: CaseVariant = { family: p.family.id, q: p.q, ptx: p.ptx, id: p.id };
      info = { variant, fmt: elementFormat(variant.q.type ?? ''), lanes: lanesOf(variant.q) };
    }
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    info = { problem: e.message, col: e.column, quoteAdjust: true };
  }
  if (VARIANTS.size >= 4096) VARIANTS.clear();
  VARIANTS.set(own(text), info);
  return info;
}

function variantOf(ctx: FileCtx, v: unknown, path: Path): VariantInfo | undefined {
  if (typeof v !== 'string') {
    at(ctx, path, 'instruction must be a PTX spelling without operands, e.g. atom.global.add.f32');
    return undefined;
  }
  const info = variantInfo(v);
  if (info.problem !== undefined) {
    // the value's position is its first character, the opening quote of a quoted scalar
    at(ctx, path, info.problem, info.col, false, info.quoteAdjust);
    return undefined;
  }
  return info;
}

const P_ROOT: Path = [];
const P_NAME: Path = ['name'];
const P_INSTRUCTION: Path = ['instruction'];
const P_MEMORY: Path = ['memory'];
const P_SOURCE: Path = ['source'];
const P_REPLICAS: Path = ['replicas'];
const P_OPERANDS: Path = ['operands'];
const P_OPERAND: Record<'b' | 'c', Path> = { b: ['operands', 'b'], c: ['operands', 'c'] };
const P_SPACE: Path = ['space'];
const P_EXPECT: Path = ['expect'];

/** Operand b or c of a case. */
function need(ctx: FileCtx, opMap: Record<string, unknown> | undefined, key: 'b' | 'c', info: VariantInfo): bigint[] | undefined {
  const v = opMap?.[key];
  const fmt = info.fmt!;
  if (v === undefined) {
    at(ctx, P_OPERANDS, `${info.variant!.ptx} needs operand ${key}: add operands: { ${key}: [${Array(info.lanes!).fill(`"0x${'0'.repeat(fmt.bits / 4)}"`).join(', ')}] }`);
    return undefined;
  }
  return list(ctx, v, P_OPERAND[key], fmt, key === 'b' ? 'operands.b' : 'operands.c', info.lanes);
}

/** What a validation pass (FileCtx.build false) returns for a good case. */
export const VALID: Case = Object.freeze({ id: '', variant: { family: '', q: {}, ptx: '', id: '' }, input: {}, origin: { kind: 'vectors', file: '', line: 0, name: '' } }) as Case;

const scalar = (v: unknown) => v !== undefined && (typeof v !== 'object' || v === null);


/** The file-level keys (`instruction:`, `cite:`) of a YAML root map or a JSON-lines header line. */
export function checkHeader(ctx: FileCtx, root: Record<string, unknown>, allowed: readonly string[] = FILE_KEYS, where = 'the file'): void {
  keysOf(ctx, root, [], allowed, where);
  ctx.fileHasInstruction = has(root, 'instruction');
  const info = ctx.fileHasInstruction ? variantOf(ctx, root.instruction, ['instruction']) : undefined;
  ctx.fileInfo = info;
  ctx.cite = scalar(root.cite) ? own(String(root.cite)) : undefined;
  if (has(root, 'editions') && !(scalar(root.editions) && parseRange(String(root.editions)))) {
    at(ctx, ['editions'], `editions: '${String(root.editions)}' is not a range of the catalog's PTX ISA editions (${EDITIONS.join(', ')}); write e.g. "9.1-9.3" or "9.4": the editions whose text the file's expect: values follow`);
  }
}

/**
 * Validates one case and builds it, or reports its problems (and returns undefined). `line` is the
 * line of the case (its first key), `nameLine` the line of its name: value.
 */
export function checkCase(ctx: FileCtx, item: unknown, line: number, nameLine: number): Case | undefined {
  if (!isObj(item)) {
    at(ctx, P_ROOT, 'each case is a map with name:, memory: or replicas:, operands:');
    return undefined;
  }
  const before = ctx.problems.length;
  for (const k in item) {
    if (!CASE_KEY_SET.has(k) && item[k] !== undefined) {
      keysOf(ctx, item, P_ROOT, CASE_KEYS, 'a case');
      break;
    }
  }
  const nameV = item.name;
  const name = scalar(nameV) ? String(nameV) : undefined;
  let nm = '';
  if (!name) at(ctx, P_ROOT, 'case without name:; give each case a name of letters, digits, _ . -');
  else if (!NAME.test(name)) at(ctx, P_NAME, `case name '${name}' may use only letters, digits, _ . and -`);
  else if (!ctx.checkNames) nm = own(name);
  else {
    const first = ctx.names.get(name);
    if (first !== undefined) at(ctx, P_NAME, `duplicate case name '${name}' (first at line ${first}); names must be unique in a file`);
    else ctx.names.set((nm = own(name)), nameLine);
  }
  const hasInstr = has(item, 'instruction');
  const info = hasInstr ? variantOf(ctx, item.instruction, P_INSTRUCTION) : ctx.fileInfo;
  if (!info?.variant) {
    if (!hasInstr && !ctx.fileHasInstruction) at(ctx, P_ROOT, ctx.noInstruction);
    return undefined;
  }
  const variant = info.variant;
  const fmt = info.fmt!;
  const n = info.lanes!;
  const ops = item.operands;
  if (ops !== undefined && !isObj(ops)) at(ctx, P_OPERANDS, 'operands: is a map like { b: [...] } (and c: for cas)');
  const opMap = isObj(ops) ? ops : undefined;
  if (opMap) {
    for (const k in opMap) {
      if (k !== 'b' && k !== 'c') {
        keysOf(ctx, opMap, P_OPERANDS, ['b', 'c'], 'operands');
        break;
      }
    }
  }
  const input: { memory?: bigint[]; replicas?: bigint[][]; b?: bigint[]; c?: bigint[]; source?: bigint[]; space?: 'global' | 'shared' } = {};
  const fam = variant.family;
  const takes = familyPlugin(fam).shape.inputs(variant.q);
  if (takes.includes('replicas')) {
    if (has(item, 'memory')) at(ctx, P_MEMORY, `${fam} cases give replicas: (one memory list per replica) instead of memory:`);
    const bulk = takes.includes('source');
    const r = replicaLists(ctx, item.replicas, P_REPLICAS, fmt, 'replicas', bulk ? undefined : n);
    if (r) input.replicas = r;
    if (bulk && r) {
      // a bulk range: the destination on each GPU, and the source, all of one length
      const len = r[0]!.length;
      const odd = r.findIndex((x) => x.length !== len);
      if (odd > 0) at(ctx, [...P_REPLICAS, odd], `replicas[${odd}] has ${r[odd]!.length} elements and replicas[0] ${len}; every replica holds the same destination range`);
      else bulkSize(ctx, P_REPLICAS, len, fmt, ' per replica', bulkRule(variant));
    }
    if (bulk) {
      const s = list(ctx, item.source, P_SOURCE, fmt, 'source (shared-memory elements)', input.replicas?.[0]?.length, 'as many as the destination range');
      if (s) input.source = s;
    }
    if (takes.includes('b')) {
      const b = need(ctx, opMap, 'b', info);
      if (b) input.b = b;
    }
  } else if (takes.includes('source')) {
    const m = list(ctx, item.memory, P_MEMORY, fmt, 'memory (destination elements)');
    const s = list(ctx, item.source, P_SOURCE, fmt, 'source (shared-memory elements)', m?.length, 'as many as the destination range');
    if (m) bulkSize(ctx, P_MEMORY, m.length, fmt, '', bulkRule(variant));
    if (m) input.memory = m;
    if (s) input.source = s;
  } else {
    const m = list(ctx, item.memory, P_MEMORY, fmt, 'memory', n);
    if (m) input.memory = m;
    const b = need(ctx, opMap, 'b', info);
    if (b) input.b = b;
    if (variant.q.op === 'cas') {
      const c = need(ctx, opMap, 'c', info);
      if (c) input.c = c;
    }
  }
  // an operand the instruction does not take is a mistake in the file, not something to ignore
  if (opMap) {
    const extra = (['b', 'c'] as const).filter((k) => has(opMap, k) && !(k === 'c' ? variant.q.op === 'cas' && takes.includes('c') : takes.includes('b')));
    if (extra.length) at(ctx, P_OPERANDS, `operands: ${extra.join(', ')} ${extra.length > 1 ? 'are' : 'is'} not an operand of ${variant.ptx ?? fam}${takes.includes('source') ? ` (a bulk case gives ${takes.includes('replicas') ? 'replicas:' : 'memory:'} and source:)` : variant.q.op === 'cas' ? '' : ' (c is the swap value of cas only)'}; remove it`);
  }
  const sp = item.space;
  if (sp !== undefined) {
    const v = scalar(sp) ? String(sp) : '';
    if (v !== 'global' && v !== 'shared') at(ctx, P_SPACE, `space: is 'global' or 'shared' (where generic addressing lands), not '${v}'`);
    else input.space = v;
  }
  let expect: CaseExpect | undefined;
  const ex = item.expect;
  if (ex !== undefined) {
    if (!isObj(ex)) at(ctx, P_EXPECT, 'expect: is a map with memory:, returned: or replicas:');
    else {
      keysOf(ctx, ex, P_EXPECT, ['memory', 'returned', 'replicas'], 'expect');
      const e: { memory?: bigint[]; returned?: bigint[]; replicas?: bigint[][] } = {};
      if (has(ex, 'memory')) e.memory = list(ctx, ex.memory, ['expect', 'memory'], fmt, 'expect.memory', input.memory?.length);
      if (has(ex, 'returned')) {
        if (!familyPlugin(fam).shape.returns(variant.q)) at(ctx, ['expect', 'returned'], `${fam} returns nothing; expect memory: (or replicas:) instead`);
        else e.returned = list(ctx, ex.returned, ['expect', 'returned'], fmt, 'expect.returned', n);
      }
      if (has(ex, 'replicas')) e.replicas = replicaLists(ctx, ex.replicas, ['expect', 'replicas'], fmt, 'expect.replicas', takes.includes('source') ? input.source?.length : n);
      expect = e;
    }
  }
  if (ctx.problems.length > before || !name) return undefined;
  if (!ctx.build) return VALID;
  const c: { -readonly [K in keyof Case]: Case[K] } = {
    id: `${variant.id}/${ctx.idFile}:${nm}`,
    variant,
    input,
    origin: { kind: 'vectors', file: ctx.idFile, line, name: nm },
  };
  if (expect) c.expect = expect;
  if (ctx.cite !== undefined) c.cite = ctx.cite;
  return c;
}
