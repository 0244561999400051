#!/usr/bin/env node
/**
 * `npm run setup:toolchain`: the second toolchain of the CPU job, Debian's CUDA 11.8 ptxas (with
 * its cuobjdump and nvdisasm) beside CUDA 13.0, for the toolchain matrix's tests
 * (tests/cli/matrix.test.ts) and the toolchain reproducers. `.ci/run` runs it between `npm ci` and
 * `npm test`; a developer runs it once. `npm test` itself installs nothing.
 *
 * It looks for $PTXAS_118, then <cache>/toolchains/cuda-11.8/usr/bin/ptxas (the cache folder of
 * --cache-dir's default: $XDG_CACHE_HOME/ptx-reduction-conformance or
 * ~/.cache/ptx-reduction-conformance). Where neither is there and apt-get is present, it downloads
 * the bookworm package `nvidia-cuda-toolkit` (84 MB; the `contrib non-free` components are added to
 * apt's sources where they are missing and this runs as root) and unpacks it into that folder; it
 * installs nothing over CUDA 13.0. It exits 0 either way: without 11.8 the tests that need it skip,
 * saying why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const xdg = process.env.XDG_CACHE_HOME;
const cache = join(xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.cache'), 'ptx-reduction-conformance', 'toolchains', 'cuda-11.8');
const target = join(cache, 'usr', 'bin', 'ptxas');
const say = (s) => console.log(`ensure-toolchain: ${s}`);
const version = (p) => spawnSync(p, ['--version'], { encoding: 'utf8' }).stdout?.match(/release [\d.]+, V[\d.]+/)?.[0];

for (const p of [process.env.PTXAS_118, target].filter(Boolean)) {
  if (existsSync(p) && version(p)) {
    say(`ptxas 11.8 at ${p} (${version(p)})`);
    process.exit(0);
  }
}
const has = (c) => spawnSync('sh', ['-c', `command -v ${c}`], { encoding: 'utf8' }).status === 0;
if (!has('apt-get') || !has('dpkg')) {
  say(`no ptxas 11.8 (${target}) and no apt-get/dpkg to fetch Debian's; the tests that need a second toolchain will skip. docs/testing.md says how to get one; PTXAS_118 names it`);
  process.exit(0);
}
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
try {
  const known = () => spawnSync('apt-cache', ['show', 'nvidia-cuda-toolkit'], { encoding: 'utf8' }).status === 0;
  if (!known()) {
    if (!isRoot) {
      say("apt does not know nvidia-cuda-toolkit (Debian's contrib non-free components) and this is not root; the tests that need ptxas 11.8 will skip. docs/testing.md says how to add them");
      process.exit(0);
    }
    const codename = spawnSync('sh', ['-c', '. /etc/os-release && echo $VERSION_CODENAME'], { encoding: 'utf8' }).stdout.trim() || 'bookworm';
    say(`adding Debian's contrib non-free components for ${codename} (/etc/apt/sources.list.d/ptxconf-nonfree.sources) and updating apt`);
    writeFileSync('/etc/apt/sources.list.d/ptxconf-nonfree.sources', `Types: deb\nURIs: http://deb.debian.org/debian\nSuites: ${codename}\nComponents: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`);
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (!known()) throw new Error(`apt still does not know nvidia-cuda-toolkit for ${codename}`);
  }
  const dl = join(cache, '..', 'download-11.8');
  rmSync(dl, { recursive: true, force: true });
  mkdirSync(dl, { recursive: true });
  say('downloading nvidia-cuda-toolkit (84 MB) with apt-get download; unpacking with dpkg -x (nothing is installed)');
  // apt warns that _apt cannot read a root-owned folder and downloads unsandboxed: harmless here
  execFileSync('apt-get', ['download', '-qq', 'nvidia-cuda-toolkit'], { cwd: dl, stdio: ['ignore', 'ignore', 'pipe'], env });
  const deb = readdirSync(dl).find((f) => f.endsWith('.deb'));
  if (!deb) throw new Error('apt-get download left no .deb');
  mkdirSync(cache, { recursive: true });
  execFileSync('dpkg', ['-x', join(dl, deb), cache], { stdio: 'inherit' });
  rmSync(dl, { recursive: true, force: true });
  const v = version(target);
  if (!v) throw new Error(`${target} does not run`);
  say(`ptxas ${v} at ${target}`);
} catch (e) {
  say(`could not get ptxas 11.8 (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); the tests that need it will skip`);
}
