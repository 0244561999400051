/**
 * Runs multicast cases in a child process (child.ts): the parent creates nothing; the child holds
 * every driver object, so a fault or a kill takes only the child, whose objects the driver then
 * releases with the process, and a signal lets the child release them itself first.
 */
import { childEnv } from '../../catalog/editions.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildJob, ChildResult } from './wire.js';
import { tsxImport } from '../../util/paths.js';

export function childCommand(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const mjs = join(here, 'multicast-child.mjs');
  return existsSync(mjs) ? [process.execPath, mjs] : [process.execPath, ...tsxImport(), join(here, 'child.ts')];
}

/** The child's result and exit code; throws with its stderr when it wrote none. */
export async function runMulticastChild(
  job: ChildJob,
  onSpawn?: (pid: number) => void,
): Promise<{ result: ChildResult; code: number | null; signalled?: NodeJS.Signals }> {
  let signalled: NodeJS.Signals | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'ptxconf-mcjob-'));
  try {
    const jobPath = join(dir, 'job.json');
    const outPath = join(dir, 'out.json');
    writeFileSync(jobPath, JSON.stringify(job));
    const [cmd, ...args] = childCommand();
    const child = spawn(cmd!, [...args, jobPath, outPath], { stdio: ['ignore', 'inherit', 'pipe'], env: childEnv() });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    if (child.pid) onSpawn?.(child.pid);
    // while the child runs, a signal to this process goes to the child (which stops between launches,
    // releases everything and writes the results so far); this process's own handlers (a partial
    // report and exit) wait until the child is done, so those results reach the report
    const saved = (['SIGINT', 'SIGTERM'] as const).map((sig) => [sig, process.listeners(sig)] as const);
    const forward = (sig: NodeJS.Signals) => {
      signalled = sig;
      child.kill(sig);
    };
    for (const [sig, ls] of saved) {
      for (const l of ls) process.off(sig, l);
      process.on(sig, forward);
    }
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    for (const [sig, ls] of saved) {
      process.off(sig, forward);
      for (const l of ls) process.on(sig, l);
    }
    if (!existsSync(outPath)) throw new Error(`the multicast child exited ${code} without results: ${err.trim().slice(-2000) || '(no message)'}`);
    return { result: JSON.parse(readFileSync(outPath, 'utf8')) as ChildResult, code, ...(signalled ? { signalled } : {}) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
