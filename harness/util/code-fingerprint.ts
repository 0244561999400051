/**
 * A hash of the harness's own code, for caches of what that code computes (the catalog): the
 * bundle's files (the `.mjs` files of the folder this module was built into, its entries and
 * chunks: scripts/conformance.cjs, scripts/gpu/pack.mjs), the same in every process of a run, else every file under harness/ and
 * cases/generators/ (the TypeScript sources, under tsx). Worked out once per process (about 20 ms for harness/).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesHash, sha256Hex } from './sha.js';

let memo: string | undefined;

export function codeFingerprint(): string {
  if (memo) return memo;
  const self = fileURLToPath(import.meta.url);
  if (/\.[cm]js$/.test(self)) return (memo = bundleHash(self)); // a bundle's entry, chunk or list.cjs
  // harness/, and the generators under cases/ it runs (their cases are cached too)
  const root = dirname(dirname(self));
  return (memo = filesHash(root, [root, join(dirname(root), 'cases', 'generators')]));
}

/** The bundle's `.mjs` files (the entries and their chunks, beside `self`): their names and bytes. */
function bundleHash(self: string): string {
  const dir = dirname(self);
  const names = readdirSync(dir)
    .filter((n) => n.endsWith('.mjs'))
    .sort();
  return sha256Hex(names.map((n) => `${n} ${sha256Hex(readFileSync(join(dir, n)))}`).join('\n'));
}
