/** Finds ptxas for tests that need it, or says why they are skipped. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Ptxas, ToolchainError, probePtxas } from '../../harness/backends/ptxas/toolchain.js';
import { defaultCacheDir } from '../../harness/util/cache-dir.js';

let found: Ptxas | string | undefined;

export async function ptxasOrReason(): Promise<Ptxas | string> {
  if (found !== undefined) return found;
  try {
    found = await probePtxas();
  } catch (e) {
    if (!(e instanceof ToolchainError)) throw e;
    found = e.message;
  }
  if (typeof found === 'string') console.warn(`[skip] ptxas tests skipped: ${found}`);
  return found;
}

/**
 * Debian's ptxas 11.8, the second toolchain (npm run setup:toolchain puts it in the cache folder):
 * $PTXAS_118, the cache folder's copy, or /tmp/ct118 (docs/testing.md); undefined where none is.
 */
export function ptxas118(): string | undefined {
  const cache = join(defaultCacheDir(), 'toolchains', 'cuda-11.8', 'usr', 'bin', 'ptxas');
  return [process.env.PTXAS_118, cache, '/tmp/ct118/x/usr/bin/ptxas'].find((p): p is string => !!p && existsSync(p));
}
