/**
 * A vector file that holds no case (empty, blank lines only, a header and nothing after it) is a
 * problem naming the file, not a run of nothing: the reader says which file and what to do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatProblem } from '../../harness/case-readers/types.js';
import { validateVectors } from '../../harness/case-readers/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-empty-vectors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const files: [string, string, string][] = [
  ['empty.jsonl', '', 'empty file'],
  ['blank.jsonl', '\n   \n\n', 'only blank lines'],
  ['header.jsonl', '{"instruction": "atom.global.add.f32"}\n\n', 'a header line and no case after it'],
  ['empty.yaml', '', 'empty file'],
  ['blank.yaml', '\n\n', 'only blank lines'],
  ['header.yaml', 'instruction: atom.global.add.f32\ncases: []\n', 'its cases: list is empty'],
];

describe('a vector file with no case', () => {
  for (const [name, text, why] of files) {
    it(`${name}: one problem naming the file (${why})`, async () => {
      const f = join(dir, name);
      writeFileSync(f, text);
      const v = await validateVectors([f], dir);
      expect(v.cases).toBe(0);
      expect(v.problems.map(formatProblem)).toEqual([
        `${name}:1:1: holds no case (${why}); write cases into it (docs/vector-files.md shows both forms) or leave it out of --vectors`,
      ]);
    });
  }

  it('is named beside a good file, which still loads', async () => {
    const good = join(dir, 'good.jsonl');
    writeFileSync(good, '{"instruction": "atom.global.add.f32"}\n{"name": "one", "memory": ["0x3f800000"], "operands": {"b": ["0x3f800000"]}}\n');
    writeFileSync(join(dir, 'none.jsonl'), '');
    const v = await validateVectors([good, join(dir, 'none.jsonl')], dir);
    expect(v.cases).toBe(1);
    expect(v.problems.map((p) => p.file)).toEqual(['none.jsonl']);
  });

  it('is no problem when its cases have problems of their own (those are said instead)', async () => {
    const f = join(dir, 'bad.jsonl');
    writeFileSync(f, '{"instruction": "atom.global.add.f32"}\n{"name": "one", "memory": ["0x3f800000"]}\n');
    const v = await validateVectors([f], dir);
    expect(v.problems.length).toBeGreaterThan(0);
    expect(v.problems.some((p) => p.message.includes('holds no case'))).toBe(false);
  });
});
