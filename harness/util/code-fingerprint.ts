/**
 * A hash of the harness's own code, for caches of what that code computes (the catalog): the
 * bundle file this module was built into (scripts/gpu/pack.mjs), else every file under harness/ and
 * cases/generators/ (the TypeScript sources, under tsx). Worked out once per process (about 20 ms for harness/).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

let memo: string | undefined;

function filesUnder(dir: string, out: string[]): string[] {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) filesUnder(p, out);
    else if (d.isFile()) out.push(p);
  }
  return out;
}

export function codeFingerprint(): string {
  if (memo) return memo;
  const self = fileURLToPath(import.meta.url);
  const h = createHash('sha256');
  if (self.endsWith('.mjs')) h.update(readFileSync(self));
  else {
    // harness/, and the generators under cases/ it runs (their cases are cached too)
    const root = dirname(dirname(self));
    const generators = join(dirname(root), 'cases', 'generators');
    for (const f of [...filesUnder(root, []), ...(existsSync(generators) ? filesUnder(generators, []) : [])].sort())
      h.update(`\0${relative(root, f)}\0`).update(readFileSync(f));
  }
  return (memo = h.digest('hex'));
}
