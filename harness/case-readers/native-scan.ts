/**
 * The vector-file scanners in C++ (native/reader/src/: jsonl_scan.cc for JSON lines, yaml_scan.cc
 * for YAML list items), where they are built: speed-ups of the TypeScript packed scanners
 * (vector-jsonl.ts's scanPackedLine, yaml-pack-scan.ts's PackScanner), which read any line or item they
 * do not take. `npm install` builds them with node-gyp (a C++ compiler is all they need, no CUDA);
 * without them, or with PTX_NATIVE_SCAN=0 in the environment, everything is read by the TypeScript
 * scanners, with the same cases and problems (tests/case-readers/jsonl-native.test.ts and
 * yaml-native.test.ts read the same files both ways). A scanner writes a record per line or item:
 * the fields the TypeScript scanner leaves in PackFields for it (the R_ layout below).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromRoot } from '../util/paths.js';
import { type CaseSink, HAS_EXPECT_MEMORY, HAS_EXPECT_RETURNED, type PackVariant, SPACE_GLOBAL, SPACE_SHARED } from './packed.js';
import { MAX_ELEMS, type PackFields, newPackFields, fileVariant, packItem, packSmall, packVariantOf, resetPackFields } from './pack-fields.js';

/** The record layout and table sizes, as native/reader/src/scan_common.h has them (its `layout` string is checked against these). */
export const R_NL = 0;
export const R_NAME_AT = 1;
export const R_NAME_END = 2;
export const R_HASH = 3;
export const R_COL = 4;
export const R_INSTR = 5;
export const R_SPACE = 6;
export const R_FLAGS = 7;
export const R_LIST = 8;
export const R_CNT = 13;
export const R_POS = 18;
export const R_LEN = 23;
export const R_LINES = 24;
export const R_NAMELINE = 25;
export const R_HEAD = 26;
export const TBL_N = 64;
export const TBL_W = 128;
const SLOTS = 128;
/** Zero bytes scanYaml wants after the data. */
export const YAML_SLACK = 64;
const LAYOUT = `R_HEAD=${R_HEAD} MAX_ELEMS=${MAX_ELEMS} TBL_N=${TBL_N} TBL_W=${TBL_W} SLOTS=${SLOTS} yaml=1`;

export interface NativeScan {
  /**
   * JSON lines: reads lines from u[s] (none starting at or after `end`; the data ends at u[n], the
   * file's end where `last`) while they are of the shape it takes and `rec` has room: their records,
   * one after another; returns how many. `tbl` and `tix` hold the file's instruction spellings.
   */
  scan(u: Uint8Array, s: number, end: number, n: number, last: boolean, rec: Int32Array, tbl: Uint8Array, tix: Int32Array): number;
  /**
   * YAML: reads list items from u[s] (an item's first line: `indent` spaces, '- '; the data ends at
   * u[n], followed by YAML_SLACK zero bytes; the file's end where `last`) while they are of the
   * shape it takes and `rec` has room, each to the line that starts the next item; returns how many.
   */
  scanYaml(u: Uint8Array, s: number, n: number, last: boolean, indent: number, rec: Int32Array, tbl: Uint8Array, tix: Int32Array): number;
}

/**
 * A file's instruction spellings as the native scanners keep them (entry i's bytes at tbl[i * TBL_W],
 * its length at tix[1 + i], the count at tix[0], then the scanner's hash index), with one string and
 * packing for each entry: packItem knows a repeated spelling by its string's identity.
 */
export class Spellings {
  readonly tbl = new Uint8Array(TBL_N * TBL_W);
  readonly tix = new Int32Array(1 + TBL_N + SLOTS);
  readonly strings: string[] = [];
  readonly packings: (PackVariant | null)[] = [];
  /** Makes the strings of the entries the scanner added since the last call. */
  sync(): void {
    for (let id = this.strings.length; id < this.tix[0]!; id++) {
      const w = Buffer.from(this.tbl.buffer, this.tbl.byteOffset + id * TBL_W, this.tix[1 + id]!).toString('utf8');
      this.strings.push(w);
      this.packings.push(packVariantOf(w) ?? null);
    }
  }
}

/**
 * Record `o` of `rec` (a native scanner's, over the bytes u) into `f` as the TypeScript scanner
 * leaves its fields for the same line or item (`spellings`: the strings of the file's instruction
 * spellings, by number). The element token offsets (f.els) are not set: every element of a record
 * was read as hex (f.pre).
 */
export function recordFields(rec: Int32Array, o: number, u: Uint8Array, spellings: readonly string[], f: PackFields): PackFields {
  resetPackFields(f, u);
  f.elems = true;
  const nameAt = rec[o + R_NAME_AT]!;
  if (nameAt >= 0) {
    f.nameAt = nameAt;
    f.nameEnd = rec[o + R_NAME_END]!;
    f.nameHash = rec[o + R_HASH]!;
    f.nameCol = rec[o + R_COL]!;
    f.nameChecked = true;
  }
  const id = rec[o + R_INSTR]!;
  if (id >= 0) f.instruction = spellings[id];
  const sp = rec[o + R_SPACE]!;
  if (sp) f.space = sp === 1 ? 'global' : sp === 2 ? 'shared' : '?';
  const fl = rec[o + R_FLAGS]!;
  f.operands = (fl & 1) !== 0;
  f.expect = (fl & 2) !== 0;
  f.memory = rec[o + R_LIST]!;
  f.b = rec[o + R_LIST + 1]!;
  f.c = rec[o + R_LIST + 2]!;
  f.expMemory = rec[o + R_LIST + 3]!;
  f.expReturned = rec[o + R_LIST + 4]!;
  const pre = f.pre;
  for (let L = 0; L < 5; L++) {
    const c = rec[o + R_CNT + L]!;
    f.cnt[L] = c;
    for (let j = 0, x = o + rec[o + R_POS + L]!, h = L * 3 * MAX_ELEMS; j < c; j++, x += 3, h += 3) {
      pre[h] = rec[x]!;
      pre[h + 1] = rec[x + 1]!;
      pre[h + 2] = rec[x + 2]!;
    }
  }
  return f;
}

const PF: PackFields = newPackFields();

/**
 * Record `o` (over the bytes u) to the sink, as packItem takes the same fields: the most common case
 * (a name, an instruction that packs, memory, b and c as the instruction has them, one element of
 * its width each, no space other than global or shared, expect: with memory and/or returned (where
 * the instruction returns) of one element each, or no expect) straight to packSmall with packItem's
 * checks made here, any other through PackFields and packItem. False: packItem does not take it,
 * and nothing was written (the caller reads the line or item by the general path).
 */
export function packRecord(sink: CaseSink, rec: Int32Array, o: number, u: Uint8Array, sp: Spellings, line: number, nameLine: number): boolean {
  const id = rec[o + R_INSTR]!;
  // the item's instruction, or the file's (a header's instruction:)
  const v = id >= 0 ? sp.packings[id]! : (fileVariant(sink.ctx) ?? null);
  const space = rec[o + R_SPACE]!;
  if (
    v !== null &&
    v.lanes === 1 &&
    v.fmt.bits <= 32 &&
    space !== 3 &&
    rec[o + R_NAME_AT]! >= 0 &&
    rec[o + R_LIST]! >= 0 &&
    rec[o + R_LIST + 1]! >= 0 &&
    rec[o + R_LIST + 2]! >= 0 === v.cas
  ) {
    const dg = v.fmt.bits >> 2;
    const pos = o + R_POS;
    const m = o + rec[pos]!;
    const b = o + rec[pos + 1]!;
    const c = o + rec[pos + 2]!;
    if (rec[o + R_CNT]! === 1 && rec[o + R_CNT + 1]! === 1 && rec[m]! === dg && rec[b]! === dg && (!v.cas || (rec[o + R_CNT + 2]! === 1 && rec[c]! === dg))) {
      let bits = space === 1 ? SPACE_GLOBAL : space === 2 ? SPACE_SHARED : 0;
      let em = 0;
      let er = 0;
      let ok = true;
      if ((rec[o + R_FLAGS]! & 2) !== 0) {
        // expect: memory and/or returned (returned only where the instruction returns), one element of the width each
        const hasM = rec[o + R_LIST + 3]! >= 0;
        const hasR = rec[o + R_LIST + 4]! >= 0;
        const xm = o + rec[pos + 3]!;
        const xr = o + rec[pos + 4]!;
        ok =
          (hasM || hasR) &&
          (!hasR || v.returns) &&
          (!hasM || (rec[o + R_CNT + 3]! === 1 && rec[xm]! === dg)) &&
          (!hasR || (rec[o + R_CNT + 4]! === 1 && rec[xr]! === dg));
        if (hasM) {
          bits |= HAS_EXPECT_MEMORY;
          em = rec[xm + 1]!;
        }
        if (hasR) {
          bits |= HAS_EXPECT_RETURNED;
          er = rec[xr + 1]!;
        }
      }
      if (ok) {
        packSmall(
          sink,
          v,
          u,
          rec[o + R_NAME_AT]!,
          rec[o + R_NAME_END]!,
          rec[o + R_HASH]!,
          rec[o + R_COL]!,
          line,
          nameLine,
          rec[m + 1]!,
          rec[b + 1]!,
          v.cas ? rec[c + 1]! : 0,
          bits,
          em,
          er,
        );
        return true;
      }
    }
  }
  return packItem(sink, recordFields(rec, o, u, sp.strings, PF), line, nameLine);
}

let loaded: NativeScan | undefined;
let why = '';
let tried = false;
let off = process.env.PTX_NATIVE_SCAN === '0';

function load(): void {
  tried = true;
  const here = dirname(fileURLToPath(import.meta.url));
  // beside the repository's native/reader build, or beside a bundle (scripts/gpu/pack.mjs)
  const paths = [
    resolve(here, '..', '..', 'native', 'reader', 'build', 'Release', 'vector_scan.node'),
    join(here, 'vector_scan.node'),
    fromRoot('native', 'reader', 'build', 'Release', 'vector_scan.node'),
  ];
  const req = createRequire(import.meta.url);
  for (const p of paths) {
    if (!existsSync(p)) continue;
    try {
      const m = req(p) as NativeScan & { layout?: string };
      if (m.layout !== LAYOUT) {
        why = `${p} has another record layout (${m.layout ?? 'none'}; this reader wants ${LAYOUT}): run npm rebuild`;
        return;
      }
      loaded = m;
      return;
    } catch (e) {
      why = `${p} did not load: ${e instanceof Error ? e.message : String(e)}`;
      return;
    }
  }
  why = 'not built (npm install builds native/reader with node-gyp; it needs python3, make and a C++ compiler)';
}

/** The native scanners, or undefined (not built, or turned off). */
export function nativeScan(): NativeScan | undefined {
  if (off) return undefined;
  if (!tried) load();
  return loaded;
}

/** Why there are no native scanners ('' when there are). */
export function nativeScanStatus(): string {
  if (off) return 'turned off (PTX_NATIVE_SCAN=0, or by a test)';
  if (!tried) load();
  return loaded ? '' : why;
}

/** Turns the native scanners off or back on for the readers made after this (the tests read files both ways). */
export function useNativeScan(on: boolean): void {
  off = !on;
}
