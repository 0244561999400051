/**
 * gen:litmus: writes cases/litmus/matrix/*.litmus, the message-passing shape (MP) built from `atom`
 * and `red` over the matrix issue 25 asks for: each op class, each sem, each scope including
 * .cluster; the two threads in one CTA, in two CTAs of one cluster, or in two clusters; the flag in
 * global memory or in the writer's or reader's CTA's shared memory (.shared::cluster from the other
 * CTA). Each file states its intent, derived by `intent()` below from the text of chapter 8 (NOT by
 * calling the model). `npm run gen:litmus` rewrites the folder; tests/memory-model/corpus.test.ts
 * checks that the committed files are exactly what `matrixFiles()` returns.
 *
 * Two blocks, deduplicated by name (the op of a block-B writer rotates through its classes):
 *  A. op class x sem x scope: every op class of atom (add, bit set and/or/xor, min/max, exch, cas,
 *     inc) with .relaxed/.release/.acq_rel and of red (add, bit set, min/max, inc) with
 *     .relaxed/.release, at each scope; two CTAs of one cluster, flag global, reader atom.acquire at
 *     the same scope.
 *  B. placement x flag memory x scope x reader: writer atom.release or red.release; reader
 *     atom/ld .relaxed/.acquire at the same scope; the 6 placements of the flag.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const MATRIX_DIR = join(import.meta.dirname, '../cases/litmus/matrix');

type Scope = 'cta' | 'cluster' | 'gpu' | 'sys';
type Placement = 'same-cta' | 'same-cluster' | 'other-cluster';
/** Where the flag lives: global, or shared memory of the writer's / reader's CTA (one CTA when same-cta). */
type Mem = 'global' | 'shared' | 'shared-writer' | 'shared-reader';

interface WriterOp {
  op: string;
  type: string;
  init: number;
  args: string;
} // the write takes `init` to 1
/** Each op class with the ops it rotates through; each takes the flag from `init` to 1. */
const CLASSES: Record<string, WriterOp[]> = {
  add: [{ op: 'add', type: 'u32', init: 0, args: '1' }],
  bits: [
    { op: 'or', type: 'b32', init: 0, args: '1' },
    { op: 'and', type: 'b32', init: 3, args: '1' },
    { op: 'xor', type: 'b32', init: 0, args: '1' },
  ],
  minmax: [
    { op: 'max', type: 'u32', init: 0, args: '1' },
    { op: 'min', type: 'u32', init: 5, args: '1' },
  ],
  exch: [{ op: 'exch', type: 'b32', init: 0, args: '1' }],
  cas: [{ op: 'cas', type: 'b32', init: 0, args: '0, 1' }],
  inc: [{ op: 'inc', type: 'u32', init: 0, args: '5' }], // (old >= 5) ? 0 : old + 1
};
/** 9.7.13.6: red has no exch or cas. */
const RED_CLASSES = ['add', 'bits', 'minmax', 'inc'];
const ATOM_CLASSES = ['add', 'bits', 'minmax', 'exch', 'cas', 'inc'];
/** Identity read-modify-writes for an atom reader (the flag keeps its value). */
const READER_OPS = [
  { op: 'add', type: 'u32', arg: '0' },
  { op: 'or', type: 'b32', arg: '0' },
  { op: 'max', type: 'u32', arg: '0' },
  { op: 'xor', type: 'b32', arg: '0' },
];
const SCOPES: Scope[] = ['cta', 'cluster', 'gpu', 'sys'];
const PLACEMENTS: { p: Placement; mems: Mem[] }[] = [
  { p: 'same-cta', mems: ['global', 'shared'] },
  { p: 'same-cluster', mems: ['global', 'shared-writer', 'shared-reader'] },
  { p: 'other-cluster', mems: ['global'] }, // 8.3: shared memory is reachable only from its cluster
];

export interface Case {
  writer: { instr: 'atom' | 'red'; sem: 'relaxed' | 'release' | 'acq_rel'; op: WriterOp };
  reader: { instr: 'atom' | 'ld'; sem: 'relaxed' | 'acquire'; op?: (typeof READER_OPS)[number] };
  scope: Scope;
  placement: Placement;
  mem: Mem;
}

/** Does a strong operation's scope include the other thread (8.5)? Both threads are on GPU 0. */
function scopeIncludesOther(scope: Scope, p: Placement): boolean {
  if (scope === 'cta') return p === 'same-cta'; // .cta: the threads of the same CTA
  if (scope === 'cluster') return p !== 'other-cluster'; // .cluster: the threads of the same cluster
  return true; // .gpu and .sys: every thread of the device (and beyond)
}

const PLACE_WORDS: Record<Placement, string> = {
  'same-cta': 'both threads are in CTA 0',
  'same-cluster': 'the threads are in CTAs 0 and 1 of cluster 0',
  'other-cluster': 'the threads are in CTA 0 of cluster 0 and CTA 1 of cluster 1',
};

/**
 * The intent, from the text: forbidden exactly when the flag write is a release pattern (8.8 item 1:
 * a memory operation with .release or .acq_rel; a red is a write, 8.4), the flag read an acquire
 * pattern (8.8 item 1: .acquire; the read is never a red, 8.8 note / 8.11.1), the two are morally
 * strong (8.7: both strong, each scope includes the other thread (8.5), one generic-proxy location,
 * fully overlapping), and the read observes the write (the condition: r0 == 1). Then the patterns
 * synchronize (8.9.4 item 4), the data write precedes the data read in causality order, and 8.10.6
 * forbids reading the initial x. Otherwise nothing orders them: allowed.
 */
export function intent(c: Case): { verdict: 'forbidden' | 'allowed'; because: string } {
  const w = `${c.writer.instr}.${c.writer.sem}.${c.scope}`;
  const r = `${c.reader.instr}.${c.reader.sem}.${c.scope}`;
  const release = c.writer.sem === 'release' || c.writer.sem === 'acq_rel';
  const acquire = c.reader.sem === 'acquire';
  const strong = scopeIncludesOther(c.scope, c.placement);
  if (!release)
    return {
      verdict: 'allowed',
      because: `the relaxed ${c.writer.instr} on the flag forms no release pattern (8.8), so nothing orders the write of x before its read (8.9.4, 8.10.6)`,
    };
  if (!acquire)
    return {
      verdict: 'allowed',
      because: `the relaxed ${c.reader.instr} of the flag forms no acquire pattern (8.8), so nothing orders the write of x before its read (8.9.4, 8.10.6)`,
    };
  if (!strong)
    return {
      verdict: 'allowed',
      because: `${PLACE_WORDS[c.placement]}, and .${c.scope} scope does not include the other thread (8.5), so ${w} and ${r} are not morally strong (8.7) and do not synchronize (8.9.4 item 4); nothing orders x, 8.10.6`,
    };
  return {
    verdict: 'forbidden',
    because: `${PLACE_WORDS[c.placement]}, so .${c.scope} scope includes both (8.5); ${w} is a release pattern and ${r} an acquire pattern (8.8), morally strong (8.7), so when the read observes the write they synchronize (8.9.4 item 4) and the read of x cannot return the initial value, 8.10.6 Causality`,
  };
}

const MEM_WORDS: Record<Mem, string> = { global: 'global', shared: 'shared', 'shared-writer': 'shared-writer', 'shared-reader': 'shared-reader' };

export function caseName(c: Case): string {
  const w = `${c.writer.instr}.${c.writer.sem}.${c.scope}.${c.writer.op.op}`;
  const r = c.reader.instr === 'atom' ? `atom.${c.reader.sem}.${c.scope}.${c.reader.op!.op}` : `ld.${c.reader.sem}.${c.scope}`;
  return `MP+${w}+${r}+${c.placement}+${MEM_WORDS[c.mem]}`;
}

/** The .litmus text of one case. */
export function render(c: Case): string {
  const [cta1, cluster1] = c.placement === 'same-cta' ? [0, 0] : c.placement === 'same-cluster' ? [1, 0] : [1, 1];
  const init = c.writer.op.init;
  // the flag's space as each thread names it
  const owner = c.mem === 'shared-writer' || c.mem === 'shared' ? 0 : 1;
  const wSpace = c.mem === 'global' ? 'global' : owner === 0 ? 'shared::cta' : 'shared::cluster';
  const rSpace = c.mem === 'global' ? 'global' : owner === 1 || c.placement === 'same-cta' ? 'shared::cta' : 'shared::cluster';
  const decl = c.mem === 'global' ? `flag=${init};` : `flag @ shared cta ${owner},cluster 0,gpu 0 = ${init};`;
  const { op, type, args } = c.writer.op;
  const wIns =
    c.writer.instr === 'red'
      ? `red.${c.writer.sem}.${c.scope}.${wSpace}.${op}.${type} flag, ${args}`
      : `atom.${c.writer.sem}.${c.scope}.${wSpace}.${op}.${type} r9, flag, ${args}`;
  const rIns =
    c.reader.instr === 'ld'
      ? `ld.${c.reader.sem}.${c.scope}.${rSpace}.u32 r0, flag`
      : `atom.${c.reader.sem}.${c.scope}.${rSpace}.${c.reader.op!.op}.${c.reader.op!.type} r0, flag, ${c.reader.op!.arg}`;
  const rows = [
    [`P0@cta 0,cluster 0,gpu 0`, `P1@cta ${cta1},cluster ${cluster1},gpu 0`],
    ['st.weak x, 1', rIns],
    [wIns, 'ld.weak r1, x'],
  ];
  const w0 = Math.max(...rows.map((r) => r[0]!.length));
  const w1 = Math.max(...rows.map((r) => r[1]!.length));
  const it = intent(c);
  return [
    `PTX ${caseName(c)}`,
    `(* intent: ${it.verdict} because ${it.because} *)`,
    `(* generated by scripts/gen-litmus.ts (npm run gen:litmus); do not edit *)`,
    '{',
    'x=0;',
    decl,
    '}',
    ...rows.map((r) => ` ${r[0]!.padEnd(w0)} | ${r[1]!.padEnd(w1)} ;`),
    'exists (P1:r0 == 1 /\\ P1:r1 == 0)',
    '',
  ].join('\n');
}

/** Every case of the matrix, deduplicated by name, in a stable order. */
export function matrixCases(): Case[] {
  const out = new Map<string, Case>();
  const add = (c: Case) => {
    const n = caseName(c);
    if (!out.has(n)) out.set(n, c);
  };
  // A. op class x sem x scope
  for (const instr of ['atom', 'red'] as const) {
    (instr === 'atom' ? ATOM_CLASSES : RED_CLASSES).forEach((cls, ci) => {
      const sems = instr === 'atom' ? (['relaxed', 'release', 'acq_rel'] as const) : (['relaxed', 'release'] as const);
      sems.forEach((sem, si) =>
        SCOPES.forEach((scope, sc) => {
          const ops = CLASSES[cls]!;
          add({
            writer: { instr, sem, op: ops[(si + sc) % ops.length]! },
            reader: { instr: 'atom', sem: 'acquire', op: READER_OPS[(ci + si + sc) % READER_OPS.length]! },
            scope,
            placement: 'same-cluster',
            mem: 'global',
          });
        }),
      );
    });
  }
  // B. placement x flag memory x scope x reader, writer atom.release / red.release
  const seen = new Set<string>(); // block A already has the same-cluster/global/atom.acquire row
  for (const c of out.values()) if (c.writer.sem === 'release') seen.add(`${c.writer.instr}|${c.scope}|atom.acquire|${c.placement}|${c.mem}`);
  let ka = 0,
    kr = 0,
    kd = 0;
  for (const { p, mems } of PLACEMENTS)
    for (const mem of mems)
      for (const scope of SCOPES) {
        for (const instr of ['atom', 'red'] as const) {
          for (const [rInstr, rSem] of [
            ['atom', 'relaxed'],
            ['atom', 'acquire'],
            ['ld', 'relaxed'],
            ['ld', 'acquire'],
          ] as const) {
            if (seen.has(`${instr}|${scope}|${rInstr}.${rSem}|${p}|${mem}`)) continue;
            const classes = instr === 'atom' ? ATOM_CLASSES : RED_CLASSES;
            const cls = CLASSES[classes[(instr === 'atom' ? ka++ : kr++) % classes.length]!]!;
            const op = cls[(SCOPES.indexOf(scope) + mems.indexOf(mem)) % cls.length]!;
            add({
              writer: { instr, sem: 'release', op },
              reader: rInstr === 'atom' ? { instr: 'atom', sem: rSem, op: READER_OPS[kd++ % READER_OPS.length]! } : { instr: 'ld', sem: rSem },
              scope,
              placement: p,
              mem,
            });
          }
        }
      }
  return [...out.values()];
}

/** File name -> text: what `npm run gen:litmus` writes. */
export function matrixFiles(): Map<string, string> {
  return new Map(matrixCases().map((c) => [`${caseName(c)}.litmus`, render(c)]));
}

if (process.argv[1]?.endsWith('gen-litmus.ts')) {
  const files = matrixFiles();
  mkdirSync(MATRIX_DIR, { recursive: true });
  for (const f of readdirSync(MATRIX_DIR)) if (f.endsWith('.litmus') && !files.has(f)) rmSync(join(MATRIX_DIR, f));
  for (const [f, text] of files) writeFileSync(join(MATRIX_DIR, f), text);
  const forbidden = [...matrixCases()].filter((c) => intent(c).verdict === 'forbidden').length;
  console.log(`gen:litmus: ${files.size} files in cases/litmus/matrix/ (${forbidden} forbidden, ${files.size - forbidden} allowed by intent)`);
}
