/**
 * One folder per family: the shared machinery names no family. Every string literal in the
 * TypeScript files of the shared folders is checked against the registered family ids and heads;
 * a match (a `switch (v.family)` case, a set of family ids, `family === 'atom'`) fails with its
 * file:line. Ask `familyPlugin(id)` (harness/registry/index.ts) instead.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { families, familyPlugin } from '../../harness/registry/index.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every folder of harness/ but families/ (a new one is covered the day it appears), and the case generators. */
const SHARED = [
  ...readdirSync(join(ROOT, 'harness'))
    .filter((d) => d !== 'families' && statSync(join(ROOT, 'harness', d)).isDirectory())
    .sort()
    .map((d) => `harness/${d}`),
  'cases/generators',
];

/**
 * Files that may still name families, each with why. The lead removes an entry when its file has
 * moved to the plugin registry; what each should call instead is in the comment.
 */
const ALLOWLIST: readonly { readonly path: string; readonly why: string }[] = [
  // every other shared file asks the family registry (familyPlugin, gpuFamily) instead of naming a family
  // the litmus language: `atom` and `red` are its instructions' mnemonics (parsed, and an event's label),
  // as `ld`, `st` and `fence` are; the family registry's litmus parts give the values (registry/litmus.ts)
  {
    path: 'harness/memory-model/litmus-instructions.ts',
    why: "the litmus language's shared instructions: `red` is a barrier mode (bar.red), matched as the PTX spells it",
  },
  { path: 'harness/memory-model/run.ts', why: "an event's label in a trace ('atom' or 'red', as the litmus test spelled it), not a branch" },
  // host and peer memory are experiments on atom and red by design (their plans are the two families'
  // .global variants); to become parts of the atom and red plugins
  { path: 'harness/hostmem/plan.ts', why: "the host-memory plan: atom and red .global variants by class (to move into the families' plugins)" },
  { path: 'harness/hostmem/judge.ts', why: 'the host-memory job type names its two families (to move with the plan)' },
  { path: 'harness/peer/plan.ts', why: "the peer-memory filters: atom and red's .global variants (to move with the host-memory plan)" },
  {
    path: 'harness/catalog/spec-documents.ts',
    why: "the PTX ISA excerpts' section titles, four of which are instruction names ('atom', 'red'): data about the spec's documents that cite() reads (the core cites atom.md itself), never a branch on a family",
  },
];

export interface Hit {
  readonly file: string;
  readonly line: number;
  readonly literal: string;
}

/** The string literals of `text` (a TypeScript source) that equal one of `names`. */
export function familyLiterals(file: string, text: string, names: ReadonlySet<string>): Hit[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const hits: Hit[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && names.has(node.text)) {
      hits.push({ file, line: src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1, literal: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return hits;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (/\.(c|m)?tsx?$/.test(e) && !e.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const NAMES = new Set(families().flatMap((f) => [f.id, f.head]));
const allowed = (rel: string) => ALLOWLIST.some((a) => (a.path.endsWith('/') ? rel.startsWith(a.path) : rel === a.path));

describe('one folder per family', () => {
  it('the scanner finds a planted family name, and only string literals', () => {
    const text = [
      "// a comment naming 'atom' is not code",
      "import { x } from './atom.js';",
      'const k = `multimem.red`;',
      "if (v.family === 'multimem.ld_reduce') return 1;",
      "const s = 'atomic', t = `${f} red`;",
      "switch (f) { case 'cp.reduce.async.bulk': break; }",
    ].join('\n');
    const hits = familyLiterals('planted.ts', text, NAMES);
    expect(hits.map((h) => `${h.file}:${h.line} ${h.literal}`)).toEqual([
      'planted.ts:3 multimem.red',
      'planted.ts:4 multimem.ld_reduce',
      'planted.ts:6 cp.reduce.async.bulk',
    ]);
  });

  it('no shared folder names a family (outside the allowlist)', () => {
    const hits: Hit[] = [];
    for (const dir of SHARED) {
      for (const f of tsFiles(join(ROOT, dir))) {
        const rel = relative(ROOT, f).split('\\').join('/');
        if (allowed(rel)) continue;
        hits.push(...familyLiterals(rel, readFileSync(f, 'utf8'), NAMES));
      }
    }
    const where = hits.map((h) => `${h.file}:${h.line}: '${h.literal}' names a family; ask familyPlugin(id) (harness/registry/index.ts) instead`);
    expect(where).toEqual([]);
  });

  // A stale entry does not fail the suite (the files are other work's, migrating now); it is reported.
  it('reports allowlist entries whose files no longer name a family', () => {
    const stale = ALLOWLIST.filter((a) => {
      const p = join(ROOT, a.path);
      let files: string[];
      try {
        files = statSync(p).isDirectory() ? tsFiles(p) : [p];
      } catch {
        return true;
      }
      return !files.some((f) => familyLiterals(f, readFileSync(f, 'utf8'), NAMES).length > 0);
    });
    for (const a of stale) console.warn(`tests/families/layout.test.ts: ${a.path} (${a.why}) no longer names a family: remove it from ALLOWLIST`);
  });

  it('every family has a plugin whose catalog it is, and an unknown id is a clear error', () => {
    for (const f of families()) expect(familyPlugin(f.id).def).toBe(f);
    expect(() => familyPlugin('nosuch.family')).toThrow(/unknown instruction family 'nosuch.family'.*atom.*harness\/families\/index\.ts/);
  });

  it('each family folder holds its catalog and its plugin', () => {
    const dirs = readdirSync(join(ROOT, 'harness/families')).filter((d) => statSync(join(ROOT, 'harness/families', d)).isDirectory() && d !== 'shared');
    expect(dirs.length).toBe(families().length);
    for (const d of dirs) {
      expect(statSync(join(ROOT, 'harness/families', d, 'catalog.ts')).isFile(), d).toBe(true);
      expect(statSync(join(ROOT, 'harness/families', d, 'index.ts')).isFile(), d).toBe(true);
    }
  });
});
