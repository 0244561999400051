/**
 * Runs the CLI in this process against the stand-in launcher (tests/fixtures/standin-launcher.cts,
 * which emulates the kernels with the reference model), with extra environment for the run only.
 * The caller registers tsx's require hook (the launcher is TypeScript loaded with require).
 */
import { join } from 'node:path';
import { type CliResult, runCli } from './cli.js';

export const STANDIN_LAUNCHER = join(import.meta.dirname, '..', 'fixtures', 'standin-launcher.cts');

export function runWithStandin(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { env: { PTX_CONFORMANCE_ADDON: STANDIN_LAUNCHER, ...env } });
}
