/**
 * What the two litmus commands (`litmus PATH...` with the reference model, cli/litmus.ts, and on
 * the GPU, litmus-gpu/cli.ts) share: the walker of the paths they are given, the reading and
 * parsing of each file with the --filter, and the writer of their reports (report.json, report.html,
 * junit.xml: one envelope, one JUnit form; each command supplies its results, HTML and test cases).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLitmus } from '../memory-model/extended.js';
import type { LitmusTest } from '../memory-model/events.js';
import { xmlText } from '../report/junit.js';
import { compileFilter } from '../util/filter.js';
import { fromRoot, shown as shownPath } from '../util/paths.js';
import { UsageError } from '../util/errors.js';
import type { Io } from './io.js';
import { printWritten } from './summary.js';

/** The `schema` of both commands' report.json. */
export const LITMUS_REPORT_SCHEMA = 'ptx-reduction-conformance/litmus-report';

/**
 * The litmus files the paths name, in order: a file as given, a folder's *.litmus files (its
 * subfolders too), sorted. A path that is not there, or a folder holding no .litmus file, is a
 * UsageError naming it. With no path, the package's cases/litmus/ (wherever the command is run from).
 */
export function litmusFiles(paths: readonly string[]): string[] {
  if (!paths.length) return litmusFiles([fromRoot('cases', 'litmus')]);
  const out: string[] = [];
  const walk = (p: string) => {
    if (statSync(p).isDirectory()) {
      for (const e of readdirSync(p).sort()) {
        const q = join(p, e);
        if (statSync(q).isDirectory() || e.endsWith('.litmus')) walk(q);
      }
    } else out.push(p);
  };
  for (const p of paths) {
    if (!existsSync(p)) throw new UsageError(`${p}: no such file or folder; give litmus files or folders (default cases/litmus/)`);
    const before = out.length;
    walk(p);
    if (out.length === before)
      throw new UsageError(
        `${p}: the folder holds no litmus test (looked for files named *.litmus in it and its subfolders); give a folder that holds some, or the test files themselves`,
      );
  }
  return out;
}

/** One litmus file read: as shown (relative to the working folder), its text, and its test or why it does not parse. */
export type LitmusFile = { file: string; text: string; name: string } & ({ test: LitmusTest; problems?: undefined } | { test?: undefined; problems: string[] });

/**
 * Each of `files` ({@link litmusFiles}) read and parsed, in order, those whose shown path or name
 * (the test's, or for a file that does not parse its `PTX name` header) `filter` matches. A file
 * that does not parse comes with its problems (`file:line:col: message`), each printed on stderr;
 * one that cannot be read is a UsageError.
 */
export function* readLitmusFiles(files: readonly string[], filter: string | undefined, io: Io): Generator<LitmusFile> {
  const keep = compileFilter(filter);
  for (const path of files) {
    const file = shownPath(path);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new UsageError(`${file}: cannot read it (${(e as Error).message})`);
    }
    const p = parseLitmus(text, file);
    const name = p.test?.name ?? /^\s*PTX\s+(\S+)/m.exec(text)?.[1] ?? file;
    if (filter && !keep(file) && !keep(name)) continue;
    if (p.test) {
      yield { file, text, name, test: p.test };
      continue;
    }
    const problems = p.problems.map((x) => `${x.file}:${x.line}:${x.col}: ${x.message}`);
    for (const l of problems) io.err(l);
    yield { file, text, name, problems };
  }
}

/** The count of results per status, in the order given, after the total. */
export function statusCounts<S extends string>(results: readonly { status: S }[], statuses: readonly S[]): { tests: number } & Record<S, number> {
  const counts = { tests: results.length } as { tests: number } & Record<S, number>;
  for (const s of statuses) (counts as Record<S, number>)[s] = 0;
  for (const r of results) (counts as Record<S, number>)[r.status]++;
  return counts;
}

/** A command's report: what report.json holds besides the envelope, its HTML page, its JUnit suite. */
export interface LitmusReport {
  backend: 'reference' | 'gpu';
  argv: readonly string[];
  started: Date;
  /** The run's parameters (the GPU's), between `backend` and `counts`. */
  run?: unknown;
  counts: { tests: number };
  results: readonly unknown[];
  /** report.json indented by one space (the reference's); the GPU's, with its histograms, compact. */
  indent?: number;
  html: string;
  junit: { suite: string; failures: number; errors: number; skipped?: number; cases: readonly { name: string; seconds: number; body: string }[] };
}

/** Writes report.json, report.html and junit.xml into `dir` and says where (on stderr when stdout's reader is gone: litmus | head -1). */
export function writeLitmusReports(dir: string, io: Io, r: LitmusReport): void {
  const json = {
    schema: LITMUS_REPORT_SCHEMA,
    version: 1,
    startedAt: r.started.toISOString(),
    command: ['litmus', ...r.argv],
    backend: r.backend,
    ...(r.run !== undefined ? { run: r.run } : {}),
    counts: r.counts,
    results: r.results,
  };
  writeFileSync(join(dir, 'report.json'), `${JSON.stringify(json, null, r.indent)}\n`);
  writeFileSync(join(dir, 'report.html'), r.html);
  const j = r.junit;
  const cases = j.cases
    .map((c) => `  <testcase classname="${j.suite}" name="${xmlText(c.name)}" time="${c.seconds.toFixed(3)}">${c.body}</testcase>`)
    .join('\n');
  writeFileSync(
    join(dir, 'junit.xml'),
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="${j.suite}" tests="${r.counts.tests}" failures="${j.failures}" errors="${j.errors}"${j.skipped !== undefined ? ` skipped="${j.skipped}"` : ''}>\n${cases}\n</testsuite></testsuites>\n`,
  );
  printWritten(io, { json: join(dir, 'report.json'), html: join(dir, 'report.html'), junit: join(dir, 'junit.xml') });
}
