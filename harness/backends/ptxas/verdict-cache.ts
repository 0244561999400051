/**
 * The ptxas verdict cache, beside the cubin cache (`<cacheDir>/ptxas-verdicts/`): what ptxas said
 * of one catalog entry (accepted or not, its messages, a crash's signal), keyed by the ptxas
 * binary's hash, the target and the PTX text of the entry's own one-entry module (backend.ts: the
 * hash of that module's template, the empty module of its PTX ISA version, and the entry's line).
 * A second run on the same toolchain asks ptxas nothing it already answered, crashes included; a
 * different ptxas binary (another hash) finds nothing.
 *
 * One file per (ptxas hash, target) (`.v2`: CRC-32 checksums; the sha256 ones of the files before
 * are not read), one JSON line per answer, each line with a checksum of its key and answer: a line that does not parse or whose checksum is wrong is ignored (the entry is
 * asked again) and the file is rewritten without it (temporary name, then rename). New answers are
 * appended at the end of a run, one write each run.
 *
 * The binary's hash: sha256 of the file `path` names, computed once per run (per path, size and
 * mtime). Where that file is a short wrapper script (`#!/bin/sh\nexec /usr/local/cuda-13.0/bin/ptxas "$@"`),
 * the executable files its absolute paths name are hashed with it, so that a new ptxas behind the same wrapper
 * is a new toolchain too.
 */
import { createHash } from 'node:crypto';
import { sha256Hex as sha } from '../../util/sha.js';
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Acceptance } from './classify.js';

const hashes = new Map<string, string>();

/**
 * sha256 of the ptxas binary (and, for a wrapper script, of the files it names), once per run and,
 * given the cache folder, once per build of those files: kept under `<cacheDir>/ptxas-hash/`, keyed by
 * each file's path, size, modification and change times and inode (hashing CUDA 13.0's 38 MB ptxas
 * took 0.3 s of every CPU run's thread on the 2-core machine).
 */
export function ptxasBinaryHash(path: string, cacheDir?: string): string {
  // the files hashed: ptxas, and where it is a short script, the files it names (read each time: small)
  const files = [path];
  if (statSync(path).size < 4096) {
    const body = readFileSync(path, 'utf8');
    if (body.startsWith('#!')) {
      for (const m of body.matchAll(/(?<![\w.-])(\/[\w.+\-/]+)/g)) {
        try {
          const st = statSync(m[1]!);
          if (m[1] !== path && !files.includes(m[1]!) && st.isFile() && st.mode & 0o111) files.push(m[1]!);
        } catch {
          // not a file: a word of the script, not a program it runs (non-executable files, a log, are left out too)
        }
      }
    }
  }
  const memo = files
    .map((f) => {
      const st = statSync(f);
      return `${f}\0${st.size}\0${st.mtimeMs}\0${st.ctimeMs}\0${st.ino}`;
    })
    .join('\0');
  const known = hashes.get(memo);
  if (known) return known;
  const kept = cacheDir ? join(cacheDir, 'ptxas-hash', sha(memo)) : undefined;
  let out: string | undefined;
  try {
    if (kept) out = /^[0-9a-f]{64}$/.exec(readFileSync(kept, 'utf8'))?.[0];
  } catch {
    // not kept yet
  }
  if (!out) {
    const h = createHash('sha256');
    for (const f of files) h.update(`\0${f}\0`).update(readFileSync(f));
    out = h.digest('hex');
    if (kept) {
      try {
        mkdirSync(join(cacheDir!, 'ptxas-hash'), { recursive: true });
        const tmp = `${kept}.tmp-${process.pid}`;
        writeFileSync(tmp, out);
        renameSync(tmp, kept);
      } catch {
        // a folder that cannot be written costs the hashing only
      }
    }
  }
  hashes.set(memo, out);
  return out;
}

/** The cache key of one compile: the ptxas binary's hash, the target and the PTX text. */
export function verdictKey(binaryHash: string, target: string, ptxText: string): string {
  return sha(`${binaryHash}\n${target}\n${ptxText}`);
}

/** Signals that are ptxas's own failure (a bug, the same every time), not something done to it. */
const STABLE_CRASHES = new Set(['SIGSEGV', 'SIGABRT', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGTRAP']);

/** Whether an answer may be kept: every accept and reject, and crashes of ptxas's own (not a timeout or a kill). */
export function cacheable(a: Acceptance): boolean {
  return !a.crashed || STABLE_CRASHES.has(a.crashed);
}

/** A stored value: an entry's acceptance, or a preflight's outcome (`{ broken: why }` or `{}`). */
export type CachedValue = Acceptance | { readonly preflight: string | null };

/** A line's checksum, 16 hex digits: CRC-32 of its key and of its value (a torn or altered line, not an attack). */
const lineSum = (k: string, v: string) => hex8(crc32(k)) + hex8(crc32(v));
const hex8 = (x: number) => x.toString(16).padStart(8, '0');

function valid(v: unknown): v is CachedValue {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  if ('preflight' in o) return o.preflight === null || typeof o.preflight === 'string';
  return (
    typeof o.accepted === 'boolean' &&
    Array.isArray(o.messages) &&
    o.messages.every((m) => typeof m === 'string') &&
    typeof o.line === 'string' &&
    (o.crashed === undefined || typeof o.crashed === 'string')
  );
}

export interface VerdictCacheStats {
  /** Lines read back whole. */
  loaded: number;
  /** Lines ignored: unreadable, a wrong checksum or a wrong shape (the file is rewritten without them at flush). */
  corrupt: number;
  hits: number;
  misses: number;
  /** New answers written at flush. */
  written: number;
}

function verdictFile(cacheDir: string, binaryHash: string, target: string): string {
  return join(cacheDir, 'ptxas-verdicts', `${binaryHash.slice(0, 24)}-${target}.v2.jsonl`);
}

/** The last file read, by its path, size and time: read again only when it changed. */
let lastRead: { stamp: string; read: FileRead } | undefined;

interface FileRead {
  readonly map: ReadonlyMap<string, CachedValue>;
  readonly loaded: number;
  readonly corrupt: number;
}

/** The answers a verdict file holds (undefined: none, or unreadable), read once while it is unchanged. */
function readVerdictFile(file: string): FileRead | undefined {
  let stamp: string;
  try {
    const st = statSync(file);
    stamp = `${file}\0${st.size}\0${st.mtimeMs}`;
  } catch {
    return undefined;
  }
  if (lastRead?.stamp === stamp) return lastRead.read;
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const map = new Map<string, CachedValue>();
  let loaded = 0;
  let corrupt = 0;
  for (const line of text.split('\n')) {
    if (!line) continue;
    // a line as flush writes it, {"k":KEY,"v":VALUE,"s":SUM}: the sum checked on VALUE's own text,
    // and only VALUE parsed (KEY is hex, SUM 16 hex digits); any other line goes the general way below
    const kEnd = line.startsWith('{"k":"') ? line.indexOf('","v":', 6) : -1;
    const sAt = line.length - 18;
    if (kEnd > 0 && line.endsWith('"}') && line.startsWith(',"s":"', sAt - 6) && sAt - 6 > kEnd + 6) {
      const k = line.slice(6, kEnd);
      const vText = line.slice(kEnd + 6, sAt - 6);
      if (/^[0-9a-f]+$/.test(k) && lineSum(k, vText) === line.slice(sAt, sAt + 16)) {
        try {
          const v = JSON.parse(vText) as unknown;
          if (valid(v)) {
            map.set(k, v);
            loaded++;
            continue;
          }
        } catch {
          // not JSON after all: judged below
        }
      }
    }
    try {
      const o = JSON.parse(line) as { k?: unknown; v?: unknown; s?: unknown };
      const v = JSON.stringify(o.v);
      if (typeof o.k !== 'string' || o.s !== lineSum(o.k, v) || !valid(o.v)) throw new Error('bad line');
      map.set(o.k, o.v);
      loaded++;
    } catch {
      corrupt++;
    }
  }
  const read = { map, loaded, corrupt };
  lastRead = { stamp, read };
  return read;
}

/**
 * Reads the verdict file of (cacheDir, ptxas binary, target) now, so that the VerdictCache a run
 * makes next finds it read (the CPU run does it while its case child selects the cases).
 */
export function preloadVerdictFile(cacheDir: string, binaryHash: string, target: string): void {
  readVerdictFile(verdictFile(cacheDir, binaryHash, target));
}

export class VerdictCache {
  readonly file: string;
  readonly stats: VerdictCacheStats = { loaded: 0, corrupt: 0, hits: 0, misses: 0, written: 0 };
  private readonly map: Map<string, CachedValue> = new Map();
  private readonly fresh = new Map<string, CachedValue>();
  private rewritten = false;

  constructor(cacheDir: string, binaryHash: string, target: string) {
    this.file = verdictFile(cacheDir, binaryHash, target);
    const read = readVerdictFile(this.file);
    if (!read) return;
    this.map = new Map(read.map);
    this.stats.loaded = read.loaded;
    this.stats.corrupt = read.corrupt;
  }

  get(key: string): CachedValue | undefined {
    const v = this.map.get(key);
    if (v) this.stats.hits++;
    else this.stats.misses++;
    return v;
  }

  put(key: string, v: CachedValue): void {
    if ('accepted' in v && !cacheable(v)) return;
    if (this.map.has(key)) return;
    this.map.set(key, v);
    this.fresh.set(key, v);
  }

  /** Writes what was learned: appended, or the whole file anew where a line was corrupt. */
  flush(): void {
    if (!this.fresh.size && (!this.stats.corrupt || this.rewritten)) return;
    const line = (k: string, v: CachedValue) => {
      const s = JSON.stringify(v);
      return `{"k":${JSON.stringify(k)},"v":${s},"s":"${lineSum(k, s)}"}\n`;
    };
    try {
      mkdirSync(join(this.file, '..'), { recursive: true });
      if (this.stats.corrupt && !this.rewritten) {
        const tmp = `${this.file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
        writeFileSync(tmp, [...this.map].map(([k, v]) => line(k, v)).join(''));
        renameSync(tmp, this.file);
      } else appendFileSync(this.file, [...this.fresh].map(([k, v]) => line(k, v)).join(''));
      this.stats.written += this.fresh.size;
      this.fresh.clear();
      if (this.stats.corrupt) this.rewritten = true;
    } catch {
      // a read-only or full cache folder: the answers are not kept, the run is unaffected
    }
  }
}
