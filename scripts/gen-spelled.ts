/**
 * Writes the bench's YAML vector files (scripts/bench-vectors.ts) for a machine without the
 * repository, as `npm run gpu:pack` bundles it: `gen-spelled OUT SPELLING N` writes N cases in one of
 * the seven spellings of scripts/vector-spellings.ts, or (SPELLING `testfloat`) TestFloat f16 adds
 * (scripts/gen-testfloat-f16.ts) as a TestFloat-converted block YAML file with `instruction:` in its header.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { registerAllFamilies } from '../harness/families/index.js';
import { TESTFLOAT_INSTRUCTION, testFloatCases } from './gen-testfloat-f16.js';
import { SPELLINGS, SPELLING_HEAD, type Spelling, spell, spelledCase } from './vector-spellings.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

const h4 = (x: number) => `"0x${x.toString(16).padStart(4, '0')}"`;

/** The TestFloat f16 file's text, item by item. */
export function* testFloatYaml(n: number): Generator<string> {
  yield `# TestFloat f16 adds, converted\ninstruction: ${TESTFLOAT_INSTRUCTION}\ncite: "bench"\ncases:\n`;
  let i = 0;
  for (const c of testFloatCases(n))
    yield `  - name: f16_add-${i++}\n    memory: [${h4(c.a)}]\n    operands:\n      b: [${h4(c.b)}]\n    expect:\n      memory: [${h4(c.sum)}]\n      returned: [${h4(c.a)}]\n`;
}

/** The spelled file's text, item by item. */
export function* spelledYaml(sp: Spelling, n: number): Generator<string> {
  yield SPELLING_HEAD;
  for (let i = 0; i < n; i++) yield spell(spelledCase(i), sp);
}

if (process.argv[1] && /gen-spelled\.(m?js|ts)$/.test(process.argv[1])) {
  const [out, sp, count] = process.argv.slice(2);
  const n = Number(count ?? 1_000_000);
  if (!out || !sp || !(sp === 'testfloat' || (SPELLINGS as readonly string[]).includes(sp)) || !Number.isInteger(n) || n < 1) {
    console.error(`usage: gen-spelled OUT (${SPELLINGS.join('|')}|testfloat) [N]`);
    process.exit(2);
  }
  const fd = openSync(out, 'w');
  let chunk = '';
  for (const s of sp === 'testfloat' ? testFloatYaml(n) : spelledYaml(sp as Spelling, n)) {
    chunk += s;
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = '';
    }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  console.log(`${out}: ${n} cases, ${sp}`);
}
