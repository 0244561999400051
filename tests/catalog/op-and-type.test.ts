/**
 * opAndType (catalog/parse.ts): the report's op and type filters read by the grammar's parser, not
 * by a word list of their own. Pinned on spellings whose words a tokenizer would misread (a vector
 * `.v2` before the type, a packed type, an op-less family, an omitted op, a spelling neighbour that
 * writes a qualifier twice and its type held in the id).
 */
import { describe, expect, it } from 'vitest';
import { opAndType } from '../../harness/catalog/parse.js';

describe('opAndType', () => {
  it.each([
    ['red.global.add.noftz.v2.bf16x2', undefined, 'add', 'bf16x2'],
    ['atom.global.cas.b64', undefined, 'cas', 'b64'],
    ['multimem.st.global.v4.f32', undefined, 'st', 'f32'],
    ['cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16', undefined, 'add', 'f16'],
    ['atom.b32', undefined, '-', 'b32'],
    ['atom.add', undefined, 'add', '-'],
    ['atom.add.add.noftz.f16', 'atom.add.noftz.f16~repeated', 'add', 'f16'],
    [
      'cp.reduce.async.bulk.tensor.1d.1d.global.shared::cta.add.bulk_group',
      'cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group(u32)~repeated',
      'add',
      'u32',
    ],
    ['not.an.instruction', undefined, '-', '-'],
  ])('%s', (ptx, id, op, type) => {
    expect(opAndType(ptx, id)).toEqual({ op, type });
  });
});

describe('entryOpAndType: an entry read from its qualifiers', () => {
  it('is what opAndType parses from its instruction, for every entry it answers of four targets (and it answers most)', async () => {
    const { entryOpAndType } = await import('../../harness/catalog/parse.js');
    const { enumerateCatalog } = await import('../../harness/catalog/enumerate.js');
    const { findTarget } = await import('../../harness/arch/targets.js');
    let answered = 0;
    let all = 0;
    const wrong: string[] = [];
    for (const t of ['sm_90', 'sm_100a', 'sm_80', 'sm_120']) {
      for (const e of enumerateCatalog({ target: findTarget(t)!, ptx: '9.0' })) {
        all++;
        const known = entryOpAndType(e);
        if (!known) continue;
        answered++;
        const parsed = opAndType(e.ptx, e.id);
        if (known.op !== parsed.op || known.type !== parsed.type) wrong.push(`${e.id}: ${JSON.stringify(known)} against ${JSON.stringify(parsed)}`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(answered).toBeGreaterThan(all * 0.8);
    // a tensor variant's type is held in its id, not its text: not answered from the entry
    expect(
      entryOpAndType({
        ptx: 'cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group',
        family: 'cp.reduce.async.bulk.tensor',
        kind: 'variant',
        q: { op: 'add', type: 'u32' },
      }),
    ).toBeUndefined();
  }, 120_000);
});
