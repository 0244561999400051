/**
 * Third-party inputs some tests read and the repository does not carry: Dat3M's PTX litmus corpus
 * (scripts/peer-corpus.mjs finds it: PTXCONF_PEERS, ../shared beside the repository in CI, or what
 * `npm run setup:peers` fetched) and the PTX ISA excerpts the catalog quotes (PTXCONF_PTX_SPEC, or
 * ../shared/ptx-spec and ../shared/ptx-spec-newer in CI). Where one is absent, the tests that need it
 * skip and say why, once, with what to do.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { locatePeers } from '../../scripts/peer-corpus.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..');
const warned = new Set<string>();
function skipNote(what: string, reason: string): void {
  if (warned.has(what)) return;
  warned.add(what);
  console.warn(`[skip] ${what}: ${reason}`);
}

const peers = locatePeers();
/** The peer corpus's folder (litmus/, PTXv7_5-expected.csv), or undefined (the reason is printed). */
export function peerRoot(what = 'tests of the Dat3M peer corpus'): string | undefined {
  if (!peers.root) skipNote(what, peers.reason!);
  return peers.root;
}

/**
 * The folder holding the PTX ISA excerpts (ptx-spec/, ptx-spec-newer/ and, where given, ptx-isa-extra/):
 * PTXCONF_PTX_SPEC, else ../shared beside the repository; undefined where neither has ptx-spec/.
 */
export function specRoot(what = 'tests that read the PTX ISA excerpts'): string | undefined {
  const given = process.env.PTXCONF_PTX_SPEC;
  const dir = given ? resolve(given) : join(ROOT, '..', 'shared');
  if (existsSync(join(dir, 'ptx-spec', 'atom.md'))) return dir;
  skipNote(
    what,
    `${given ? `PTXCONF_PTX_SPEC=${given} holds no ptx-spec/atom.md` : `no ../shared/ptx-spec beside this checkout (${dir})`}; the PTX ISA text is not kept in the repository: CI provides the excerpts there, or set PTXCONF_PTX_SPEC to a folder holding ptx-spec/ and ptx-spec-newer/ (the excerpts as CI has them)`,
  );
  return undefined;
}

/** A spec excerpt by the path a citation gives (relative to ptx-spec/: 'atom.md', '../ptx-spec-newer/red-async.md'). */
export function specText(file: string, root = specRoot()): string {
  if (!root) throw new Error('specText: no PTX ISA excerpts here (guard the test with specRoot())');
  return readFileSync(join(root, 'ptx-spec', file), 'utf8');
}

/** The excerpt files of ptx-spec/. */
export function specFiles(root = specRoot()): string[] {
  return root ? readdirSync(join(root, 'ptx-spec')).filter((f) => f.endsWith('.md')) : [];
}

/** Recorded runs name peer tests by their CI path (../shared/peers/dat3m-ptx/...): that test in the corpus found here (the path as given for anything else). */
export function recordedPath(file: string): string {
  const prefix = '../shared/peers/dat3m-ptx/';
  return file.startsWith(prefix) && peers.root ? join(peers.root, file.slice(prefix.length)) : file;
}
