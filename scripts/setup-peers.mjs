/**
 * `npm run setup:peers`: the peer corpus (Dat3M's PTX litmus tests and expected verdicts, MIT) for the
 * tests that compare our memory model with it. Fetches Dat3M at the pinned commit, keeps what the
 * project reads (scripts/peer-corpus.mjs: the litmus tests without the CADP liveness ones, the two
 * expected-verdict files, the licence), checks the SHA-256 of that set against the pinned one and only
 * then puts it in .cache/peers/dat3m-ptx (git-ignored). Nothing is fetched where a copy is found
 * already (PTXCONF_PEERS, or ../shared beside the repository in CI).
 *   node scripts/setup-peers.mjs                 fetch (codeload.github.com), check, install
 *   node scripts/setup-peers.mjs --from FILE     the same from a tarball of Dat3M you downloaded
 *   node scripts/setup-peers.mjs --verify DIR    check a copy: its hash against the pinned one
 * Exit 0 done (or already there); 2 a wrong hash, a bad option or no network (what to do is said).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { CACHE_DIR, CORPUS_FILES, CORPUS_FOLDERS, DAT3M, corpusHash, corpusProblem, locatePeers } from './peer-corpus.mjs';

const url = `https://codeload.github.com/${DAT3M.repo}/tar.gz/${DAT3M.commit}`;

function fail(msg) {
  process.stderr.write(`setup:peers: ${msg}\n`);
  process.exit(2);
}

async function download(to) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    fail(`cannot fetch ${url} (${e.cause?.code ?? e.message}); download it elsewhere and run: node scripts/setup-peers.mjs --from FILE.tar.gz, or name a copy with PTXCONF_PEERS=DIR`);
  }
  if (!res.ok) fail(`${url} answered ${res.status} ${res.statusText}; download it elsewhere and run: node scripts/setup-peers.mjs --from FILE.tar.gz`);
  writeFileSync(to, Buffer.from(await res.arrayBuffer()));
}

/** Unpacks the selected set of a Dat3M tarball into `dest` (laid out as the corpus). */
function extract(tarball, dest) {
  const tmp = mkdtempSync(join(tmpdir(), 'dat3m-'));
  try {
    try {
      execFileSync('tar', ['-xzf', tarball, '-C', tmp], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      fail(`${tarball}: not a readable .tar.gz (${String(e.stderr ?? e.message).trim().split('\n')[0]}); give the tarball of ${url}`);
    }
    const tops = readdirSync(tmp);
    const top = tops.length === 1 ? join(tmp, tops[0]) : tmp;
    mkdirSync(dest, { recursive: true });
    for (const f of CORPUS_FOLDERS) {
      if (!existsSync(join(top, f))) fail(`${tarball}: no ${f}/ in it; is it Dat3M at ${DAT3M.commit}?`);
      cpSync(join(top, f), join(dest, f), { recursive: true });
    }
    for (const [to, from] of Object.entries(CORPUS_FILES)) {
      if (!existsSync(join(top, from))) fail(`${tarball}: no ${from} in it; is it Dat3M at ${DAT3M.commit}?`);
      cpSync(join(top, from), join(dest, to));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(argv) {
  const at = (name) => {
    const i = argv.indexOf(name);
    if (i < 0) return undefined;
    if (!argv[i + 1] || argv[i + 1].startsWith('--')) fail(`${name} needs a value`);
    return argv[i + 1];
  };
  const unknown = argv.filter((a, i) => a.startsWith('--') && !['--from', '--verify', '--to'].includes(a) && !['--from', '--verify', '--to'].includes(argv[i - 1]));
  if (unknown.length) fail(`unknown option ${unknown[0]}; it takes --from FILE.tar.gz, --verify DIR, --to DIR`);
  const verify = at('--verify');
  if (verify) {
    const p = corpusProblem(resolve(verify));
    if (p) fail(p);
    console.log(`${verify}: the pinned corpus (Dat3M ${DAT3M.commit}, SHA-256 ${DAT3M.sha256})`);
    return 0;
  }
  const dest = resolve(at('--to') ?? CACHE_DIR);
  const from = at('--from');
  if (!from && dest === CACHE_DIR) {
    const found = locatePeers();
    if (found.root) {
      console.log(`setup:peers: the peer corpus is here already (${found.via}: ${found.root}); nothing fetched`);
      return 0;
    }
  }
  const work = mkdtempSync(join(tmpdir(), 'setup-peers-'));
  try {
    let tarball = from ? resolve(from) : join(work, 'dat3m.tar.gz');
    if (from && !existsSync(tarball)) fail(`--from ${from}: no such file`);
    if (!from) {
      console.log(`setup:peers: fetching ${url}`);
      await download(tarball);
    }
    const staged = join(work, 'corpus');
    extract(tarball, staged);
    const got = corpusHash(staged);
    if (got !== DAT3M.sha256) fail(`the files fetched are not the pinned corpus: SHA-256 ${got}, pinned ${DAT3M.sha256} (Dat3M ${DAT3M.commit}); nothing was installed`);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dirname(dest), { recursive: true });
    cpSync(staged, dest, { recursive: true });
    console.log(`setup:peers: the peer corpus (Dat3M ${DAT3M.commit.slice(0, 12)}, SHA-256 checked) is in ${dest}`);
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then((c) => (process.exitCode = c));
