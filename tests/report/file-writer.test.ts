/**
 * The stream's writer (harness/report/file-writer.ts): chunks written in order on libuv's threads,
 * end() waiting for them, stop() dropping what is queued; and the recorder's stream, compressed in
 * gzip members while the run goes, reads back as the lines it was given, a signal's report included.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { FileWriter } from '../../harness/report/file-writer.js';
import { RunRecorder } from '../../harness/report/recorder.js';
import type { EntryResult } from '../../harness/report/types.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-filewriter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the file writer', () => {
  it('writes every chunk in order, and end() waits for them', async () => {
    const f = join(dir, 'ordered');
    const w = new FileWriter(f, 'w');
    const want: string[] = [];
    for (let k = 0; k < 200; k++) {
      const s = `${k}:${'x'.repeat((k * 7919) % 5000)}\n`;
      want.push(s);
      w.write(Buffer.from(s));
    }
    await w.end();
    expect(readFileSync(f, 'utf8')).toBe(want.join(''));
  });

  it('stop() drops what is queued and leaves what was written whole', async () => {
    const f = join(dir, 'stopped');
    const w = new FileWriter(f, 'w');
    for (let k = 0; k < 50; k++) w.write(Buffer.from(`${'y'.repeat(1 << 16)}\n`));
    w.stop();
    await w.flushed();
    const text = readFileSync(f, 'utf8');
    expect(text.length).toBeLessThan(50 * ((1 << 16) + 1));
    expect(
      text
        .split('\n')
        .slice(0, -1)
        .every((l) => l.length === 1 << 16),
    ).toBe(true);
  });
});

describe("the recorder's stream", () => {
  const result = (k: number): EntryResult => ({
    id: `v/f:case-${k}`,
    family: 'atom',
    kind: 'case',
    ptx: 'atom.global.add.u32',
    modulePtx: '-',
    catalog: { status: 'valid', expect: 'accept', reason: 'r', rules: [] },
    verdict: 'pass',
    reason: 'why',
  });
  const meta = { startedAt: new Date().toISOString(), command: ['x'], arch: 'sm_90', filter: null, seed: 1 };

  it('finished: results.jsonl.gz holds the header and every line, in order', async () => {
    const rec = new RunRecorder(join(dir, 'finished'), meta, [], null);
    for (let b = 0; b < 20; b++) rec.add(Array.from({ length: 500 }, (_, k) => result(b * 500 + k)));
    const w = await rec.finishAsync();
    const lines = gunzipSync(readFileSync(w.jsonl)).toString().trim().split('\n');
    expect(lines.length).toBe(10_001);
    expect(JSON.parse(lines[0]!).schema).toBe('ptx-reduction-conformance/results-stream');
    expect(lines.slice(1).map((l) => JSON.parse(l).id)).toEqual(Array.from({ length: 10_000 }, (_, k) => `v/f:case-${k}`));
  });

  it('a signal while the finished run waits on report.json or the compression: both done at once, whole', async () => {
    const rec = new RunRecorder(join(dir, 'signalled'), meta, [], null);
    for (let b = 0; b < 20; b++) rec.add(Array.from({ length: 500 }, (_, k) => result(b * 500 + k)));
    const finishing = rec.finishAsync(); // report.json and the page on their way on libuv's threads, JUnit written
    expect(rec.done).toBe(true);
    const gz = rec.completeReport(); // what the signal handler does
    expect(gz).toBe(join(dir, 'signalled', 'results.jsonl.gz'));
    expect(gunzipSync(readFileSync(gz!)).toString().trim().split('\n').length).toBe(10_001);
    expect(existsSync(join(dir, 'signalled', 'results.jsonl'))).toBe(false);
    expect((await finishing).jsonl).toBe(gz);
    expect(rec.completeReport()).toBeUndefined();
    // report.json and the page are whole and in place, no temporary file left
    expect(JSON.parse(readFileSync(join(dir, 'signalled', 'report.json'), 'utf8')).results.length).toBe(10_000);
    expect(readFileSync(join(dir, 'signalled', 'report.html'), 'utf8')).toMatch(/<\/html>\n$/);
    expect(
      readdirSync(join(dir, 'signalled'))
        .filter((f) => f.includes('.tmp'))
        .sort(),
    ).toEqual([]);
    expect(readdirSync(join(dir, 'signalled')).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'results.jsonl.gz']);
  });

  it('results added one at a time are written and compressed in pieces, not one zlib call each', async () => {
    const rec = new RunRecorder(join(dir, 'one-by-one'), meta, [], null);
    for (let k = 0; k < 20_000; k++) rec.add([result(k)]);
    const w = await rec.finishAsync();
    const gz = readFileSync(w.jsonl);
    const lines = gunzipSync(gz).toString().trim().split('\n');
    expect(lines.length).toBe(20_001);
    expect(JSON.parse(lines[20_000]!).id).toBe('v/f:case-19999');
    // gzip members (each begins 1f 8b 08): one per piece of a MB or so, not one per add
    let members = 0;
    for (let i = 0; i + 2 < gz.length; i++) if (gz[i] === 0x1f && gz[i + 1] === 0x8b && gz[i + 2] === 0x08) members++;
    expect(members).toBeLessThan(100);
  });

  it('a partial report (no waiting): the same, from the chunks compressed or not yet', () => {
    const rec = new RunRecorder(join(dir, 'partial'), meta, [], null);
    for (let b = 0; b < 20; b++) rec.add(Array.from({ length: 500 }, (_, k) => result(b * 500 + k)));
    const w = rec.finishPartial('interrupted by SIGINT after 10000 results')!;
    const lines = gunzipSync(readFileSync(w.jsonl)).toString().trim().split('\n');
    expect(lines.length).toBe(10_001);
    expect(JSON.parse(lines[10_000]!).id).toBe('v/f:case-9999');
  });
});
