/**
 * Where a run's cases come from: the directed library (cases/vectors), users' vector files
 * (--vectors), the generators (--seed), or exactly one case by id (--case). Vector files are all
 * loaded and validated before any case runs; their problems come back together. (collectCases holds
 * every case; for big files see validateVectors / streamVectors in ./vectors.ts.)
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { filesHash } from '../util/sha.js';
import { DEFAULT_SEED, generateCases, parseGenId, representativeVariants } from '../../cases/generators/cases.js';
import type { Level } from '../../cases/generators/values.js';
import { parseInstruction } from '../catalog/parse.js';
import { families, familyPlugin } from '../registry/index.js';
import type { Case, CaseVariant, InputProblem } from './types.js';
import { findInFile, loadVectors } from './vectors.js';
import { fromRoot } from '../util/paths.js';

/** The repository's cases/ folder; from a bundle (one file, elsewhere), the package root's (util/paths.ts). */
export const CASES_DIR = ((here) => (existsSync(join(here, 'vectors')) ? here : fromRoot('cases')))(resolve(import.meta.dirname, '..', '..', 'cases'));
export const DIRECTED_DIR = join(CASES_DIR, 'vectors');

/** A hash of every file of the directed library (its path and bytes), once per process: what a cache of its cases is keyed by. */
export function directedFingerprint(): string {
  return (directedMemo ??= filesHash(DIRECTED_DIR, [DIRECTED_DIR]));
}
let directedMemo: string | undefined;

/** Generated cases per representative variant and level in a default run. */
export const GENERATED_PER_LEVEL: Readonly<Record<Level, number>> = { 1: 4, 2: 4, 3: 8 };

export interface CaseSelection {
  readonly cases: Case[];
  readonly problems: InputProblem[];
  /** Counts by source, for the closing summary. */
  readonly counts: { directed: number; vectors: number; generated: Record<Level, number> };
}

export function variantFromId(id: string): CaseVariant | undefined {
  try {
    const text = id.endsWith('(_)') ? `${id.slice(0, -3)} _, [a], b;` : id;
    const p = parseInstruction(text);
    if (p.violations.length) return undefined;
    return { family: p.family.id, q: p.q, ptx: p.ptx, id: p.id };
  } catch {
    return undefined;
  }
}

/** The default case set: directed library, user files, and generated cases for every representative variant. */
export async function collectCases(opts: {
  vectors?: readonly string[];
  seed: number;
  directed?: boolean;
  generated?: boolean;
  keep?: (variantId: string) => boolean;
}): Promise<CaseSelection> {
  const keep = opts.keep ?? (() => true);
  const problems: InputProblem[] = [];
  const cases: Case[] = [];
  let directed = 0;
  let vectors = 0;
  // (no spread-push: a file may hold millions of cases; a run over big files streams them instead,
  // with validateVectors and streamVectors)
  const load = async (paths: readonly string[], root: string): Promise<number> => {
    let n = 0;
    const r = await loadVectors(paths, root);
    for (const p of r.problems) problems.push(p);
    for (const c of r.cases) {
      if (!keep(c.variant.id)) continue;
      cases.push(c);
      n++;
    }
    return n;
  };
  if (opts.directed !== false && existsSync(DIRECTED_DIR)) directed = await load([DIRECTED_DIR], CASES_DIR);
  if (opts.vectors?.length) vectors = await load(opts.vectors, process.cwd());
  const generated: Record<Level, number> = { 1: 0, 2: 0, 3: 0 };
  if (opts.generated !== false) {
    for (const fam of families()) {
      for (const v of representativeVariants(fam)) {
        if (!keep(v.id)) continue;
        for (const level of [1, 2, 3] as Level[]) {
          const g = generateCases(v, opts.seed, level, GENERATED_PER_LEVEL[level]);
          generated[level] += g.length;
          for (const c of g) cases.push(c);
        }
      }
    }
  }
  return { cases, problems, counts: { directed, vectors, generated } };
}

/**
 * Exactly the case with this id: regenerated from its seed, or read from its vector file (a path
 * relative to the working directory, or to cases/ for the directed library).
 */
export async function findCase(id: string, extraVectors: readonly string[] = []): Promise<{ case?: Case; problems: InputProblem[]; why?: string }> {
  const gen = parseGenId(id);
  if (gen) {
    const v = variantFromId(gen.variant);
    if (!v) return { problems: [], why: `'${gen.variant}' is not a valid variant of the catalog` };
    if (gen.bytes !== undefined && (gen.level !== 3 || familyPlugin(v.family).shape.length(v.q).kind !== 'bulk' || gen.bytes <= 0 || gen.bytes % 16 !== 0))
      return { problems: [], why: `'${id}': a generated case with bytes= is a level-3 bulk reduction case of a positive multiple of 16 bytes` };
    return { case: generateCases(v, gen.seed, gen.level, 1, gen.index, gen.bytes)[0]!, problems: [] };
  }
  const m = /^([^/]+(?:\(_\))?)\/(.+):([A-Za-z0-9_.-]+)$/.exec(id);
  if (!m)
    return {
      problems: [],
      why: `'${id}' is not a case id; ids look like atom.global.add.f32/vectors/atom-f32.yaml:NAME or atom.global.add.f32/gen:seed=${DEFAULT_SEED}:level=1:i=0`,
    };
  const [, prefix, file, name] = m;
  const candidates = [resolve(file!), join(CASES_DIR, file!), ...extraVectors.map((d) => resolve(d, file!))];
  const path = candidates.find((p) => existsSync(p));
  if (!path) return { problems: [], why: `no vector file '${file}' (looked in ${candidates.join(', ')})` };
  // ids name the file as the run that printed them did: relative to the working directory where the
  // id's path is found from there, else to cases/ (the directed library's ids)
  const root = path === candidates[0] ? process.cwd() : path.startsWith(CASES_DIR) ? CASES_DIR : process.cwd();
  // Reads only as far as the case (a file may hold millions); problems elsewhere in the file do not
  // stop its replay. Not found: all the file's problems, which may be why.
  const r = await findInFile(path, root, name!);
  if (!r.case) return { problems: r.problems, why: r.problems.length ? `${file} has problems` : `no case '${name}' in ${file}` };
  // the id's variant must be the case's: another prefix would silently run a different case
  if (r.case.variant.id !== prefix) return { problems: [], why: `case '${name}' in ${file} is ${r.case.variant.id}, not ${prefix}: its id is ${r.case.id}` };
  return { case: r.case, problems: [] };
}
