/**
 * No process-wide state for a run's settings: harness/ never uses `globalThis` and never writes
 * `process.env` (the edition and the toolchain travel with the run: catalog/editions.ts withEdition,
 * probePtxas(path); a child process gets what it needs in its spawn environment, childEnv), and only
 * the tests' hooks enter an edition's context by hand (enterEdition). The CLI's entry (cli/main.ts)
 * is the one place that may write the process's environment. The check reads the sources; planted
 * lines show that it fails.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const HARNESS = join(import.meta.dirname, '..', '..', 'harness');

const RULES: readonly { what: string; re: RegExp; home?: string }[] = [
  { what: 'globalThis', re: /\bglobalThis\b/ },
  {
    what: 'a write to process.env',
    re: /process\.env(\.\w+|\[[^\]]+\])\s*(=(?!=)|\?\?=|\|\|=)|delete\s+process\.env|Object\.assign\(\s*process\.env/,
    home: 'cli/main.ts',
  },
  { what: 'enterEdition (tests only; the harness uses withEdition)', re: /\benterEdition\(/, home: 'catalog/editions.ts' },
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

/** Each file:line of `files` that breaks a rule, outside the rule's home; comment lines are left out. */
export function globalsIn(files: readonly { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    f.text.split('\n').forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      for (const r of RULES) if (f.path !== r.home && r.re.test(line)) out.push(`${f.path}:${i + 1}: ${r.what}`);
    });
  }
  return out;
}

describe('no globals for a run', () => {
  it('harness/ has none', () => {
    const files = sources(HARNESS).map((p) => ({ path: relative(HARNESS, p).split('\\').join('/'), text: readFileSync(p, 'utf8') }));
    expect(globalsIn(files)).toEqual([]);
  });
  it('planted ones are found, with file and line; the homes and comments are not', () => {
    const planted = [
      { path: 'catalog/x.ts', text: 'const g = globalThis as { e?: string };\n// globalThis in a comment\nprocess.env.PTXCONF_SPEC_EDITION = e;' },
      { path: 'cli/peer.ts', text: "process.env['PTXCONF_MEMORY_DEVICE'] = '1';\ndelete process.env.X;\nif (process.env.X === '1') f();" },
      { path: 'cli/main.ts', text: "process.env.X = '1';" },
      { path: 'cli/run.ts', text: "enterEdition('9.1');" },
    ];
    expect(globalsIn(planted)).toEqual([
      'catalog/x.ts:1: globalThis',
      'catalog/x.ts:3: a write to process.env',
      'cli/peer.ts:1: a write to process.env',
      'cli/peer.ts:2: a write to process.env',
      'cli/run.ts:1: enterEdition (tests only; the harness uses withEdition)',
    ]);
  });
});
