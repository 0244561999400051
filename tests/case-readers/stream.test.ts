/**
 * Vector files at scale: a file far past the old ~130 k-case crash loads; big files (over the
 * whole-document limit) are read in blocks and give exactly the cases a whole-text read gives;
 * batches are bounded; validation reports located problems of every file and a count, with progress;
 * a file not in the simple layout gets a located problem telling what to do; findCase reads a big
 * file only as far as the case.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASES_DIR, DIRECTED_DIR, findCase } from '../../harness/case-readers/sources.js';
import type { Case } from '../../harness/case-readers/types.js';
import { WHOLE_DOC_LIMIT, findInFile, loadVectorText, loadVectors, streamVectors, validateVectors } from '../../harness/case-readers/vectors.js';

const KINDS = [
  ['atom.global.add.f32', 8, false],
  ['red.global.add.u32', 8, false],
  ['atom.global.cas.b32', 8, true],
  ['atom.global.add.noftz.f16', 4, false],
] as const;

const h = (i: number, digits: number) => `0x${((i * 2654435761) >>> 0).toString(16).padStart(8, '0').slice(0, digits)}`;

function yamlFile(n: number): string {
  const out = ['# generated', 'cite: "gen"', 'cases:'];
  for (let i = 0; i < n; i++) {
    const [ins, d, c] = KINDS[i % 4]!;
    out.push(
      `  - name: case-${i}`,
      `    instruction: ${ins}`,
      `    memory: ["${h(i, d)}"]`,
      `    operands: { b: ["${h(i + 1, d)}"]${c ? `, c: ["${h(i + 2, d)}"]` : ''} }`,
    );
  }
  return `${out.join('\n')}\n`;
}

function jsonlFile(n: number): string {
  const out = ['{"cite": "gen"}'];
  for (let i = 0; i < n; i++) {
    const [ins, d, c] = KINDS[i % 4]!;
    out.push(
      `{"name": "case-${i}", "instruction": "${ins}", "memory": ["${h(i, d)}"], "operands": {"b": ["${h(i + 1, d)}"]${c ? `, "c": ["${h(i + 2, d)}"]` : ''}}}`,
    );
  }
  return `${out.join('\n')}\n`;
}

async function collect(gen: AsyncGenerator<Case[]>): Promise<{ cases: Case[]; sizes: number[] }> {
  const cases: Case[] = [];
  const sizes: number[] = [];
  for await (const b of gen) {
    sizes.push(b.length);
    for (const c of b) cases.push(c);
  }
  return { cases, sizes };
}

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vectors-stream-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a 200 k-case file', () => {
  it('loads without crashing (the old loader overflowed the stack past ~130 k)', async () => {
    const f = join(dir, 'big-200k.yaml');
    writeFileSync(f, yamlFile(200_000));
    const r = await loadVectors([f], dir);
    expect(r.problems).toEqual([]);
    expect(r.cases.length).toBe(200_000);
    expect(r.cases[199_999]!.id).toBe('atom.global.add.noftz.f16/big-200k.yaml:case-199999');
    expect(r.cases[199_999]!.origin).toEqual({ kind: 'vectors', file: 'big-200k.yaml', line: 4 + 4 * 199_999, name: 'case-199999' });
    // replay by id reads only as far as the case
    const t0 = performance.now();
    const one = await findCase(`atom.global.add.f32/${f}:case-4`);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(one.case?.input).toEqual(r.cases[4]!.input);
    // another variant's prefix is refused with the case's real id (before: it ran the f32 case)
    const wrong = await findCase(`red.global.add.u32/${f}:case-4`);
    expect(wrong.case).toBeUndefined();
    expect(wrong.why).toMatch(
      /^case 'case-4' in .*big-200k\.yaml is atom\.global\.add\.f32, not red\.global\.add\.u32: its id is atom\.global\.add\.f32\/.*big-200k\.yaml:case-4$/,
    );
  }, 30_000);
});

describe('streaming', () => {
  const n = 40_000;
  let yaml = '';
  let jsonl = '';
  beforeAll(() => {
    yaml = join(dir, 'mid.yaml');
    jsonl = join(dir, 'mid.jsonl');
    writeFileSync(yaml, yamlFile(n));
    writeFileSync(jsonl, jsonlFile(n));
  });

  it('a big file (read in blocks) gives exactly the cases of a whole-text read, in both formats', async () => {
    expect(statSync(yaml).size).toBeGreaterThan(WHOLE_DOC_LIMIT);
    for (const f of [yaml, jsonl]) {
      const whole = loadVectorText(f, readFileSync(f, 'utf8'), f.split('/').pop());
      const streamed = await collect(streamVectors([f], dir));
      expect(whole.problems).toEqual([]);
      expect(streamed.cases.length).toBe(n);
      expect(isDeepStrictEqual(streamed.cases, whole.cases)).toBe(true);
    }
    // and the two formats hold the same cases
    const a = (await collect(streamVectors([yaml], dir))).cases;
    const b = (await collect(streamVectors([jsonl], dir))).cases;
    expect(
      isDeepStrictEqual(
        a.map((c) => c.input),
        b.map((c) => c.input),
      ),
    ).toBe(true);
  }, 30_000);

  it('JSON lines read in blocks: a BOM, CRLF, a line longer than a block, a non-ASCII name, all as a whole read gives them', async () => {
    const lines = jsonlFile(60_000).trimEnd().split('\n');
    lines[30_000] = lines[30_000]!.replace('"memory":', `${' '.repeat(300_000)}"memory":`); // 300 KB: longer than a read block
    lines[40_000] = lines[40_000]!.replace(/"name": "[^"]*"/, '"name": "caf\u00e9-\u00fc"');
    const f = join(dir, 'odd.jsonl');
    writeFileSync(f, `\ufeff${lines.join('\r\n')}\r\n`);
    expect(statSync(f).size).toBeGreaterThan(WHOLE_DOC_LIMIT);
    const whole = loadVectorText(f, readFileSync(f, 'utf8').replace(/^\ufeff/, ''), f.split('/').pop());
    const v = await validateVectors([f], dir);
    expect(v.problems).toEqual(whole.problems);
    expect(v.problems.map((p) => [p.line, p.col])).toEqual([[40_001, 10]]);
    expect(v.problems[0]!.message).toMatch(/case name 'café-ü' may use only letters, digits/);
    const streamed = await collect(streamVectors([f], dir));
    expect(streamed.cases.length).toBe(60_000 - 1);
    expect(isDeepStrictEqual(streamed.cases, whole.cases)).toBe(true);
    expect(streamed.cases.find((c) => c.origin.kind === 'vectors' && c.origin.name === 'case-29999')?.origin).toMatchObject({ line: 30_001 });
  });
  it('YAML read in blocks as bytes: a BOM, multibyte characters cut by block ends, a non-ASCII name, a byte that is not UTF-8, all as a whole read gives them', async () => {
    const lines = yamlFile(60_000).trimEnd().split('\n');
    // a comment of 1-, 2-, 3- and 4-byte characters every 7th line: block ends fall inside them
    for (let i = 3; i < lines.length; i += 7) lines[i] += ` # caf\u00e9 \u20ac \u{1f600}${'\u00e9'.repeat(i % 5)}`;
    const at = lines.findIndex((l) => l.includes('name: case-40000'));
    lines[at] = lines[at]!.replace('case-40000', 'caf\u00e9-\u00fc');
    for (const bad of [false, true]) {
      const f = join(dir, bad ? 'odd-bytes.yaml' : 'odd.yaml');
      const body = Buffer.from(`\ufeff${lines.join('\n')}\n`, 'utf8');
      // a byte no UTF-8 text has, in a comment two thirds in: from its block on the reader decodes
      if (bad) body[body.indexOf('# caf', Math.floor((body.length * 2) / 3)) + 2] = 0xff;
      writeFileSync(f, body);
      expect(statSync(f).size).toBeGreaterThan(WHOLE_DOC_LIMIT);
      const whole = loadVectorText(f, readFileSync(f, 'utf8').replace(/^\ufeff/, ''), f.split('/').pop());
      const v = await validateVectors([f], dir);
      expect(v.problems).toEqual(whole.problems);
      expect(v.problems.map((p) => p.line)).toEqual([at + 1]);
      expect(v.problems[0]!.message).toMatch(/case name 'café-ü' may use only letters, digits/);
      const streamed = await collect(streamVectors([f], dir));
      expect(streamed.cases.length).toBe(60_000 - 1);
      expect(isDeepStrictEqual(streamed.cases, whole.cases)).toBe(true);
    }
  }, 60_000);

  it('the directed library streams to the same cases as loadVectors', async () => {
    const all = await loadVectors([DIRECTED_DIR], CASES_DIR);
    const s = await collect(streamVectors([DIRECTED_DIR], CASES_DIR, { batch: 1000 }));
    expect(isDeepStrictEqual(s.cases, all.cases)).toBe(true);
  });

  it('batches are bounded, and keep filters by variant', async () => {
    const s = await collect(streamVectors([yaml, jsonl], dir, { batch: 3000 }));
    expect(Math.max(...s.sizes)).toBe(3000);
    expect(s.sizes.slice(0, -1).every((x) => x === 3000)).toBe(true);
    expect(s.cases.length).toBe(2 * n);
    const d = await collect(streamVectors([yaml], dir, { keep: (id) => id === 'atom.global.cas.b32' }));
    expect(d.cases.length).toBe(n / 4);
    expect(d.sizes.every((x) => x <= 4096)).toBe(true);
  }, 30_000);

  it('validation counts the cases, reports progress up to every byte, and holds no case', async () => {
    const calls: number[][] = [];
    const v = await validateVectors([yaml, jsonl], dir, (...a) => calls.push(a));
    expect(v).toEqual({ problems: [], cases: 2 * n, files: [yaml, jsonl] });
    const total = statSync(yaml).size + statSync(jsonl).size;
    expect(calls.length).toBeGreaterThan(4);
    expect(calls.at(-1)).toEqual([2, 2 * n, total, total]);
    for (let i = 1; i < calls.length; i++) expect(calls[i]![2]!).toBeGreaterThanOrEqual(calls[i - 1]![2]!);
  }, 30_000);
});

describe('problems in big files', () => {
  it('are located at the real line of the file, across block boundaries, for every file', async () => {
    const lines = yamlFile(40_000).split('\n');
    // case i spans lines 4 + 4i (name:) to 7 + 4i (operands:); its memory: is line 6 + 4i (index 5 + 4i)
    lines[5 + 4 * 30_000] = '    memory: ["0x1"]';
    lines[3 + 4 * 39_000] = '  - name: case-5';
    lines[5 + 4 * 39_001] = '    memory: ["0x0000000" ';
    const f = join(dir, 'bad.yaml');
    writeFileSync(f, lines.join('\n'));
    const j = join(dir, 'bad.jsonl');
    writeFileSync(j, `${jsonlFile(10).trimEnd()}\n{"name": "x", "instruction": "red.global.add.u32", "memory": ["zz"], "operands": {"b": ["0x00000001"]}}\n`);
    const v = await validateVectors([f, j], dir);
    const at = v.problems.map((p) => `${p.file.split('/').pop()}:${p.line}:${p.col}: ${p.message}`);
    expect(at).toEqual([
      expect.stringMatching(new RegExp(`^bad.yaml:${6 + 4 * 30_000}:14: memory\\[0\\]: '0x1' has 1 hex digit`)),
      `bad.yaml:${4 + 4 * 39_000}:11: duplicate case name 'case-5' (first at line 24); names must be unique in a file`,
      // the unclosed bracket: the yaml package notices on the line after it
      ...Array(at.length - 3).fill(expect.stringMatching(new RegExp(`^bad.yaml:(${6 + 4 * 39_001}|${7 + 4 * 39_001}):\\d+: YAML: `))),
      expect.stringMatching(
        new RegExp(
          `^bad.jsonl:12:${'{"name": "x", "instruction": "red.global.add.u32", "memory": ['.length + 1}: memory\\[0\\]: 'zz' is not a hex bit pattern`,
        ),
      ),
    ]);
    expect(v.cases).toBe(40_000 - 3 + 10);
  }, 30_000);

  it('a big file not in the simple layout gets one located problem saying what to do', async () => {
    const f = join(dir, 'flow.yaml');
    const items = Array.from(
      { length: 60_000 },
      (_, i) => `{name: f${i}, instruction: red.global.add.u32, memory: ["0x00000001"], operands: {b: ["0x00000001"]}}`,
    );
    writeFileSync(f, `cases: [\n${items.join(',\n')}\n]\n`);
    expect(statSync(f).size).toBeGreaterThan(WHOLE_DOC_LIMIT);
    const v = await validateVectors([f], dir);
    expect(v.problems).toHaveLength(1);
    expect(v.problems[0]).toMatchObject({ line: 1, col: 1 });
    expect(v.problems[0]!.message).toMatch(/too big to read as one YAML document .* simple block layout .* JSON lines/);
  });
});

describe('findInFile', () => {
  it('stops at the named case; a missing name reports the file problems', async () => {
    const f = join(dir, 'find.jsonl');
    writeFileSync(f, `${jsonlFile(20).trimEnd()}\n{"name": "bad", "memory": ["0x1"]}\n`);
    expect((await findInFile(f, dir, 'case-3')).case?.id).toBe('atom.global.add.noftz.f16/find.jsonl:case-3');
    const miss = await findInFile(f, dir, 'nope');
    expect(miss.case).toBeUndefined();
    expect(miss.problems.length).toBeGreaterThan(0);
  });
});
