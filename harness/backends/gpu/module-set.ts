/**
 * The gpu backend's modules as they become ready: each cubin when ptxas has written it (or the cubin
 * cache held it), each module's SASS when the disassembler has read it, which comes later (cache.ts reads
 * the SASS once nothing is left to compile). A batch waits for its modules' cubins only; the SASS
 * its results carry is filled in when it is read (SASS_LATER until then).
 */

import { compileModules, indexedKey, lookup, writeIndexedKey } from './cache.js';
import type { GpuVariant } from './plan.js';

/** The level-3 generator kernel's module (gen-kernel.ts), beside the plan's 0, 1, ... */
export const GEN = -1;

/** What a job carries for its kernel's SASS while its module's is still being read. */
export const SASS_LATER = '(SASS being read)';

function waitList(m: Map<number, (() => void)[]>, k: number): (() => void)[] {
  let l = m.get(k);
  if (!l) m.set(k, (l = []));
  return l;
}

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
    return Promise.all(missing.map((m) => new Promise<void>((res) => waitList(this.waiting, m).push(res)))).then(() => undefined);
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
    return new Promise((res) => waitList(this.sassWaiting, m).push(res));
  }
}

/** Where the gpu backend's module texts come from: the plan's, or those a given-case plan makes. */
export interface ModuleSource {
  count(): number;
  text(i: number): string;
  /** A given-case plan places the variants in its modules first. */
  assign(vs: readonly GpuVariant[]): void;
  moduleOf(v: GpuVariant): number | undefined;
  /** The level-3 generator's module. */
  genText(): string;
  /**
   * What determines module i's text besides the code (cache.ts indexedKey): a plan's target, PTX ISA,
   * edition and module's variants. Undefined where the modules are made for the cases given (GivenPlan).
   */
  identity?(i: number): string | undefined;
}

/**
 * The gpu backend's compilations: each module asked for once (compile), its cubin and SASS into
 * `mods` as they come, the counts in `stats`.
 */
export class ModuleCompiler {
  readonly mods = new ModuleSet();
  readonly stats = { compiled: 0, cached: 0, ms: 0 };
  /** Whether the level-3 generator's module is wanted at all (PTXCONF_DEVICE_GEN=0 keeps generation on the CPU). */
  readonly gen: boolean;
  private readonly requested = new Set<number>();
  private readonly compiling = new Set<Promise<void>>();

  constructor(
    private readonly src: ModuleSource,
    private readonly opts: {
      ptxas: { path: string; versionLine: string };
      arch: string;
      cacheDir: string;
      onProgress?: ((msg: string) => void) | undefined;
      gen: boolean;
    },
  ) {
    this.gen = opts.gen;
  }

  /**
   * Compiles the modules of `vs` not yet asked for (and the level-3 generator's, when a job
   * generates); the cubins are ready (mods) as they come. The promise ends when every compilation
   * under way has, SASS included.
   */
  compile(vs: readonly GpuVariant[], generates: boolean): Promise<void> {
    const one = this.compileNew(vs, generates);
    this.compiling.add(one);
    one.then(
      () => this.compiling.delete(one),
      () => this.compiling.delete(one),
    );
    return this.pending();
  }

  /**
   * Resolves when every module of `ms` has its cubin, asked for already (compile); rejects with the
   * compilation's error, or when the compilations under way have ended without one of them.
   */
  cubinsFor(ms: readonly number[]): Promise<void> {
    return Promise.race([this.mods.cubinsReady(ms), this.pending().then(() => this.mods.cubinsReady(ms, true))]);
  }

  /** Ends when every compilation under way has. */
  pending(): Promise<void> {
    return Promise.all([...this.compiling]).then(() => undefined);
  }

  private async compileNew(vs: readonly GpuVariant[], generates: boolean): Promise<void> {
    const t0 = performance.now();
    const { src, opts, mods, requested } = this;
    src.assign(vs);
    const need = new Set(vs.map((v) => src.moduleOf(v)!));
    const asked = Array.from({ length: src.count() }, (_, i) => need.has(i) && !requested.has(i));
    asked.forEach((a, i) => a && requested.add(i));
    // a module whose text was compiled before (cache.ts indexedKey) comes from the cubin cache without its text
    const index = new Map<number, string>();
    let indexed = 0;
    asked.forEach((a, i) => {
      const id = a ? src.identity?.(i) : undefined;
      if (id === undefined) return;
      const { file, key } = indexedKey(opts.cacheDir, id, opts.ptxas.versionLine);
      const hit = key === undefined ? undefined : lookup(opts.cacheDir, key);
      if (!hit) return void index.set(i, file);
      asked[i] = false;
      indexed++;
      mods.cubin(i, hit.cubin);
      mods.sass(i, hit.sass);
    });
    // each text made when its module's turn comes: its ptxas starts before the next text is made
    const texts = asked.map((a, i) => (a ? () => src.text(i) : undefined));
    if (indexed && !texts.some((t) => t !== undefined)) opts.onProgress?.(`gpu modules: ${indexed}/${indexed} ready (${indexed} from the cubin cache)`);
    // the level-3 generator kernel, when a job generates: compiled beside them, not counted, no SASS
    const genNow = generates && this.gen && !requested.has(GEN);
    if (genNow) requested.add(GEN);
    const common = { ptxas: opts.ptxas, arch: opts.arch, cacheDir: opts.cacheDir };
    const gen = genNow
      ? compileModules([src.genText()], { ...common, noSass: true, onCubin: (_, cubin) => mods.cubin(GEN, cubin), onSass: (_, sass) => mods.sass(GEN, sass) })
      : undefined;
    const main = texts.some((t) => t !== undefined)
      ? compileModules(texts, {
          ...common,
          onProgress: (d, total, cached) =>
            opts.onProgress?.(`gpu modules: ${d + indexed}/${total + indexed} ready (${cached + indexed} from the cubin cache)`),
          onCubin: (i, cubin) => mods.cubin(i, cubin),
          onSass: (i, sass) => mods.sass(i, sass),
        })
      : undefined;
    const [r] = await Promise.all([main, gen]);
    for (const [i, file] of index) if (r?.keys[i]) writeIndexedKey(file, r.keys[i]);
    this.stats.compiled += r?.stats.compiled ?? 0;
    this.stats.cached += (r?.stats.cached ?? 0) + indexed;
    this.stats.ms += performance.now() - t0;
  }
}
