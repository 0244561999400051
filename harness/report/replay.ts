/**
 * Where a result came from and how to run it again alone: its vector file's line, and the command
 * that replays it. The console (cli/summary.ts), --case, JUnit and the HTML page's <noscript> say
 * both the same way.
 */
import { NEWEST_EDITION } from '../catalog/editions.js';
import type { RunReport } from './json.js';
import type { EntryResult } from './types.js';

/** A word for a shell command line: as it is where safe, else in single quotes. */
function shellWord(w: string): string {
  return /^[\w./:=@%+,-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`;
}

/** `file:line` of a case read from a vector file, else undefined. */
export function sourceLine(r: EntryResult): string | undefined {
  const o = r.case?.origin;
  return o?.kind === 'vectors' && o.file !== undefined ? `${o.file}:${o.line}` : undefined;
}

/**
 * The command that replays result `r` of `report` alone: `--case ID` (with its vector file) for a
 * case, `--filter ID` for a catalog entry, with the run's --arch, backend and --spec-edition.
 */
export function replayCommand(r: EntryResult, report: Pick<RunReport, 'arch' | 'backend' | 'specEdition'>): string {
  const o = r.case?.origin;
  const words = ['npm', 'run', 'conformance', '--'];
  if (r.kind === 'case') {
    words.push('--case', r.id);
    if (o?.kind === 'vectors' && typeof o.file === 'string') words.push('--vectors', o.file);
  } else words.push('--filter', r.id);
  if (report.arch !== 'sm_90') words.push('--arch', report.arch);
  if (report.backend?.name) words.push('--backend', report.backend.name);
  if (report.specEdition && report.specEdition !== NEWEST_EDITION) words.push('--spec-edition', report.specEdition);
  return words.map(shellWord).join(' ');
}

/** Results that fail a run (mismatch, compile-mismatch, error), in the report's order. */
export function failingResults(report: Pick<RunReport, 'results'>): EntryResult[] {
  return report.results.filter((r) => r.verdict === 'mismatch' || r.verdict === 'compile-mismatch' || r.verdict === 'error');
}
