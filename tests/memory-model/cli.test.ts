/** `conformance litmus` (harness/cli/litmus.ts) and the extended syntax's problems, in process. */
import { mkdtempSync, readFileSync, writeFileSync, existsSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';
import { fixture } from './helpers.js';
import { ROOT, runLines } from '../helpers/cli.js';

const CORPUS = join(ROOT, 'cases', 'litmus');
const tmp = () => mkdtempSync(join(tmpdir(), 'litmus-'));
const MP = join(CORPUS, 'MP+red.relaxed+fence.acquire-8.11.1.litmus');

describe('conformance litmus', () => {
  it('judges a file: outcome table, summary line, reports', async () => {
    const dir = tmp();
    const r = await runLines(['litmus', MP, join(CORPUS, 'MP+atom.relaxed+fence.acquire-8.11.1.litmus'), '--report', join(dir, 'rep')]);
    const out = r.out.join('\n');
    expect(r.code).toBe(0);
    expect(out).toMatch(/P1:r1\s+flag\s+verdict/);
    expect(out).toMatch(/0\s+2\s+allowed\s+<- condition/);
    expect(out).toMatch(/MP\+red\.relaxed\+fence\.acquire-8\.11\.1\.litmus\s+allowed\s+no axiom forbids it/);
    expect(out).toMatch(/MP\+atom\.relaxed\+fence\.acquire-8\.11\.1\.litmus\s+forbidden\s+8\.10\.6 Causality/);
    const rep = JSON.parse(readFileSync(join(dir, 'rep', 'report.json'), 'utf8'));
    expect(rep.results).toHaveLength(2);
    expect(rep.counts.passed).toBe(2);
    expect(readFileSync(join(dir, 'rep', 'junit.xml'), 'utf8')).toContain('<testsuite name="litmus" tests="2" failures="0"');
    expect(existsSync(join(dir, 'rep', 'report.html'))).toBe(true);
  });

  it('--list lists the tests with their intents; --filter selects', async () => {
    const r = await runLines(['litmus', CORPUS, '--list', '--filter', '*8.11.1*']);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(2);
    expect(r.out.join('\n')).toMatch(/MP\+red\.relaxed\+fence\.acquire-8\.11\.1\.litmus\tMP\+red\.relaxed\+fence\.acquire-8\.11\.1\tallowed/);
  });

  it('a disagreeing intent exits 1 and is a junit failure', async () => {
    const dir = tmp();
    const f = join(dir, 'wrong.litmus');
    writeFileSync(f, readFileSync(MP, 'utf8').replace('(* intent: allowed', '(* intent: forbidden'));
    const r = await runLines(['litmus', f, '--report', join(dir, 'rep')]);
    expect(r.code).toBe(1);
    expect(r.out.join('\n')).toContain('INTENT DISAGREES');
    expect(readFileSync(join(dir, 'rep', 'junit.xml'), 'utf8')).toContain('<failure message="intent forbidden, model allowed"');
  });

  it('a file that does not parse is file:line:col, the others still run, exit 2', async () => {
    const dir = tmp();
    copyFileSync(MP, join(dir, 'a.litmus'));
    writeFileSync(join(dir, 'b.litmus'), readFileSync(MP, 'utf8').replace('red.sys.global.add.u32 flag, 1', 'red.sys.global.sub.u32 flag, 1'));
    const r = await runLines(['litmus', dir, '--report', join(dir, 'rep')]);
    const out = r.out.join('\n');
    expect(r.code).toBe(2);
    expect(out).toMatch(/b\.litmus:9:\d+: red\.sys\.global\.sub\.u32: \.sub is Dat3M's untyped form only/);
    expect(out).toMatch(/a\.litmus\s+allowed\s+no axiom forbids it/);
    expect(out).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('--backend other than reference or gpu is a usage error naming both (tests/litmus-gpu/)', async () => {
    const r = await runLines(['litmus', '--backend', 'cuda']);
    expect(r.code).toBe(2);
    expect(r.out.join('\n')).toContain('--backend cuda: litmus tests run under the reference model (--backend reference) or on the GPU (--backend gpu');
  });

  it('a missing path is a usage error', async () => {
    const r = await runLines(['litmus', 'no/such/dir']);
    expect(r.code).toBe(2);
    expect(r.out.join('\n')).toContain('no/such/dir: no such file or folder');
  });
});

describe('the extended syntax reports wrong tests at file:line:col', () => {
  const base = (cells: string, init = 's @ shared cta 1;', header = ' P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 1,gpu 0 ;') =>
    `PTX t\n{\n${init}\n}\n${header}\n${cells}\nexists (s == 1)\n`;
  const first = (text: string) => {
    const p = parseLitmus(text, 't.litmus');
    expect(p.test).toBeUndefined();
    const x = p.problems[0]!;
    return `${x.line}:${x.col}: ${x.message}`;
  };
  it('.shared::cta from another CTA', () => {
    expect(first(base(' atom.relaxed.cta.shared::cta.add.u32 r0, s, 1 | ;'))).toMatch(/^6:43: .*\.shared::cta names the executing CTA's own shared memory/);
  });
  it('.shared::cluster from another cluster', () => {
    expect(first(base(' red.relaxed.cluster.shared::cluster.add.u32 s, 1 | ;'))).toMatch(/^6:\d+: .*outside the cluster of P0/);
  });
  it('a multimem address named by a non-multimem instruction (8.2.3)', () => {
    expect(first(base(' ld.weak r0, m | ;', 'm @ multimem c0, c1;'))).toMatch(/only multimem\.\* instructions may access it \(8\.2\.3\)/);
  });
  it('a float literal in an integer instruction', () => {
    expect(first(base(' | red.relaxed.gpu.global.add.u32 x, 1.5 ;', 'x=0;'))).toMatch(/^6:\d+: .*floating-point literal/);
  });
  it('an unknown qualifier names what the family takes', () => {
    expect(first(base(' atom.relaxed.gpu.global.frob.u32 r0, x, 1 | ;', 'x=0;'))).toMatch(/'\.frob' is not a qualifier of atom.*op \{\.and/);
  });
  it('a bulk size that is not one element, or more elements than the locations are arrays of', () => {
    expect(first(base(' cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [x], [s], 6 | ;', 's @ shared cta 0; x=0;'))).toMatch(/size must be 4/);
    expect(first(base(' cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [x], [s], 16 | ;', 's @ shared cta 0; x=0;'))).toMatch(
      /s has no element 1 \(s\+4\): declare it as an array of 4, e\.g\. 's = \{0, 0\};'/,
    );
  });
  it('cp.async.bulk: a size other than one 16-byte chunk, a direction or mechanism the text does not list, the .relaxed form, a tensor copy without a tensor map', () => {
    const sh = 's @ shared cta 0; x=0; b @ shared cta 0 = 16;';
    expect(first(base(' cp.async.bulk.global.shared::cta.bulk_group [x], [s], 4 | ;', sh))).toMatch(
      /^6:\d+: .*size must be 16: a scalar location is one 16-byte chunk/,
    );
    expect(first(base(' cp.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes [x], [s], 16, [b] | ;', sh))).toMatch(
      /takes \.dst\.src\.completion_mechanism as 9\.7\.10\.28\.4\.1 lists them/,
    );
    expect(first(base(' cp.async.bulk.shared::cta.shared::cta.mbarrier::complete_tx::bytes [s], [s], 16, [b] | ;', sh))).toMatch(
      /as 9\.7\.10\.28\.4\.1 lists them/,
    );
    expect(first(base(' cp.async.bulk.relaxed.cta.global.shared::cta.bulk_group.b128 [x], [s], 16 | ;', sh))).toMatch(/PTX ISA 9\.3.*write the weak copy/);
    expect(first(base(' cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [x], [s] | ;', sh))).toMatch(
      /the tensor operand of a 1-D form is '\[tm, \{0\}\]': a tensor map and 1 coordinate/,
    );
    expect(first(base(' cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [x], [s], 16 | ;', sh))).toMatch(
      /'\.L2::cache_hint' is not a qualifier of cp\.async\.bulk/,
    );
    // and a good one: a read of s and a write of x in the async proxy, completed by the bulk group
    const p = parseLitmus(base(' cp.async.bulk.global.shared::cta.bulk_group [x], [s], 16 | ;', sh), 't');
    expect(p.problems).toEqual([]);
    const ins = p.test!.threads[0]!.code[0]!;
    expect(ins.kind === 'async' && ins.accesses.map((a) => `${a.kind} ${a.loc} ${a.proxy} ${a.sem}`)).toEqual(['read s async weak', 'write x async weak']);
    expect(ins.kind === 'async' && ins.completion.kind).toBe('bulk_group');
  });
  it("red.async's .release form: a release reduction completed at the end of the CTA; its wrong spellings are located", () => {
    const g = 'x=0; s @ shared cta 0;';
    const p = parseLitmus(base(' red.async.release.gpu.global.add.u32 [x], 1 | ;', g), 't');
    expect(p.problems).toEqual([]);
    const ins = p.test!.threads[0]!.code[0]!;
    expect(ins.kind === 'async' && [ins.completion.kind, ins.accesses[0]!.sem, ins.accesses[0]!.scope]).toEqual(['cta-end', 'release', 'gpu']);
    expect(first(base(' red.async.relaxed.gpu.global.add.u32 [x], 1 | ;', g))).toMatch(/the \.release\.gpu\/\.sys form \(9\.7\.15\.7\)/);
    expect(first(base(' red.async.release.gpu.shared::cluster.add.u32 [s], 1 | ;', g))).toMatch(/takes \.global or no state space, not \.shared::cluster/);
  });
  it("values are the reference model's: red.add.f32 1.5 on 1.5 is 3.0", () => {
    const p = parseLitmus(base(' red.relaxed.gpu.global.add.f32 x, 1.5 | ;', 'x=1.5:f32; s @ shared cta 1;'), 't');
    const ins = p.test!.threads[0]!.code[0]!;
    expect(ins.kind === 'rmw' && ins.update(0x3fc00000n, [0x3fc00000n])).toBe(0x40400000n);
  });
});

describe('an mbarrier set up inside a thread', () => {
  it('too many traces for the judge: the error says how to write the test instead (the phase started in the init block)', () => {
    expect(() => judge(fixture('mbarrier-setup-in-thread.litmus'))).toThrow(
      /thread P1 has more than 20000 traces; its mbarrier b is set up inside the thread \(line 9\): start the phase in the init block instead/,
    );
  }, 60_000);
});
