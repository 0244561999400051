/**
 * Runs many short commands (ptxas, thousands of times) from small helper processes.
 *
 * Starting a process forks the caller, and a fork costs in proportion to the caller's memory: from
 * the harness with a whole catalog in memory a ptxas start cost about 6 ms of the main thread,
 * against about 1 ms from a helper. The helpers run the commands with node's spawn and an argument
 * array (spawn-child.mjs), as runCommand does where there is no helper.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from './run-command.js';

export interface RunResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

interface Pending {
  resolve: (r: RunResult) => void;
  reject: (e: Error) => void;
}

/** Where the helper script is: beside this module, or beside a bundle that inlined this module. */
function helperPath(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const p of [join(here, 'spawn-child.mjs'), join(here, 'util', 'spawn-child.mjs')]) if (existsSync(p)) return p;
  return undefined;
}

export class SpawnPool {
  private readonly children: ChildProcess[] = [];
  private readonly idle: ChildProcess[] = [];
  private readonly waiting: ((c: ChildProcess) => void)[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(size: number) {
    const path = helperPath();
    if (!path) return;
    for (let i = 0; i < size; i++) {
      const c = fork(path, [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
      c.on('message', (m: RunResult & { id: number }) => {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        this.release(c);
        p?.resolve(m);
      });
      c.on('exit', (code) => {
        for (const [id, p] of this.pending) {
          this.pending.delete(id);
          p.reject(new Error(`spawn helper exited with ${code}`));
        }
      });
      this.children.push(c);
      this.idle.push(c);
    }
  }

  private release(c: ChildProcess) {
    const w = this.waiting.shift();
    if (w) w(c);
    else this.idle.push(c);
  }

  private acquire(): Promise<ChildProcess> {
    const c = this.idle.pop();
    return c ? Promise.resolve(c) : new Promise((r) => this.waiting.push(r));
  }

  /** Runs `file args` and resolves with its exit status and output (never rejects on failure). */
  async run(file: string, args: readonly string[], timeout: number): Promise<RunResult> {
    if (!this.children.length) {
      const r = await runCommand(file, args, { timeout });
      return { exitCode: r.exitCode, signal: r.signal, timedOut: r.timedOut, stdout: r.stdout, stderr: r.stderr };
    }
    const c = await this.acquire();
    const id = this.nextId++;
    return new Promise<RunResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      c.send({ id, file, args, timeout });
    });
  }

  close(): void {
    for (const c of this.children) c.disconnect();
  }
}
