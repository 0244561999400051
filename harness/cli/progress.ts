/**
 * Progress on stderr: on a terminal a redrawn bar with counts per verdict, rate and time left;
 * otherwise (CI, a pipe) a plain line every few seconds.
 */
import { VERDICTS, type Verdict } from '../report/types.js';
import type { Io } from './io.js';

export class Progress {
  private done_ = 0;
  private readonly start = performance.now();
  private last = 0;
  private readonly counts: Partial<Record<Verdict, number>> = {};
  constructor(
    private readonly io: Io,
    private readonly total: number,
    private readonly verb: string,
    private readonly everyMs = io.isTTY ? 200 : 5000,
  ) {}

  /** `n` more done; `verdicts`: what they came to, where known. */
  tick(n: number, verdicts?: readonly Verdict[] | Partial<Record<Verdict, number>>): void {
    this.done_ += n;
    if (Array.isArray(verdicts)) for (const v of verdicts as readonly Verdict[]) this.counts[v] = (this.counts[v] ?? 0) + 1;
    else if (verdicts) for (const [v, k] of Object.entries(verdicts)) this.counts[v as Verdict] = (this.counts[v as Verdict] ?? 0) + (k ?? 0);
    const now = performance.now();
    if (now - this.last < this.everyMs) return;
    this.last = now;
    this.print(false);
  }

  done(): void {
    if (this.io.isTTY) this.print(true);
    else this.io.err(this.line());
  }

  /** The line a CI log gets, and the text after the bar on a terminal. */
  line(): string {
    const s = (performance.now() - this.start) / 1000;
    const rate = this.done_ / Math.max(s, 1e-9);
    const pct = this.total ? ((100 * this.done_) / this.total).toFixed(1) : '100.0';
    const left =
      rate > 0 && this.total > this.done_ && trustEta(s, this.done_ / Math.max(this.total, 1)) ? `, ${duration((this.total - this.done_) / rate)} left` : '';
    const counts = VERDICTS.filter((v) => this.counts[v])
      .map((v) => `${v} ${this.counts[v]}`)
      .join(' ');
    return `${this.done_}/${this.total} ${this.verb} (${pct}%, ${Math.round(rate)}/s, ${s.toFixed(1)} s${left})${counts ? ` | ${counts}` : ''}`;
  }

  private print(final: boolean): void {
    if (!this.io.isTTY) {
      this.io.err(this.line());
      return;
    }
    const width = 24;
    const filled = this.total ? Math.min(width, Math.round((width * this.done_) / this.total)) : width;
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
    const cols = process.stderr.columns ?? 120;
    process.stderr.write(`\r\x1b[2K${`${bar} ${this.line()}`.slice(0, cols - 1)}${final ? '\n' : ''}`);
  }
}

/** Whether an ETA from the rate so far means anything: after 3 s and 2% of the work (the first ticks are start-up). */
export function trustEta(seconds: number, fraction: number): boolean {
  return seconds >= 3 && fraction >= 0.02;
}

/** Seconds as a person reads them: 42 s, 3 min 5 s, 2 h 10 min. */
export function duration(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
