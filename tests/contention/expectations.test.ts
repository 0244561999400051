/**
 * `contend` honours expectations as the main run does: the recorded H100
 * contend run (ptxas 13.0) judged again with the default sm_90 file exits 0, its 31 .shared::cluster
 * groups known deviations of the three expectations that name the finding; without one of them, exit
 * 1; a broken file, exit 2 naming the file and line, for `render` and for `contend` itself (before
 * anything runs); and `contend` against the stand-in launcher turns a covered fault into known
 * deviations and says when a covering expectation no longer occurs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { register } from 'tsx/cjs/api';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runWithStandin } from '../helpers/standin.js';
import { runCli } from '../helpers/cli.js';

register();
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-contend-ex-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROOT = join(import.meta.dirname, '..', '..');
const BASELINE = join(ROOT, 'reports', 'baselines', 'h100-sm_90-toolchain-matrix', 'contend-matrix.ptxas-13.0.report.json.gz');
const SM90 = join(ROOT, 'cases', 'expectations', 'sm_90.yaml');
const CLUSTER = ['shared-cluster-b64-and-or-xor-not-atomic', 'shared-cluster-64bit-min-max-not-atomic', 'shared-cluster-f16x2-bf16x2-add-as-integer'];

const cli = (args: string[]) => runCli(args);

type Report = {
  counts: { total: Record<string, number> };
  expectations: { outcomes: { id: string; status: string; matched: number }[] };
  results: { id: string; verdict: string; expectation?: string }[];
};
const reportOf = (d: string) => JSON.parse(readFileSync(join(d, 'report.json'), 'utf8')) as Report;

/** sm_90.yaml without the expectation `id` (its include made absolute, so the copy reads the same toolchain file). */
function without(id: string): string {
  const text = readFileSync(SM90, 'utf8').replace('  - ptxas-13.0.yaml', `  - ${resolve(ROOT, 'cases', 'expectations', 'ptxas-13.0.yaml')}`);
  const items = text.split(/(?=^  (?:#[^\n]*\n  )*- id: )/m);
  const kept = items.filter((x) => !x.includes(`- id: ${id}\n`));
  expect(kept.length).toBe(items.length - 1);
  const f = join(dir, `without-${id}.yaml`);
  writeFileSync(f, kept.join(''));
  return f;
}

describe('the recorded H100 contend run (ptxas 13.0) judged again with expectations', () => {
  it('the default sm_90 file: the 31 .shared::cluster groups are known deviations (9, 12, 10), exit 0', async () => {
    const r = await cli(['render', BASELINE, '--report', join(dir, 'all')]);
    expect(r.code).toBe(0);
    const rep = reportOf(join(dir, 'all'));
    expect(rep.counts.total.mismatch ?? 0).toBe(0);
    expect(rep.counts.total['known-deviation']).toBe(31);
    const got = Object.fromEntries(rep.expectations.outcomes.filter((o) => CLUSTER.includes(o.id)).map((o) => [o.id, [o.status, o.matched]]));
    expect(got).toEqual({ [CLUSTER[0]!]: ['occurred', 9], [CLUSTER[1]!]: ['occurred', 12], [CLUSTER[2]!]: ['occurred', 10] });
    // every known deviation is a .shared::cluster group of the cluster layout
    for (const x of rep.results.filter((y) => y.verdict === 'known-deviation')) expect(x.id).toMatch(/^(atom|red)\.shared::cluster\..*\/contend-cluster-/);
    expect(r.out).toMatch(/shared-cluster-64bit-min-max-not-atomic: occurred: 12 known deviation\(s\)/);
  });

  it.each(CLUSTER.map((id, k) => [id, [9, 12, 10][k]!] as const))('without %s: its %i groups are mismatches, exit 1', async (id, n) => {
    const r = await cli(['render', BASELINE, '--expectations', without(id), '--report', join(dir, `w-${id}`)]);
    expect(r.code).toBe(1);
    const rep = reportOf(join(dir, `w-${id}`));
    expect(rep.counts.total.mismatch).toBe(n);
    expect(rep.counts.total['known-deviation']).toBe(31 - n);
  });

  it('an expectation that names an alternative rule (ftz-off) cannot cover a contention group: not applied, not an unexpected pass', async () => {
    // the older recorded run (judged against 9.1, where bulk-add-f32-global-keeps-subnormals applies) has bulk .add.f32 groups its pattern matches
    const r = await cli(['render', join(ROOT, 'reports', 'baselines', 'h100-sm_90-contention', 'all-report.json.gz'), '--report', join(dir, 'old')]);
    expect(r.code).toBe(0);
    const o = reportOf(join(dir, 'old')).expectations.outcomes.find((x) => x.id === 'bulk-add-f32-global-keeps-subnormals')!;
    expect(o.status).toBe('not-applicable');
    expect(r.out).toMatch(/bulk-add-f32-global-keeps-subnormals: not applied: .*contention group\(s\): judged by the contention model/);
  });

  it('a broken file: exit 2 naming the file and line, no report written', async () => {
    const f = join(dir, 'broken.yaml');
    writeFileSync(
      f,
      'expectations:\n  - id: x\n    pattern: "atom.shared::cluster.*"\n    verdikt: mismatch\n    explanation: none\n    reason: r\n    link: reports/findings/shared-cluster-atomicity/README.md\n',
    );
    const r = await cli(['render', BASELINE, '--expectations', f, '--report', join(dir, 'broken')]);
    expect(r.code).toBe(2);
    expect(r.out).toContain(`${f}:4:5: unknown key 'verdikt' in an expectation; did you mean 'verdict'?`);
    expect(existsSync(join(dir, 'broken'))).toBe(false);
  });
});

describe('contend reads expectations (stand-in launcher)', async () => {
  const p = await ptxasOrReason();
  const run = (args: string[], env: Record<string, string> = {}) =>
    runWithStandin(['contend', '--cache-dir', join(dir, 'cache'), '--reps', '32', ...args], env);
  const cover = (pattern: string) => {
    const f = join(dir, `cover-${pattern.replace(/\W+/g, '_')}.yaml`);
    writeFileSync(
      f,
      `expectations:\n  - id: planted\n    pattern: "${pattern}"\n    explanation: none\n    reason: the stand-in's planted one-bit fault\n    link: tests/fixtures/standin-launcher.cts\n`,
    );
    return f;
  };

  it('a broken --expectations file: exit 2 naming file and line, before anything runs', async () => {
    const f = join(dir, 'broken-contend.yaml');
    writeFileSync(
      f,
      'expectations:\n  - id: a\n    pattern: "red.*"\n    explanation: none\n    reason: r\n    link: x\n  - id: a\n    pattern: "atom.*"\n    explanation: none\n    reason: r\n    link: x\n',
    );
    const r = await run(['--expectations', f, '--report', join(dir, 'c-broken')]);
    expect(r.code).toBe(2);
    expect(r.out).toContain(`${f}:7:9: id: 'a' is used already (line 2)`);
    expect(r.out).toMatch(/problem\(s\) in the expectations file; nothing was run/);
    expect(existsSync(join(dir, 'c-broken'))).toBe(false);
    expect((await run(['--expectations', join(dir, 'nope.yaml')])).code).toBe(2);
  });

  it.skipIf(typeof p === 'string')(
    'a planted fault covered by an expectation: known deviations, exit 0; not covered: exit 1; covered but absent: unexpected pass, exit 1',
    async () => {
      const bug = { PTXCONF_STANDIN_CONTEND_BUG: '1' };
      const filter = ['--filter', 'red.global.add.u32,atom.global.exch.b32'];
      const a = await run([...filter, '--expectations', cover('red.global.add.u32/contend-*'), '--report', join(dir, 'c-part')], bug);
      expect(a.code).toBe(1); // exch's groups are not covered
      const part = reportOf(join(dir, 'c-part'));
      expect(
        part.results.filter((x) => x.verdict === 'known-deviation').every((x) => x.id.startsWith('red.global.add.u32/') && x.expectation === 'planted'),
      ).toBe(true);
      expect(part.results.filter((x) => x.verdict === 'mismatch').every((x) => x.id.startsWith('atom.global.exch.b32/'))).toBe(true);
      expect(part.results.some((x) => x.verdict === 'mismatch')).toBe(true);
      const b = await run(
        [...filter, '--expectations', cover('red.global.add.u32/contend-*,atom.global.exch.b32/contend-*'), '--report', join(dir, 'c-all')],
        bug,
      );
      expect(b.out).toMatch(/expectations: 1 known deviation\(s\) from /);
      expect(b.code).toBe(0);
      const all = reportOf(join(dir, 'c-all'));
      expect(all.counts.total.mismatch ?? 0).toBe(0);
      expect(all.expectations.outcomes[0]).toMatchObject({
        id: 'planted',
        status: 'occurred',
        matched: all.results.filter((x) => x.verdict === 'known-deviation').length,
      });
      // the same expectation with the fault gone: an unexpected pass
      const c = await run([...filter, '--expectations', cover('red.global.add.u32/contend-*,atom.global.exch.b32/contend-*'), '--report', join(dir, 'c-gone')]);
      expect(c.code).toBe(1);
      expect(c.out).toMatch(/planted: UNEXPECTED PASS/);
    },
    180_000,
  );
});
