/**
 * compare/judge-case.ts: the one per-case judge, for a backend's observed bits and a file's expected
 * bits alike. Wrong bits are caught and said with their element and lane, in the words of each use.
 */
import { describe, expect, it } from 'vitest';
import { checkBits, judge } from '../../harness/compare/judge-case.js';
import { elementFormat } from '../../harness/numerics/formats.js';
import { reference } from '../../harness/reference/model.js';
import { variantOf } from '../../harness/compare/explain.js';

const f16x2 = variantOf('red.global.add.noftz.f16x2');
const one = 0x3c00n,
  two = 0x4000n;
const input = { memory: [(one << 16n) | one], b: [(one << 16n) | one] };

describe('checkBits', () => {
  const fmt = elementFormat('f16x2');
  const ref = reference(f16x2, input);
  it('passes the one outcome, and names element and lane of a wrong one, as observed or as expected', () => {
    expect(checkBits(fmt, ref, { memory: [(two << 16n) | two] }, 'observed')).toEqual({ widened: false });
    expect(checkBits(fmt, ref, { memory: [(two << 16n) | one] }, 'observed').miss).toBe('memory[0] lane 0: observed 0x3c00, the reference allows 0x4000');
    expect(checkBits(fmt, ref, { memory: [(one << 16n) | two] }, 'expected').miss).toBe('memory[0] lane 1: expected 0x3c00, the reference allows 0x4000');
  });
  it('bits where the instruction produces none, and an element past the last', () => {
    expect(checkBits(fmt, ref, { returned: [0n] }, 'observed').miss).toBe('returned: observed, but the reference says the instruction produces none');
    expect(checkBits(fmt, ref, { returned: [0n] }, 'expected').miss).toBe('returned: the instruction produces none, the case expects some');
    expect(checkBits(fmt, ref, { memory: [(two << 16n) | two, 0n] }, 'observed').miss).toBe('memory[1]: no such element');
  });
});

describe('judge', () => {
  it('pass, mismatch, and observed where the spec leaves a NaN payload open', () => {
    expect(judge('x', f16x2, input, { memory: [(two << 16n) | two] }).verdict).toBe('pass');
    expect(judge('x', f16x2, input, { memory: [two] }).verdict).toBe('mismatch');
    const nan = { memory: [0x7e01n], b: [one] };
    const v = variantOf('red.global.add.noftz.f16');
    const r = reference(v, nan);
    const allowedNaN = r.memory![0]![0]!;
    expect(allowedNaN.anyNaN || allowedNaN.bits.length > 1).toBe(true);
    expect(judge('x', v, nan, { memory: [0x7fffn] }).verdict).toBe('observed');
  });
});
