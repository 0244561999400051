import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLitmus, type LitmusTest } from '../../harness/memory-model/index.js';

export const FIXTURES = join(import.meta.dirname, 'fixtures');

export function fixture(name: string): LitmusTest {
  const { test, problems } = parseLitmus(readFileSync(join(FIXTURES, name), 'utf8'), name);
  if (!test) throw new Error(problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`).join('\n'));
  return test;
}

/**
 * Generic write to shared memory, then (optionally) fence.proxy.async, then a bulk async operation
 * whose async-proxy read of the same location is checked (9.7.10.28 async proxy; 8.6; 8.9.1.1).
 * exists: the async read returns the stale 0.
 */
export function asyncProxyTest(withFence: boolean): LitmusTest {
  return {
    name: `generic-write-then-async-read${withFence ? '+fence.proxy.async' : ''}`,
    threads: [
      {
        id: 0,
        cta: 0,
        gpu: 0,
        code: [
          { kind: 'write', loc: 's', value: { k: 'const', v: 1n }, sem: 'weak', scope: 'sys', proxy: 'generic' },
          ...(withFence ? [{ kind: 'proxyFence' as const, proxy: 'async' as const }] : []),
          { kind: 'async', accesses: [{ kind: 'read', dst: 'r0', loc: 's', sem: 'weak', scope: 'sys', proxy: 'async' }], completion: { kind: 'bulk_group' } },
          { kind: 'bulkCommit' },
          { kind: 'bulkWait', n: 0 },
        ],
      },
    ],
    locations: { s: { name: 's', space: 'shared', ownerCta: 0, init: 0n } },
    regInit: { 0: { r0: 0n } },
    quantifier: 'exists',
    cond: { k: 'cmp', op: '==', a: { k: 'reg', thread: 0, reg: 'r0' }, b: { k: 'const', v: 0n } },
  };
}
