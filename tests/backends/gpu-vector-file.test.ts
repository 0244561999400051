/**
 * Vector files on the gpu backend in one read: the variants of given cases
 * are looked up alone (GivenPlan) with kernels named by their ids, the file is validated and its
 * cases held in one read (or read again when too big to hold), the workers may start before it
 * ends; against the stand-in launcher (tests/fixtures/standin-launcher.cts). Every way gives the
 * results the others give, and a file with a problem anywhere runs nothing and writes no report.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/cjs/api';
import { afterAll, describe, expect, it } from 'vitest';
import { findTarget } from '../../harness/arch/targets.js';
import { GivenPlan, givenKernelId, givenKernelName, givenVariant, gpuPlan, notAccepted } from '../../harness/backends/gpu/plan.js';
import { enumerateCatalog } from '../../harness/catalog/enumerate.js';
import { families } from '../../harness/registry/index.js';
import { gpuFamilyIds } from '../../harness/registry/gpu.js';
import { writeMixedFile } from '../../scripts/bench-vector-file.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runWithStandin } from '../helpers/standin.js';

// the CLI probes the stand-in launcher in this process: let require() read its TypeScript
register();

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-gpu-vecfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kernels of given cases are named by their variant id', () => {
  const ids = [
    'atom.global.add.f32',
    'atom.global.add.f32(_)',
    'red.shared::cta.add.noftz.bf16x2',
    'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32',
    'cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group(f16)',
    'atom.global.cas.b32',
  ];
  it('a PTX identifier, read back to the id, the wide kernel apart', () => {
    for (const id of ids) {
      const name = givenKernelName(id);
      expect(name, id).toMatch(/^[a-zA-Z][a-zA-Z0-9_$]*$/);
      expect(givenKernelId(name), id).toEqual({ id, wide: false });
      expect(givenKernelId(`${name}w`), id).toEqual({ id, wide: true });
    }
    expect(givenKernelName('red.shared::cta.add.noftz.bf16x2')).toBe('v_red_shared$3a$3acta_add_noftz_bf16x2$');
  });
  it('any other name is none of them', () => {
    for (const name of ['k12', 'k12w', 'v_atom_global_add_f32', 'v_atom_global$zz_add$', 'v_atom$2$', 'v_atom$x', 'v_atom$ww', 'c_atom_global$', 's_atom$', ''])
      expect(givenKernelId(name), name).toBeUndefined();
  });
});

describe('GivenPlan: the variants of given cases, looked up alone', () => {
  const target = findTarget('sm_90')!;
  const plan = gpuPlan('sm_90', '9.0');
  it('gives the entry and launch shape the whole plan gives, and its reason for a variant it skips', () => {
    const given = new GivenPlan('sm_90', '9.0');
    const sample = plan.variants.filter((_, i) => i % 397 === 0);
    given.prepare(sample.map((v) => ({ id: v.entry.id, family: v.entry.family })));
    for (const v of sample) {
      const g = given.get(v.entry.id, v.entry.family);
      if ('why' in g) throw new Error(`${v.entry.id}: ${g.why}`);
      expect(g.entry, v.entry.id).toEqual(v.entry);
      expect(g.shape, v.entry.id).toEqual(v.shape);
      expect(g.name).toBe(givenKernelName(v.entry.id));
      expect(givenVariant('sm_90', '9.0', v.entry.id)!.entry).toEqual(v.entry);
    }
    expect(given.variants).toHaveLength(sample.length);
    // accepted, but not run by this executor or toolchain (newer PTX ISA, multicast): the plan's reason
    for (const s of plan.skipped.filter((_, i) => i % 211 === 0)) expect(given.get(s.entry.id, s.entry.family)).toEqual({ why: s.reason });
  }, 60_000);
  it('a variant the catalog does not accept, or does not have, gets the catalog reason', () => {
    const given = new GivenPlan('sm_90', '9.0');
    const rejected = enumerateCatalog({
      target,
      ptx: '9.0',
      neighbours: false,
      isaNeighbours: false,
      spellings: false,
      families: families().filter((f) => gpuFamilyIds().includes(f.id)),
    }).find((e) => e.expect !== 'accept')!;
    expect(given.get(rejected.id, rejected.family)).toEqual({ why: notAccepted(rejected.id, 'sm_90', '9.0', rejected.reason) });
    expect(given.get('atom.global.add.f99', 'atom')).toEqual({
      why: 'atom.global.add.f99 is not a variant the catalog expects ptxas to accept for sm_90 (PTX ISA 9.0): the catalog has no such variant; --list shows the ones it has',
    });
    expect(givenVariant('sm_90', '9.0', 'atom.global.add.f99')).toBeUndefined();
    expect(given.variants).toEqual([]);
  }, 60_000);
  it('modules hold the variants a run uses, sorted by id; a later variant goes into a module of its own', () => {
    const given = new GivenPlan('sm_90', '9.0');
    const a = given.get('red.global.add.u32', 'red');
    const b = given.get('atom.global.add.f32', 'atom');
    const c = given.get('atom.global.max.s32', 'atom');
    if ('why' in a || 'why' in b || 'why' in c) throw new Error('not planned');
    given.assign([a, b]);
    given.assign([a, c]);
    expect(given.modules.map((m) => m.map((v) => v.entry.id))).toEqual([['atom.global.add.f32', 'red.global.add.u32'], ['atom.global.max.s32']]);
    expect(given.text(0)).toContain(`.visible .entry ${givenKernelName('atom.global.add.f32')}(`);
  });
});

const p = await ptxasOrReason();
if (typeof p === 'string') console.log(`[skip] vector files on the gpu backend: ${p}`);

describe.skipIf(typeof p === 'string')('a vector file on the gpu backend, one read (stand-in launcher)', () => {
  const file = join(dir, 'mixed.jsonl');
  writeMixedFile(file, 360);
  const base = ['--vectors', file, '--backend', 'gpu', '--cache-dir', join(dir, 'cache')];
  const results = (d: string) => (JSON.parse(readFileSync(join(d, 'report.json'), 'utf8')).results as { id: string }[]).map((r) => JSON.stringify(r)).sort();
  it('held, read twice (files or cases too big to hold) or with the workers started first: the same results', async () => {
    const held = await runWithStandin([...base, '--report', join(dir, 'held')], { XDG_CACHE_HOME: join(dir, 'xdg') });
    expect(held.code, held.out).toBe(0);
    expect(held.out).toMatch(/cases: 360 \(from --vectors 360 in 1 file\(s\)\), on the GPU\n/);
    expect(held.out).toMatch(/gpu: 360 cases of 12 variants judged/);
    const twice = await runWithStandin([...base, '--report', join(dir, 'twice')], { XDG_CACHE_HOME: join(dir, 'xdg'), PTXCONF_HOLD_BYTES: '0' });
    expect(twice.code, twice.out).toBe(0);
    expect(twice.out).toMatch(/on the GPU \(0 MB of files: read again to run them\)/);
    // the file fits (63 KB) but its held cases would not (a packed block counts 4096 x 128 bytes): read again
    const over = await runWithStandin([...base, '--report', join(dir, 'over')], { XDG_CACHE_HOME: join(dir, 'xdg'), PTXCONF_HOLD_BYTES: '100000' });
    expect(over.code, over.out).toBe(0);
    expect(over.out).toMatch(/on the GPU \(0 MB of files: read again to run them\)/);
    const early = await runWithStandin([...base, '--report', join(dir, 'early')], { XDG_CACHE_HOME: join(dir, 'xdg'), PTXCONF_PRESTART_BYTES: '1' });
    expect(early.code, early.out).toBe(0);
    const r = results(join(dir, 'held'));
    expect(r).toHaveLength(360);
    expect(results(join(dir, 'twice'))).toEqual(r);
    expect(results(join(dir, 'over'))).toEqual(r);
    expect(results(join(dir, 'early'))).toEqual(r);
    const rep = JSON.parse(readFileSync(join(dir, 'held', 'report.json'), 'utf8'));
    // 12 variants looked up, one module of their kernels (not the 17,936-variant plan's)
    expect(rep.stats.plannedVariants).toBe(12);
    expect(rep.stats.modulesCompiled + rep.stats.modulesCached).toBe(1);
    for (const x of rep.results) expect(x.case.fileExpect?.agrees, x.id).toBe(true);
  }, 240_000);
  it('a problem anywhere (the last line too), workers started or not: every problem, exit 2, nothing run, no report', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeMixedFile(bad, 360);
    appendFileSync(bad, '{"name":"bad-hex","instruction":"atom.global.add.f32","memory":["0x1234"],"operands":{"b":["0x00000001"]}}\n');
    appendFileSync(bad, '{"name":"bad-instr","instruction":"atom.global.add.f99","memory":["0x00000001"],"operands":{"b":["0x00000001"]}}\n');
    for (const [name, env] of [
      ['bad', {}],
      ['bad-early', { PTXCONF_PRESTART_BYTES: '1' }],
      ['bad-twice', { PTXCONF_HOLD_BYTES: '0' }],
    ] as const) {
      const out = join(dir, name);
      const r = await runWithStandin(['--vectors', bad, '--backend', 'gpu', '--cache-dir', join(dir, 'cache'), '--report', out], {
        XDG_CACHE_HOME: join(dir, 'xdg'),
        ...env,
      });
      expect(r.code, name).toBe(2);
      expect(r.out).toMatch(/bad\.jsonl:361:\d+: .*0x1234/);
      expect(r.out).toMatch(/bad\.jsonl:362:\d+: .*atom\.global\.add\.f99/);
      expect(r.out).toMatch(/2 problem\(s\) in the vector files; nothing was run\. Fix them and run again\./);
      expect(r.out).not.toMatch(/streaming results|^gpu: \d+ cases|^cases: /m);
      expect(r.out).not.toMatch(/\n\s+at /); // no stack trace
      expect(existsSync(join(out, 'report.json')), name).toBe(false);
      expect(existsSync(join(out, 'results.jsonl')), name).toBe(false);
    }
  }, 240_000);
});
