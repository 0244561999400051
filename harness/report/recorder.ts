/**
 * Records a run while it goes: every result is appended to `results.jsonl` in the report directory
 * (compressed to results.jsonl.gz when the run finishes)
 * as the backend produces it (first line: a header naming the run), and the final documents
 * (report.json, report.html, junit.xml) are written from the judged results at the end, each
 * atomically. `finishPartial` writes them from what has been recorded so far, marked partial with
 * the reason: the path a signal handler or a crash takes, synchronously, before the process exits.
 * A partial report applies the finished run's keep rule (keepPasses) to the results a phase had
 * decided but not yet added, and compresses the stream as finish() does: it is no larger than the
 * whole run's report.
 */
import { addTally, moveTally } from './tally.js';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { FileWriter } from './file-writer.js';
import { gzip, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import type { Expectation } from '../compare/expectations.js';
import { judgeEnriched } from '../compare/judge-run.js';
import { enrichResult } from '../compare/compare.js';
import { opAndType } from '../catalog/parse.js';
import { PlainPass, copyResult, lineOf } from './lines.js';
import { editionCheck, editionJudged, editionVerdicts, findingsWithEditions } from '../compare/editions.js';
import { HTML_DETAIL_LIMIT, caseTables, renderHtml } from './html.js';
import { type KnownJson, type ReportInput, type RunReport, type JsonWrite, buildReport, writeJsonReport, writeJsonReportSync } from './json.js';
import { renderJunit } from './junit.js';
import type { EntryResult } from './types.js';
import { toolchainName } from '../util/toolchain-name.js';

import { KEEP_WHOLE, applyKeepRule } from './keep.js';

export { KEEP_WHOLE };

export type RunMeta = Pick<ReportInput, 'startedAt' | 'command' | 'arch' | 'filter' | 'seed' | 'shard' | 'specEdition'>;
export type RunFields = Pick<
  ReportInput,
  'toolchain' | 'modulePtx' | 'backend' | 'stats' | 'catalogEntries' | 'sweeps' | 'sweepsNotRun' | 'contention' | 'lens'
>;

export interface WrittenReport {
  readonly report: RunReport;
  readonly json: string;
  readonly html: string;
  readonly junit: string;
  readonly jsonl: string;
}

function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** writeAtomic on libuv's threads (its own temporary name: a signal's writeAtomic of the same file meanwhile does not meet it). */
async function writeAtomicAsync(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-async`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/** Writes report.json, report.html and junit.xml for a report into `dir` (`known`: see reportText). */
export function writeReportFiles(dir: string, report: RunReport, known?: KnownJson): Omit<WrittenReport, 'report' | 'jsonl'> {
  const json = writeJsonReportSync(dir, report, known);
  return { json, ...writeHtmlAndJunit(dir, report) };
}

/** report.html (written by `writePage`: at once, or on libuv's threads by finishAsync) and junit.xml. */
function writeHtmlAndJunit(dir: string, report: RunReport, writePage: (file: string, text: string) => void = writeAtomic): { html: string; junit: string } {
  const html = join(dir, 'report.html');
  writePage(html, renderHtml(report));
  const junit = join(dir, 'junit.xml');
  writeAtomic(junit, renderJunit(report));
  return { html, junit };
}

/** Bytes gathered for one write: strings and byte ranges appended, taken as one array. */
class ByteChunk {
  private buf: Buffer = Buffer.allocUnsafeSlow(0);
  private n = 0;
  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const b = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.n + k, 1 << 16));
    this.buf.copy(b, 0, 0, this.n);
    this.buf = b;
  }
  /** Appends bytes [s, e) of `u` (copied natively: no view made per range). */
  bytes(u: Uint8Array, s: number, e: number): void {
    this.room(e - s);
    this.n += Buffer.prototype.copy.call(u, this.buf, this.n, s, e);
  }
  text(s: string): void {
    this.room(s.length * 3);
    this.n += this.buf.write(s, this.n);
  }
  byte(b: number): void {
    this.room(1);
    this.buf[this.n++] = b;
  }
  get size(): number {
    return this.n;
  }
  /**
   * What was gathered, emptied (the bytes are the caller's): a big chunk is handed over whole and a
   * fresh buffer takes what follows; a small one is copied and the buffer kept (a run that adds a
   * few results at a time would otherwise hand over, and keep alive, a buffer per add).
   */
  take(): Uint8Array {
    let out: Uint8Array;
    if (this.n >= this.buf.length >> 1) {
      out = this.buf.subarray(0, this.n);
      this.buf = Buffer.allocUnsafeSlow(this.buf.length);
    } else out = Uint8Array.prototype.slice.call(this.buf, 0, this.n); // (a Buffer's own slice is a view)
    this.n = 0;
    return out;
  }
}
/** The stream is written and compressed in pieces of a MB, or what there is after HELD_MS. */
const HELD_BYTES = 1 << 20;
const HELD_MS = 200;
/** How long one turn of the enrichment in the background (enrichSoon) may hold the event loop. */
const ENRICH_SLICE_MS = 4;

export class RunRecorder {
  readonly results: EntryResult[] = [];
  readonly jsonl: string;
  private fields: RunFields = {
    toolchain: {},
    modulePtx: '-',
    backend: { name: 'none', reason: 'the run stopped before choosing a backend', passedOver: [] },
    stats: {},
    catalogEntries: 0,
  };
  private covered: string[] = [];
  /** Catalog entries checked by ptxas and not kept whole: they can show only a ptxas answer. */
  private coveredEntries: string[] = [];
  private finished = false;

  constructor(
    readonly dir: string,
    private readonly meta: RunMeta,
    readonly expectations: readonly Expectation[],
    private readonly expectationsFile: string | null,
  ) {
    mkdirSync(dir, { recursive: true });
    this.jsonl = join(dir, 'results.jsonl');
    this.file = new FileWriter(this.jsonl);
    const header = `${JSON.stringify({ schema: 'ptx-reduction-conformance/results-stream', version: 1, ...meta })}\n`;
    writeFileSync(this.jsonl, header);
    this.compress(Buffer.from(header));
  }

  /** The name every compiled result is stamped with (set with the run's toolchain). */
  private toolchainName: string | undefined;

  /** What the backend and toolchain are (known once the backend is chosen; kept for a partial report). */
  set(fields: Partial<RunFields>): void {
    this.fields = { ...this.fields, ...fields };
    const p = fields.toolchain?.ptxas;
    if (fields.toolchain) this.toolchainName = p ? toolchainName(p) : undefined;
  }

  /**
   * Ids the run checked without keeping a result for each (see applyExpectations): `cases` (run on a
   * backend: any expectation over them could have occurred) or catalog `entries` (compiled by ptxas:
   * only a compile-mismatch or error expectation could).
   */
  cover(ids: readonly string[], kind: 'cases' | 'entries' = 'cases'): void {
    (kind === 'cases' ? this.covered : this.coveredEntries).push(...ids);
  }

  /** Results with the toolchain's name where they show something it compiled (results added before the toolchain was set get it when the report is written). */
  private stamp(rs: readonly EntryResult[]): readonly EntryResult[] {
    const tc = this.toolchainName;
    if (!tc) return rs;
    return rs.map((r) => (r.toolchain === undefined && (r.ptxas || this.fields.backend.name === 'gpu') ? copyResult(r, { toolchain: tc }) : r));
  }

  add(rs: readonly EntryResult[]): void {
    if (!rs.length) return;
    // a result of a compiled kernel (a gpu run) or with a ptxas answer names the toolchain; the
    // reference model's cases compiled nothing
    rs = this.stamp(rs);
    for (const r of rs) this.results.push(r);
    this.enrichSoon();
    // each result's line: the bytes its maker wrote (harness/report/lines.ts; a run of lines side
    // by side in one array copied at once), or its JSON
    const out = this.out;
    let run: Uint8Array | undefined;
    let from = 0;
    let to = 0;
    for (const r of rs) {
      const ref = lineOf(r);
      if (ref && ref.buf === run && ref.start === to) {
        to = ref.end + 1;
        continue;
      }
      if (run) out.bytes(run, from, to);
      run = undefined;
      if (out.size >= HELD_BYTES) this.emit();
      if (ref) {
        run = ref.buf;
        from = ref.start;
        to = ref.end + 1;
        continue;
      }
      const line = JSON.stringify(r);
      this.lines.set(r, line);
      out.text(line);
      out.byte(0x0a);
    }
    if (run) out.bytes(run, from, to);
    // written when there is a MB of it, or a moment later
    if (out.size >= HELD_BYTES) this.emit();
    else this.timer ??= setTimeout(() => this.emit(), HELD_MS).unref();
  }

  /** The stream's bytes not yet written, and the file they go to (opened at the first add). */
  private readonly out = new ByteChunk();
  /**
   * The stream compressed while the run goes: each chunk written is also given to zlib on its
   * thread pool (a gzip member of its own; members one after another are one gzip file), so that
   * the run's end compresses only what has not been yet.
   */
  private readonly gz: { raw: Uint8Array | undefined; gz: Buffer | undefined }[] = [];
  private readonly pendingGz: Promise<void>[] = [];

  /**
   * Writes what add() gathered to results.jsonl and hands it to the compressor (zlib on libuv's
   * threads). Pieces of a MB, or what there is HELD_MS after an add: each call to zlib costs a handle
   * and its buffers, and a run that adds its results a few at a time would make one per add. The
   * write goes on libuv's threads too (harness/report/file-writer.ts), so the run does not wait on
   * the disk; the report's end waits for it (drain), and a report written without waiting (a
   * signal's) takes the stream from the compressed chunks, never from the file.
   */
  private emit(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.out.size) return;
    const bytes = this.out.take();
    this.file.write(bytes);
    this.compress(bytes);
  }
  private timer: NodeJS.Timeout | undefined;
  private readonly file: FileWriter;

  private compress(raw: Uint8Array): void {
    const slot: { raw: Uint8Array | undefined; gz: Buffer | undefined } = { raw, gz: undefined };
    this.gz.push(slot);
    this.pendingGz.push(
      new Promise((done) =>
        gzip(raw, { level: 3, chunkSize: Math.min(1 << 20, Math.max(1 << 14, raw.length)) }, (err, out) => {
          if (!err && slot.raw) {
            slot.gz = out;
            slot.raw = undefined;
          }
          done();
        }),
      ),
    );
  }

  /** Waits for the stream's compression so far (a finished run calls it before finish(); finish without it compresses what is left itself). */
  async drain(): Promise<void> {
    this.emit();
    await Promise.all(this.pendingGz);
    await this.file.flushed();
  }

  /**
   * Whether stats.total.* count results one for one, so that a result an expectation turns into a
   * known deviation moves one count too (a gpu run's totals over every case). A sweep's totals count
   * pairs and already hold its known deviations: it sets this false.
   */
  totalsCountResults = true;

  /**
   * The stream's line of each result object added: report.json takes a result the judging left as
   * it was from there rather than serializing it again (a --keep all run's results are most of its
   * report writing).
   */
  private readonly lines = new Map<EntryResult, string>();

  /**
   * this.results[i] through enrichResult (compare.ts), for i below its length: done a few ms at a
   * time while the event loop is free (a gpu run waits on its workers), the rest when the report is
   * written, which then judges them as judgeRun would have. The report page's parse of each
   * instruction (opAndType, memoised) is done on the way too.
   */
  private readonly enriched: EntryResult[] = [];
  private enriching: NodeJS.Immediate | undefined;

  private enrichSoon(): void {
    if (this.enriching || this.finished) return;
    this.enriching = setImmediate(() => {
      this.enriching = undefined;
      const until = performance.now() + ENRICH_SLICE_MS;
      const { results, enriched } = this;
      while (enriched.length < results.length && performance.now() < until) {
        const end = Math.min(results.length, enriched.length + 64);
        for (let i = enriched.length; i < end; i++) {
          const r = results[i]!;
          const e = enrichResult(r);
          enriched.push(e);
          // the page's row facts (the operation and type read from the instruction: parsed once per instruction, html.ts)
          opAndType(r.ptx, r.id);
          this.prepare(e);
        }
      }
      if (enriched.length < results.length) this.enrichSoon();
    });
    this.enriching.unref();
  }

  /**
   * What the report will ask of a hardware case (one with observed bits), worked out while the event
   * loop is free rather than after the run's last case: its verdict under each edition (where the
   * edition decides) and its tables on the page, for every case but a pass and for the first passes
   * (the page details HTML_DETAIL_LIMIT of them). Both are memoised per case where they are defined.
   */
  private prepare(e: EntryResult): void {
    if (!e.case?.observed || e instanceof PlainPass) return;
    if (editionJudged(e)) editionVerdicts(e);
    if (e.verdict !== 'pass' || this.passTables++ < HTML_DETAIL_LIMIT) caseTables(e);
  }
  private passTables = 0;

  /** Every result added, enriched (those not yet done now), with the toolchain stamped where it was set meanwhile. */
  private enrichedResults(): readonly EntryResult[] {
    if (this.enriching) clearImmediate(this.enriching);
    this.enriching = undefined;
    const { results, enriched } = this;
    for (let i = enriched.length; i < results.length; i++) enriched.push(enrichResult(results[i]!));
    return this.stamp(enriched);
  }

  private writeReport(partialReason?: string): WrittenReport {
    const report = this.runReport(partialReason);
    return { report, jsonl: this.jsonl, ...writeReportFiles(this.dir, report, (r) => this.lines.get(r)) };
  }

  /** The run's report document, judged (the recorder is finished from here on). */
  private runReport(partialReason?: string): RunReport {
    this.finished = true;
    // contention groups keep what the hardware did in the report's `contention`, not in case.observed
    const contended = new Set((this.fields.contention ?? []).map((c) => c.id));
    const judged = judgeEnriched(this.enrichedResults(), this.expectations, this.covered, this.coveredEntries, contended);
    // a backend's totals over every case judged (gpu) move known deviations out of their verdict too
    const stats = { ...this.fields.stats };
    // and the counts of catalog entries (entries.*, where passes are not all kept) likewise
    const move = (kind: 'total' | 'entries', family: string, was: string) => moveTally(stats, kind, family, was, 'known-deviation');
    for (const r of judged.results) {
      if (r.verdict !== 'known-deviation' || !r.expectation) continue;
      const was = this.expectations.find((e) => e.id === r.expectation)!.verdict;
      if (r.kind !== 'case' && move('entries', r.family, was)) continue;
      if (this.totalsCountResults) move('total', r.family, was);
    }
    // what the hardware did against every edition, where the edition decides (cases with observed bits)
    // (a plain pass of the reference model observed nothing: its case, made when read, is not read)
    const ed = judged.results.some((r) => !(r instanceof PlainPass) && r.case?.observed) ? editionCheck(judged.results) : undefined;
    const finished = new Date();
    const report = buildReport({
      ...this.meta,
      ...this.fields,
      stats,
      partial: partialReason !== undefined,
      ...(partialReason !== undefined ? { partialReason } : {}),
      finishedAt: finished.toISOString(),
      elapsedMs: finished.getTime() - new Date(this.meta.startedAt).getTime(),
      results: judged.results,
      findings: ed ? findingsWithEditions(judged.findings, judged.results, ed.byResult) : judged.findings,
      expectations: { file: this.expectationsFile, outcomes: judged.outcomes },
      ...(ed?.check.judged ? { editionCheck: ed.check } : {}),
    });
    return report;
  }

  /**
   * The reports of a finished run. The stream (results.jsonl, kept plain while the run goes, so an
   * interrupted run leaves it readable) is compressed to results.jsonl.gz.
   */
  finish(): WrittenReport {
    const w = this.writeReport();
    return { ...w, jsonl: this.compressStream() };
  }

  /** finish(), the stream's compression on zlib's threads going on while the report files are written. */
  async finishAsync(): Promise<WrittenReport> {
    const report = this.runReport();
    const known = (r: EntryResult) => this.lines.get(r);
    // report.json written on libuv's threads, chunk by chunk, the page and JUnit made meanwhile (a
    // signal meanwhile: completeReport writes it at once)
    const json = (this.jsonWrite = writeJsonReport(this.dir, report, known));
    // the page likewise (the text made here, written on libuv's threads), JUnit meanwhile
    let page: { file: string; text: string } | undefined;
    let pageDone = Promise.resolve();
    const rest = writeHtmlAndJunit(this.dir, report, (file, text) => {
      this.htmlWrite = page = { file, text };
      pageDone = writeAtomicAsync(file, text);
    });
    const file = await json.done;
    this.jsonWrite = undefined;
    // (a signal meanwhile wrote the page itself, completeReport, and took the write's file away)
    await pageDone.catch((e: unknown) => {
      if (this.htmlWrite === page) throw e;
    });
    this.htmlWrite = undefined;
    const w = { report, jsonl: this.jsonl, json: file, ...rest };
    await this.drain();
    return { ...w, jsonl: this.compressStream() };
  }

  /** results.jsonl to results.jsonl.gz (the chunks compressed, those not yet compressed now); returns the path. */
  private compressStream(): string {
    if (this.compressed) return `${this.jsonl}.gz`;
    this.compressed = true;
    this.emit();
    this.file.stop();
    const gz = `${this.jsonl}.gz`;
    const parts = this.gz.map((s) => s.gz ?? gzipSync(s.raw!, { level: 3 }));
    for (const s of this.gz) s.raw = undefined;
    writeFileSync(gz, Buffer.concat(parts));
    this.lines.clear();
    rmSync(this.jsonl, { force: true });
    return gz;
  }

  /**
   * Results a phase has decided but not yet added (it adds them in order when it ends): a partial
   * report written meanwhile includes them.
   */
  pending: (() => readonly EntryResult[]) | undefined;

  /** Passes a report keeps whole (the run's --keep, or KEEP_WHOLE): a partial report applies it to the results pending. */
  keepPasses: number = KEEP_WHOLE;

  private compressed = false;

  /**
   * A signal while finishAsync waits (on the writes of report.json and the page, or on the stream's
   * compression; JUnit is written by then): report.json and the page written now, synchronously, and
   * the stream compressed, so that the folder holds what a finished run's does. Returns the stream's path, or
   * undefined when it already was compressed.
   */
  completeReport(): string | undefined {
    if (!this.finished) return undefined;
    const json = this.jsonWrite;
    this.jsonWrite = undefined;
    json?.finishNow();
    const page = this.htmlWrite;
    this.htmlWrite = undefined;
    if (page) {
      writeAtomic(page.file, page.text);
      rmSync(`${page.file}.tmp-${process.pid}-async`, { force: true }); // the write being made on libuv's threads (the process exits next)
    }
    return this.compressed ? undefined : this.compressStream();
  }
  /** report.json while finishAsync has it written on libuv's threads. */
  private jsonWrite: JsonWrite | undefined;
  /** report.html (its text) while finishAsync has it written on libuv's threads. */
  private htmlWrite: { file: string; text: string } | undefined;

  /** Whether the report has been written (finish or finishPartial). */
  get done(): boolean {
    return this.finished;
  }

  /** Results recorded so far, those pending included. */
  get recorded(): number {
    return this.results.length + (this.pending?.().length ?? 0);
  }

  /**
   * The partial report, once; undefined if the run already wrote its report. The results pending
   * go in under the keep rule (passes past keepPasses counted, not kept), and the stream is
   * compressed as at the end.
   */
  finishPartial(reason: string): WrittenReport | undefined {
    if (this.finished) return undefined;
    const p = this.pending?.();
    this.pending = undefined;
    if (p?.length) {
      let passes = 0;
      for (const r of this.results) if (r.verdict === 'pass') passes++;
      const k = applyKeepRule(p, this.keepPasses, passes);
      this.add(k.kept);
      if (k.cases.length) this.cover(k.cases, 'cases');
      if (k.entries.length) this.cover(k.entries, 'entries');
      const stats = { ...this.fields.stats };
      addTally(stats, k.counts);
      this.fields = { ...this.fields, stats };
    }
    const w = this.writeReport(reason);
    return { ...w, jsonl: this.compressStream() };
  }

  /** Nothing recorded (a signal before the first result): the stream's file goes, the report is not written. */
  discard(): void {
    this.finished = true;
    if (this.timer) clearTimeout(this.timer);
    this.file.stop();
    rmSync(this.jsonl, { force: true });
  }
}
