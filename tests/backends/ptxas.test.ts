/**
 * The ptxas backend with the real ptxas (skipped, with the reason printed, where there is none):
 * the toolchain probe, the valid spec examples compiled through the module emitter, the verdict
 * logic on a slice of the catalog, and skips for what the toolchain cannot express.
 */
import { describe, expect, it } from 'vitest';
import { TARGETS, comparePtx, findTarget, modulePtxFor } from '../../harness/arch/targets.js';
import { runPtxasBackend } from '../../harness/backends/ptxas/backend.js';
import { classifyWithPtxas } from '../../harness/backends/ptxas/classify.js';
import { type CatalogEntry, enumerateCatalog, enumerateMatching } from '../../harness/catalog/enumerate.js';
import { parseInstruction } from '../../harness/catalog/parse.js';
import { families } from '../../harness/registry/index.js';
import { ptxasOrReason } from '../helpers/ptxas.js';
import { specExamples, specRoot } from '../helpers/spec.js';

const found = await ptxasOrReason();
const ptxas = typeof found === 'string' ? undefined : found;

describe.skipIf(!ptxas)('ptxas backend with the real ptxas', () => {
  const p = ptxas!;
  it('reads the release, the highest PTX ISA and the known targets from ptxas', () => {
    expect(p.release).toMatch(/^\d+\.\d+$/);
    expect(p.maxPtx).toMatch(/^\d+\.\d+$/);
    expect(p.targets).toContain('sm_90');
  });

  it.skipIf(!specRoot('ptxas on the PTX ISA examples'))(
    'accepts every valid spec example, written by the module emitter, for a target that supports it',
    async () => {
      const byTarget = new Map<string, CatalogEntry[]>();
      const catalogs = new Map<string, CatalogEntry[]>();
      const lines = [...new Set(families().map((f) => f.specFile))].flatMap((f) => specExamples(f)).filter((l) => !l.startsWith('createpolicy'));
      let checked = 0;
      for (const line of lines) {
        let parsed;
        try {
          parsed = parseInstruction(line);
        } catch {
          continue; // errata with unknown qualifiers: spec-examples.test.ts covers them
        }
        if (parsed.violations.length) continue;
        for (const t of ['sm_90', 'sm_100a']) {
          const target = findTarget(t)!;
          const ptx = modulePtxFor(target, p.maxPtx);
          if (!ptx) continue;
          let cat = catalogs.get(t);
          if (!cat) catalogs.set(t, (cat = enumerateCatalog({ target, ptx, neighbours: false, isaNeighbours: false })));
          const e = cat.find((x) => x.id === parsed.id);
          if (e && e.expect === 'accept' && comparePtx(e.minPtx, p.maxPtx) <= 0) {
            byTarget.set(t, [...(byTarget.get(t) ?? []), e]);
            checked++;
            break;
          }
        }
      }
      expect(checked).toBeGreaterThan(40);
      for (const [t, entries] of byTarget) {
        const { results } = await classifyWithPtxas(entries, { ptxasPath: p.path, target: t, ptx: modulePtxFor(findTarget(t)!, p.maxPtx)! });
        results.forEach((r, i) => expect(r, `${entries[i]!.id} on ${t}: ${r.messages.join(' | ')}`).toMatchObject({ accepted: true }));
      }
    },
  );

  it('turns answers into verdicts: pass when ptxas agrees, compile-mismatch otherwise, observed for ambiguous rows', async () => {
    const target = findTarget('sm_90')!;
    const all = enumerateCatalog({ target, ptx: p.maxPtx, families: families().filter((f) => f.id === 'red') });
    const entries = all.filter((e) => e.id.startsWith('red.global.') && !e.q.sem && !e.q.scope);
    const run = await runPtxasBackend(entries, target, p);
    expect(run.results).toHaveLength(entries.length);
    run.results.forEach((r, i) => {
      const e = entries[i]!;
      expect(r.id).toBe(e.id);
      if (r.verdict === 'skipped' || r.verdict === 'error') return;
      const accepted = r.ptxas!.accepted;
      if (e.expect === 'either') expect(r.verdict).toBe('observed');
      else expect(r.verdict).toBe((e.expect === 'accept') === accepted ? 'pass' : 'compile-mismatch');
      if (r.verdict === 'compile-mismatch') expect(r.catalog.detail!.length).toBeGreaterThan(0);
    });
    const cas = run.results.find((r) => r.id === 'red.global.cas.b32');
    expect(cas?.ptxas?.accepted).toBe(false);
    expect(cas?.ptxas?.messages.join(' ')).toMatch(/cas/);
    expect(run.stats.ptxasCalls).toBeLessThan(entries.length / 10);
  });

  it.skipIf(comparePtx(p.maxPtx, '9.1') >= 0)('skips entries newer than the toolchain, with the reason (multimem.cp.reduce.async.bulk needs 9.1)', async () => {
    const target = findTarget('sm_90')!;
    const entries = enumerateCatalog({
      target,
      ptx: p.maxPtx,
      families: families().filter((f) => f.id === 'multimem.cp.reduce.async.bulk'),
      neighbours: false,
      isaNeighbours: false,
    });
    expect(entries.length).toBeGreaterThan(20);
    const run = await runPtxasBackend(entries, target, p);
    expect(run.stats.ptxasCalls).toBe(0);
    for (const r of run.results) {
      expect(r.verdict).toBe('skipped');
      // 9.1 for the family; 9.4 for the .noftz.f32 variant that 9.4's text adds
      const need = r.id.includes('noftz.f32') ? '9\\.4' : r.id.includes('.relaxed.') ? '9\\.3' : '9\\.1';
      expect(r.reason).toMatch(new RegExp(`needs PTX ISA ${need}; ptxas ${p.release.replace('.', '\\.')} supports up to ${p.maxPtx.replace('.', '\\.')}`));
    }
    expect(run.results.some((r) => r.id.includes('noftz.f32'))).toBe(true);
  });

  it('skips every entry of a target ptxas does not know, naming the rename', async () => {
    const target = TARGETS.find((t) => t.name === 'sm_101a')!;
    if (p.targets.includes('sm_101a')) return;
    const entries = enumerateCatalog({ target, ptx: '8.8', families: families().filter((f) => f.id === 'red'), neighbours: false, isaNeighbours: false }).slice(
      0,
      5,
    );
    const run = await runPtxasBackend(entries, target, p);
    for (const r of run.results) {
      expect(r.verdict).toBe('skipped');
      expect(r.reason).toMatch(/does not know sm_101a \(renamed to sm_110a in PTX ISA 9\.0\)/);
    }
  });

  it('pins an isa-neighbour to the older PTX ISA and sees it rejected', async () => {
    const target = findTarget('sm_90')!;
    const e = enumerateCatalog({ target, ptx: p.maxPtx, families: families().filter((f) => f.id === 'atom') }).find(
      (x) => x.id === 'atom.global.cas.b128@ptx8.2',
    )!;
    expect(e.expect).toBe('reject');
    const run = await runPtxasBackend([e], target, p);
    expect(run.results[0]).toMatchObject({ verdict: 'pass', modulePtx: '8.2' });
    expect(run.results[0]!.ptxas!.messages.join(' ')).toMatch(/8\.3/);
  });
});

if (!ptxas) it.skip(`ptxas backend tests: ${found as string}`, () => {});

describe.skipIf(!ptxas)('spelling neighbours: qualifiers in another order, or one written twice', () => {
  it('ambiguous in the catalog (expect either); ptxas 13.0 takes atom/red in any order, rejects a repeat, and rejects bulk reversed (its two state spaces change places); each recorded as observed', async () => {
    const target = findTarget('sm_90')!;
    const entries = enumerateMatching({
      target,
      ptx: ptxas!.maxPtx,
      kinds: ['spelling'],
      keep: (id) => /^(atom\.global\.cas\.b16|red\.and\.L2::cache_hint\.b32|cp\.reduce\.async\.bulk\.shared::cluster\.[^~]*)~/.test(id),
    });
    expect(entries.map((e) => e.id.split('~')[1]).sort()).toEqual([
      'repeated',
      'repeated',
      'repeated',
      'reversed',
      'reversed',
      'reversed',
      'type-first',
      'type-first',
      'type-first',
    ]);
    for (const e of entries) {
      expect([e.kind, e.status, e.expect]).toEqual(['spelling', 'ambiguous', 'either']);
      const base = e.id.split('~')[0]!;
      const qs = (x: string) => x.split('.').sort().join('.');
      if (!e.id.endsWith('~repeated')) expect(qs(e.ptx)).toBe(qs(base));
    }
    const run = await runPtxasBackend(entries, target, ptxas!);
    expect(run.results.every((r) => r.verdict === 'observed')).toBe(true);
    const by = (re: RegExp) => run.results.filter((r) => re.test(r.id)).map((r) => r.ptxas!.accepted);
    expect(by(/^atom\..*~(reversed|type-first)$/)).toEqual([true, true]);
    expect(by(/^red\..*~(reversed|type-first)$/)).toEqual([true, true]);
    expect(by(/~repeated$/)).toEqual([false, false, false]);
    expect(by(/^cp\.reduce\.async\.bulk\..*~reversed$/)).toEqual([false]);
    expect(by(/^cp\.reduce\.async\.bulk\..*~type-first$/)).toEqual([true]);
  }, 60_000);
});
