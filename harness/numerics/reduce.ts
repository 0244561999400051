/**
 * Reductions over N values whose combining order the spec leaves open (multimem.ld_reduce over
 * replicas; later, unordered concurrent float reductions). Returns the set of results over every
 * association tree and order, each with one concrete tree that gives it and how many trees do.
 *
 * Addition and min/max of two values are commutative bit for bit, so a tree is a set partition
 * applied recursively; the sets are memoised per subset of the inputs (3^N splits for N inputs).
 */
import { decodeTable, encoderFor } from './encode.js';
import { decodeExact, addExact, roundExact, type ExactValue } from './exact.js';
import { type FloatFormat, classify, maxFiniteBits } from './formats.js';
import { addOnce, minmaxAllowed } from './ops.js';

export interface OrderedResult {
  /** Result bits in the element type. */
  readonly bits: bigint;
  /** One concrete tree that produces it, e.g. "((r0+r2)+(r1+r3))". */
  readonly witness: string;
  /** How many of the (2N-3)!! trees produce it (an fp8 overflow also counts once as saturated). */
  readonly trees: number;
}

export interface ReductionSet {
  readonly results: readonly OrderedResult[];
  /** Some tree gives NaN (any payload allowed). */
  readonly nan: boolean;
  readonly overflow: boolean;
  readonly totalTrees: number;
}

interface Cell {
  witness: string;
  trees: number;
}

function toNumber(f: FloatFormat, b: bigint): number {
  if (f.bits === 32) return new Float32Array(new Uint32Array([Number(b)]).buffer)[0]!;
  if (f.bits === 64) return new Float64Array(new BigUint64Array([b]).buffer)[0]!;
  return decodeTable(f)[Number(b)]!;
}

function flushType(f: FloatFormat, b: bigint, ftz: boolean): bigint {
  return ftz && classify(f, b) === 'subnormal' ? b & (1n << BigInt(f.bits - 1)) : b;
}

/** Converts bits of `from` to `to` with one rounding to nearest even (exact when `to` is wider). */
export function convert(from: FloatFormat, to: FloatFormat, b: bigint): bigint {
  if (from.name === to.name) return b;
  if (classify(from, b) === 'nan') return BigInt(to.canonicalNaN);
  // every format here is exact in a double: widening to f64 is the double's own bits
  if (to.bits === 64) return new BigUint64Array(new Float64Array([toNumber(from, b)]).buffer)[0]!;
  return BigInt(encoderFor(to)(toNumber(from, b)));
}

/**
 * Every result of combining `values` (bits of `type`) with `op`, accumulating in `acc` (rounding
 * every step to `acc`) and rounding the final value to `type`, flushing subnormals when `ftz`.
 */
export function reductionSet(op: 'add' | 'min' | 'max', type: FloatFormat, acc: FloatFormat, values: readonly bigint[], ftz: boolean): ReductionSet {
  const n = values.length;
  if (n < 1 || n > 12) throw new Error(`reductionSet takes 1..12 values, got ${n}`);
  const sym = op === 'add' ? '+' : op;
  const memo: Map<bigint, Cell>[] = new Array(1 << n);
  let nan = false;
  let overflow = false;
  const flush = (b: bigint) => (ftz && classify(acc, b) === 'subnormal' ? b & (1n << BigInt(acc.bits - 1)) : b);
  for (let i = 0; i < n; i++) memo[1 << i] = new Map([[flush(convert(type, acc, values[i]!)), { witness: `r${i}`, trees: 1 }]]);
  for (let m = 1; m < 1 << n; m++) {
    if ((m & (m - 1)) === 0) continue;
    const cells = new Map<bigint, Cell>();
    const low = m & -m;
    for (let a = (m - 1) & m; a > 0; a = (a - 1) & m) {
      if (!(a & low)) continue;
      const b = m ^ a;
      for (const [x, cx] of memo[a]!) {
        for (const [y, cy] of memo[b]!) {
          let r: bigint;
          if (op === 'add') {
            const o = addOnce(acc, x, y, ftz);
            nan ||= o.nan;
            overflow ||= o.overflow;
            r = o.nan ? BigInt(acc.canonicalNaN) : o.bits;
            if (o.overflow && acc.bits === 8) {
              // fp8 overflow is not specified: saturation to the largest finite value is allowed too
              const sat = (o.bits & (1n << BigInt(acc.bits - 1))) | maxFiniteBits(acc);
              const sw = `sat((${cx.witness}${sym}${cy.witness}))`;
              const c = cells.get(sat);
              if (c) c.trees += cx.trees * cy.trees;
              else cells.set(sat, { witness: sw, trees: cx.trees * cy.trees });
            }
          } else {
            const o = minmaxAllowed(acc, op, x, y);
            if (o.anyNaN) nan = true;
            r = o.anyNaN ? BigInt(acc.canonicalNaN) : flush(o.bits[0]!);
          }
          const witness = op === 'add' ? `(${cx.witness}${sym}${cy.witness})` : `${sym}(${cx.witness},${cy.witness})`;
          const c = cells.get(r);
          if (c) c.trees += cx.trees * cy.trees;
          else cells.set(r, { witness, trees: cx.trees * cy.trees });
        }
      }
    }
    memo[m] = cells;
  }
  const final = new Map<bigint, Cell>();
  for (const [x, c] of memo[(1 << n) - 1]!) {
    const r = classify(acc, x) === 'nan' ? BigInt(type.canonicalNaN) : flushType(type, convert(acc, type, x), ftz);
    const f = final.get(r);
    if (f) f.trees += c.trees;
    else final.set(r, { ...c });
  }
  let total = 0;
  const results = [...final].map(([bits, c]) => {
    total += c.trees;
    return { bits, witness: c.witness, trees: c.trees };
  });
  return { results, nan, overflow, totalTrees: total };
}

/**
 * Evaluates a witness tree ("((r0+r1)+r2)") concretely, for checking that every element of a set is
 * reachable by the order it names.
 */
export function evaluateWitness(op: 'add' | 'min' | 'max', type: FloatFormat, acc: FloatFormat, values: readonly bigint[], witness: string, ftz: boolean): bigint {
  let pos = 0;
  const flush = (b: bigint) => (ftz && classify(acc, b) === 'subnormal' ? b & (1n << BigInt(acc.bits - 1)) : b);
  const parse = (): bigint => {
    if (witness[pos] === 'r') {
      const m = /^r(\d+)/.exec(witness.slice(pos))!;
      pos += m[0].length;
      return flush(convert(type, acc, values[Number(m[1])]!));
    }
    if (op === 'add') {
      const sat = witness.startsWith('sat(', pos);
      pos += sat ? 5 : 1; // "sat((" or "("
      const x = parse();
      pos++; // +
      const y = parse();
      pos += sat ? 2 : 1; // "))" or ")"
      const o = addOnce(acc, x, y, ftz);
      if (sat) return (o.bits & (1n << BigInt(acc.bits - 1))) | maxFiniteBits(acc);
      return o.nan ? BigInt(acc.canonicalNaN) : o.bits;
    }
    pos += op.length + 1; // min(
    const x = parse();
    pos++; // ,
    const y = parse();
    pos++; // )
    const o = minmaxAllowed(acc, op, x, y);
    return o.anyNaN ? BigInt(acc.canonicalNaN) : flush(o.bits[0]!);
  };
  const r = parse();
  return classify(acc, r) === 'nan' ? BigInt(type.canonicalNaN) : flushType(type, convert(acc, type, r), ftz);
}

/**
 * The sum of `values` (bits of `type`) computed exactly and rounded once to `type`, to nearest even;
 * with `ftz`, subnormal inputs and the result flushed to sign-preserving zero. The order does not
 * matter: there is one result. NaN (an input NaN, or infinities of both signs) gives the canonical
 * NaN with `nan` set. What "accumulated exactly, rounded once" means for multimem.ld_reduce's
 * explanations and the multicast stand-in.
 */
export function exactReduction(type: FloatFormat, values: readonly bigint[], ftz: boolean): { bits: bigint; nan: boolean } {
  let acc: ExactValue | undefined;
  for (const v of values) {
    const x = decodeExact(type, flushType(type, v, ftz));
    acc = acc === undefined ? x : addExact(acc, x);
  }
  if (!acc) throw new Error('exactReduction takes at least one value');
  if (acc.kind === 'nan') return { bits: BigInt(type.canonicalNaN), nan: true };
  return { bits: flushType(type, roundExact(type, acc), ftz), nan: false };
}
