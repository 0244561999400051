/** Floating-point rules of cp.reduce.async.bulk (PTX ISA 9.7.9.25.4.2, Description). */
import { cite } from '../../catalog/cite.js';
import type { FpRule } from '../../numerics/rules.js';

const FAM = 'cp.reduce.async.bulk';
const c = (quote: string) => cite('cp-reduce-async-bulk.md', 'Description', quote);
const ALL: ('global' | 'shared')[] = ['global', 'shared'];

export const cpReduceAsyncBulkRules: readonly FpRule[] = [
  { id: 'fp.bulk.add.f32', families: [FAM], spaces: ALL, types: ['f32'], ftz: true, rounding: 'rne', text: 'cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results to sign-preserving zero', cite: c('The current implementation of cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results to sign-preserving zero.') },
  { id: 'fp.bulk.add.f64', families: [FAM], spaces: ALL, types: ['f64'], ftz: false, rounding: 'rne', text: 'cp.reduce.async.bulk.add.f64 keeps subnormals: the flushing sentence names .f32 only', cite: c('Floating-point .add rounds to nearest even.') },
  { id: 'fp.bulk.noftz', families: [FAM], spaces: ALL, types: ['f16', 'bf16'], ftz: false, rounding: 'rne', text: '.add.noftz.f16/.bf16 keep subnormals', cite: c('.add.f16 and .add.bf16 require .noftz.') },
];
