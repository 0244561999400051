/**
 * Enumeration: deterministic, duplicate-free, consistent with the evaluator and the parser, and
 * stable in size (the counts below change only when a rule changes; update them in the same commit
 * and say why).
 */
import { withEdition } from '../../harness/catalog/editions.js';
import { describe, expect, it } from 'vitest';
import { findTarget } from '../../harness/arch/targets.js';
import { type CatalogEntry, enumerateMatching, enumerateCatalog } from '../../harness/catalog/enumerate.js';
import { evaluate } from '../../harness/catalog/evaluate.js';
import { parseInstruction } from '../../harness/catalog/parse.js';
import { familyById } from '../../harness/registry/index.js';

const COUNTS: Record<string, Record<string, Record<string, number>>> = {
  sm_90: {
    atom: { 'variant:accept': 12975, 'variant:either': 6675, 'neighbour:reject': 4395, 'isa-neighbour:reject': 3560, 'spelling:either': 27 },
    red: { 'variant:accept': 4545, 'variant:either': 735, 'neighbour:reject': 4634, 'isa-neighbour:reject': 1920, 'spelling:either': 15 },
    'multimem.ld_reduce': {
      'variant:accept': 1380,
      'variant:either': 1596,
      'variant:reject': 3072,
      'neighbour:reject': 2553,
      'isa-neighbour:reject': 1620,
      'spelling:either': 6,
    },
    'multimem.st': {
      'variant:accept': 440,
      'variant:either': 264,
      'variant:reject': 512,
      'neighbour:reject': 282,
      'isa-neighbour:reject': 440,
      'spelling:either': 3,
    },
    'multimem.red': { 'variant:accept': 990, 'variant:either': 720, 'neighbour:reject': 919, 'isa-neighbour:reject': 990, 'spelling:either': 6 },
    'cp.reduce.async.bulk': { 'variant:accept': 66, 'neighbour:reject': 1614, 'isa-neighbour:reject': 66, 'spelling:either': 9 },
    'multimem.cp.reduce.async.bulk': { 'variant:accept': 27, 'neighbour:reject': 633, 'isa-neighbour:reject': 27, 'spelling:either': 6 },
    'cp.reduce.async.bulk.tensor': {
      'variant:accept': 676,
      'variant:either': 104,
      'neighbour:reject': 2156,
      'isa-neighbour:reject': 208,
      'spelling:either': 3,
    },
    'red.async': {
      'variant:accept': 24,
      'variant:either': 24,
      'variant:reject': 32,
      'neighbour:reject': 1046,
      'isa-neighbour:reject': 24,
      'spelling:either': 3,
    },
  },
  sm_100a: {
    atom: { 'variant:accept': 12975, 'variant:either': 6675, 'neighbour:reject': 4395, 'spelling:either': 27 },
    red: { 'variant:accept': 4545, 'variant:either': 735, 'neighbour:reject': 4634, 'spelling:either': 15 },
    'multimem.ld_reduce': { 'variant:accept': 2660, 'variant:either': 3388, 'neighbour:reject': 2553, 'spelling:either': 6 },
    'multimem.st': { 'variant:accept': 760, 'variant:either': 456, 'neighbour:reject': 282, 'spelling:either': 3 },
    'multimem.red': { 'variant:accept': 990, 'variant:either': 720, 'neighbour:reject': 919, 'spelling:either': 6 },
    'cp.reduce.async.bulk': { 'variant:accept': 66, 'neighbour:reject': 1614, 'spelling:either': 9 },
    'multimem.cp.reduce.async.bulk': { 'variant:accept': 27, 'neighbour:reject': 633, 'isa-neighbour:reject': 27, 'spelling:either': 6 },
    'cp.reduce.async.bulk.tensor': { 'variant:accept': 676, 'variant:either': 104, 'neighbour:reject': 2156, 'spelling:either': 3 },
    'red.async': { 'variant:accept': 40, 'variant:either': 40, 'neighbour:reject': 1046, 'isa-neighbour:reject': 16, 'spelling:either': 6 },
  },
};

const cache = new Map<string, CatalogEntry[]>();
function catalog(arch: string): CatalogEntry[] {
  let c = cache.get(arch);
  if (!c) cache.set(arch, (c = enumerateCatalog({ target: findTarget(arch)!, ptx: '9.0' })));
  return c;
}

/**
 * Under the PTX ISA 9.4 text, .noftz with .f32 adds atom/red/bulk variants, their neighbours and
 * their 9.3 isa-neighbours, and 9.3's {.sem.scope} the bulk variants with .relaxed and a scope (and
 * their 9.2 isa-neighbours); under 9.1 those spellings are invalid neighbours.
 */
const with94 = (arch: string, isa: { atom: number; red: number; bulk: number; mmBulk: number }) => ({
  ...COUNTS[arch],
  // 9.3's scalar tables decide what 9.1 left open (add.s64, inc/dec beyond .u32): invalid, so fewer variants and more neighbours
  // spelling bases are one per syntax line of the edition: 9.3 writes .cas and .exch one line each
  // (atom: 4 lines become 2) and 9.4 folds the half .noftz lines into .type3/.type1 and the vector
  // .f32 line into its .noftz successor, so 7 atom lines (11 under 9.1) and 5 red lines (7)
  atom: { 'variant:accept': 13525, 'variant:either': 4425, 'neighbour:reject': 4602, 'isa-neighbour:reject': isa.atom, 'spelling:either': 21 },
  red: { 'variant:accept': 4770, 'neighbour:reject': 4871, 'isa-neighbour:reject': isa.red, 'spelling:either': 15 },
  'cp.reduce.async.bulk': { 'variant:accept': 316, 'neighbour:reject': 1662, 'isa-neighbour:reject': isa.bulk, 'spelling:either': 12 },
  'multimem.cp.reduce.async.bulk': { 'variant:accept': 140, 'neighbour:reject': 657, 'isa-neighbour:reject': isa.mmBulk, 'spelling:either': 9 },
});
// 9.4: the tensor reduction's override form (sm_107f family: rejected here) and fewer neighbours it
// makes invalid; red.async's .release scopes { .gpu, .sys } instead of { .gpu, .cluster }
const tensor94 = (isa: number) => ({
  'variant:accept': 676,
  'variant:either': 104,
  'variant:reject': 5460,
  'neighbour:reject': 1792,
  ...(isa ? { 'isa-neighbour:reject': isa } : {}),
  'spelling:either': 3,
});
const COUNTS_94: Record<string, Record<string, Record<string, number>>> = {
  sm_90: {
    ...with94('sm_90', { atom: 4310, red: 2265, bulk: 574, mmBulk: 257 }),
    'cp.reduce.async.bulk.tensor': tensor94(208),
    'red.async': {
      'variant:accept': 24,
      'variant:either': 24,
      'variant:reject': 24,
      'neighbour:reject': 1262,
      'isa-neighbour:reject': 24,
      'spelling:either': 3,
    },
  },
  sm_100a: {
    ...with94('sm_100a', { atom: 550, red: 225, bulk: 258, mmBulk: 257 }),
    'cp.reduce.async.bulk.tensor': tensor94(0),
    'red.async': { 'variant:accept': 48, 'variant:either': 24, 'neighbour:reject': 1262, 'isa-neighbour:reject': 24, 'spelling:either': 6 },
  },
};

describe.each(Object.keys(COUNTS))('catalog for %s', (arch) => {
  const sizes = (entries: CatalogEntry[]) => {
    const got: Record<string, Record<string, number>> = {};
    for (const e of entries) {
      const k = `${e.kind}:${e.expect}`;
      (got[e.family] ??= {})[k] = (got[e.family]![k] ?? 0) + 1;
    }
    return got;
  };
  it('has the recorded size per family, kind and expectation, under the 9.1 text and under 9.4', () => {
    expect(sizes(withEdition('9.1', () => enumerateCatalog({ target: findTarget(arch)!, ptx: '9.0' })))).toEqual(COUNTS[arch]);
    expect(sizes(withEdition('9.4', () => enumerateCatalog({ target: findTarget(arch)!, ptx: '9.0' })))).toEqual(COUNTS_94[arch]);
  });

  it('has unique ids and is the same when enumerated again', () => {
    const a = catalog(arch).map((e) => e.id);
    expect(new Set(a).size).toBe(a.length);
    const b = enumerateCatalog({ target: findTarget(arch)!, ptx: '9.0' }).map((e) => e.id);
    expect(b).toEqual(a);
  });

  it('every variant parses back from its spelling to the same qualifiers and status', () => {
    for (const e of catalog(arch).filter((x) => x.kind === 'variant')) {
      // a value held outside the instruction (the tensor map's type) is written as the id writes it
      const held = e.id
        .slice(e.ptx.length)
        .replace(/^\(_\)/, '')
        .replace(/@ptx.*$/, '');
      const p = parseInstruction(e.ptx + held + ((e.q.d ?? '') === '_' ? ' _, [a], b;' : ''));
      expect(p.id).toBe(e.id.replace(/@ptx.*$/, ''));
      expect(p.evaluation.status).toBe(e.status);
    }
  });

  it('every neighbour breaks a rule, differs from a valid variant in one slot, and is not itself a variant', () => {
    const entries = catalog(arch);
    const variants = new Map(entries.filter((e) => e.kind === 'variant').map((e) => [e.id, e]));
    for (const n of entries.filter((e) => e.kind === 'neighbour')) {
      expect(n.violations.length, n.id).toBeGreaterThan(0);
      expect(variants.has(n.id)).toBe(false);
      const base = variants.get(n.neighbourOf!)!;
      expect(base.status, n.id).toBe('valid');
      const diff = Object.keys(n.q).filter((k) => (n.q[k] ?? '') !== (base.q[k] ?? ''));
      expect(diff.length, `${n.id} vs ${base.id}`).toBe(1);
      expect(evaluate(familyById(n.family)!, n.q).status).toBe('invalid');
    }
  });

  it('isa-neighbours are accepted variants pinned one PTX ISA version below a feature they use', () => {
    for (const n of catalog(arch).filter((e) => e.kind === 'isa-neighbour')) {
      expect(n.modulePtx).toBeDefined();
      expect(n.violations.some((v) => n.requirements.some((r) => r.rule === v.rule && r.ptx))).toBe(true);
    }
  });
});

describe('expectations for a target', () => {
  it('fp8 multimem is expected to be rejected on sm_90 and accepted on sm_100a', () => {
    const id = 'multimem.ld_reduce.relaxed.gpu.add.acc::f16.v4.e4m3';
    expect(catalog('sm_90').find((e) => e.id === id)!.expect).toBe('reject');
    expect(catalog('sm_100a').find((e) => e.id === id)!.expect).toBe('accept');
  });
  it('defaults are applied in the effective qualifiers', () => {
    const e = catalog('sm_90').find((x) => x.id === 'red.shared.add.u32')!;
    expect(e.effective).toMatchObject({ sem: 'relaxed', scope: 'gpu', space: 'shared::cta' });
    const m = catalog('sm_90').find((x) => x.id === 'multimem.red.add.f32')!;
    expect(m.effective).toMatchObject({ sem: 'relaxed', scope: 'sys' });
    const l = catalog('sm_90').find((x) => x.id === 'multimem.ld_reduce.add.f32')!;
    expect(l.effective).toMatchObject({ sem: 'weak' });
    const r = catalog('sm_90').find((x) => x.id === 'multimem.ld_reduce.relaxed.add.f32')!;
    expect(r.effective.scope).toBeNull();
  });
  it('add.s64 is ambiguous as the 9.1-9.2 text leaves it, and an invalid neighbour from 9.3 (whose scalar table gives .s64 .min and .max only)', () => {
    const at = (e: '9.2' | '9.4') =>
      withEdition(e, () =>
        enumerateMatching({ target: findTarget('sm_90')!, ptx: '9.0', kinds: ['variant', 'neighbour'], keep: (id) => id === 'atom.global.add.s64' }),
      )[0]!;
    const e = at('9.2');
    expect([e.kind, e.status, e.expect, e.ambiguities[0]!.rule]).toEqual(['variant', 'ambiguous', 'either', 'atom.op-type']);
    const n = at('9.4');
    expect([n.kind, n.status, n.expect, n.violations[0]!.rule]).toEqual(['neighbour', 'invalid', 'reject', 'atom.op-type']);
  });
});
