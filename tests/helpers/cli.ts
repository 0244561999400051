/** Runs the CLI in this process from the repository root (as users run it), collecting what it prints. */
import { join } from 'node:path';
import { type Io, main } from '../../harness/cli/main.js';

export const ROOT = join(import.meta.dirname, '..', '..');

export async function runAtRoot(args: readonly string[], columns = 200): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const io: Io = { out: (s) => out.push(s), err: (s) => out.push(s), isTTY: false, columns };
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    return { code: await main(args, io), out: out.join('\n') };
  } finally {
    process.chdir(cwd);
  }
}
