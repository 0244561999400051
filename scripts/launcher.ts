/**
 * How `npm run conformance` starts a checkout's launcher: the node arguments of its package.json's
 * script (scripts/conformance.cjs conformanceNodeArgs: V8 flags, then the launcher), or, in an older
 * checkout (the benchmarks' --repo) whose launcher does not say, its scripts/conformance.cjs or .mjs.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export function launcher(dir: string): string[] {
  const cjs = join(dir, 'scripts', 'conformance.cjs');
  if (!existsSync(cjs)) return ['scripts/conformance.mjs'];
  const { conformanceNodeArgs } = createRequire(import.meta.url)(cjs) as { conformanceNodeArgs?: (dir: string) => string[] };
  return conformanceNodeArgs ? conformanceNodeArgs(dir) : ['scripts/conformance.cjs'];
}
