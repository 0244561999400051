/**
 * The second half of a packed reader (packed.ts holds the blocks and the sink): the fields a form's
 * scanner found in an item (yaml-pack-scan.ts, vector-jsonl.ts, the native scanner's records),
 * checked and written into the sink's block as one slot, or refused (the item then goes the general
 * way, vector-check.ts).
 */
import { type CaseSink, HAS_EXPECT_MEMORY, HAS_EXPECT_RETURNED, type PackVariant, SLOT_WORDS, SPACE_GLOBAL, SPACE_SHARED, packVariant } from './packed.js';
import { type FileCtx, variantInfo } from './vector-check.js';

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
  return {
    src: new Uint8Array(0),
    nameAt: -1,
    nameEnd: -1,
    nameHash: 0,
    nameChecked: false,
    nameCol: 1,
    instruction: undefined,
    space: undefined,
    memory: -1,
    b: -1,
    c: -1,
    expMemory: -1,
    expReturned: -1,
    operands: false,
    expect: false,
    elems: false,
    els: new Int32Array(5 * 2 * MAX_ELEMS),
    cnt: new Int32Array(5),
    pre: new Int32Array(5 * 3 * MAX_ELEMS).fill(-1),
  };
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
    packSmall(
      sink,
      v,
      u,
      ns,
      ne,
      f.nameHash,
      f.nameCol,
      line,
      nameLine,
      pre[1]!,
      pre[3 * M + 1]!,
      v.cas ? pre[6 * M + 1]! : 0,
      bits,
      f.expMemory >= 0 ? pre[9 * M + 1]! : 0,
      f.expReturned >= 0 ? pre[12 * M + 1]! : 0,
    );
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
export function packSmall(
  sink: CaseSink,
  v: PackVariant,
  u: Uint8Array,
  ns: number,
  ne: number,
  hash: number,
  col: number,
  line: number,
  nameLine: number,
  mem: number,
  b: number,
  c: number,
  bits: number,
  em = 0,
  er = 0,
): void {
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
