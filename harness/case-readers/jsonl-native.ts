/**
 * The JSON-lines packed scanner in C++ (native/reader/src/jsonl_scan.cc), where it is built: a
 * speed-up of vector-jsonl.ts's scanPackedLine, which reads any line it does not take. `npm install`
 * builds it with node-gyp (a C++ compiler is all it needs, no CUDA); without it, or with
 * PTX_JSONL_NATIVE=0 in the environment, every line is read by the TypeScript scanner, with the
 * same cases and problems (tests/case-readers/jsonl-native.test.ts reads the same files both ways).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The record layout and table sizes, as jsonl_scan.cc has them (its `layout` string is checked against these). */
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
export const R_HEAD = 24;
export const TBL_N = 64;
export const TBL_W = 128;
const SLOTS = 128;
const LAYOUT = `R_HEAD=${R_HEAD} MAX_ELEMS=16 TBL_N=${TBL_N} TBL_W=${TBL_W} SLOTS=${SLOTS}`;

export interface NativeScan {
  /**
   * Reads lines from u[s] (none starting at or after `end`; the data ends at u[n], the file's end
   * where `last`) while they are of the shape it takes and `rec` has room: their records, one after
   * another; returns how many. `tbl` and `tix` hold the file's instruction spellings (newTables).
   */
  scan(u: Uint8Array, s: number, end: number, n: number, last: boolean, rec: Int32Array, tbl: Uint8Array, tix: Int32Array): number;
}

/** A file's instruction-spelling tables: entry i's bytes at tbl[i * TBL_W], its length at tix[1 + i], the count at tix[0]. */
export function newTables(): { tbl: Uint8Array; tix: Int32Array } {
  return { tbl: new Uint8Array(TBL_N * TBL_W), tix: new Int32Array(1 + TBL_N + SLOTS) };
}

let loaded: NativeScan | undefined;
let why = '';
let tried = false;
let off = process.env.PTX_JSONL_NATIVE === '0';

function load(): void {
  tried = true;
  const here = dirname(fileURLToPath(import.meta.url));
  // beside the repository's native/reader build, or beside a bundle (scripts/gpu/pack.mjs)
  const paths = [resolve(here, '..', '..', 'native', 'reader', 'build', 'Release', 'jsonl_scan.node'), join(here, 'jsonl_scan.node')];
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

/** The native scanner, or undefined (not built, or turned off). */
export function jsonlNative(): NativeScan | undefined {
  if (off) return undefined;
  if (!tried) load();
  return loaded;
}

/** Why there is no native scanner ('' when there is one). */
export function jsonlNativeStatus(): string {
  if (off) return 'turned off (PTX_JSONL_NATIVE=0, or by a test)';
  if (!tried) load();
  return loaded ? '' : why;
}

/** Turns the native scanner off or back on for the scanners made after this (the tests read files both ways). */
export function useJsonlNative(on: boolean): void {
  off = !on;
}
