/**
 * One definition each: bits are written as hex by harness/numerics/hex.ts and numbers are encoded
 * into a float format by harness/numerics/encode.ts, nowhere else in harness/ (ten copies of `hex`
 * with two argument orders and three float encoders, one of them truncating, stood here before).
 * The check reads the sources; a planted copy shows that it fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const HARNESS = join(import.meta.dirname, '..', '..', 'harness');
const HOMES = new Set(['numerics/hex.ts', 'numerics/encode.ts']);

/** What makes a second definition: bits padded to a format's width, or a float written through a typed array. */
const COPIES: readonly [string, RegExp][] = [
  ['hex of bits padded to the format width', /toString\(16\)\.padStart\([^)]*\/\s*4/],
  ['a float encoder (a typed array or DataView write)', /setFloat(32|64)\(|new Float(32|64)Array\(\[|function floatBits\b/],
  // and no name kept alive by `void name;`: an unused import, parameter or variable goes instead
  ['`void name;` keeping a dead name alive', /^\s*void [A-Za-z_$][\w$]*;\s*$/],
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

/** Each file and line of harness/ (or of `files`) that defines one of COPIES outside its home. */
export function copiesIn(files: readonly { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (HOMES.has(f.path)) continue;
    f.text.split('\n').forEach((line, i) => {
      for (const [what, re] of COPIES) if (re.test(line)) out.push(`${f.path}:${i + 1}: ${what}`);
    });
  }
  return out;
}

describe('one definition of hex and of the float encoder; no dead names kept alive', () => {
  const files = sources(HARNESS).map((p) => ({ path: relative(HARNESS, p).split('\\').join('/'), text: readFileSync(p, 'utf8') }));

  it('harness/ has no second one', () => {
    expect(copiesIn(files)).toEqual([]);
  });

  it('a planted copy of either is found, with its file and line', () => {
    const planted = [
      { path: 'report/x.ts', text: "const a = 1;\nconst hex = (bits: number, v: bigint) => `0x${v.toString(16).padStart(bits / 4, '0')}`;" },
      { path: 'contention/y.ts', text: 'function floatBits(f, x) {\n  return new Float32Array([x]);\n}' },
      { path: 'numerics/hex.ts', text: "v.toString(16).padStart(Math.ceil(bits / 4), '0')" },
      { path: 'cli/z.ts', text: 'function f(a, test) {\n  void test;\n  return a;\n}' },
    ];
    expect(copiesIn(planted)).toEqual([
      'report/x.ts:2: hex of bits padded to the format width',
      'contention/y.ts:1: a float encoder (a typed array or DataView write)',
      'contention/y.ts:2: a float encoder (a typed array or DataView write)',
      'cli/z.ts:2: `void name;` keeping a dead name alive',
    ]);
  });
});

describe('file references in comments', () => {
  /** Paths under the repository's folders named in harness/'s comments that do not exist (a `.js` import name stands for its `.ts`). */
  function staleRefs(files: readonly { path: string; text: string }[], exists: (p: string) => boolean): string[] {
    const out: string[] = [];
    const ROOTED = /(?<![\w./-])((?:harness|tests|scripts|docs|cases|native|reports|\.ci)\/[\w./@-]*[\w-])/g;
    const UNDER = /(?<![\w./-])([\w-]+\/[\w./-]*\.(?:ts|js|mjs))\b/g;
    for (const f of files) {
      f.text.split('\n').forEach((line, i) => {
        if (!/^\s*(\/\/|\*|\/\*\*)/.test(line)) return;
        for (const m of line.matchAll(ROOTED)) {
          const p = m[1]!;
          // placeholders of a message or an example (X, x, N stand for a name)
          if (/(^|\/)(X|x|N)(\.\w+)?$/.test(p)) continue;
          if (![p, p.replace(/\.js$/, '.ts'), `${p}.ts`, `${p}.gz`].some(exists)) out.push(`harness/${f.path}:${i + 1}: ${p}`);
        }
        // a file named from harness/ (`backends/gpu/family.ts`): it must be there
        for (const m of line.matchAll(UNDER)) {
          const p = m[1]!;
          if (!FOLDERS.has(p.split('/')[0]!)) continue;
          if (![p, p.replace(/\.js$/, '.ts')].some((x) => exists(`harness/${x}`))) out.push(`harness/${f.path}:${i + 1}: ${p}`);
        }
      });
    }
    return out;
  }
  const ROOT = join(HARNESS, '..');
  // harness/'s folders but `shared` (families/shared, or the workspace's ../shared in a citation)
  const FOLDERS = new Set(
    readdirSync(HARNESS, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'shared')
      .map((d) => d.name),
  );
  /** There, or a folder or file the run writes that git ignores (reports/out: absent from a fresh clone until a run makes it). */
  const exists = (p: string) => existsSync(join(ROOT, p)) || gitIgnored(p);
  const gitIgnored = (p: string) => {
    try {
      execFileSync('git', ['check-ignore', p, `${p}/`], { cwd: ROOT, stdio: 'ignore' }); // as a file or a folder; exit 0 when either is ignored
      return true;
    } catch {
      return false;
    }
  };
  it('name files that exist', () => {
    const files = sources(HARNESS).map((p) => ({ path: relative(HARNESS, p).split('\\').join('/'), text: readFileSync(p, 'utf8') }));
    expect(staleRefs(files, exists)).toEqual([]);
  });
  it('a planted stale one is found', () => {
    expect(
      staleRefs(
        [
          {
            path: 'report/x.ts',
            text: '/**\n * see harness/backends/gpu/emit.ts and harness/report/json.ts\n * (slot layout: backends/gpu/emit.ts; backends/gpu/family.ts)\n */',
          },
        ],
        exists,
      ),
    ).toEqual(['harness/report/x.ts:2: harness/backends/gpu/emit.ts', 'harness/report/x.ts:3: backends/gpu/emit.ts']);
  });
});
