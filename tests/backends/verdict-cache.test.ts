/**
 * The ptxas verdict cache (harness/backends/ptxas/verdict-cache.ts), against a stand-in ptxas that
 * counts its calls: a second run asks ptxas nothing it already answered, crashes included; another
 * ptxas binary (another hash) finds nothing; a corrupt line is ignored, asked again and rewritten.
 */
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPtxasBackend } from '../../harness/backends/ptxas/backend.js';
import type { Ptxas } from '../../harness/backends/ptxas/toolchain.js';
import { VerdictCache, ptxasBinaryHash } from '../../harness/backends/ptxas/verdict-cache.js';
import { findTarget } from '../../harness/arch/targets.js';
import type { CatalogEntry } from '../../harness/catalog/enumerate.js';
import { stubEntry } from '../helpers/stub-entry.js';

const FAKE = join(import.meta.dirname, '..', 'fixtures', 'fake-ptxas.sh');
const tmp = mkdtempSync(join(tmpdir(), 'ptxconf-vcache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Kind = 'ok' | 'reject' | 'warn' | 'crash';
const WORD: Record<Kind, string> = { ok: 'OK_LINE', reject: 'REJECT_ME', warn: 'WARN_ME', crash: 'CRASH_HERE' };
const entry = (i: number, k: Kind): CatalogEntry => stubEntry(`e${i}.${k}`, `${WORD[k]}.${i}`);
const KINDS: Kind[] = ['ok', 'reject', 'crash', 'ok', 'crash', 'warn', 'ok', 'crash', 'reject', 'ok'];
const ENTRIES = KINDS.map((k, i) => entry(i, k));

/** A ptxas that logs each compile (not --version/--help) to `log`, then runs the stand-in. */
function countingPtxas(dir: string, extra = ''): { ptxas: Ptxas; calls: () => number } {
  const path = join(dir, 'ptxas');
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  writeFileSync(path, `#!/usr/bin/env bash\n# stand-in ${extra}\ncase "$1" in --version|--help) ;; *) echo call >> ${log} ;; esac\nexec ${FAKE} "$@"\n`);
  chmodSync(path, 0o755);
  const ptxas: Ptxas = {
    path,
    foundVia: '--ptxas',
    release: '99.0',
    versionLine: 'Cuda compilation tools, release 99.0, V99.0.0',
    maxPtx: '9.0',
    targets: ['sm_90'],
  };
  return { ptxas, calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length };
}

const target = findTarget('sm_90')!;
const answers = (r: Awaited<ReturnType<typeof runPtxasBackend>>) => r.results.map((x) => ({ id: x.id, verdict: x.verdict, ptxas: x.ptxas }));

describe('the ptxas verdict cache', () => {
  it('a second run calls ptxas 0 times and gives the same answers, crashes included', async () => {
    const dir = mkdtempSync(join(tmp, 'a-'));
    const cacheDir = join(dir, 'cache');
    const { ptxas, calls } = countingPtxas(dir);
    const first = await runPtxasBackend(ENTRIES, target, ptxas, undefined, undefined, { cacheDir });
    const firstCalls = calls();
    expect(firstCalls).toBeGreaterThan(3); // the preflight, scans (one per crash) and a confirm
    expect(first.stats).toMatchObject({ cachedVerdicts: 0, crashes: 3 });
    expect(first.results.filter((r) => r.ptxas?.crashed === 'SIGSEGV')).toHaveLength(3);
    const seen: string[] = [];
    const second = await runPtxasBackend(ENTRIES, target, ptxas, undefined, (r) => seen.push(r.id), { cacheDir });
    expect(calls() - firstCalls).toBe(0);
    expect(second.stats).toMatchObject({ cachedVerdicts: ENTRIES.length, ptxasCalls: 0, crashes: 3 });
    expect(answers(second)).toEqual(answers(first));
    expect(seen.sort()).toEqual(ENTRIES.map((e) => e.id).sort());
    // an entry the cache has not seen is asked, alone; the others are not
    const more = [...ENTRIES, entry(99, 'reject')];
    const third = await runPtxasBackend(more, target, ptxas, undefined, undefined, { cacheDir });
    expect(third.stats).toMatchObject({ cachedVerdicts: ENTRIES.length, ptxasCalls: 1 }); // one scan: a rejection needs no confirm
    expect(third.results.at(-1)!.ptxas).toMatchObject({ accepted: false });
    // without a cache folder nothing is cached
    const before = calls();
    const plain = await runPtxasBackend(ENTRIES, target, ptxas);
    expect(plain.stats.cachedVerdicts).toBeUndefined();
    expect(calls() - before).toBe(firstCalls);
  });

  it('a changed ptxas binary (another hash) finds nothing', async () => {
    const dir = mkdtempSync(join(tmp, 'b-'));
    const cacheDir = join(dir, 'cache');
    const { ptxas, calls } = countingPtxas(dir);
    await runPtxasBackend(ENTRIES, target, ptxas, undefined, undefined, { cacheDir });
    const n = calls();
    const h1 = ptxasBinaryHash(ptxas.path);
    appendFileSync(ptxas.path, '# another build\n');
    expect(ptxasBinaryHash(ptxas.path)).not.toBe(h1);
    const again = await runPtxasBackend(ENTRIES, target, ptxas, undefined, undefined, { cacheDir });
    expect(again.stats.cachedVerdicts).toBe(0);
    expect(calls() - n).toBe(n);
    expect(readdirSync(join(cacheDir, 'ptxas-verdicts'))).toHaveLength(2);
  });

  it('a wrapper script is hashed with the program it runs', () => {
    const dir = mkdtempSync(join(tmp, 'w-'));
    const real = join(dir, 'real-ptxas');
    writeFileSync(real, 'build 1');
    chmodSync(real, 0o755);
    const wrapper = join(dir, 'ptxas');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${real} "$@"\n`);
    const h1 = ptxasBinaryHash(wrapper);
    writeFileSync(real, 'build 2 (another size)');
    const h2 = ptxasBinaryHash(wrapper);
    expect(h2).not.toBe(h1);
    // a file the script writes (a log) is not the program: it changes nothing
    appendFileSync(wrapper, `echo call >> ${join(dir, 'log')}\n`);
    const h3 = ptxasBinaryHash(wrapper);
    writeFileSync(join(dir, 'log'), 'call\ncall\n');
    expect(ptxasBinaryHash(wrapper)).toBe(h3);
  });

  it('with a cache folder the hash is kept per build of the files (their size, times and inode): read back, not hashed again; another build hashed anew', async () => {
    const { createHash } = await import('node:crypto');
    const { spawnSync } = await import('node:child_process');
    const dir = mkdtempSync(join(tmp, 'k-'));
    const cacheDir = join(dir, 'cache');
    const bin = join(dir, 'ptxas-k');
    writeFileSync(bin, 'build 1');
    const real = (text: string) => createHash('sha256').update(`\0${bin}\0`).update(text).digest('hex');
    // another process (no memo of its own in memory)
    const module = join(import.meta.dirname, '..', '..', 'harness', 'backends', 'ptxas', 'verdict-cache.ts');
    const inChild = () =>
      spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '-e',
          `import(${JSON.stringify(module)}).then((m) => console.log(m.ptxasBinaryHash(${JSON.stringify(bin)}, ${JSON.stringify(cacheDir)})))`,
        ],
        {
          encoding: 'utf8',
        },
      ).stdout.trim();
    expect(ptxasBinaryHash(bin, cacheDir)).toBe(real('build 1'));
    const [kept] = readdirSync(join(cacheDir, 'ptxas-hash'));
    const keptFile = join(cacheDir, 'ptxas-hash', kept!);
    expect(readFileSync(keptFile, 'utf8')).toBe(real('build 1'));
    // a planted hash is what another process gets: it reads the kept one, it does not hash again
    writeFileSync(keptFile, 'a'.repeat(64));
    expect(inChild()).toBe('a'.repeat(64));
    // a kept file that is no hash: hashed again and kept right
    writeFileSync(keptFile, 'not a hash');
    expect(inChild()).toBe(real('build 1'));
    expect(readFileSync(keptFile, 'utf8')).toBe(real('build 1'));
    // another build (another size): hashed anew and kept beside
    writeFileSync(bin, 'build 2, longer');
    expect(inChild()).toBe(real('build 2, longer'));
    expect(readdirSync(join(cacheDir, 'ptxas-hash'))).toHaveLength(2);
  }, 60_000);

  it('a corrupt line is ignored, its entry asked again, and the file rewritten without it', async () => {
    const dir = mkdtempSync(join(tmp, 'c-'));
    const cacheDir = join(dir, 'cache');
    const { ptxas, calls } = countingPtxas(dir);
    await runPtxasBackend(ENTRIES, target, ptxas, undefined, undefined, { cacheDir });
    const [name] = readdirSync(join(cacheDir, 'ptxas-verdicts'));
    const file = join(cacheDir, 'ptxas-verdicts', name!);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    // one answer flipped without its checksum (accepted -> rejected), one line cut short, one of garbage
    const flipped = lines.findIndex((l) => l.includes('"accepted":true'));
    const cut = lines.findIndex((l, i) => i !== flipped && l.includes('CRASH_HERE'));
    const bad = lines.map((l, i) => (i === flipped ? l.replace('"accepted":true', '"accepted":false') : i === cut ? l.slice(0, 40) : l));
    writeFileSync(file, `${bad.join('\n')}\nnot json at all\n`);
    const c = new VerdictCache(cacheDir, ptxasBinaryHash(ptxas.path), 'sm_90');
    expect(c.stats).toMatchObject({ corrupt: 3, loaded: lines.length - 2 });
    const n = calls();
    const again = await runPtxasBackend(ENTRIES, target, ptxas, undefined, undefined, { cacheDir });
    expect(again.stats.cachedVerdicts).toBe(ENTRIES.length - 2);
    expect(calls() - n).toBeGreaterThan(0);
    expect(answers(again).map((a) => a.verdict)).toEqual(
      ENTRIES.map((_, i) => (KINDS[i] === 'crash' ? 'error' : KINDS[i] === 'reject' ? 'compile-mismatch' : KINDS[i] === 'warn' ? 'observed' : 'pass')),
    );
    const d = new VerdictCache(cacheDir, ptxasBinaryHash(ptxas.path), 'sm_90');
    expect(d.stats).toMatchObject({ corrupt: 0, loaded: lines.length });
    const m = calls();
    await runPtxasBackend(ENTRIES, target, ptxas, undefined, undefined, { cacheDir });
    expect(calls()).toBe(m);
  });

  it('keeps no timeout or kill, only ptxas answers and its own crashes', () => {
    const dir = mkdtempSync(join(tmp, 'd-'));
    const c = new VerdictCache(dir, 'h', 'sm_90');
    c.put('t', { accepted: false, crashed: 'timeout', messages: [], line: 'x' });
    c.put('k', { accepted: false, crashed: 'SIGKILL', messages: [], line: 'x' });
    c.put('s', { accepted: false, crashed: 'SIGSEGV', messages: [], line: 'x' });
    c.flush();
    const d = new VerdictCache(dir, 'h', 'sm_90');
    expect([d.get('t'), d.get('k'), d.get('s')?.constructor]).toEqual([undefined, undefined, Object]);
  });
});
