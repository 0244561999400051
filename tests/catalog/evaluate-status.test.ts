/**
 * statusOf (the enumerator's status-only question) against evaluate's status, on every combination
 * the forms generate for every family (a third of them under each edition) and on a sample of one-slot changes to other known values
 * (the invalid neighbours' kind), under every edition the catalog has.
 */
import { describe, expect, it } from 'vitest';
import { EDITIONS, withEdition } from '../../harness/catalog/editions.js';
import { evaluate, statusOf } from '../../harness/catalog/evaluate.js';
import { familyVariants } from '../../harness/catalog/enumerate.js';
import type { Qualifiers } from '../../harness/catalog/types.js';
import { vocabulary } from '../../harness/catalog/vocabulary.js';
import { families } from '../../harness/registry/index.js';

describe('statusOf', () => {
  it.each(EDITIONS.map((e) => [e]))('equals evaluate(...).status under PTX ISA %s: every variant and sampled changes of one slot', (edition) => {
    withEdition(edition, () => {
      const vocab = vocabulary();
      let checked = 0;
      const wrong: string[] = [];
      const counts = { valid: 0, ambiguous: 0, invalid: 0 };
      for (const fam of families()) {
        const variants = familyVariants(fam);
        expect(variants.length).toBeGreaterThan(0);
        variants.forEach((q, i) => {
          const check = (x: Qualifiers) => {
            const s = statusOf(fam, x);
            const want = evaluate(fam, x).status;
            if (s !== want) wrong.push(`${fam.id} ${JSON.stringify(x)}: statusOf ${s}, evaluate ${want}`);
            counts[s]++;
            checked++;
          };
          // a different third of the variants under each edition (all of them over the four), and their neighbours now and then
          if (i % 3 === EDITIONS.indexOf(edition) % 3) check(q);
          if (i % 53) return;
          // every other value of every slot (the grammar's and any family's)
          for (const s of fam.slots)
            for (const v of new Set([...(vocab.get(s.name) ?? []), ...s.values, ''])) if (v !== (q[s.name] ?? '')) check({ ...q, [s.name]: v });
        });
      }
      expect(wrong.slice(0, 5)).toEqual([]);
      // the comparison saw all three answers
      expect(counts.valid && counts.ambiguous && counts.invalid).toBeGreaterThan(0);
      expect(checked).toBeGreaterThan(15_000);
    });
  });
});
