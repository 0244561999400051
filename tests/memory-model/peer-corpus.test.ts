/**
 * The peer corpus is found, or its absence explained (scripts/peer-corpus.mjs), and `npm run
 * setup:peers` installs only the pinned files (scripts/setup-peers.mjs): a tarball whose contents
 * differ by one byte is refused and nothing is installed.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CORPUS_FILES, CORPUS_FOLDERS, DAT3M, corpusHash, corpusProblem, locatePeers } from '../../scripts/peer-corpus.mjs';
import { peerRoot } from '../helpers/third-party.js';

const root = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'peer-corpus-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const setup = (...args: string[]) => spawnSync(process.execPath, [join(root, 'scripts', 'setup-peers.mjs'), ...args], { encoding: 'utf8' });

describe('locating the peer corpus', () => {
  it('a PTXCONF_PEERS folder without the corpus: absent, saying which folder, why, and the set-up command; no other copy is used instead', () => {
    const empty = join(tmp, 'empty');
    mkdirSync(empty);
    const r = locatePeers({ PTXCONF_PEERS: empty });
    expect(r.root).toBeUndefined();
    expect(r.reason).toMatch(/PTXCONF_PEERS: .*empty holds no Dat3M corpus/);
    expect(r.reason).toMatch(/npm run setup:peers/);
    expect(locatePeers({ PTXCONF_PEERS: join(tmp, 'nowhere') }).reason).toMatch(/nowhere does not exist/);
  });
});

const found = peerRoot('the peer corpus hash and set-up tests (they copy the corpus)');
describe.skipIf(!found)('a copy is held to the pinned hash', () => {
  /** A Dat3M-shaped tree (as its tarball unpacks) of the corpus, with `edit` applied. */
  function tarball(name: string, edit?: (dir: string) => void): string {
    const top = join(tmp, name, `Dat3M-${DAT3M.commit}`);
    for (const f of CORPUS_FOLDERS) cpSync(join(found!, f), join(top, f), { recursive: true });
    for (const [mine, theirs] of Object.entries(CORPUS_FILES)) {
      mkdirSync(join(top, theirs, '..'), { recursive: true });
      cpSync(join(found!, mine), join(top, theirs));
    }
    mkdirSync(join(top, 'litmus', 'PTX', 'CADP'), { recursive: true });
    writeFileSync(join(top, 'litmus', 'PTX', 'CADP', 'left-out.litmus'), 'PTX left-out\n'); // liveness tests: not taken
    edit?.(top);
    const tgz = join(tmp, `${name}.tar.gz`);
    expect(spawnSync('tar', ['-czf', tgz, '-C', join(tmp, name), `Dat3M-${DAT3M.commit}`]).status).toBe(0);
    return tgz;
  }
  it('the copy found is the pinned one; the same with one byte added is not', () => {
    expect(corpusProblem(found!)).toBeUndefined();
    expect(corpusHash(found!)).toBe(DAT3M.sha256);
    const copy = join(tmp, 'copy');
    for (const f of CORPUS_FOLDERS) cpSync(join(found!, f), join(copy, f), { recursive: true });
    for (const f of Object.keys(CORPUS_FILES)) cpSync(join(found!, f), join(copy, f));
    expect(corpusProblem(copy)).toBeUndefined();
    appendFileSync(join(copy, 'PTXv7_5-expected.csv'), '\n');
    expect(corpusProblem(copy)).toMatch(/is not the pinned corpus \(SHA-256 /);
  });
  it('setup:peers --from a tarball: installs the pinned files (not the liveness tests); --verify accepts them', () => {
    const to = join(tmp, 'installed');
    const r = setup('--from', tarball('good'), '--to', to);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(corpusProblem(to)).toBeUndefined();
    expect(existsSync(join(to, 'litmus', 'PTX', 'CADP'))).toBe(false);
    expect(setup('--verify', to).status).toBe(0);
  });
  it('setup:peers --from a tarball with one litmus test changed: exit 2, the hashes named, nothing installed', () => {
    const to = join(tmp, 'refused');
    const r = setup(
      '--from',
      tarball('bad', (top) => appendFileSync(join(top, 'litmus', 'PTX', 'Manual', 'CoWW-R.litmus'), ' ')),
      '--to',
      to,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/not the pinned corpus: SHA-256 [0-9a-f]{64}, pinned 134038a554a5/);
    expect(existsSync(to)).toBe(false);
  });
});

describe('setup:peers on bad input', () => {
  it('a file that is not a tarball, an unknown option, a missing file: exit 2 with what to do', () => {
    const junk = join(tmp, 'junk.tar.gz');
    writeFileSync(junk, 'not a tarball');
    expect(setup('--from', junk, '--to', join(tmp, 'x'))).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/junk\.tar\.gz: not a readable \.tar\.gz/),
    });
    expect(setup('--frm', junk)).toMatchObject({ status: 2, stderr: expect.stringMatching(/unknown option --frm/) });
    expect(setup('--from', join(tmp, 'missing.tgz'))).toMatchObject({ status: 2, stderr: expect.stringMatching(/missing\.tgz: no such file/) });
  });
});
