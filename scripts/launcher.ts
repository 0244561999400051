/** The launcher `npm run conformance` runs in a checkout: scripts/conformance.cjs, or an older checkout's .mjs (the benchmarks' --repo). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export function launcher(dir: string): string {
  return existsSync(join(dir, 'scripts', 'conformance.cjs')) ? 'scripts/conformance.cjs' : 'scripts/conformance.mjs';
}
