/**
 * The project's litmus language (docs/litmus.md): Dat3M's PTX litmus syntax (`PTX name`, quoted
 * description, init block, one column per thread `P0@cta 0,gpu 0`, `exists`/`~exists`/`forall`),
 * read unchanged, extended with
 * - cluster in the thread header: `P0@cta 0,cluster 0,gpu 0` (without it each CTA is its own cluster);
 * - shared memory owned by a CTA: `s @ shared cta 1;` (reachable as `.shared::cta` from CTA 1, as
 *   `.shared::cluster` from its cluster), optionally `s @ shared cta 1,cluster 0,gpu 0;`;
 * - multimem locations: `m @ multimem x0, x1;` (the replicas; `m @ multimem;` is one replica);
 * - typed values: `x = 1.5:f32;`, `x == 3.0:f32` (instruction operands take the instruction's type);
 * - the instructions of the families (atom, red, red.async, cp.reduce.async.bulk, multimem.*), each
 *   lowered by its family's harness/families/<family>/litmus.ts; and the shared ones lowered here:
 *   ld/st (and Dat3M's sust/suld/tld/cold), fence{.sem}.scope, membar, fence.proxy.*,
 *   fence.mbarrier_init, bar{.cta}.sync, mbarrier.init/arrive{.expect_tx}/expect_tx/try_wait/test_wait,
 *   cp.async.bulk.commit_group/wait_group, add/sub/mov, beq/bne/goto/bra, labels, `@p` guards;
 * - `(* ... *)` comments anywhere; `(* intent: forbidden because ..., 8.8 *)` states a test's intent.
 *
 * Every problem is reported as file:line:col with what to do; a file with problems gives no test.
 */
import { type LitmusContext, type LitmusInstruction, type LitmusOperand, type LitmusThread } from '../registry/litmus-family.js';
import { lowerInstruction } from './litmus-instructions.js';
import { literalBits, parseCond, typedLiteral } from './condition-parse.js';

import {
  MAX_ARRAY,
  type Expr,
  type Instr,
  type LitmusTest,
  type Location,
  type Problem,
  type Proxy,
  type Quantifier,
  type SpaceQual,
  type ThreadDecl,
} from './events.js';

export interface ParsedLitmus {
  test?: LitmusTest;
  problems: Problem[];
}

class Stop extends Error {}

const IDENT = /^%?[A-Za-z_][A-Za-z0-9_]*$/;
const QUANTS: Readonly<Record<string, Quantifier>> = { exists: 'exists', '~exists': 'not exists', forall: 'forall' };

/** Splits `s` (starting at column `col0`) on `sep` outside brackets, braces and parentheses. */
function splitAt(s: string, sep: string, col0: number): { text: string; col: number }[] {
  const out: { text: string; col: number }[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= s.length; i++) {
    const ch = s[i];
    if (ch === '[' || ch === '(' || ch === '{') depth++;
    else if (ch === ']' || ch === ')' || ch === '}') depth--;
    if (i === s.length || (ch === sep && depth === 0)) {
      const raw = s.slice(start, i);
      const lead = raw.length - raw.trimStart().length;
      out.push({ text: raw.trim(), col: col0 + start + lead });
      start = i + 1;
    }
  }
  return out;
}

/** Splits an opcode on `.`, keeping `::` qualifiers whole. */
export function opcodeParts(opcode: string): string[] {
  return opcode.split(/\.(?!:)/).filter((p) => p !== '');
}

interface Decl {
  cta: number;
  cluster?: number;
  gpu: number;
}

/** Reads one litmus file of the project's language (Dat3M's syntax included). */
export function parseLitmus(text: string, file: string): ParsedLitmus {
  const r = new LitmusReader(text, file);
  try {
    const name = r.header();
    r.descriptions();
    r.initBlock();
    r.threadHeader();
    r.clusters();
    const condLine = r.rows();
    return r.finish(name, condLine);
  } catch (e) {
    if (e instanceof Stop) return { problems: r.problems };
    throw e;
  }
}

/**
 * One file being read, part by part (header, descriptions, init block, thread header, rows,
 * condition): what each part found, and the problems so far. A hard problem (`problem`) stops the
 * read; a soft one (`soft`) is recorded and the read goes on to find more.
 */
class LitmusReader {
  readonly problems: Problem[] = [];
  private readonly comments: string[] = [];
  private readonly lines: string[];
  /** The line being read (0-based). */
  private li = 0;
  private readonly locations: Record<string, Location> = {};
  private readonly regInit: Record<number, Record<string, bigint>> = {};
  private readonly multimem = new Map<string, string[]>();
  private readonly sharedDecl = new Map<string, Decl>();
  private readonly regInitText: { thread: number; reg: string; at: { line: number; col: number } }[] = [];
  private readonly threads: ThreadDecl[] = [];
  private headerLine = 0;
  private labels: Set<string>[] = [];
  private readonly branches: { thread: number; target: string; line: number; col: number }[] = [];
  private scratch = 0;

  constructor(
    text: string,
    private readonly file: string,
  ) {
    this.lines = this.blankComments(text).split('\n');
  }

  /** The text with its `(* ... *)` comments blanked (lines and columns kept), their text kept. */
  private blankComments(text: string): string {
    let src = '';
    let i = 0;
    while (i < text.length) {
      if (text.startsWith('(*', i)) {
        const end = text.indexOf('*)', i + 2);
        const stop = end < 0 ? text.length : end + 2;
        this.comments.push(text.slice(i + 2, end < 0 ? text.length : end).trim());
        src += text.slice(i, stop).replace(/[^\n]/g, ' ');
        if (end < 0) {
          const { line, col } = lineCol(text, i);
          this.problems.push({ file: this.file, line, col, message: 'a comment "(*" is never closed; end it with "*)"' });
        }
        i = stop;
      } else src += text[i++];
    }
    return src;
  }

  readonly problem = (line: number, col: number, message: string): never => {
    this.problems.push({ file: this.file, line, col, message });
    throw new Stop();
  };

  private soft(line: number, col: number, message: string): void {
    this.problems.push({ file: this.file, line, col, message });
  }

  private skipBlank(): void {
    while (this.li < this.lines.length && this.lines[this.li]!.trim() === '') this.li++;
  }

  /** `PTX name`: the test's name. */
  header(): string {
    const { lines } = this;
    this.skipBlank();
    if (this.li >= lines.length) this.problem(1, 1, 'the file is empty; a litmus test starts with "PTX <name>"');
    const head = /^(\s*)PTX\s+(\S+)\s*$/.exec(lines[this.li]!);
    if (!head) this.problem(this.li + 1, 1, `a litmus test starts with "PTX <name>" (Dat3M's header); found '${lines[this.li]!.trim().slice(0, 40)}'`);
    this.li++;
    return head![2]!;
  }

  /** Quoted description lines until the init block, kept with the comments. */
  descriptions(): void {
    const { lines } = this;
    this.skipBlank();
    while (this.li < lines.length && lines[this.li]!.trim().startsWith('"')) {
      let s = lines[this.li]!.trim();
      const start = this.li;
      const closed = (x: string) => x.length > 1 && x.endsWith('"') && (x.match(/"/g) ?? []).length % 2 === 0;
      while (!closed(s) && this.li + 1 < lines.length) s += `\n${lines[++this.li]!.trim()}`;
      if (!closed(s)) this.problem(start + 1, 1, 'a quoted description is never closed; end it with "');
      this.comments.push(s.slice(1, -1).trim());
      this.li++;
      this.skipBlank();
    }
  }

  /** `{ x=0; P0:r0=0; y @ generic aliases x; s @ shared cta 1; m @ multimem x0, x1; }`. */
  initBlock(): void {
    const { lines } = this;
    if (this.li >= lines.length || !lines[this.li]!.trim().startsWith('{'))
      this.problem(this.li + 1, 1, 'expected the init block "{ x=0; P0:r0=0; ... }" after the header');
    const initStart = this.li;
    let initText = '';
    const initOffsets: { line: number; col: number }[] = [];
    let found = false;
    const firstCol = lines[this.li]!.indexOf('{');
    let depth = 0; // an array's braces ('d = {0, 0};') inside the block
    for (let l = this.li; l < lines.length && !found; l++) {
      const s = lines[l]!;
      for (let c = l === initStart ? firstCol + 1 : 0; c < s.length; c++) {
        if (s[c] === '{') depth++;
        else if (s[c] === '}' && depth > 0) depth--;
        else if (s[c] === '}') {
          found = true;
          this.li = l + 1;
          break;
        }
        initText += s[c];
        initOffsets.push({ line: l + 1, col: c + 1 });
      }
      if (!found) {
        initText += '\n';
        initOffsets.push({ line: l + 1, col: s.length + 1 });
      }
    }
    if (!found) this.problem(initStart + 1, firstCol + 1, 'the init block "{" is never closed; end it with "}"');
    let off = 0;
    for (const stmt of initText.split(';')) {
      const lead = stmt.length - stmt.trimStart().length;
      const at = initOffsets[Math.min(off + lead, initOffsets.length - 1)] ?? { line: initStart + 1, col: 1 };
      off += stmt.length + 1;
      const s = stmt.trim().replace(/\s+/g, ' ');
      if (s === '') continue;
      try {
        this.initStatement(s, at);
      } catch (e) {
        this.soft(at.line, at.col, (e as Error).message);
      }
    }
    const { locations } = this;
    for (const [m, reps] of this.multimem) {
      if (reps.length === 1 && reps[0] === m) continue;
      for (const r of reps) if (!locations[r]) locations[r] = { name: r, space: 'global', init: 0n };
    }
    for (const l of Object.values(locations))
      for (const d of l.tensorMap ?? [])
        if (!locations[d]) locations[d] = { name: d, space: 'global', init: 0n };
        else if (locations[d]!.space !== 'global')
          this.soft(initStart + 1, 1, `tensor map ${l.name} points at ${d}, which is not global memory (a tensor map describes a tensor in global memory)`);
    for (const l of Object.values(locations))
      if (l.aliasOf && !locations[l.aliasOf])
        this.soft(initStart + 1, 1, `${l.name} aliases ${l.aliasOf}, which is not declared; declare it first, e.g. '${l.aliasOf}=0;'`);
  }

  /** An array of 32-bit elements `{v0, v1, ...}` (at most 16: four 16-byte chunks of a bulk operation): locations name, name+4, name+8, ... */
  private array(base: Omit<Location, 'init'>, values: string): void {
    const vs = values
      .slice(1, -1)
      .split(',')
      .map((v) => v.trim());
    if (vs.length < 1 || vs.length > MAX_ARRAY || vs.some((v) => v === ''))
      throw new Error(
        `'${values}': an array has one to ${MAX_ARRAY} 32-bit elements, e.g. '${base.name} = {0, 0};' (at most four 16-byte chunks of a bulk operation)`,
      );
    vs.forEach((v, k) => {
      const name = k ? `${base.name}+${4 * k}` : base.name;
      this.locations[name] = { ...base, name, init: typedLiteral(v), ...(k ? { element: { of: base.name, offset: 4 * k } } : {}) };
    });
  }

  /** One statement of the init block; throws its message. */
  private initStatement(s: string, at: { line: number; col: number }): void {
    const { locations } = this;
    let m: RegExpExecArray | null;
    if ((m = /^P?(\d+) ?: ?(%?\w+) ?= ?(.+)$/.exec(s))) {
      const t = Number(m[1]);
      (this.regInit[t] ??= {})[m[2]!.replace(/^%/, '')] = typedLiteral(m[3]!);
      this.regInitText.push({ thread: t, reg: m[2]!, at });
    } else if ((m = /^(\w+) ?@ ?(generic|surface|texture|constant) aliases (\w+)$/.exec(s))) {
      locations[m[1]!] = { name: m[1]!, space: 'global', aliasOf: m[3]!, proxy: m[2] as Proxy, init: 0n };
    } else if ((m = /^(\w+) ?@ ?tensormap (\w+(?: ?, ?\w+)*)$/.exec(s))) {
      // a tensor map in global memory pointing at the first location; tensormap.replace may install the others
      locations[m[1]!] = { name: m[1]!, space: 'global', init: 0n, tensorMap: m[2]!.split(/ ?, ?/) };
    } else if ((m = /^(\w+) ?@ ?shared cta (\d+)((?: ?, ?(?:cluster|gpu) \d+)*)(?: ?= ?(.+))?$/.exec(s))) {
      const d: Decl = { cta: Number(m[2]), gpu: 0 };
      for (const [, k, v] of m[3]!.matchAll(/(cluster|gpu) (\d+)/g)) d[k as 'cluster' | 'gpu'] = Number(v);
      this.sharedDecl.set(m[1]!, d);
      const base = { name: m[1]!, space: 'shared' as const, ownerCta: d.cta, ownerGpu: d.gpu };
      if (m[4] && /^\{.*\}$/.test(m[4])) this.array(base, m[4]);
      else locations[m[1]!] = { ...base, init: m[4] ? typedLiteral(m[4]) : (locations[m[1]!]?.init ?? 0n) };
    } else if ((m = /^(\w+) ?@ ?multimem((?: \w+(?: ?, ?\w+)*)?)$/.exec(s))) {
      const reps = m[2]!.split(/[ ,]+/).filter((x) => x !== '');
      this.multimem.set(m[1]!, reps.length ? reps : [m[1]!]);
      if (!reps.length) locations[m[1]!] = { name: m[1]!, space: 'multimem', init: 0n };
    } else if ((m = /^(\w+) ?= ?(\{.*\})$/.exec(s))) {
      this.array({ name: m[1]!, space: 'global' }, m[2]!);
    } else if ((m = /^(\w+) ?= ?(.+)$/.exec(s))) {
      const prev = locations[m[1]!];
      locations[m[1]!] = { ...(prev ?? { name: m[1]!, space: 'global' }), init: typedLiteral(m[2]!) };
    } else if (s.includes('@')) {
      throw new Error(
        `'${s}' is not a location declaration: write 'y @ generic aliases x', 's @ shared cta 1' (optionally ',cluster C,gpu G'), 'm @ multimem x0, x1' or 'tm @ tensormap d0, d1'`,
      );
    } else throw new Error(`'${s}' is not an initialisation: write 'x=0', 'x=1.5:f32' or 'P0:r0=0'`);
  }

  /** `P0@cta 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;`: the threads. */
  threadHeader(): void {
    const { lines } = this;
    this.skipBlank();
    if (this.li >= lines.length) this.problem(this.li, 1, 'expected the thread header "P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;" after the init block');
    const headerLine = (this.headerLine = this.li);
    splitAt(lines[this.li]!.replace(/;\s*$/, ''), '|', 1).forEach((cell, i) => {
      const m = /^P(\d+)\s*@\s*(.*)$/.exec(cell.text);
      if (!m) this.problem(headerLine + 1, cell.col, `expected 'P${i}@cta C,gpu G' (or 'P${i}@cta C,cluster K,gpu G') as the header of column ${i + 1}`);
      if (Number(m![1]) !== i) this.problem(headerLine + 1, cell.col, `column ${i + 1} is headed P${m![1]}; the columns are P0, P1, ... in order`);
      const d: Record<string, number> = {};
      for (const part of m![2]!.split(',')) {
        const kv = /^\s*(cta|cluster|gpu)\s+(\d+)\s*$/.exec(part);
        if (!kv) this.problem(headerLine + 1, cell.col, `'${part.trim()}' in the header of P${i}: write 'cta C', 'cluster K' and 'gpu G', separated by commas`);
        d[kv![1]!] = Number(kv![2]);
      }
      if (d.cta === undefined) this.problem(headerLine + 1, cell.col, `P${i} names no CTA: write 'P${i}@cta 0,gpu 0'`);
      this.threads.push({ id: i, cta: d.cta!, ...(d.cluster !== undefined ? { cluster: d.cluster } : {}), gpu: d.gpu ?? 0, code: [] });
    });
    this.labels = this.threads.map(() => new Set<string>());
    this.li++;
  }

  /** Effective clusters: a CTA without one in the header is its own cluster; shared memory is in its CTA's. */
  clusters(): void {
    const ctaCluster = new Map<string, number | undefined>();
    for (const t of this.threads) {
      const k = `${t.gpu}/${t.cta}`;
      if (ctaCluster.has(k) && ctaCluster.get(k) !== t.cluster)
        this.soft(this.headerLine + 1, 1, `CTA ${t.cta} (gpu ${t.gpu}) is put in two clusters by the header; a CTA belongs to one cluster`);
      ctaCluster.set(k, t.cluster);
    }
    for (const d of this.sharedDecl.values()) {
      if (d.cluster !== undefined) continue;
      const k = `${d.gpu}/${d.cta}`;
      if (ctaCluster.has(k)) d.cluster = ctaCluster.get(k);
    }
  }

  /** The rows of instructions until the final condition, lowered per cell; the condition's line. */
  rows(): number {
    const { lines, threads } = this;
    const rowsStart = this.li;
    let condLine = -1;
    for (; this.li < lines.length; this.li++) {
      if (/^(exists|~\s*exists|forall)\b/.test(lines[this.li]!.trim())) {
        condLine = this.li;
        break;
      }
    }
    if (condLine < 0) this.problem(lines.length, 1, 'the test has no final condition: end it with "exists (...)", "~exists (...)" or "forall (...)"');
    for (let r = rowsStart; r < condLine; r++) {
      const raw = lines[r]!;
      if (raw.trim() === '') continue;
      const cells = splitAt(raw.replace(/;\s*$/, ''), '|', 1);
      if (cells.length > threads.length)
        this.soft(r + 1, cells[threads.length]!.col, `this row has ${cells.length} columns; the header names ${threads.length} threads`);
      cells.slice(0, threads.length).forEach((cell, ti) => {
        if (cell.text === '') return;
        try {
          threads[ti]!.code.push(...this.lowerCell(cell.text, r + 1, cell.col, threads[ti]!, ti));
        } catch (e) {
          if (!(e instanceof Stop)) throw e;
        }
      });
    }
    for (const b of this.branches)
      if (!this.labels[b.thread]!.has(b.target))
        this.soft(b.line, b.col, `P${b.thread} branches to ${b.target}, which is no label of P${b.thread}; write '${b.target}:' in its column`);
    return condLine;
  }

  private lowerCell(cellText: string, line: number, col: number, t: ThreadDecl, ti: number): Instr[] {
    const fail = (message: string, c = col): never => this.problem(line, c, message);
    const { locations, multimem } = this;
    let text = cellText;
    let c0 = col;
    const label = /^(\w+):$/.exec(text);
    if (label) {
      this.labels[ti]!.add(label[1]!);
      return [{ kind: 'label', name: label[1]!, line }];
    }
    let guard: { reg: string; neg: boolean } | undefined;
    const g = /^@(!?)(%?\w+)\s+/.exec(text);
    if (g) {
      guard = { reg: g[2]!.replace(/^%/, ''), neg: g[1] === '!' };
      c0 += g[0].length;
      text = text.slice(g[0].length);
    }
    const sp = /^(\S+)\s*(.*)$/.exec(text)!;
    const opcode = sp[1]!;
    const operandsCol = c0 + text.indexOf(sp[2]!, opcode.length);
    const ops: LitmusOperand[] =
      sp[2]!.trim() === ''
        ? []
        : splitAt(sp[2]!, ',', operandsCol).map((o) => {
            const b = /^\[\s*(.*?)\s*\]$/.exec(o.text);
            return { text: b ? b[1]! : o.text, col: o.col, bracketed: !!b };
          });
    const ins: LitmusInstruction = { opcode, parts: opcodeParts(opcode), operands: ops, line, col: c0 };
    const thread: LitmusThread = { id: ti, cta: t.cta, cluster: t.cluster ?? -1, gpu: t.gpu };
    const ctx: LitmusContext = {
      thread,
      fail: (message, operand) => fail(`${opcode}: ${message}`, operand === undefined ? c0 : (ops[operand]?.col ?? c0)),
      location: (i, space) => this.locationOf(ins, i, space, t, ctx),
      spaceOf: (l) => (this.multimem.has(l) ? 'multimem' : (this.locations[l]?.space ?? 'global')),
      replicas: (m) => this.multimem.get(m) ?? [m],
      register: (i) => registerOf(ops[i] ?? ctx.fail(`operand ${i + 1} is missing`), i),
      value: (i, type) => this.valueOf(ops[i] ?? ctx.fail(`operand ${i + 1} is missing`), i, type, ctx),
      registers: (i, n) => elementsOf(i, n).map((o) => registerOf(o, i)),
      values: (i, n, type) => elementsOf(i, n).map((o) => this.valueOf(o, i, type, ctx)),
      scratch: (hint) => `%${hint}${this.scratch++}`,
      tensorMapAt: (l) => this.locations[l]?.tensorMap,
      declared: (l) => !!this.locations[l],
    };
    function registerOf(o: LitmusOperand, i: number): string {
      if (!IDENT.test(o.text) || o.bracketed) ctx.fail(`'${o.text}' is not a register (write r0, %r1, ...)`, i);
      if (locations[o.text] || multimem.has(o.text)) ctx.fail(`'${o.text}' is a location; a register is expected here`, i);
      return o.text.replace(/^%/, '');
    }
    // a vector operand's elements ({a, b, ...}), exactly n
    function elementsOf(i: number, n: number): LitmusOperand[] {
      const o = ops[i] ?? ctx.fail(`operand ${i + 1} is missing`);
      const m = o.bracketed ? null : /^\{(.*)\}$/.exec(o.text);
      if (!m) return ctx.fail(`a vector of ${n} is expected here: '{${Array.from({ length: n }, (_, k) => `a${k}`).join(', ')}}'`, i);
      const parts = splitAt(m[1]!, ',', o.col + 1);
      if (parts.length !== n || parts.some((x) => x.text === ''))
        ctx.fail(`the vector has ${parts.length} element${parts.length > 1 ? 's' : ''}; .v${n} takes ${n}`, i);
      return parts.map((x) => ({ text: x.text, col: x.col, bracketed: false }));
    }
    const lowered = lowerInstruction(ins, ctx, (target, bcol) => this.branches.push({ thread: ti, target, line, col: bcol }));
    if (!guard) return lowered;
    const skip = `%skip${this.scratch++}`;
    this.labels[ti]!.add(skip);
    const cond: Expr = { k: 'bin', op: guard.neg ? '!=' : '==', a: { k: 'reg', r: guard.reg }, b: { k: 'const', v: 0n } };
    return [{ kind: 'branch', cond, target: skip, line }, ...lowered, { kind: 'label', name: skip, line }];
  }

  private valueOf(o: LitmusOperand, i: number, type: string | undefined, ctx: LitmusContext): Expr {
    if (IDENT.test(o.text) && !/^(inf|nan)$/.test(o.text)) {
      if (this.locations[o.text] || this.multimem.has(o.text)) ctx.fail(`'${o.text}' is a location; a value (register or literal) is expected here`, i);
      return { k: 'reg', r: o.text.replace(/^%/, '') };
    }
    try {
      return { k: 'const', v: literalBits(o.text, type) };
    } catch (e) {
      return ctx.fail((e as Error).message, i);
    }
  }

  private locationOf(ins: LitmusInstruction, i: number, space: SpaceQual, t: ThreadDecl, ctx: LitmusContext): string {
    const o = ins.operands[i] ?? ctx.fail(`operand ${i + 1} (a location) is missing`);
    const n = o.text;
    const isMulti = this.multimem.has(n);
    // Dat3M: a location the init block does not name is global memory initialised to 0 (8.2.6)
    if (!this.locations[n] && !isMulti && (space === 'generic' || space === 'global') && /^[A-Za-z_]\w*$/.test(n) && !/^r\d+$/.test(n))
      this.locations[n] = { name: n, space: 'global', init: 0n };
    if (!this.locations[n] && !isMulti)
      ctx.fail(`'${n}' is not a declared location; declare it in the init block ('${n}=0;', '${n} @ shared cta 0;' or '${n} @ multimem x0, x1;')`, i);
    if (space === 'multimem') {
      if (!isMulti) ctx.fail(`'${n}' is not a multimem location; multimem instructions take one declared as '${n} @ multimem x0, x1;' (8.2.3)`, i);
      return n;
    }
    if (isMulti)
      ctx.fail(
        `'${n}' is a multimem address: only multimem.* instructions may access it (8.2.3); access a replica (${this.multimem.get(n)!.join(', ')}) instead`,
        i,
      );
    const l = this.locations[n]!;
    if (l.space === 'shared') {
      const d = this.sharedDecl.get(l.element?.of ?? n)!; // an array's element: its array's declaration
      if (space === 'global')
        ctx.fail(`'${n}' is shared memory of CTA ${d.cta}; .global cannot name it: use .shared::cta (from CTA ${d.cta}) or .shared::cluster`, i);
      const sameCta = t.cta === d.cta && t.gpu === d.gpu;
      const sameCluster = t.gpu === d.gpu && clusterKey(t.gpu, t.cta, t.cluster) === clusterKey(d.gpu, d.cta, d.cluster);
      if (space === 'shared::cta' && !sameCta)
        ctx.fail(
          `.shared::cta names the executing CTA's own shared memory (8.3); '${n}' belongs to CTA ${d.cta} and P${t.id} runs in CTA ${t.cta}: use .shared::cluster from a CTA of the same cluster`,
          i,
        );
      if (!sameCluster)
        ctx.fail(
          `'${n}' is shared memory of CTA ${d.cta}, outside the cluster of P${t.id} (CTA ${t.cta}); shared memory is reachable only from its cluster: put both CTAs in one cluster in the header ('P${t.id}@cta ${t.cta},cluster K,gpu ${t.gpu}')`,
          i,
        );
    } else if (space === 'shared::cta' || space === 'shared::cluster') {
      ctx.fail(`'${n}' is global memory; .${space} cannot name it: declare it '${n} @ shared cta C;' or use .global`, i);
    }
    return n;
  }

  /** The final condition, the register initialisations checked against the threads, and the test (none where there were problems). */
  finish(name: string, condLine: number): ParsedLitmus {
    const { lines, threads, locations, multimem, problems } = this;
    const condText = lines.slice(condLine).join('\n');
    const q = /^(\s*)(exists|~\s*exists|forall)/.exec(condText)!;
    const quantifier = QUANTS[q[2]!.replace(/\s+/g, '')]!;
    const cond = parseCond(condText.slice(q[0].length), condLine, q[0].length, lines, threads.length, locations, multimem, this.problem);
    for (const r of this.regInitText)
      if (r.thread >= threads.length) this.soft(r.at.line, r.at.col, `P${r.thread} is not a thread of this test (it has P0..P${threads.length - 1})`);
    if (problems.length) return { problems };
    const test: LitmusTest = { name, file: this.file, threads, locations, regInit: this.regInit, quantifier, cond, comments: this.comments };
    return { test, problems };
  }
}

/** The key of a CTA's cluster: a CTA the header puts in no cluster is its own. */
const clusterKey = (gpu: number, cta: number, cluster: number | undefined) => (cluster === undefined ? `g${gpu}/cta${cta}` : `g${gpu}/cl${cluster}`);

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}
