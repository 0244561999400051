/**
 * Classifies catalog entries as accepted or rejected by ptxas, many entries per ptxas call.
 *
 * First pass ("scan"): a module with every entry of a batch, each followed by a marker line that is
 * always a (non-fatal) error. ptxas reports every erroneous line, so an entry with an error is
 * rejected with ptxas's own message. Entries without an error are not yet accepted: a module with
 * errors stops before code generation.
 * Second pass ("confirm"): the entries without an error, in a module without markers; an entry is
 * accepted only once a module holding it compiled cleanly.
 * A crash (ptxas 13.0 segfaults on some lines) loses everything after the line it crashed on: the
 * markers it reported show how far it got, so the crashing entry is the one after the last reported
 * marker; it gets an `error`, the entries before it keep their answers and the rest are scanned
 * again. A fatal error on an entry's line is handled the same way. A failure that names no line
 * (a crash during code generation) splits the batch in halves until it does.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CatalogEntry } from '../../catalog/enumerate.js';
import { SpawnPool } from '../../util/spawn-pool.js';
import { buildModule } from './module.js';

export interface Diagnostic {
  readonly line?: number;
  readonly severity: 'error' | 'warning' | 'fatal' | 'info';
  readonly message: string;
}

/** What ptxas did with one entry. */
export interface Acceptance {
  readonly accepted: boolean;
  /** Set when ptxas crashed on this entry's line: the signal, e.g. "SIGSEGV". */
  readonly crashed?: string;
  /** ptxas's messages for this entry's line (errors, warnings, a fatal). */
  readonly messages: readonly string[];
  /** The instruction line as compiled. */
  readonly line: string;
}

/** Parses ptxas stderr: "ptxas mod.ptx, line 12; error   : message". */
export function parseDiagnostics(stderr: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const raw of stderr.split('\n')) {
    const l = raw.trim();
    if (!l) continue;
    const m = /^ptxas\s+.*?, line (\d+); (error|warning|fatal|info)\s*: (.*)$/.exec(l);
    if (m) {
      out.push({ line: Number(m[1]), severity: m[2] as Diagnostic['severity'], message: m[3]!.trim() });
      continue;
    }
    const g = /^ptxas (error|warning|fatal|info)\s*: (.*)$/.exec(l);
    if (g) {
      if (/Ptx assembly aborted due to errors/.test(g[2]!)) continue;
      out.push({ severity: g[1] as Diagnostic['severity'], message: g[2]!.trim() });
      continue;
    }
    out.push({ severity: 'info', message: l });
  }
  return out;
}

export interface ClassifyOptions {
  readonly ptxasPath: string;
  readonly target: string;
  /** PTX ISA version of modules for entries that do not pin one. */
  readonly ptx: string;
  readonly batchSize?: number;
  readonly concurrency?: number;
  /** Called as entries are decided (for progress lines). */
  readonly onDecided?: (count: number) => void;
  /** Called with each entry's acceptance as it is decided (entry index). */
  readonly onAcceptance?: (index: number, a: Acceptance) => void;
}

export interface ClassifyStats {
  ptxasCalls: number;
  scanCalls: number;
  confirmCalls: number;
  crashes: number;
  splits: number;
}

type Mode = 'scan' | 'confirm';
interface Job {
  readonly idx: number[];
  readonly ptx: string;
  readonly mode: Mode;
}

const CRASH_WINDOW = 32;

const fmt = (d: Diagnostic) => `${d.severity}: ${d.message}`;

/** Classifies every entry; returns acceptances in entry order and call statistics. */
export async function classifyWithPtxas(entries: readonly CatalogEntry[], opts: ClassifyOptions): Promise<{ results: Acceptance[]; stats: ClassifyStats }> {
  const batchSize = opts.batchSize ?? 1000;
  const results = new Array<Acceptance | undefined>(entries.length);
  const warnings = new Map<number, string[]>();
  const stats: ClassifyStats = { ptxasCalls: 0, scanCalls: 0, confirmCalls: 0, crashes: 0, splits: 0 };
  const dir = await mkdtemp(join(tmpdir(), 'ptxconf-'));
  let fileNo = 0;
  let pool: SpawnPool | undefined;

  const byPtx = new Map<string, number[]>();
  entries.forEach((e, i) => {
    const v = e.modulePtx ?? opts.ptx;
    const list = byPtx.get(v);
    if (list) list.push(i);
    else byPtx.set(v, [i]);
  });
  const queue: Job[] = [];
  for (const [ptx, idx] of byPtx) {
    for (let i = 0; i < idx.length; i += batchSize) queue.push({ idx: idx.slice(i, i + batchSize), ptx, mode: 'scan' });
  }

  const decide = (i: number, a: Omit<Acceptance, 'messages'> & { messages: string[] }) => {
    results[i] = { ...a, messages: [...new Set([...(warnings.get(i) ?? []), ...a.messages])] };
    opts.onAcceptance?.(i, results[i]!);
    opts.onDecided?.(1);
  };
  const keepWarnings = (i: number, ds: readonly Diagnostic[]) => {
    const w = ds.filter((d) => d.severity === 'warning').map(fmt);
    if (w.length) warnings.set(i, [...new Set([...(warnings.get(i) ?? []), ...w])]);
  };

  const runJob = async (job: Job): Promise<Job[]> => {
    const batch = job.idx.map((i) => entries[i]!);
    const mod = buildModule(batch, opts.target, job.ptx, job.mode === 'scan');
    const file = join(dir, `m${fileNo++}.ptx`);
    await writeFile(file, mod.text);
    stats.ptxasCalls++;
    if (job.mode === 'scan') stats.scanCalls++;
    else stats.confirmCalls++;
    const r = await pool!.run(opts.ptxasPath, ['-arch', opts.target, file, '-o', `${file}.cubin`], 300_000);
    const textLines = mod.text.split('\n');
    const lineText = (k: number) => textLines[k - 1]?.trim() ?? '';
    const diags = parseDiagnostics(`${r.stderr}\n${r.stdout}`);
    const byLine = new Map<number, Diagnostic[]>();
    for (const d of diags) if (d.line !== undefined) byLine.set(d.line, [...(byLine.get(d.line) ?? []), d]);
    const lineOf: number[] = [];
    for (const [ln, k] of mod.lineToEntry) lineOf[k] = ln;
    const crashed = r.signal ?? (r.timedOut ? 'timeout' : undefined);
    const isError = (d: Diagnostic) => d.severity === 'error' || d.severity === 'fatal';

    if (!crashed && r.exitCode === 0) {
      batch.forEach((_, k) => {
        const ds = byLine.get(lineOf[k]!) ?? [];
        decide(job.idx[k]!, { accepted: true, messages: ds.map(fmt), line: lineText(lineOf[k]!) });
      });
      return [];
    }

    // How far ptxas got: the first entry whose line it did not finish (crash or fatal), else none.
    let stopAt = batch.length;
    const fatal = diags.find((d) => d.severity === 'fatal' && d.line !== undefined && mod.lineToEntry.has(d.line));
    if (fatal) stopAt = mod.lineToEntry.get(fatal.line!)!;
    else if (crashed && job.mode === 'scan') {
      let last = -1;
      for (const [ln, k] of mod.markerToEntry) if (byLine.has(ln) && k > last) last = k;
      stopAt = last + 1;
    }

    const unattributed = diags.some((d) => isError(d) && (d.line === undefined || (!mod.lineToEntry.has(d.line) && !mod.markerToEntry.has(d.line))));
    const attributed = batch.some((_, k) => (byLine.get(lineOf[k]!) ?? []).some(isError));
    const located = fatal || (crashed && job.mode === 'scan' && stopAt < batch.length);
    if (!located && (crashed || unattributed || (!attributed && job.mode === 'confirm'))) {
      // Nothing names the culprit: halve until one entry is left.
      if (batch.length === 1) {
        const msgs = diags.filter((d) => d.severity !== 'info').map(fmt);
        if (crashed) stats.crashes++;
        decide(job.idx[0]!, {
          accepted: false,
          ...(crashed ? { crashed } : {}),
          messages: msgs.length ? msgs : [crashed ? `ptxas was killed by ${crashed}` : `ptxas exited with ${r.exitCode} and no message`],
          line: lineText(lineOf[0]!),
        });
        return [];
      }
      stats.splits++;
      const h = Math.ceil(job.idx.length / 2);
      return [
        { idx: job.idx.slice(0, h), ptx: job.ptx, mode: job.mode },
        { idx: job.idx.slice(h), ptx: job.ptx, mode: job.mode },
      ];
    }

    const confirm: number[] = [];
    const rescan: number[] = [];
    batch.forEach((_, k) => {
      const i = job.idx[k]!;
      const ds = byLine.get(lineOf[k]!) ?? [];
      if (k < stopAt) {
        if (ds.some(isError)) decide(i, { accepted: false, messages: ds.map(fmt), line: lineText(lineOf[k]!) });
        else {
          keepWarnings(i, ds);
          confirm.push(i);
        }
      } else if (k === stopAt) {
        if (fatal) decide(i, { accepted: false, messages: ds.map(fmt), line: lineText(lineOf[k]!) });
        else {
          stats.crashes++;
          decide(i, {
            accepted: false,
            crashed: crashed!,
            messages: [...ds.map(fmt), `ptxas was killed by ${crashed} while reading this line (the marker after the previous line was its last message)`],
            line: lineText(lineOf[k]!),
          });
        }
      } else rescan.push(i);
    });
    for (const i of confirm) (pending.get(job.ptx) ?? pending.set(job.ptx, []).get(job.ptx)!).push(i);
    if (!rescan.length) return [];
    // Crashing lines tend to come in runs (one qualifier combination crashes across many
    // variants): rescan a short window first, so that a run costs short modules, and the rest apart.
    if (rescan.length <= CRASH_WINDOW) return [{ idx: rescan, ptx: job.ptx, mode: 'scan' }];
    return [
      { idx: rescan.slice(0, CRASH_WINDOW), ptx: job.ptx, mode: 'scan' },
      { idx: rescan.slice(CRASH_WINDOW), ptx: job.ptx, mode: 'scan' },
    ];
  };

  // Entries waiting for a confirm pass, pooled across scans so that a confirm module is large.
  const pending = new Map<string, number[]>();
  const flush = (all: boolean) => {
    for (const [ptx, idx] of pending) {
      while (idx.length >= batchSize || (all && idx.length)) queue.push({ idx: idx.splice(0, batchSize), ptx, mode: 'confirm' });
    }
  };

  try {
    // ptxas spends much of its short life in the kernel (process start, file I/O), so a few more
    // processes than cores keep the cores busy.
    const workers = Math.max(1, opts.concurrency ?? availableParallelism() * 3);
    pool = new SpawnPool(workers);
    let active = 0;
    let failure: unknown;
    await new Promise<void>((resolve) => {
      const pump = () => {
        if (failure !== undefined) {
          if (active === 0) resolve();
          return;
        }
        flush(false);
        if (!queue.length && (active === 0 || [...pending.values()].some((p) => p.length >= 64))) flush(true);
        while (active < workers && queue.length) {
          const job = queue.shift()!;
          active++;
          runJob(job)
            .then((more) => queue.unshift(...more))
            .catch((e: unknown) => (failure = e))
            .finally(() => {
              active--;
              pump();
            });
        }
        if (active === 0 && !queue.length) resolve();
      };
      pump();
    });
    if (failure !== undefined) throw failure;
  } finally {
    pool?.close();
    await rm(dir, { recursive: true, force: true });
  }
  const undecided = results.findIndex((r) => !r);
  if (undecided >= 0) throw new Error(`internal: entry ${entries[undecided]!.id} was never decided`);
  return { results: results as Acceptance[], stats };
}
