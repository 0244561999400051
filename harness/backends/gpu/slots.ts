/**
 * Case slots in launch buffers: case i owns SLOT bytes at offset SLOT*i; its lanes sit little-endian,
 * `width` bits each, from the start of the slot.
 */
import { SLOT } from './emit.js';

export function writeSlot(buf: Buffer, slot: number, width: number, lanes: readonly bigint[]): void {
  const bytes = width / 8;
  lanes.forEach((v0, k) => {
    let v = v0;
    for (let j = 0; j < bytes; j++, v >>= 8n) buf[slot * SLOT + k * bytes + j] = Number(v & 0xffn);
  });
}

export function readSlot(buf: Buffer, slot: number, width: number, lanes: number): bigint[] {
  const bytes = width / 8;
  return Array.from({ length: lanes }, (_, k) => {
    let v = 0n;
    for (let j = bytes - 1; j >= 0; j--) v = (v << 8n) | BigInt(buf[slot * SLOT + k * bytes + j]!);
    return v;
  });
}
