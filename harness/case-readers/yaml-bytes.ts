/**
 * What the packed YAML scanner (yaml-pack-scan.ts) does once per key or scalar, not per byte: the
 * keys' spellings, whether a plain scalar is a string, and the instruction strings it hands on. Each
 * the twin of its namesake in native/reader/src/yaml_scan.cc.
 */
import { RESERVED } from './yaml-item.js';

const isLetter = (c: number | undefined) => c !== undefined && ((c >= 97 && c <= 122) || (c >= 65 && c <= 90));

const bytesOf = (k: string) => Uint8Array.from(k, (c) => c.charCodeAt(0));
export const B_NAME = bytesOf('name');
export const B_INSTRUCTION = bytesOf('instruction');
export const B_SPACE = bytesOf('space');
export const B_MEMORY = bytesOf('memory');
export const B_OPERANDS = bytesOf('operands');
export const B_EXPECT = bytesOf('expect');
export const B_RETURNED = bytesOf('returned');
export const B_GLOBAL = bytesOf('global');
export const B_SHARED = bytesOf('shared');

const latin1 = (u: Uint8Array, s: number, e: number) => Buffer.from(u.buffer, u.byteOffset + s, e - s).toString('latin1');

/** Whether u[s, e) is exactly the bytes w. */
export function bytesIs(u: Uint8Array, s: number, e: number, w: Uint8Array): boolean {
  if (e - s !== w.length) return false;
  for (let i = 0; i < w.length; i++) if (u[s + i] !== w[i]) return false;
  return true;
}

/** Whether the plain scalar u[s, e) (bytes of isPlainByte) is a string as written under YAML's core schema (not null, a boolean or a number). */
export function plainIsString(u: Uint8Array, s: number, e: number): boolean {
  const c0 = u[s]!;
  if (isLetter(c0)) {
    const n = e - s;
    return !((n === 4 || n === 5) && RESERVED.test(latin1(u, s, e)));
  }
  if (c0 === 95) return true;
  // a digit first: a string when something in it is not of a number (and it is no 0x/0o prefix)
  if (!(c0 >= 48 && c0 <= 57) || u[s + 1] === 120 || u[s + 1] === 111) return false;
  for (let i = s + 1; i < e; i++) {
    const c = u[i]!;
    if (!((c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45)) return true;
  }
  return false;
}

/** Recent instruction spellings as bytes, and the one string handed on for each (packItem matches strings by identity): a cache every scanner shares, bytes to string. */
const RECENT_B: Uint8Array[] = [];
const RECENT_T: string[] = [];

export function instructionOf(u: Uint8Array, s: number, e: number): string {
  const n = e - s;
  for (let r = 0; r < RECENT_B.length; r++) {
    const b = RECENT_B[r]!;
    if (b.length !== n) continue;
    // from the end: spellings of one file differ mostly in their last qualifiers (.f32, .b32, .u32)
    let i = n - 1;
    while (i >= 0 && u[s + i] === b[i]) i--;
    if (i < 0) return RECENT_T[r]!;
  }
  const w = Buffer.from(u.buffer, u.byteOffset + s, n).toString('utf8');
  if (RECENT_B.length >= 16) {
    RECENT_B.pop();
    RECENT_T.pop();
  }
  RECENT_B.unshift(new Uint8Array(u.subarray(s, e))); // a copy: the bytes are the reader's reused buffer
  RECENT_T.unshift(w);
  return w;
}
