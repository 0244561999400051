/** The console progress: plain periodic lines without a terminal, with counts per verdict and rate. */
import { describe, expect, it } from 'vitest';
import { Progress } from '../../harness/cli/progress.js';

describe('progress', () => {
  it('without a terminal: a plain line per interval and one at the end, with verdict counts', () => {
    const lines: string[] = [];
    const p = new Progress({ out: () => {}, err: (s) => lines.push(s), isTTY: false }, 10, 'cases evaluated', 0);
    p.tick(4, ['pass', 'pass', 'mismatch', 'pass']);
    p.tick(6, { pass: 5, observed: 1 });
    p.done();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^4\/10 cases evaluated \(40\.0%, \d+\/s, [\d.]+ s(, \d+ s left)?\) \| pass 3 mismatch 1$/);
    expect(lines[2]).toMatch(/^10\/10 cases evaluated \(100\.0%, \d+\/s, [\d.]+ s\) \| pass 8 mismatch 1 observed 1$/);
  });
  it('on a terminal it redraws one line (nothing goes through the line printer)', () => {
    const lines: string[] = [];
    const p = new Progress({ out: () => {}, err: (s) => lines.push(s), isTTY: true }, 2, 'x', 1e9);
    const writes: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => (writes.push(s), true)) as typeof process.stderr.write;
    try {
      p.tick(2, ['pass', 'pass']);
      p.done();
    } finally {
      process.stderr.write = orig;
    }
    expect(lines).toEqual([]);
    expect(writes.at(-1)).toMatch(/^\r\x1b\[2K\[#{24}\] 2\/2 x \(100\.0%.*\| pass 2\n$/);
  });
});
