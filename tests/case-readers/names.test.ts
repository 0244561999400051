/**
 * Duplicate case names where the packed readers defer the check (NameSet.defer, checked in batches at
 * the end of a file, endNames): each duplicate is reported exactly as the general path reports it
 * (line, column, words, in line order among the file's problems), whichever paths read the two
 * items, and the duplicate's case is not handed on from a file read whole.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadVectorText, validateVectors } from '../../harness/case-readers/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'vector-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const yamlItem = (name: string, odd = false) =>
  // odd: a typed shorthand, which the packed reader leaves to the general path
  `  - name: ${name}\n    instruction: atom.global.add.u32\n    memory: [${odd ? '{u32: 1}' : '"0x00000001"'}]\n    operands:\n      b: ['0x00000002']\n`;
const jsonItem = (name: string, odd = false) =>
  `{"name": "${name}", "instruction": "atom.global.add.u32", "memory": [${odd ? '{"u32": 1}' : '"0x00000001"'}], "operands": {"b": ["0x00000002"]}}\n`;

describe('duplicate names, packed or not', () => {
  // (name, read by the general path?) in file order: packed after packed, packed after general,
  // general after packed, a bad item between, three of one name
  const items: [string, boolean][] = [
    ['a', false],
    ['b', true],
    ['a', false],
    ['b', false],
    ['c', false],
    ['c', true],
    ['bad name', false],
    ['a', false],
    ['d', false],
  ];
  for (const [form, item, head] of [
    ['yaml', yamlItem, 'cite: "x"\ncases:\n'],
    ['jsonl', jsonItem, ''],
  ] as const) {
    it(`${form}: the problems and cases of the general path alone`, () => {
      const text = head + items.map(([n, odd]) => item(n, odd)).join('');
      const f = `d.${form}`;
      const fast = loadVectorText(f, text, f);
      const general = loadVectorText(f, text, f, { packed: false });
      expect(fast.packed).toBeGreaterThan(4);
      expect(fast.problems.filter((p) => p.message.startsWith('duplicate')).length).toBe(4);
      expect(fast.problems).toEqual(general.problems);
      expect(fast.cases).toEqual(general.cases);
    });
  }

  it('a file read in blocks (bigger than a whole read): every duplicate, at its line and column, across blocks', async () => {
    const n = 40_000;
    const names = Array.from({ length: n }, (_, i) => `case-${i}`);
    names[30_000] = 'case-7'; // a duplicate far from its first, in another block
    names[39_999] = 'case-30001';
    const yaml = join(dir, 'big.yaml');
    writeFileSync(yaml, 'cite: "x"\ncases:\n' + names.map((x) => yamlItem(x)).join(''));
    const jsonl = join(dir, 'big.jsonl');
    writeFileSync(jsonl, names.map((x) => jsonItem(x)).join(''));
    for (const [f, lineOf, col] of [
      [yaml, (i: number) => 3 + 5 * i, 11],
      [jsonl, (i: number) => 1 + i, 10],
    ] as const) {
      const v = await validateVectors([f], dir);
      expect(v.problems.map((p) => `${p.line}:${p.col}: ${p.message}`)).toEqual([
        `${lineOf(30_000)}:${col}: duplicate case name 'case-7' (first at line ${lineOf(7)}); names must be unique in a file`,
        `${lineOf(39_999)}:${col}: duplicate case name 'case-30001' (first at line ${lineOf(30_001)}); names must be unique in a file`,
      ]);
    }
  });
});
