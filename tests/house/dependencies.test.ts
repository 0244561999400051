/**
 * The house rules of the module graph (.dependency-cruiser.cjs), checked by dependency-cruiser: no
 * import cycle anywhere (type-only imports count), and the core (catalog, numerics, reference,
 * compare, case readers, registry, generators) never imports harness/families/: the families are
 * handed in (harness/registry/). The second test plants a cycle and a core-to-families import in a
 * folder of its own and expects the same configuration to report each, so that the first cannot
 * pass by checking nothing.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const BIN = join(ROOT, 'node_modules', '.bin', 'depcruise');

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
  readonly cycle?: readonly (string | { readonly name: string })[];
}

/** Runs dependency-cruiser's CLI with the project's configuration over `paths`, in `cwd`. */
async function cruise(cwd: string, paths: readonly string[]): Promise<{ violations: Violation[]; modules: number }> {
  const r = await execa(BIN, ['--config', CONFIG, '--output-type', 'json', ...paths], { cwd, reject: false });
  expect(r.stderr, 'dependency-cruiser failed').not.toMatch(/ERROR/);
  const json = JSON.parse(r.stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  return { violations: json.summary.violations, modules: json.summary.totalCruised };
}

const describeViolation = (v: Violation) =>
  `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle: ${[v.from, ...v.cycle.map((c) => (typeof c === 'string' ? c : c.name))].join(' -> ')})` : ''}`;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the house: the module graph', () => {
  it('has no import cycle and no import of harness/families/ from the core (harness/, cases/, scripts/)', async () => {
    const { violations, modules } = await cruise(ROOT, ['harness', 'cases', 'scripts']);
    expect(modules).toBeGreaterThan(200); // it read the tree, not an empty folder
    expect(violations.map(describeViolation)).toEqual([]);
  });

  it('reports a planted cycle (also of type-only imports) and a planted core-to-families import, and not the CLI importing the families', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'house-'));
    dirs.push(dir);
    const write = (rel: string, text: string) => {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    };
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as Record<string, unknown>;
    write('tsconfig.json', JSON.stringify({ ...tsconfig, include: ['harness'] }));
    write('harness/families/fam.ts', 'export const plugin = 1;\n');
    write('harness/catalog/planted.ts', "import { plugin } from '../families/fam.js';\nexport const uses = plugin;\n");
    write('harness/util/a.ts', "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n");
    write('harness/util/b.ts', "import { a } from './a.js';\nexport const b = (): number => a() - 1;\n");
    write('harness/util/c.ts', "import type { D } from './d.js';\nexport interface C { d?: D }\n");
    write('harness/util/d.ts', "import type { C } from './c.js';\nexport interface D { c?: C }\n");
    // where the program is put together may import the families
    write('harness/cli/entry.ts', "import { plugin } from '../families/fam.js';\nexport const registered = plugin;\n");
    const { violations } = await cruise(dir, ['harness']);
    // one report per cycle, from its first module
    const got = violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
    expect(got).toEqual([
      'core-not-to-families: harness/catalog/planted.ts -> harness/families/fam.ts',
      'no-circular: harness/util/a.ts -> harness/util/b.ts',
      'no-circular: harness/util/c.ts -> harness/util/d.ts',
    ]);
  });
});
