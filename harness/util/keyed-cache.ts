/**
 * Files of what the harness's code computes from its inputs (the catalog, the case library's
 * selection), under `<cacheDir>/<kind>/`: each keyed by a text holding the code's fingerprint
 * (util/code-fingerprint.ts), the kind's format and the caller's key; the file named by a hash of
 * that text, which the file holds too and which is compared when it is read (another key, or a file
 * that does not decode: not read, made again and rewritten). Writes go to a temporary name, then a
 * rename, so two runs sharing the folder never read half a file; the newest `keep` files of a kind
 * stay. A folder that cannot be written only costs the making.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeFingerprint } from './code-fingerprint.js';

/** What a cached value is keyed by, beside the code and the format. */
export type CacheKey = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface CacheCodec<T> {
  /** The file's bytes, holding `key` (the whole key text) and the value. */
  readonly encode: (key: string, value: T) => string | NodeJS.ArrayBufferView;
  /** The key text and value a file holds; throws (or returns undefined) on one that does not decode. */
  readonly decode: (data: Buffer) => { key: string; value: T } | undefined;
}

export class KeyedCache<T> {
  constructor(
    private readonly kind: string,
    private readonly format: number,
    private readonly ext: string,
    private readonly codec: CacheCodec<T>,
    private readonly keep = 8,
  ) {}

  private place(dir: string, key: CacheKey): { file: string; keyText: string } {
    const keyText = JSON.stringify({ format: this.format, code: codeFingerprint(), ...key });
    const name = createHash('sha256').update(keyText).digest('hex').slice(0, 32);
    return { file: join(dir, this.kind, `${name}.${this.ext}`), keyText };
  }

  /** The value kept under `key` in `dir`, or undefined (none, another key, or a file that does not decode). */
  read(dir: string, key: CacheKey): T | undefined {
    const { file, keyText } = this.place(dir, key);
    let data: Buffer;
    try {
      data = readFileSync(file);
    } catch {
      return undefined;
    }
    try {
      const o = this.codec.decode(data);
      return o && o.key === keyText ? o.value : undefined;
    } catch {
      return undefined;
    }
  }

  /** Keeps `value` under `key` in `dir` (a folder that cannot be written is left as it is). */
  write(dir: string, key: CacheKey, value: T): void {
    const { file, keyText } = this.place(dir, key);
    const folder = join(dir, this.kind);
    try {
      mkdirSync(folder, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, this.codec.encode(keyText, value));
      renameSync(tmp, file);
      const files = readdirSync(folder)
        .filter((f) => f.endsWith(`.${this.ext}`))
        .map((f) => ({ f: join(folder, f), t: statSync(join(folder, f)).mtimeMs }))
        .sort((a, b) => b.t - a.t);
      for (const old of files.slice(this.keep)) rmSync(old.f, { force: true });
    } catch {
      // a read-only or full cache folder: the next run makes it again
    }
  }
}
