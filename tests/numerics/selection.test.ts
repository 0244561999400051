/**
 * min/max of multimem.ld_reduce's replicas without enumerating their trees (numerics/reduce.ts
 * selectionSet) equals the enumeration of every tree (reductionSetExhaustive): the same results,
 * witnesses, tree counts and NaN/overflow flags, for 3 to 8 values of every float format, with and
 * without flushing, the values drawn so that ties, signed zeros, NaNs (one and several) and
 * subnormals come often.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BF16, E4M3, E5M2, F16, F32, F64, type FloatFormat, maxFiniteBits } from '../../harness/numerics/formats.js';
import { reductionSet, reductionSetExhaustive } from '../../harness/numerics/reduce.js';

const bitsOf = (f: FloatFormat) => (f.bits === 64 ? fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) : fc.integer({ min: 0, max: 2 ** f.bits - 1 }).map(BigInt));

/** Values that make ties and special cases likely: zeros of both signs, NaNs, the smallest subnormals, the extremes, one. */
function specials(f: FloatFormat): bigint[] {
  const sign = 1n << BigInt(f.bits - 1);
  const one = { 8: f.name === 'e4m3' ? 0x38n : 0x3cn, 16: f.name === 'bf16' ? 0x3f80n : 0x3c00n, 32: 0x3f800000n, 64: 0x3ff0000000000000n }[
    f.bits as 8 | 16 | 32 | 64
  ];
  const max = maxFiniteBits(f);
  return [0n, sign, 1n, sign | 1n, BigInt(f.canonicalNaN), BigInt(f.canonicalNaN) | sign, max, sign | max, max + 1n, one, one | sign];
}

const formats: [FloatFormat, FloatFormat][] = [
  [F16, F16],
  [BF16, BF16],
  [E4M3, E4M3],
  [E5M2, E5M2],
  [E4M3, F16],
  [F32, F32],
  [F64, F64],
];

describe('min/max without the enumeration of every tree', () => {
  it.each(formats.map(([t, a]) => [t.name, a.name, t, a] as const))(
    '%s in %s: the same set, witnesses, counts and flags as every tree enumerated',
    (_t, _a, type, acc) => {
      const value = fc.oneof(bitsOf(type), fc.constantFrom(...specials(type)));
      fc.assert(
        fc.property(
          fc.array(value, { minLength: 3, maxLength: type.bits === 64 ? 6 : 8 }),
          fc.boolean(),
          fc.constantFrom('min' as const, 'max' as const),
          (vals, ftz, op) => {
            expect(reductionSet(op, type, acc, vals, ftz)).toEqual(reductionSetExhaustive(op, type, acc, vals, ftz));
          },
        ),
        { numRuns: type.bits === 64 ? 60 : 250, seed: 43 },
      );
    },
  );

  it('holds the cases the drawing may miss: several NaNs, all NaN, signed zeros only, one NaN among numbers', () => {
    const sign = 0x8000n;
    const nan = BigInt(F16.canonicalNaN);
    for (const vals of [
      [nan, nan, nan],
      [nan, 0x3c00n, nan, 0x4000n],
      [0x3c00n, nan, 0x4000n],
      [0n, sign, 0n, sign, 0n],
      [sign, sign, sign, 0n, 0n, 0n, sign, 0n],
      [1n, sign | 1n, 0n, sign],
    ])
      for (const op of ['min', 'max'] as const)
        for (const ftz of [false, true])
          expect(reductionSet(op, F16, F16, vals, ftz), `${op} ${vals} ftz ${ftz}`).toEqual(reductionSetExhaustive(op, F16, F16, vals, ftz));
  });
});
