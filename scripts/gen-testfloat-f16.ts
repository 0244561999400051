/**
 * A TestFloat-style vector file of f16 adds, as JSON lines: `atom.global.add.noftz.f16` cases whose
 * operands are drawn the way Berkeley TestFloat draws them (a sign, an exponent biased towards the
 * boundaries 0, 1, the middle and 30/31, a significand from boundary patterns or random bits), each
 * with its `expect:` (memory and the returned old value) computed by the reference model's own f16
 * add (`fastLaneOp`, the lane operation the model's fast path and the sweeps use; where the model
 * allows any NaN, the canonical NaN 0x7fff). About 12 % of the results are NaN. A test
 * (tests/case-readers/gen-testfloat.test.ts) holds a sample equal to the full model's `reference()`.
 *
 * Usage: npx tsx scripts/gen-testfloat-f16.ts OUT.jsonl [--cases N] [--seed S]
 * (default 1,300,000 cases, about 220 MB; seconds: about 2 on one core)
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { variantFromId } from '../harness/case-readers/sources.js';
import { fastLaneOp } from '../harness/reference/fast.js';
import { registerAllFamilies } from '../harness/families/index.js';
import { mulberry32 } from '../harness/util/rng.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

export const TESTFLOAT_INSTRUCTION = 'atom.global.add.noftz.f16';

/** mulberry32 (the file is the same for the same seed). */
const rng = mulberry32;

/** TestFloat's boundary exponents of binary16 below 31 (0: zero and subnormals); 31 (inf, NaN) is drawn apart. */
const EXPONENTS = [0, 0, 1, 2, 14, 15, 16, 29, 30];
/** Boundary significands (10 bits): zero, one, all ones, the top bit, the top bits, alternating. */
const SIGNIFICANDS = [0x000, 0x001, 0x002, 0x3ff, 0x3fe, 0x200, 0x1ff, 0x300, 0x3c0, 0x155, 0x2aa, 0x100];

/** One operand's 16 bits. */
function operand(next: () => number): number {
  const r = next();
  const sign = (r & 1) << 15;
  // 31 (inf and NaN) one time in 16 (about 12 % NaN results), else half from the boundaries, half uniform over 1..30
  const exp = r >>> 28 === 0 ? 31 : r & 2 ? EXPONENTS[((r >>> 2) & 0xffff) % EXPONENTS.length]! : 1 + (((r >>> 2) & 0xffff) % 30);
  const r2 = next();
  const sig = r2 & 1 ? SIGNIFICANDS[(r2 >>> 1) % SIGNIFICANDS.length]! : (r2 >>> 1) & 0x3ff;
  return sign | (exp << 10) | sig;
}

export interface TestFloatCase {
  readonly a: number;
  readonly b: number;
  /** a + b as the model gives it (0x7fff where it allows any NaN). */
  readonly sum: number;
  readonly nan: boolean;
}

/** The i-th..(i+n-1)-th cases of the seed's sequence (each case draws 4 numbers). */
export function* testFloatCases(n: number, seed = 1): Generator<TestFloatCase> {
  const v = variantFromId(TESTFLOAT_INSTRUCTION);
  if (!v) throw new Error(`${TESTFLOAT_INSTRUCTION} is not a variant of the catalog`);
  const add = fastLaneOp(v, 'global');
  if (!add) throw new Error(`the reference model has no fast lane operation for ${TESTFLOAT_INSTRUCTION}`);
  const next = rng(seed);
  for (let i = 0; i < n; i++) {
    const a = operand(next);
    const b = operand(next);
    const x = add(a, b);
    yield { a, b, sum: x < 0 ? 0x7fff : x, nan: x < 0 };
  }
}

const h4 = (x: number) => `0x${x.toString(16).padStart(4, '0')}`;

/** Writes the file; returns the number of cases and of NaN results. */
export function writeTestFloatFile(path: string, n: number, seed = 1): { cases: number; nan: number; bytes: number } {
  const fd = openSync(path, 'w');
  let chunk = '';
  let nan = 0;
  let bytes = 0;
  let i = 0;
  const flush = () => {
    bytes += writeSync(fd, chunk);
    chunk = '';
  };
  for (const c of testFloatCases(n, seed)) {
    if (c.nan) nan++;
    chunk += `{"name":"f16_add-${i++}","instruction":"${TESTFLOAT_INSTRUCTION}","memory":["${h4(c.a)}"],"operands":{"b":["${h4(c.b)}"]},"expect":{"memory":["${h4(c.sum)}"],"returned":["${h4(c.a)}"]}}\n`;
    if (chunk.length > 1 << 20) flush();
  }
  flush();
  closeSync(fd);
  return { cases: n, nan, bytes };
}

if (process.argv[1] && /gen-testfloat-f16\.(m?js|ts)$/.test(process.argv[1])) {
  const args = process.argv.slice(2);
  const out = args.find((a, k) => !a.startsWith('--') && !['--cases', '--seed'].includes(args[k - 1] ?? ''));
  const flag = (name: string, dflt: number) => {
    const k = args.indexOf(name);
    const x = k < 0 ? dflt : Number(args[k + 1]);
    if (!Number.isInteger(x) || x < 1) {
      console.error(`${name} takes a positive whole number, got '${args[k + 1]}'`);
      process.exit(2);
    }
    return x;
  };
  if (!out) {
    console.error('usage: gen-testfloat-f16 OUT.jsonl [--cases N] [--seed S]');
    process.exit(2);
  }
  const t0 = performance.now();
  const r = writeTestFloatFile(out, flag('--cases', 1_300_000), flag('--seed', 1));
  console.log(
    `${out}: ${r.cases} cases, ${r.nan} NaN results (${((100 * r.nan) / r.cases).toFixed(1)} %), ${(r.bytes / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(2)} s`,
  );
}
