/**
 * YAML vector files: loading and validation. Every problem of a file is reported at once, located
 * (`file:line:col: what is wrong; what to do`), before anything runs. The format is in the README.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { LineCounter, type Node, type Pair, type YAMLMap, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { familyVariants } from '../catalog/enumerate.js';
import { ParseError, parseInstruction } from '../catalog/parse.js';
import { variantId } from '../catalog/spelling.js';
import { decodeTable, encoderFor } from '../numerics/encode.js';
import { type ElementFormat, type FloatFormat, elementFormat, joinLanes } from '../numerics/formats.js';
import { nearestWords } from '../util/nearest.js';
import type { Case, CaseExpect, CaseVariant, InputProblem } from './types.js';

const NAME = /^[A-Za-z0-9_.-]+$/;
const FILE_KEYS = ['instruction', 'cite', 'cases'];
const CASE_KEYS = ['name', 'instruction', 'memory', 'replicas', 'source', 'operands', 'expect', 'space'];

interface Ctx {
  file: string;
  lc: LineCounter;
  problems: InputProblem[];
}

function at(ctx: Ctx, node: Node | Pair | null | undefined, message: string, colOffset = 0): void {
  const n = node && 'range' in node ? node : node && 'key' in node ? ((node.key as Node) ?? (node.value as Node)) : undefined;
  const off = n?.range?.[0] ?? 0;
  const pos = ctx.lc.linePos(off);
  ctx.problems.push({ file: ctx.file, line: pos.line, col: pos.col + colOffset, message });
}

function keysOf(ctx: Ctx, map: YAMLMap, allowed: string[], where: string): void {
  for (const p of map.items) {
    const k = isScalar(p.key) ? String(p.key.value) : '?';
    if (!allowed.includes(k)) at(ctx, p.key as Node, `unknown key '${k}' in ${where}; did you mean '${nearestWords(k, allowed, 1)[0]}'? (keys: ${allowed.join(', ')})`);
  }
}

/** Exact bits of a number in a float format, or undefined if not representable. */
function floatBits(f: FloatFormat, v: unknown): bigint | undefined {
  let x: number;
  if (typeof v === 'number') x = v;
  else if (typeof v === 'string' && /^[-+]?\.?(inf|infinity)$/i.test(v)) x = v.startsWith('-') ? -Infinity : Infinity;
  else if (typeof v === 'string' && /^[-+]?\.?nan$/i.test(v)) return BigInt(f.canonicalNaN);
  else return undefined;
  if (f.bits === 64) {
    const b = new BigUint64Array(new Float64Array([x]).buffer)[0]!;
    return b;
  }
  if (!f.hasInf && !Number.isFinite(x)) return undefined;
  const bits = encoderFor(f)(x);
  const back = f.bits === 32 ? new Float32Array(new Uint32Array([bits]).buffer)[0]! : decodeTable(f)[bits]!;
  return Object.is(back, x) ? BigInt(bits) : undefined;
}

/** One element value: a hex string of exactly the element's digits, or a typed shorthand. */
function element(ctx: Ctx, node: Node | undefined, fmt: ElementFormat, what: string): bigint | undefined {
  const digits = fmt.bits / 4;
  const example = `0x${'0'.repeat(digits - 1)}1`;
  if (isScalar(node) && typeof node.value === 'string') {
    const s = node.value;
    if (!/^0x[0-9a-fA-F]+$/.test(s)) {
      at(ctx, node, `${what}: '${s}' is not a hex bit pattern; write 0x and exactly ${digits} hex digits for .${fmt.name} (e.g. ${example}), or a typed shorthand like {${fmt.name}: 1.5}`);
      return undefined;
    }
    if (s.length - 2 !== digits) {
      at(ctx, node, `${what}: '${s}' has ${s.length - 2} hex digit(s); .${fmt.name} elements take exactly ${digits} (e.g. ${example})`);
      return undefined;
    }
    return BigInt(s);
  }
  if (isMap(node) && node.items.length === 1) {
    const p = node.items[0]!;
    const k = isScalar(p.key) ? String(p.key.value) : '';
    if (k !== fmt.name) {
      at(ctx, node, `${what}: shorthand {${k}: ...} does not match the element type .${fmt.name}; write {${fmt.name}: value}`);
      return undefined;
    }
    const raw = (p.value as Node | null)?.toJSON?.() as unknown;
    const lanes = fmt.lanes === 1 ? [raw] : Array.isArray(raw) ? raw : undefined;
    if (!lanes || lanes.length !== fmt.lanes) {
      at(ctx, node, `${what}: .${fmt.name} packs ${fmt.lanes} lanes; write {${fmt.name}: [${Array(fmt.lanes).fill('v').join(', ')}]} (lane 0 first, in the low bits)`);
      return undefined;
    }
    const out: bigint[] = [];
    for (const v of lanes) {
      if (fmt.lane.kind === 'int') {
        const lf = fmt.lane;
        const n = typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : undefined;
        const lo = lf.signed ? -(1n << BigInt(lf.bits - 1)) : 0n;
        const hi = lf.signed ? (1n << BigInt(lf.bits - 1)) - 1n : (1n << BigInt(lf.bits)) - 1n;
        if (n === undefined || n < lo || n > hi) {
          at(ctx, node, `${what}: ${JSON.stringify(v)} is not a .${lf.name} integer in [${lo}, ${hi}]`);
          return undefined;
        }
        out.push(n < 0n ? n + (1n << BigInt(lf.bits)) : n);
      } else {
        const b = floatBits(fmt.lane, v);
        if (b === undefined) {
          at(ctx, node, `${what}: ${JSON.stringify(v)} is not exactly a .${fmt.lane.name} value; write the bit pattern in hex instead`);
          return undefined;
        }
        out.push(b);
      }
    }
    return joinLanes(fmt, out);
  }
  at(ctx, node, `${what}: expected a hex string like ${example} or a shorthand like {${fmt.name}: 1.5}`);
  return undefined;
}

function list(ctx: Ctx, node: Node | undefined, fmt: ElementFormat, what: string, length?: number, owner?: Node): bigint[] | undefined {
  if (!isSeq(node)) {
    const key = what.split(' ')[0];
    at(ctx, node ?? owner, node ? `${what} must be a list of elements, e.g. ["0x${'0'.repeat(fmt.bits / 4)}"]` : `${key}: is missing; add ${key}: ["0x${'0'.repeat(fmt.bits / 4)}"]`);
    return undefined;
  }
  if (length !== undefined && node.items.length !== length) {
    at(ctx, node, `${what} has ${node.items.length} elements; this instruction takes ${length} (one per vector lane)`);
  }
  const out = node.items.map((n, i) => element(ctx, n as Node, fmt, `${what}[${i}]`));
  return out.every((x) => x !== undefined) ? (out as bigint[]) : undefined;
}

function replicaLists(ctx: Ctx, node: Node | undefined, fmt: ElementFormat, what: string, length: number): bigint[][] | undefined {
  if (!isSeq(node) || node.items.length < 1 || node.items.length > 8) {
    at(ctx, node, `${what} must be a list of 1 to 8 replicas, each a list of ${length} element(s)`);
    return undefined;
  }
  const out = node.items.map((n, i) => list(ctx, n as Node, fmt, `${what}[${i}]`, length));
  return out.every((x) => x !== undefined) ? (out as bigint[][]) : undefined;
}

function variantOf(ctx: Ctx, node: Node | undefined): CaseVariant | undefined {
  if (!isScalar(node) || typeof node.value !== 'string') {
    at(ctx, node, 'instruction must be a PTX spelling without operands, e.g. atom.global.add.f32');
    return undefined;
  }
  const text = node.value;
  // The node's range starts at the first character of the (possibly quoted) scalar.
  const quote = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
  try {
    const p = parseInstruction(text);
    if (p.violations.length) {
      const v = p.violations[0]!;
      const valid = familyVariants(p.family).map((q) => variantId(p.family, q));
      at(ctx, node, `${text} is not a valid variant: ${v.rule}: ${v.text}; nearest valid spellings: ${nearestWords(p.id, valid, 3).join(', ')}`);
      return undefined;
    }
    return { family: p.family.id, q: p.q, ptx: p.ptx, id: p.id };
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    at(ctx, node, `${e.message}`, e.column + quote);
    return undefined;
  }
}

function lanesOf(q: CaseVariant['q']): number {
  const v = q.vec ?? '';
  return v === '' ? 1 : Number(v.slice(1));
}

const BULK = new Set(['cp.reduce.async.bulk', 'multimem.cp.reduce.async.bulk']);
const MULTI = new Set(['multimem.ld_reduce', 'multimem.st', 'multimem.red']);

/** Parses and validates one vector file's text; `idFile` is the path used in case ids. */
export function loadVectorText(file: string, text: string, idFile = file): { cases: Case[]; problems: InputProblem[] } {
  const lc = new LineCounter();
  const ctx: Ctx = { file, lc, problems: [] };
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  for (const e of doc.errors) {
    const pos = e.linePos?.[0] ?? lc.linePos(e.pos[0]);
    ctx.problems.push({ file, line: pos.line, col: pos.col, message: `YAML: ${e.message.split('\n')[0]}; fix the syntax (indentation, brackets, quotes)` });
  }
  if (doc.errors.length) return { cases: [], problems: ctx.problems };
  const root = doc.contents;
  if (!isMap(root)) {
    at(ctx, root as Node, 'a vector file is a map with instruction:, cite: (optional) and cases:');
    return { cases: [], problems: ctx.problems };
  }
  keysOf(ctx, root, FILE_KEYS, 'the file');
  const fileVariant = root.has('instruction') ? variantOf(ctx, root.get('instruction', true) as Node) : undefined;
  const citeNode = root.get('cite', true);
  const cite = isScalar(citeNode) ? String(citeNode.value) : undefined;
  const casesNode = root.get('cases', true) as Node | undefined;
  if (!isSeq(casesNode)) {
    at(ctx, casesNode ?? root, 'cases: must be a list of cases (each with name:, memory: or replicas:, operands:)');
    return { cases: [], problems: ctx.problems };
  }
  const names = new Map<string, number>();
  const cases: Case[] = [];
  for (const item of casesNode.items) {
    if (!isMap(item)) {
      at(ctx, item as Node, 'each case is a map with name:, memory: or replicas:, operands:');
      continue;
    }
    const before = ctx.problems.length;
    keysOf(ctx, item, CASE_KEYS, 'a case');
    const nameNode = item.get('name', true) as Node | undefined;
    const name = isScalar(nameNode) ? String(nameNode.value) : undefined;
    const line = lc.linePos(item.range?.[0] ?? 0).line;
    if (!name) at(ctx, item, 'case without name:; give each case a name of letters, digits, _ . -');
    else if (!NAME.test(name)) at(ctx, nameNode, `case name '${name}' may use only letters, digits, _ . and -`);
    else if (names.has(name)) at(ctx, nameNode, `duplicate case name '${name}' (first at line ${names.get(name)}); names must be unique in a file`);
    else names.set(name, lc.linePos(nameNode!.range![0]).line);
    const variant = item.has('instruction') ? variantOf(ctx, item.get('instruction', true) as Node) : fileVariant;
    if (!variant) {
      if (!item.has('instruction') && !root.has('instruction')) at(ctx, item, 'no instruction: for this case; give one at the top of the file or in the case');
      continue;
    }
    const fmt = elementFormat(variant.q.type ?? '');
    const n = lanesOf(variant.q);
    const ops = item.get('operands', true) as Node | undefined;
    if (ops !== undefined && !isMap(ops)) at(ctx, ops, 'operands: is a map like { b: [...] } (and c: for cas)');
    const opMap = isMap(ops) ? ops : undefined;
    if (opMap) keysOf(ctx, opMap, ['b', 'c'], 'operands');
    const need = (key: 'b' | 'c') => {
      const node = opMap?.get(key, true) as Node | undefined;
      if (!node) {
        at(ctx, ops ?? item, `${variant.ptx} needs operand ${key}: add operands: { ${key}: [${Array(n).fill(`"0x${'0'.repeat(fmt.bits / 4)}"`).join(', ')}] }`);
        return undefined;
      }
      return list(ctx, node, fmt, `operands.${key}`, n);
    };
    const input: { memory?: bigint[]; replicas?: bigint[][]; b?: bigint[]; c?: bigint[]; source?: bigint[]; space?: 'global' | 'shared' } = {};
    const fam = variant.family;
    if (MULTI.has(fam)) {
      if (item.has('memory')) at(ctx, item.get('memory', true) as Node, `${fam} cases give replicas: (one memory list per replica) instead of memory:`);
      const r = replicaLists(ctx, item.get('replicas', true) as Node | undefined, fmt, 'replicas', n);
      if (r) input.replicas = r;
      if (fam !== 'multimem.ld_reduce') {
        const b = need('b');
        if (b) input.b = b;
      }
    } else if (BULK.has(fam)) {
      const m = list(ctx, item.get('memory', true) as Node | undefined, fmt, 'memory (destination elements)', undefined, item);
      const s = list(ctx, item.get('source', true) as Node | undefined, fmt, 'source (shared-memory elements)', m?.length, item);
      if (m && (m.length * fmt.bits) % 128 !== 0) {
        at(ctx, item.get('memory', true) as Node, `bulk size must be a multiple of 16 bytes: ${m.length} x ${fmt.bits / 8} bytes is not; use ${128 / fmt.bits} elements or a multiple`);
      }
      if (m) input.memory = m;
      if (s) input.source = s;
    } else {
      const m = list(ctx, item.get('memory', true) as Node | undefined, fmt, 'memory', n, item);
      if (m) input.memory = m;
      const b = need('b');
      if (b) input.b = b;
      if (variant.q.op === 'cas') {
        const c = need('c');
        if (c) input.c = c;
      }
    }
    const sp = item.get('space', true) as Node | undefined;
    if (sp) {
      const v = isScalar(sp) ? String(sp.value) : '';
      if (v !== 'global' && v !== 'shared') at(ctx, sp, `space: is 'global' or 'shared' (where generic addressing lands), not '${v}'`);
      else input.space = v;
    }
    let expect: CaseExpect | undefined;
    const ex = item.get('expect', true) as Node | undefined;
    if (ex) {
      if (!isMap(ex)) at(ctx, ex, 'expect: is a map with memory:, returned: or replicas:');
      else {
        keysOf(ctx, ex, ['memory', 'returned', 'replicas'], 'expect');
        const e: { memory?: bigint[]; returned?: bigint[]; replicas?: bigint[][] } = {};
        if (ex.has('memory')) e.memory = list(ctx, ex.get('memory', true) as Node, fmt, 'expect.memory', input.memory?.length);
        if (ex.has('returned')) {
          if (fam !== 'atom' && fam !== 'multimem.ld_reduce') at(ctx, ex.get('returned', true) as Node, `${fam} returns nothing; expect memory: (or replicas:) instead`);
          else e.returned = list(ctx, ex.get('returned', true) as Node, fmt, 'expect.returned', n);
        }
        if (ex.has('replicas')) e.replicas = replicaLists(ctx, ex.get('replicas', true) as Node, fmt, 'expect.replicas', n);
        expect = e;
      }
    }
    if (ctx.problems.length > before || !name) continue;
    cases.push({
      id: `${variant.id}/${idFile}:${name}`,
      variant,
      input,
      ...(expect ? { expect } : {}),
      origin: { kind: 'vectors', file: idFile, line, name },
      ...(cite ? { cite } : {}),
    });
  }
  return { cases, problems: ctx.problems };
}

/** Every *.yaml / *.yml under the given files and directories, sorted. */
export async function vectorFiles(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (p: string) => {
    const s = await stat(p);
    if (s.isDirectory()) {
      for (const e of (await readdir(p)).sort()) await walk(join(p, e));
    } else if (/\.ya?ml$/.test(p)) out.push(p);
  };
  for (const p of paths) await walk(p);
  return out;
}

/**
 * Loads vector files and directories. Case ids use paths relative to `idRoot` (the directory of the
 * directed library for its own files, the working directory for users').
 */
export async function loadVectors(paths: readonly string[], idRoot = process.cwd()): Promise<{ cases: Case[]; problems: InputProblem[] }> {
  const cases: Case[] = [];
  const problems: InputProblem[] = [];
  for (const f of await vectorFiles(paths)) {
    const r = loadVectorText(f, await readFile(f, 'utf8'), relative(idRoot, f));
    cases.push(...r.cases);
    problems.push(...r.problems);
  }
  return { cases, problems };
}

