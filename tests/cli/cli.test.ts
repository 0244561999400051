/**
 * `npm run conformance`: usage errors exit 2 with the valid values listed, --list prints the
 * selection, runs write a report that validates against the schema, and the exit code follows the
 * verdicts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { type Io, main } from '../../harness/cli/main.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'reports', 'schema', 'run-report.schema.json'), 'utf8'));
const validate = new Ajv({ allErrors: true }).compile(schema);
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-cli-'));
const ptxas = await ptxasOrReason();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (s) => out.push(s), err: (s) => err.push(s), isTTY: false };
  const code = await main(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
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
    expect(r.out).toMatch(/multimem\.ld_reduce\s+\d+/);
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
    for (const m of mism) {
      expect(m.catalog.detail.length).toBeGreaterThan(0);
      expect(m.ptxas.messages.length + Number(m.ptxas.accepted)).toBeGreaterThan(0);
      for (const id of m.catalog.rules) expect(doc.rules[id]?.cite.section).toBe('9.7.9.14');
    }
    expect(doc.counts.byFamily['multimem.st']).toBeDefined();
    expect(r.out).toMatch(/^all\s/m);
  });
});
