/**
 * The same vector-file cases spelled seven ordinary YAML ways
 * (scripts/vector-spellings.ts: flow, TestFloat-style block, block with comments, single-quoted hex,
 * another key order, plain hex, block sequences) read to the same cases, all by the packed reader,
 * in one piece or in many, get the same verdicts from a reference run (the fast judge applying to
 * every spelling), and run in the same speed class.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unpackAll } from '../../harness/case-readers/packed.js';
import { loadVectorText, streamVectors } from '../../harness/case-readers/vectors.js';
import { YamlScanner } from '../../harness/case-readers/vector-yaml.js';
import { SPELLINGS, SPELLING_HEAD, spell, spelledCase } from '../../scripts/vector-spellings.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'yaml-spellings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (sp: (typeof SPELLINGS)[number], n: number) => SPELLING_HEAD + Array.from({ length: n }, (_, i) => spell(spelledCase(i, 7), sp)).join('');
const strip = (c: object) =>
  JSON.parse(
    JSON.stringify(c, (k, v) => (k === 'id' || k === 'file' || k === 'line' || k === 'nameLine' ? undefined : typeof v === 'bigint' ? v.toString() : v)),
  );

describe('seven YAML spellings of the same cases', () => {
  it('read to the same cases, every one by the packed reader, as the yaml package reads them', () => {
    const base = loadVectorText('flow.yaml', text('flow', 60), 'x.yaml');
    expect(base.problems).toEqual([]);
    expect(base.cases).toHaveLength(60);
    for (const sp of SPELLINGS) {
      const t = text(sp, 60);
      const r = loadVectorText(`${sp}.yaml`, t, 'x.yaml');
      expect(r.problems, sp).toEqual([]);
      expect(r.packed, sp).toBe(60);
      expect(r.cases.map(strip), sp).toEqual(base.cases.map(strip));
      const general = loadVectorText(`${sp}.yaml`, t, 'x.yaml', { fastYaml: false });
      expect(general.packed).toBe(0);
      expect(r.cases.map(strip), sp).toEqual(general.cases.map(strip));
    }
  });

  it('read in small pieces (the reader keeps an item across pieces, its buffer reused) to the cases of a whole read, with 5 instructions of one length', () => {
    for (const sp of SPELLINGS) {
      const t = text(sp, 2000);
      const whole = loadVectorText(`${sp}.yaml`, t, 'x.yaml');
      expect(whole.packed, sp).toBe(2000);
      for (const piece of [997, 4096]) {
        const s = new YamlScanner(`${sp}.yaml`, 'x.yaml', false, t.length);
        const got = [];
        for (let i = 0; i < t.length; i += piece) for (const b of s.push(t.slice(i, i + piece), false)) got.push(...unpackAll(b));
        for (const b of s.push('', true)) got.push(...unpackAll(b));
        expect(s.ctx.problems, sp).toEqual([]);
        expect(s.packedItems, sp).toBe(2000);
        expect(
          got.map((c) => `${c.id} ${c.origin.kind === 'vectors' ? c.origin.line : ''} ${JSON.stringify(strip(c))}`),
          `${sp} in pieces of ${piece}`,
        ).toEqual(whole.cases.map((c) => `${c.id} ${c.origin.kind === 'vectors' ? c.origin.line : ''} ${JSON.stringify(strip(c))}`));
      }
    }
  });

  it('a JSON-lines file bigger than a whole read, streamed in blocks, gives the instructions a whole read gives (the instruction cache copies its bytes)', async () => {
    // lines of exactly 128 bytes, three instructions of one length in turn: a 256 KB block holds 2048
    // lines, so after a block the bytes where the first lines' instructions were hold other lines' others
    const kinds = ['red.global.add.u32', 'red.global.and.b32', 'red.global.xor.b32'];
    const n = 40_000; // 5 MB: read in blocks into one reused buffer
    const lines = Array.from({ length: n }, (_, i) => {
      const l = `{"name": "n${String(i).padStart(6, '0')}", "instruction": "${kinds[i % 3]}", "memory": ["0x00000001"], "operands": {"b": ["0x00000002"]}`;
      return `${l.padEnd(126)}}\n`;
    }).join('');
    expect(lines.length).toBe(128 * n);
    const f = join(dir, 'big.jsonl');
    writeFileSync(f, lines);
    // streamed first: the reader's caches then hold only bytes of its reused buffer
    const streamed = [];
    for await (const b of streamVectors([f], dir)) streamed.push(...b);
    expect(streamed.length).toBe(n);
    const whole = loadVectorText(f, lines, 'big.jsonl');
    expect(whole.cases.map((c) => c.variant.id).slice(0, 4)).toEqual([...kinds, kinds[0]]);
    expect(streamed.map((c) => c.id)).toEqual(whole.cases.map((c) => c.id));
  });

  it('block items the packed reader must leave to the general path give its cases and problems', () => {
    const one = (body: string) => `cite: "x"\ncases:\n${body}`;
    const items = [
      '  - name: a\n    instruction: atom.global.add.u32\n    memory: ["0x00000001"]\n    operands:\n      b: ["0x00000001"]\n     c: ["0x00000001"]\n', // ragged inner column
      '  - name: a\n    instruction: atom.global.add.u32\n    memory: ["0x00000001"]\n    operands:\n    b: ["0x00000001"]\n', // inner map not indented
      '  - name: a\n    instruction: atom.global.add.u32\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000001"] }\n    operands:\n      b: ["0x00000002"]\n', // duplicate key, flow then block
      '  - name: a\n    instruction: atom.global.add.u32\n    memory: ["0x00000001"]#no space\n    operands:\n      b: ["0x00000001"]\n', // '#' without a space
      '  - name: a\n    instruction: atom.global.add.u32\n    memory: [\'0x00000001"]\n    operands:\n      b: ["0x00000001"]\n', // mismatched quotes
      "  - name: a\n    instruction: atom.global.add.u32\n    memory: ['0x0000000g']\n    operands:\n      b: ['0x00000001']\n", // bad digit, single-quoted
      '  - name: a\n    instruction: atom.global.add.u32\n    memory: ["0x00000001"]\n    operands:\n    expect:\n      memory: ["0x00000001"]\n', // empty operands
      '  - name: a # the name\n    instruction: atom.global.add.u32\n    memory: ["0x00000001"]\n    operands:   # ops\n      # b only\n      b: ["0x00000001"]   # b\n\n    expect:\n      returned: ["0x00000001"]\n', // good
    ];
    for (const body of items) {
      const t = one(body);
      const fast = loadVectorText('i.yaml', t);
      const general = loadVectorText('i.yaml', t, 'i.yaml', { fastYaml: false });
      expect(fast.problems, body).toEqual(general.problems);
      expect(fast.cases.map(strip), body).toEqual(general.cases.map(strip));
    }
    expect(loadVectorText('i.yaml', one(items[7]!)).packed).toBe(1);
  });

  it('a reference run gives the same verdicts, and the fast judge applies to each alike (every spelling on the packed path: the same speed class; the speed itself is bench:vectors --spellings)', async () => {
    const n = 16_000; // the first 200 kept whole through the full model (--keep 200), the rest for the fast judge
    const seen: { verdicts: string; cases: number; fast: number; exit: number }[] = [];
    for (const sp of SPELLINGS) {
      writeFileSync(join(dir, `${sp}.yaml`), text(sp, n));
      const report = join(dir, `r-${sp}`);
      const exit = (await runCli(['--vectors', join(dir, `${sp}.yaml`), '--backend', 'reference', '--report', report, '--keep', '200'])).code;
      const r = JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')) as {
        stats: { cases: number; fastJudged: number };
        results: { id: string; verdict: string }[];
      };
      const verdicts = r.results.map((x) => `${x.id.split(':').pop()} ${x.verdict}`).join('\n');
      seen.push({ verdicts, cases: r.stats.cases, fast: r.stats.fastJudged, exit });
    }
    for (const s of seen) {
      expect(s.cases).toBe(n);
      expect(s.exit).toBe(1); // every 7th expect is wrong
      expect(s.verdicts).toBe(seen[0]!.verdicts);
      // a spelling read by the general path goes case by case through the full model: 0 here
      expect(s.fast).toBe(seen[0]!.fast);
      expect(s.fast).toBeGreaterThan(12_000);
    }
  }, 300_000);
});
