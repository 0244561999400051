/**
 * sha256 as lowercase hex, and of a folder's files: the hashes the caches are keyed and checked by
 * (one call, no hash object: the verdict cache keys 58,000 entries and the cubin cache checks every
 * cubin at each run).
 */
import { createHash, hash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export const sha256Hex = (x: string | Buffer): string => hash('sha256', x, 'hex');

function filesUnder(dir: string, out: string[]): string[] {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) filesUnder(p, out);
    else if (d.isFile()) out.push(p);
  }
  return out;
}

/** sha256 of every file under `dirs` (those that exist), each as its path relative to `root` and its bytes, in path order. */
export function filesHash(root: string, dirs: readonly string[]): string {
  const h = createHash('sha256');
  const files = dirs.flatMap((d) => (existsSync(d) ? filesUnder(d, []) : [])).sort();
  for (const f of files) h.update(`\0${relative(root, f)}\0`).update(readFileSync(f));
  return h.digest('hex');
}
