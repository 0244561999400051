/**
 * Every citation of the catalog points at an excerpt that exists, with that excerpt's section
 * number, and quotes it verbatim unless it says it paraphrases ("~ "). The excerpts in spec/ are a
 * copy of ../shared/ptx-spec; when that folder is beside the checkout, the copy must equal it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPEC_FILES, type Citation } from '../../harness/catalog/cite.js';
import { families, familyFpRules, familyMinMaxBasis, familyModelRules } from '../../harness/registry/index.js';
import { MINMAX_RULES, UNSPECIFIED } from '../../harness/numerics/rules.js';
import { CONTENTION_RULES } from '../../harness/contention/model.js';
import { SPEC_DIR, specFiles, specText } from '../helpers/spec.js';

const norm = (s: string) =>
  s
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .replace(/\|/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{},;:])\s*/g, '$1')
    .toLowerCase()
    .trim();

function citations(): Citation[] {
  const out: Citation[] = [];
  const walk = (o: unknown) => {
    if (!o || typeof o !== 'object') return;
    if ('quote' in o && 'file' in o && 'section' in o) out.push(o as Citation);
    else for (const v of Object.values(o)) walk(v);
  };
  walk({ FAMILIES: families(), FP_RULES: familyFpRules(), MINMAX_BASIS: familyMinMaxBasis(), MINMAX_RULES, UNSPECIFIED, CONTENTION_RULES, MODEL_RULES: familyModelRules() });
  return out;
}

const all = citations().filter((c) => !c.file.startsWith('('));

describe('citations', () => {
  it('there are many, one per rule row', () => expect(all.length).toBeGreaterThan(200));

  it.each(all.map((c) => [c.file, c.section, c.quote] as const))('%s %s: %s', (file, section, quote) => {
    const spec = Object.values(SPEC_FILES).find((f) => f.file === file && f.section === section);
    expect(spec, `unknown excerpt ${file} section ${section}`).toBeDefined();
    const text = specText(file);
    expect(text).toContain((spec as { writtenAs?: string }).writtenAs ?? section);
    if (quote.startsWith('~ ')) return;
    const body = norm(text);
    const frags = quote.split(/ \/ |\s*\.\.\.\s*/).map((f) => f.replace(/^[/;,\s]+|[;,\s]+$/g, '').trim());
    for (const frag of frags.filter((f) => f.length > 2)) {
      expect(body, `quote fragment not found verbatim in ${file}: "${frag}"`).toContain(norm(frag));
    }
  });
});

describe('spec copy (PTX ISA 9.2-9.4 changes)', () => {
  const newer = join(import.meta.dirname, '..', '..', '..', 'shared', 'ptx-spec-newer');
  const mine = join(SPEC_DIR, '..', 'ptx-spec-newer');
  it.skipIf(!existsSync(newer))('spec/ptx-spec-newer equals ../shared/ptx-spec-newer', () => {
    for (const f of readdirSync(newer)) expect(readFileSync(join(mine, f), 'utf8'), f).toBe(readFileSync(join(newer, f), 'utf8'));
  });
});

describe('spec copy', () => {
  const shared = join(import.meta.dirname, '..', '..', '..', 'shared', 'ptx-spec');
  it.skipIf(!existsSync(shared))('spec/ptx-spec equals ../shared/ptx-spec', () => {
    for (const f of specFiles()) expect(readFileSync(join(SPEC_DIR, f), 'utf8')).toBe(readFileSync(join(shared, f), 'utf8'));
  });
  if (!existsSync(shared)) console.warn(`[skip] spec copy check: ${shared} is not beside this checkout`);
});

describe('every rule a result names has its text and a citation (issue 23, item 5h: atom.returns-old had neither)', () => {
  it('the rule trails of the reference model (directed library, generated cases, every edition) and of the catalog entries (sm_100a)', async () => {
    const { ruleIndex } = await import('../../harness/catalog/rules.js');
    const { EDITIONS, withEdition } = await import('../../harness/catalog/editions.js');
    const { collectCases } = await import('../../harness/case-readers/sources.js');
    const { generateCases, representativeVariants } = await import('../../cases/generators/cases.js');
    const { runCaseOnReference } = await import('../../harness/backends/reference/cases.js');
    const { enumerateCatalog } = await import('../../harness/catalog/enumerate.js');
    const { ruleIds } = await import('../../harness/backends/ptxas/backend.js');
    const { findTarget, modulePtxFor, CATALOG_PTX_ISA } = await import('../../harness/arch/targets.js');
    const named = new Map<string, string>();
    const lib = await collectCases({ seed: 1, directed: true, generated: false });
    const gen = families().flatMap((f) => representativeVariants(f)).flatMap((v) => ([1, 2, 3] as const).flatMap((l) => generateCases(v, 1, l, 1)));
    for (const ed of EDITIONS) {
      withEdition(ed, () => {
        for (const c of [...lib.cases, ...gen]) for (const id of runCaseOnReference(c).catalog.rules) if (!named.has(id)) named.set(id, c.id);
      });
    }
    // the catalog's rows are indexed whatever the edition (rules.ts adds every form, table and
    // requirement): one target with the most features, all entry kinds
    const target = findTarget('sm_100a')!;
    for (const e of enumerateCatalog({ target, ptx: modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA })) for (const id of ruleIds(e)) if (!named.has(id)) named.set(id, e.id);
    const idx = ruleIndex();
    const bad = [...named].filter(([id]) => {
      const r = idx.get(id);
      return !r || !r.text.trim() || !r.cite?.quote?.trim() || !r.cite.section;
    });
    expect(bad.map(([id, by]) => `${id} (named by ${by})`)).toEqual([]);
    expect(named.has('atom.returns-old')).toBe(true);
  }, 300_000);
});
