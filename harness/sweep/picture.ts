/**
 * The map of a sweep: 256 x 256 cells (row a_hi: the memory operand's high byte, column b_hi: the
 * other operand's), each coloured by what its 65,536 pairs came to, as a palette PNG for the HTML
 * report (a data: URI; no network). Colours: green every pair the model's one result; light amber
 * some NaN results where the model allows any NaN (observed), dark amber all of them; red at least
 * one mismatch.
 */
import { deflateSync } from 'node:zlib';
import { CELLS, CELL_PAIRS } from './space.js';

export const PICTURE_LEGEND = [
  { colour: '#2e7d32', meaning: 'every pair: the one result the model allows' },
  { colour: '#ffe082', meaning: 'some pairs NaN where the model allows any NaN (observed)' },
  { colour: '#ff8f00', meaning: 'every pair NaN where the model allows any NaN' },
  { colour: '#c62828', meaning: 'at least one mismatch' },
] as const;

/** Class of each cell (0-3, as PICTURE_LEGEND). */
export function cellClasses(mismatch: Uint32Array, nan: Uint32Array): Uint8Array {
  const out = new Uint8Array(CELLS);
  for (let c = 0; c < CELLS; c++) out[c] = mismatch[c]! > 0 ? 3 : nan[c] === CELL_PAIRS ? 2 : nan[c]! > 0 ? 1 : 0;
  return out;
}

const CRC = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC[(c ^ x) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A palette PNG of 256 x 256 cells, `scale` pixels each. */
export function picturePng(classes: Uint8Array, scale = 2): Buffer {
  const side = 256 * scale;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 3; // palette
  const plte = Buffer.from(PICTURE_LEGEND.flatMap((l) => [1, 3, 5].map((i) => Number.parseInt(l.colour.slice(i, i + 2), 16))));
  const raw = Buffer.alloc(side * (side + 1));
  for (let y = 0; y < side; y++) {
    const row = y * (side + 1);
    raw[row] = 0; // no filter
    const aHi = Math.floor(y / scale);
    for (let x = 0; x < side; x++) raw[row + 1 + x] = classes[(aHi << 8) | Math.floor(x / scale)]!;
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('PLTE', plte),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function pictureDataUri(classes: Uint8Array): string {
  return `data:image/png;base64,${picturePng(classes).toString('base64')}`;
}
