#!/usr/bin/env node
/**
 * `npm run setup:browser`: the set-up step that gives the HTML report's browser test
 * (tests/report/html.test.ts) a headless Chromium; `.ci/run` runs it between `npm ci` and
 * `npm test`, and a developer runs it once. `npm test` itself installs nothing.
 *
 * It looks for $CHROMIUM_PATH, /usr/bin/chromium and /usr/bin/chromium-browser; where none is
 * there and this runs as root with apt-get (a CI container, a fresh machine), it installs Debian's
 * `chromium` package; otherwise it says what to do. It exits 0 either way (a missing browser makes
 * the browser test skip, saying why, not fail).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
const found = candidates.find((p) => existsSync(p));
if (found) {
  console.log(`ensure-browser: headless Chromium at ${found}`);
  process.exit(0);
}
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status === 0;
if (!isRoot || !hasApt) {
  console.log(
    `ensure-browser: no Chromium found (${candidates.join(', ')}) and ${!hasApt ? 'no apt-get' : 'not root'}, so the HTML browser test will skip. ` +
      `Install one (Debian/Ubuntu: sudo apt-get install chromium, then npm run setup:browser again) or point CHROMIUM_PATH at a Chromium or Chrome binary`,
  );
  process.exit(0);
}
console.log("ensure-browser: installing Debian's chromium package for the HTML report's browser test (apt-get; a minute or two)");
try {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  console.log(`ensure-browser: installed; ${existsSync('/usr/bin/chromium') ? '/usr/bin/chromium is there' : 'but /usr/bin/chromium is missing: the browser test will skip'}`);
} catch (e) {
  console.log(`ensure-browser: apt-get failed (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); the HTML browser test will skip`);
}
