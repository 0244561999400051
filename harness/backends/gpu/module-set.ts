/**
 * The gpu backend's modules as they become ready: each cubin when ptxas has written it (or the cubin
 * cache held it), each module's SASS when cuobjdump has read it, which comes later (cache.ts reads
 * the SASS once nothing is left to compile). A batch waits for its modules' cubins only; the SASS
 * its results carry is filled in when it is read (SASS_LATER until then).
 */

/** The level-3 generator kernel's module (gen-kernel.ts), beside the plan's 0, 1, ... */
export const GEN = -1;

/** What a job carries for its kernel's SASS while its module's is still being read. */
export const SASS_LATER = '(SASS being read)';

export class ModuleSet {
  private readonly cubins = new Map<number, string>();
  private readonly sassBy = new Map<number, Readonly<Record<string, string>>>();
  private readonly waiting = new Map<number, (() => void)[]>();
  private readonly sassWaiting = new Map<number, (() => void)[]>();

  ready(m: number | undefined): boolean {
    return m !== undefined && this.cubins.has(m);
  }

  cubinOf(m: number): string | undefined {
    return this.cubins.get(m);
  }

  cubin(m: number, path: string): void {
    this.cubins.set(m, path);
    for (const f of this.waiting.get(m) ?? []) f();
    this.waiting.delete(m);
  }

  sass(m: number, sass: Readonly<Record<string, string>>): void {
    this.sassBy.set(m, sass);
    for (const f of this.sassWaiting.get(m) ?? []) f();
    this.sassWaiting.delete(m);
  }

  /** The SASS of `kernel` (or of the variant's kernel `name`), SASS_LATER while its module's is unread. */
  sassOf(m: number, kernel: string, name: string): string {
    const s = this.sassBy.get(m);
    if (!s) return SASS_LATER;
    return s[kernel] ?? s[name] ?? 'no SASS evidence (cuobjdump missing)';
  }

  /**
   * Resolves when every module of `ms` has its cubin; `now`: at once, throwing for one without (the
   * compilation that was to make it has ended).
   */
  cubinsReady(ms: readonly number[], now = false): Promise<void> {
    const missing = ms.filter((m) => !this.cubins.has(m));
    if (!missing.length) return Promise.resolve();
    if (now) return Promise.reject(new Error(`gpu module ${missing[0]} was not compiled`));
    return Promise.all(missing.map((m) => new Promise<void>((res) => this.waiting.set(m, [...(this.waiting.get(m) ?? []), res])))).then(() => undefined);
  }

  /** The compilation failed: whatever waits for a SASS goes on (the run ends with the compilation's error). */
  abandon(): void {
    for (const fs of this.sassWaiting.values()) for (const f of fs) f();
    this.sassWaiting.clear();
    this.abandoned = true;
  }

  private abandoned = false;

  /** Resolves when module m's SASS is read (or the compilation failed). */
  sassRead(m: number): Promise<void> {
    if (this.sassBy.has(m) || this.abandoned) return Promise.resolve();
    return new Promise((res) => this.sassWaiting.set(m, [...(this.sassWaiting.get(m) ?? []), res]));
  }
}
