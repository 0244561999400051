/**
 * Selection: the pruned enumeration (enumerateMatching, behind selectEntries) gives exactly the
 * entries of the full enumeration filtered afterwards, in the same order and with the same content,
 * for filters of every shape (substrings, globs, several alternatives, ones that only a neighbour or
 * an isa-neighbour matches) and every --kind set; and the prefix test never prunes an id that matches.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_PTX_ISA, findTarget, modulePtxFor } from '../../harness/arch/targets.js';
import { type CatalogEntry, type EntryKind, coreVariants, enumerateCatalog, enumerateMatching, familyVariants } from '../../harness/catalog/enumerate.js';
import { evaluate } from '../../harness/catalog/evaluate.js';
import { familyWords, filterOptions, selectEntries } from '../../harness/catalog/select.js';
import { variantId } from '../../harness/catalog/spelling.js';
import { UsageError } from '../../harness/util/errors.js';
import { families } from '../../harness/registry/index.js';
import { compileFilter, compileFilterPrefix, idWords, innerWords, wordsAfterWildcard } from '../../harness/util/filter.js';

const FILTERS = [
  'atom.global.add.f32',
  'atom.global.add.f32(_)',
  'red.global.add.noftz.v8.*',
  '.v8.',
  'multimem.red.',
  'ptx8.5',
  '@ptx7.8',
  '*@ptx7.8',
  '*.v4.*@ptx*',
  '*local*', // neighbours only (.local is foreign to every family)
  'atom.local*',
  'atom.*(_)*',
  '*(_)',
  'atom.*.f16',
  'atom.?cquire.*',
  'atom.acquire.gpu.global.cas.b16',
  'red.global.add.noftz.v8.f16@ptx8.0',
  'cp.reduce.async.bulk*',
  'multimem.cp.reduce.async.bulk.*',
  'multimem.ld_reduce.*.e4m3x4',
  'atom.global.add.f32,red.shared::cta.min.u32',
  'nosuch*,atom.sys.*.u64',
  'shared::cluster',
  '*.b128',
  'xyz',
  // substrings the family pruning and the anchored prefix meet (compileFilterWords, compileFilterPrefixFor)
  'red.async',
  'red.global.add',
  'global.add.f32',
  'tom.global',
  'multimem',
  'cp.reduce.async.bulk.tensor.1d',
  'noftz.bf16x2',
  '~repeated',
  'b32~type',
  // words after a wildcard the rest of the walk must still be able to spell (wordsAfterWildcard)
  'atom.*.cas.b64',
  'red.*.add.f16',
  '*.cas.b64',
  'atom.*.exch.b128(_)',
  'cp.reduce.async.bulk.*.add.bulk_group(u32)',
  'atom.*.add.f32@ptx*',
  'atom.*.cas.b64@ptx8.0',
  'multimem.ld_reduce.*.add.f16',
  'atom.*.gpu.*.min.u32,red.*.shared::cta.*',
  'red.*.add.noftz.*.f16x2',
  // substrings whose words between dots the rest of the walk must still be able to spell (innerWords)
  'red.shared::cta.min.u32',
  'ared::cta.min.u3',
  '.relaxed.gpu.',
  'cas.b64(_)',
  'add.noftz.bf16(_)',
  'global.add.f32@ptx',
  'multimem.ld_reduce.relaxed.sys.global.add.f16,atom.acquire.gpu.global.cas.b16',
];
const KIND_SETS: EntryKind[][] = [['variant', 'neighbour', 'isa-neighbour', 'spelling'], ['variant'], ['neighbour', 'isa-neighbour'], ['spelling']];

const show = (es: readonly CatalogEntry[]) => es.map((e) => JSON.stringify(e));

describe.each(['sm_90', 'sm_100a'])('%s: selectEntries = full enumeration, then filter', (arch) => {
  const target = findTarget(arch)!;
  const ptx = modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA;
  let all: CatalogEntry[] = [];
  beforeAll(() => {
    all = enumerateCatalog({ target, ptx });
  });
  const reference = (filter: string | undefined, kinds: readonly EntryKind[]) => {
    const keep = compileFilter(filter);
    return all.filter((e) => kinds.includes(e.kind) && keep(e.id));
  };

  it.each(FILTERS)('--filter %s', (filter) => {
    for (const kinds of KIND_SETS) {
      const want = reference(filter, kinds);
      // selectEntries = enumerateMatching with these, or a UsageError when it is empty (below)
      const got = enumerateMatching({ target, ptx, kinds, ...filterOptions(filter) });
      expect(got.length, `${filter} ${kinds}`).toBe(want.length);
      expect(show(got), `${filter} ${kinds}`).toEqual(show(want));
    }
  });

  it("every word of every entry's id is one of its family's words (familyWords: what the filter's family pruning relies on)", () => {
    const byFam = new Map(families().map((f) => [f.id, new Set(familyWords(f))]));
    const missing = new Set<string>();
    for (const e of all) for (const w of idWords(e.id)) if (!byFam.get(e.family)!.has(w)) missing.add(`${e.family}: ${w} (${e.id})`);
    expect([...missing].slice(0, 5)).toEqual([]);
  });
  it.runIf(arch === 'sm_90')('no filter: the whole catalog', () => {
    const whole = selectEntries({ kinds: ['variant', 'neighbour', 'isa-neighbour', 'spelling'] }, target, ptx);
    expect(whole.length).toBe(all.length);
    expect(show(whole)).toEqual(show(all));
  });
});

describe('the empty selection', () => {
  const target = findTarget('sm_90')!;
  it('selectEntries returns a non-empty selection as is', () => {
    expect(selectEntries({ filter: 'atom.global.add.f32', kinds: ['variant'] }, target, '8.8').map((e) => e.id)).toEqual([
      'atom.global.add.f32',
      'atom.global.add.f32(_)',
    ]);
  });
  it('keeps the message of the CLI', () => {
    expect(() => selectEntries({ filter: 'nosuch', kinds: ['variant'] }, target, '8.8')).toThrow(UsageError);
    expect(() => selectEntries({ filter: 'nosuch', kinds: ['variant'] }, target, '8.8')).toThrow(
      /^--filter 'nosuch' with --kind variant selects no entry of the sm_90 catalog\. Ids look like 'atom\.global\.add\.f32' or 'red\.shared::cta\.min\.u32'; families: atom, red, .*\. Run with --list to see them\.$/,
    );
  });
});

describe('what the pruning relies on', () => {
  it('coreVariants is the core of familyVariants, in order', () => {
    for (const fam of families()) {
      const core = familyVariants(fam).filter((q) => fam.fanout.every((s) => (q[s] ?? '') === '') && evaluate(fam, q).status === 'valid');
      expect(
        coreVariants(fam).map((q) => variantId(fam, q)),
        fam.id,
      ).toEqual(core.map((q) => variantId(fam, q)));
    }
  });

  it('a viable prefix test never rejects a prefix of an id the filter keeps', () => {
    const ids = enumerateCatalog({ target: findTarget('sm_90')!, ptx: '8.8', neighbours: false }).map((e) => e.id);
    for (const f of [...FILTERS, 'a*b', '*', '?tom.*', 'atom.*.*.f32', 'red.global.add.f32,*.v4.*']) {
      const keep = compileFilter(f);
      const viable = compileFilterPrefix(f);
      const kept = ids.filter(keep);
      for (let k = 0; k < kept.length; k += 17) {
        const id = kept[k]!;
        const bad = [...id.matchAll(/[.(@]/g)]
          .map((m) => id.slice(0, m.index))
          .concat(id)
          .filter((p) => !viable(p));
        expect(bad, `${f} / ${id}`).toEqual([]);
      }
    }
  });

  it('globs prune: a prefix off the literal head is not viable', () => {
    const viable = compileFilterPrefix('red.global.*.f32,atom.?cquire.*');
    expect(viable('red')).toBe(true);
    expect(viable('red.global.add')).toBe(true);
    expect(viable('red.shared')).toBe(false);
    expect(viable('atom.acquire')).toBe(true);
    expect(viable('atom.release')).toBe(false);
    expect(viable('multimem')).toBe(false);
    expect(compileFilterPrefix('red.global.*,add')('multimem')).toBe(true); // a substring may come later
  });

  it('globs prune: a word after the wildcard that neither the prefix holds nor the rest of the walk can spell', () => {
    expect(wordsAfterWildcard('atom.*.cas.b64')).toEqual(['cas', 'b64']);
    expect(wordsAfterWildcard('atom.*.cas.b64(_)@ptx8.0')).toEqual(['cas', 'b64']);
    expect(wordsAfterWildcard('atom.*.b64*')).toEqual([]);
    expect(wordsAfterWildcard('atom.global.cas.b64')).toEqual([]);
    const viable = compileFilterPrefix('atom.*.cas.b64');
    expect(viable('atom.relaxed.gpu.global.add', new Set(['b64', 'u32']))).toBe(false);
    expect(viable('atom.relaxed.gpu.global', new Set(['add', 'cas', 'b64']))).toBe(true);
    expect(viable('atom.relaxed.gpu.global.cas', new Set(['b64']))).toBe(true);
    expect(viable('atom.relaxed.gpu.global.add')).toBe(true); // no rest given: the prefix alone
    // one alternative that may still match keeps the prefix
    expect(compileFilterPrefix('atom.*.cas.b64,atom.*.add.*')('atom.global.add', new Set(['u32']))).toBe(true);
    // a substring: its words between dots, wherever it comes (its first and last may be parts of words)
    expect(innerWords('red.shared::cta.min.u32')).toEqual(['shared::cta', 'min']);
    expect(innerWords('atom.add.noftz.bf16(_)@ptx8.0')).toEqual(['add', 'noftz', 'bf16']);
    expect(innerWords('.v8.')).toEqual(['v8']);
    expect([innerWords('tom.global'), innerWords('ptx8.5'), innerWords('b32~type')]).toEqual([[], [], []]);
    const sub = compileFilterPrefix('red.shared::cta.min.u32');
    expect(sub('red.relaxed.gpu.global', new Set(['add', 'min', 'u32']))).toBe(false);
    expect(sub('red.relaxed.gpu', new Set(['global', 'shared::cta', 'min', 'u32']))).toBe(true);
    expect(sub('red.relaxed.gpu.shared::cta', new Set(['min']))).toBe(true);
    expect(sub('multimem')).toBe(true); // no rest given: it may come later
  });
});

describe('spelling: qualifiers in another order (ptxas 13.0 accepts any order)', () => {
  it('--filter alternatives that spell an instruction in another order are read in the canonical order; globs and substrings are not touched', async () => {
    const { canonicalFilter } = await import('../../harness/catalog/select.js');
    expect(canonicalFilter('atom.global.f32.add,red.,atom.*.f32,atom.gpu.relaxed.global.add.f32(_)')).toEqual({
      filter: 'atom.global.add.f32,red.,atom.*.f32,atom.relaxed.gpu.global.add.f32(_)',
      changed: [
        ['atom.global.f32.add', 'atom.global.add.f32'],
        ['atom.gpu.relaxed.global.add.f32(_)', 'atom.relaxed.gpu.global.add.f32(_)'],
      ],
    });
    expect(canonicalFilter('atom.global.add.f32').changed).toEqual([]);
  });
  it('a vector file case written in another order gets the canonical id', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { loadVectors } = await import('../../harness/case-readers/vectors.js');
    const d = mkdtempSync(join(tmpdir(), 'ptxconf-order-'));
    try {
      writeFileSync(
        join(d, 'o.yaml'),
        'instruction: red.global.u32.add\ncases:\n  - name: a\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000002"] }\n',
      );
      const r = await loadVectors([join(d, 'o.yaml')], d);
      expect(r.problems).toEqual([]);
      expect(r.cases.map((c) => c.id)).toEqual(['red.global.add.u32/o.yaml:a']);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('the selection a run makes gives the event loop turns (a signal stops it within moments)', () => {
  it('selectEntriesAsync: the same entries as selectEntries, with timers run while it goes', async () => {
    const { selectEntriesAsync } = await import('../../harness/catalog/select.js');
    const target = findTarget('sm_90')!;
    const ptx = modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA;
    const opts = { filter: 'atom', kinds: ['variant', 'neighbour', 'isa-neighbour', 'spelling'] as EntryKind[] };
    const want = selectEntries(opts, target, ptx);
    let ticks = 0;
    const t = setInterval(() => ticks++, 5);
    const t0 = performance.now();
    const got = await selectEntriesAsync(opts, target, ptx);
    const ms = performance.now() - t0;
    clearInterval(t);
    expect(got.map((e) => e.id)).toEqual(want.map((e) => e.id));
    expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    // a timer ran at least once per 200 ms of selecting (a run that held the thread throughout would give none)
    expect(ms).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(ms / 200));
  });
});
