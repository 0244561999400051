/**
 * Reads the spec excerpts the catalog cites, and the example instructions they contain. The PTX ISA
 * text is not in the repository: tests/helpers/third-party.ts finds the excerpts (../shared in CI, or
 * PTXCONF_PTX_SPEC); tests that read them guard on `specRoot()` and skip, saying why, without them.
 */
export { specFiles, specRoot, specText } from './third-party.js';
import { specText } from './third-party.js';

/**
 * The instruction lines in the code blocks after a file's last "Examples" heading; lines that a
 * trailing comma continues are joined.
 */
export function specExamples(file: string): string[] {
  const t = specText(file);
  // the section's own Examples heading (a line of its own), up to the next rule or heading; the newer
  // excerpts quote other text after it
  const line = t.search(/^Examples$/m);
  const at = line >= 0 ? line : t.lastIndexOf('Examples');
  if (at < 0) return [];
  const end = line >= 0 ? t.slice(at).search(/^(---|#)/m) : -1;
  const out: string[] = [];
  for (const block of t.slice(at, end > 0 ? at + end : undefined).matchAll(/```\w*\n([\s\S]*?)```/g)) {
    // an instruction's operands may continue on the next line (after a comma, or starting with '[')
    const joined = block[1]!.replace(/,\s*\n\s*/g, ', ').replace(/\s*\n\s*\[/g, ' [');
    for (const l of joined.split('\n')) if (l.trim() && !/^(\.reg|\/\/)/.test(l.trim())) out.push(l.trim());
  }
  return out;
}

/**
 * The example instructions PTX ISA 9.3 and 9.4 added, from the code blocks under the "Examples"
 * headings of ../ptx-spec-newer/editions-9.2-9.4.md (the families' own excerpts are 9.1 text).
 */
export function newerEditionExamples(): string[] {
  const t = specText('../ptx-spec-newer/editions-9.2-9.4.md');
  const out: string[] = [];
  for (const sec of t.matchAll(/^### \d+[a-z]\. Examples[^\n]*\n([\s\S]*?)(?=^---|^#)/gm)) {
    for (const block of sec[1]!.matchAll(/```\w*\n([\s\S]*?)```/g)) {
      for (const l of block[1]!.split('\n')) if (l.trim() && !/^(\.reg|\/\/|createpolicy)/.test(l.trim())) out.push(l.trim());
    }
  }
  return out;
}

import { it as vitestIt } from 'vitest';
import { type Edition, withEdition } from '../../harness/catalog/editions.js';

/**
 * `it` (and `it.each`) whose tests are judged against edition `e` (a recorded run judged against
 * the 9.1 text replays under 9.1): each test's body runs inside withEdition(e), the run context the
 * harness reads, and nothing outside it sees that edition. Inside a describe:
 * `const it = judgedAgainst('9.1');`.
 */
export function judgedAgainst(e: Edition) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Fn = (...a: any[]) => any;
  const wrap =
    (fn: Fn): Fn =>
    (...a) =>
      withEdition(e, () => fn(...a));
  const under = (name: string, fn: Fn, timeout?: number) => vitestIt(name, wrap(fn), timeout);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Row = any[] | [any];
  under.each = function each<T extends Row>(table: readonly T[]) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (name: string, fn: (...a: T) => unknown, timeout?: number): void => vitestIt.each(table as any)(name, wrap(fn as Fn), timeout);
  };
  return under;
}
