/**
 * Reader for Dat3M's PTX litmus syntax, unchanged (`../shared/peers/dat3m-ptx/`): `PTX name`,
 * quoted comments, an init block `{ x=0; y @ generic aliases x; P1:r0=0; }`, a header row
 * `P0@cta 0,gpu 0 | ...;`, one instruction row per line, then `exists`, `~exists` or `forall` and a
 * condition (`P0:r1 == 0 /\ x == 1`, `\/`, `~`, parentheses; herd's `0:r0 = 1` too).
 *
 * Instructions lower to the {@link Instr} forms of `events.ts`. Errors are `{file,line,col,message}`
 * naming what to write instead.
 */
import type { Cond, Expr, Instr, LitmusTest, Location, Problem, Proxy, Quantifier, Scope, Sem, Term, ThreadDecl } from './events.js';

const SCOPE_RE = /^(cta|cluster|gpu|sys)$/;
const SEM_RE = /^(weak|relaxed|acquire|release|acq_rel|sc|volatile)$/;

class ParseError extends Error {
  constructor(
    readonly line: number,
    readonly col: number,
    message: string,
  ) {
    super(message);
  }
}

/** Value functions of the atomic ops Dat3M's tests use (integer, 64-bit wrap). */
const RMW_OPS: Record<string, (old: bigint, a: bigint[]) => bigint | undefined> = {
  add: (o, a) => BigInt.asUintN(64, o + (a[0] ?? 0n)),
  sub: (o, a) => BigInt.asUintN(64, o - (a[0] ?? 0n)),
  exch: (_o, a) => a[0] ?? 0n,
  cas: (o, a) => (o === a[0] ? (a[1] ?? 0n) : undefined),
  inc: (o, a) => (o >= (a[0] ?? 0n) ? 0n : o + 1n),
  and: (o, a) => o & (a[0] ?? 0n),
  or: (o, a) => o | (a[0] ?? 0n),
  xor: (o, a) => o ^ (a[0] ?? 0n),
  min: (o, a) => (o < (a[0] ?? 0n) ? o : (a[0] ?? 0n)),
  max: (o, a) => (o > (a[0] ?? 0n) ? o : (a[0] ?? 0n)),
};

/** Reads one Dat3M PTX litmus file. */
export function parseDat3m(text: string, file: string): { test?: LitmusTest; problems: Problem[] } {
  try {
    return { test: parse(text, file), problems: [] };
  } catch (e) {
    if (e instanceof ParseError) return { problems: [{ file, line: e.line, col: e.col, message: e.message }] };
    throw e;
  }
}

function parse(text: string, file: string): LitmusTest {
  const lines = text.split(/\r?\n/);
  let i = 0;
  const skipBlank = () => {
    while (i < lines.length && lines[i]!.trim() === '') i++;
  };
  skipBlank();
  const head = /^\s*PTX\s+(\S+)/.exec(lines[i] ?? '');
  if (!head) throw new ParseError(i + 1, 1, "expected 'PTX <name>' on the first line (Dat3M's PTX litmus header)");
  const name = head[1]!;
  i++;
  const comments: string[] = [];
  // quoted comments, possibly spanning lines
  for (;;) {
    skipBlank();
    const l = lines[i] ?? '';
    if (!l.trimStart().startsWith('"')) break;
    let acc = l.trim();
    // a comment ends on the line where its quotes balance (Dat3M's comments may quote inside)
    while ((acc.match(/"/g) ?? []).length % 2 === 1) {
      i++;
      if (i >= lines.length) throw new ParseError(i, 1, 'unterminated quoted comment: close it with "');
      acc += '\n' + lines[i]!;
      acc = acc.trim();
    }
    comments.push(acc.slice(1, -1));
    i++;
  }
  skipBlank();
  if (!(lines[i] ?? '').trim().startsWith('{')) throw new ParseError(i + 1, 1, "expected the init block '{ x=0; ... }'");
  // init block until the matching '}'
  let initText = '';
  const initStart = i;
  const opened = lines[i]!.indexOf('{');
  let rest = lines[i]!.slice(opened + 1);
  for (;;) {
    const close = rest.indexOf('}');
    if (close >= 0) {
      initText += rest.slice(0, close);
      lines[i] = rest.slice(close + 1);
      break;
    }
    initText += rest + '\n';
    i++;
    if (i >= lines.length) throw new ParseError(initStart + 1, opened + 1, "init block not closed: add '}'");
    rest = lines[i]!;
  }
  if (lines[i]!.trim() === '') i++;
  const locations: Record<string, Location> = {};
  const regInit: Record<number, Record<string, bigint>> = {};
  const aliasProxy: Record<string, Proxy> = {};
  let initLine = initStart + 1;
  for (const rawLine of initText.split('\n')) {
    for (const stmt of rawLine.split(';')) {
      const s = stmt.trim();
      if (!s) continue;
      let m: RegExpExecArray | null;
      if ((m = /^(\w+)\s*@\s*(generic|surface|texture|constant)\s+aliases\s+(\w+)$/.exec(s))) {
        const [, n, proxy, target] = m;
        if (!locations[target!]) locations[target!] = { name: target!, space: 'global', init: 0n };
        locations[n!] = { name: n!, space: 'global', aliasOf: target!, proxy: proxy as Proxy, init: locations[target!]!.init };
        aliasProxy[n!] = proxy as Proxy;
      } else if ((m = /^P?(\d+)\s*:\s*(\w+)\s*=\s*(-?\d+)$/.exec(s))) {
        const t = Number(m[1]);
        (regInit[t] ??= {})[m[2]!] = BigInt(m[3]!);
      } else if ((m = /^(\w+)\s*=\s*(-?\d+)$/.exec(s))) {
        locations[m[1]!] = { name: m[1]!, space: 'global', init: BigInt(m[2]!) };
      } else {
        throw new ParseError(initLine, Math.max(1, rawLine.indexOf(s) + 1), `cannot read '${s}' in the init block: write 'x=0;', 'P0:r0=0;' or 'y @ generic aliases x;'`);
      }
    }
    initLine++;
  }
  skipBlank();
  // header row
  const headerLineNo = i + 1;
  const header = (lines[i] ?? '').replace(/;\s*$/, '');
  const cols = header.split('|');
  const threads: ThreadDecl[] = [];
  let col = 1;
  for (const c of cols) {
    const m = /^\s*P(\d+)\s*@\s*cta\s+(\d+)\s*,\s*(?:cluster\s+(\d+)\s*,\s*)?gpu\s+(\d+)\s*$/.exec(c);
    if (!m) throw new ParseError(headerLineNo, col, `cannot read thread header '${c.trim()}': write 'P0@cta 0,gpu 0'`);
    threads.push({ id: Number(m[1]), cta: Number(m[2]), gpu: Number(m[4]), code: [], ...(m[3] !== undefined ? { cluster: Number(m[3]) } : {}) });
    col += c.length + 1;
  }
  threads.forEach((t, k) => {
    if (t.id !== k) throw new ParseError(headerLineNo, 1, `thread P${t.id} is in column ${k}: number the columns P0, P1, ... in order`);
  });
  i++;
  // instruction rows until the quantifier
  const locName = (n: string, line: number, c: number): string => {
    if (!/^[A-Za-z_]\w*$/.test(n)) throw new ParseError(line, c, `'${n}' is not a location name`);
    if (!locations[n]) locations[n] = { name: n, space: 'global', init: 0n };
    return n;
  };
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    const t = l.trim();
    if (t === '') continue;
    if (/^(~\s*exists|exists|forall)\b/.test(t)) break;
    const row = l.replace(/;\s*$/, '');
    const cells = row.split('|');
    if (cells.length !== threads.length) throw new ParseError(i + 1, 1, `row has ${cells.length} columns, the header ${threads.length}: separate every thread's instruction with '|'`);
    let c0 = 1;
    cells.forEach((cell, k) => {
      const ins = cell.trim();
      if (ins) threads[k]!.code.push(parseInstr(ins, i + 1, c0 + cell.indexOf(ins), locName, aliasProxy));
      c0 += cell.length + 1;
    });
  }
  if (i >= lines.length) throw new ParseError(lines.length, 1, "no final condition: end the test with 'exists (...)', '~exists (...)' or 'forall (...)'");
  const condText = lines.slice(i).join('\n');
  const qm = /^\s*(~\s*exists|exists|forall)/.exec(condText)!;
  const quantifier: Quantifier = qm[1]!.startsWith('~') ? 'not exists' : (qm[1] as Quantifier);
  const cp = new CondParser(condText, qm[0].length, i + 1, locations);
  const cond = cp.parseAll();
  return { name, file, threads, locations, regInit, quantifier, cond, comments };
}

function parseInstr(ins: string, line: number, col: number, locName: (n: string, l: number, c: number) => string, aliasProxy: Record<string, Proxy>): Instr {
  const lab = /^(\w+):$/.exec(ins);
  if (lab) return { kind: 'label', name: lab[1]!, line };
  const sp = ins.search(/\s/);
  const opcode = sp < 0 ? ins : ins.slice(0, sp);
  const ops = sp < 0 ? [] : ins.slice(sp).split(',').map((s) => s.trim());
  const parts = opcode.split('.');
  const base = parts[0]!;
  const err = (msg: string) => new ParseError(line, col, `${ins}: ${msg}`);
  const expr = (s: string | undefined): Expr => {
    if (s === undefined) throw err('missing operand');
    if (/^-?\d+$/.test(s)) return { k: 'const', v: BigInt(s) };
    if (/^\w+$/.test(s)) return { k: 'reg', r: s };
    throw err(`operand '${s}' is neither a register nor an integer`);
  };
  const reg = (s: string | undefined): string => {
    if (!s || !/^\w+$/.test(s)) throw err(`expected a register, found '${s ?? ''}'`);
    return s;
  };
  const semScope = (qs: string[]): { sem: Sem; scope: Scope; volatile?: boolean } => {
    let sem: Sem | undefined;
    let scope: Scope | undefined;
    let vol = false;
    for (const q of qs) {
      if (SEM_RE.test(q)) {
        if (q === 'volatile') {
          vol = true;
          sem = 'relaxed';
          scope = 'sys';
        } else sem = q as Sem;
      } else if (SCOPE_RE.test(q)) scope = q as Scope;
    }
    return { sem: sem ?? 'weak', scope: scope ?? 'sys', ...(vol ? { volatile: true } : {}) };
  };
  const proxyOf = (loc: string, instrProxy: Proxy): Proxy => aliasProxy[loc] && aliasProxy[loc] !== 'generic' ? aliasProxy[loc]! : instrProxy;
  switch (base) {
    case 'ld':
    case 'tld':
    case 'suld':
    case 'cold': {
      const dst = reg(ops[0]);
      const src = ops[1];
      if (base === 'ld' && parts.length === 1 && src !== undefined && /^-?\d+$/.test(src)) return { kind: 'local', dst, value: expr(src), line };
      const { sem, scope, volatile } = semScope(parts.slice(1));
      if (sem === 'release' || sem === 'acq_rel') throw err(`a load cannot be .${sem}: use .acquire or .relaxed`);
      const ip: Proxy = base === 'tld' ? 'texture' : base === 'suld' ? 'surface' : base === 'cold' ? 'constant' : 'generic';
      const loc = locName(src ?? '', line, col);
      return { kind: 'read', dst, loc, sem, scope, proxy: proxyOf(loc, ip), line, ...(volatile ? { volatile } : {}) };
    }
    case 'st':
    case 'sust': {
      const { sem, scope, volatile } = semScope(parts.slice(1));
      if (sem === 'acquire' || sem === 'acq_rel') throw err(`a store cannot be .${sem}: use .release or .relaxed`);
      const loc = locName(ops[0] ?? '', line, col);
      return { kind: 'write', loc, value: expr(ops[1]), sem, scope, proxy: proxyOf(loc, base === 'sust' ? 'surface' : 'generic'), line, ...(volatile ? { volatile } : {}) };
    }
    case 'atom':
    case 'red': {
      const op = parts.slice(1).find((q) => RMW_OPS[q]);
      if (!op) throw err(`no operation: add one of .${Object.keys(RMW_OPS).join(', .')}`);
      const { sem, scope } = semScope(parts.slice(1));
      const isRed = base === 'red';
      const sem2: Sem = sem === 'weak' ? 'relaxed' : sem; // atomics are strong; default .relaxed (9.7.13)
      if (isRed && (sem2 === 'acquire')) throw err('red cannot be .acquire (8.11.1): use atom');
      const o = isRed ? ops : ops.slice(1);
      const loc = locName(o[0] ?? '', line, col);
      return {
        kind: 'rmw',
        ...(isRed ? {} : { dst: reg(ops[0]) }),
        loc,
        args: o.slice(1).map(expr),
        update: RMW_OPS[op]!,
        reduction: isRed,
        op,
        sem: sem2,
        scope,
        proxy: proxyOf(loc, 'generic'),
        line,
      };
    }
    case 'fence':
    case 'membar': {
      if (parts[1] === 'proxy') {
        const k = parts[2];
        if (k !== 'alias' && k !== 'surface' && k !== 'texture' && k !== 'constant' && k !== 'async' && k !== 'tensormap')
          throw err('unknown proxy fence: use fence.proxy.alias, .surface, .texture, .constant or .async');
        return { kind: 'proxyFence', proxy: k, line };
      }
      const q = parts.slice(1);
      const sem = (q.find((x) => /^(sc|acq_rel|acquire|release)$/.test(x)) ?? (base === 'membar' ? 'sc' : 'acq_rel')) as 'sc' | 'acq_rel' | 'acquire' | 'release';
      const scope = (q.find((x) => SCOPE_RE.test(x)) ?? (base === 'membar' ? 'gpu' : undefined)) as Scope | undefined;
      if (!scope) throw err('a fence needs a scope: add .cta, .cluster, .gpu or .sys');
      return { kind: 'fence', sem, scope, line };
    }
    case 'bar':
    case 'barrier': {
      const arrive = parts.includes('arrive');
      // Dat3M: bar.cta.sync id | bar.cta.sync instance, id | bar.cta.sync instance, id, quorum
      const id = ops.length >= 2 ? ops[1] : ops[0];
      const count = ops[2];
      return { kind: 'barrier', id: expr(id), ...(count !== undefined ? { count: expr(count) } : {}), line, ...(arrive ? { arrive: true } : {}) };
    }
    case 'add':
    case 'sub':
    case 'mul':
    case 'and':
    case 'or':
    case 'xor': {
      const sym = { add: '+', sub: '-', mul: '*', and: '&', or: '|', xor: '^' }[base] as '+';
      return { kind: 'local', dst: reg(ops[0]), value: { k: 'bin', op: sym, a: expr(ops[1]), b: expr(ops[2]) }, line };
    }
    case 'mov':
      return { kind: 'local', dst: reg(ops[0]), value: expr(ops[1]), line };
    case 'goto':
      return { kind: 'branch', target: reg(ops[0]), line };
    case 'beq':
    case 'bne':
    case 'blt':
    case 'bgt':
    case 'ble':
    case 'bge': {
      const sym = { beq: '==', bne: '!=', blt: '<', bgt: '>', ble: '<=', bge: '>=' }[base] as '==';
      return { kind: 'branch', cond: { k: 'bin', op: sym, a: expr(ops[0]), b: expr(ops[1]) }, target: reg(ops[2]), line };
    }
    default:
      throw err(`unknown instruction '${opcode}': Dat3M's PTX tests use ld, st, atom, red, fence, bar, tld, suld, sust, cold, add, beq, bne, goto`);
  }
}

class CondParser {
  private p: number;
  constructor(
    private readonly s: string,
    start: number,
    private readonly line0: number,
    private readonly locations: Record<string, Location>,
  ) {
    this.p = start;
  }
  private where(): [number, number] {
    const before = this.s.slice(0, this.p);
    const nl = before.split('\n');
    return [this.line0 + nl.length - 1, nl[nl.length - 1]!.length + 1];
  }
  private fail(msg: string): never {
    const [l, c] = this.where();
    throw new ParseError(l, c, msg);
  }
  private ws() {
    while (this.p < this.s.length && /\s/.test(this.s[this.p]!)) this.p++;
  }
  private eat(t: string): boolean {
    this.ws();
    if (this.s.startsWith(t, this.p)) {
      this.p += t.length;
      return true;
    }
    return false;
  }
  parseAll(): Cond {
    this.ws();
    if (this.p >= this.s.length) return { k: 'true' };
    const c = this.or();
    this.ws();
    if (this.p < this.s.length) this.fail(`unexpected '${this.s.slice(this.p, this.p + 10)}' after the condition: join terms with /\\ or \\/`);
    return c;
  }
  private or(): Cond {
    let a = this.and();
    while (this.eat('\\/')) a = { k: 'or', a, b: this.and() };
    return a;
  }
  private and(): Cond {
    let a = this.unary();
    while (this.eat('/\\')) a = { k: 'and', a, b: this.unary() };
    return a;
  }
  private unary(): Cond {
    if (this.eat('~')) return { k: 'not', a: this.unary() };
    if (this.eat('(')) {
      const c = this.or();
      if (!this.eat(')')) this.fail("expected ')'");
      return c;
    }
    if (this.eat('true')) return { k: 'true' };
    const a = this.term();
    this.ws();
    const m = /^(==|!=|<=|>=|=|<|>)/.exec(this.s.slice(this.p));
    if (!m) this.fail('expected a comparison (==, !=, <, >, <=, >=)');
    this.p += m[0].length;
    const op = (m[0] === '=' ? '==' : m[0]) as '==';
    return { k: 'cmp', op, a, b: this.term() };
  }
  private term(): Term {
    this.ws();
    const rest = this.s.slice(this.p);
    let m: RegExpExecArray | null;
    if ((m = /^P?(\d+)\s*:\s*(\w+)/.exec(rest))) {
      this.p += m[0].length;
      return { k: 'reg', thread: Number(m[1]), reg: m[2]! };
    }
    if ((m = /^-?\d+/.exec(rest))) {
      this.p += m[0].length;
      return { k: 'const', v: BigInt(m[0]) };
    }
    if ((m = /^[A-Za-z_]\w*/.exec(rest))) {
      this.p += m[0].length;
      if (!this.locations[m[0]]) this.locations[m[0]] = { name: m[0], space: 'global', init: 0n };
      return { k: 'mem', loc: m[0] };
    }
    this.fail("expected 'P0:r0', a location or an integer");
  }
}
