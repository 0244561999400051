/**
 * The catalog cache (`<cacheDir>/catalog/`): a whole selection of catalog entries kept in the
 * shared-parts JSON form (util/shared-json.ts), keyed by everything the enumeration reads: the
 * harness's code (util/code-fingerprint.ts), the spec edition, the target, the PTX ISA version and the
 * selection's options. The gpu backend's plan uses it (its 17,936 sm_90 variants, and the multicast
 * families' it skips), and the CPU run's whole catalog (catalog/select.ts). Read back, the 67,828-entry
 * sm_90 catalog takes about 0.3 s here against 3-4 s to enumerate; writing it costs about 1.5 s (every
 * object of the catalog encoded), so both write it once the caller has given the event loop a turn
 * (writeLater), not before their work starts. tests/catalog/cache.test.ts holds the read-back entries
 * equal to the enumerated ones.
 *
 * A file that does not parse, or holds another key, is enumerated again and rewritten (temporary
 * name, then rename); a directory that cannot be written only costs the enumeration. The newest
 * KEEP files are kept.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeFingerprint } from '../util/code-fingerprint.js';
import { type SharedJson, decodeShared, encodeShared } from '../util/shared-json.js';
import { specEdition } from './editions.js';
import type { CatalogEntry } from './enumerate.js';

const FORMAT = 1;
const KEEP = 8;

/** What a cached selection is keyed by, beside the code and the edition. */
export type CatalogKey = Record<string, string | boolean | readonly string[] | undefined>;

function place(dir: string, key: CatalogKey): { file: string; keyText: string } {
  const keyText = JSON.stringify({ format: FORMAT, code: codeFingerprint(), edition: specEdition(), ...key });
  const name = createHash('sha256').update(keyText).digest('hex').slice(0, 32);
  return { file: join(dir, 'catalog', `${name}.json`), keyText };
}

/** The entries cached under `key` in `dir`, or undefined (none, another key, or a file that does not read back). */
export function readCachedCatalog(dir: string, key: CatalogKey): CatalogEntry[] | undefined {
  const { file, keyText } = place(dir, key);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const o = JSON.parse(text) as { key: string; value: SharedJson };
    if (o.key !== keyText) return undefined;
    const v = decodeShared(o.value);
    return Array.isArray(v) ? (v as CatalogEntry[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `entries` under `key` in `dir` (a directory that cannot be written is left as it is). */
export function writeCachedCatalog(dir: string, key: CatalogKey, entries: readonly CatalogEntry[]): void {
  const { file, keyText } = place(dir, key);
  try {
    mkdirSync(join(dir, 'catalog'), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ key: keyText, value: encodeShared(entries) }));
    renameSync(tmp, file);
    const files = readdirSync(join(dir, 'catalog'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => ({ f: join(dir, 'catalog', f), t: statSync(join(dir, 'catalog', f)).mtimeMs }))
      .sort((a, b) => b.t - a.t);
    for (const old of files.slice(KEEP)) rmSync(old.f, { force: true });
  } catch {
    // a read-only or full cache directory: the next run enumerates again
  }
}

/**
 * The entries of `make()`, read from the cache where `dir` holds them, else made and kept there;
 * `writeLater`: kept once the caller has given the event loop a turn (the gpu backend's plan, whose
 * modules start compiling first: writing the plan's 29,000 entries takes 0.5-0.7 s).
 */
export function cachedCatalog(dir: string | undefined, key: CatalogKey, make: () => CatalogEntry[], writeLater = false): CatalogEntry[] {
  if (!dir) return make();
  const hit = readCachedCatalog(dir, key);
  if (hit) return hit;
  return keep(dir, key, make(), writeLater);
}

/** cachedCatalog, for an enumeration that gives the event loop turns. */
export async function cachedCatalogAsync(
  dir: string | undefined,
  key: CatalogKey,
  make: () => Promise<CatalogEntry[]>,
  writeLater = false,
): Promise<CatalogEntry[]> {
  if (!dir) return make();
  const hit = readCachedCatalog(dir, key);
  if (hit) return hit;
  return keep(dir, key, await make(), writeLater);
}

function keep(dir: string, key: CatalogKey, made: CatalogEntry[], writeLater: boolean): CatalogEntry[] {
  if (writeLater) setTimeout(() => writeCachedCatalog(dir, key, made), 0);
  else writeCachedCatalog(dir, key, made);
  return made;
}
