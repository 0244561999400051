/** Floating-point rules of multimem.cp.reduce.async.bulk (PTX ISA 9.7.9.27, Description). */
import { cite } from '../../catalog/cite.js';
import type { FpRule } from '../../numerics/rules.js';

const FAM = 'multimem.cp.reduce.async.bulk';
const c = (quote: string) => cite('multimem-cp-reduce-async-bulk.md', 'Description', quote);
const ALL: ('global' | 'shared')[] = ['global', 'shared'];

export const multimemCpReduceAsyncBulkRules: readonly FpRule[] = [
  {
    id: 'fp.mm-bulk.add.f32',
    families: [FAM],
    spaces: ALL,
    types: ['f32'],
    ftz: true,
    rounding: 'rne',
    editions: { until: '9.3' },
    text: 'multimem.cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results (PTX ISA 9.1-9.3)',
    cite: c(
      'except for the current implementation of multimem.cp.reduce.async.bulk.add.f32 which flushes subnormal inputs and results to sign-preserving zero.',
    ),
  },
  {
    id: 'fp.mm-bulk.add.f32.9.4',
    families: [FAM],
    spaces: ALL,
    types: ['f32'],
    ftz: false,
    rounding: 'rne',
    editions: { from: '9.4' },
    text: 'multimem.cp.reduce.async.bulk.add.f32 keeps subnormal inputs and results: the default is as .noftz (PTX ISA 9.4)',
    cite: cite(
      'editions/multimem-bulk',
      'Description',
      'The default behavior for multimem.cp.reduce.async.bulk.add.f32 is equivalent to specifying optional .noftz qualifier which preserves input and result subnormals, and does not flush them to zero.',
    ),
  },
  {
    id: 'fp.mm-bulk.add.other',
    families: [FAM],
    spaces: ALL,
    types: ['f64', 'f16', 'bf16'],
    ftz: false,
    rounding: 'rne',
    text: 'multimem.cp.reduce.async.bulk .add rounds to nearest even and keeps subnormals',
    cite: c('The floating point operation .add rounds to the nearest even, preserve input and result subnormals, and does not flush them to zero'),
  },
];
