/**
 * `hostmem` at the command line without a GPU: --plan-only lists every job (exit 0), bad input is a
 * usage error (exit 2, no stack trace), and a run without a GPU says why (exit 2).
 */
import { describe, expect, it } from 'vitest';
import { register } from 'tsx/cjs/api';
import { runCli } from '../helpers/cli.js';

register();

const cli = (args: string[]) => runCli(args);

describe('hostmem CLI', () => {
  it('--plan-only lists the 465 jobs and 48 single-thread cases', async () => {
    const r = await cli(['hostmem', '--plan-only']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^465 jobs \(0 skipped\), 48 single-thread cases/m);
    expect(r.out).toContain('atom.sys.global.cas.b64/hostmem-managed\tcas\tGPU 64x16\tCPU 4x256 atomic');
    expect(r.out).toContain('atom.sys.global.add.u32/hostmem-registered-plain-cpu');
  }, 120_000);
  it('--memory and --filter narrow it', async () => {
    const r = await cli(['hostmem', '--plan-only', '--memory', 'managed', '--filter', 'red.sys.global.add.u32']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^1 jobs \(0 skipped\), 0 single-thread cases/m);
  }, 120_000);
  it('bad input is a usage error, exit 2, no stack trace', async () => {
    for (const args of [['--memory', 'pinned'], ['--filter', 'atom.nosuch'], ['--backend', 'ptxas'], ['--bogus']]) {
      const r = await cli(['hostmem', '--plan-only', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.out).toMatch(/^error: /);
      expect(r.out).not.toMatch(/\n\s+at /);
    }
  }, 120_000);
  it('without a GPU, a run says why and how to see the jobs', async () => {
    const r = await cli(['hostmem', '--filter', 'red.sys.global.add.u32', '--report', '/tmp/ptxconf-hostmem-nogpu']);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^error: hostmem runs on a GPU, and there is none to use here/m);
    expect(r.out).toMatch(/--plan-only lists the jobs without a GPU/);
  }, 120_000);
});
