/**
 * GPU work in child processes, so that a launch that faults or never ends costs one case, not the
 * run. Each job goes to a child (executor.ts) with a time limit; a child that dies, exits with a CUDA
 * error or outlives its limit is killed and its job split, launches first, then the cases of a
 * launch, until the culprit case stands alone; it is reported as an error with the CUDA error name
 * (or the time limit), and every other case still gets its result.
 */
import { spawn } from 'node:child_process';
import { childEnv } from '../../catalog/editions.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobFile, LaunchJob, LaunchResult } from './executor.js';

export type CaseOutcome = { readonly memory: string[]; readonly returned: string[] } | { readonly error: string };

export interface IsolateOptions {
  /** Command that runs the executor: [node, executor.mjs]. */
  readonly executor: readonly string[];
  readonly cubin: string;
  readonly timeoutMs: number;
}

interface Piece {
  readonly launch: number;
  readonly cases: readonly number[];
}

function runChild(
  cmd: readonly string[],
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; signal: string | null; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const c = spawn(cmd[0]!, [...cmd.slice(1), ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: childEnv() });
    let stderr = '';
    let timedOut = false;
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const t = setTimeout(() => {
      timedOut = true;
      c.kill('SIGKILL');
    }, timeoutMs);
    c.on('exit', (code, signal) => {
      clearTimeout(t);
      resolve({ code, signal, stderr, timedOut });
    });
  });
}

/** Runs every launch; returns, per launch, one outcome per case. */
export async function runIsolated(
  launches: readonly LaunchJob[],
  opts: IsolateOptions,
): Promise<{ outcomes: CaseOutcome[][]; children: number; splits: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'ptxconf-gpu-'));
  const outcomes: CaseOutcome[][] = launches.map((l) => new Array(l.cases.length));
  let children = 0;
  let splits = 0;
  let seq = 0;
  const run = async (pieces: Piece[]): Promise<void> => {
    const job: JobFile = {
      cubin: opts.cubin,
      launches: pieces.map((p) => ({ ...launches[p.launch]!, cases: p.cases.map((i) => launches[p.launch]!.cases[i]!) })),
    };
    const jobPath = join(dir, `job${seq}.json`);
    const outPath = join(dir, `out${seq++}.json`);
    await writeFile(jobPath, JSON.stringify(job));
    children++;
    const r = await runChild(opts.executor, [jobPath, outPath], opts.timeoutMs);
    if (r.code === 0) {
      const res = JSON.parse(await readFile(outPath, 'utf8')) as LaunchResult[];
      pieces.forEach((p, k) => p.cases.forEach((ci, j) => (outcomes[p.launch]![ci] = { memory: res[k]!.memory[j]!, returned: res[k]!.returned[j]! })));
      return;
    }
    const why = r.timedOut
      ? `no answer within ${opts.timeoutMs / 1000} s: the child was killed (a launch that never ends)`
      : (/CUDA_ERROR (\S+)/.exec(r.stderr)?.[1] ??
        (r.signal ? `executor killed by ${r.signal}` : `executor exited with ${r.code}: ${r.stderr.trim().split('\n').pop()}`));
    if (pieces.length > 1) {
      splits++;
      const h = Math.ceil(pieces.length / 2);
      await run(pieces.slice(0, h));
      await run(pieces.slice(h));
      return;
    }
    const p = pieces[0]!;
    if (p.cases.length > 1) {
      splits++;
      const h = Math.ceil(p.cases.length / 2);
      await run([{ launch: p.launch, cases: p.cases.slice(0, h) }]);
      await run([{ launch: p.launch, cases: p.cases.slice(h) }]);
      return;
    }
    outcomes[p.launch]![p.cases[0]!] = { error: why };
  };
  try {
    await run(launches.map((l, i) => ({ launch: i, cases: l.cases.map((_, k) => k) })));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { outcomes, children, splits };
}
