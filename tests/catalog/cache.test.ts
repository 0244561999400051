/**
 * The catalog cache (harness/catalog/cache.ts) and its shared-parts JSON (harness/util/shared-json.ts):
 * what a run reads back is the catalog it would have enumerated, entry for entry and in order; a
 * file with another key or one that does not parse is not used (enumerated again, rewritten); and
 * the codec round-trips any JSON value, writing a repeated part once.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG_PTX_ISA, findTarget } from '../../harness/arch/targets.js';
import { cachedCatalog, readCachedCatalog, writeCachedCatalog } from '../../harness/catalog/cache.js';
import { enumerateCatalog, enumerateMatching } from '../../harness/catalog/enumerate.js';
import { filterOptions, selectEntriesAsync } from '../../harness/catalog/select.js';
import { gpuFamily } from '../../harness/registry/gpu.js';
import { gpuPlan } from '../../harness/backends/gpu/plan.js';
import { families } from '../../harness/registry/index.js';
import { decodeShared, encodeShared } from '../../harness/util/shared-json.js';
import { scratchFolders } from '../helpers/scratch.js';

const scratch = scratchFolders('catalog-cache-');

describe('shared-parts JSON', () => {
  it('gives back what JSON would, for values of every kind', () => {
    const cite = { section: '9.7.13.5', quote: 'The atom instruction ...' };
    const values: unknown[] = [
      null,
      'text',
      0,
      -1.5,
      true,
      [],
      {},
      [1, 'a', null, false, [2, [3]], { x: undefined, y: 1 }],
      { a: cite, b: [cite, cite], c: { d: cite }, e: undefined, f: [undefined, 2] },
      [
        { k: 1, l: 2 },
        { l: 2, k: 1 },
        { k: 1, l: 2 },
      ],
      { '': 'empty key', 'with\u0000nul': 1 },
    ];
    for (const v of values) {
      const wire = JSON.parse(JSON.stringify(encodeShared(v)));
      expect(decodeShared(wire)).toEqual(JSON.parse(JSON.stringify(v)));
    }
  });

  it('writes a repeated part once and keeps each object key order', () => {
    const cite = { section: '8.2.4', quote: 'q' };
    const many = Array.from({ length: 1000 }, (_, i) => ({ id: `e${i}`, cite: { ...cite } }));
    const p = encodeShared(many);
    // 1000 entries, one cite object, the root array: the copies of the cite are one node
    expect(p.nodes.length).toBe(1002);
    const back = decodeShared(p) as typeof many;
    expect(back[0]!.cite).toBe(back[999]!.cite);
    expect(Object.keys((decodeShared(encodeShared({ b: 1, a: 2 })) as object) ?? {})).toEqual(['b', 'a']);
  });

  it('refuses a malformed form instead of building something else', () => {
    const p = encodeShared([{ a: 1 }, { a: 2 }]);
    // a node naming a node made after it
    const bad = { ...p, nodes: p.nodes.map((n, i) => (i === 0 ? [n[0]!, p.nodes.length - 1] : n)) };
    expect(() => decodeShared(bad)).toThrow(/used before it is made/);
    expect(() => decodeShared({ ...p, atoms: [] })).toThrow(/atom/);
    expect(() => encodeShared({ x: 1n })).toThrow(/no JSON form/);
    expect(() => encodeShared([Number.NaN])).toThrow(/no JSON form/);
  });
});

describe('the catalog cache', () => {
  const target = findTarget('sm_90')!;
  const ptx = CATALOG_PTX_ISA;

  it('reads back the whole catalog, entry for entry and in order, where a second run asks', { timeout: 120_000 }, () => {
    const dir = scratch();
    let calls = 0;
    const make = () => (calls++, enumerateCatalog({ target, ptx }));
    const made = cachedCatalog(dir, { what: 'test-all', target: target.name, ptx }, make);
    expect(readdirSync(join(dir, 'catalog')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    const back = cachedCatalog(dir, { what: 'test-all', target: target.name, ptx }, make);
    expect(calls).toBe(1);
    expect(back).not.toBe(made);
    const fresh = enumerateCatalog({ target, ptx });
    expect(back.length).toBe(fresh.length);
    expect(JSON.stringify(back)).toBe(JSON.stringify(fresh));
  });

  it('keeps the catalog of the gpu backend plan: its accepted variants, run or skipped', async () => {
    const dir = scratch();
    const plan = gpuPlan(target.name, ptx, undefined, dir);
    // written once the event loop has had a turn (the plan's modules start compiling first)
    await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(join(dir, 'catalog')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    // gpuPlan keys by the gpu backend's families, in the registry's order; its entries read back
    const back = readCachedCatalog(dir, {
      what: 'gpu-plan',
      target: target.name,
      ptx,
      families: families()
        .filter((f) => gpuFamily(f.id))
        .map((f) => f.id),
    });
    expect(back).toBeDefined();
    const accepted = back!.filter((e) => e.expect === 'accept').map((e) => e.id);
    expect(new Set(accepted)).toEqual(new Set([...plan.variants.map((v) => v.entry.id), ...plan.skipped.map((s) => s.entry.id)]));
    expect(accepted.length).toBe(plan.variants.length + plan.skipped.length);
  });

  it('keys by the selection', () => {
    const dir = scratch();
    const atoms = () => enumerateMatching({ target, ptx, kinds: ['variant'], ...filterOptions('atom.global.*') });
    const a = cachedCatalog(dir, { what: 'test', filter: 'atom.global.*' }, atoms);
    expect(readCachedCatalog(dir, { what: 'test', filter: 'atom.global.*' })).toEqual(JSON.parse(JSON.stringify(a)));
    expect(readCachedCatalog(dir, { what: 'test', filter: 'red.global.*' })).toBeUndefined();
    expect(readCachedCatalog(dir, { what: 'test', filter: 'atom.global.*', ptx: '8.0' })).toBeUndefined();
  });

  it('enumerates again where the file does not read back, and rewrites it', () => {
    const dir = scratch();
    const key = { what: 'test', filter: 'red.global.add.*' };
    const make = () => enumerateMatching({ target, ptx, kinds: ['variant'], ...filterOptions('red.global.add.*') });
    cachedCatalog(dir, key, make);
    const file = join(dir, 'catalog', readdirSync(join(dir, 'catalog'))[0]!);
    const good = readFileSync(file, 'utf8');
    // cut short (a run killed while writing would leave the temporary file, but a disk can fail)
    writeFileSync(file, good.slice(0, good.length >> 1));
    expect(readCachedCatalog(dir, key)).toBeUndefined();
    let calls = 0;
    const again = cachedCatalog(dir, key, () => (calls++, make()));
    expect(calls).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(good);
    // another key written into the file (a name collision) is not taken for this one
    const o = JSON.parse(good) as { key: string };
    writeFileSync(file, JSON.stringify({ ...o, key: o.key.replace('red.global.add.*', 'red.global.min.*') }));
    expect(readCachedCatalog(dir, key)).toBeUndefined();
    expect(again.length).toBeGreaterThan(0);
  });

  it('writeLater: kept once the caller gives the event loop a turn, not before', async () => {
    const dir = scratch();
    const key = { what: 'test-later', filter: 'red.shared::cta.*' };
    const made = cachedCatalog(dir, key, () => enumerateMatching({ target, ptx, kinds: ['variant'], ...filterOptions('red.shared::cta.*') }), true);
    expect(made.length).toBeGreaterThan(0);
    expect(readCachedCatalog(dir, key)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 10));
    expect(readCachedCatalog(dir, key)).toEqual(JSON.parse(JSON.stringify(made)));
  });

  it("the CPU run's selection: the whole catalog kept after a turn and read back equal; a filtered one never cached", async () => {
    const dir = scratch();
    const opts = { kinds: ['variant', 'neighbour', 'isa-neighbour', 'spelling'] as const };
    const first = await selectEntriesAsync({ kinds: [...opts.kinds] }, target, ptx, dir);
    await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(join(dir, 'catalog'))).toHaveLength(1);
    const again = await selectEntriesAsync({ kinds: [...opts.kinds] }, target, ptx, dir);
    expect(again).not.toBe(first);
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    // another selection of kinds is another key
    expect((await selectEntriesAsync({ kinds: ['variant'] }, target, ptx, dir)).every((e) => e.kind === 'variant')).toBe(true);
    const other = scratch();
    await selectEntriesAsync({ kinds: ['variant'], filter: 'atom.global.*' }, target, ptx, other);
    await new Promise((r) => setTimeout(r, 10));
    expect(() => readdirSync(join(other, 'catalog'))).toThrow();
  }, 60_000);

  it('costs only the enumeration where the directory cannot be written', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'catalog'), 'a file where the folder would be');
    const make = () => enumerateMatching({ target, ptx, kinds: ['variant'], ...filterOptions('atom.shared::cta.*') });
    const a = cachedCatalog(dir, { what: 'test' }, make);
    expect(a.length).toBeGreaterThan(0);
    writeCachedCatalog(dir, { what: 'test' }, a);
    expect(readCachedCatalog(dir, { what: 'test' })).toBeUndefined();
  });
});
