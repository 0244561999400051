/**
 * The litmus language's final condition and literals, read: `parseCond` turns the text after
 * `exists`/`forall`/`~exists` into a Cond (registers `P0:r0`, locations `x` or an array element
 * `d+4`, literals, comparisons, `/\`, `\/`, `~`), each problem at its line and column; the literal
 * readers give a value's bits by its type (shared with the init block's reader, extended.ts).
 */
import { ELEMENT_FORMATS } from '../numerics/formats.js';
import { floatBits } from '../numerics/encode.js';
import { INT_LIT, TYPES } from './litmus-instructions.js';
import type { Cond, Location, Term } from './events.js';

const FLOAT_LIT = /^-?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][-+]?\d+|inf|nan)$/;

/** A literal as bits of `type` (undefined type: an untyped integer, Dat3M's values). Throws a message. */
export function literalBits(text: string, type: string | undefined): bigint {
  const fmt = type ? ELEMENT_FORMATS[type] : undefined;
  if (type && !fmt) throw new Error(`unknown type .${type}; the types are ${TYPES.map((t) => `.${t}`).join(' ')}`);
  if (INT_LIT.test(text)) {
    const neg = text.startsWith('-');
    const v = BigInt(neg ? text.slice(1) : text);
    if (!fmt) return neg ? -v : v;
    if (fmt.lane.kind === 'float' && fmt.lanes === 1 && !text.includes('x')) return floatBits(fmt.lane, Number(text));
    const mask = (1n << BigInt(fmt.bits)) - 1n;
    return (neg ? -v : v) & mask;
  }
  if (FLOAT_LIT.test(text)) {
    if (!fmt || fmt.lane.kind !== 'float' || fmt.lanes !== 1)
      throw new Error(`'${text}' is a floating-point literal; it needs a scalar float type (${type ? `this is .${type}` : 'write it as 1.5:f32'})`);
    const x = text.replace(/^-/, '') === 'inf' ? (text.startsWith('-') ? -Infinity : Infinity) : text.endsWith('nan') ? NaN : Number(text);
    return floatBits(fmt.lane, x);
  }
  throw new Error(`'${text}' is not a value: write an integer (42, -1, 0x7f) or a float with its type (1.5:f32)`);
}

/** `v` or `v:type`. */
export function typedLiteral(text: string): bigint {
  const m = /^(.*):([a-z0-9]+)$/.exec(text.trim());
  return m ? literalBits(m[1]!.trim(), m[2]) : literalBits(text.trim(), undefined);
}

/** Dat3M's final condition: `(P0:r0 == 1 /\ x != 2) \/ ~(...)`, `true`. */
export function parseCond(
  text: string,
  line0: number,
  col0: number,
  lines: readonly string[],
  nThreads: number,
  locations: Readonly<Record<string, Location>>,
  multimem: ReadonlyMap<string, string[]>,
  problem: (line: number, col: number, message: string) => never,
): Cond {
  // tokens with positions
  const toks: { t: string; line: number; col: number }[] = [];
  {
    let line = line0;
    let col = col0;
    const re = /\s+|\/\\|\\\/|==|!=|<=|>=|=|<|>|~|\(|\)|P?\d+:\s*%?\w+|[^\s()~=!<>\/\\]+/y;
    let i = 0;
    const s = text;
    while (i < s.length) {
      re.lastIndex = i;
      const m = re.exec(s);
      if (!m) problem(line + 1, col + 1, `unexpected '${s[i]}' in the final condition`);
      const tok = m![0];
      if (!/^\s+$/.test(tok)) toks.push({ t: tok, line: line + 1, col: col + 1 });
      for (const ch of tok) {
        if (ch === '\n') {
          line++;
          col = 0;
        } else col++;
      }
      i += tok.length;
    }
  }
  let k = 0;
  const end = { t: '<end>', line: lines.length, col: 1 };
  const peek = () => toks[k] ?? end;
  const next = () => toks[k++] ?? end;
  const term = (): Term => {
    const tk = next();
    let m: RegExpExecArray | null;
    if ((m = /^P?(\d+):\s*(%?\w+)$/.exec(tk.t))) {
      const th = Number(m[1]);
      if (th >= nThreads) problem(tk.line, tk.col, `P${th} is not a thread of this test (it has P0..P${nThreads - 1})`);
      return { k: 'reg', thread: th, reg: m[2]!.replace(/^%/, '') };
    }
    if (/^\w+(\+\d+)?$/.test(tk.t) && !/^-?\d/.test(tk.t) && !/^(inf|nan)$/.test(tk.t)) {
      if (multimem.has(tk.t) && !locations[tk.t])
        problem(tk.line, tk.col, `'${tk.t}' is a multimem address; the condition reads its replicas (${multimem.get(tk.t)!.join(', ')})`);
      if (!locations[tk.t])
        problem(tk.line, tk.col, `'${tk.t}' is neither a declared location nor a register 'P0:r0'; declare it in the init block or write the thread`);
      return { k: 'mem', loc: tk.t };
    }
    try {
      return { k: 'const', v: typedLiteral(tk.t) };
    } catch (e) {
      return problem(tk.line, tk.col, (e as Error).message);
    }
  };
  const atom = (): Cond => {
    const tk = peek();
    if (tk.t === '~' || tk.t === 'not') {
      next();
      return { k: 'not', a: atom() };
    }
    if (tk.t === '(') {
      next();
      const c = or();
      const cl = next();
      if (cl.t !== ')') problem(cl.line, cl.col, `expected ')' in the final condition, found '${cl.t}'`);
      return c;
    }
    if (tk.t === 'true') {
      next();
      return { k: 'true' };
    }
    const a = term();
    const op = next();
    if (op.t === '=') op.t = '=='; // herd's `0:r0 = 1`
    if (!['==', '!=', '<', '>', '<=', '>='].includes(op.t))
      problem(op.line, op.col, `expected a comparison (==, !=, <, >, <=, >=) in the final condition, found '${op.t}'`);
    const b = term();
    return { k: 'cmp', op: op.t as '==', a, b };
  };
  // a left-associative chain of one operator over the next tighter level
  const chain = (tok: string, k: 'and' | 'or', sub: () => Cond) => (): Cond => {
    let c = sub();
    while (peek().t === tok) {
      next();
      c = { k, a: c, b: sub() };
    }
    return c;
  };
  const and = chain('/\\', 'and', atom);
  const or = chain('\\/', 'or', and);
  const c = or();
  const rest = peek();
  if (rest !== end) problem(rest.line, rest.col, `unexpected '${rest.t}' after the final condition (join conditions with /\\ or \\/)`);
  return c;
}
