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
