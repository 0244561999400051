/**
 * Vector-file cases packed in typed arrays: the common shape of a case (one instruction whose inputs
 * are `memory:` and operand `b:` (and `c:` for cas), at most 16 bytes each, every element a hex bit
 * pattern, optionally `expect: { memory:, returned: }` and `space:`) read straight from the text
 * into 16-byte slots, with no per-case object, BigInt or JSON.parse. It is a speed-up of the
 * loaders, never a second reading: an item the packed readers do not take whole (anything else, or
 * anything with a problem) goes through the general path (vector-check.ts), which builds the same
 * Case or reports the problem, and `unpack` turns a slot back into exactly the Case the general path
 * builds (tests/case-readers/packed.test.ts holds the two equal).
 *
 * Slot layout (the GPU executor's, harness/reference/fast.ts): case i owns words 4i..4i+3 of each
 * array; element k of the variant's type sits little-endian at byte k*(bits/8), lanes low first.
 */
import { familyPlugin } from '../registry/index.js';
import type { ElementFormat } from '../numerics/formats.js';
import type { Case, CaseExpect, CaseVariant } from './types.js';
import { type FileCtx, variantInfo } from './vector-check.js';

export { nameHash } from './name-set.js';

/** Words per case in each slot array. */
export const SLOT_WORDS = 4;
/** Cases per packed block. */
export const PACK_CAPACITY = 4096;
/** Cases of a file's first packed block (CaseSink.next). */
const FIRST_CAPACITY = 256;

/** bits[i]: what case i has beyond memory and b. */
export const HAS_EXPECT_MEMORY = 1;
export const HAS_EXPECT_RETURNED = 2;
export const SPACE_GLOBAL = 4;
export const SPACE_SHARED = 8;

/** A variant whose cases pack: memory + b (+ c for cas), each at most 16 bytes. */
export interface PackVariant {
  readonly variant: CaseVariant;
  readonly fmt: ElementFormat;
  /** Elements per case (the vector length). */
  readonly lanes: number;
  readonly cas: boolean;
  /** Whether the instruction returns the old value (`expect: returned:` allowed). */
  readonly returns: boolean;
}

const PACK_VARIANTS = new Map<CaseVariant, PackVariant | null>();

/** The packing of a variant, or undefined when its cases do not pack. */
export function packVariant(variant: CaseVariant, fmt: ElementFormat, lanes: number): PackVariant | undefined {
  let p = PACK_VARIANTS.get(variant);
  if (p === undefined) {
    const shape = familyPlugin(variant.family).shape;
    const takes = shape.inputs(variant.q);
    const cas = variant.q.op === 'cas';
    const simple = takes.includes('memory') && takes.includes('b') && !takes.includes('replicas') && !takes.includes('source') && (takes.includes('c') || !cas);
    p =
      simple && lanes >= 1 && lanes * fmt.bits <= 128 && [16, 32, 64, 128].includes(fmt.bits)
        ? { variant, fmt, lanes, cas, returns: shape.returns(variant.q) }
        : null;
    if (PACK_VARIANTS.size >= 4096) PACK_VARIANTS.clear();
    PACK_VARIANTS.set(variant, p);
  }
  return p ?? undefined;
}

/**
 * An empty array made with object elements from the start: `[]` starts with small-integer elements
 * and changes its kind at its first push, and V8's optimized variantIndex then meets arrays of two
 * kinds (a deopt, and packItem compiled again, in every big read).
 */
function objectArray<T extends object>(): T[] {
  const a = [Object.prototype as T];
  a.length = 0;
  return a;
}

/** A block of packed cases of one file, in file order. */
export class PackedCases {
  readonly kind = 'packed' as const;
  n = 0;
  readonly variants: PackVariant[] = objectArray();
  readonly vidx: Uint16Array;
  readonly mem: Uint32Array;
  readonly b: Uint32Array;
  /** Operand c, expected memory, expected returned: made when a case has them (most blocks have none). */
  private c_: Uint32Array | undefined;
  private expMem_: Uint32Array | undefined;
  private expRet_: Uint32Array | undefined;
  readonly bits: Uint8Array;
  readonly line: Uint32Array;
  /** Case names as ASCII bytes (names are letters, digits, _ . -): case i's at nameStart[i]..nameStart[i+1]. */
  private nameBytes: Uint8Array;
  private readonly nameStart: Uint32Array;

  constructor(
    readonly idFile: string,
    readonly cite: string | undefined,
    readonly capacity = PACK_CAPACITY,
  ) {
    this.vidx = new Uint16Array(capacity);
    const w = capacity * SLOT_WORDS;
    this.mem = new Uint32Array(w);
    this.b = new Uint32Array(w);
    this.bits = new Uint8Array(capacity);
    this.line = new Uint32Array(capacity);
    this.nameStart = new Uint32Array(capacity + 1);
    // room for names of 12 bytes (case-123456 and the like) without growing
    this.nameBytes = new Uint8Array(Math.max(256, capacity * 12));
  }

  /** Read only: zeros where no case of the block has the input. */
  get c(): Uint32Array {
    return this.c_ ?? zeros(this.capacity);
  }
  get expMem(): Uint32Array {
    return this.expMem_ ?? zeros(this.capacity);
  }
  get expRet(): Uint32Array {
    return this.expRet_ ?? zeros(this.capacity);
  }
  /** For writing. */
  cW(): Uint32Array {
    return (this.c_ ??= new Uint32Array(this.capacity * SLOT_WORDS));
  }
  expMemW(): Uint32Array {
    return (this.expMem_ ??= new Uint32Array(this.capacity * SLOT_WORDS));
  }
  expRetW(): Uint32Array {
    return (this.expRet_ ??= new Uint32Array(this.capacity * SLOT_WORDS));
  }

  /** The name of case i. */
  name(i: number): string {
    const s = this.nameStart[i]!;
    return latin1(this.nameBytes, s, this.nameStart[i + 1]! - s);
  }

  /** The array holding the names (case i's at nameStartOf(i)..nameStartOf(i + 1)); a name, once written, never changes there (a bigger array takes the names that follow). */
  nameArray(): Uint8Array {
    return this.nameBytes;
  }
  nameStartOf(i: number): number {
    return this.nameStart[i]!;
  }

  /** Index of the case named `name`, or -1. */
  indexOfName(name: string): number {
    for (let i = 0; i < this.n; i++) {
      const s = this.nameStart[i]!;
      if (this.nameStart[i + 1]! - s !== name.length) continue;
      let k = 0;
      while (k < name.length && this.nameBytes[s + k] === name.charCodeAt(k)) k++;
      if (k === name.length) return i;
    }
    return -1;
  }

  /** A view of nameBytes (for copying names four bytes at a time), and the array it views. */
  private nameDv: DataView<ArrayBufferLike> = NO_VIEW;
  private nameDvOf: Uint8Array | undefined;

  /**
   * Appends the name of slot n (ASCII bytes src[s, e)): four bytes at a time where src has three
   * more after the name (the bytes copied past its end are where the next name goes; nameBytes keeps
   * room for them), else byte by byte.
   */
  private addName(src: Uint8Array, s: number, e: number): void {
    const at = this.nameStart[this.n]!;
    const len = e - s;
    const end = at + len;
    let nb = this.nameBytes;
    if (end + 3 > nb.length) {
      const grown = new Uint8Array(Math.max(end + 3, nb.length * 2));
      grown.set(nb.subarray(0, at));
      this.nameBytes = nb = grown;
    }
    if (e + 3 <= src.length) {
      if (this.nameDvOf !== nb) {
        this.nameDvOf = nb;
        this.nameDv = new DataView(nb.buffer, nb.byteOffset, nb.byteLength);
      }
      const to = this.nameDv;
      const from = viewOf(src);
      for (let k = 0; k < len; k += 4) to.setInt32(at + k, from.getInt32(s + k, true), true);
    } else for (let k = s, d = at; k < e; k++, d++) nb[d] = src[k]!;
    this.nameStart[this.n + 1] = end;
  }

  variantIndex(v: PackVariant): number {
    const vs = this.variants;
    for (let i = vs.length - 1; i >= 0; i--) if (vs[i] === v) return i;
    vs.push(v);
    return vs.length - 1;
  }

  /** Whether slot n holds words of a case a reader gave up on. */
  private dirty = false;

  /** Zeroes the words of slot n (the next case) before a reader fills them (a new block's are zero). */
  clearNext(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const s = this.n * SLOT_WORDS;
    const e = s + SLOT_WORDS;
    this.mem.fill(0, s, e);
    this.b.fill(0, s, e);
    this.c_?.fill(0, s, e);
    this.expMem_?.fill(0, s, e);
    this.expRet_?.fill(0, s, e);
  }

  /** Slot n was written and given up on: clear it before it is used. */
  abandonNext(): void {
    this.dirty = true;
  }

  /** Makes slot n a case (its words are filled) named by the ASCII bytes src[s, e). */
  commit(v: PackVariant, src: Uint8Array, s: number, e: number, line: number, bits: number): void {
    this.addName(src, s, e);
    const i = this.n++;
    this.vidx[i] = this.variantIndex(v);
    this.line[i] = line;
    this.bits[i] = bits;
  }

  /** The variant id of case i (for --filter). */
  variantId(i: number): string {
    return this.variants[this.vidx[i]!]!.variant.id;
  }

  /** Case ids are `<variant id>/<file>:<name>`, as the general path makes them. */
  id(i: number): string {
    return `${this.variantId(i)}/${this.idFile}:${this.name(i)}`;
  }

  /**
   * The cases for which keep(i) holds (asked once per case, in order), as a block of the same file:
   * this block itself when it keeps every case (no copy), else a new one.
   */
  filter(keep: (i: number) => boolean): PackedCases {
    const n = this.n;
    let i = 0;
    while (i < n && keep(i)) i++;
    if (i === n) return this;
    const out = new PackedCases(this.idFile, this.cite, Math.max(1, n));
    for (let j = 0; j < i; j++) out.append(this, j);
    for (i++; i < n; i++) if (keep(i)) out.append(this, i);
    return out;
  }

  /** Appends case i of `src` (a block of the same file; this one must have room). */
  append(src: PackedCases, i: number): void {
    const s = i * SLOT_WORDS;
    const d = this.n * SLOT_WORDS;
    for (let k = 0; k < SLOT_WORDS; k++) {
      this.mem[d + k] = src.mem[s + k]!;
      this.b[d + k] = src.b[s + k]!;
    }
    if (src.c_) this.cW().set(src.c_.subarray(s, s + SLOT_WORDS), d);
    if (src.expMem_) this.expMemW().set(src.expMem_.subarray(s, s + SLOT_WORDS), d);
    if (src.expRet_) this.expRetW().set(src.expRet_.subarray(s, s + SLOT_WORDS), d);
    this.commit(src.variants[src.vidx[i]!]!, src.nameBytes, src.nameStart[i]!, src.nameStart[i + 1]!, src.line[i]!, src.bits[i]!);
  }

  /** The block as plain data (typed arrays cut to its cases), to send to another process. */
  data(): PackedData {
    const w = this.n * SLOT_WORDS;
    return {
      idFile: this.idFile,
      cite: this.cite,
      n: this.n,
      variants: this.variants.map((v) => v.variant),
      vidx: this.vidx.slice(0, this.n),
      mem: this.mem.slice(0, w),
      b: this.b.slice(0, w),
      c: this.c_?.slice(0, w),
      expMem: this.expMem_?.slice(0, w),
      expRet: this.expRet_?.slice(0, w),
      bits: this.bits.slice(0, this.n),
      line: this.line.slice(0, this.n),
      nameBytes: this.nameBytes.slice(0, this.nameStart[this.n]!),
      nameStart: this.nameStart.slice(0, this.n + 1),
    };
  }

  /** A block from its data (the arrays are taken as they are). */
  static fromData(d: PackedData): PackedCases {
    const p = new PackedCases(d.idFile, d.cite, 0);
    const w = p as unknown as Record<string, unknown>;
    Object.assign(w, {
      capacity: d.n,
      vidx: d.vidx,
      mem: d.mem,
      b: d.b,
      c_: d.c,
      expMem_: d.expMem,
      expRet_: d.expRet,
      bits: d.bits,
      line: d.line,
      nameBytes: d.nameBytes,
      nameStart: d.nameStart,
    });
    for (const v of d.variants) {
      const info = variantInfo(v.ptx);
      const pv = info.variant && packVariant(info.variant, info.fmt!, info.lanes!);
      if (!pv || pv.variant.id !== v.id) throw new Error(`packed data names ${v.id}, which does not pack`);
      p.variants.push(pv);
    }
    p.n = d.n;
    return p;
  }
}

const NO_VIEW = new DataView(new ArrayBuffer(0));
let VIEW_OF: Uint8Array | undefined;
let VIEW: DataView<ArrayBufferLike> = NO_VIEW;
/** A DataView of `a` (the last one made, kept while `a` is the array asked for). */
export function viewOf(a: Uint8Array): DataView<ArrayBufferLike> {
  if (a !== VIEW_OF) {
    VIEW_OF = a;
    VIEW = new DataView(a.buffer, a.byteOffset, a.byteLength);
  }
  return VIEW;
}

/** Shared zeros (never written) standing for a block's inputs that none of its cases has. */
let ZEROS = new Uint32Array(PACK_CAPACITY * SLOT_WORDS);
function zeros(capacity: number): Uint32Array {
  if (ZEROS.length < capacity * SLOT_WORDS) ZEROS = new Uint32Array(capacity * SLOT_WORDS);
  return ZEROS;
}

/** The bytes a[s, s + n) as a string of the same char codes. */
function latin1(a: Uint8Array, s: number, n: number): string {
  return Buffer.from(a.buffer, a.byteOffset + s, n).toString('latin1');
}

/** A packed block as plain data (PackedCases.data / fromData). */
export interface PackedData {
  readonly idFile: string;
  readonly cite: string | undefined;
  readonly n: number;
  readonly variants: readonly CaseVariant[];
  readonly vidx: Uint16Array;
  readonly mem: Uint32Array;
  readonly b: Uint32Array;
  readonly c: Uint32Array | undefined;
  readonly expMem: Uint32Array | undefined;
  readonly expRet: Uint32Array | undefined;
  readonly bits: Uint8Array;
  readonly line: Uint32Array;
  readonly nameBytes: Uint8Array;
  readonly nameStart: Uint32Array;
}

/** What a vector reader hands on: cases as objects, or a packed block. */
export type CaseBatch = readonly Case[] | PackedCases;

export const isPacked = (b: CaseBatch): b is PackedCases => (b as PackedCases).kind === 'packed';

/** Cases in a batch. */
export const batchSize = (b: CaseBatch): number => (isPacked(b) ? b.n : b.length);

/** Element k of the slot at word `base` of `a`, as the BigInt the general path builds. */
function element(a: Uint32Array, base: number, k: number, bits: number): bigint {
  switch (bits) {
    case 16:
      return BigInt((a[base + (k >> 1)]! >>> ((k & 1) << 4)) & 0xffff);
    case 32:
      return BigInt(a[base + k]!);
    case 64:
      return (BigInt(a[base + 2 * k + 1]!) << 32n) | BigInt(a[base + 2 * k]!);
    default:
      return (BigInt(a[base + 3]!) << 96n) | (BigInt(a[base + 2]!) << 64n) | (BigInt(a[base + 1]!) << 32n) | BigInt(a[base]!);
  }
}

function elements(a: Uint32Array, i: number, v: PackVariant): bigint[] {
  const out: bigint[] = new Array(v.lanes);
  for (let k = 0; k < v.lanes; k++) out[k] = element(a, i * SLOT_WORDS, k, v.fmt.bits);
  return out;
}

/** Case i of a block as the Case object the general path builds for the same text. */
export function unpack(p: PackedCases, i: number): Case {
  const v = p.variants[p.vidx[i]!]!;
  const bits = p.bits[i]!;
  const input: { memory?: bigint[]; b?: bigint[]; c?: bigint[]; space?: 'global' | 'shared' } = { memory: elements(p.mem, i, v), b: elements(p.b, i, v) };
  if (v.cas) input.c = elements(p.c, i, v);
  if (bits & SPACE_GLOBAL) input.space = 'global';
  else if (bits & SPACE_SHARED) input.space = 'shared';
  const name = p.name(i);
  const c: { -readonly [K in keyof Case]: Case[K] } = {
    id: `${v.variant.id}/${p.idFile}:${name}`,
    variant: v.variant,
    input,
    origin: { kind: 'vectors', file: p.idFile, line: p.line[i]!, name },
  };
  if (bits & (HAS_EXPECT_MEMORY | HAS_EXPECT_RETURNED)) {
    const e: { -readonly [K in keyof CaseExpect]: CaseExpect[K] } = {};
    if (bits & HAS_EXPECT_MEMORY) e.memory = elements(p.expMem, i, v);
    if (bits & HAS_EXPECT_RETURNED) e.returned = elements(p.expRet, i, v);
    c.expect = e;
  }
  if (p.cite !== undefined) c.cite = p.cite;
  return c;
}

/** Every case of a batch as objects. */
export function unpackAll(b: CaseBatch): readonly Case[] {
  if (!isPacked(b)) return b;
  const out: Case[] = new Array(b.n);
  for (let i = 0; i < b.n; i++) out[i] = unpack(b, i);
  return out;
}

// ---------------------------------------------------------------------------------------------
// What the readers hand on, in file order.

/** Collects a reader's output: packed blocks and runs of Case objects, in file order. */
export class CaseSink {
  private out: CaseBatch[] = [];
  private block: PackedCases | undefined;
  private objs: Case[] | undefined;
  /** Packed cases committed so far (the number of the next, in file order). */
  packedCount = 0;
  /** The number of the first case of each packed block still held. */
  private readonly firsts = new Map<PackedCases, number>();

  constructor(
    readonly ctx: FileCtx,
    /** False: nothing packs (every item through the general path; the tests compare the two). */
    readonly packing = true,
  ) {}

  /**
   * The block the next packed case goes to (a new one when there is none, or it is full). A file's
   * first block is small (FIRST_CAPACITY): its cases are the first the readers' functions run, and
   * V8 compiles them with the path that starts a new block already taken; otherwise the first full
   * block's end undoes their optimized code (a deopt) and they are compiled again, which costs a
   * reader of a million lines several percent of its time.
   */
  next(): PackedCases {
    let b = this.block;
    if (!b || b.n >= b.capacity) {
      b = this.block = new PackedCases(this.ctx.idFile, this.ctx.cite, this.packedCount === 0 ? FIRST_CAPACITY : PACK_CAPACITY);
      this.firsts.set(b, this.packedCount);
      this.out.push(b);
      this.objs = undefined;
    }
    b.clearNext();
    return b;
  }

  case(c: Case): void {
    if (!this.objs) {
      this.objs = [];
      this.out.push(this.objs);
      this.block = undefined;
    }
    this.objs.push(c);
  }

  /**
   * What has been collected since the last take. A packed block still filling stays for the next
   * piece of the file (blocks fill up across pieces) unless `last`.
   */
  /** Drops the packed cases numbered in `drop` from the blocks still held (those taken are gone). */
  dropPacked(drop: ReadonlySet<number>): void {
    if (!drop.size) return;
    this.out = this.out.map((x) => {
      if (!isPacked(x)) return x;
      const first = this.firsts.get(x);
      if (first === undefined) return x;
      let any = false;
      for (let i = 0; i < x.n && !any; i++) any = drop.has(first + i);
      if (!any) return x;
      const kept = x.filter((i) => !drop.has(first + i));
      if (this.block === x) this.block = undefined;
      return kept;
    });
  }

  take(last = true): CaseBatch[] {
    const o = this.out;
    const b = this.block;
    if (!last && b && b.n < b.capacity && o[o.length - 1] === b) {
      this.out = [b];
      o.pop();
    } else {
      this.out = [];
      this.block = undefined;
    }
    this.objs = undefined;
    for (const x of o) if (x !== this.block && isPacked(x)) this.firsts.delete(x);
    return o.filter((x) => batchSize(x) > 0);
  }
}

/**
 * At the end of a file (or where its reading stops): the names the packed readers deferred are
 * checked (NameSet.flush), and each duplicate is reported as the general path reports it (its line
 * and column, the same words), among the file's problems in line order; its case is dropped from
 * the blocks still held (a file with a problem runs nothing anyway).
 */
export function endNames(sink: CaseSink): void {
  const ctx = sink.ctx;
  const names = ctx.names;
  names.flush();
  if (!names.dups.length) return;
  const drop = new Set<number>();
  for (const d of names.dups) {
    const line = names.lineOf(d.x);
    const p = {
      file: ctx.file,
      line,
      col: names.colOf(d.x),
      message: `duplicate case name '${names.nameOf(d.x)}' (first at line ${d.firstLine}); names must be unique in a file`,
    };
    let i = ctx.problems.length;
    while (i > 0 && ctx.problems[i - 1]!.line > line) i--;
    ctx.problems.splice(i, 0, p);
    drop.add(names.tagOf(d.x));
  }
  names.dups.length = 0;
  sink.dropPacked(drop);
}
