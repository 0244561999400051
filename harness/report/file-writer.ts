/**
 * A file written in chunks on libuv's threads, in order (one write at a time), while the caller goes
 * on: the recorder's stream (results.jsonl) and report.json at a run's end. Chunks handed over are
 * never changed after. `end()` waits for every write and closes the file; `stop()` drops what is
 * queued, for a path that cannot wait (a signal's), and closes the file once no write is on its way
 * (closed under a write, its descriptor could go to the next file opened and the write land there).
 */
import { closeSync, openSync, write } from 'node:fs';

export class FileWriter {
  private fd: number | undefined;
  private readonly queue: Uint8Array[] = [];
  private busy = false;
  private idle: (() => void) | undefined;
  private waiting: Promise<void> | undefined;
  /** Once stopped, nothing more is written (the file is not opened again). */
  private stopped = false;

  constructor(
    readonly path: string,
    private readonly flags: 'a' | 'w' = 'a',
  ) {}

  /** Queues bytes (the file is opened at the first). */
  write(bytes: Uint8Array): void {
    if (!bytes.length || this.stopped) return;
    this.fd ??= openSync(this.path, this.flags);
    this.queue.push(bytes);
    if (!this.busy) this.pump();
  }

  private pump(): void {
    const fd = this.fd;
    const next = this.queue.shift();
    if (next === undefined || fd === undefined) {
      this.busy = false;
      this.idle?.();
      return;
    }
    this.busy = true;
    const more = (b: Uint8Array) =>
      write(fd, b, 0, b.length, null, (err, n) => {
        if (this.fd !== fd) {
          // stopped meanwhile: closed now that no write is on its way
          closeSync(fd);
          this.busy = false;
          this.idle?.();
          return;
        }
        if (err) return this.pump();
        if (n < b.length) more(b.subarray(n));
        else this.pump();
      });
    more(next);
  }

  /** Resolves when every chunk queued so far is written. */
  flushed(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    this.waiting ??= new Promise<void>((done) => {
      this.idle = () => {
        this.idle = undefined;
        this.waiting = undefined;
        done();
      };
    });
    return this.waiting;
  }

  /** Waits for every write, then closes the file. */
  async end(): Promise<void> {
    await this.flushed();
    this.stop();
  }

  /** Drops what is queued and closes the file (now, or when the write on its way is done). */
  stop(): void {
    this.stopped = true;
    const fd = this.fd;
    this.fd = undefined;
    this.queue.length = 0;
    if (fd !== undefined && !this.busy) closeSync(fd);
  }
}
