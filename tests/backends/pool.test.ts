/**
 * The gpu worker pool (harness/backends/gpu/pool.ts) against stand-in workers (a few lines of node):
 * each worker has up to two requests at a time while more are queued than there are workers, answered
 * in order; a worker that dies fails only the request it was running, and the one waiting behind it
 * goes to another worker. A preamble (the library's samples) reaches every worker before its first
 * request, a replacement's too.
 */
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../harness/backends/gpu/pool.js';

// answers {type:'jobs', jobs:[n]} with done/outs [n, pid] after n ms; n < 0: exits with 7 after -n ms; logs what it was sent
const WORKER = `
process.send({ type: 'ready' });
const queue = [];
const got = [];
let running = false;
process.on('message', (m) => {
  if (m.type === 'exit') process.exit(0);
  if (m.type === 'samples') { got.push(m.entries); return; }
  queue.push(m);
  if (!running) next();
});
function next() {
  const m = queue.shift();
  if (!m) { running = false; return; }
  running = true;
  const n = m.jobs[0];
  if (n < 0) setTimeout(() => process.exit(7), -n);
  else setTimeout(() => { process.send({ type: 'done', outs: [n, process.pid, queue.length, got.join('|')] }); next(); }, n);
}
`;

const outs = (o: Awaited<ReturnType<WorkerPool['run']>>) => ('outs' in o ? (o.outs as unknown as number[]) : o.failed);

describe('the gpu worker pool', () => {
  it('keeps a second request waiting in each worker while it runs one', async () => {
    const pool = new WorkerPool([process.execPath, '-e', WORKER], 2, 10_000);
    const rs = await Promise.all(Array.from({ length: 8 }, () => pool.run([60] as never)));
    pool.close();
    const pids = new Set(rs.map((r) => (outs(r) as number[])[1]));
    expect(pids.size).toBe(2);
    expect(rs.every((r) => (outs(r) as number[])[0] === 60)).toBe(true);
    // with two in flight per worker, a worker finishing a request had the next one already waiting in its channel
    expect(rs.some((r) => (outs(r) as number[])[2] === 1)).toBe(true);
  });

  it('a preamble reaches each worker before any request sent after it, and a replacement worker before its first', async () => {
    const pool = new WorkerPool([process.execPath, '-e', WORKER], 2, 10_000);
    pool.preamble({ type: 'samples', entries: 'p1' } as never);
    const rs = await Promise.all(Array.from({ length: 4 }, () => pool.run([30] as never)));
    expect(new Set(rs.map((r) => (outs(r) as unknown[])[3]))).toEqual(new Set(['p1']));
    pool.preamble({ type: 'samples', entries: 'p2' } as never);
    // one worker dies; its replacement gets both preambles before its request
    const died = await pool.run([-5] as never);
    expect(outs(died)).toMatch(/worker exited with 7/);
    const after = await Promise.all(Array.from({ length: 4 }, () => pool.run([20] as never)));
    pool.close();
    expect(new Set(after.map((r) => (outs(r) as unknown[])[3]))).toEqual(new Set(['p1|p2']));
    expect(pool.started).toBe(3);
  });

  it('a worker that dies fails the request it ran; the one behind it runs on a replacement', async () => {
    const pool = new WorkerPool([process.execPath, '-e', WORKER], 1, 10_000);
    // three at once for one worker: two sent (more queued than workers), the third queued
    const [dying, behind, last] = [pool.run([-80] as never), pool.run([5] as never), pool.run([6] as never)];
    const d = await dying;
    const b = await behind;
    const l = await last;
    pool.close();
    expect(outs(d)).toMatch(/worker exited with 7/);
    expect(outs(b)).toEqual([5, expect.any(Number), expect.any(Number), '']);
    expect(outs(l)).toEqual([6, (outs(b) as number[])[1], 0, '']);
    expect(pool.started).toBe(2);
  });

  it('a request past the time limit kills its worker; the limit of the one behind starts when it does', async () => {
    const pool = new WorkerPool([process.execPath, '-e', WORKER], 1, 300);
    const first = pool.run([200] as never); // within the limit
    const second = pool.run([200] as never); // 400 ms after it was sent, 200 ms after it began: within its own
    const third = pool.run([2000] as never); // past it
    expect(outs(await first)[0]).toBe(200);
    expect(outs(await second)[0]).toBe(200);
    expect(outs(await third)).toMatch(/killed by SIGKILL/);
    pool.close();
  });
});
