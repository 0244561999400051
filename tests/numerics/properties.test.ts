/**
 * Properties of the reference numerics (fast-check, fixed seeds, the seed is printed on failure):
 * commutativity where it holds, identities, flushing invariants, integer semantics, and that every
 * element of an order set is reachable by the concrete order it names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BF16, E4M3, E5M2, F16, F32, F64, type FloatFormat, INT_FORMATS, classify, maxFiniteBits } from '../../harness/numerics/formats.js';
import { addOnce, intOp, minmaxAllowed } from '../../harness/numerics/ops.js';
import { NumberSlots, convert, evaluateWitness, reductionSet } from '../../harness/numerics/reduce.js';

const flushTo = (f: FloatFormat, b: bigint, ftz: boolean) => (ftz && classify(f, b) === 'subnormal' ? b & (1n << BigInt(f.bits - 1)) : b);

const SMALL: FloatFormat[] = [F16, BF16, E4M3, E5M2, F32];
const bitsOf = (f: FloatFormat) => (f.bits === 64 ? fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) : fc.integer({ min: 0, max: 2 ** f.bits - 1 }).map(BigInt));
const notNaN = (f: FloatFormat, b: bigint) => classify(f, b) !== 'nan';

describe.each(SMALL)('$name add', (f) => {
  it('is commutative bit for bit (NaN results aside)', () => {
    fc.assert(
      fc.property(bitsOf(f), bitsOf(f), fc.boolean(), (a, b, ftz) => {
        const x = addOnce(f, a, b, ftz);
        const y = addOnce(f, b, a, ftz);
        return (x.nan && y.nan) || x.bits === y.bits;
      }),
      { numRuns: 20_000, seed: 1 },
    );
  });
  it('x + (-0) = x for every non-NaN x without flushing; x + (+0) = x unless x is -0', () => {
    const negZero = 1n << BigInt(f.bits - 1);
    fc.assert(
      fc.property(bitsOf(f), (a) => {
        if (!notNaN(f, a)) return true;
        const r1 = addOnce(f, a, negZero, false).bits;
        const r2 = addOnce(f, a, 0n, false).bits;
        return r1 === a && r2 === (a === negZero ? 0n : a);
      }),
      { numRuns: 20_000, seed: 2 },
    );
  });
  it('with flushing, no result is subnormal and subnormal inputs act as zeros of their sign', () => {
    fc.assert(
      fc.property(bitsOf(f), bitsOf(f), (a, b) => {
        const r = addOnce(f, a, b, true);
        if (classify(f, r.bits) === 'subnormal') return false;
        if (classify(f, a) === 'subnormal') {
          const z = a & (1n << BigInt(f.bits - 1));
          const s = addOnce(f, z, b, true);
          return (s.nan && r.nan) || s.bits === r.bits;
        }
        return true;
      }),
      { numRuns: 20_000, seed: 3 },
    );
  });
});

describe('integer semantics (atom 9.7.13.5)', () => {
  const u32 = INT_FORMATS.u32;
  const s32 = INT_FORMATS.s32;
  const w = fc.bigInt({ min: 0n, max: 0xffffffffn });
  it('inc and dec return a result in [0..b]', () => {
    fc.assert(
      fc.property(w, w, (r, s) => {
        const i = intOp('inc', u32, r, s);
        const d = intOp('dec', u32, r, s);
        return i >= 0n && i <= s && d >= 0n && d <= (r === 0n || r > s ? s : r);
      }),
      { numRuns: 20_000, seed: 4 },
    );
  });
  it('inc wraps to 0 at the bound, dec takes the bound at 0 and above it', () => {
    expect(intOp('inc', u32, 5n, 5n)).toBe(0n);
    expect(intOp('inc', u32, 4n, 5n)).toBe(5n);
    expect(intOp('inc', u32, 0xffffffffn, 0xffffffffn)).toBe(0n);
    expect(intOp('dec', u32, 0n, 7n)).toBe(7n);
    expect(intOp('dec', u32, 8n, 7n)).toBe(7n);
    expect(intOp('dec', u32, 7n, 7n)).toBe(6n);
  });
  it('add wraps around; min/max are signed for .s32 and unsigned for .u32', () => {
    expect(intOp('add', u32, 0xffffffffn, 2n)).toBe(1n);
    expect(intOp('add', INT_FORMATS.u64, 0xffffffffffffffffn, 1n)).toBe(0n);
    expect(intOp('min', s32, 0xffffffffn, 1n)).toBe(0xffffffffn);
    expect(intOp('min', u32, 0xffffffffn, 1n)).toBe(1n);
    expect(intOp('max', INT_FORMATS.s64, 0x8000000000000000n, 0x7fffffffffffffffn)).toBe(0x7fffffffffffffffn);
  });
  it('cas swaps only on equality; exch always', () => {
    expect(intOp('cas', INT_FORMATS.b128, 3n, 3n, 9n)).toBe(9n);
    expect(intOp('cas', INT_FORMATS.b16, 3n, 4n, 9n)).toBe(3n);
    expect(intOp('exch', INT_FORMATS.b64, 3n, 4n)).toBe(4n);
  });
  it('add is commutative and associative on u64 (so integer reductions have one result)', () => {
    const u64 = INT_FORMATS.u64;
    const x = fc.bigInt({ min: 0n, max: 0xffffffffffffffffn });
    fc.assert(
      fc.property(x, x, x, (a, b, c) => intOp('add', u64, intOp('add', u64, a, b), c) === intOp('add', u64, a, intOp('add', u64, b, c))),
      { numRuns: 5000, seed: 5 },
    );
  });
});

describe('order sets', () => {
  const cases: [FloatFormat, FloatFormat][] = [
    [F16, F16],
    [F16, F32],
    [BF16, BF16],
    [BF16, F32],
    [E4M3, F16],
    [E5M2, E5M2],
  ];
  it.each(cases.map(([t, a]) => [t.name, a.name, t, a] as const))(
    '%s accumulated in %s: every result is reached by its witness, and the tree counts add up (more with fp8 saturation branches)',
    (_t, _a, type, acc) => {
      fc.assert(
        fc.property(
          fc.array(bitsOf(type), { minLength: 2, maxLength: 5 }),
          fc.boolean(),
          fc.constantFrom('add' as const, 'min' as const, 'max' as const),
          (vals, ftz, op) => {
            const rs = reductionSet(op, type, acc, vals, ftz);
            let dfact = 1;
            for (let k = 2 * vals.length - 3; k > 1; k -= 2) dfact *= k;
            if (rs.overflow && type.bits === 8 ? rs.totalTrees < dfact : rs.totalTrees !== dfact) return false;
            return rs.results.every((r) => {
              const v = evaluateWitness(op, type, acc, vals, r.witness, ftz);
              return v === r.bits || (classify(type, v) === 'nan' && classify(type, r.bits) === 'nan');
            });
          },
        ),
        { numRuns: 300, seed: 6 },
      );
    },
  );
  it.each(([...cases, [E4M3, E4M3], [F32, F32], [F64, F64]] as [FloatFormat, FloatFormat][]).map(([t, a]) => [t.name, a.name, t, a] as const))(
    '%s accumulated in %s: the set is exactly what every ordered bracketing of every permutation gives (brute force over addOnce/minmaxAllowed)',
    (_t, _a, type, acc) => {
      // independent of reductionSet's memo and tables: each ordered tree evaluated step by step, an fp8
      // overflow step taking both branches (kept and saturated), as the model allows
      const conv = (b: bigint) => convert(type, acc, b);
      const flush = (ftz: boolean, b: bigint) => (ftz && classify(acc, b) === 'subnormal' ? b & (1n << BigInt(acc.bits - 1)) : b);
      const nanBits = BigInt(acc.canonicalNaN);
      const all = (op: 'add' | 'min' | 'max', xs: readonly bigint[], ftz: boolean): bigint[] => {
        if (xs.length === 1) return [xs[0]!];
        const out: bigint[] = [];
        for (let k = 1; k < xs.length; k++) {
          for (const x of all(op, xs.slice(0, k), ftz)) {
            for (const y of all(op, xs.slice(k), ftz)) {
              if (op === 'add') {
                const o = addOnce(acc, x, y, ftz);
                if (o.overflow && acc.bits === 8) out.push((o.bits & (1n << BigInt(acc.bits - 1))) | maxFiniteBits(acc));
                out.push(o.nan ? nanBits : o.bits);
              } else {
                const o = minmaxAllowed(acc, op, x, y);
                out.push(o.anyNaN ? nanBits : flush(ftz, o.bits[0]!));
              }
            }
          }
        }
        return out;
      };
      const perms = <T>(xs: readonly T[]): T[][] =>
        xs.length <= 1 ? [[...xs]] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
      fc.assert(
        fc.property(
          fc.array(bitsOf(type), { minLength: 1, maxLength: 4 }),
          fc.boolean(),
          fc.constantFrom('add' as const, 'min' as const, 'max' as const),
          (vals, ftz, op) => {
            const want = new Set<bigint>();
            for (const p of perms(vals.map((v) => flush(ftz, conv(v))))) {
              for (const x of all(op, p, ftz)) want.add(classify(acc, x) === 'nan' ? BigInt(type.canonicalNaN) : flushTo(type, convert(acc, type, x), ftz));
            }
            // asked without flushing first: a set without subnormals is handed out again for flushing (the memo's shortcut)
            reductionSet(op, type, acc, vals, false);
            const got = new Set(reductionSet(op, type, acc, vals, ftz).results.map((r) => r.bits));
            return got.size === want.size && [...got].every((b) => want.has(b));
          },
        ),
        { numRuns: 150, seed: 11 },
      );
    },
  );
  it('f16 sums can depend on the order, and acc::f32 removes that dependence here', () => {
    // 2048 + 1 + 1 in f16: (2048+1)+1 rounds twice to 2048, 2048+(1+1) = 2050.
    const vals = [0x6800n, 0x3c00n, 0x3c00n];
    const own = reductionSet('add', F16, F16, vals, false);
    expect(new Set(own.results.map((r) => r.bits))).toEqual(new Set([0x6800n, 0x6801n]));
    const wide = reductionSet('add', F16, F32, vals, false);
    expect(wide.results.map((r) => r.bits)).toEqual([0x6801n]);
    expect(own.totalTrees).toBe(3);
  });
  it('eight replicas: (2*8-3)!! = 135135 trees, computed over subsets', () => {
    const vals = [0x3c00n, 0x1000n, 0x1000n, 0x1000n, 0x1000n, 0x1000n, 0x1000n, 0x1000n]; // 1 and seven half-ulps of 1
    const rs = reductionSet('add', F16, F16, vals, false);
    expect(rs.totalTrees).toBe(135135);
    expect(rs.results.length).toBeGreaterThan(1);
  });
});

describe("reductionSet's slot table (where each value sits in the subset being built)", () => {
  it.each([8, 16, 32])('%i-bit patterns: found where set, -1 elsewhere and after a clear, through the table growing, as a Map says', (bits) => {
    const slots = new NumberSlots(bits);
    let seed = bits;
    const rnd = () => (seed = (seed * 48271) % 2147483647);
    // 32-bit keys half of them with their low 13 bits clear, as f16 values widened to f32 are (they hash alike in the low bits)
    const key = () => (bits === 32 ? (rnd() * 2 + (rnd() & 1)) & (rnd() & 1 ? ~0 : ~0x1fff) : rnd() % 2 ** bits) >>> 0;
    for (let round = 0; round < 4; round++) {
      const model = new Map<number, number>();
      // past the 64 entries a 32-bit table starts with, so that it grows (every entry moved)
      for (let i = 0; i < 300; i++) {
        const k = key();
        if (!model.has(k)) model.set(k, i);
        if (slots.get(k) < 0) slots.set(k, i);
      }
      for (const [k, i] of model) expect(slots.get(k)).toBe(i);
      for (let i = 0; i < 300; i++) {
        const k = key();
        expect(slots.get(k)).toBe(model.get(k) ?? -1);
      }
      slots.clear();
      for (const k of model.keys()) expect(slots.get(k)).toBe(-1);
    }
  });
});
