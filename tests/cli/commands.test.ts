/**
 * The command table (harness/cli/commands.ts) drives dispatch, every `X --help`, the top-level
 * `--help` and "did you mean": each row is checked through the CLI itself, so a command the table
 * has and dispatch, help or the docs lack fails here.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS, EXIT_CODES, unknownCommand } from '../../harness/cli/commands.js';
import { runLines } from '../helpers/cli.js';

describe('every command of the table', () => {
  it('has a unique name and a summary; the table holds every command the docs name', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['diff', 'render', 'merge', 'export', 'sweep', 'contend', 'repro', 'litmus', 'lens', 'hostmem', 'peer']));
    for (const c of COMMANDS) expect(c.summary.length, c.name).toBeGreaterThan(10);
  });

  it.each(COMMANDS.map((c) => [c.name] as const))('%s --help and %s -h: its usage, exit 0, nothing run', async (name) => {
    const c = COMMANDS.find((x) => x.name === name)!;
    const usage = await c.usage();
    for (const flag of ['--help', '-h']) {
      const r = await runLines([name, flag]);
      expect([name, flag, r.code]).toEqual([name, flag, 0]);
      expect(r.out.join('\n')).toContain(usage.split('\n')[0]!);
    }
  });
});

describe('--overwrite', () => {
  it('every command that writes a report (--report DIR) says how to replace one (a folder holding a report is refused without it)', async () => {
    const writers: string[] = [];
    for (const c of COMMANDS) if ((await c.usage()).includes('--report DIR')) writers.push(c.name);
    expect(writers).toEqual(expect.arrayContaining(['render', 'merge', 'sweep', 'contend', 'litmus', 'lens', 'hostmem', 'peer']));
    for (const c of COMMANDS.filter((x) => writers.includes(x.name))) expect(await c.usage(), c.name).toContain('--overwrite');
  });
});

describe('the top-level --help', () => {
  it('lists every command of the table with its summary, and the exit codes', async () => {
    const r = await runLines(['--help']);
    const text = r.out.join('\n');
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(text, c.name).toMatch(new RegExp(`^  ${c.name} +${c.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect(text).toContain(EXIT_CODES);
    for (const code of ['0', '1', '2', '3', '130/143']) expect(EXIT_CODES).toMatch(new RegExp(`^  ${code} `, 'm'));
  });
});

describe('a first word that names no command', () => {
  it.each([
    ['litmsu', 'litmus'],
    ['dif', 'diff'],
    ['merg', 'merge'],
    ['Render', 'render'],
  ])('%s: did you mean %s; exit 2 in two lines, not the whole usage', async (word, meant) => {
    const r = await runLines([word, 'a', 'b']);
    expect(r.code).toBe(2);
    expect(r.out[0]).toBe(`error: unknown command '${word}'; did you mean '${meant}'?`);
    expect(r.out.length).toBeLessThan(5);
  });
  it('far from every command: the commands are listed', async () => {
    const r = await runLines(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.out[0]).toMatch(/unknown command 'frobnicate'; the commands are diff, render, merge, export, sweep, contend, repro, litmus, lens, hostmem, peer/);
    expect(unknownCommand('zz')).not.toMatch(/did you mean/);
  });
});
