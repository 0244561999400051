/** Runs the CLI in this process, collecting what it prints (as users run it, or from the repository root). */
import { join } from 'node:path';
import type { Io } from '../../harness/cli/io.js';
import { main } from '../../harness/cli/main.js';

export const ROOT = join(import.meta.dirname, '..', '..');

/** The CLI in this process: its exit code and the lines it printed (stdout and stderr in order). */
export async function runLines(args: readonly string[], columns = 200): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const io: Io = { out: (s) => out.push(s), err: (s) => out.push(s), isTTY: false, columns };
  return { code: await main(args, io), out };
}

/** The same from the repository root (paths in args relative to it), the lines joined. */
export async function runAtRoot(args: readonly string[], columns = 200): Promise<{ code: number; out: string }> {
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    const r = await runLines(args, columns);
    return { code: r.code, out: r.out.join('\n') };
  } finally {
    process.chdir(cwd);
  }
}
