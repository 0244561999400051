/**
 * Where the peer corpus is: Dat3M's PTX litmus tests and its expected verdicts (a third party's test
 * inputs, MIT; not kept in this repository). One place for the scripts and tests that read it:
 *   1. PTXCONF_PEERS, a folder holding a copy (litmus/PTX/..., PTXv7_5-expected.csv);
 *   2. ../shared/peers/dat3m-ptx beside the repository (CI provides it there);
 *   3. .cache/peers/dat3m-ptx, which `npm run setup:peers` fills (scripts/setup-peers.mjs).
 * Every copy is held to a SHA-256 of its files, pinned below with the commit it comes from, so the
 * tests judge the same 265 tests wherever they come from.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/** The pinned source: Dat3M at this commit; the hash is over the files CORPUS_FILES selects. */
export const DAT3M = {
  repo: 'hernanponcedeleon/Dat3M',
  commit: '30640123b88d4fc5ca01403f936d45c54d83a9c1',
  sha256: '134038a554a5794fdb99e6a6a404935e499f8da097afe6cb495632c8f28ba3ee',
};

/** The folder `npm run setup:peers` fills. */
export const CACHE_DIR = join(ROOT, '.cache', 'peers', 'dat3m-ptx');
/** CI's copy beside the repository. */
export const SHARED_DIR = join(ROOT, '..', 'shared', 'peers', 'dat3m-ptx');

/** What the project reads of Dat3M (the CADP liveness tests are left out): folder of the corpus -> folder in Dat3M's tree. */
export const CORPUS_FOLDERS = ['litmus/PTX/Barrier', 'litmus/PTX/Manual', 'litmus/PTX/Memalloy', 'litmus/PTX/Nvidia'];
/** Files of the corpus -> their path in Dat3M's tree. */
export const CORPUS_FILES = {
  'PTXv7_5-expected.csv': 'dartagnan/src/test/resources/PTXv7_5-expected.csv',
  'PTXv6_0-expected.csv': 'dartagnan/src/test/resources/PTXv6_0-expected.csv',
  LICENCE: 'LICENCE',
};

/** The hashed files of a copy, relative paths with '/', sorted; [] where the folder is missing. */
export function corpusFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split(sep).join('/'));
    }
  };
  for (const f of CORPUS_FOLDERS) if (existsSync(join(dir, f))) walk(join(dir, f));
  for (const f of Object.keys(CORPUS_FILES)) if (existsSync(join(dir, f))) out.push(f);
  return out.sort();
}

/** SHA-256 over each file's path and contents, in path order. */
export function corpusHash(dir) {
  const h = createHash('sha256');
  for (const f of corpusFiles(dir)) {
    const b = readFileSync(join(dir, f));
    h.update(`${f}\0${b.length}\0`);
    h.update(b);
  }
  return h.digest('hex');
}

/** Why `dir` is not a usable copy, or undefined when it is one (its hash is the pinned one). */
export function corpusProblem(dir) {
  if (!existsSync(dir)) return `${dir} does not exist`;
  if (!existsSync(join(dir, 'PTXv7_5-expected.csv')) || !existsSync(join(dir, 'litmus', 'PTX'))) return `${dir} holds no Dat3M corpus (no litmus/PTX/ and PTXv7_5-expected.csv)`;
  const got = corpusHash(dir);
  if (got !== DAT3M.sha256) return `${dir} is not the pinned corpus (SHA-256 ${got.slice(0, 16)}..., pinned ${DAT3M.sha256.slice(0, 16)}...: Dat3M ${DAT3M.commit.slice(0, 12)}); run npm run setup:peers to fetch the pinned one`;
  return undefined;
}

/** How to get the corpus, for skip reasons and errors. */
export const HOW_TO_GET = `npm run setup:peers fetches Dat3M ${DAT3M.commit.slice(0, 12)} (checked by its hash) into .cache/peers/dat3m-ptx, or PTXCONF_PEERS=DIR names a copy`;

/**
 * The corpus to use: `{ root, via }`, or `{ reason }` saying why there is none (every place tried)
 * and how to get it.
 */
export function locatePeers(env = process.env) {
  const tried = [];
  const places = env.PTXCONF_PEERS ? [[resolve(env.PTXCONF_PEERS), 'PTXCONF_PEERS']] : [];
  places.push([SHARED_DIR, '../shared beside the repository'], [CACHE_DIR, 'npm run setup:peers']);
  for (const [dir, via] of places) {
    const p = corpusProblem(dir);
    if (!p) return { root: dir, via };
    tried.push(`${via}: ${p}`);
    // a copy the user named and that is wrong is not silently replaced by another
    if (via === 'PTXCONF_PEERS') break;
  }
  return { reason: `the Dat3M peer corpus is not here (${tried.join('; ')}). ${HOW_TO_GET}` };
}
