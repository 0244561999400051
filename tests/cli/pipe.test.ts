/**
 * Stdout piped into a reader that goes away (`--list | head -1`, a run piped
 * into `head -2`). Before: an unhandled `Error: write EPIPE` stack trace and exit 1. Now the harness
 * stops writing to stdout quietly: --list exits 0 (as `seq 1000000 | head -1` does for its reader);
 * a run goes on to its end, writes its report, says where on stderr (stdout is gone) and exits with
 * its own code. litmus likewise says where its report is on stderr (it printed it on stdout only).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-pipe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The CLI with stdout into a pipe whose reader closes it after `lines` lines (0: at once, before
 * anything is written, as a reader that already quit); the exit code, stderr and the lines read.
 */
function closedEarly(args: string[], lines: number): Promise<{ code: number | null; signal: string | null; err: string; read: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'harness', 'cli', 'main.ts'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let got = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  if (lines === 0) child.stdout.destroy();
  else
    child.stdout.on('data', (d: Buffer) => {
      got += d.toString();
      if (got.split('\n').length > lines) child.stdout.destroy();
    });
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, err, read: got.split('\n').slice(0, lines) })));
}

describe('stdout closed by its reader', () => {
  it('--list | head -1: the first line, then exit 0 with no EPIPE and no stack trace', async () => {
    // about 350 kB of lines: far more than a pipe holds, so the writes after the reader left fail
    const r = await closedEarly(['--list', '--filter', 'atom.global'], 1);
    expect(r.read[0]).toMatch(/^atom\.global\.\S+\t/);
    expect(r.err).not.toMatch(/EPIPE/);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect([r.code, r.signal]).toEqual([0, null]);
  }, 120_000);

  it('a run whose stdout reader is gone: runs to its end, writes the whole report, says where on stderr, exits with its own code', async () => {
    const report = join(dir, 'run');
    const r = await closedEarly(['--backend', 'reference', '--filter', 'atom.global.add.f32', '--report', report], 0);
    expect(r.err).not.toMatch(/EPIPE/);
    expect(r.err).not.toMatch(/\n\s+at /);
    // every case of the variant passes: the run's own code is 0
    expect([r.code, r.signal]).toEqual([0, null]);
    const rep = JSON.parse(readFileSync(join(report, 'report.json'), 'utf8'));
    expect(rep.partial).toBeFalsy();
    expect(existsSync(join(report, 'report.html'))).toBe(true);
    expect(r.err).toContain(`report: ${join(report, 'report.json')}`);
  }, 120_000);
  it('litmus | head -1: the report paths on stderr once stdout is gone (before: printed on stdout only, lost)', async () => {
    const report = join(dir, 'litmus');
    const r = await closedEarly(['litmus', 'cases/litmus/2+2W+atom.relaxed.litmus', '--report', report], 0);
    expect(r.err).not.toMatch(/EPIPE/);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.code).not.toBe(2);
    expect(existsSync(join(report, 'report.json'))).toBe(true);
    expect(r.err).toContain(`report: ${join(report, 'report.json')}`);
    expect(r.err).toContain(`junit:  ${join(report, 'junit.xml')}`);
  }, 120_000);
});
