/**
 * The one way tests drive the CLI: in this process, collecting what it prints, optionally with extra
 * environment and another working directory for that run only (restored after it, whatever happens).
 */
import { join } from 'node:path';
import type { Io } from '../../harness/cli/io.js';
import { main } from '../../harness/cli/main.js';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface CliResult {
  readonly code: number;
  /** Every line printed, stdout and stderr in the order printed, joined by newlines. */
  readonly out: string;
  readonly lines: readonly string[];
  /** The lines of each stream alone, joined. */
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** Variables set (undefined: removed) for the run only. */
  readonly env?: Record<string, string | undefined>;
  /** The working directory for the run only. */
  readonly cwd?: string;
  readonly columns?: number;
}

/** The CLI in this process: its exit code and what it printed. */
export async function runCli(args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  const lines: string[] = [];
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: Io = {
    out: (s) => (lines.push(s), stdout.push(s)),
    err: (s) => (lines.push(s), stderr.push(s)),
    isTTY: false,
    ...(opts.columns !== undefined ? { columns: opts.columns } : {}),
  };
  const savedEnv = opts.env ? { ...process.env } : undefined;
  const savedCwd = opts.cwd ? process.cwd() : undefined;
  try {
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    if (opts.cwd) process.chdir(opts.cwd);
    const code = await main(args, io);
    return { code, out: lines.join('\n'), lines, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
  } finally {
    if (savedCwd) process.chdir(savedCwd);
    if (savedEnv) process.env = savedEnv;
  }
}

/** The CLI's exit code and the lines it printed (stdout and stderr in order). */
export async function runLines(args: readonly string[], columns = 200): Promise<{ code: number; out: string[] }> {
  const r = await runCli(args, { columns });
  return { code: r.code, out: [...r.lines] };
}

/** The same from the repository root (paths in args relative to it), the lines joined. */
export async function runAtRoot(args: readonly string[], columns = 200): Promise<{ code: number; out: string }> {
  return runCli(args, { cwd: ROOT, columns });
}
