/**
 * Floating-point rules of cp.reduce.async.bulk.tensor: none stated. No edition (9.0-9.4) of its
 * section says anything of rounding, subnormals or .noftz; the flushing and 9.4 "as .noftz" sentences
 * are cp.reduce.async.bulk's and multimem.cp.reduce.async.bulk's, not this instruction's. So every
 * float outcome is recorded as observed: flushed or kept subnormals, rounding marked as assumed.
 */
import { cite } from '../../catalog/cite.js';
import type { FpRule } from '../../numerics/rules.js';

const FAM = 'cp.reduce.async.bulk.tensor';

export const tensorRules: readonly FpRule[] = [
  {
    id: 'fp.tensor.unstated',
    families: [FAM],
    spaces: ['global', 'shared'],
    types: ['f32', 'f16', 'bf16'],
    ftz: 'unspecified',
    rounding: 'unspecified',
    text: 'cp.reduce.async.bulk.tensor states no floating-point rule (rounding, subnormals, NaN) for its .f32/.f16/.bf16 reductions in any edition: what the hardware does is recorded',
    cite: cite(
      'editions/tensor',
      'Description',
      'Each element of the tensor data in the .dst state space is reduced inline with the corresponding element from the tensor data in the .src state space.',
    ),
  },
];
