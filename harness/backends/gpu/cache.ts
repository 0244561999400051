/**
 * Content-addressed cubin cache. A module's key is sha256(ptxas version line, arch, PTX text); its
 * cubin and the SASS mnemonics the disassembler (nvdisasm or cuobjdump) found per kernel live under `<cacheDir>/cubin/<key>.*`,
 * with a manifest (`<key>.json`) holding the cubin's sha256, so a truncated or altered file is
 * detected and compiled again. Writes are atomic (temporary name, then rename), so two runs sharing
 * a cache never read half a file. Compilation runs several ptxas at once, then the SASS extraction
 * of what they compiled (compileModules).
 */
import type { Ptxas } from '../ptxas/toolchain.js';
import type { Shard } from '../../util/shard.js';
import { sha256Hex as sha } from '../../util/sha.js';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { codeFingerprint } from '../../util/code-fingerprint.js';
import { type Launcher, loadLauncher } from './driver.js';
import { SassReader, runTool } from './sass.js';

export interface CompiledModule {
  readonly cubin: string;
  /** Kernel name -> memory-touching SASS mnemonics ({} when no disassembler was found). */
  readonly sass: Readonly<Record<string, string>>;
  readonly cached: boolean;
}

export interface CompileStats {
  compiled: number;
  cached: number;
  compileMs: number;
}

function writeAtomic(file: string, data: string | Buffer): void {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

export function moduleKey(ptxasVersion: string, arch: string, ptxText: string): string {
  return sha(`${ptxasVersion}\n${arch}\n${ptxText}`);
}

/**
 * The module key a plan's module had when it was last compiled, by what determines its text: the
 * harness's code (codeFingerprint), the ptxas, and the plan's own words for the module (its target,
 * PTX ISA, edition and variants: ModuleSource.identity). A warm run finds its cubins without writing
 * out and hashing the PTX of every module (0.2-0.3 s of the run's thread on an H200 host); a miss,
 * or a key whose cubin is gone, writes the text as before (and the index entry after).
 */
export function indexedKey(dir: string, identity: string, ptxasVersion: string): { file: string; key: string | undefined } {
  const file = join(dir, 'cubin', 'index', sha(`${codeFingerprint()}\n${ptxasVersion}\n${identity}`));
  let key: string | undefined;
  try {
    key = readFileSync(file, 'utf8');
    if (!/^[0-9a-f]{64}$/.test(key)) key = undefined;
  } catch {
    // not indexed yet
  }
  return { file, key };
}

/** Records the module key of an indexed module (indexedKey). */
export function writeIndexedKey(file: string, key: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeAtomic(file, key);
}

/** The cached module, if present and intact. */
export function lookup(dir: string, key: string): CompiledModule | undefined {
  const base = join(dir, 'cubin', key);
  try {
    if (!existsSync(`${base}.json`)) return undefined;
    const m = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as { sha256: string; sass: Record<string, string> };
    const cubin = readFileSync(`${base}.cubin`);
    if (sha(cubin) !== m.sha256) return undefined;
    return { cubin: `${base}.cubin`, sass: m.sass, cached: true };
  } catch {
    return undefined;
  }
}

/**
 * Compiles (or finds) every module; `texts[i]` undefined means module i is not needed (a function: its
 * text, made when its turn comes). Returns the modules by index once every cubin and its SASS are
 * there. Up to one ptxas or disassembler per core runs at once, ptxas first: each module's ptxas starts
 * as soon as its text is made and found in no cache (the texts after it are made meanwhile), and the
 * disassembly waits until no module is left to compile, so that a caller running cubins as they come
 * (onCubin) starts on the first one as soon as it is compiled, and the SASS (onSass) follows. A
 * cached module calls both before the first await.
 */
export async function compileModules(
  texts: readonly (string | (() => string) | undefined)[],
  opts: {
    ptxas: { path: string; versionLine: string };
    arch: string;
    cacheDir: string;
    onProgress?: (done: number, total: number, cached: number) => void;
    /** Module i's cubin is at `cubin`, ready to load (its SASS may still be read). */
    onCubin?: (i: number, cubin: string) => void;
    /** Module i's SASS per kernel. */
    onSass?: (i: number, sass: Readonly<Record<string, string>>) => void;
    /** No SASS wanted (the level-3 generator's module): none read, {} kept. */
    noSass?: boolean;
  },
): Promise<{ modules: (CompiledModule | undefined)[]; stats: CompileStats; keys: readonly string[] }> {
  const t0 = performance.now();
  const dir = join(opts.cacheDir, 'cubin');
  mkdirSync(dir, { recursive: true });
  const modules: (CompiledModule | undefined)[] = new Array(texts.length);
  const todo: number[] = [];
  const made: string[] = [];
  const stats: CompileStats = { compiled: 0, cached: 0, compileMs: 0 };
  const keys: string[] = texts.map(() => '');
  const total = texts.filter((t) => t !== undefined).length;
  let next = 0;
  let done = 0;
  // compiled modules whose SASS is still to read
  const disassemble: number[] = [];
  const compileOne = async (i: number) => {
    const base = join(dir, keys[i]!);
    const tmp = `${base}.tmp-${process.pid}-${i}`;
    writeFileSync(`${tmp}.ptx`, made[i]!);
    delete made[i];
    try {
      await runTool(opts.ptxas.path, ['-arch', opts.arch, `${tmp}.ptx`, '-o', `${tmp}.cubin`], { maxBuffer: 1 << 26 });
    } catch (e) {
      const msg = (e as { stderr?: string }).stderr?.trim().split('\n').slice(0, 5).join('\n') ?? String(e);
      throw new Error(`ptxas failed on gpu module ${i} (${tmp}.ptx kept): ${msg}`);
    }
    // the cubin in its place now; the manifest (what lookup reads) once the SASS is read
    renameSync(`${tmp}.cubin`, `${base}.cubin`);
    rmSync(`${tmp}.ptx`, { force: true });
    stats.compiled++;
    opts.onProgress?.(++done, total, stats.cached);
    opts.onCubin?.(i, `${base}.cubin`);
    disassemble.push(i);
  };
  // the run's SASS: each distinct kernel code disassembled once over every module (sass.ts)
  const reader = new SassReader(opts.arch);
  // modules whose own disassembly has ended, waiting for codes another module's call has in flight
  const finishing: Promise<void>[] = [];
  /** Starts module i's SASS; resolves once its own disassembler call (if it needs one) has ended. */
  const readSass = async (i: number) => {
    const base = join(dir, keys[i]!);
    const bytes = readFileSync(`${base}.cubin`);
    const { started, sass } = opts.noSass ? { started: Promise.resolve(), sass: Promise.resolve({}) } : reader.read(`${base}.cubin`, bytes);
    finishing.push(
      sass.then((sass) => {
        writeAtomic(`${base}.json`, JSON.stringify({ sha256: sha(bytes), ptxas: opts.ptxas.versionLine, arch: opts.arch, sass }));
        modules[i] = { cubin: `${base}.cubin`, sass, cached: false };
        opts.onSass?.(i, sass);
      }),
    );
    await started;
  };
  const cores = availableParallelism();
  let scanning = true;
  let active = 0;
  const running: Promise<void>[] = [];
  const slot = async () => {
    try {
      for (;;) {
        if (next < todo.length) await compileOne(todo[next++]!);
        else if (!scanning && disassemble.length) await readSass(disassemble.shift()!);
        else return;
      }
    } finally {
      active--;
    }
  };
  const startSlot = () => {
    active++;
    running.push(slot());
  };
  // the texts made one by one (synchronously: no slot goes on before the last is made), each module's
  // ptxas started as soon as its text is made and no cache holds it
  texts.forEach((t, i) => {
    if (t === undefined) return;
    const text = typeof t === 'string' ? t : t();
    keys[i] = moduleKey(opts.ptxas.versionLine, opts.arch, text);
    const hit = lookup(opts.cacheDir, keys[i]);
    if (hit) {
      modules[i] = hit;
      stats.cached++;
      done++;
      opts.onCubin?.(i, hit.cubin);
      opts.onSass?.(i, hit.sass);
      return;
    }
    made[i] = text;
    todo.push(i);
    if (active < cores) startSlot();
  });
  scanning = false;
  opts.onProgress?.(done, total, stats.cached);
  // (nothing is compiled yet: no slot has gone on since it started)
  while (active < cores && next < todo.length) startSlot();
  await Promise.all(running);
  await Promise.all(finishing);
  stats.compileMs = performance.now() - t0;
  return { modules, stats, keys };
}

/**
 * What a GPU-only run over the catalog's gpu variants (`sweep`, `contend`) is given: the target and
 * its module PTX ISA, the toolchain and cubin cache, and which variants (--filter) and part (--shard).
 */
export interface GpuVariantRun {
  readonly arch: string;
  readonly ptx: string;
  readonly ptxas: Ptxas;
  readonly cacheDir: string;
  /** The --filter pattern (variant ids), if any. */
  readonly filter?: string;
  /** --shard: this run's part of the work. */
  readonly shard?: Shard;
}

/**
 * One module of kernels for a command of its own (sweeps, contention): compiled (or found in the
 * cubin cache), the driver initialised on device 0, and the module loaded. The caller unloads it.
 */
export async function openModule(
  text: string,
  opts: { ptxas: { path: string; versionLine: string }; arch: string; cacheDir: string },
): Promise<{ l: Launcher; m: bigint; compileSeconds: number }> {
  const t0 = performance.now();
  const mod = await compileModules([text], opts);
  const compileSeconds = (performance.now() - t0) / 1000;
  const loaded = loadLauncher();
  if (!('launcher' in loaded)) throw new Error(loaded.reason);
  const l = loaded.launcher;
  l.init();
  l.useDevice(0);
  return { l, m: l.loadModule(readFileSync(mod.modules[0]!.cubin)), compileSeconds };
}
