/**
 * cp.reduce.async.bulk.tensor (PTX ISA 9.4 9.7.10.28.5.4): the catalog (catalog.ts), its (absent)
 * floating-point rules (rules.ts), and the bulk model and case shape (../shared/bulk.ts): a case is
 * one box of the destination tensor and its shared-memory source, reduced element by element. The
 * destination is always .global.
 */
import type { FamilyPlugin } from '../../registry/plugin.js';
import { BULK_BYTES, bulkModel, bulkShape } from '../shared/bulk.js';
import { cpReduceAsyncBulkTensor } from './catalog.js';
import { tensorRules } from './rules.js';

export const cpReduceAsyncBulkTensorPlugin: FamilyPlugin = {
  def: cpReduceAsyncBulkTensor,
  model: bulkModel,
  rules: tensorRules,
  shape: {
    ...bulkShape,
    // the box's size comes from the tensor map, not from a size operand (no sentence of this section sets it)
    length: () => ({ kind: 'bulk', bytes: BULK_BYTES }),
    space: () => 'global',
    // the default tile mode spelled out, each dimension, no cache hint
    representative: (q) => q.load_mode === 'tile' && q.hint === '' && q.override_addr === '' && q.override_attr === '',
  },
  explain: {},
};
