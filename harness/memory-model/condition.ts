/**
 * A litmus test's final condition evaluated on one outcome: the one evaluator of the model's judge
 * (judge.ts: which allowed outcomes satisfy it), the reference litmus command (cli/litmus.ts: which
 * outcomes an axiom forbids) and the GPU litmus runner (litmus-gpu/: which histogram rows are the
 * weak outcome, mutants).
 */
import type { Cond, Term } from './events.js';

const u32 = (v: bigint) => BigInt.asUintN(32, v);

/**
 * The final condition on one outcome (values by key as decimal or hex strings, `P0:r0` or `x`);
 * undefined when a value is not a number (`*`: a value the outcome leaves open). Values and constants compare at full width, as the judge's condition does (a histogram
 * value is already unsigned at its key's width: a 64-bit `s != 0x100000001` must see s = 1 as
 * different); a negative one is read as a 32-bit word, the width of every signed value the corpus
 * and the peer tests write.
 *
 * `openFalse`: a comparison with a value that is not a number ('?': a register its thread never
 * wrote, as it hangs at a barrier) is false, and the rest follows from that (the judge's reading of an
 * allowed outcome), instead of leaving the whole condition undefined.
 */
export function condHolds(c: Cond, values: Readonly<Record<string, string>>, openFalse = false): boolean | undefined {
  const val = (t: Term): bigint | undefined => {
    if (t.k === 'const') return t.v < 0n ? u32(t.v) : t.v;
    const s = values[t.k === 'reg' ? `P${t.thread}:${t.reg}` : t.loc];
    if (s === undefined || !/^-?(0x[0-9a-f]+|\d+)$/i.test(s)) return undefined; // '*': a value the outcome leaves open
    const v = BigInt(s);
    return v < 0n ? u32(v) : v;
  };
  switch (c.k) {
    case 'true':
      return true;
    case 'not': {
      const a = condHolds(c.a, values, openFalse);
      return a === undefined ? undefined : !a;
    }
    case 'and':
    case 'or': {
      const a = condHolds(c.a, values, openFalse);
      const b = condHolds(c.b, values, openFalse);
      if (a === undefined || b === undefined) return undefined;
      return c.k === 'and' ? a && b : a || b;
    }
    case 'cmp': {
      const a = val(c.a);
      const b = val(c.b);
      if (a === undefined || b === undefined) return openFalse ? false : undefined;
      switch (c.op) {
        case '==':
          return a === b;
        case '!=':
          return a !== b;
        case '<':
          return a < b;
        case '>':
          return a > b;
        case '<=':
          return a <= b;
        case '>=':
          return a >= b;
      }
    }
  }
}
