/**
 * Every e4m3 and e5m2 pair (2^16 each) for add (with and without flushing) and min/max, model
 * against a second implementation built a different way (tests/numerics/oracles.ts).
 */
import { describe, expect, it } from 'vitest';
import { decodeExact } from '../../harness/numerics/exact.js';
import { decodeTable } from '../../harness/numerics/encode.js';
import { E4M3, E5M2, type FloatFormat, classify } from '../../harness/numerics/formats.js';
import { fastAdder, fastMinMax, lastAdd } from '../../harness/numerics/ops.js';
import { addRational, minmaxOrder } from './oracles.js';

const FORMATS: FloatFormat[] = [E4M3, E5M2];

describe.each(FORMATS)('$name', (f) => {
  it('decodes every encoding to the value its bit fields give', () => {
    const t = decodeTable(f);
    for (let b = 0; b < 256; b++) {
      const e = decodeExact(f, BigInt(b));
      if (e.kind === 'nan') expect(Number.isNaN(t[b]!), b.toString(16)).toBe(true);
      else if (e.kind === 'inf') expect(t[b]).toBe(e.sign ? -Infinity : Infinity);
      else expect(t[b]!, b.toString(16)).toBe((e.sign ? -1 : 1) * Number(e.m) * 2 ** e.e);
    }
  });

  it('has the documented encodings', () => {
    const t = decodeTable(f);
    if (f === E4M3) {
      expect(t[0x7e]).toBe(448);
      expect(Number.isNaN(t[0x7f]!) && Number.isNaN(t[0xff]!)).toBe(true);
      expect(t[0x78]).toBe(256); // exponent 1111 is a normal binade in E4M3
      expect(t[0x01]).toBe(2 ** -9);
      expect([...Array(256).keys()].filter((b) => classify(f, b) === 'inf')).toEqual([]);
    } else {
      expect(t[0x7b]).toBe(57344);
      expect(t[0x7c]).toBe(Infinity);
      expect(Number.isNaN(t[0x7d]!)).toBe(true);
      expect(t[0x01]).toBe(2 ** -16);
    }
  });

  it.each([false, true])('add, ftz=%s: all 65536 pairs equal exact rational arithmetic', (ftz) => {
    const add = fastAdder(f, ftz);
    let bad = 0;
    const first: string[] = [];
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        const got = add(a, b);
        const nan = lastAdd.nan;
        const want = addRational(f, a, b, ftz);
        const ok = want === null ? nan || classify(f, got) === 'nan' : got === want && !nan;
        if (!ok && bad++ < 5) first.push(`${a.toString(16)}+${b.toString(16)}: model ${got.toString(16)} oracle ${want?.toString(16)}`);
      }
    }
    expect(first).toEqual([]);
    expect(bad).toBe(0);
  });

  it.each(['min', 'max'] as const)('%s: all 65536 pairs equal the bit-order oracle', (op) => {
    const mm = fastMinMax(f, op);
    let bad = 0;
    for (let a = 0; a < 256; a++) for (let b = 0; b < 256; b++) if ((mm(a, b) === -1 ? null : mm(a, b)) !== minmaxOrder(f, op, a, b)) bad++;
    expect(bad).toBe(0);
  });
});
