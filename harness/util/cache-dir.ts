/**
 * Where the harness keeps what it can rebuild (`--cache-dir`): $XDG_CACHE_HOME/ptx-reduction-conformance,
 * else ~/.cache/ptx-reduction-conformance.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const CACHE_NAME = 'ptx-reduction-conformance';

/** The default cache directory (not created here). */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  // the XDG spec: a relative $XDG_CACHE_HOME is invalid and ignored
  if (xdg && xdg.startsWith('/')) return join(xdg, CACHE_NAME);
  return join(homedir(), '.cache', CACHE_NAME);
}

/** The --cache-dir value resolved, or the default. */
export function resolveCacheDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ? resolve(flag) : defaultCacheDir(env);
}
