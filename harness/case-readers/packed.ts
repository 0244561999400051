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

export { nameHash } from './vector-check.js';

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
    p = simple && lanes >= 1 && lanes * fmt.bits <= 128 && [16, 32, 64, 128].includes(fmt.bits) ? { variant, fmt, lanes, cas, returns: shape.returns(variant.q) } : null;
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
    Object.assign(w, { capacity: d.n, vidx: d.vidx, mem: d.mem, b: d.b, c_: d.c, expMem_: d.expMem, expRet_: d.expRet, bits: d.bits, line: d.line, nameBytes: d.nameBytes, nameStart: d.nameStart });
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
    const p = { file: ctx.file, line, col: names.colOf(d.x), message: `duplicate case name '${names.nameOf(d.x)}' (first at line ${d.firstLine}); names must be unique in a file` };
    let i = ctx.problems.length;
    while (i > 0 && ctx.problems[i - 1]!.line > line) i--;
    ctx.problems.splice(i, 0, p);
    drop.add(names.tagOf(d.x));
  }
  names.dups.length = 0;
  sink.dropPacked(drop);
}

// ---------------------------------------------------------------------------------------------
// The second half of a packed reader: the fields a form's scanner found, checked and written.

/**
 * The fields of one item as a form's scanner found them, over the bytes `src`: the name as the
 * offsets of its ASCII bytes (nameAt < 0 where absent) with their FNV-1a hash, the instruction and
 * space as strings (undefined where absent), and for each list the offset of its '[' (-1 where
 * absent). A string form copies what it found into bytes (YamlScanner).
 */
export interface PackFields {
  src: Uint8Array;
  nameAt: number;
  nameEnd: number;
  nameHash: number;
  /** The scanner has checked the name's characters (letters, digits, _ . -, at least one). */
  nameChecked: boolean;
  instruction: string | undefined;
  space: string | undefined;
  memory: number;
  b: number;
  c: number;
  expMemory: number;
  expReturned: number;
  /** The column (from 1) of the name's value in its line, the opening quote of a quoted one (where a duplicate is reported). */
  nameCol: number;
  /** Whether the item has operands: / expect: (their lists are above). */
  operands: boolean;
  expect: boolean;
  /**
   * The YAML form: the lists' elements as the scanner found them (the list offsets above then only
   * say which lists are present, >= 0): list L (0 memory, 1 b, 2 c, 3 expect memory, 4 expect
   * returned) has cnt[L] elements, element k at src[els[L*32 + 2k], els[L*32 + 2k + 1]) (a token:
   * `"0x.."`, `'0x..'` or a plain `0x..`). False: each offset is a `[` that readList reads.
   */
  elems: boolean;
  readonly els: Int32Array;
  readonly cnt: Int32Array;
  /**
   * Elements a scanner has already read as hex (the JSON form): element k of list L (its index
   * i = L * MAX_ELEMS + k) at pre[3i] the number of hex digits after its "0x" (-1: not read, readElems
   * reads the token), pre[3i + 1] the value of its last 8 digits, pre[3i + 2] of the 8 before them.
   */
  readonly pre: Int32Array;
}

/** Elements a YAML list of the packed form may record (a list of more does not pack). */
export const MAX_ELEMS = 16;

export function newPackFields(): PackFields {
  return { src: new Uint8Array(0), nameAt: -1, nameEnd: -1, nameHash: 0, nameChecked: false, nameCol: 1, instruction: undefined, space: undefined, memory: -1, b: -1, c: -1, expMemory: -1, expReturned: -1, operands: false, expect: false, elems: false, els: new Int32Array(5 * 2 * MAX_ELEMS), cnt: new Int32Array(5), pre: new Int32Array(5 * 3 * MAX_ELEMS).fill(-1) };
}

export function resetPackFields(f: PackFields, src: Uint8Array): void {
  f.src = src;
  f.nameAt = f.nameEnd = -1;
  f.nameChecked = false;
  f.nameCol = 1;
  f.instruction = undefined;
  f.space = undefined;
  f.memory = f.b = f.c = f.expMemory = f.expReturned = -1;
  f.operands = f.expect = false;
  f.elems = false;
}

/** NAME_BYTE[c] = 1 for the bytes of a case name (letters, digits, _ . -; vector-check's NAME), else 0. */
export const NAME_BYTE = new Uint8Array(256);
for (let c = 0; c < 256; c++) NAME_BYTE[c] = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45 ? 1 : 0;

/** Whether u[s, e) is a case name (letters, digits, _ . -, at least one). */
export function nameBytesOk(u: Uint8Array, s: number, e: number): boolean {
  if (e <= s) return false;
  for (let i = s; i < e; i++) if (!NAME_BYTE[u[i]!]) return false;
  return true;
}

/** Inner-map lists a reader records: 1 operands.b, 2 operands.c, 3 expect.memory, 4 expect.returned. */
export type ListSlot = 1 | 2 | 3 | 4;

/** Records the list of `slot` at offset `at`; false when the item already had it (a duplicate key). */
export function setList(f: PackFields, slot: ListSlot, at: number): boolean {
  switch (slot) {
    case 1:
      if (f.b >= 0) return false;
      f.b = at;
      return true;
    case 2:
      if (f.c >= 0) return false;
      f.c = at;
      return true;
    case 3:
      if (f.expMemory >= 0) return false;
      f.expMemory = at;
      return true;
    default:
      if (f.expReturned >= 0) return false;
      f.expReturned = at;
      return true;
  }
}

/** Value of each byte as a hex digit, or -1. */
const HEX = new Int8Array(256).fill(-1);
for (let d = 0; d < 10; d++) HEX[48 + d] = d;
for (let d = 0; d < 6; d++) HEX[97 + d] = HEX[65 + d] = 10 + d;

/** 8 or fewer hex digits at u[s, s+n) as an unsigned 32-bit number, or -1. */
function hex32(u: Uint8Array, s: number, n: number): number {
  if (n === 8) return hex8(u, s);
  let v = 0;
  let bad = 0;
  for (let i = 0; i < n; i++) {
    const d = HEX[u[s + i]!]!;
    bad |= d;
    v = v * 16 + d;
  }
  return bad < 0 ? -1 : v;
}

/**
 * Exactly 8 hex digits at u[s, s+8) as an unsigned 32-bit number, or -1: written out (a loop costs
 * several times as much per digit: each load of u in a loop re-checks the array).
 */
export function hex8(u: Uint8Array, s: number): number {
  const hx = HEX;
  const a = hx[u[s]!]!;
  const b = hx[u[s + 1]!]!;
  const c = hx[u[s + 2]!]!;
  const d = hx[u[s + 3]!]!;
  const e = hx[u[s + 4]!]!;
  const f = hx[u[s + 5]!]!;
  const g = hx[u[s + 6]!]!;
  const h = hx[u[s + 7]!]!;
  if ((a | b | c | d | e | f | g | h) < 0) return -1;
  return ((a << 28) | (b << 24) | (c << 20) | (d << 16) | (e << 12) | (f << 8) | (g << 4) | h) >>> 0;
}

/** Exactly 4 hex digits at u[s, s+4) as a number, or -1 (written out, as hex8). */
export function hex4(u: Uint8Array, s: number): number {
  const hx = HEX;
  const a = hx[u[s]!]!;
  const b = hx[u[s + 1]!]!;
  const c = hx[u[s + 2]!]!;
  const d = hx[u[s + 3]!]!;
  if ((a | b | c | d) < 0) return -1;
  return (a << 12) | (b << 8) | (c << 4) | d;
}

/**
 * Reads the list `[ "0x..", ... ]` at u[p] (spaces only between items) of exactly `lanes` elements
 * of `bits` into words at `base` of `out`; false when it is anything else (the general path decides).
 */
function readList(u: Uint8Array, p: number, lanes: number, bits: number, out: Uint32Array, base: number): boolean {
  if (p < 0 || u[p] !== 91) return false;
  p++;
  const digits = bits >> 2;
  for (let k = 0; k < lanes; k++) {
    while (u[p] === 32) p++;
    if (k > 0) {
      if (u[p] !== 44) return false;
      p++;
      while (u[p] === 32) p++;
    }
    if (u[p] !== 34 || u[p + 1] !== 48 || u[p + 2] !== 120 || u[p + 3 + digits] !== 34) return false;
    if (!putHex(u, p + 3, bits, out, base, k)) return false;
    p += digits + 4;
  }
  while (u[p] === 32) p++;
  return u[p] === 93;
}

/**
 * Element k of a list: the hex digits of `bits` at u[s] into words at `base` of `out` (16-bit
 * elements two to a word, low half first; 64 and 128 bits 8 digits a word, the last digits the
 * lowest word); false on a digit that is not hex.
 */
function putHex(u: Uint8Array, s: number, bits: number, out: Uint32Array, base: number, k: number): boolean {
  if (bits <= 32) {
    const v = hex32(u, s, bits >> 2);
    if (v < 0) return false;
    if (bits === 32) out[base + k] = v;
    else out[base + (k >> 1)]! |= v << ((k & 1) << 4);
    return true;
  }
  const words = bits >> 5;
  const w0 = base + k * words;
  for (let w = 0; w < words; w++) {
    const v = hex32(u, s + (words - 1 - w) * 8, 8);
    if (v < 0) return false;
    out[w0 + w] = v;
  }
  return true;
}

/**
 * Reads list L of an item (f.elems): exactly `lanes` element tokens, each `"0x"`, `'0x'` or a plain
 * `0x` and exactly the digits of `bits`, into words at `base` of `out` (an element the scanner read
 * as hex already, f.pre, is taken as read); false when it is anything else (the general path decides).
 */
function readElems(f: PackFields, L: number, lanes: number, bits: number, out: Uint32Array, base: number): boolean {
  if (f.cnt[L] !== lanes) return false;
  const u = f.src;
  const els = f.els;
  const digits = bits >> 2;
  const pre = f.pre;
  for (let k = 0, x = L * 2 * MAX_ELEMS; k < lanes; k++, x += 2) {
    const h = (x >> 1) * 3;
    const pd = pre[h]!;
    if (pd >= 0) {
      // read as hex by the scanner already ("0x" and pd digits, at most 16): its words, if it has the digits of `bits`
      if (pd !== digits) return false;
      if (bits === 32) out[base + k] = pre[h + 1]!;
      else if (bits === 16) out[base + (k >> 1)]! |= pre[h + 1]! << ((k & 1) << 4);
      else {
        out[base + 2 * k] = pre[h + 1]!;
        out[base + 2 * k + 1] = pre[h + 2]!;
      }
      continue;
    }
    let s = els[x]!;
    const e = els[x + 1]!;
    const q = u[s]!;
    if (q === 34 || q === 39) {
      if (e - s !== digits + 4 || u[e - 1] !== q) return false;
      s++;
    } else if (e - s !== digits + 2) return false;
    if (u[s] !== 48 || u[s + 1] !== 120) return false;
    if (!putHex(u, s + 2, bits, out, base, k)) return false;
  }
  return true;
}

/** List L (0 memory .. 4 expect returned, at `at` in the JSON form) into words at `base` of `out`. */
function readSlot(f: PackFields, L: number, at: number, lanes: number, bits: number, out: Uint32Array, base: number): boolean {
  return f.elems ? readElems(f, L, lanes, bits, out, base) : readList(f.src, at, lanes, bits, out, base);
}

/**
 * The packing of the last few instruction strings seen, by identity (the readers hand on one string
 * object for a repeated spelling), which skips two map lookups a case.
 */
const RECENT_N = 8;
const RECENT_INSTR: (string | undefined)[] = new Array(RECENT_N).fill(undefined);
const RECENT_PACK: (PackVariant | undefined)[] = new Array(RECENT_N).fill(undefined);
let recentNext = 0;

/**
 * Checks an item's fields and, when the item is a good case of the packed shape, writes it to the
 * sink and answers true; false leaves no trace (no name recorded, no problem, no case), and the
 * caller reads the item by the general path instead. `line` is the line of the item, `nameLine` that
 * of its name (the duplicate check's record).
 */
export function packItem(sink: CaseSink, f: PackFields, line: number, nameLine: number): boolean {
  const ctx = sink.ctx;
  const u = f.src;
  const ns = f.nameAt;
  const ne = f.nameEnd;
  if (ns < 0 || (!f.nameChecked && !nameBytesOk(u, ns, ne))) return false;
  let v: PackVariant | undefined;
  let hit = false;
  const instr = f.instruction;
  if (instr !== undefined) {
    for (let i = 0; i < RECENT_N; i++) {
      if (RECENT_INSTR[i] === instr) {
        v = RECENT_PACK[i];
        hit = true;
        break;
      }
    }
  }
  if (!hit) {
    v = instr !== undefined ? packVariantOf(instr) : fileVariant(ctx);
    if (instr !== undefined) {
      RECENT_INSTR[recentNext] = instr;
      RECENT_PACK[recentNext] = v;
      recentNext = (recentNext + 1) % RECENT_N;
    }
  }
  if (!v) return false;
  if (f.memory < 0 || f.b < 0 || f.c >= 0 !== v.cas) return false;
  let bits = 0;
  if (f.space !== undefined) {
    if (f.space === 'global') bits |= SPACE_GLOBAL;
    else if (f.space === 'shared') bits |= SPACE_SHARED;
    else return false;
  }
  if (f.expect) {
    if (f.expMemory < 0 && f.expReturned < 0) return false;
    if (f.expReturned >= 0 && !v.returns) return false;
    if (f.expMemory >= 0) bits |= HAS_EXPECT_MEMORY;
    if (f.expReturned >= 0) bits |= HAS_EXPECT_RETURNED;
  }
  const w = v.fmt.bits;
  const L = v.lanes;
  // the most common case (memory, b, c and the expect lists there are, one element each of at most
  // 32 bits that the scanner read as hex already): packSmall, as packRecord (native-scan.ts) does
  const pre = f.pre;
  const dg = w >> 2;
  const cnt = f.cnt;
  const M = MAX_ELEMS;
  if (
    L === 1 &&
    w <= 32 &&
    pre[0] === dg &&
    pre[3 * M] === dg &&
    cnt[0] === 1 &&
    cnt[1] === 1 &&
    (!v.cas || (pre[6 * M] === dg && cnt[2] === 1)) &&
    (f.expMemory < 0 || (pre[9 * M] === dg && cnt[3] === 1)) &&
    (f.expReturned < 0 || (pre[12 * M] === dg && cnt[4] === 1))
  ) {
    packSmall(sink, v, u, ns, ne, f.nameHash, f.nameCol, line, nameLine, pre[1]!, pre[3 * M + 1]!, v.cas ? pre[6 * M + 1]! : 0, bits, f.expMemory >= 0 ? pre[9 * M + 1]! : 0, f.expReturned >= 0 ? pre[12 * M + 1]! : 0);
    return true;
  }
  const blk = sink.next();
  const base = blk.n * SLOT_WORDS;
  if (
    !readSlot(f, 0, f.memory, L, w, blk.mem, base) ||
    !readSlot(f, 1, f.b, L, w, blk.b, base) ||
    (v.cas && !readSlot(f, 2, f.c, L, w, blk.cW(), base)) ||
    (f.expMemory >= 0 && !readSlot(f, 3, f.expMemory, L, w, blk.expMemW(), base)) ||
    (f.expReturned >= 0 && !readSlot(f, 4, f.expReturned, L, w, blk.expRetW(), base))
  ) {
    blk.abandonNext();
    return false;
  }
  blk.commit(v, u, ns, ne, line, bits);
  // the name is checked later, in a batch (NameSet.deferRef, flush: the set refers to the name in the
  // block, no second copy); a duplicate is reported then, at the line and column recorded here
  // (endNames), and its case dropped where it is still held
  if (ctx.checkNames) {
    const i = blk.n - 1;
    ctx.names.deferRef(blk.nameArray(), blk.nameStartOf(i), blk.nameStartOf(i + 1), f.nameHash, nameLine, f.nameCol, sink.packedCount);
  }
  sink.packedCount++;
  return true;
}

/** The packing of the file's instruction (a header's `instruction:`), for an item that gives none; undefined where there is none or its cases do not pack. */
export function fileVariant(ctx: FileCtx): PackVariant | undefined {
  const info = ctx.fileHasInstruction ? ctx.fileInfo : undefined;
  return info?.variant ? packVariant(info.variant, info.fmt!, info.lanes!) : undefined;
}

/** The packing of an instruction's spelling, or undefined when it names no variant whose cases pack. */
export function packVariantOf(instr: string): PackVariant | undefined {
  const info = variantInfo(instr);
  return info.variant ? packVariant(info.variant, info.fmt!, info.lanes!) : undefined;
}

/**
 * Writes to the sink a case of the packed path's most common shape, which packItem has checked
 * (or a native scanner's record, native-scan.ts's packRecord, with the same checks): one element of
 * at most 32 bits in memory, b and (for cas) c, given as their values; `bits` the space's flags and
 * HAS_EXPECT_MEMORY / HAS_EXPECT_RETURNED where expect: gives those (their one element each in
 * `em`, `er`). The name is u[ns, ne) (hash, column of its value, line), checked later with the
 * file's others.
 */
export function packSmall(sink: CaseSink, v: PackVariant, u: Uint8Array, ns: number, ne: number, hash: number, col: number, line: number, nameLine: number, mem: number, b: number, c: number, bits: number, em = 0, er = 0): void {
  const blk = sink.next();
  const base = blk.n * SLOT_WORDS;
  // (a fresh slot is zero; 16-bit values are the slot's low half)
  blk.mem[base] = mem;
  blk.b[base] = b;
  if (v.cas) blk.cW()[base] = c;
  if (bits & HAS_EXPECT_MEMORY) blk.expMemW()[base] = em;
  if (bits & HAS_EXPECT_RETURNED) blk.expRetW()[base] = er;
  blk.commit(v, u, ns, ne, line, bits);
  const ctx = sink.ctx;
  if (ctx.checkNames) {
    const i = blk.n - 1;
    ctx.names.deferRef(blk.nameArray(), blk.nameStartOf(i), blk.nameStartOf(i + 1), hash, nameLine, col, sink.packedCount);
  }
  sink.packedCount++;
}
