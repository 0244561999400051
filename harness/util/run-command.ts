/**
 * Runs a program and collects what it said, never rejecting: the exit code (null when it could not
 * start or was killed), the signal, whether the timeout killed it, and stdout/stderr without their
 * last newline; a program that could not start has its reason on stderr. The harness's own way to
 * run ptxas and friends in-process (node's spawn: the execa package cost half a second of loading
 * on every run for these few calls); harness/util/spawn-child.mjs answers the same fields for the
 * spawn pool's helpers.
 */
import { spawn } from 'node:child_process';

export interface CommandResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the program could not be started (not found, not executable): the reason. */
  readonly spawnError?: string;
}

export function runCommand(file: string, args: readonly string[], opts: { readonly timeout?: number } = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    let spawnError: string | undefined;
    const c = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = opts.timeout ? setTimeout(() => ((timedOut = true), c.kill('SIGTERM')), opts.timeout) : undefined;
    c.stdout.on('data', (b: Buffer) => out.push(b));
    c.stderr.on('data', (b: Buffer) => err.push(b));
    c.on('error', (e) => (spawnError = e.message));
    c.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const text = (bufs: Buffer[]) =>
        Buffer.concat(bufs)
          .toString('utf8')
          .replace(/\r?\n$/, '');
      resolve({
        exitCode: spawnError ? null : code,
        signal: timedOut ? null : signal,
        timedOut,
        stdout: text(out),
        stderr: spawnError ?? text(err),
        ...(spawnError ? { spawnError } : {}),
      });
    });
  });
}
