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
import { litmusFamilyFor } from '../registry/litmus.js';
import { ELEMENT_FORMATS, type FloatFormat } from '../numerics/formats.js';
import { floatBits } from '../numerics/encode.js';
import type { Cond, Expr, Instr, LitmusTest, Location, Problem, Proxy, Quantifier, Scope, Sem, SpaceQual, Term, ThreadDecl } from './events.js';

export interface ParsedLitmus {
  test?: LitmusTest;
  problems: Problem[];
}

class Stop extends Error {}

const SCOPES: readonly Scope[] = ['cta', 'cluster', 'gpu', 'sys'];
const SPACES = ['global', 'shared', 'shared::cta', 'shared::cluster'];
const TYPES = Object.keys(ELEMENT_FORMATS);
const IDENT = /^%?[A-Za-z_][A-Za-z0-9_]*$/;
const QUANTS: Readonly<Record<string, Quantifier>> = { exists: 'exists', '~exists': 'not exists', forall: 'forall' };

const INT_LIT = /^-?(0x[0-9a-fA-F]+|\d+)$/;
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
    if (!fmt || fmt.lane.kind !== 'float' || fmt.lanes !== 1) throw new Error(`'${text}' is a floating-point literal; it needs a scalar float type (${type ? `this is .${type}` : 'write it as 1.5:f32'})`);
    const x = text.replace(/^-/, '') === 'inf' ? (text.startsWith('-') ? -Infinity : Infinity) : text.endsWith('nan') ? NaN : Number(text);
    return floatBits(fmt.lane, x);
  }
  throw new Error(`'${text}' is not a value: write an integer (42, -1, 0x7f) or a float with its type (1.5:f32)`);
}

/** `v` or `v:type`. */
function typedLiteral(text: string): bigint {
  const m = /^(.*):([a-z0-9]+)$/.exec(text.trim());
  return m ? literalBits(m[1]!.trim(), m[2]) : literalBits(text.trim(), undefined);
}

/** Splits `s` (starting at column `col0`) on `sep` outside brackets and parentheses. */
function splitAt(s: string, sep: string, col0: number): { text: string; col: number }[] {
  const out: { text: string; col: number }[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= s.length; i++) {
    const ch = s[i];
    if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
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
  const problems: Problem[] = [];
  const comments: string[] = [];
  // comments `(* ... *)` blanked (keeping lines and columns), their text kept
  let src = '';
  {
    let i = 0;
    while (i < text.length) {
      if (text.startsWith('(*', i)) {
        const end = text.indexOf('*)', i + 2);
        const stop = end < 0 ? text.length : end + 2;
        comments.push(text.slice(i + 2, end < 0 ? text.length : end).trim());
        src += text.slice(i, stop).replace(/[^\n]/g, ' ');
        if (end < 0) {
          const { line, col } = lineCol(text, i);
          problems.push({ file, line, col, message: 'a comment "(*" is never closed; end it with "*)"' });
        }
        i = stop;
      } else src += text[i++];
    }
  }
  const lines = src.split('\n');
  const problem = (line: number, col: number, message: string): never => {
    problems.push({ file, line, col, message });
    throw new Stop();
  };
  const soft = (line: number, col: number, message: string) => void problems.push({ file, line, col, message });

  let li = 0;
  const skipBlank = () => {
    while (li < lines.length && lines[li]!.trim() === '') li++;
  };
  try {
    // header: PTX name
    skipBlank();
    if (li >= lines.length) problem(1, 1, 'the file is empty; a litmus test starts with "PTX <name>"');
    const head = /^(\s*)PTX\s+(\S+)\s*$/.exec(lines[li]!);
    if (!head) problem(li + 1, 1, `a litmus test starts with "PTX <name>" (Dat3M's header); found '${lines[li]!.trim().slice(0, 40)}'`);
    const name = head![2]!;
    li++;
    // quoted description lines until the init block
    skipBlank();
    while (li < lines.length && lines[li]!.trim().startsWith('"')) {
      let s = lines[li]!.trim();
      const start = li;
      const closed = (x: string) => x.length > 1 && x.endsWith('"') && (x.match(/"/g) ?? []).length % 2 === 0;
      while (!closed(s) && li + 1 < lines.length) s += `\n${lines[++li]!.trim()}`;
      if (!closed(s)) problem(start + 1, 1, 'a quoted description is never closed; end it with "');
      comments.push(s.slice(1, -1).trim());
      li++;
      skipBlank();
    }
    // init block
    if (li >= lines.length || !lines[li]!.trim().startsWith('{')) problem(li + 1, 1, 'expected the init block "{ x=0; P0:r0=0; ... }" after the header');
    const initStart = li;
    let initText = '';
    const initOffsets: { line: number; col: number }[] = [];
    {
      let found = false;
      const firstCol = lines[li]!.indexOf('{');
      for (let l = li; l < lines.length && !found; l++) {
        const s = lines[l]!;
        for (let c = l === initStart ? firstCol + 1 : 0; c < s.length; c++) {
          if (s[c] === '}') {
            found = true;
            li = l + 1;
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
      if (!found) problem(initStart + 1, firstCol + 1, 'the init block "{" is never closed; end it with "}"');
    }
    const locations: Record<string, Location> = {};
    const regInit: Record<number, Record<string, bigint>> = {};
    const multimem = new Map<string, string[]>();
    const sharedDecl = new Map<string, Decl>();
    const regInitText: { thread: number; reg: string; at: { line: number; col: number } }[] = [];
    {
      let off = 0;
      for (const stmt of initText.split(';')) {
        const lead = stmt.length - stmt.trimStart().length;
        const at = initOffsets[Math.min(off + lead, initOffsets.length - 1)] ?? { line: initStart + 1, col: 1 };
        off += stmt.length + 1;
        const s = stmt.trim().replace(/\s+/g, ' ');
        if (s === '') continue;
        try {
          let m: RegExpExecArray | null;
          if ((m = /^P?(\d+) ?: ?(%?\w+) ?= ?(.+)$/.exec(s))) {
            const t = Number(m[1]);
            (regInit[t] ??= {})[m[2]!.replace(/^%/, '')] = typedLiteral(m[3]!);
            regInitText.push({ thread: t, reg: m[2]!, at });
          } else if ((m = /^(\w+) ?@ ?(generic|surface|texture|constant) aliases (\w+)$/.exec(s))) {
            locations[m[1]!] = { name: m[1]!, space: 'global', aliasOf: m[3]!, proxy: m[2] as Proxy, init: 0n };
          } else if ((m = /^(\w+) ?@ ?shared cta (\d+)((?: ?, ?(?:cluster|gpu) \d+)*)(?: ?= ?(.+))?$/.exec(s))) {
            const d: Decl = { cta: Number(m[2]), gpu: 0 };
            for (const [, k, v] of m[3]!.matchAll(/(cluster|gpu) (\d+)/g)) d[k as 'cluster' | 'gpu'] = Number(v);
            sharedDecl.set(m[1]!, d);
            locations[m[1]!] = { name: m[1]!, space: 'shared', ownerCta: d.cta, ownerGpu: d.gpu, init: m[4] ? typedLiteral(m[4]) : (locations[m[1]!]?.init ?? 0n) };
          } else if ((m = /^(\w+) ?@ ?multimem((?: \w+(?: ?, ?\w+)*)?)$/.exec(s))) {
            const reps = m[2]!.split(/[ ,]+/).filter((x) => x !== '');
            multimem.set(m[1]!, reps.length ? reps : [m[1]!]);
            if (!reps.length) locations[m[1]!] = { name: m[1]!, space: 'multimem', init: 0n };
          } else if ((m = /^(\w+) ?= ?(.+)$/.exec(s))) {
            const prev = locations[m[1]!];
            locations[m[1]!] = { ...(prev ?? { name: m[1]!, space: 'global' }), init: typedLiteral(m[2]!) };
          } else if (s.includes('@')) {
            throw new Error(`'${s}' is not a location declaration: write 'y @ generic aliases x', 's @ shared cta 1' (optionally ',cluster C,gpu G') or 'm @ multimem x0, x1'`);
          } else throw new Error(`'${s}' is not an initialisation: write 'x=0', 'x=1.5:f32' or 'P0:r0=0'`);
        } catch (e) {
          soft(at.line, at.col, (e as Error).message);
        }
      }
      for (const [m, reps] of multimem) {
        if (reps.length === 1 && reps[0] === m) continue;
        for (const r of reps) if (!locations[r]) locations[r] = { name: r, space: 'global', init: 0n };
      }
      for (const l of Object.values(locations)) if (l.aliasOf && !locations[l.aliasOf]) soft(initStart + 1, 1, `${l.name} aliases ${l.aliasOf}, which is not declared; declare it first, e.g. '${l.aliasOf}=0;'`);
    }
    // thread header
    skipBlank();
    if (li >= lines.length) problem(li, 1, 'expected the thread header "P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;" after the init block');
    const headerLine = li;
    const threads: ThreadDecl[] = [];
    const headCells = splitAt(lines[li]!.replace(/;\s*$/, ''), '|', 1);
    headCells.forEach((cell, i) => {
      const m = /^P(\d+)\s*@\s*(.*)$/.exec(cell.text);
      if (!m) problem(headerLine + 1, cell.col, `expected 'P${i}@cta C,gpu G' (or 'P${i}@cta C,cluster K,gpu G') as the header of column ${i + 1}`);
      if (Number(m![1]) !== i) problem(headerLine + 1, cell.col, `column ${i + 1} is headed P${m![1]}; the columns are P0, P1, ... in order`);
      const d: Record<string, number> = {};
      for (const part of m![2]!.split(',')) {
        const kv = /^\s*(cta|cluster|gpu)\s+(\d+)\s*$/.exec(part);
        if (!kv) problem(headerLine + 1, cell.col, `'${part.trim()}' in the header of P${i}: write 'cta C', 'cluster K' and 'gpu G', separated by commas`);
        d[kv![1]!] = Number(kv![2]);
      }
      if (d.cta === undefined) problem(headerLine + 1, cell.col, `P${i} names no CTA: write 'P${i}@cta 0,gpu 0'`);
      threads.push({ id: i, cta: d.cta!, ...(d.cluster !== undefined ? { cluster: d.cluster } : {}), gpu: d.gpu ?? 0, code: [] });
    });
    li++;
    // effective clusters: a CTA without one in the header is its own cluster
    const clusterKey = (gpu: number, cta: number, cluster: number | undefined) => (cluster === undefined ? `g${gpu}/cta${cta}` : `g${gpu}/cl${cluster}`);
    const ctaCluster = new Map<string, number | undefined>();
    for (const t of threads) {
      const k = `${t.gpu}/${t.cta}`;
      if (ctaCluster.has(k) && ctaCluster.get(k) !== t.cluster) soft(headerLine + 1, 1, `CTA ${t.cta} (gpu ${t.gpu}) is put in two clusters by the header; a CTA belongs to one cluster`);
      ctaCluster.set(k, t.cluster);
    }
    for (const d of sharedDecl.values()) {
      if (d.cluster !== undefined) continue;
      const k = `${d.gpu}/${d.cta}`;
      if (ctaCluster.has(k)) d.cluster = ctaCluster.get(k);
    }
    // rows until the condition
    const rowsStart = li;
    let condLine = -1;
    for (; li < lines.length; li++) {
      const t = lines[li]!.trim();
      if (/^(exists|~\s*exists|forall)\b/.test(t)) {
        condLine = li;
        break;
      }
    }
    if (condLine < 0) problem(lines.length, 1, 'the test has no final condition: end it with "exists (...)", "~exists (...)" or "forall (...)"');
    let scratch = 0;
    const labels = threads.map(() => new Set<string>());
    const branches: { thread: number; target: string; line: number; col: number }[] = [];
    for (let r = rowsStart; r < condLine; r++) {
      const raw = lines[r]!;
      if (raw.trim() === '') continue;
      const body = raw.replace(/;\s*$/, '');
      const cells = splitAt(body, '|', 1);
      if (cells.length > threads.length) soft(r + 1, cells[threads.length]!.col, `this row has ${cells.length} columns; the header names ${threads.length} threads`);
      cells.slice(0, threads.length).forEach((cell, ti) => {
        if (cell.text === '') return;
        const t = threads[ti]!;
        try {
          const code = lowerCell(cell.text, r + 1, cell.col, t, ti);
          t.code.push(...code);
        } catch (e) {
          if (!(e instanceof Stop)) throw e;
        }
      });
    }
    for (const b of branches) if (!labels[b.thread]!.has(b.target)) soft(b.line, b.col, `P${b.thread} branches to ${b.target}, which is no label of P${b.thread}; write '${b.target}:' in its column`);

    function lowerCell(cellText: string, line: number, col: number, t: ThreadDecl, ti: number): Instr[] {
      const fail = (message: string, c = col): never => problem(line, c, message);
      let text = cellText;
      let c0 = col;
      const label = /^(\w+):$/.exec(text);
      if (label) {
        labels[ti]!.add(label[1]!);
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
      const ops: LitmusOperand[] = sp[2]!.trim() === '' ? [] : splitAt(sp[2]!, ',', operandsCol).map((o) => {
        const b = /^\[\s*(.*?)\s*\]$/.exec(o.text);
        return { text: b ? b[1]! : o.text, col: o.col, bracketed: !!b };
      });
      const ins: LitmusInstruction = { opcode, parts: opcodeParts(opcode), operands: ops, line, col: c0 };
      const thread: LitmusThread = { id: ti, cta: t.cta, cluster: t.cluster ?? -1, gpu: t.gpu };
      const ctx: LitmusContext = {
        thread,
        fail: (message, operand) => fail(`${opcode}: ${message}`, operand === undefined ? c0 : (ops[operand]?.col ?? c0)),
        location: (i, space) => locationOf(ins, i, space, t, ctx),
        spaceOf: (l) => (multimem.has(l) ? 'multimem' : (locations[l]?.space ?? 'global')),
        replicas: (m) => multimem.get(m) ?? [m],
        register: (i) => {
          const o = ops[i] ?? ctx.fail(`operand ${i + 1} is missing`);
          if (!IDENT.test(o.text) || o.bracketed) ctx.fail(`'${o.text}' is not a register (write r0, %r1, ...)`, i);
          if (locations[o.text] || multimem.has(o.text)) ctx.fail(`'${o.text}' is a location; a register is expected here`, i);
          return o.text.replace(/^%/, '');
        },
        value: (i, type) => valueOf(ops[i] ?? ctx.fail(`operand ${i + 1} is missing`), i, type, ctx),
        scratch: (hint) => `%${hint}${scratch++}`,
      };
      const lowered = lowerInstruction(ins, ctx);
      if (!guard) return lowered;
      const skip = `%skip${scratch++}`;
      labels[ti]!.add(skip);
      const cond: Expr = { k: 'bin', op: guard.neg ? '!=' : '==', a: { k: 'reg', r: guard.reg }, b: { k: 'const', v: 0n } };
      return [{ kind: 'branch', cond, target: skip, line }, ...lowered, { kind: 'label', name: skip, line }];
    }

    function valueOf(o: LitmusOperand, i: number, type: string | undefined, ctx: LitmusContext): Expr {
      if (IDENT.test(o.text) && !/^(inf|nan)$/.test(o.text)) {
        if (locations[o.text] || multimem.has(o.text)) ctx.fail(`'${o.text}' is a location; a value (register or literal) is expected here`, i);
        return { k: 'reg', r: o.text.replace(/^%/, '') };
      }
      try {
        return { k: 'const', v: literalBits(o.text, type) };
      } catch (e) {
        return ctx.fail((e as Error).message, i);
      }
    }

    function locationOf(ins: LitmusInstruction, i: number, space: SpaceQual, t: ThreadDecl, ctx: LitmusContext): string {
      const o = ins.operands[i] ?? ctx.fail(`operand ${i + 1} (a location) is missing`);
      const n = o.text;
      const isMulti = multimem.has(n);
      // Dat3M: a location the init block does not name is global memory initialised to 0 (8.2.6)
      if (!locations[n] && !isMulti && (space === 'generic' || space === 'global') && /^[A-Za-z_]\w*$/.test(n) && !/^r\d+$/.test(n)) locations[n] = { name: n, space: 'global', init: 0n };
      if (!locations[n] && !isMulti) ctx.fail(`'${n}' is not a declared location; declare it in the init block ('${n}=0;', '${n} @ shared cta 0;' or '${n} @ multimem x0, x1;')`, i);
      if (space === 'multimem') {
        if (!isMulti) ctx.fail(`'${n}' is not a multimem location; multimem instructions take one declared as '${n} @ multimem x0, x1;' (8.2.3)`, i);
        return n;
      }
      if (isMulti) ctx.fail(`'${n}' is a multimem address: only multimem.* instructions may access it (8.2.3); access a replica (${multimem.get(n)!.join(', ')}) instead`, i);
      const l = locations[n]!;
      if (l.space === 'shared') {
        const d = sharedDecl.get(n)!;
        if (space === 'global') ctx.fail(`'${n}' is shared memory of CTA ${d.cta}; .global cannot name it: use .shared::cta (from CTA ${d.cta}) or .shared::cluster`, i);
        const sameCta = t.cta === d.cta && t.gpu === d.gpu;
        const sameCluster = t.gpu === d.gpu && clusterKey(t.gpu, t.cta, t.cluster) === clusterKey(d.gpu, d.cta, d.cluster);
        if (space === 'shared::cta' && !sameCta) ctx.fail(`.shared::cta names the executing CTA's own shared memory (8.3); '${n}' belongs to CTA ${d.cta} and P${t.id} runs in CTA ${t.cta}: use .shared::cluster from a CTA of the same cluster`, i);
        if (!sameCluster) ctx.fail(`'${n}' is shared memory of CTA ${d.cta}, outside the cluster of P${t.id} (CTA ${t.cta}); shared memory is reachable only from its cluster: put both CTAs in one cluster in the header ('P${t.id}@cta ${t.cta},cluster K,gpu ${t.gpu}')`, i);
      } else if (space === 'shared::cta' || space === 'shared::cluster') {
        ctx.fail(`'${n}' is global memory; .${space} cannot name it: declare it '${n} @ shared cta C;' or use .global`, i);
      }
      return n;
    }

    function lowerInstruction(ins: LitmusInstruction, ctx: LitmusContext): Instr[] {
      const fam = litmusFamilyFor(ins.parts);
      if (fam) return fam.lower(ins, ctx);
      const p = ins.parts;
      const line = ins.line;
      const quals = (skip: number, allowed: Record<string, readonly string[]>) => {
        const q: Record<string, string> = {};
        for (const part of p.slice(skip)) {
          const slot = Object.keys(allowed).find((k) => q[k] === undefined && allowed[k]!.includes(part));
          if (!slot) ctx.fail(`'.${part}' is not a qualifier of ${p.slice(0, skip).join('.')} here (or repeats one); it takes ${Object.entries(allowed).map(([k, v]) => `${k} {${v.map((x) => `.${x}`).join(' ')}}`).join('; ')}`);
          q[slot] = part;
        }
        return q;
      };
      const nops = (n: number, shape: string) => {
        if (ins.operands.length !== n) ctx.fail(`takes ${shape} (${n} operand${n === 1 ? '' : 's'}); this one has ${ins.operands.length}`);
      };
      const sq = (s: string | undefined): SpaceQual => (s === 'shared' ? 'shared::cta' : ((s as SpaceQual | undefined) ?? 'generic'));
      const mem = (q: Record<string, string>, defSem: Sem) => {
        const vol = q.sem === 'volatile';
        const sem = (vol ? 'relaxed' : q.sem === 'mmio' ? 'relaxed' : (q.sem ?? defSem)) as Sem;
        if (sem !== 'weak' && !q.scope && !vol && q.sem !== 'mmio') ctx.fail(`.${sem} needs a scope (8.5: each strong operation specifies one): add .cta, .cluster, .gpu or .sys`);
        const scope = (vol || q.sem === 'mmio' ? 'sys' : (q.scope ?? 'sys')) as Scope;
        return { sem, scope, ...(vol ? { volatile: true } : {}) };
      };
      const head = p[0]!;
      const proxyOf: Record<string, Proxy> = { sust: 'surface', suld: 'surface', tld: 'texture', cold: 'constant', ld: 'generic', st: 'generic' };
      if (head === 'ld' || head === 'suld' || head === 'tld' || head === 'cold') {
        const q = quals(1, { sem: ['weak', 'relaxed', 'acquire', 'volatile', 'mmio'], scope: SCOPES, space: SPACES, type: TYPES });
        nops(2, 'd, [a]');
        const dst = ctx.register(0);
        // Dat3M's `ld r0, 1`: a register set to a constant (the Memalloy tests)
        if (head === 'ld' && p.length === 1 && INT_LIT.test(ins.operands[1]!.text)) return [{ kind: 'local', dst, value: ctx.value(1, undefined), line }];
        return [{ kind: 'read', dst, loc: ctx.location(1, sq(q.space)), ...mem(q, 'weak'), proxy: proxyOf[head]!, space: sq(q.space), line }];
      }
      if (head === 'st' || head === 'sust') {
        const q = quals(1, { sem: ['weak', 'relaxed', 'release', 'volatile', 'mmio'], scope: SCOPES, space: SPACES, type: TYPES });
        nops(2, '[a], b');
        const loc = ctx.location(0, sq(q.space));
        return [{ kind: 'write', value: ctx.value(1, q.type), loc, ...mem(q, 'weak'), proxy: proxyOf[head]!, space: sq(q.space), line }];
      }
      if (head === 'membar') {
        const q = quals(1, { level: ['cta', 'gl', 'sys'] });
        nops(0, 'no operands');
        return [{ kind: 'fence', sem: 'sc', scope: q.level === 'gl' ? 'gpu' : ((q.level ?? 'sys') as Scope), line }];
      }
      if (head === 'fence' && p[1] === 'proxy') {
        const q = quals(2, { proxy: ['alias', 'texture', 'surface', 'constant', 'async'], space: ['global', 'shared::cta', 'shared::cluster'] });
        nops(0, 'no operands');
        if (!q.proxy) ctx.fail('fence.proxy needs its kind: .alias, .async (optionally .global/.shared::cta/.shared::cluster), .texture, .surface or .constant');
        if (q.space && q.proxy !== 'async') ctx.fail(`only fence.proxy.async takes a state space`);
        return [{ kind: 'proxyFence', proxy: q.proxy as Proxy | 'alias', line }];
      }
      if (head === 'fence' && p[1] === 'mbarrier_init') {
        quals(2, { sem: ['release'], scope: ['cluster'] });
        nops(0, 'no operands');
        // 9.7.15.4: a light-weight fence.release.cluster that orders prior mbarrier.init only; modelled as fence.release.cluster
        return [{ kind: 'fence', sem: 'release', scope: 'cluster', line }];
      }
      if (head === 'fence') {
        const q = quals(1, { sem: ['sc', 'acq_rel', 'acquire', 'release'], scope: SCOPES });
        nops(0, 'no operands');
        if (!q.scope) ctx.fail('a fence needs its scope: fence{.sem}.cta, .cluster, .gpu or .sys');
        return [{ kind: 'fence', sem: (q.sem ?? 'acq_rel') as 'sc', scope: q.scope as Scope, line }];
      }
      if (head === 'bar' || head === 'barrier') {
        const q = quals(1, { level: ['cta'], mode: ['sync', 'arrive', 'red'], aligned: ['aligned'] });
        if (q.mode !== 'sync' && q.mode !== 'arrive') ctx.fail(`${head}{.cta}.sync and .arrive id{, count} are in the litmus language; .${q.mode ?? '?'} is not`);
        if (ins.operands.length < 1 || ins.operands.length > 3) ctx.fail('takes id, or (Dat3M) instance, id{, quorum}');
        // Dat3M: bar.cta.sync id | bar.cta.sync instance, id | bar.cta.sync instance, id, quorum
        const idAt = ins.operands.length >= 2 ? 1 : 0;
        return [{ kind: 'barrier', id: ctx.value(idAt, undefined), ...(ins.operands[2] ? { count: ctx.value(2, undefined) } : {}), ...(q.mode === 'arrive' ? { arrive: true } : {}), line }];
      }
      if (head === 'mbarrier') {
        const op = p[1];
        const sem = { sem: ['relaxed', 'acquire', 'release'], scope: ['cta', 'cluster'], space: ['shared', 'shared::cta', 'shared::cluster'], type: ['b64'], phase: ['parity'] };
        if (op === 'init') {
          quals(2, { space: ['shared', 'shared::cta'], type: ['b64'] });
          nops(2, '[mbar], count');
          const mbar = ctx.location(0, 'shared::cta');
          const count = ins.operands[1]!.text;
          if (!/^\d+$/.test(count) || BigInt(count) < 1n) ctx.fail('the count is a positive integer (the expected arrivals)', 1);
          return [{ kind: 'mbarrier', op: 'init', mbar, count: BigInt(count), sem: 'relaxed', scope: 'cta', space: 'shared::cta', line }];
        }
        if (op === 'arrive' || op === 'expect_tx') {
          const expect = op === 'expect_tx' || p[2] === 'expect_tx';
          const q = quals(op === 'arrive' && expect ? 3 : 2, sem);
          const defSem = op === 'expect_tx' ? 'relaxed' : 'release';
          const s = (q.sem ?? defSem) as Sem;
          const scope = (q.scope ?? 'cta') as Scope;
          const space = sq(q.space ?? 'shared::cta');
          if (op === 'expect_tx') {
            nops(2, '[mbar], txCount');
            if (s !== 'relaxed') ctx.fail('mbarrier.expect_tx is .relaxed only (9.7.15.16.14)');
            return [{ kind: 'mbarrier', op: 'expect_tx', mbar: ctx.location(0, space), bytes: txCount(1), sem: 'relaxed', scope, space, line }];
          }
          if (s === 'acquire') ctx.fail('mbarrier.arrive is .release or .relaxed (9.7.15.16.16)');
          const n = expect ? 3 : ins.operands.length;
          if (n < 2 || n > 3 || ins.operands.length !== n) ctx.fail(expect ? 'takes state, [mbar], txCount' : 'takes state, [mbar]{, count}');
          if (ins.operands[0]!.text !== '_') ctx.register(0);
          const mbar = ctx.location(1, space);
          const out: Instr[] = [];
          if (expect) out.push({ kind: 'mbarrier', op: 'expect_tx', mbar, bytes: txCount(2), sem: 'relaxed', scope, space, line });
          out.push({ kind: 'mbarrier', op: 'arrive', mbar, ...(!expect && ins.operands[2] ? { count: txCount(2) } : {}), sem: s, scope, space, line });
          return out;
        }
        if (op === 'try_wait' || op === 'test_wait') {
          const q = quals(2, sem);
          nops(3, 'waitComplete, [mbar], state');
          const s = (q.sem ?? 'acquire') as Sem;
          if (s === 'release') ctx.fail(`mbarrier.${op} is .acquire or .relaxed (9.7.15.16.19)`);
          const dst = ctx.register(0);
          const space = sq(q.space ?? 'shared::cta');
          return [{ kind: 'mbarrier', op: 'try_wait', mbar: ctx.location(1, space), dst, sem: s, scope: (q.scope ?? 'cta') as Scope, space, line }];
        }
        ctx.fail(`mbarrier.${op ?? ''} is not in the litmus language; it has mbarrier.init, .arrive, .arrive.expect_tx, .expect_tx, .try_wait, .test_wait`);
      }
      if (head === 'cp' && p[1] === 'async' && p[2] === 'bulk' && (p[3] === 'commit_group' || p[3] === 'wait_group')) {
        if (p[3] === 'commit_group') {
          nops(0, 'no operands');
          return [{ kind: 'bulkCommit', line }];
        }
        if (p[4] === 'read') ctx.fail('cp.async.bulk.wait_group.read waits for the source reads only; it is not in the litmus language (use cp.async.bulk.wait_group N)');
        nops(1, 'N');
        const n = ins.operands[0]!.text;
        if (!/^\d+$/.test(n)) ctx.fail('N is a non-negative integer (the bulk async-groups that may stay pending)', 0);
        return [{ kind: 'bulkWait', n: Number(n), line }];
      }
      if (head === 'add' || head === 'sub' || head === 'mov' || head === 'and' || head === 'or' || head === 'xor') {
        quals(1, { type: TYPES });
        if (head === 'mov') {
          nops(2, 'd, a');
          return [{ kind: 'local', dst: ctx.register(0), value: ctx.value(1, undefined), line }];
        }
        nops(3, 'd, a, b');
        const op = ({ add: '+', sub: '-', and: '&', or: '|', xor: '^' } as const)[head];
        return [{ kind: 'local', dst: ctx.register(0), value: { k: 'bin', op, a: ctx.value(1, undefined), b: ctx.value(2, undefined) }, line }];
      }
      if (head === 'beq' || head === 'bne') {
        nops(3, 'a, b, LABEL');
        const target = ins.operands[2]!.text;
        branches.push({ thread: ctx.thread.id, target, line, col: ins.operands[2]!.col });
        return [{ kind: 'branch', cond: { k: 'bin', op: head === 'beq' ? '==' : '!=', a: ctx.value(0, undefined), b: ctx.value(1, undefined) }, target, line }];
      }
      if (head === 'goto' || head === 'bra') {
        nops(1, 'LABEL');
        const target = ins.operands[0]!.text;
        branches.push({ thread: ctx.thread.id, target, line, col: ins.operands[0]!.col });
        return [{ kind: 'branch', target, line }];
      }
      return ctx.fail(`'${ins.opcode}' is not an instruction of the litmus language; see docs/litmus.md for the instructions it reads`);

      function txCount(i: number): bigint {
        const s = ins.operands[i]?.text ?? '';
        if (!/^\d+$/.test(s)) ctx.fail('a byte count (a non-negative integer) is expected here', i);
        return BigInt(s);
      }
    }

    // condition
    const condText = lines.slice(condLine).join('\n');
    const q = /^(\s*)(exists|~\s*exists|forall)/.exec(condText)!;
    const quantifier = QUANTS[q[2]!.replace(/\s+/g, '')]!;
    const cond = parseCond(condText.slice(q[0].length), condLine, q[0].length, lines, threads.length, locations, multimem, problem);
    for (const r of regInitText) if (r.thread >= threads.length) soft(r.at.line, r.at.col, `P${r.thread} is not a thread of this test (it has P0..P${threads.length - 1})`);
    if (problems.length) return { problems };
    const test: LitmusTest = { name, file, threads, locations, regInit, quantifier, cond, comments };
    return { test, problems };
  } catch (e) {
    if (e instanceof Stop) return { problems };
    throw e;
  }
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

/** Dat3M's final condition: `(P0:r0 == 1 /\ x != 2) \/ ~(...)`, `true`. */
function parseCond(
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
    if (/^\w+$/.test(tk.t) && !/^-?\d/.test(tk.t) && !/^(inf|nan)$/.test(tk.t)) {
      if (multimem.has(tk.t) && !locations[tk.t]) problem(tk.line, tk.col, `'${tk.t}' is a multimem address; the condition reads its replicas (${multimem.get(tk.t)!.join(', ')})`);
      if (!locations[tk.t]) problem(tk.line, tk.col, `'${tk.t}' is neither a declared location nor a register 'P0:r0'; declare it in the init block or write the thread`);
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
    if (!['==', '!=', '<', '>', '<=', '>='].includes(op.t)) problem(op.line, op.col, `expected a comparison (==, !=, <, >, <=, >=) in the final condition, found '${op.t}'`);
    const b = term();
    return { k: 'cmp', op: op.t as '==', a, b };
  };
  const and = (): Cond => {
    let c = atom();
    while (peek().t === '/\\') {
      next();
      c = { k: 'and', a: c, b: atom() };
    }
    return c;
  };
  const or = (): Cond => {
    let c = and();
    while (peek().t === '\\/') {
      next();
      c = { k: 'or', a: c, b: and() };
    }
    return c;
  };
  const c = or();
  const rest = peek();
  if (rest !== end) problem(rest.line, rest.col, `unexpected '${rest.t}' after the final condition (join conditions with /\\ or \\/)`);
  return c;
}

/** A test's stated intent: `(* intent: allowed|forbidden because ..., 8.x *)`. */
export interface Intent {
  readonly verdict: 'allowed' | 'forbidden';
  readonly text: string;
}

/** The intent a test's comments state, if any. */
export function intentOf(test: Pick<LitmusTest, 'comments'>): Intent | undefined {
  for (const c of test.comments ?? []) {
    const m = /^intent:\s*(allowed|forbidden)\b([\s\S]*)$/i.exec(c.trim());
    if (m) return { verdict: m[1]!.toLowerCase() as 'allowed' | 'forbidden', text: c.trim().replace(/\s+/g, ' ') };
  }
  return undefined;
}
