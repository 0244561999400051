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
 * The files are util/keyed-cache.ts's: one that does not parse, or holds another key, is enumerated
 * again and rewritten; a directory that cannot be written only costs the enumeration.
 */
import { type CacheKey, KeyedCache } from '../util/keyed-cache.js';
import { type SharedJson, decodeShared, encodeShared } from '../util/shared-json.js';
import { specEdition } from './editions.js';
import type { CatalogEntry } from './enumerate.js';

/** What a cached selection is keyed by, beside the code and the edition. */
export type CatalogKey = CacheKey;

const files = new KeyedCache<CatalogEntry[]>('catalog', 1, 'json', {
  encode: (key, entries) => JSON.stringify({ key, value: encodeShared(entries) }),
  decode: (data) => {
    const o = JSON.parse(data.toString('utf8')) as { key: string; value: SharedJson };
    const v = decodeShared(o.value);
    return Array.isArray(v) ? { key: o.key, value: v as CatalogEntry[] } : undefined;
  },
});

/** The entries cached under `key` in `dir`, or undefined (none, another key, or a file that does not read back). */
export function readCachedCatalog(dir: string, key: CatalogKey): CatalogEntry[] | undefined {
  return files.read(dir, { edition: specEdition(), ...key });
}

/** Keeps `entries` under `key` in `dir` (a directory that cannot be written is left as it is). */
export function writeCachedCatalog(dir: string, key: CatalogKey, entries: readonly CatalogEntry[]): void {
  files.write(dir, { edition: specEdition(), ...key }, entries as CatalogEntry[]);
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
