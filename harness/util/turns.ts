/**
 * Turns for the event loop in a long synchronous stretch (enumerating the catalog, reading the
 * verdict cache): a signal's handler runs only when the thread lets it, so a run that holds the
 * thread for seconds cannot stop within two seconds of Ctrl-C. Work that can take long checks
 * `due()` as it goes and, when the thread has been held for `ms`, awaits `turn()`.
 */
export class Turns {
  private last = performance.now();
  constructor(private readonly ms = 40) {}
  /** Whether the thread has been held for `ms` since the last turn. */
  due(): boolean {
    return performance.now() - this.last >= this.ms;
  }
  /** A turn of the event loop (timers, I/O, signals), then the clock restarts. */
  async turn(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    this.last = performance.now();
  }
}

/** Drains a generator of steps, giving the event loop a turn whenever one is due. */
export async function drainWithTurns<T>(steps: Generator<unknown, T>, turns = new Turns()): Promise<T> {
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
    if (turns.due()) await turns.turn();
  }
}

/** Drains a generator of steps in one go. */
export function drain<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
  }
}
