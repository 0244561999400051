/**
 * What the CLI tells a user where a first trial found it wanting, each on the command line as the user
 * met it: an expectation over reference-model cases called "not run"; --generated and --vectors
 * ignored without a word; export without --out blamed on the report; a string option without its
 * value answered with node's message and the whole usage; a typo's "did you mean" far from the
 * word; --case printing a count instead of the case; "in PTX ISA -" in a case's detail; finding
 * lines cut in a log.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printSummary } from '../../harness/cli/summary.js';
import { parseInstruction } from '../../harness/catalog/parse.js';
import { htmlData } from '../../harness/report/html.js';
import type { RunReport } from '../../harness/report/json.js';
import { ROOT, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-trial-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI in this process, from the repository root; stdout and stderr apart. */
async function run(...argv: string[]) {
  const r = await runCli(argv, { cwd: ROOT });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** A vector file whose expect: is wrong (1 + 1 is 2, not 3): a mismatch against the reference model. */
const wrong = join(dir, 'wrong.yaml');
writeFileSync(
  wrong,
  [
    'cite: "PTX ISA 9.7.13.5 atom"',
    'cases:',
    '  - name: wrong-expect',
    '    instruction: atom.global.add.f32',
    '    memory: ["0x3f800000"]',
    '    operands: { b: ["0x3f800000"] }',
    '    expect: { memory: ["0x40400000"], returned: ["0x3f800000"] }',
    '',
  ].join('\n'),
);

describe('(a) an expectation whose pattern matched reference-model cases', () => {
  it('says what it matched and why it did not apply (before: "not run: nothing this run checked matches its pattern")', async () => {
    const ex = join(dir, 'ex.yaml');
    writeFileSync(
      ex,
      'expectations:\n  - id: wrong-add\n    pattern: "atom.global.add.f32*"\n    verdict: mismatch\n    explanation: none\n    reason: a reference mismatch\n    link: https://docs.nvidia.com/cuda/parallel-thread-execution/\n',
    );
    const r = await run('--vectors', wrong, '--expectations', ex, '--report', join(dir, 'a'));
    expect(r.code).toBe(1);
    const line = r.out.split('\n').find((l) => l.startsWith('  wrong-add: '))!;
    expect(line).not.toMatch(/not run/);
    expect(line).toMatch(/matched 1 result/);
    expect(line).toMatch(/reference-model case/);
    expect(line).toMatch(/expect:/);
    // the result does not read as if the expectation expected what it got ("expects none; this one: none")
    const { loadReport } = await import('../../harness/report/load.js');
    const rep = await loadReport(join(dir, 'a', 'report.json'));
    expect(rep.expectations.outcomes[0]).toMatchObject({ id: 'wrong-add', status: 'not-applicable', matched: 0, ran: 0, seen: 1 });
    expect(rep.results[0]!.reason).not.toMatch(/expects none; this one: none/);
    // the new status and fields are in the report's schema
    const { Ajv } = await import('ajv');
    const schema = JSON.parse(readFileSync(join(ROOT, 'reports', 'schema', 'run-report.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true }).compile(schema);
    expect(validate(JSON.parse(readFileSync(join(dir, 'a', 'report.json'), 'utf8'))), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });
});

describe('(b) --generated on a backend it does not apply to', () => {
  it('warns on stderr, naming what runs instead (before: silently ignored)', async () => {
    const r = await run('--generated', '5', '--backend', 'reference', '--filter', 'atom.global.add.f32', '--report', join(dir, 'b'));
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/--generated 5 is ignored: .*gpu backend/);
    expect(r.err).toMatch(/level 1 4, level 2 4, random 8/);
  });
});

describe('(c) --vectors under --list', () => {
  it("lists the vector files' cases and says so (before: the catalog, the files ignored)", async () => {
    const r = await run('--list', '--vectors', wrong);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toEqual([expect.stringMatching(/^atom\.global\.add\.f32\/.*wrong\.yaml:wrong-expect\tatom\.global\.add\.f32$/)]);
    expect(r.err).toMatch(/1 case\(s\) in 1 vector file\(s\)/);
    expect(r.err).toMatch(/not the catalog's entries/);
  });
});

describe('(d) export without --out', () => {
  it('says --out FILE is missing (before: "export takes a report of a gpu run")', async () => {
    const r = await run('export', join(dir, 'a', 'report.json'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: export needs --out FILE/);
  });
});

describe('(e) a string option without its value', () => {
  it("--filter: one clear line, exit 2 (before: node's message and the whole usage)", async () => {
    const r = await run('--filter');
    expect(r.code).toBe(2);
    expect(r.err).toBe('error: --filter needs a value (a pattern, e.g. --filter atom.global)');
  });
  it.each([
    '--arch',
    '--backend',
    '--kind',
    '--report',
    '--seed',
    '--vectors',
    '--case',
    '--generated',
    '--workers',
    '--expectations',
    '--keep',
    '--keep-runs',
    '--shard',
    '--spec-edition',
    '--cache-dir',
    '--launches',
  ])('%s at the end, and followed by another option', async (opt) => {
    for (const argv of [[opt], [opt, '--list']]) {
      const r = await run(...argv);
      expect(r.code).toBe(2);
      expect(r.err.split('\n')).toHaveLength(1);
      expect(r.err).toMatch(new RegExp(`^error: ${opt} needs a value \\(.+, e\\.g\\. ${opt} \\S+`));
    }
  });
  it.each([
    ['sweep', '--filter'],
    ['sweep', '--cells'],
    ['contend', '--reps'],
  ])('%s %s: the same', async (cmd, opt) => {
    const r = await run(cmd, opt);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^error: ${opt} needs a value \\(.+, e\\.g\\. ${opt} \\S+\\)$`));
  });
});

describe('--workers', () => {
  it.each(['0', '1.5', 'eight'])('--workers %s: a usage error, exit 2', async (n) => {
    const r = await run('--workers', n, '--list', '--filter', 'atom.global.add.f32');
    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: --workers takes a positive integer, got '${n}'`);
  });
});

describe('(f) a typo in a qualifier', () => {
  it("the parser suggests the family's qualifier at that place first (before: .1d, .2d, .3d)", () => {
    expect(() => parseInstruction('atom.global.ad.f32')).toThrow(/did you mean \.add[,?]/);
    expect(() => parseInstruction('red.global.mni.u32')).toThrow(/did you mean \.min[,?]/);
    expect(() => parseInstruction('atom.global.add.f3')).toThrow(/did you mean \.f32[,?]/);
  });
  it('--filter atom.global.ad.f32 suggests atom.global.add.f32', async () => {
    const r = await run('--list', '--filter', 'atom.global.ad.f32');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Did you mean 'atom\.global\.add\.f32' \(for 'atom\.global\.ad\.f32'\)\?/);
    // the reference backend's "no case selected" too; a guess beyond a typo's reach is not offered
    const c = await run('--backend', 'reference', '--filter', 'atom.global.ad.f32', '--report', join(dir, 'f'));
    expect([c.code, c.err]).toEqual([2, expect.stringMatching(/no case selected by --filter 'atom\.global\.ad\.f32'\. Did you mean 'atom\.global\.add\.f32'/)]);
    const z = await run('--backend', 'reference', '--filter', 'atom.global.zz.f32', '--report', join(dir, 'f2'));
    expect(z.err).not.toMatch(/Did you mean/);
  });
});

describe('(g) --case prints the case', () => {
  it('instruction, inputs, reference bits, allowed results, verdict with its explanation (before: "pass 1")', async () => {
    const r = await run('--case', 'atom.global.add.f32/vectors/atom-f32.yaml:atom.global.add.f32-signed-zeros', '--report', join(dir, 'g'));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/instruction: atom\.global\.add\.f32/);
    expect(r.out).toMatch(/inputs:.*memory\[0\] 0x00000000 \(\+0\).*b\[0\] 0x80000000 \(-0\)/s);
    expect(r.out).toMatch(/allowed \(reference model\):\s+memory\[0\] 0x00000000 \(\+0\)/);
    expect(r.out).toMatch(/returned\[0\] 0x00000000/);
    expect(r.out).toMatch(/verdict: pass: reference evaluated/);
    expect(r.out).toMatch(/atom\.returns-old: /);
  });
  it("a mismatch: the file's bits against the allowed ones, and the explanation", async () => {
    // the id as a run prints it: the file relative to the working folder
    const id = `atom.global.add.f32/${relative(ROOT, wrong)}:wrong-expect`;
    const r = await run('--case', id, '--vectors', wrong, '--report', join(dir, 'g2'));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/expected \(file\):.*memory\[0\] 0x40400000 \(3\).*NOT allowed/s);
    expect(r.out).toMatch(/verdict: mismatch: /);
    expect(r.out).toMatch(/explanation: /);
  });
});

describe('(i) a case evaluated by the reference model names no PTX ISA module', () => {
  it('neither --case nor the page says "in PTX ISA -"', async () => {
    const r = await run('--case', 'atom.global.add.f32/vectors/atom-f32.yaml:atom.global.add.f32-signed-zeros', '--report', join(dir, 'i'));
    expect(r.out).not.toMatch(/PTX ISA -/);
    const { loadReport } = await import('../../harness/report/load.js');
    const rep = await loadReport(join(dir, 'i', 'report.json'));
    const d = htmlData(rep);
    const x = (d.rows[0] as { x?: { modulePtx?: string } }).x!;
    expect(x.modulePtx).toBeUndefined();
  });
});

describe('(j) finding lines in a log', () => {
  it('are printed whole when stdout is not a terminal (before: cut at 100 columns with …)', () => {
    const long = `${'x'.repeat(150)} end`;
    const rep = {
      results: [{ id: 'a', family: 'atom', kind: 'case', verdict: 'mismatch', reason: '' }],
      counts: { total: { mismatch: 1 }, byFamily: {}, byKind: {} },
      stats: {},
      findings: [
        {
          key: 'F1',
          verdict: 'mismatch',
          subject: 'atom .add.f32 on .global',
          explanation: '',
          text: long,
          count: 1,
          examples: [`atom.global.add.f32/${'y'.repeat(120)}`],
        },
      ],
      expectations: { file: null, outcomes: [] },
    } as unknown as RunReport;
    const out: string[] = [];
    printSummary({ out: (s) => out.push(...s.split('\n')), err: () => {}, isTTY: false }, rep);
    expect(out.some((l) => l.includes(long))).toBe(true);
    expect(out.some((l) => l.endsWith('y'.repeat(120)))).toBe(true);
    expect(out.some((l) => l.endsWith('…'))).toBe(false);
  });
});

describe('problems of a vector file', () => {
  it('are printed in the order of the file (line, then column), however the checker found them', async () => {
    const bad = join(dir, 'bad-order.yaml');
    writeFileSync(bad, 'instruction: atom.global.add.f32\ncases:\n  - name: x\n    memory: ["0x3f80000"]\n    operandz: {b: ["0x1"]}\n');
    for (const args of [
      ['--vectors', bad, '--backend', 'reference'],
      ['--list', '--vectors', bad],
    ]) {
      const r = await run(...args, '--report', join(dir, 'bad-order-report'));
      expect(r.code).toBe(2);
      const lines = r.err.split('\n').filter((l) => l.includes('bad-order.yaml:'));
      expect(lines.length, r.err).toBe(3);
      const at = lines.map((l) => /bad-order\.yaml:(\d+):(\d+):/.exec(l)!.slice(1).map(Number));
      expect(at).toEqual([...at].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!));
      expect(at.map((x) => x[0])).toEqual([3, 4, 5]);
    }
  });
});
