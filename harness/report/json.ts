/**
 * The JSON run report: versioned, described by reports/schema/run-report.schema.json, written
 * atomically (a temporary file renamed into place) so a reader never sees half a document.
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { ReportFinding } from '../compare/compare.js';
import type { ExpectationOutcome } from '../compare/expectations.js';
import { cpus, hostname, platform, release, arch as cpuArch } from 'node:os';
import { join } from 'node:path';
import { CATALOG_PTX_ISA } from '../arch/targets.js';
import { ruleIndex, type RuleInfo } from '../catalog/rules.js';
import type { Edition } from '../catalog/editions.js';
import type { EditionCheck } from '../compare/editions.js';
import { type EntryResult, type RuleDetail, countResults } from './types.js';
import { type LineRef, lineOf } from './lines.js';
import { FileWriter } from './file-writer.js';
import { type SkipAccount, skipAccount } from './skips.js';

export const REPORT_SCHEMA_ID = 'ptx-reduction-conformance/run-report';
/**
 * 4: a result's `catalog` is an index into the report's `judgements` (the few hundred distinct
 * catalog judgements, each written once, its `detail` an index into `details`); 3: `catalog` inline,
 * its `detail` an index into `details` (the few distinct rule trails, each written once); 2: inline;
 * 1: before findings and expectations.
 */
export const REPORT_VERSION = 4;

export interface RunReport {
  readonly schema: typeof REPORT_SCHEMA_ID;
  readonly version: typeof REPORT_VERSION;
  readonly partial: boolean;
  /** Why a partial report stopped. */
  readonly partialReason?: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly elapsedMs: number;
  readonly command: readonly string[];
  readonly machine: { hostname: string; platform: string; osRelease: string; cpu: string; cpus: number; node: string };
  readonly toolchain: {
    ptxas?: { path: string; foundVia: string; release: string; versionLine: string; maxPtx: string; targets: readonly string[] };
    gpu?: { device?: unknown; driverVersion?: number };
  };
  readonly catalog: { ptxIsa: string; entries: number };
  readonly arch: string;
  readonly modulePtx: string;
  readonly backend: { name: string; reason: string; passedOver: readonly string[] };
  readonly filter: string | null;
  readonly seed: number;
  /** The PTX ISA edition the run was judged against (--spec-edition; absent in reports before editions: 9.1). */
  readonly specEdition?: Edition;
  /** A --shard run: which part, and the passes it kept whole (--keep; null: all), which merge applies again to the whole. */
  readonly shard?: { readonly index: number; readonly count: number; readonly keepPasses: number | null };
  /** A merged report: the shard reports it was put together from. */
  readonly mergedFrom?: readonly {
    readonly file: string;
    readonly index: number;
    readonly startedAt: string;
    readonly hostname: string;
    readonly partial: boolean;
  }[];
  readonly counts: ReturnType<typeof countResults>;
  /** The skipped results counted by what running them needs (harness/report/skips.ts); absent in reports before it. */
  readonly skips?: SkipAccount;
  readonly stats: Record<string, number>;
  readonly rules: Record<string, Omit<RuleInfo, 'id'>>;
  readonly findings: readonly ReportFinding[];
  readonly expectations: { readonly file: string | null; readonly outcomes: readonly ExpectationOutcome[] };
  readonly results: readonly EntryResult[];
  /** Exhaustive sweeps (`sweep`): one per variant swept, with its map. */
  readonly sweeps?: readonly SweepReport[];
  /** Sweeps the --budget left out (32-bit float add against named values), with what they would have covered. */
  readonly sweepsNotRun?: readonly { readonly variant: string; readonly domain: string }[];
  /** Kept hardware cases whose reference depends on the edition, judged under every edition (harness/compare/editions.ts). */
  readonly editionCheck?: EditionCheck;
  /** Contention groups (`contend`): one per variant x layout x operand set, with its outcome histogram. */
  readonly contention?: readonly ContentionReport[];
  /** The CUDA C++ lens's own record (harness/lens/report.ts LensSection): calls, memories, nvcc, the table per call. */
  readonly lens?: { readonly [key: string]: unknown };
}

/** One variant's sweep (harness/sweep/run.ts). */
/** One distinct outcome of a contention group, with how many addresses gave it. */
export interface OutcomeCount {
  readonly count: number;
  /** Final memory elements, hex. */
  readonly memory: readonly string[];
  /** Per participant, its returned elements, hex (atom with a destination). */
  readonly returned?: readonly (readonly string[])[];
  readonly verdict: 'pass' | 'observed' | 'mismatch' | 'error';
  readonly reason: string;
  /** The order reconstructed per lane (atom). */
  readonly orders?: readonly (readonly number[])[];
}

export interface ContentionReport {
  /** The group's result id (variant/contend-layout-set). */
  readonly id: string;
  readonly variant: string;
  readonly layout: 'warp' | 'cta' | 'grid' | 'cluster';
  readonly set: string;
  /** Participants on one address. */
  readonly n: number;
  /** Addresses per launch (two launches). */
  readonly reps: number;
  /** Whether every participant's scope includes the others (else split read/write semantics apply). */
  readonly atomic: boolean;
  readonly verdict: string;
  /** Final states some order allows (red), where computed. */
  readonly allowed?: number;
  readonly deterministic: boolean;
  /** Addresses whose outcome no sequential order explains (a lost update). */
  readonly lostUpdates: number;
  readonly selftest: boolean;
  /** The self-test judged under a narrow scope's split read/write semantics. */
  readonly asSplit?: { readonly verdict: string; readonly reason: string };
  /** Distinct outcomes, most frequent first (up to 16). */
  readonly outcomes: readonly OutcomeCount[];
  /** Distinct outcomes in all. */
  readonly distinct: number;
  /** Addresses (over both launches) by verdict. */
  readonly counts: Readonly<Record<string, number>>;
}

export interface SweepReport {
  readonly variant: string;
  /** Which 2^32 pairs (every 16-bit a x b; or every 32-bit x against a named value); absent in reports before 32-bit sweeps: 16-bit pairs. */
  readonly domain?: string;
  /** Bits per lane (16, or 32); absent: 16. */
  readonly laneBits?: number;
  readonly family: string;
  /** Lanes (pairs) per case. */
  readonly lanes: number;
  readonly pairs: number;
  readonly pass: number;
  readonly observed: number;
  readonly mismatch: number;
  /** Pairs whose returned old value is not the memory before (among the mismatches). */
  readonly returnedMismatch: number;
  /**
   * The mismatches by what went wrong (one behaviour, one group): a signature, how many pairs, and the
   * id of a case kept whole as its example (in results, with its explanation and finding).
   */
  readonly groups?: readonly {
    readonly signature: string;
    readonly count: number;
    readonly example: string;
    /** The expectation that explains the example: the group is a known deviation. */ readonly expectation?: string;
  }[];
  /** Where the memory was (a generic variant is swept in global and in shared memory). */
  readonly space: 'global' | 'shared';
  /** NaN results other than the canonical 0x7fff. */
  readonly nonCanonicalNaN: number;
  /** Cells whose record differed from the reference's (brought back and judged pair by pair). */
  readonly differingCells: number;
  readonly referenceCached: boolean;
  readonly selftest: boolean;
  readonly seconds: { readonly reference: number; readonly gpu: number; readonly judge: number; readonly total: number };
  /** The 256 x 256 map (16-bit pairs: rows a's high byte, columns b's; 32-bit: rows x's high byte, columns its next byte), a PNG data: URI (harness/sweep/picture.ts). */
  readonly picture: string;
  /** Per cell (a_hi << 8 | b_hi; 32-bit: x >>> 16) with any: [cell, mismatching pairs], [cell, NaN results]. */
  readonly cells: { readonly mismatch: readonly (readonly [number, number])[]; readonly nan: readonly (readonly [number, number])[] };
}

export function machineInfo(): RunReport['machine'] {
  const c = cpus();
  return {
    hostname: hostname(),
    platform: platform(),
    osRelease: release(),
    cpu: `${c[0]?.model ?? 'unknown'} (${cpuArch()})`,
    cpus: c.length,
    node: process.version,
  };
}

/** The rules cited by `results`, keyed by id. */
export function citedRules(results: readonly EntryResult[]): RunReport['rules'] {
  const idx = ruleIndex();
  const out: RunReport['rules'] = {};
  for (const r of results) {
    for (const id of r.catalog.rules) {
      if (out[id]) continue;
      const info = idx.get(id);
      if (info) {
        const { id: _id, ...rest } = info;
        out[id] = rest;
      }
    }
  }
  return out;
}

export type ReportInput = Omit<RunReport, 'schema' | 'version' | 'counts' | 'rules' | 'catalog' | 'machine'> & { catalogEntries: number };

export function buildReport(input: ReportInput): RunReport {
  const { catalogEntries, ...rest } = input;
  return {
    schema: REPORT_SCHEMA_ID,
    version: REPORT_VERSION,
    ...rest,
    machine: machineInfo(),
    catalog: { ptxIsa: CATALOG_PTX_ISA, entries: catalogEntries },
    counts: countResults(input.results),
    skips: skipAccount(input.results),
    rules: citedRules(input.results),
  };
}

type CatalogJudgement = EntryResult['catalog'];
/** A catalog judgement as written: its rule trail named by index into `details`. */
type WrittenJudgement = Omit<CatalogJudgement, 'detail'> & { detail?: number };

/**
 * The report as written: every distinct rule trail once in `details`, every distinct catalog
 * judgement (status, expectation, reason, rules, trail) once in `judgements`, each result naming its
 * judgement by index (a default run has a few hundred judgements over twenty thousand results; they
 * were 4 of its 13 MB).
 */
export function reportText(report: RunReport, known?: KnownJson): string {
  const p = reportPieces(report, known);
  return `${p.head}${p.results.map((x) => (typeof x === 'string' ? x : refText(x))).join(',')}]}\n`;
}

/** A result made from a recorded line: its bytes with `"catalog":<index>` for the judgement. */
interface LineWithIndex {
  readonly ref: LineRef;
  readonly j: number;
}
const DECODER = new TextDecoder();
const refText = (x: LineWithIndex) =>
  DECODER.decode(x.ref.buf.subarray(x.ref.start, x.ref.cat)) + String(x.j) + DECODER.decode(x.ref.buf.subarray(x.ref.catEnd, x.ref.end));

/**
 * A result's JSON as already written (the recorder's results.jsonl line of the same object, its
 * catalog judgement inline), or undefined: report.json then takes it with the judgement's index in
 * place of the judgement instead of serializing the result again.
 */
export type KnownJson = (r: EntryResult) => string | undefined;

/** report.json in two pieces: the text up to the results' `[`, and each result's JSON. */
function reportPieces(report: RunReport, known?: KnownJson): { head: string; results: (string | LineWithIndex)[] } {
  const trailIndex = new Map<string, number>();
  const details: (readonly RuleDetail[])[] = [];
  const judgementIndex = new Map<string, number>();
  const judgements: WrittenJudgement[] = [];
  // a judgement object met again (results share them: harness/backends/reference/cases.ts) has its
  // index already: no copy and no JSON of it per result
  const byObject = new Map<CatalogJudgement, number>();
  // a judgement's JSON inline (as a stream line has it), per object: to find it in a known line
  const inline = new Map<CatalogJudgement, string>();
  /** The result's JSON with its judgement's index `j`: from its known line where there is one. */
  const text = (r: EntryResult, j: number): string | LineWithIndex => {
    const ref = lineOf(r);
    if (ref) return { ref, j };
    const line = known?.(r);
    if (line !== undefined) {
      let c = inline.get(r.catalog);
      if (c === undefined) inline.set(r.catalog, (c = `"catalog":${JSON.stringify(r.catalog)}`));
      const at = line.indexOf(c);
      if (at >= 0) return `${line.slice(0, at)}"catalog":${j}${line.slice(at + c.length)}`;
    }
    return JSON.stringify({ ...r, catalog: j });
  };
  const results = report.results.map((r) => {
    const seen = byObject.get(r.catalog);
    if (seen !== undefined) return text(r, seen);
    const { detail: d, ...c } = r.catalog;
    let written: WrittenJudgement = c;
    if (d) {
      const key = JSON.stringify(d);
      let i = trailIndex.get(key);
      if (i === undefined) {
        i = details.length;
        trailIndex.set(key, i);
        details.push(d);
      }
      written = { ...c, detail: i };
    }
    const key = JSON.stringify(written);
    let j = judgementIndex.get(key);
    if (j === undefined) {
      j = judgements.length;
      judgementIndex.set(key, j);
      judgements.push(written);
    }
    byObject.set(r.catalog, j);
    return text(r, j);
  });
  const { results: _r, ...rest } = report;
  // the same text as JSON.stringify({ ...rest, details, judgements, results }), results last
  return { head: `${JSON.stringify({ ...rest, details, judgements }).slice(0, -1)},"results":[`, results };
}

/** A written report's results with their rule trails back inline (a version-3 report: `catalog` inline, `detail` an index). */
export function inlineDetails(details: readonly (readonly RuleDetail[])[] | undefined, results: readonly EntryResult[], file: string): EntryResult[] {
  return results.map((r) => {
    const d = r.catalog.detail as unknown;
    if (typeof d !== 'number') return r;
    const trail = details?.[d];
    if (!trail) throw new Error(`${file}: result ${r.id} names rule trail ${d}, which the report's details do not have`);
    return { ...r, catalog: { ...r.catalog, detail: trail } };
  });
}

/** A written version-4 report's results with their catalog judgements and rule trails back inline (reportText undone). */
export function inlineJudgements(
  judgements: readonly WrittenJudgement[] | undefined,
  details: readonly (readonly RuleDetail[])[] | undefined,
  results: readonly (Omit<EntryResult, 'catalog'> & { catalog: unknown })[],
  file: string,
): EntryResult[] {
  const full: CatalogJudgement[] = (judgements ?? []).map((j) => {
    if (j.detail === undefined) return j as CatalogJudgement;
    const trail = details?.[j.detail];
    if (!trail) throw new Error(`${file}: a catalog judgement names rule trail ${j.detail}, which the report's details do not have`);
    return { ...j, detail: trail };
  });
  return results.map((r) => {
    const j = r.catalog;
    const c = typeof j === 'number' ? full[j] : undefined;
    if (!c) throw new Error(`${file}: result ${r.id} names catalog judgement ${String(j)}, which the report's judgements do not have`);
    return { ...r, catalog: c } as EntryResult;
  });
}

/**
 * The same, synchronously: for a signal handler or a crash path that must finish before exit.
 * Written a few MB at a time (never one string of the whole report: a --keep all run's is
 * hundreds of MB); `known` as in reportText.
 */
export function writeJsonReportSync(dir: string, report: RunReport, known?: KnownJson, tmpTag = ''): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'report.json');
  const tmp = `${file}.tmp${tmpTag}-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    for (const chunk of reportChunks(report, known)) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  return file;
}

/** A report.json being written on libuv's threads (writeJsonReport), which a signal can take over. */
export interface JsonWrite {
  readonly done: Promise<string>;
  /**
   * Writes report.json now, synchronously (from its own temporary file), the asynchronous write
   * dropped: the path a signal takes while a finished run waits on it. Returns the path.
   */
  finishNow(): string;
}

/**
 * The same for a caller that can wait: each chunk is written on libuv's threads while the next is
 * made (one write on its way at a time, so the two buffers the chunks take turns in are never
 * written while a write reads them).
 */
export function writeJsonReport(dir: string, report: RunReport, known?: KnownJson): JsonWrite {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'report.json');
  const tmp = `${file}.tmp-${process.pid}`;
  const w = new FileWriter(tmp, 'w');
  let taken = false;
  const done = (async () => {
    try {
      for (const chunk of reportChunks(report, known)) {
        await w.flushed();
        if (taken) return file;
        w.write(chunk);
      }
      await w.end();
    } finally {
      w.stop();
    }
    if (!taken) renameSync(tmp, file);
    return file;
  })();
  return {
    done,
    finishNow: () => {
      taken = true;
      // the file the writes went to goes (a write still on its way lands in no file anyone reads)
      w.stop();
      rmSync(tmp, { force: true });
      return writeJsonReportSync(dir, report, known, '-now');
    },
  };
}

/**
 * report.json's bytes, a few MB at a time (never one string of the whole: a --keep all run's is
 * hundreds of MB). The chunks take turns in two buffers: a chunk is the caller's until the one
 * after the next is asked for.
 */
function* reportChunks(report: RunReport, known: KnownJson | undefined): Generator<Uint8Array> {
  const p = reportPieces(report, known);
  const CHUNK = 1 << 22;
  const bufs = [Buffer.allocUnsafeSlow(CHUNK * 2), Buffer.allocUnsafeSlow(CHUNK * 2)];
  let turn = 0;
  let buf = bufs[0]!;
  let n = 0;
  /** The bytes so far as a chunk; the other buffer takes what follows (room for `need` bytes). */
  const take = (need: number): Uint8Array => {
    const out = buf.subarray(0, n);
    turn ^= 1;
    if (bufs[turn]!.length < need) bufs[turn] = Buffer.allocUnsafeSlow(need);
    buf = bufs[turn]!;
    n = 0;
    return out;
  };
  const head = p.head;
  if (head.length * 3 > buf.length) buf = bufs[0] = Buffer.allocUnsafeSlow(head.length * 3);
  n += buf.write(head, n);
  for (let i = 0; i < p.results.length; i++) {
    const x = p.results[i]!;
    // room for the comma and the result (a string at most 3 bytes a character), else a chunk first
    const need = 1 + (typeof x === 'string' ? x.length * 3 : x.ref.end - x.ref.start + 16);
    if (n + need > buf.length || n > CHUNK) yield take(need);
    if (i) buf[n++] = 0x2c;
    if (typeof x === 'string') n += buf.write(x, n);
    else {
      const { ref, j } = x;
      buf.set(ref.buf.subarray(ref.start, ref.cat), n);
      n += ref.cat - ref.start;
      n += buf.write(String(j), n);
      buf.set(ref.buf.subarray(ref.catEnd, ref.end), n);
      n += ref.end - ref.catEnd;
    }
  }
  if (n + 3 > buf.length) yield take(3);
  n += buf.write(']}\n', n);
  yield take(0);
}
