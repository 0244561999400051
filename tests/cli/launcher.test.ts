/**
 * scripts/conformance.cjs (`npm run conformance`) runs the CLI from an esbuild bundle of the harness
 * and rebuilds it when a file it was made of changed. The bundle answers as the TypeScript under tsx
 * does: the same --list, the same verdicts of a reference run over a user's vector file (its case
 * child bundled too, the package's cases/ found from the bundle's folder), the same usage error and
 * exit code; a stale stamp makes a new bundle, a fresh one is used as it is.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const LAUNCHER = join(ROOT, 'scripts', 'conformance.cjs');
const bundleDir = join(ROOT, '.cache', `bundle-test-${process.pid}`);
const scratch = mkdtempSync(join(tmpdir(), 'ptxconf-launcher-'));
afterAll(() => {
  rmSync(bundleDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

function launch(args: string[], bundle: boolean): { code: number | null; out: string; err: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, PTXCONF_BUNDLE_DIR: bundleDir, INIT_CWD: scratch };
  if (bundle) delete env.PTXCONF_NO_BUNDLE;
  else env.PTXCONF_NO_BUNDLE = '1';
  const r = spawnSync(process.execPath, [LAUNCHER, ...args], { cwd: ROOT, env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const current = () => JSON.parse(readFileSync(join(bundleDir, 'current.json'), 'utf8')) as { name: string; inputs: string[]; stamp: string };
const verdicts = (dir: string) =>
  gunzipSync(readFileSync(join(dir, 'results.jsonl.gz')))
    .toString()
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => {
      const o = JSON.parse(l) as { id: string; verdict: string };
      return `${o.id} ${o.verdict}`;
    })
    .sort();

describe('npm run conformance through the bundle', () => {
  it('builds the bundle once, answers --list as tsx does, and reuses it while its files are unchanged', () => {
    const args = ['--list', '--filter', 'atom.global.add.f32'];
    const b = launch(args, true);
    expect(b.err).not.toContain('no bundle');
    expect(b.code).toBe(0);
    const first = current();
    // the entries, and the code they share in chunks beside them (the bundled code finds its children beside itself)
    const files = readdirSync(join(bundleDir, first.name)).sort();
    // (and the code cache of list.cjs, which its first --list wrote)
    expect(files.filter((f) => !f.startsWith('chunk-'))).toEqual(
      ['case-child.mjs', 'cli.mjs', 'executor.mjs', 'list.cjs', 'list.cjs.v8cache', 'multicast-child.mjs', 'spawn-child.mjs', 'worker.mjs'].sort(),
    );
    expect(files.filter((f) => f.startsWith('chunk-')).length).toBeGreaterThan(0);
    expect(files.every((f) => f.endsWith('.mjs') || f.startsWith('list.cjs'))).toBe(true);
    // --list's program is one file of the catalog's code: no fast-check (the generators pass it to the families), no run
    const list = readFileSync(join(bundleDir, first.name, 'list.cjs'), 'utf8');
    expect(list).not.toContain('fast-check');
    expect(list.length).toBeLessThan(600_000);
    expect(list).not.toMatch(/^import .* from "\.\/chunk-/m);
    expect(list).not.toMatch(/require\("\.\/chunk-/);
    // the harness's sources are among the inputs the stamp covers; a package by its package.json and version
    expect(first.inputs).toContain('harness/cli/main.ts');
    expect(first.inputs).toContain('harness/catalog/enumerate.ts');
    expect(first.inputs).toContain('node_modules/yaml/package.json');
    expect(first.inputs.filter((p) => p.startsWith('node_modules/yaml/'))).toEqual(['node_modules/yaml/package.json']);
    const yamlVersion = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'yaml', 'package.json'), 'utf8')) as { version: string }).version;
    expect(first.stamp).toMatch(new RegExp(`^node_modules/yaml/package\\.json \\d+ [\\d.]+ ${yamlVersion.replace(/\./g, '\\.')}$`, 'm'));
    const t = launch(args, false);
    expect(t.code).toBe(0);
    expect(b.out).toBe(t.out);
    expect(b.out).toContain('atom.global.add.f32\tvariant\taccept');
    expect(launch(args, true).out).toBe(t.out);
    // a code cache V8 refuses (another node, flags, or bytes like these): the same answer, the cache written again
    const cache = join(bundleDir, first.name, 'list.cjs.v8cache');
    writeFileSync(cache, Buffer.alloc(4096, 7));
    expect(launch(args, true).out).toBe(t.out);
    expect(readFileSync(cache).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(current().name).toBe(first.name);
  }, 120_000);

  it("answers a --list of the catalog without loading the CLI's bundle, and gives it everything else", () => {
    const dir = join(bundleDir, current().name);
    const cli = readFileSync(join(dir, 'cli.mjs'));
    const want = launch(['--list', '--filter', 'red.global.add.f32'], false);
    // a CLI that cannot load: the list still comes, the same; --help and a subcommand's --list reach the CLI
    writeFileSync(join(dir, 'cli.mjs'), 'throw new Error("the CLI was loaded");\n');
    try {
      const l = launch(['--list', '--filter', 'red.global.add.f32'], true);
      expect(l.code).toBe(0);
      expect(l.out).toBe(want.out);
      expect(l.err).toBe(want.err);
      for (const args of [
        ['--list', '--help'],
        ['sweep', '--list'],
        ['--list', '--vectors', 'x.yaml'],
        ['--list', '--no-such-flag'],
      ]) {
        expect(launch(args, true).err, args.join(' ')).toContain('the CLI was loaded');
      }
    } finally {
      writeFileSync(join(dir, 'cli.mjs'), cli);
    }
  }, 120_000);

  it('builds again when the stamp no longer matches the files', () => {
    const before = current();
    // as if harness/cli/main.ts had another size or time than when the bundle was made
    writeFileSync(join(bundleDir, 'current.json'), JSON.stringify({ ...before, stamp: before.stamp.replace(/^(harness\/cli\/main\.ts) \d+/m, '$1 1') }));
    expect(launch(['--list', '--filter', 'red.global.add.f32'], true).code).toBe(0);
    const after = current();
    expect(after.name).not.toBe(before.name);
    expect(after.stamp).toBe(before.stamp);
  }, 120_000);

  it('runs a reference run of a user vector file with the same verdicts, and a usage error the same way', () => {
    writeFileSync(
      join(scratch, 'v.jsonl'),
      '{"instruction": "atom.global.add.f32"}\n{"name": "one", "memory": ["0x3f800000"], "operands": {"b": ["0x3f800000"]}}\n{"name": "nan", "memory": ["0x7fc00000"], "operands": {"b": ["0x3f800000"]}}\n',
    );
    const run = (bundle: boolean) =>
      launch(['--backend', 'reference', '--vectors', 'v.jsonl', '--report', bundle ? 'rb' : 'rt', '--filter', 'atom.global.add.f32'], bundle);
    const b = run(true);
    const t = run(false);
    expect(b.code, b.err).toBe(t.code);
    expect(verdicts(join(scratch, 'rb'))).toEqual(verdicts(join(scratch, 'rt')));
    expect(verdicts(join(scratch, 'rb')).length).toBeGreaterThanOrEqual(2);
    const bad = launch(['--no-such-flag'], true);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(launch(['--no-such-flag'], false).err);
    expect(bad.err).not.toMatch(/\n\s+at .*:\d+:\d+\)?\n/);
  }, 180_000);
});

describe('how npm starts the launcher (conformanceNodeArgs), which the benchmarks and the GPU bundle copy', () => {
  it("is package.json's conformance script after `node`; a script of another shape is refused, naming the file; an older checkout's launcher found by name", async () => {
    const { conformanceNodeArgs } = (await import(LAUNCHER)) as { conformanceNodeArgs: (dir?: string) => string[] };
    const { launcher } = await import('../../scripts/launcher.js');
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.conformance!;
    const args = conformanceNodeArgs();
    expect(`exec node ${args.join(' ')}`).toBe(script);
    expect(args.at(-1)).toBe('scripts/conformance.cjs');
    expect(launcher(ROOT)).toEqual(args);
    // another checkout's package.json decides its own
    const other = join(scratch, 'checkout');
    const { mkdirSync, copyFileSync } = await import('node:fs');
    mkdirSync(join(other, 'scripts'), { recursive: true });
    copyFileSync(LAUNCHER, join(other, 'scripts', 'conformance.cjs'));
    writeFileSync(join(other, 'package.json'), JSON.stringify({ scripts: { conformance: 'node --stack-size=2000 scripts/conformance.cjs' } }));
    expect(launcher(other)).toEqual(['--stack-size=2000', 'scripts/conformance.cjs']);
    writeFileSync(join(other, 'package.json'), JSON.stringify({ scripts: { conformance: 'tsx harness/cli/main.ts' } }));
    expect(() => conformanceNodeArgs(other)).toThrow(`${join(other, 'package.json')}: its conformance script ("tsx harness/cli/main.ts") is not "node ARGS"`);
    // a checkout before the .cjs launcher
    expect(launcher(join(scratch, 'no-such-checkout'))).toEqual(['scripts/conformance.mjs']);
  });
});
