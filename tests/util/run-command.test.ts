/**
 * runCommand (harness/util/run-command.ts), the harness's way to run ptxas in-process: it never
 * rejects, and says how the program ended.
 */
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../harness/util/run-command.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probePtxas } from '../../harness/backends/ptxas/toolchain.js';

describe('runCommand', () => {
  it('gives the exit code and the output without its last newline', async () => {
    const r = await runCommand('sh', ['-c', 'echo out; echo err >&2; exit 3']);
    expect(r).toEqual({ exitCode: 3, signal: null, timedOut: false, stdout: 'out', stderr: 'err' });
  });
  it('says why a program could not start, with no exit code', async () => {
    const r = await runCommand('/nonexistent/ptxas', ['--version']);
    expect(r.exitCode).toBeNull();
    expect(r.spawnError).toMatch(/ENOENT/);
    expect(r.stderr).toBe(r.spawnError);
  });
  it('kills a program past its timeout and says so', async () => {
    const r = await runCommand('sleep', ['5'], { timeout: 100 });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBeNull();
  });
  it('gives the signal of a program that was killed', async () => {
    const r = await runCommand('sh', ['-c', 'kill -SEGV $$']);
    expect(r.signal).toBe('SIGSEGV');
    expect(r.exitCode).toBeNull();
  });
  it('a --ptxas that cannot be run is a ToolchainError naming it and what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptxconf-run-'));
    const f = join(dir, 'ptxas');
    writeFileSync(f, 'not a program', { mode: 0o644 });
    try {
      await expect(probePtxas(f)).rejects.toThrow(new RegExp(`${f} \\(--ptxas\\) could not be run: .*EACCES.*; give the path of a ptxas binary`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
