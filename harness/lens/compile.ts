/**
 * The lens's toolchains: each nvcc (--nvcc, repeatable) named by its version line, compiling every
 * .cu of cases/cuda-lens to a cubin (`nvcc -cubin -arch A -O3`), cached by (version line, arch,
 * flags, NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS, the file's and lens.cuh's text) as the PTX cubins are
 * (backends/gpu/cache.ts); a file nvcc rejects is kept as its message, so its kernels are skipped
 * with it. The SASS atomic lines of each kernel come from the toolchain's own cuobjdump (beside its
 * nvcc), else the one on PATH, where one reads the cubin.
 *
 * A prebuilt folder (`lens --compile-only --out DIR`) holds each toolchain's cubins and a
 * toolchain.json, so a GPU host without that nvcc runs them (`lens --prebuilt DIR`); its keys are
 * checked against the sources, so stale cubins are refused.
 */
import { execFile } from 'node:child_process';
import { sha256Hex as sha } from '../util/sha.js';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { UsageError } from '../util/errors.js';
import { LENS_DIR, LENS_HEADER } from './manifest.js';

const run = promisify(execFile);

export interface Nvcc {
  readonly path: string;
  /** e.g. "Cuda compilation tools, release 13.0, V13.0.88" */
  readonly versionLine: string;
  /** e.g. "nvcc-13.0.88": names the toolchain's folder and results. */
  readonly slug: string;
}

export const NVCC_FLAGS = (arch: string) => ['-cubin', `-arch=${arch}`, '-O3'];
const envFlags = () => ['NVCC_PREPEND_FLAGS', 'NVCC_APPEND_FLAGS'].map((k) => (process.env[k] ? `${k}=${process.env[k]}` : '')).filter(Boolean);

export function slugOf(versionLine: string): string {
  const v = /V(\d+\.\d+\.\d+)/.exec(versionLine)?.[1] ?? sha(versionLine).slice(0, 8);
  return `nvcc-${v}`;
}

/** The nvcc at `path` (or nvcc on PATH, under $CUDA_HOME/bin, /usr/local/cuda/bin), or a UsageError saying what to do. */
export async function findNvcc(path?: string): Promise<Nvcc> {
  const cands = path ? [path] : ['nvcc', ...(process.env.CUDA_HOME ? [join(process.env.CUDA_HOME, 'bin', 'nvcc')] : []), '/usr/local/cuda/bin/nvcc'];
  const errs: string[] = [];
  for (const c of cands) {
    try {
      const { stdout } = await run(c, ['--version']);
      const line = stdout.split('\n').find((l) => /release \d/.test(l));
      if (!line) {
        errs.push(`${c}: --version printed no 'release' line`);
        continue;
      }
      return { path: c, versionLine: line.trim(), slug: slugOf(line) };
    } catch (e) {
      errs.push(`${c}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0]}`);
    }
  }
  throw new UsageError(
    `no nvcc to compile the lens kernels (${errs.join('; ')}): install the CUDA toolkit, give --nvcc PATH, or run cubins compiled elsewhere with --prebuilt DIR`,
  );
}

/** What one toolchain made of one .cu file. */
export interface CompiledFile {
  readonly file: string;
  readonly key: string;
  /** The cubin's path; absent when nvcc rejected the file. */
  readonly cubin?: string;
  /** nvcc's message when it rejected the file (the first lines). */
  readonly error?: string;
  /** Kernel -> its SASS lines that touch memory atomically or generically (ATOM, ATOMS, RED, LD.E, ST.E, CAS); {} when no cuobjdump read the cubin. */
  readonly sass: Readonly<Record<string, readonly string[]>>;
  /** Which disassembler gave the SASS ('' when none). */
  readonly sassBy: string;
  readonly cached: boolean;
}

export interface CompiledToolchain {
  readonly nvcc: Pick<Nvcc, 'path' | 'versionLine' | 'slug'>;
  readonly arch: string;
  readonly flags: readonly string[];
  readonly files: readonly CompiledFile[];
}

/** The .cu files of the lens folder. */
export function lensSources(dir = LENS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cu'))
    .sort();
}

/** A file's cache key: the toolchain, target and flags (NVCC_*_FLAGS included), the file's text and lens.cuh's. */
export function fileKey(versionLine: string, arch: string, flags: readonly string[], file: string, dir = LENS_DIR): string {
  return sha([versionLine, arch, ...flags, file, readFileSync(join(dir, file), 'utf8'), readFileSync(join(dir, LENS_HEADER), 'utf8')].join('\n'));
}

const SASS_LINE = /^\s*\/\*[0-9a-f]+\*\/\s+((?:@!?U?P\d+\s+)?(?:ATOM|ATOMS|ATOMG|RED|REDG|REDUX|CAS|LD\.E|ST\.E)\b[^;]*;)/;

/** Kernel -> its atomic and generic load/store SASS lines, from the first cuobjdump that reads the cubin. */
export async function sassOf(cubin: string, nvccPath?: string): Promise<{ sass: Record<string, string[]>; by: string }> {
  const tools = [
    ...(nvccPath && nvccPath.includes('/') ? [join(dirname(nvccPath), 'cuobjdump'), join(dirname(nvccPath), '..', '..', '..', 'bin', 'cuobjdump')] : []),
    'cuobjdump',
  ];
  for (const t of tools) {
    try {
      const { stdout } = await run(t, ['-sass', cubin], { maxBuffer: 1 << 28 });
      const out: Record<string, string[]> = {};
      let cur = '';
      for (const line of stdout.split('\n')) {
        const f = /Function : (\S+)/.exec(line);
        if (f) {
          cur = f[1]!;
          out[cur] = [];
          continue;
        }
        const m = SASS_LINE.exec(line);
        if (cur && m) out[cur]!.push(m[1]!.replace(/\s+/g, ' ').trim());
      }
      if (Object.keys(out).length) {
        let version = '';
        try {
          version = ((await run(t, ['--version'])).stdout.split('\n').find((l) => /release/.test(l)) ?? '').trim();
        } catch {
          // version unknown
        }
        return { sass: out, by: `${t}${version ? ` (${version})` : ''}` };
      }
    } catch {
      // this one does not exist or cannot read the cubin: try the next
    }
  }
  return { sass: {}, by: '' };
}

function writeAtomic(file: string, data: string | Buffer): void {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** Compiles (or finds in `cacheDir`) every lens file with one nvcc. */
export async function compileLens(nvcc: Nvcc, arch: string, cacheDir: string, files = lensSources(), dir = LENS_DIR): Promise<CompiledToolchain> {
  const cache = join(cacheDir, 'lens', nvcc.slug);
  mkdirSync(cache, { recursive: true });
  const out: CompiledFile[] = new Array(files.length);
  const flags = [...NVCC_FLAGS(arch), ...envFlags()];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(availableParallelism(), files.length)) }, async () => {
      while (next < files.length) {
        const i = next++;
        const file = files[i]!;
        const key = fileKey(nvcc.versionLine, arch, flags, file, dir);
        const base = join(cache, `${basename(file, '.cu')}.${key.slice(0, 16)}`);
        if (existsSync(`${base}.json`)) {
          try {
            const m = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as {
              key: string;
              sha256?: string;
              error?: string;
              sass: Record<string, string[]>;
              sassBy: string;
            };
            if (m.key === key && (m.error !== undefined || (existsSync(`${base}.cubin`) && sha(readFileSync(`${base}.cubin`)) === m.sha256))) {
              out[i] = {
                file,
                key,
                ...(m.error !== undefined ? { error: m.error } : { cubin: `${base}.cubin` }),
                sass: m.sass,
                sassBy: m.sassBy,
                cached: true,
              };
              continue;
            }
          } catch {
            // a broken entry: compile again
          }
        }
        const tmp = `${base}.tmp-${process.pid}.cubin`;
        try {
          await run(nvcc.path, [...NVCC_FLAGS(arch), '-I', dir, '-o', tmp, join(dir, file)], { maxBuffer: 1 << 26 });
        } catch (e) {
          const err = (e as { stderr?: string }).stderr ?? '';
          const lines = err
            .split('\n')
            .filter((l) => /error|fatal/i.test(l))
            .slice(0, 4);
          const error =
            (lines.length ? lines : err.split('\n').filter(Boolean).slice(0, 4)).map((l) => l.trim().replace(/^.*\/cases\/cuda-lens\//, '')).join(' | ') ||
            String((e as Error).message).split('\n')[0]!;
          writeAtomic(`${base}.json`, JSON.stringify({ key, file, versionLine: nvcc.versionLine, error, sass: {}, sassBy: '' }));
          out[i] = { file, key, error, sass: {}, sassBy: '', cached: false };
          continue;
        }
        const { sass, by } = await sassOf(tmp, nvcc.path);
        const cubin = readFileSync(tmp);
        renameSync(tmp, `${base}.cubin`);
        writeAtomic(`${base}.json`, JSON.stringify({ key, file, versionLine: nvcc.versionLine, sha256: sha(cubin), sass, sassBy: by }));
        out[i] = { file, key, cubin: `${base}.cubin`, sass, sassBy: by, cached: false };
      }
    }),
  );
  return { nvcc: { path: nvcc.path, versionLine: nvcc.versionLine, slug: nvcc.slug }, arch, flags, files: out };
}

interface ToolchainJson {
  readonly schema: 'ptx-reduction-conformance/cuda-lens-prebuilt';
  readonly nvcc: { path: string; versionLine: string; slug: string };
  readonly arch: string;
  readonly flags: readonly string[];
  readonly files: readonly {
    file: string;
    key: string;
    cubin?: string;
    sha256?: string;
    error?: string;
    sass: Record<string, readonly string[]>;
    sassBy: string;
  }[];
}

/** Writes a toolchain's cubins and toolchain.json under `out`/<slug>/ (the prebuilt layout). */
export function writePrebuilt(t: CompiledToolchain, out: string): string {
  const d = join(out, t.nvcc.slug);
  mkdirSync(d, { recursive: true });
  const files = t.files.map((f) => {
    if (!f.cubin) return { file: f.file, key: f.key, error: f.error ?? '', sass: { ...f.sass }, sassBy: f.sassBy };
    const name = `${basename(f.file, '.cu')}.cubin`;
    copyFileSync(f.cubin, join(d, name));
    return { file: f.file, key: f.key, cubin: name, sha256: sha(readFileSync(f.cubin)), sass: { ...f.sass }, sassBy: f.sassBy };
  });
  const j: ToolchainJson = { schema: 'ptx-reduction-conformance/cuda-lens-prebuilt', nvcc: t.nvcc, arch: t.arch, flags: t.flags, files };
  writeFileSync(join(d, 'toolchain.json'), `${JSON.stringify(j, null, 1)}\n`);
  return d;
}

/**
 * Every toolchain of a prebuilt folder (each <slug>/toolchain.json), checked: the arch must match,
 * every file's key must be what the current sources give (else the folder is stale), every cubin
 * intact. A UsageError says what is wrong and what to run.
 */
export function readPrebuilt(dirIn: string, arch: string, dir = LENS_DIR): CompiledToolchain[] {
  if (!existsSync(dirIn))
    throw new UsageError(`--prebuilt ${dirIn}: no such folder; write one with \`npm run conformance -- lens --compile-only --out ${dirIn} [--nvcc PATH]...\``);
  const subs = readdirSync(dirIn).filter((s) => existsSync(join(dirIn, s, 'toolchain.json')));
  if (!subs.length)
    throw new UsageError(
      `--prebuilt ${dirIn}: no <toolchain>/toolchain.json in it; write one with \`npm run conformance -- lens --compile-only --out ${dirIn}\``,
    );
  const sources = lensSources(dir);
  return subs.sort().map((s) => {
    const d = join(dirIn, s);
    let j: ToolchainJson;
    try {
      j = JSON.parse(readFileSync(join(d, 'toolchain.json'), 'utf8')) as ToolchainJson;
    } catch (e) {
      throw new UsageError(`--prebuilt: ${join(d, 'toolchain.json')} is not JSON (${(e as Error).message}); write the folder again with lens --compile-only`);
    }
    if (j.schema !== 'ptx-reduction-conformance/cuda-lens-prebuilt')
      throw new UsageError(`--prebuilt: ${join(d, 'toolchain.json')} is no lens prebuilt folder (schema '${String(j.schema)}')`);
    if (j.arch !== arch) throw new UsageError(`--prebuilt: ${d} was compiled for ${j.arch}, this run is for ${arch}; give --arch ${j.arch} or compile again`);
    const files: CompiledFile[] = [];
    for (const file of sources) {
      const f = j.files.find((x) => x.file === file);
      if (!f) throw new UsageError(`--prebuilt: ${d} has no ${file} (${j.nvcc.versionLine}); compile the folder again with lens --compile-only`);
      const key = fileKey(j.nvcc.versionLine, arch, j.flags, file, dir);
      if (f.key !== key)
        throw new UsageError(
          `--prebuilt: ${d}: ${file} was compiled from other sources than cases/cuda-lens/ holds now (stale); compile the folder again with lens --compile-only --out ${dirIn}`,
        );
      if (f.cubin) {
        const p = join(d, f.cubin);
        if (!existsSync(p) || sha(readFileSync(p)) !== f.sha256) throw new UsageError(`--prebuilt: ${p} is missing or altered; compile the folder again`);
        files.push({ file, key, cubin: p, sass: f.sass, sassBy: f.sassBy, cached: true });
      } else files.push({ file, key, error: f.error ?? 'not compiled', sass: {}, sassBy: '', cached: true });
    }
    return { nvcc: j.nvcc, arch: j.arch, flags: j.flags, files };
  });
}
