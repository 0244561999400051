/**
 * Vector files (YAML `*.yaml|*.yml`, JSON lines `*.jsonl`): loading and validation, streamed. Every
 * problem of every file is reported, located (`file:line:col: what is wrong; what to do`), before
 * anything runs: `validateVectors` reads all files once and keeps only the problems and a count;
 * `streamVectors` then reads them again and yields the cases in bounded batches. Memory stays a small
 * multiple of one read block (1 MB of text and the cases it holds) plus each file's set of names,
 * whatever the size of the files. The formats are in docs/vector-files.md.
 */
import { isMap, isScalar, parseDocument } from 'yaml';
import { YAML_OPTS } from './yaml-locate.js';
import { type Edition, type EditionRange, inEdition, parseRange, rangeText, specEdition } from '../catalog/editions.js';
import { open, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { isUtf8 } from 'node:buffer';
import { type CaseBatch, type PackedCases, batchSize, isPacked, unpack, unpackAll } from './packed.js';
import type { Case, InputProblem } from './types.js';
import { JSONL_SLACK, JsonlScanner } from './vector-jsonl.js';
import { WHOLE_DOC_LIMIT, YamlScanner } from './vector-yaml.js';

export { WHOLE_DOC_LIMIT };

/** Bytes read at a time from a big file. */
const BLOCK = 1 << 20;
/** Bytes of a big JSON-lines file's first read. */
const FIRST_READ = 16 << 10;
/** Cases per batch that `streamVectors` yields unless told otherwise. */
export const DEFAULT_BATCH = 4096;

const isJsonl = (f: string) => /\.jsonl$/i.test(f);

function scannerFor(file: string, idFile: string, whole: boolean, bytes: number): YamlScanner | JsonlScanner {
  return isJsonl(file) ? new JsonlScanner(file, idFile, true, bytes) : new YamlScanner(file, idFile, whole, bytes);
}

/**
 * Parses and validates one vector file's whole text; `idFile` is the path used in case ids.
 * `fastYaml: false` reads every YAML item with the yaml package (the fast path must agree with it);
 * `packed: false` reads nothing by the packed path (which must agree with the general one).
 */
export function loadVectorText(
  file: string,
  text: string,
  idFile = file,
  opts: { fastYaml?: boolean; packed?: boolean } = {},
): { cases: Case[]; problems: InputProblem[]; packed: number } {
  const fast = opts.fastYaml !== false;
  const s = isJsonl(file)
    ? new JsonlScanner(file, idFile, opts.packed !== false)
    : new YamlScanner(file, idFile, true, text.length, fast, fast && opts.packed !== false);
  const cases = s.push(text, true).flatMap((b) => unpackAll(b));
  return { cases, problems: s.ctx.problems, packed: s.packedItems };
}

/** Every *.yaml / *.yml / *.jsonl under the given files and directories, sorted. */
export async function vectorFiles(paths: readonly string[]): Promise<string[]> {
  return (await vectorFilesByEdition(paths)).files;
}

/**
 * The vector files under `paths`, and those left out because their `editions:` header names PTX ISA
 * editions other than the one the run is judged against (their expect: values follow another text).
 */
export async function vectorFilesByEdition(
  paths: readonly string[],
  edition: Edition = specEdition(),
): Promise<{ files: string[]; leftOut: { file: string; editions: string }[] }> {
  const files: string[] = [];
  const leftOut: { file: string; editions: string }[] = [];
  const walk = async (p: string) => {
    const s = await stat(p);
    if (s.isDirectory()) {
      for (const e of (await readdir(p)).sort()) await walk(join(p, e));
    } else if (/\.(ya?ml|jsonl)$/i.test(p)) {
      const r = await fileEditions(p);
      if (r && !inEdition(r, edition)) leftOut.push({ file: p, editions: rangeText(r) });
      else files.push(p);
    }
  };
  for (const p of paths) await walk(p);
  return { files, leftOut };
}

/** A vector file's `editions:` header (YAML: a top-level key before cases:; JSON lines: in the header line), if it has a valid one. */
export async function fileEditions(file: string): Promise<EditionRange | undefined> {
  const h = await open(file, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(16384);
    const { bytesRead } = await h.read(buf, 0, buf.length, 0);
    head = buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await h.close();
  }
  if (/\.jsonl$/i.test(file)) {
    const first = head.split('\n')[0] ?? '';
    try {
      const v = JSON.parse(first) as { editions?: unknown };
      return typeof v.editions === 'string' ? parseRange(v.editions) : undefined;
    } catch {
      return undefined;
    }
  }
  // the header: the top-level keys before the cases: line, read by the yaml package
  const doc = parseDocument(head.split(/^cases\s*:/m)[0] ?? '', YAML_OPTS);
  const node: unknown = doc.errors.length === 0 && isMap(doc.contents) ? doc.contents.get('editions', true) : undefined;
  // a plain 9.4 is a number to YAML: its text as written
  return isScalar(node) && (typeof node.value === 'string' || typeof node.value === 'number') ? parseRange(node.source ?? String(node.value)) : undefined;
}

interface Sink {
  /** False: a validation pass, which checks cases without building them (it yields placeholders, to count). */
  build?: boolean;
  /** False: do not check that names are unique (streaming after a clean validation). */
  checkNames?: boolean;
  problems?: InputProblem[];
  /** After each block: bytes of this file read so far. */
  onBlock?: (bytes: number) => void;
}

/** Bytes of a file that holds no case read again to say why (empty, blank or a header alone). */
const EMPTY_LOOK = 1 << 16;

/**
 * The cases of one file (scanCases), and a problem naming the file when it holds none and nothing
 * else is wrong with it: an empty file, blank lines only, or a header (YAML's instruction: with an
 * empty cases:, a JSON-lines header line) and no case. Such a file is a mistake (a writer that
 * failed, a wrong file), never a set of tests that passes.
 */
async function* fileCases(file: string, idFile: string, sink: Sink): AsyncGenerator<CaseBatch> {
  const problems: InputProblem[] = [];
  let n = 0;
  for await (const b of scanCases(file, idFile, { ...sink, problems })) {
    n += batchSize(b);
    yield b;
  }
  if (!n) {
    // why there is none: read again only here (a file that holds cases costs nothing more)
    const size = (await stat(file)).size;
    let blank = size === 0;
    if (!blank && size <= EMPTY_LOOK) {
      const fh = await open(file, 'r');
      try {
        const b = Buffer.alloc(size);
        await fh.read(b, 0, size, 0);
        blank = /^\s*$/.test(b.toString('utf8').replace(/^\uFEFF/, ''));
      } finally {
        await fh.close();
      }
    }
    const why = blank
      ? size === 0
        ? 'empty file'
        : 'only blank lines'
      : problems.length
        ? undefined
        : /\.jsonl$/i.test(file)
          ? 'a header line and no case after it'
          : 'its cases: list is empty';
    // a blank file's one problem is that it is blank (the reader's "a vector file is a map ..." says less)
    if (why)
      problems.splice(0, problems.length, {
        file: idFile,
        line: 1,
        col: 1,
        message: `holds no case (${why}); write cases into it (docs/vector-files.md shows both forms) or leave it out of --vectors`,
      });
  }
  if (sink.problems) for (const p of problems) sink.problems.push(p);
}

/**
 * The cases of one file, a block's worth at a time (problems go to `sink`). A file up to
 * WHOLE_DOC_LIMIT is read at once, and may be parsed as one YAML document when it is not in the
 * simple layout; a bigger one is read in 1 MB blocks (fewer blocks: less of the per-block work of reading and handing on).
 */
async function* scanCases(file: string, idFile: string, sink: Sink): AsyncGenerator<CaseBatch> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const whole = size <= WHOLE_DOC_LIMIT;
    const scanner = scannerFor(file, idFile, whole, size);
    scanner.ctx.build = sink.build !== false;
    scanner.ctx.checkNames = sink.checkNames !== false;
    const dec = new StringDecoder('utf8');
    // (a whole JSON-lines file with the scanner's slack after it, JsonlScanner.lines; a big one has its own buffer, below)
    const buf = Buffer.allocUnsafe(whole ? Math.max(1, size) + JSONL_SLACK : scanner instanceof JsonlScanner ? 0 : BLOCK);
    let done = 0;
    if (whole) {
      let n = 0;
      while (n < size) {
        const r = await fh.read(buf, n, size - n, n);
        if (r.bytesRead === 0) break;
        n += r.bytesRead;
      }
      let batches: CaseBatch[];
      if (scanner instanceof JsonlScanner) batches = scanner.pushBytes(buf.subarray(0, n), true);
      else {
        let text = dec.write(buf.subarray(0, n)) + dec.end();
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        batches = scanner.push(text, true);
      }
      sink.onBlock?.(n);
      for (const b of batches) {
        if (isPacked(b)) yield b;
        else for (let i = 0; i < b.length; i += BATCH_OUT) yield b.slice(i, i + BATCH_OUT);
      }
    } else if (scanner instanceof JsonlScanner) {
      // lines in place: the unfinished line moves to the front of the buffer, the next bytes follow
      // it; the buffer's last JSONL_SLACK bytes are never filled, so that the packed scanner's looks a
      // few bytes ahead (past the data's end at a block's unfinished line) stay inside the array
      // (V8 compiles typed-array reads for in-bounds indexes; one past the end undoes the code)
      let jb = Buffer.allocUnsafe(BLOCK + JSONL_SLACK);
      let have = 0;
      for (;;) {
        if (have === jb.length - JSONL_SLACK) {
          const g = Buffer.allocUnsafe(jb.length * 2); // one line longer than the buffer
          jb.copy(g, 0, 0, have);
          jb = g;
        }
        // the file's first read is small (FIRST_READ): the scanner's loop then ends once before V8
        // compiles it, so its compiled code has seen its way out (else that first exit, at the end
        // of the first big block, undoes the compiled loop mid-read and it is compiled again)
        const r = await fh.read(jb, have, done === 0 ? FIRST_READ : jb.length - JSONL_SLACK - have, null);
        const last = r.bytesRead === 0;
        done += r.bytesRead;
        const n = have + r.bytesRead;
        const used = scanner.lines(jb, n, last);
        jb.copyWithin(0, used, n);
        have = n - used;
        sink.onBlock?.(done);
        yield* scanner.take(last);
        if (last) break;
      }
    } else {
      // the bytes as they are (the scanner reads UTF-8 bytes; no text decoded here and encoded again
      // there), unless they are not UTF-8: then decoded, as a small file is, with U+FFFD for the
      // bytes that are not (a multibyte character cut by the block's end stays for the next block)
      let first = true;
      let carry = Buffer.alloc(0);
      let asText = false;
      for (;;) {
        const r = await fh.read(buf, 0, BLOCK, null);
        const last = r.bytesRead === 0;
        done += r.bytesRead;
        let batches: CaseBatch[] | undefined;
        let chunk: Buffer = buf.subarray(0, r.bytesRead);
        if (!asText) {
          if (carry.length) chunk = Buffer.concat([carry, chunk]);
          const cut = last ? chunk.length : utf8Cut(chunk);
          carry = Buffer.from(chunk.subarray(cut));
          chunk = chunk.subarray(0, cut);
          if (first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
          if (isUtf8(chunk)) batches = scanner.pushBytes(chunk, last);
          else asText = true; // from this block on, decoded
        }
        if (!batches) {
          let text = dec.write(chunk) + (last ? dec.end() : '');
          if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
          batches = scanner.push(text, last);
        }
        first = false;
        sink.onBlock?.(done);
        yield* batches;
        if (last) break;
      }
    }
    if (sink.problems) for (const p of scanner.ctx.problems) sink.problems.push(p);
  } finally {
    await fh.close();
  }
}

/** Where the last whole UTF-8 character of `b` ends (a multibyte character cut at the end is left out). */
function utf8Cut(b: Uint8Array): number {
  let i = b.length;
  // back over at most 3 continuation bytes to a lead byte; keep the lead's character only if whole
  for (let k = 1; k <= 4 && i - k >= 0; k++) {
    const c = b[i - k]!;
    if ((c & 0xc0) === 0x80) continue;
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return need > k ? i - k : i;
  }
  return i;
}

/** Cases handed on at once from a small file (its cases are all in memory anyway). */
const BATCH_OUT = 8192;

/**
 * Reads every file once and keeps only its problems and a count of its good cases (memory: one
 * block of text and its cases, and each file's names). `onProgress` is called after every block and
 * file: files done, cases so far, bytes read, bytes in all; the CLI prints it as a progress line.
 */
export async function validateVectors(
  paths: readonly string[],
  idRoot: string,
  onProgress?: (filesDone: number, casesSoFar: number, bytesDone: number, bytesTotal: number) => void,
  /**
   * Also hands on the good cases as they are read (packed blocks and batches of objects, in file
   * order): one pass that validates and feeds a consumer, which must hold back what it makes of them
   * until the pass ends without problems (the reference backend does; see harness/backends/reference/vectors.ts).
   */
  onCases?: (batch: CaseBatch) => void,
): Promise<{ problems: InputProblem[]; cases: number; files: string[] }> {
  const files = await vectorFiles(paths);
  let total = 0;
  for (const f of files) total += (await stat(f)).size;
  const problems: InputProblem[] = [];
  let cases = 0;
  let before = 0;
  let filesDone = 0;
  for (const f of files) {
    const sink: Sink = { problems, build: onCases !== undefined, onBlock: (b) => onProgress?.(filesDone, cases, before + b, total) };
    for await (const cs of fileCases(f, relative(idRoot, f), sink)) {
      cases += batchSize(cs);
      onCases?.(cs);
    }
    before += (await stat(f)).size;
    filesDone++;
    onProgress?.(filesDone, cases, before, total);
  }
  return { problems, cases, files };
}

/** The vector files under `paths` (as validateVectors reads them) and their bytes together. */
export async function vectorFilesSize(paths: readonly string[]): Promise<{ files: string[]; bytes: number }> {
  const files = await vectorFiles(paths);
  let bytes = 0;
  for (const f of files) bytes += (await stat(f)).size;
  return { files, bytes };
}

/** Bytes a held case takes at most, about: a packed block's slot arrays per case (memory, b, c, expect, line, name), and a Case object with its BigInts. */
const HELD_PACKED_BYTES = 128;
const HELD_OBJECT_BYTES = 1024;

/**
 * One read for a run that must know every problem before anything runs and then run the cases:
 * validates every file as validateVectors does and holds the good cases that `keep` takes (asked
 * once per case, in file order, as streamVectors asks it) in memory, packed blocks as they are,
 * while they take at most `holdBytes` (about 128 bytes a packed case, 1 KB a case object; files
 * bigger than that are not held at all). `held` is undefined when they did not fit (the caller
 * streams the files again: a second read, in bounded memory whatever their size) or when there are
 * problems (nothing is to run).
 */
export async function validateAndHold(
  paths: readonly string[],
  idRoot: string,
  opts: {
    keep?: (variantId: string) => boolean;
    holdBytes: number;
    onProgress?: (filesDone: number, casesSoFar: number, bytesDone: number, bytesTotal: number) => void;
  },
): Promise<{ problems: InputProblem[]; cases: number; files: string[]; bytes: number; held: CaseBatch[] | undefined }> {
  const { bytes } = await vectorFilesSize(paths);
  const keep = opts.keep;
  let held: CaseBatch[] | undefined = bytes <= opts.holdBytes ? [] : undefined;
  let heldBytes = 0;
  const hold = (b: CaseBatch) => {
    if (!held) return;
    let kept: CaseBatch;
    if (isPacked(b)) {
      const k = keep ? b.filter((i) => keep(b.variantId(i))) : b;
      heldBytes += k.capacity * HELD_PACKED_BYTES;
      kept = k;
    } else {
      const k = keep ? b.filter((c) => keep(c.variant.id)) : b;
      heldBytes += k.length * HELD_OBJECT_BYTES;
      kept = k;
    }
    if (heldBytes > opts.holdBytes)
      held = undefined; // too many to hold: the caller reads them again (with a keep of its own)
    else if (batchSize(kept)) held.push(kept);
  };
  const v = await validateVectors(paths, idRoot, opts.onProgress, held ? hold : undefined);
  return { ...v, bytes, held: v.problems.length ? undefined : held };
}

/**
 * The good cases of the files, in file order, in batches of `batch` (default 4096; the last may be
 * shorter), keeping those whose variant id `keep` accepts. Cases with problems are skipped, but
 * names are not checked for uniqueness again (that set is the one cost that grows with a file):
 * run `validateVectors` first, and stream only when it found no problem. With `packed`, cases the
 * packed readers took come as packed blocks (of at most 4096) between batches of Case objects;
 * otherwise every case is an object.
 */
export function streamVectors(
  paths: readonly string[],
  idRoot: string,
  opts: { batch?: number; keep?: (variantId: string) => boolean; packed?: false },
): AsyncGenerator<Case[]>;
export function streamVectors(
  paths: readonly string[],
  idRoot: string,
  opts: { batch?: number; keep?: (variantId: string) => boolean; packed: true },
): AsyncGenerator<CaseBatch>;
export function streamVectors(paths: readonly string[], idRoot: string): AsyncGenerator<Case[]>;
export async function* streamVectors(
  paths: readonly string[],
  idRoot: string,
  opts: { batch?: number; keep?: (variantId: string) => boolean; packed?: boolean } = {},
): AsyncGenerator<CaseBatch> {
  const size = Math.max(1, opts.batch ?? DEFAULT_BATCH);
  const keep = opts.keep;
  let out: Case[] = [];
  for (const f of await vectorFiles(paths)) {
    for await (const cs of fileCases(f, relative(idRoot, f), { checkNames: false })) {
      if (isPacked(cs) && opts.packed) {
        if (out.length) {
          yield out;
          out = [];
        }
        const kept: PackedCases = keep ? cs.filter((i) => keep(cs.variantId(i))) : cs;
        if (kept.n) yield kept;
        continue;
      }
      const n = batchSize(cs);
      for (let i = 0; i < n; i++) {
        // keep is asked once per case, in order (a --shard keep counts them)
        const c = isPacked(cs) ? (keep && !keep(cs.variantId(i)) ? undefined : unpack(cs, i)) : keep && !keep(cs[i]!.variant.id) ? undefined : cs[i]!;
        if (!c) continue;
        out.push(c);
        if (out.length >= size) {
          yield out;
          out = [];
        }
      }
    }
  }
  if (out.length) yield out;
}

/**
 * Loads vector files and directories, all cases at once (for small sets: the directed library,
 * tests; a run over big files validates and streams instead). Case ids use paths relative to
 * `idRoot` (the directory of the directed library for its own files, the working directory for
 * users').
 */
export async function loadVectors(paths: readonly string[], idRoot = process.cwd()): Promise<{ cases: Case[]; problems: InputProblem[] }> {
  const cases: Case[] = [];
  const problems: InputProblem[] = [];
  for (const f of await vectorFiles(paths)) {
    for await (const cs of fileCases(f, relative(idRoot, f), { problems })) for (const c of unpackAll(cs)) cases.push(c);
  }
  return { cases, problems };
}

/**
 * The case named `name` in one file, reading only as far as it (at most one case with that name is
 * good: names are unique in a file). Not found: the file's problems, which may be why.
 */
export async function findInFile(file: string, idRoot: string, name: string): Promise<{ case?: Case; problems: InputProblem[] }> {
  const problems: InputProblem[] = [];
  for await (const cs of fileCases(file, relative(idRoot, file), { problems })) {
    if (isPacked(cs)) {
      const i = cs.indexOfName(name);
      if (i >= 0) return { case: unpack(cs, i), problems: [] };
    } else for (const c of cs) if (c.origin.kind === 'vectors' && c.origin.name === name) return { case: c, problems: [] };
  }
  return { problems };
}
