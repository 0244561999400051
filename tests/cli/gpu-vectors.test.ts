/**
 * `--vectors` and `--case` reach the gpu backend through the CLI, here against the stand-in
 * launcher (a "GPU" that computes the reference model's outcome): the selection, the report's side
 * by side view of a file case (observed bits, allowed set, the file's expect and whether the
 * hardware agrees), and exit codes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { register } from 'tsx/cjs/api';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { runCli } from '../helpers/cli.js';
import { runWithStandin } from '../helpers/standin.js';

// the CLI probes the launcher in this process: let require() read the stand-in's TypeScript
register();

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-gpuvec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const p = await ptxasOrReason();
if (typeof p === 'string') console.log(`[skip] --vectors on the gpu backend: ${p}`);

const run = (...argv: string[]) => runWithStandin(argv, { XDG_CACHE_HOME: join(dir, 'cache') });

describe.skipIf(typeof p === 'string')('vector files and --case on the gpu backend (stand-in launcher)', () => {
  it('runs cases/hardware on the "GPU": every case judged, observed bits beside the allowed set, the expect and the agreement', async () => {
    const r = await run('--vectors', 'cases/hardware', '--backend', 'gpu', '--report', join(dir, 'a'));
    expect(r.out).toMatch(/backend: gpu \(requested with --backend gpu: Stand-in/);
    // judged against 9.4 (the default): the file written from the 9.1-9.3 text is left out, the 9.4 one runs
    expect(r.out).toMatch(
      /--vectors: left out cases\/hardware\/spec-9\.1-9\.3\.yaml: its editions: header says 9\.1-9\.3, this run is judged against PTX ISA 9\.4/,
    );
    expect(r.out).toMatch(/cases: 15 \(from --vectors 15 in 2 file\(s\)\), on the GPU/);
    // the stand-in keeps bulk add.f32 subnormals as 9.4 says; the H100's known deviation is for 9.1-9.3
    expect(r.out).toMatch(/bulk-add-f32-global-keeps-subnormals: not applied: it is for PTX ISA 9\.1-9\.3/);
    expect(r.code).toBe(0);
    // against 9.1: the other file; the stand-in flushes as that text says, so the known deviation is an unexpected pass
    const r91 = await run('--vectors', 'cases/hardware', '--backend', 'gpu', '--spec-edition', '9.1', '--report', join(dir, 'a91'));
    expect(r91.out).toMatch(/left out cases\/hardware\/spec-9\.4\.yaml: its editions: header says 9\.4/);
    expect(r91.out).toMatch(/bulk-add-f32-global-keeps-subnormals: UNEXPECTED PASS: 2 matching result\(s\) ran and none deviated/);
    expect(r91.code).toBe(1);
    const rep = JSON.parse(readFileSync(join(dir, 'a', 'report.json'), 'utf8'));
    const cases = rep.results.filter((x: { kind: string }) => x.kind === 'case');
    expect(cases).toHaveLength(15);
    for (const c of cases) {
      expect(c.case.observed.memory.length, c.id).toBeGreaterThan(0);
      expect(Object.keys(c.case.allowed), c.id).toContain('memory');
      expect(c.case.expect, c.id).toBeDefined();
      expect(c.case.fileExpect.agrees, c.id).toBe(true);
    }
    const shared = cases.find((c: { id: string }) => c.id.endsWith(':generic-add-f32-subnormal-lands-shared'));
    expect(shared.case.input.space).toBe('shared');
    expect(shared.case.observed.memory).toEqual(['0x00000004']);
  }, 120_000);
  it('--case replays one file case on the "GPU"', async () => {
    const r = await run(
      '--case',
      'atom.global.inc.u32/cases/hardware/spec-on-hardware.yaml:inc-u32-above-bound',
      '--backend',
      'gpu',
      '--report',
      join(dir, 'b'),
    );
    expect(r.code).toBe(0);
    const rep = JSON.parse(readFileSync(join(dir, 'b', 'report.json'), 'utf8'));
    expect(rep.results.map((x: { id: string; verdict: string }) => `${x.id} ${x.verdict}`)).toEqual([
      'atom.global.inc.u32/cases/hardware/spec-on-hardware.yaml:inc-u32-above-bound pass',
    ]);
    expect(rep.backend.name).toBe('gpu');
  }, 120_000);
});

describe('--backend gpu where there is no GPU', () => {
  it('is exit 2 with the reason, not a silent fall-back to the reference model', async () => {
    const { code, out } = await runCli(['--vectors', 'cases/hardware', '--backend', 'gpu', '--report', join(dir, 'c')], {
      env: { PTX_CONFORMANCE_ADDON: undefined },
    });
    expect(code).toBe(2);
    expect(out).toMatch(/error: gpu backend: (no CUDA driver|the native CUDA launcher)/);
  });
});
