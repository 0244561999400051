/**
 * `npm run conformance`: usage errors exit 2 with the valid values listed, --list prints the
 * selection, runs write a report that validates against the schema, and the exit code follows the
 * verdicts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runCli } from '../helpers/cli.js';

const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'schema', 'run-report.schema.json'), 'utf8'));
const validate = new Ajv({ allErrors: true }).compile(schema);
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-cli-'));
const ptxas = await ptxasOrReason();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const r = await runCli(argv);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('usage errors exit 2 and say what is valid', () => {
  it('unknown arch', async () => {
    const r = await run('--arch', 'sm_1000a');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown --arch 'sm_1000a'.*did you mean sm_100a/);
    expect(r.err).toMatch(/Valid values: .*sm_90, .*sm_121f/);
  });
  it('unknown backend', async () => {
    const r = await run('--backend', 'cuda');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Valid values: auto, reference, ptxas, gpu/);
  });
  it('unknown option', async () => {
    const r = await run('--arhc', 'sm_90');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Unknown option '--arhc'.*Did you mean --arch/s);
  });
  it('a filter that selects nothing', async () => {
    const r = await run('--backend', 'ptxas', '--filter', 'atom.global.add.f8');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/selects no entry .*--list/);
    const c = await run('--backend', 'reference', '--filter', 'atom.global.add.f8');
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/no case selected by --filter/);
  });
  it('a vector file with planted mistakes: every one located, nothing run, no report', async () => {
    const rep = join(dir, 'bad');
    const r = await run('--vectors', join(import.meta.dirname, '..', 'fixtures', 'vectors', 'planted-mistakes.yaml'), '--report', rep);
    expect(r.code).toBe(2);
    expect(r.err.split('\n').filter((l) => /planted-mistakes\.yaml:\d+:\d+: /.test(l))).toHaveLength(13);
    expect(r.err).toMatch(/13 problem\(s\) in the vector files; nothing was run/);
    expect(() => readFileSync(join(rep, 'report.json'))).toThrow();
  });
  it('--case with an id that names nothing', async () => {
    const r = await run('--case', 'atom.global.add.f32/vectors/nope.yaml:x');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no vector file 'vectors\/nope\.yaml'/);
  });
  it('a bad seed and a bad kind', async () => {
    expect((await run('--seed', '-3')).code).toBe(2);
    const k = await run('--kind', 'variants');
    expect(k.code).toBe(2);
    expect(k.err).toMatch(/variant, neighbour, isa-neighbour/);
  });
  it('the gpu backend, which this build does not have', async () => {
    const r = await run('--backend', 'gpu');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/gpu backend: (no CUDA driver|the native CUDA launcher)/);
  });
  it('through npm, as users call it', async () => {
    const r = await execa('npm', ['run', '--silent', 'conformance', '--', '--arch', 'sm_9'], { reject: false, cwd: join(import.meta.dirname, '..', '..') });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown --arch 'sm_9'/);
  });
});

describe('--list', () => {
  it('prints the selected entries with their expectation, and runs nothing', async () => {
    const r = await run('--list', '--arch', 'sm_90', '--filter', 'red.global.add.noftz.v8.*');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines).toContain('red.global.add.noftz.v8.f16\tvariant\taccept');
    expect(lines.some((l) => l.startsWith('red.global.add.noftz.v8.f16@ptx8.0\tisa-neighbour\treject'))).toBe(true);
    expect(r.err).toMatch(new RegExp(`^${lines.length} entries for sm_90$`, 'm'));
  });
  it('--kind narrows the selection', async () => {
    const r = await run('--list', '--filter', 'red.global.add.noftz.v8.*', '--kind', 'variant');
    expect(r.out.split('\n').every((l) => l.split('\t')[1] === 'variant')).toBe(true);
  });
});

describe('runs write a report that validates against the schema', () => {
  it('reference backend: directed and generated cases through the model, then one replayed by id', async () => {
    const rep = join(dir, 'ref');
    const r = await run('--backend', 'reference', '--arch', 'sm_100a', '--filter', 'multimem.ld_reduce.*.e4m3x4,atom.global.add.f32', '--report', rep);
    expect(r.code).toBe(0);
    const doc = JSON.parse(readFileSync(join(rep, 'report.json'), 'utf8'));
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(doc.backend.name).toBe('reference');
    expect(doc.results.every((x: { kind: string; verdict: string }) => x.kind === 'case' && x.verdict === 'pass')).toBe(true);
    expect(r.out).toMatch(/multimem\.ld_reduce cases\s+\d+/);
    expect(r.err).toMatch(/cases: \d+ \(directed \d+, from --vectors 0, generated \(seed \d+\) level 1 \d+/);
    const some = doc.results.find((x: { id: string }) => x.id.includes('/gen:'));
    const again = await run('--case', some.id, '--report', join(dir, 'replay'));
    expect(again.code).toBe(0);
    const one = JSON.parse(readFileSync(join(dir, 'replay', 'report.json'), 'utf8'));
    expect(one.results).toHaveLength(1);
    expect(one.results[0].case.input).toEqual(some.case.input);
  });

  it.skipIf(typeof ptxas === 'string')('ptxas backend, with compile-mismatches (exit 1) and their rules cited', async () => {
    const rep = join(dir, 'ptxas');
    const r = await run('--backend', 'ptxas', '--arch', 'sm_90', '--filter', 'multimem.st.*', '--report', rep);
    const doc = JSON.parse(readFileSync(join(rep, 'report.json'), 'utf8'));
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    const mism = doc.results.filter((x: { verdict: string }) => x.verdict === 'compile-mismatch');
    expect(r.code).toBe(mism.length ? 1 : 0);
    // every result names its catalog judgement, written once in the report's judgements, and every
    // one that is not a pass has a rule trail, written once in its details (version 4)
    expect(doc.results.every((x: { catalog: unknown }) => typeof x.catalog === 'number')).toBe(true);
    for (const x of doc.results) x.catalog = doc.judgements[x.catalog];
    const notPass = doc.results.filter((x: { verdict: string }) => x.verdict !== 'pass');
    expect(notPass.length).toBeGreaterThan(0);
    for (const m of notPass) {
      expect(typeof m.catalog.detail).toBe('number');
      expect(doc.details[m.catalog.detail].length).toBeGreaterThan(0);
      expect(doc.details[m.catalog.detail].map((d: { rule: string }) => d.rule).every((id: string) => m.catalog.rules.includes(id))).toBe(true);
    }
    for (const m of mism) {
      expect(m.ptxas.messages.length + Number(m.ptxas.accepted)).toBeGreaterThan(0);
      for (const id of m.catalog.rules) expect(doc.rules[id]?.cite.section).toBe('9.7.9.14');
    }
    expect(doc.counts.byFamily['multimem.st']).toBeDefined();
    expect(r.out).toMatch(/^(all results\s|multimem\.st catalog entries)/m);
  });
});

describe('reports, expectations, diff and interruption', () => {
  const { wellFormed } = { wellFormed: (x: string) => (/<testsuites[\s\S]*<\/testsuites>\s*$/.test(x) ? undefined : 'no testsuites') };
  it.skipIf(typeof ptxas === 'string')(
    'ptxas + cases: the shipped sm_90 expectations make the multimem.red rejections known (exit 0); every format is written',
    async () => {
      const rep = join(dir, 'known');
      const r = await run('--arch', 'sm_90', '--filter', 'multimem.red.*', '--report', rep);
      const doc = JSON.parse(readFileSync(join(rep, 'report.json'), 'utf8'));
      expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
      expect(doc.partial).toBe(false);
      expect(doc.counts.total['known-deviation']).toBe(396);
      expect(doc.counts.total['compile-mismatch']).toBeUndefined();
      expect(doc.results.some((x: { kind: string }) => x.kind === 'case')).toBe(true);
      expect(doc.expectations.outcomes.find((o: { id: string }) => o.id === 'ptxas-13.0-multimem-red-sem-scope-pairing')).toMatchObject({
        status: 'occurred',
        matched: 396,
      });
      expect(r.code).toBe(0);
      // the included toolchain file's expectations come first, then the target's own
      expect(r.out).toMatch(
        /expectations \(.*sm_90\.yaml\):\n(?: {2}ptxas-13\.0-.*\n)+ {2}bulk-add-f32-global-keeps-subnormals: not applied: it is for PTX ISA 9\.1-9\.3, this run is judged against 9\.4/,
      );
      // a finished run compresses its stream
      expect(existsSync(join(rep, 'results.jsonl'))).toBe(false);
      const lines = gunzipSync(readFileSync(join(rep, 'results.jsonl.gz')))
        .toString('utf8')
        .trim()
        .split('\n');
      expect(JSON.parse(lines[0]!)).toMatchObject({ schema: 'ptx-reduction-conformance/results-stream', arch: 'sm_90' });
      expect(lines.length - 1).toBe(doc.results.length);
      expect(readFileSync(join(rep, 'report.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
      expect(wellFormed(readFileSync(join(rep, 'junit.xml'), 'utf8'))).toBeUndefined();

      // without the expectations the same run fails (exit 1), and --no-cases leaves the case library out
      const empty = join(dir, 'empty.yaml');
      (await import('node:fs')).writeFileSync(empty, 'expectations: []\n');
      const bare = await run('--arch', 'sm_90', '--filter', 'multimem.red.*', '--expectations', empty, '--no-cases', '--report', join(dir, 'bare'));
      expect(bare.code).toBe(1);
      const bdoc = JSON.parse(readFileSync(join(dir, 'bare', 'report.json'), 'utf8'));
      expect(bdoc.counts.total['compile-mismatch']).toBe(396);
      expect(bdoc.results.some((x: { kind: string }) => x.kind === 'case')).toBe(false);
      expect(bare.out).toMatch(/F\d+\s+compile-mismatch\s+\d+\s+multimem\.red: expect accept/);

      // diff of the two: verdicts known-deviation -> compile-mismatch, cases only in the first
      const d = await run('diff', join(rep, 'report.json'), join(dir, 'bare', 'report.json'));
      expect(d.code).toBe(1);
      expect(d.out).toMatch(/396\s+multimem\.red: verdict known-deviation -> compile-mismatch/);
      expect(d.out).toMatch(/only in old \(pass\)/);
      const same = await run('diff', join(rep, 'report.json'), join(rep, 'report.json'));
      expect(same.code).toBe(0);
      expect(same.out).toMatch(/0 change\(s\)/);

      // render judges a report again under other expectations
      const again = await run('render', join(dir, 'bare', 'report.json'), '--report', join(dir, 'rendered'), '--expectations', 'cases/expectations/sm_90.yaml');
      expect(again.code).toBe(0);
      expect(JSON.parse(readFileSync(join(dir, 'rendered', 'report.json'), 'utf8')).counts.total['known-deviation']).toBe(396);
    },
    300_000,
  );

  it.skipIf(typeof ptxas === 'string')(
    'an expectation that no longer occurs is an unexpected pass: exit 1',
    async () => {
      const f = join(dir, 'stale.yaml');
      (await import('node:fs')).writeFileSync(
        f,
        'expectations:\n  - id: st-gone\n    pattern: "multimem.st.relaxed.sys.global.b32"\n    verdict: compile-mismatch\n    explanation: requires\n    reason: was rejected once\n    link: https://example.invalid/st\n',
      );
      const r = await run(
        '--arch',
        'sm_90',
        '--filter',
        'multimem.st.relaxed.sys.global.b32',
        '--expectations',
        f,
        '--no-cases',
        '--report',
        join(dir, 'stale'),
      );
      expect(r.out).toMatch(/st-gone: UNEXPECTED PASS: 2 matching result\(s\) ran and none deviated; remove or narrow it \(.*stale\.yaml:2\)/);
      expect(r.code).toBe(1);
    },
    120_000,
  );

  it('a malformed expectations file: located problems, exit 2, nothing run', async () => {
    const f = join(dir, 'bad-exp.yaml');
    (await import('node:fs')).writeFileSync(
      f,
      'expectations:\n  - id: x\n    pattern: "atom.*"\n    explanation: ftz-offf\n    reason: r\n    link: https://example.invalid/x\n',
    );
    const rep = join(dir, 'bad-exp');
    const r = await run('--backend', 'reference', '--expectations', f, '--report', rep);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad-exp\.yaml:4:18: explanation: unknown alternative 'ftz-offf'; did you mean 'ftz-off'\?/);
    expect(r.err).toMatch(/1 problem\(s\) in the expectations file; nothing was run/);
    expect(() => readFileSync(join(rep, 'report.json'))).toThrow();
    const missing = await run('--backend', 'reference', '--expectations', join(dir, 'nope.yaml'));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/nope\.yaml:1:1: no such expectations file/);
  });

  it('diff and render with unreadable input: exit 2 naming the file', async () => {
    const junk = join(dir, 'junk.json');
    (await import('node:fs')).writeFileSync(junk, '{"schema": "ptx-reduction-conformance/run-report", "results": [');
    const a = await run('diff', junk, junk);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/junk\.json.*not JSON/);
    const b = await run('diff', join(dir, 'absent.json'), junk);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/absent\.json: cannot read it \(ENOENT\)/);
    const c = await run('diff', junk);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/diff takes two reports/);
    const d = await run('render');
    expect(d.code).toBe(2);
  });

  it('Ctrl-C mid-run leaves a valid partial report that says so, with every result streamed until then', async () => {
    const rep = join(dir, 'interrupted');
    const child = execa(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'harness', 'cli', 'main.ts'), '--backend', 'reference', '--report', rep],
      { reject: false, cwd: join(import.meta.dirname, '..', '..') },
    );
    const { existsSync } = await import('node:fs');
    const started = Date.now();
    while (Date.now() - started < 60_000) {
      if (existsSync(join(rep, 'results.jsonl')) && readFileSync(join(rep, 'results.jsonl'), 'utf8').split('\n').length > 500) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGINT');
    const res = await child;
    expect(res.exitCode).toBe(130);
    expect(res.stderr).toMatch(/SIGINT: stopped\. A partial report of the \d+ results so far/);
    const doc = JSON.parse(readFileSync(join(rep, 'report.json'), 'utf8'));
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(doc.partial).toBe(true);
    expect(doc.partialReason).toMatch(/^interrupted by SIGINT after \d+ results$/);
    expect(doc.results.length).toBeGreaterThan(400);
    expect(doc.results.length).toBeLessThan(10621);
    // the stream gzipped as at the end of a run
    expect(
      gunzipSync(readFileSync(join(rep, 'results.jsonl.gz')))
        .toString('utf8')
        .trim()
        .split('\n').length - 1,
    ).toBe(doc.results.length);
    expect(readFileSync(join(rep, 'report.html'), 'utf8')).toContain('PARTIAL REPORT');
  }, 120_000);
});
