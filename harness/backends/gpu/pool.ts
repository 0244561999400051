/**
 * A pool of long-lived gpu worker processes (worker.ts), each with its own CUDA context for the
 * whole run. Jobs go over the IPC channel (V8 serialisation: BigInts and typed arrays travel as
 * they are); a worker has up to two requests at a time (the second waits in its channel). A worker that dies (a CUDA error poisons
 * its context, a launch that never ends is killed at the time limit) fails its job with the reason
 * and is replaced; the caller isolates that job.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { childEnv } from '../../catalog/editions.js';
import type { GpuJob, WorkerMessage, WorkerOut } from './worker.js';

export type JobOutcome = { readonly outs: WorkerOut[]; readonly cells?: Uint32Array } | { readonly failed: string };

/** Children still running: killed when this process exits (Ctrl-C, an error), so none keeps the GPU. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

interface Busy {
  msg: WorkerMessage;
  resolve: (o: JobOutcome) => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  child: ChildProcess;
  ready: Promise<void>;
  /**
   * The requests sent (or about to be, once the worker is ready) and not yet answered, oldest first:
   * the worker answers them in order, one at a time. Up to DEPTH: the next batch waits in the
   * worker's channel while it runs one, so that it does not wait on this thread (which reads the
   * other workers' results meanwhile) between batches.
   */
  busy: Busy[];
  stderr: string;
}

/** Requests in flight per worker (sent, not answered). */
const DEPTH = 2;

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: { msg: WorkerMessage; resolve: (o: JobOutcome) => void }[] = [];
  /** Messages every worker gets before its first request, a replacement too (preamble). */
  private readonly preambles: WorkerMessage[] = [];
  private closed = false;
  /** Workers started over the run (replacements included). */
  started = 0;

  constructor(
    private readonly cmd: readonly string[],
    readonly size: number,
    private readonly timeoutMs: number,
    /** The workers' environment: this process's with the run's edition (childEnv), taken when the pool starts, for every worker it starts. */
    private readonly env: NodeJS.ProcessEnv = childEnv(),
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const child = spawn(this.cmd[0]!, this.cmd.slice(1), { stdio: ['ignore', 'inherit', 'pipe', 'ipc'], serialization: 'advanced', env: this.env });
    this.started++;
    running.add(child);
    const slot: Slot = { child, stderr: '', ready: Promise.resolve(), busy: [] };
    slot.ready = new Promise<void>((resolve) => {
      child.once('message', () => resolve());
      child.once('exit', () => resolve());
    });
    child.stderr!.on('data', (d: Buffer) => (slot.stderr = (slot.stderr + d.toString()).slice(-4000)));
    for (const m of this.preambles) this.sendWhenReady(slot, m);
    child.on('message', (m: { type: string; outs?: WorkerOut[]; cells?: Uint32Array }) => {
      if (m.type !== 'done' || !slot.busy.length) return;
      const b = slot.busy.shift()!;
      clearTimeout(b.timer);
      slot.stderr = ''; // what the worker writes from here on is the next request's
      this.armHead(slot);
      b.resolve({ outs: m.outs ?? [], ...(m.cells ? { cells: m.cells } : {}) });
      this.pump(slot);
    });
    child.on('exit', (code, signal) => {
      running.delete(child);
      // the request it was running fails; those waiting behind it go back to the queue's front
      const [b, ...waiting] = slot.busy;
      slot.busy = [];
      this.queue.unshift(...waiting.map(({ msg, resolve }) => ({ msg, resolve })));
      for (const w of waiting) clearTimeout(w.timer);
      if (b) {
        clearTimeout(b.timer);
        const why =
          /CUDA_ERROR (\S+)/.exec(slot.stderr)?.[1] ??
          (signal ? `worker killed by ${signal}` : `worker exited with ${code}: ${slot.stderr.trim().split('\n').pop() ?? ''}`);
        b.resolve({ failed: why });
      }
      if (this.closed) {
        for (const w of waiting) w.resolve({ failed: 'the pool was closed' });
        return;
      }
      // replace the dead worker and go on with the queue
      const i = this.slots.indexOf(slot);
      if (i >= 0) {
        const fresh = this.spawn();
        this.slots[i] = fresh;
        this.pump(fresh);
      }
    });
    return slot;
  }

  /** The time limit of the request a worker runs now (its oldest unanswered), from now. */
  private armHead(slot: Slot): void {
    const head = slot.busy[0];
    if (!head || head.timer) return;
    head.timer = setTimeout(() => slot.child.kill('SIGKILL'), this.timeoutMs);
  }

  /**
   * Sends the worker queued requests while it has fewer than DEPTH in flight (once it is ready): a
   * second only while the queue holds more than one per worker, so that the run's last requests are
   * not held behind another's while a worker has none.
   */
  private pump(slot: Slot): void {
    while (slot.busy.length < (this.queue.length > this.slots.length ? DEPTH : 1) && !this.closed) {
      const next = this.queue.shift();
      if (!next) return;
      const busy: Busy = { msg: next.msg, resolve: next.resolve };
      slot.busy.push(busy); // reserved now: a second pump before the worker is ready must not take it
      void slot.ready.then(() => {
        if (!slot.busy.includes(busy) || slot.child.exitCode !== null || slot.child.signalCode !== null) return; // the exit handler failed it
        if (slot.busy[0] === busy) {
          slot.stderr = '';
          this.armHead(slot);
        }
        slot.child.send(busy.msg);
      });
    }
  }

  /**
   * Has every worker start its CUDA context now (a worker starts it with its first job otherwise):
   * for a run whose jobs come later (a vector file being read). A replacement worker starts its own
   * with its first job.
   */
  warm(): void {
    for (const s of this.slots) this.sendWhenReady(s, { type: 'init' });
  }

  /**
   * Sends `msg` (one the worker does not answer: what its requests will need) to every worker before
   * any request sent after this call, and to each worker started later (a replacement) before its first.
   */
  preamble(msg: WorkerMessage): void {
    this.preambles.push(msg);
    for (const s of this.slots) this.sendWhenReady(s, msg);
  }

  private sendWhenReady(slot: Slot, msg: WorkerMessage): void {
    // before any request pumped after this: the channel keeps the order, and so do the ready callbacks
    void slot.ready.then(() => {
      if (slot.child.exitCode === null && slot.child.signalCode === null && !this.closed) slot.child.send(msg);
    });
  }

  /** Runs a batch of jobs on the next free worker. */
  run(jobs: GpuJob[]): Promise<JobOutcome> {
    return this.call({ type: 'jobs', jobs });
  }

  /** Sends any request the worker answers with `done` (a batch of jobs, a sweep's reference cells). */
  call(msg: WorkerMessage): Promise<JobOutcome> {
    return new Promise((resolve) => {
      this.queue.push({ msg, resolve });
      // an idle worker first, else one with room behind its current request (pump decides)
      const idle = this.slots.find((s) => !s.busy.length) ?? this.slots.find((s) => s.busy.length < DEPTH);
      if (idle) this.pump(idle);
    });
  }

  /** Tells every worker to exit (again: nothing more). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.slots) {
      if (s.child.exitCode === null) s.child.send?.({ type: 'exit' });
    }
  }
}
