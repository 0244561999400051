/**
 * Runs the CLI in this process against the stand-in launcher (tests/fixtures/standin-launcher.cts,
 * which emulates the kernels with the reference model), with extra environment for the run only.
 * The caller registers tsx's require hook (the launcher is TypeScript loaded with require).
 */
import { join } from 'node:path';
import type { Io } from '../../harness/cli/io.js';
import { main } from '../../harness/cli/main.js';

export const STANDIN_LAUNCHER = join(import.meta.dirname, '..', 'fixtures', 'standin-launcher.cts');

export async function runWithStandin(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const saved = { ...process.env };
  process.env.PTX_CONFORMANCE_ADDON = STANDIN_LAUNCHER;
  Object.assign(process.env, env);
  const out: string[] = [];
  const io: Io = { out: (s) => out.push(s), err: (s) => out.push(s), isTTY: false };
  try {
    return { code: await main(args, io), out: out.join('\n') };
  } finally {
    process.env = saved;
  }
}
