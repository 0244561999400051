/** Floating-point rules of cp.reduce.async.bulk (PTX ISA 9.7.9.25.4.2, Description). */
import { cite } from '../../catalog/cite.js';
import type { FpRule } from '../../numerics/rules.js';

const FAM = 'cp.reduce.async.bulk';
const c = (quote: string) => cite('cp-reduce-async-bulk.md', 'Description', quote);
const ALL: ('global' | 'shared')[] = ['global', 'shared'];

export const cpReduceAsyncBulkRules: readonly FpRule[] = [
  {
    id: 'fp.bulk.add.f32',
    families: [FAM],
    spaces: ALL,
    types: ['f32'],
    ftz: true,
    rounding: 'rne',
    editions: { until: '9.3' },
    text: 'cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results to sign-preserving zero (PTX ISA 9.1-9.3)',
    cite: c('The current implementation of cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results to sign-preserving zero.'),
  },
  {
    id: 'fp.bulk.add.f32.9.4',
    families: [FAM],
    spaces: ALL,
    types: ['f32'],
    ftz: false,
    rounding: 'rne',
    editions: { from: '9.4' },
    text: 'cp.reduce.async.bulk.add.f32 keeps subnormal inputs and results: the default is as .noftz (PTX ISA 9.4 replaced the flushing sentence)',
    cite: cite(
      'editions/bulk',
      'Description',
      'The default behavior for cp.reduce.async.bulk.add.f32 is equivalent to specifying optional .noftz qualifier which preserves input and result subnormals, and does not flush them to zero.',
    ),
  },
  {
    id: 'fp.bulk.add.f64',
    families: [FAM],
    spaces: ALL,
    types: ['f64'],
    ftz: false,
    rounding: 'rne',
    text: 'cp.reduce.async.bulk.add.f64 keeps subnormals: the flushing sentence names .f32 only',
    cite: c('Floating-point .add rounds to nearest even.'),
  },
  {
    id: 'fp.bulk.noftz',
    families: [FAM],
    spaces: ALL,
    types: ['f16', 'bf16'],
    ftz: false,
    rounding: 'rne',
    text: '.add.noftz.f16/.bf16 keep subnormals',
    cite: c('.add.f16 and .add.bf16 require .noftz.'),
  },
];
