/**
 * The toolchain matrix (`--ptxas A --ptxas B`): one report per toolchain, answers compared entry by
 * entry. A stand-in ptxas (the real one, given modules where `add.f32` is respelled so it rejects
 * those lines, and a version line of its own) must show exactly those entries as differences; the
 * same ptxas twice (under two paths) must show none; Debian's 11.8 where it is installed.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_IN_REPORT, compareAnswers, memberArgv } from '../../harness/cli/matrix.js';
import type { EntryResult } from '../../harness/report/types.js';
import { runLines } from '../helpers/cli.js';
import { ptxas118, ptxasOrReason } from '../helpers/ptxas.js';

const PTXAS_118 = ptxas118();

const result = (id: string, verdict: EntryResult['verdict'], accepted?: boolean, reason = ''): EntryResult => ({
  id,
  family: 'atom',
  kind: 'variant',
  ptx: id,
  modulePtx: '9.0',
  catalog: { status: 'valid', expect: 'accept', reason: 'valid', rules: [] },
  verdict,
  reason,
  ...(accepted !== undefined ? { ptxas: { accepted, answer: accepted ? 'accept' : 'reject', line: id, messages: accepted ? [] : ['error: no'] } } : {}),
});

describe('compareAnswers', () => {
  it('finds an entry answered differently, counts the alike, and keeps skips apart', () => {
    const a = [
      result('x', 'pass', true),
      result('y', 'pass', true),
      result('z', 'skipped', undefined, 'needs PTX ISA 8.1; ptxas 11.8 supports up to 7.8'),
      result('w', 'skipped', undefined, 'needs PTX ISA 9.4; ptxas 11.8 supports up to 7.8'),
    ];
    const b = [
      result('x', 'pass', true),
      result('y', 'compile-mismatch', false),
      result('z', 'pass', true),
      result('w', 'skipped', undefined, 'needs PTX ISA 9.4; ptxas 13.0 supports up to 9.0'),
      result('v', 'skipped', undefined, 'needs PTX ISA 8.1; ptxas 11.8 supports up to 7.8'),
    ];
    const c = compareAnswers(['A', 'B'], [a, b]);
    expect(c.same).toBe(1);
    expect(c.differences.map((d) => d.id)).toEqual(['y']);
    expect(c.differences[0]!.answers).toMatchObject({
      A: { answer: 'accept', verdict: 'pass' },
      B: { answer: 'reject', verdict: 'compile-mismatch', message: 'error: no' },
    });
    expect(c.notChecked).toEqual([
      { label: 'A', reason: 'needs PTX ISA 8.1; ptxas 11.8 supports up to 7.8', count: 1, example: 'z' },
      { label: 'every toolchain', reason: 'needs PTX ISA 9.4', count: 1, example: 'w' },
      // skipped by one, and not in the other's report: not "every toolchain"
      { label: 'A', reason: NOT_IN_REPORT, count: 1, example: 'v' },
      { label: 'B', reason: 'needs PTX ISA 8.1; ptxas 11.8 supports up to 7.8', count: 1, example: 'v' },
    ]);
  });

  it('an entry one run does not have is not checked there, not a difference', () => {
    const c = compareAnswers(['A', 'B'], [[result('x', 'pass', true)], []]);
    expect(c.differences).toEqual([]);
    expect(c.notChecked).toEqual([{ label: 'B', reason: NOT_IN_REPORT, count: 1, example: 'x' }]);
  });

  it('memberArgv replaces --ptxas and --report', () => {
    expect(memberArgv(['--backend', 'ptxas', '--ptxas', 'a', '--report=r', '--ptxas=b', '--filter', 'x'], 'b', 'out/b')).toEqual([
      '--backend',
      'ptxas',
      '--filter',
      'x',
      '--ptxas',
      'b',
      '--report',
      'out/b',
    ]);
  });
});

describe('--ptxas on the command line', () => {
  let dir: string;
  let real: string | undefined;
  let why = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'matrix-test-'));
    const p = await ptxasOrReason();
    if (typeof p === 'string') why = p;
    else real = p.path;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a bad --ptxas is a usage error (exit 2) naming it', async () => {
    let r = await runLines(['--backend', 'ptxas', '--ptxas', join(dir, 'nope')]);
    expect(r.code).toBe(2);
    expect(r.out.join('\n')).toMatch(/--ptxas .*nope: no such file; give the path of a ptxas binary/);
    const notPtxas = join(dir, 'not-ptxas');
    writeFileSync(notPtxas, '#!/bin/sh\necho hello\n');
    chmodSync(notPtxas, 0o755);
    r = await runLines(['--backend', 'ptxas', '--no-cases', '--filter', 'atom.global.add.f32', '--ptxas', notPtxas, '--report', join(dir, 'bad')]);
    expect(r.code).toBe(2);
    expect(r.out.join('\n')).toMatch(/not-ptxas \(--ptxas\) is not ptxas/);
    r = await runLines(['--backend', 'reference', '--ptxas', notPtxas, '--ptxas', '/bin/sh']);
    expect(r.code).toBe(2);
    expect(r.out.join('\n')).toMatch(/a toolchain matrix compares what each ptxas does, which the reference backend does not use/);
    r = await runLines(['contend', '--ptxas', join(dir, 'nope')]);
    expect(r.code).toBe(2);
    expect(r.out.join('\n')).toMatch(/--ptxas .*nope: no such file/);
  });

  it('a stand-in ptxas that rejects add.f32: exactly those entries differ, kept whole in both reports, and diff shows them', async (ctx) => {
    if (!real) {
      console.warn(`[skip] matrix stand-in test: ${why}`);
      ctx.skip();
    }
    // the real ptxas, but every module has add.f32 respelled (rejected) and it says it is V13.0.1
    const fake = join(dir, 'fake-ptxas');
    writeFileSync(
      fake,
      `#!/bin/sh
if [ "$1" = "--version" ]; then "${real}" --version | sed 's/V[0-9.]*/V99.9.1/; s/release [0-9.]*/release 99.9/'; exit 0; fi
args=""; for a in "$@"; do case "$a" in *.ptx) sed 's/\\.add\\.f32 /.add.f32zz /' "$a" > "$a.fake.ptx"; args="$args $a.fake.ptx";; *) args="$args $a";; esac; done
exec "${real}" $args
`,
    );
    chmodSync(fake, 0o755);
    const out = join(dir, 'm1');
    const r = await runLines([
      '--backend',
      'ptxas',
      '--no-cases',
      '--filter',
      'atom.global.add.f32,atom.global.add.f64',
      '--kind',
      'variant',
      '--keep',
      '0',
      '--ptxas',
      real!,
      '--ptxas',
      fake,
      '--report',
      out,
    ]);
    const text = r.out.join('\n');
    expect(existsSync(join(out, 'matrix.json')), text).toBe(true);
    const m = JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8'));
    expect(m.toolchains.map((t: { label: string }) => t.label)).toEqual(
      ['ptxas-13.0', 'ptxas-99.9'].map((l, i) => (i === 0 ? `ptxas-${m.toolchains[0].release}` : l)),
    );
    const ids: string[] = m.differences.map((d: { id: string }) => d.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => /add\.f32/.test(id))).toBe(true);
    for (const d of m.differences) {
      expect(d.answers[m.toolchains[0].label].answer).toBe('accept');
      expect(d.answers['ptxas-99.9'].answer).toBe('reject');
    }
    // f64 entries answered alike
    expect(m.same).toBeGreaterThan(0);
    expect(text).toMatch(/answers: \d+ alike under every toolchain, \d+ differ/);
    // each report keeps every differing entry whole (even with --keep 0), naming its toolchain
    const rep = (l: string) => JSON.parse(readFileSync(join(out, l, 'report.json'), 'utf8'));
    const a = rep(m.toolchains[0].label);
    const b = rep('ptxas-99.9');
    for (const id of ids) {
      expect(a.results.find((x: EntryResult) => x.id === id)?.toolchain).toMatch(/^ptxas \d+\.\d+ \(V/);
      expect(b.results.find((x: EntryResult) => x.id === id)?.toolchain).toBe('ptxas 99.9 (V99.9.1)');
    }
    expect(b.toolchain.ptxas.foundVia).toBe('--ptxas');
    const d = await runLines(['diff', join(out, m.toolchains[0].label, 'report.json'), join(out, 'ptxas-99.9', 'report.json')]);
    expect(d.code).toBe(1);
    const dt = d.out.join('\n');
    expect(dt).toMatch(/toolchains: old ptxas \S+ \(.*\), new ptxas 99\.9/);
    expect(dt).toContain(`${ids[0]}: ptxas accepted -> rejected`);
  }, 120_000);

  it('the same ptxas under two paths: no difference', async (ctx) => {
    if (!real) {
      console.warn(`[skip] matrix same-toolchain test: ${why}`);
      ctx.skip();
    }
    const link = join(dir, 'ptxas-copy');
    writeFileSync(link, `#!/bin/sh\nexec "${real}" "$@"\n`);
    chmodSync(link, 0o755);
    const out = join(dir, 'm2');
    const r = await runLines([
      '--backend',
      'ptxas',
      '--no-cases',
      '--filter',
      'red.global.add.*',
      '--kind',
      'variant',
      '--ptxas',
      real!,
      '--ptxas',
      link,
      '--report',
      out,
    ]);
    expect(r.code, r.out.join('\n')).toBe(0);
    const m = JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8'));
    expect(m.differences).toEqual([]);
    expect(m.toolchains[1].label).toBe(`${m.toolchains[0].label}-2`);
    expect(readFileSync(join(out, 'matrix.txt'), 'utf8')).toMatch(/answers: [1-9]\d* alike under every toolchain, 0 differ/);
  }, 120_000);

  it("Debian's ptxas 11.8 beside this one: every entry 11.8 reads is checked by both, the rest skipped with the reason", async (ctx) => {
    if (!real || !PTXAS_118) {
      console.warn(`[skip] 11.8 matrix test: ${!real ? why : 'no ptxas 11.8 (npm run setup:toolchain fetches it; PTXAS_118 names one)'}`);
      ctx.skip();
    }
    const out = join(dir, 'm3');
    const r = await runLines([
      '--backend',
      'ptxas',
      '--no-cases',
      '--filter',
      'atom.shared::cluster.or,atom.shared::cluster.add.noftz',
      '--ptxas',
      real!,
      '--ptxas',
      PTXAS_118!,
      '--report',
      out,
    ]);
    expect(r.code, r.out.join('\n')).toBe(0);
    const m = JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8'));
    expect(m.toolchains.map((t: { release: string }) => t.release)).toContain('11.8');
    expect(m.same).toBeGreaterThan(0);
    expect(
      m.notChecked.some(
        (g: { label: string; reason: string }) => g.label === 'ptxas-11.8' && /needs PTX ISA 8\.\d; ptxas 11\.8 supports up to 7\.8/.test(g.reason),
      ),
    ).toBe(true);
  }, 120_000);
});

// a symlink is a path like any other: the same binary twice is refused
it('the same ptxas given twice is refused', async () => {
  const d = mkdtempSync(join(tmpdir(), 'matrix-twice-'));
  try {
    writeFileSync(join(d, 'p'), '#!/bin/sh\n');
    symlinkSync(join(d, 'p'), join(d, 'q'));
    const r = await runLines(['--ptxas', join(d, 'p'), '--ptxas', join(d, 'q')]);
    expect(r.code).toBe(2);
    expect(r.out.join('\n')).toMatch(/given twice/);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});
