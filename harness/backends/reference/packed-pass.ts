/**
 * A plain pass of a packed block kept whole (the first `keepWhole` of a run; every case under
 * `--keep all`), made from the block's words without a Case object, BigInts or a detail object:
 * the result's JSON line is written here as bytes, exactly the text JSON.stringify writes for the
 * result runCaseOnReference makes for the same case (the report writers copy the bytes:
 * harness/report/lines.ts), and the result's `case` is read back from that line only if something
 * asks for it.
 *
 * Only cases the fast path called a pass come here: the one outcome the model allows is the file's
 * expect, or, without an expect, the outcome the fast path wrote; or the expect holds a NaN in the
 * lanes where the model leaves any NaN (their allowed set `{"bits":[],"anyNaN":true}`, the lanes part
 * of the group's key). What the line holds that
 * the words do not (the catalog judgement, the reason, the unspecified rules) comes from a
 * representative of the group (variant, space, expect kind): the first such case of each block,
 * which goes the full way, and whose full result must serialise to exactly the line made here for
 * it; a group where it does not goes the full way case by case (`PassGroup.ok` false).
 * tests/backends/reference-packed.test.ts compares every line with JSON.stringify of the full
 * result.
 */
import { HAS_EXPECT_RETURNED, type PackedCases, SLOT_WORDS, SPACE_GLOBAL, SPACE_SHARED } from '../../case-readers/packed.js';
import { LineBytes, type LineRef, PlainPass, type PlainPassGroup } from '../../report/lines.js';
import type { EntryResult } from '../../report/types.js';

const ENC = new TextEncoder();
const DEC = new TextDecoder();
const utf8 = (s: string) => ENC.encode(s);
const HEX = utf8('0123456789abcdef');

/** HEX2[x] for a byte x: its two hex digits' codes, the first in the low byte. */
const HEX2 = new Uint16Array(256);
for (let x = 0; x < 256; x++) HEX2[x] = HEX[x >> 4]! | (HEX[x & 15]! << 8);

/** Writes the `d` (4 or 8) low hex digits of word `x` at b[at..]; returns the end. */
function digits(b: Uint8Array, at: number, x: number, d: number): number {
  for (let k = d - 2; k >= 0; k -= 2) {
    const h = HEX2[x & 0xff]!;
    b[at + k] = h & 0xff;
    b[at + k + 1] = h >> 8;
    x >>>= 8;
  }
  return at + d;
}

/** Writes element k of the slot at word `base` of `a` as hex digits (bits/4 of them, no 0x); returns the end. */
function element(b: Uint8Array, at: number, a: Uint32Array, base: number, k: number, bits: number): number {
  switch (bits) {
    case 16:
      return digits(b, at, (a[base + (k >> 1)]! >>> ((k & 1) << 4)) & 0xffff, 4);
    case 32:
      return digits(b, at, a[base + k]!, 8);
    case 64:
      return digits(b, digits(b, at, a[base + 2 * k + 1]!, 8), a[base + 2 * k]!, 8);
    default:
      return digits(b, digits(b, digits(b, digits(b, at, a[base + 3]!, 8), a[base + 2]!, 8), a[base + 1]!, 8), a[base]!, 8);
  }
}

/**
 * A hole of a group's template: the hex digits of one element (lane -1) or one lane of case i's
 * slot in one of the block's arrays (0 mem, 1 b, 2 c, 3 expMem, 4 expRet, 5 the outcome), written
 * at offset `at` of the template's tail.
 */
interface Hole {
  readonly src: number;
  readonly k: number;
  readonly lane: number;
  readonly at: number;
}

/** What a group's representative (its full result) gives every plain pass of the group in one block. */
export interface PassGroup extends PlainPassGroup {
  /** False: the representative's result is not what the line would say; the group goes the full way. */
  readonly ok: boolean;
  /** `{"id":"<variant>/<file>:` */
  readonly id: Uint8Array;
  /** `","family":...,"catalog":`, the judgement's JSON (at [cat, catEnd) of it), `,"verdict":"pass",... "line":` */
  readonly mid: Uint8Array;
  readonly cat: number;
  readonly catEnd: number;
  /** `,"name":"` */
  readonly name: Uint8Array;
  /** From the `"` after the origin's name to the line's newline, with holes for the bits' digits. */
  readonly tail: Uint8Array;
  readonly holes: readonly Hole[];
  /** Element and lane bits of the variant. */
  readonly bits: number;
  readonly laneBits: number;
}

/** The template's tail and its holes: the text of the line after the origin's name (as JSON.stringify writes the full result). */
function tailOf(p: PackedCases, i: number, full: EntryResult, kind: number, nan: number): { tail: Uint8Array; holes: Hole[] } {
  const v = p.variants[p.vidx[i]!]!;
  const fmt = v.fmt;
  const n = v.lanes;
  const bits = p.bits[i]!;
  const holes: Hole[] = [];
  // the cite (any text) first; the rest is ASCII, so offsets counted in characters from the end of the cite are bytes
  const head = utf8(`"${p.cite !== undefined ? `,"cite":${JSON.stringify(p.cite)}` : ''}}`);
  let t = '';
  const list = (src: number) => {
    t += '[';
    for (let k = 0; k < n; k++) {
      t += `${k ? ',' : ''}"0x`;
      holes.push({ src, k, lane: -1, at: head.length + t.length });
      t += `${'0'.repeat(fmt.bits >> 2)}"`;
    }
    t += ']';
  };
  // the expected memory's lanes in `open` (bit k * lanes + l) are any NaN
  const exactly = (src: number, open = 0) => {
    t += '[';
    for (let k = 0; k < n; k++) {
      t += k ? ',[' : '[';
      for (let l = 0; l < fmt.lanes; l++) {
        if (open & (1 << (k * fmt.lanes + l))) {
          t += `${l ? ',' : ''}{"bits":[],"anyNaN":true}`;
          continue;
        }
        t += `${l ? ',' : ''}{"bits":["0x`;
        holes.push({ src, k, lane: fmt.lanes === 1 ? -1 : l, at: head.length + t.length });
        t += `${'0'.repeat(fmt.lane.bits >> 2)}"],"anyNaN":false}`;
      }
      t += ']';
    }
    t += ']';
  };
  t += ',"input":{"memory":';
  list(0);
  t += ',"b":';
  list(1);
  if (v.cas) {
    t += ',"c":';
    list(2);
  }
  if (bits & SPACE_GLOBAL) t += ',"space":"global"';
  else if (bits & SPACE_SHARED) t += ',"space":"shared"';
  t += '}';
  if (kind !== 0) {
    t += ',"expect":{"memory":';
    list(3);
    if (bits & HAS_EXPECT_RETURNED) {
      t += ',"returned":';
      list(4);
    }
    t += '}';
  }
  t += ',"allowed":{"memory":';
  exactly(kind === 0 ? 5 : 3, nan);
  if (v.returns) {
    t += ',"returned":';
    exactly(0);
  }
  t += `},"unspecified":${JSON.stringify(full.case?.unspecified ?? [])}}}\n`;
  const rest = utf8(t);
  const tail = new Uint8Array(head.length + rest.length);
  tail.set(head);
  tail.set(rest, head.length);
  return { tail, holes };
}

/** A group's shared parts from its representative's full result `full` (case i of the block). */
export function passGroup(p: PackedCases, i: number, full: EntryResult, kind: number, outcome: Uint32Array | undefined, nan = 0): PassGroup {
  const v = p.variants[p.vidx[i]!]!;
  const idJson = JSON.stringify(`${v.variant.id}/${p.idFile}:`);
  const pre = utf8(`","family":${JSON.stringify(full.family)},"kind":"case","ptx":${JSON.stringify(full.ptx)},"modulePtx":"-","catalog":`);
  const cat = utf8(JSON.stringify(full.catalog));
  const post = utf8(`,"verdict":"pass","reason":${JSON.stringify(full.reason)},"case":{"origin":{"kind":"vectors","file":${JSON.stringify(p.idFile)},"line":`);
  const mid = new Uint8Array(pre.length + cat.length + post.length);
  mid.set(pre);
  mid.set(cat, pre.length);
  mid.set(post, pre.length + cat.length);
  const g: PassGroup = {
    ok: true,
    family: full.family,
    ptx: full.ptx,
    catalog: full.catalog,
    reason: full.reason,
    idPrefix: `${v.variant.id}/${p.idFile}:`,
    id: utf8(`{"id":${idJson.slice(0, -1)}`),
    mid,
    cat: pre.length,
    catEnd: pre.length + cat.length,
    name: utf8(',"name":"'),
    ...tailOf(p, i, full, kind, nan),
    bits: v.fmt.bits,
    laneBits: v.fmt.lane.bits,
  };
  const w = new LineBytes(1 << 12);
  passLine(w, p, i, g, outcome);
  const ok = full.verdict === 'pass' && full.id === p.id(i) && DEC.decode(w.buf.subarray(0, w.n)) === `${JSON.stringify(full)}\n`;
  return ok ? g : { ...g, ok: false };
}

/** Writes the JSON line of plain pass i (its newline after it; `outcome`: the fast path's, for a group without expect); returns where it is. */
function passLine(w: LineBytes, p: PackedCases, i: number, g: PassGroup, outcome: Uint32Array | undefined): LineRef {
  const names = p.nameArray();
  const ns = p.nameStartOf(i);
  const ne = p.nameStartOf(i + 1);
  const line = String(p.line[i]!);
  w.line(g.id.length + g.mid.length + g.name.length + g.tail.length + 2 * (ne - ns) + line.length);
  const buf = w.buf;
  let at = w.n;
  const start = at;
  buf.set(g.id, at);
  at += g.id.length;
  for (let k = ns; k < ne; k++) buf[at++] = names[k]!;
  const cat = at + g.cat;
  const catEnd = at + g.catEnd;
  buf.set(g.mid, at);
  at += g.mid.length;
  for (let k = 0; k < line.length; k++) buf[at++] = line.charCodeAt(k);
  buf.set(g.name, at);
  at += g.name.length;
  for (let k = ns; k < ne; k++) buf[at++] = names[k]!;
  // the tail, then its holes filled
  const t = at;
  buf.set(g.tail, at);
  at += g.tail.length;
  const base = i * SLOT_WORDS;
  const bits = g.bits;
  const lb = g.laneBits;
  const holes = g.holes;
  for (let h = 0; h < holes.length; h++) {
    const { src, k, lane } = holes[h]!;
    const a = src === 0 ? p.mem : src === 1 ? p.b : src === 2 ? p.c : src === 3 ? p.expMem : src === 4 ? p.expRet : outcome!;
    const to = t + holes[h]!.at;
    if (lane < 0) element(buf, to, a, base, k, bits);
    else {
      // a lane of an element of at most 32 bits (the packed formats)
      const e = bits === 16 ? (a[base + (k >> 1)]! >>> ((k & 1) << 4)) & 0xffff : a[base + k]!;
      const x = (e >>> (lane * lb)) & ((1 << lb) - 1);
      if (lb === 8) {
        const d = HEX2[x]!;
        buf[to] = d & 0xff;
        buf[to + 1] = d >> 8;
      } else digits(buf, to, x, lb >> 2);
    }
  }
  w.n = at;
  return { buf, start, cat, catEnd, end: at - 1 };
}

/** Plain pass i of the block as a result, its line written into `w` (`g` from passGroup, ok). */
export function packedPass(w: LineBytes, p: PackedCases, i: number, g: PassGroup, outcome: Uint32Array | undefined): EntryResult {
  const r = passLine(w, p, i, g, outcome);
  return new PlainPass(g, p, i, r.buf, r.start, r.cat, r.catEnd, r.end);
}
