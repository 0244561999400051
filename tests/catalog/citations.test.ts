/**
 * Every citation of the catalog names a known excerpt and section, and quotes it verbatim unless it
 * says it paraphrases ("~ "). The repository keeps only the quotes (the deciding sentence, in the
 * row), not the PTX ISA text: the quotes are held to the excerpts where they are here (../shared/
 * ptx-spec and ptx-spec-newer in CI, or PTXCONF_PTX_SPEC), and skip saying why otherwise. The
 * half-precision min/max sections (../ptx-isa-extra/) are in no shared excerpt: their quotes are
 * checked where PTXCONF_PTX_SPEC holds ptx-isa-extra/ too.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPEC_FILES, type Citation } from '../../harness/catalog/cite.js';
import { families, familyFpRules, familyMinMaxBasis, familyModelRules } from '../../harness/registry/index.js';
import { MINMAX_RULES, UNSPECIFIED } from '../../harness/numerics/rules.js';
import { CONTENTION_RULES } from '../../harness/contention/model.js';
import { specRoot, specText } from '../helpers/spec.js';

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
  walk({
    FAMILIES: families(),
    FP_RULES: familyFpRules(),
    MINMAX_BASIS: familyMinMaxBasis(),
    MINMAX_RULES,
    UNSPECIFIED,
    CONTENTION_RULES,
    MODEL_RULES: familyModelRules(),
  });
  return out;
}

const all = citations().filter((c) => !c.file.startsWith('('));

const root = specRoot('the quotes of the catalog against the PTX ISA excerpts');
/** Whether the excerpt a citation names is here (the extra sections only where a copy is given). */
const have = (file: string) => !!root && existsSync(join(root, 'ptx-spec', file));
const extraMissing = [...new Set(all.filter((c) => root && !have(c.file)).map((c) => c.file))];
if (extraMissing.length)
  console.warn(
    `[skip] quotes of ${extraMissing.join(', ')}: no copy of those PTX ISA sections under ${root} (set PTXCONF_PTX_SPEC to a folder holding ptx-spec/, ptx-spec-newer/ and ptx-isa-extra/ to check them)`,
  );

describe('citations', () => {
  it('there are many, one per rule row; each names an excerpt and section the catalog knows', () => {
    expect(all.length).toBeGreaterThan(200);
    for (const c of all)
      expect(
        Object.values(SPEC_FILES).find((f) => f.file === c.file && f.section === c.section),
        `unknown excerpt ${c.file} section ${c.section}`,
      ).toBeDefined();
  });

  // the quotes whose excerpt is here (the others are named above as skipped)
  const here = all.filter((c) => have(c.file));
  it.skipIf(!here.length).each((here.length ? here : all.slice(0, 1)).map((c) => [c.file, c.section, c.quote] as const))(
    '%s %s: %s',
    (file, section, quote) => {
      const spec = Object.values(SPEC_FILES).find((f) => f.file === file && f.section === section)!;
      const text = specText(file, root);
      expect(text).toContain((spec as { writtenAs?: string }).writtenAs ?? section);
      if (quote.startsWith('~ ')) return;
      const body = norm(text);
      const frags = quote.split(/ \/ |\s*\.\.\.\s*/).map((f) => f.replace(/^[/;,\s]+|[;,\s]+$/g, '').trim());
      for (const frag of frags.filter((f) => f.length > 2)) {
        expect(body, `quote fragment not found verbatim in ${file}: "${frag}"`).toContain(norm(frag));
      }
    },
  );

  it('the check fails on a quote the text does not hold (a word changed)', () => {
    if (!root) return;
    const c = all.find((x) => x.file === 'atom.md' && !x.quote.startsWith('~ ') && x.quote.length > 30)!;
    const wrong = c.quote.replace(/\b(\w{4,})\b/, '$1x');
    expect(norm(specText('atom.md', root))).not.toContain(norm(wrong));
  });
});

describe('every rule a result names has its text and a citation', () => {
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
    const gen = families()
      .flatMap((f) => representativeVariants(f))
      .flatMap((v) => ([1, 2, 3] as const).flatMap((l) => generateCases(v, 1, l, 1)));
    for (const ed of EDITIONS) {
      withEdition(ed, () => {
        for (const c of [...lib.cases, ...gen]) for (const id of runCaseOnReference(c).catalog.rules) if (!named.has(id)) named.set(id, c.id);
      });
    }
    // the catalog's rows are indexed whatever the edition (rules.ts adds every form, table and
    // requirement): one target with the most features, all entry kinds
    const target = findTarget('sm_100a')!;
    for (const e of enumerateCatalog({ target, ptx: modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA }))
      for (const id of ruleIds(e)) if (!named.has(id)) named.set(id, e.id);
    const idx = ruleIndex();
    const bad = [...named].filter(([id]) => {
      const r = idx.get(id);
      return !r || !r.text.trim() || !r.cite?.quote?.trim() || !r.cite.section;
    });
    expect(bad.map(([id, by]) => `${id} (named by ${by})`)).toEqual([]);
    expect(named.has('atom.returns-old')).toBe(true);
  }, 300_000);
});
