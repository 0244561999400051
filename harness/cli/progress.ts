/**
 * Progress on stderr: a redrawn line on a terminal, a plain line every few seconds otherwise (CI).
 */
import type { Io } from './main.js';

export class Progress {
  private done_ = 0;
  private readonly start = performance.now();
  private last = 0;
  constructor(
    private readonly io: Io,
    private readonly total: number,
    private readonly verb: string,
    private readonly everyMs = io.isTTY ? 200 : 5000,
  ) {}

  tick(n: number): void {
    this.done_ += n;
    const now = performance.now();
    if (now - this.last < this.everyMs) return;
    this.last = now;
    this.print(false);
  }

  done(): void {
    if (this.io.isTTY) this.print(true);
  }

  private print(final: boolean): void {
    const s = (performance.now() - this.start) / 1000;
    const rate = this.done_ / Math.max(s, 1e-9);
    const pct = this.total ? ((100 * this.done_) / this.total).toFixed(1) : '100';
    const line = `${this.done_}/${this.total} ${this.verb} (${pct}%, ${Math.round(rate)}/s, ${s.toFixed(1)} s)`;
    if (this.io.isTTY) process.stderr.write(`\r${line}${final ? '\n' : ''}`);
    else this.io.err(line);
  }
}
