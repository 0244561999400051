/**
 * The documentation checks of tests/docs/docs.test.ts, as functions, so that each can be shown to
 * fail on wrong input: options a usage text names that the docs do not, relative links that point
 * nowhere, table cells too long to read.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Every `--option` a text names (usage texts, source files), each once, in order of appearance. */
export function optionsIn(text: string): string[] {
  return [...new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*/g)].map((m) => m[0]))];
}

/** Whether `docs` names `--option` as a whole token (`--keep` is not named by `--keep-runs`). */
export function names(docs: string, option: string): boolean {
  const esc = option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${esc}(?![\\w-])`).test(docs);
}

/** The options of `usage` that `docs` does not name. */
export function undocumentedOptions(usage: string, docs: string): string[] {
  return optionsIn(usage).filter((o) => !names(docs, o));
}

/** The values a usage text lists for an option: `--kind LIST ...: a,b,c` or `--backend NAME  a | b | c`. */
export function optionValues(usage: string, option: string): string[] {
  const line = usage.split('\n').find((l) => new RegExp(`^\\s*${option}\\s`).test(l));
  if (!line) return [];
  const list =
    /:\s*([a-z][a-z0-9-]*(?:,[a-z][a-z0-9-]*)+)\s*$/.exec(line) ?? /\s([a-z][a-z0-9-]*(?:\s*\|\s*[a-z][a-z0-9-]*)+)/.exec(line.replace(/^\s*--\S+\s+\S+/, ''));
  return list ? list[1]!.split(/\s*[,|]\s*/) : [];
}

/** The values `docs` does not write as a code span (`` `spelling` ``). */
export function undocumentedValues(values: readonly string[], docs: string): string[] {
  return values.filter((v) => !docs.includes(`\`${v}\``));
}

/** Markdown without fenced code blocks and inline code (links there are examples, not links). */
function prose(md: string): string {
  return md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings (repeats numbered as GitHub does). */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const s = slug(m[1]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n ? `${s}-${n}` : s);
  }
  return out;
}

/**
 * The relative links of a markdown file that point nowhere: `[text](path)` and `![alt](path)` whose
 * file or folder does not exist, or whose `#anchor` is no heading of the markdown file it names.
 */
export function brokenLinks(file: string, md: string = readFileSync(file, 'utf8')): string[] {
  const out: string[] = [];
  for (const m of prose(md).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const abs = path ? resolve(dirname(file), decodeURIComponent(path)) : resolve(file);
    if (!existsSync(abs)) {
      out.push(`${target}: no such file or folder`);
      continue;
    }
    if (anchor !== undefined && abs.endsWith('.md') && statSync(abs).isFile() && !anchors(readFileSync(abs, 'utf8')).has(anchor)) {
      out.push(`${target}: no heading '#${anchor}' in ${path || 'this file'}`);
    }
  }
  return out;
}

/** Table cells (in `| a | b |` rows outside code) longer than `max` characters. */
export function longCells(md: string, max: number): string[] {
  const out: string[] = [];
  for (const line of md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').split('\n')) {
    if (!line.startsWith('|')) continue;
    for (const c of line.split(/(?<!\\)\|/).slice(1, -1)) if (c.trim().length > max) out.push(`${c.trim().slice(0, 60)}... (${c.trim().length} characters)`);
  }
  return out;
}

/** The documentation files: README.md and docs/*.md. */
export function docFiles(root: string, list: readonly string[]): string[] {
  return [join(root, 'README.md'), ...list.filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f))];
}

/** The commands (by name) that have no section of docs/usage.md: a heading naming them (`## sweep`, `## Working with reports: diff, ...`). */
export function undocumentedCommands(names: readonly string[], usageMd: string): string[] {
  const headings = [...usageMd.matchAll(/^#{2,4} (.*)$/gm)].map((m) => m[1]!);
  return names.filter((n) => !headings.some((h) => new RegExp(`(^|[^\\w-])${n}([^\\w-]|$)`).test(h)));
}
