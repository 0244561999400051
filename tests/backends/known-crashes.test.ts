/**
 * A ptxas crash an expectations file names is not re-provoked entry by entry (issue 43, deliverable 4):
 * the ptxas backend asks ptxas on three of the entries it covers (the first, the middle, the last) and,
 * where each crashed, answers the others from them, saying so; where one did not crash (a ptxas that no
 * longer does), the group is asked entry by entry. Against a stand-in ptxas that counts its calls.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { heldByKnownCrashes, runPtxasBackend } from '../../harness/backends/ptxas/backend.js';
import type { Ptxas } from '../../harness/backends/ptxas/toolchain.js';
import { findTarget } from '../../harness/arch/targets.js';
import type { CatalogEntry } from '../../harness/catalog/enumerate.js';
import { stubEntry } from '../helpers/stub-entry.js';
import { compileFilter } from '../../harness/util/filter.js';

const FAKE = join(import.meta.dirname, '..', 'fixtures', 'fake-ptxas.sh');
const tmp = mkdtempSync(join(tmpdir(), 'ptxconf-crash-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const entry = (id: string, word: string): CatalogEntry => stubEntry(id, `${word}.${id}`);

function countingPtxas(dir: string): { ptxas: Ptxas; calls: () => number } {
  const path = join(dir, 'ptxas');
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  writeFileSync(path, `#!/usr/bin/env bash\ncase "$1" in --version|--help) ;; *) echo call >> ${log} ;; esac\nexec ${FAKE} "$@"\n`);
  chmodSync(path, 0o755);
  return {
    ptxas: { path, foundVia: '--ptxas', release: '99.0', versionLine: 'Cuda compilation tools, release 99.0, V99.0.0', maxPtx: '9.0', targets: ['sm_90'] },
    calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length,
  };
}

const target = findTarget('sm_90')!;
// 20 entries the crash covers (ids crash.k), among 10 that compile
const CRASHING = Array.from({ length: 20 }, (_, k) => entry(`crash.${k}`, 'CRASH_HERE'));
const OK = Array.from({ length: 10 }, (_, k) => entry(`ok.${k}`, 'OK_LINE'));
const KNOWN = [{ id: 'fake-crash', covers: compileFilter('crash.*') }];

describe('a crash the expectations name', () => {
  it('is asked on three entries; the other 17 are answered from them (crashed, error), with the message saying so; far fewer ptxas calls', async () => {
    const a = countingPtxas(mkdtempSync(join(tmp, 'a-')));
    const known = await runPtxasBackend([...OK, ...CRASHING], target, a.ptxas, undefined, undefined, { knownCrashes: KNOWN });
    const b = countingPtxas(mkdtempSync(join(tmp, 'b-')));
    const plain = await runPtxasBackend([...OK, ...CRASHING], target, b.ptxas);
    // the same verdicts and crash signals, entry by entry
    expect(known.results.map((r) => `${r.id} ${r.verdict} ${r.ptxas?.crashed}`)).toEqual(plain.results.map((r) => `${r.id} ${r.verdict} ${r.ptxas?.crashed}`));
    expect(known.results.filter((r) => r.ptxas?.crashed === 'SIGSEGV').length).toBe(20);
    const inferred = known.results.filter((r) => /expectation fake-crash names a ptxas crash/.test(r.ptxas?.messages.join(' ') ?? ''));
    expect(inferred.map((r) => r.id)).toEqual(CRASHING.filter((_, k) => ![0, 10, 19].includes(k)).map((e) => e.id));
    expect(known.stats.crashesFromExpectations).toBe(17);
    expect(a.calls()).toBeLessThan(b.calls());
    expect(b.calls() - a.calls()).toBeGreaterThanOrEqual(15);
  });
  it('with the verdict cache: a second run asks ptxas nothing, the answers from the representatives kept with their message', async () => {
    const a = countingPtxas(mkdtempSync(join(tmp, 'd-')));
    const cacheDir = join(tmp, 'd-cache');
    const first = await runPtxasBackend([...OK, ...CRASHING], target, a.ptxas, undefined, undefined, { knownCrashes: KNOWN, cacheDir });
    const n = a.calls();
    const second = await runPtxasBackend([...OK, ...CRASHING], target, a.ptxas, undefined, undefined, { knownCrashes: KNOWN, cacheDir });
    expect(a.calls()).toBe(n);
    expect(second.results.map((r) => [r.id, r.verdict, r.ptxas?.messages])).toEqual(first.results.map((r) => [r.id, r.verdict, r.ptxas?.messages]));
  });
  it('a ptxas that no longer crashes on a representative: the whole group is asked entry by entry', async () => {
    const fixed = CRASHING.map((e, k) => (k === 10 ? entry(e.id, 'OK_LINE') : e));
    const a = countingPtxas(mkdtempSync(join(tmp, 'c-')));
    const r = await runPtxasBackend([...OK, ...fixed], target, a.ptxas, undefined, undefined, { knownCrashes: KNOWN });
    expect(r.results.find((x) => x.id === 'crash.10')?.verdict).toBe('pass');
    expect(r.results.filter((x) => x.ptxas?.crashed).length).toBe(19);
    expect(r.results.some((x) => /names a ptxas crash/.test(x.ptxas?.messages.join(' ') ?? ''))).toBe(false);
    expect(r.stats.crashesFromExpectations).toBeUndefined();
  });
  it('the representatives: first, middle, last of what a crash covers; three or fewer: none held; an entry goes with the first crash that covers it', () => {
    const ids = ['x.0', 'c.1', 'c.2', 'x.3', 'c.4', 'c.5', 'c.6'];
    const g = heldByKnownCrashes([0, 1, 2, 3, 4, 5, 6], (k) => ids[k]!, [
      { id: 'a', covers: compileFilter('c.*') },
      { id: 'b', covers: compileFilter('c.5,x.*') },
    ]);
    expect(g.map((x) => [x.crash.id, x.representatives, x.others])).toEqual([['a', [1, 4, 6], [2, 5]]]);
  });
});
