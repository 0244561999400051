/**
 * A failing case of a user's vector file is shown so that the user can act on it: on the console
 * (whole, not cut), in junit.xml and in report.html without JavaScript, with its bits, the rule that
 * decided it and its citation, file:line, and the command that replays it (which does).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLines } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'failing-case-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'my cases.yaml');
// 1 + 1 is 2 (0x40000000); the file says 3; and 1 + 1 as u32 is 2, not 3
writeFileSync(
  file,
  `cases:
  - name: add-one
    instruction: atom.global.add.f32
    memory: ["0x3f800000"]
    operands: { b: ["0x3f800000"] }
    expect:
      memory: ["0x40400000"]
      returned: ["0x3f800000"]
  - name: wrong-u32
    instruction: atom.global.add.u32
    memory: ["0x00000001"]
    operands: { b: ["0x00000001"] }
    expect:
      memory: ["0x00000003"]
`,
);

describe('a wrong expect: in a user file', async () => {
  const r = await runLines(['--vectors', file, '--backend', 'reference', '--report', join(dir, 'r')], 80);
  const text = r.out.join('\n');
  const replay = r.out.find((l) => l.startsWith('  replay: ') && l.includes('add-one'))?.slice('  replay: '.length);

  it('the console: the case whole (past 80 columns), its bits, the rule and its citation, file:line, the replay command; exit 1', () => {
    expect(r.code).toBe(1);
    expect(text).toMatch(/^failing results \(2\):$/m);
    expect(text).toMatch(/^case atom\.global\.add\.f32\/.*add-one$/m);
    expect(text).toMatch(/^  origin: .*my cases\.yaml:2, case add-one$/m);
    expect(text).toMatch(/^    memory\[0\] 0x40400000 \(3\)  NOT allowed$/m);
    expect(text).toMatch(/^    memory\[0\] 0x40000000 \(2\)$/m);
    expect(text).toMatch(
      /fp\.atom-red\.add\.f32\.global\.9\.4: .*\(PTX ISA 9\.7\.15\.5 Description: "The atom\.add\.f32 operation without \.noftz, flushes subnormal inputs/,
    );
    // the file as the case id names it: relative to the directory the command ran in
    const rel = relative(process.cwd(), file);
    expect(replay).toBe(`npm run conformance -- --case 'atom.global.add.f32/${rel}:add-one' --vectors '${rel}' --backend reference`);
    expect(r.out.some((l) => l.length > 80)).toBe(true);
  });

  it('the replay command replays that case alone: the same mismatch', async () => {
    const words = [...replay!.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(4);
    const again = await runLines([...words, '--report', join(dir, 'replay')]);
    expect(again.code).toBe(1);
    const rep = JSON.parse(readFileSync(join(dir, 'replay', 'report.json'), 'utf8'));
    expect(rep.results.map((x: { id: string; verdict: string }) => [x.id.endsWith(':add-one'), x.verdict])).toEqual([[true, 'mismatch']]);
  });

  it('junit.xml: the failure carries the bits, the rule with its citation, file:line and the replay command', () => {
    const xml = readFileSync(join(dir, 'r', 'junit.xml'), 'utf8');
    const failure = xml.match(/<failure type="mismatch"[^>]*>([^<]*add-one[^<]*)<\/failure>/)?.[1] ?? '';
    expect(failure).toContain('0x40400000 (3)  NOT allowed');
    expect(failure).toContain('PTX ISA 9.7.15.5 Description: &quot;The atom.add.f32 operation');
    expect(failure).toContain('my cases.yaml:2, case add-one');
    expect(failure).toContain('replay: npm run conformance -- --case');
  });

  it('report.html without JavaScript: a <noscript> summary with the counts and the failing results', () => {
    const html = readFileSync(join(dir, 'r', 'report.html'), 'utf8');
    const ns = html.match(/<noscript>([\s\S]*?)<\/noscript>/)?.[1] ?? '';
    expect(ns).toMatch(/<td>atom cases<\/td><td class="num">2<\/td><td class="num">2<\/td>/);
    expect(ns).toContain('failing results (2)');
    expect(ns).toContain(':add-one</code> <b class="v-mismatch">mismatch</b> at <code>');
    expect(ns).toContain('my cases.yaml:2</code>');
    expect(ns).toContain('wrong-u32</code> <b class="v-mismatch">mismatch</b>');
  });
});
