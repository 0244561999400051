/**
 * The TestFloat-style f16 add file (scripts/gen-testfloat-f16.ts) and the fast judge on it.
 * A gpu run past its first 20,000 file cases now counts a case the fast judge marks
 * 2 (`observed`: NaN lanes where the model allows any NaN, every other lane its one outcome) without
 * the full model, as it counted its passes; so on the same cases the fast judge must say what the
 * full judge says: flag 0 exactly where the full judge passes, 2 exactly where it says observed,
 * and 1 (full judge) for every wrong bit. The file's expected bits are the full model's.
 */
import { describe, expect, it } from 'vitest';
import { judge } from '../../harness/compare/judge-case.js';
import { variantFromId } from '../../harness/case-readers/sources.js';
import { fastChecker } from '../../harness/reference/fast.js';
import { reference } from '../../harness/reference/model.js';
import { TESTFLOAT_INSTRUCTION, testFloatCases } from '../../scripts/gen-testfloat-f16.js';

const N = 20_000;
const cases = [...testFloatCases(N)];
const v = variantFromId(TESTFLOAT_INSTRUCTION)!;

/** The fast judge's flags for observed (memory, returned) per case. */
function flags(mem: (k: number) => number, ret: (k: number) => number): Uint8Array {
  const w = () => new Uint32Array(4 * N);
  const [m, b, c, memOut, r] = [w(), w(), w(), w(), w()];
  cases.forEach((x, k) => {
    m[4 * k] = x.a;
    b[4 * k] = x.b;
    memOut[4 * k] = mem(k);
    r[4 * k] = ret(k);
  });
  const f = new Uint8Array(N);
  fastChecker(v, 1, 'global', true)!({ mem: m, b, c, memOut, ret: r, n: N }, f);
  return f;
}
const full = (k: number, mem: number, ret: number) =>
  judge('', v, { memory: [BigInt(cases[k]!.a)], b: [BigInt(cases[k]!.b)] }, { memory: [BigInt(mem)], returned: [BigInt(ret)] }).verdict;

describe('the TestFloat-style f16 add cases', () => {
  it('about 12 % NaN results; every expected sum is the one value the full model allows, or a NaN where it allows any NaN', () => {
    const nan = cases.filter((x) => x.nan).length;
    expect(nan / N).toBeGreaterThan(0.1);
    expect(nan / N).toBeLessThan(0.14);
    for (const x of cases.slice(0, 4000)) {
      const ref = reference(v, { memory: [BigInt(x.a)], b: [BigInt(x.b)] });
      const lane = ref.memory![0]![0]!;
      if (x.nan) expect(lane.anyNaN).toBe(true);
      else expect([lane.bits, lane.anyNaN]).toEqual([[BigInt(x.sum)], false]);
    }
  });

  it('observed as the file expects: the fast judge says 0 exactly where the full judge passes, 2 exactly where it says observed', () => {
    const f = flags(
      (k) => cases[k]!.sum,
      (k) => cases[k]!.a,
    );
    let twos = 0;
    for (let k = 0; k < N; k++) {
      const want = full(k, cases[k]!.sum, cases[k]!.a);
      expect([k, f[k], want]).toEqual([k, cases[k]!.nan ? 2 : 0, cases[k]!.nan ? 'observed' : 'pass']);
      if (f[k] === 2) twos++;
    }
    expect(twos).toBe(cases.filter((x) => x.nan).length);
  });

  it('wrong bits: a number where the model allows only a NaN, a NaN where it allows one number, one bit off, a wrong returned value: flag 1, and the full judge says mismatch', () => {
    const wrong = (k: number) => {
      const x = cases[k]!;
      if (x.nan) return 0x3c00; // a number where any NaN is allowed
      if (k % 3 === 0) return 0x7e00; // a NaN where the model has one value
      return x.sum ^ 1; // one bit off
    };
    const f = flags(wrong, (k) => cases[k]!.a);
    for (let k = 0; k < N; k += 7) expect([k, f[k], full(k, wrong(k), cases[k]!.a)]).toEqual([k, 1, 'mismatch']);
    const g = flags(
      (k) => cases[k]!.sum,
      (k) => cases[k]!.a ^ 0x8000,
    );
    for (let k = 0; k < N; k += 11) expect([k, g[k], full(k, cases[k]!.sum, cases[k]!.a ^ 0x8000)]).toEqual([k, 1, 'mismatch']);
  });
});
