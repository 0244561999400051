/**
 * `npm run verify:exhaustive [-- f16|bf16 ...] [-- add|min|max ...]`: every one of the 2^32 operand
 * pairs of f16 and bf16 for add, min and max, the reference model against a second implementation
 * (tests/numerics/oracles.ts: for f16 add the @petamoriken/float16 library, for bf16 add Math.fround
 * with integer rounding, for min/max the bit-order oracle). Runs one process per core over ranges of
 * the first operand; prints mismatches (the first few in full) and the time it took.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { BF16, F16, type FloatFormat } from '../harness/numerics/formats.js';
import { fastAdder, fastMinMax } from '../harness/numerics/ops.js';
import { decodeTable } from '../harness/numerics/encode.js';
import { addBf16ViaF32Fast, addF16LibraryValue, minmaxOrderFast } from '../tests/numerics/oracles.js';

const FORMATS: Record<string, FloatFormat> = { f16: F16, bf16: BF16 };
type Op = 'add' | 'min' | 'max';

function checkRange(f: FloatFormat, op: Op, from: number, to: number): { checked: number; mismatches: number; first: string[] } {
  let mismatches = 0;
  const first: string[] = [];
  const expMask = ((1 << f.expBits) - 1) << f.fracBits;
  const fracMask = (1 << f.fracBits) - 1;
  const isNaN16 = (x: number) => (x & expMask) === expMask && (x & fracMask) !== 0;
  const note = (s: string) => {
    if (mismatches++ < 10) first.push(s);
  };
  if (op === 'add' && f.name === 'f16') {
    // value comparison: the library rounds (f16round); the model's bits are decoded by its own table
    const model = fastAdder(f, false);
    const dec = decodeTable(f);
    for (let a = from; a < to; a++) {
      for (let b = 0; b < 65536; b++) {
        const got = dec[model(a, b)]!;
        const want = addF16LibraryValue(a, b);
        if (!(Object.is(got, want) || (got !== got && want !== want))) note(`${a.toString(16)}+${b.toString(16)}: model ${got}, library ${want}`);
      }
    }
  } else if (op === 'add') {
    const model = fastAdder(f, false);
    for (let a = from; a < to; a++) {
      for (let b = 0; b < 65536; b++) {
        const got = model(a, b);
        const want = addBf16ViaF32Fast(a, b);
        if (want === -1 ? !isNaN16(got) : got !== want)
          note(`${a.toString(16)}+${b.toString(16)}: model ${got.toString(16)}, oracle ${want === -1 ? 'NaN' : want.toString(16)}`);
      }
    }
  } else {
    const model = fastMinMax(f, op);
    for (let a = from; a < to; a++) {
      for (let b = 0; b < 65536; b++) {
        const got = model(a, b);
        const want = minmaxOrderFast(expMask, fracMask, op, a, b);
        if (got !== want) note(`${op}(${a.toString(16)}, ${b.toString(16)}): model ${got}, oracle ${want}`);
      }
    }
  }
  return { checked: (to - from) * 65536, mismatches, first };
}

if (process.argv[2] === '--worker') {
  const [, , , fmt, op, from, to] = process.argv;
  process.send!(checkRange(FORMATS[fmt!]!, op as Op, Number(from), Number(to)));
  process.disconnect();
} else {
  const args = process.argv.slice(2);
  const fmts = args.filter((a) => a in FORMATS);
  const ops = args.filter((a): a is Op => ['add', 'min', 'max'].includes(a));
  const workers = availableParallelism();
  console.log(`verify:exhaustive: all 2^32 pairs, ${workers} processes`);
  let total = 0;
  const started = performance.now();
  for (const fmt of fmts.length ? fmts : ['f16', 'bf16']) {
    for (const op of ops.length ? ops : (['add', 'min', 'max'] as Op[])) {
      const t0 = performance.now();
      const chunk = 65536 / 64;
      const ranges = Array.from({ length: 64 }, (_, i) => [i * chunk, (i + 1) * chunk] as const);
      let checked = 0;
      let mismatches = 0;
      const first: string[] = [];
      const run = (r: readonly [number, number]) =>
        new Promise<void>((resolve, reject) => {
          const c = fork(process.argv[1]!, ['--worker', fmt, op, String(r[0]), String(r[1])]);
          c.on('message', (m: ReturnType<typeof checkRange>) => {
            checked += m.checked;
            mismatches += m.mismatches;
            first.push(...m.first);
          });
          c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker for ${fmt} ${op} ${r[0]}..${r[1]} exited with ${code}`))));
        });
      const queue = [...ranges];
      await Promise.all(
        Array.from({ length: workers }, async () => {
          while (queue.length) await run(queue.shift()!);
        }),
      );
      total += mismatches;
      const s = (performance.now() - t0) / 1000;
      console.log(`${fmt} ${op}: ${checked} pairs, mismatches: ${mismatches}, ${s.toFixed(1)} s (${(checked / s / 1e6).toFixed(1)} M pairs/s)`);
      for (const l of first.slice(0, 10)) console.log(`  ${l}`);
    }
  }
  console.log(`total mismatches: ${total}, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = total ? 1 : 0;
}
