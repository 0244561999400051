/**
 * A vector file past the size a report holds whole: every case is judged and counted, the report
 * keeps every result of the first KEEP_ALL cases and every non-pass after them, and still says what
 * failed where.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KEEP_WHOLE as KEEP_ALL } from '../../harness/report/recorder.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-big-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a 25,000-case JSON-lines file on the reference backend', () => {
  it('counts every case, keeps the first 20,000 and the one wrong expect after them', async () => {
    const n = 25_000;
    const lines = ['{"instruction": "red.global.add.u32"}'];
    for (let i = 0; i < n; i++) {
      const a = (i * 2654435761) >>> 0;
      const sum = i === 24_321 ? 1 : (a + 7) >>> 0; // case 24321 expects the wrong sum
      lines.push(
        `{"name": "c${i}", "memory": ["0x${a.toString(16).padStart(8, '0')}"], "operands": {"b": ["0x00000007"]}, "expect": {"memory": ["0x${sum.toString(16).padStart(8, '0')}"]}}`,
      );
    }
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const { code, out } = await runCli(['--vectors', file, '--backend', 'reference', '--report', join(dir, 'r')]);
    expect(code).toBe(1);
    const rep = JSON.parse(readFileSync(join(dir, 'r', 'report.json'), 'utf8'));
    expect(KEEP_ALL).toBe(20_000);
    expect(rep.results).toHaveLength(KEEP_ALL + 1);
    expect(rep.stats.cases).toBe(n);
    expect(rep.stats['total.red.pass']).toBe(n - 1);
    expect(rep.stats['total.red.mismatch']).toBe(1);
    const bad = rep.results.filter((r: { verdict: string }) => r.verdict === 'mismatch');
    expect(bad).toHaveLength(1);
    expect(bad[0].id).toMatch(/:c24321$/);
    expect(out).toMatch(/every case judged .*red\.pass 24999, red\.mismatch 1/);
  }, 120_000);
});
