/**
 * A hash of the harness's own code, for caches of what that code computes (the catalog): the
 * bundle file this module was built into (scripts/gpu/pack.mjs), else every file under harness/ and
 * cases/generators/ (the TypeScript sources, under tsx). Worked out once per process (about 20 ms for harness/).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesHash, sha256Hex } from './sha.js';

let memo: string | undefined;

export function codeFingerprint(): string {
  if (memo) return memo;
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith('.mjs')) return (memo = sha256Hex(readFileSync(self)));
  // harness/, and the generators under cases/ it runs (their cases are cached too)
  const root = dirname(dirname(self));
  return (memo = filesHash(root, [root, join(dirname(root), 'cases', 'generators')]));
}
