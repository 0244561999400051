/**
 * A vector case naming an operand its instruction does not take
 * (`c` on add) is a problem naming file, line and what to do, in both formats (before: accepted
 * silently); cas still takes c.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { validateVectors } from '../../harness/case-readers/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-extra-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('c on add is a problem in YAML and JSON lines; c on cas is not', async () => {
  const y = join(dir, 'a.yaml');
  writeFileSync(
    y,
    'cases:\n  - name: add-with-c\n    instruction: atom.global.add.f32\n    memory: ["0x3f800000"]\n    operands: { b: ["0x3f800000"], c: ["0x40000000"] }\n',
  );
  const j = join(dir, 'b.jsonl');
  writeFileSync(
    j,
    '{"name":"add-with-c","instruction":"atom.global.add.u32","memory":["0x00000001"],"operands":{"b":["0x00000002"],"c":["0x00000003"]}}\n{"name":"cas","instruction":"atom.global.cas.b32","memory":["0x00000001"],"operands":{"b":["0x00000001"],"c":["0x00000003"]}}\n',
  );
  const r = await validateVectors([y, j], dir);
  const msgs = r.problems.map((p) => `${p.file}:${p.line}: ${p.message}`);
  expect(msgs).toEqual([
    expect.stringMatching(/a\.yaml:5: operands: c is not an operand of atom\.global\.add\.f32 \(c is the swap value of cas only\); remove it$/),
    expect.stringMatching(/b\.jsonl:1: operands: c is not an operand of atom\.global\.add\.u32/),
  ]);
});

it("a vector file's cite: reaches each result of its cases in the report", async () => {
  const { runCli } = await import('../helpers/cli.js');
  const { readFileSync } = await import('node:fs');
  const f = join(dir, 'cite.yaml');
  writeFileSync(
    f,
    'cite: "PTX ISA 9.7.13.5"\ncases:\n  - name: add-one\n    instruction: atom.global.add.f32\n    memory: ["0x3f800000"]\n    operands: { b: ["0x3f800000"] }\n    expect: { memory: ["0x40000001"] }\n  - name: add-ok\n    instruction: atom.global.add.f32\n    memory: ["0x3f800000"]\n    operands: { b: ["0x3f800000"] }\n',
  );
  const { code } = await runCli(['--backend', 'reference', '--vectors', f, '--report', join(dir, 'rep')]);
  expect(code).toBe(1);
  const rep = JSON.parse(readFileSync(join(dir, 'rep', 'report.json'), 'utf8'));
  expect(rep.results.map((r: { case: { origin: { name: string; cite: string } } }) => [r.case.origin.name, r.case.origin.cite])).toEqual([
    ['add-one', 'PTX ISA 9.7.13.5'],
    ['add-ok', 'PTX ISA 9.7.13.5'],
  ]);
});
