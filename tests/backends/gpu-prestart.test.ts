/**
 * The default gpu run's workers start with the run (backends/gpu/prestart.ts): only for a run that
 * can be the default gpu run, on a machine with the NVIDIA device node, and a pool that was started
 * is closed again (its workers exit) where the run does not take it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { prestartGpuWorkers } from '../../harness/backends/gpu/prestart.js';
import type { WorkerPool } from '../../harness/backends/gpu/pool.js';
import { fromRoot } from '../../harness/util/paths.js';

const base = { backend: 'auto', vectors: [] as string[], deviceNode: fromRoot('package.json') };
const started: WorkerPool[] = [];
afterAll(() => {
  for (const p of started) p.close();
});

describe('prestartGpuWorkers', () => {
  it.each([
    ['--backend ptxas', { backend: 'ptxas' }],
    ['--backend reference', { backend: 'reference' }],
    ['--vectors', { vectors: ['cases/hardware'] }],
    ['--case', { case: 'atom.global.add.f32/x' }],
    ['--filter', { filter: 'atom.' }],
    ['--shard', { shard: { index: 0, count: 2 } }],
    ['no NVIDIA device node', { deviceNode: '/nonexistent/nvidiactl' }],
  ])('starts nothing for %s', async (_, o) => {
    expect(await prestartGpuWorkers({ ...base, ...o })).toBeUndefined();
  });

  it('starts --workers N workers for a default run, which exit when it is closed', { timeout: 60_000 }, async () => {
    const pool = (await prestartGpuWorkers({ ...base, backend: 'gpu', workers: 2 }))!;
    expect(pool).toBeDefined();
    started.push(pool);
    expect(pool.size).toBe(2);
    const children = (pool as unknown as { slots: { child: import('node:child_process').ChildProcess; ready: Promise<void> }[] }).slots;
    await Promise.all(children.map((s) => s.ready));
    const exited = children.map(
      (s) => new Promise<number | null>((res) => (s.child.exitCode !== null ? res(s.child.exitCode) : s.child.once('exit', (c) => res(c)))),
    );
    pool.close();
    pool.close(); // a second close does nothing
    expect(await Promise.all(exited)).toEqual([0, 0]);
  });
});
