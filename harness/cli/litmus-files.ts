/**
 * The litmus files a command is given (`litmus PATH...`, with the reference model or on the GPU):
 * one reader of the paths for both runners.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../util/paths.js';
import { UsageError } from '../util/errors.js';

/**
 * The litmus files the paths name, in order: a file as given, a folder's *.litmus files (its
 * subfolders too), sorted. A path that is not there, or a folder holding no .litmus file, is a
 * UsageError naming it. With no path, the package's cases/litmus/ (wherever the command is run from).
 */
export function litmusFiles(paths: readonly string[]): string[] {
  if (!paths.length) return litmusFiles([fromRoot('cases', 'litmus')]);
  const out: string[] = [];
  const walk = (p: string) => {
    if (statSync(p).isDirectory()) {
      for (const e of readdirSync(p).sort()) {
        const q = join(p, e);
        if (statSync(q).isDirectory() || e.endsWith('.litmus')) walk(q);
      }
    } else out.push(p);
  };
  for (const p of paths) {
    if (!existsSync(p)) throw new UsageError(`${p}: no such file or folder; give litmus files or folders (default cases/litmus/)`);
    const before = out.length;
    walk(p);
    if (out.length === before) throw new UsageError(`${p}: the folder holds no litmus test (looked for files named *.litmus in it and its subfolders); give a folder that holds some, or the test files themselves`);
  }
  return out;
}
