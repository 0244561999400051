/**
 * How to start a program of the harness as a child process: its bundled `.mjs` beside the module
 * asking (a bundle built by scripts/gpu/pack.mjs), else its TypeScript source under tsx; undefined
 * when neither is there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tsxImport } from './paths.js';

export function nodeChildCommand(dir: string, name: string): string[] | undefined {
  const mjs = join(dir, `${name}.mjs`);
  if (existsSync(mjs)) return [process.execPath, mjs];
  const ts = join(dir, `${name}.ts`);
  return existsSync(ts) ? [process.execPath, ...tsxImport(), ts] : undefined;
}
