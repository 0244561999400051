/**
 * multimem.ld_reduce (PTX ISA 9.7.9.14): the catalog (catalog.ts), the reduction over the replicas
 * (model.ts) under the rule the section does not state (../shared/multimem.ts), and how the
 * explanation alternatives apply to a reduction (explain.ts).
 */
import type { FamilyPlugin } from '../../registry/plugin.js';
import { MULTIMEM_FP_UNSTATED, multimemShape } from '../shared/multimem.js';
import { multimemLdReduce } from './catalog.js';
import { ldReduceExplain } from './explain.js';
import { LD_REDUCE_MODEL_RULES, ldReduceModel } from './model.js';

export const multimemLdReducePlugin: FamilyPlugin = {
  def: multimemLdReduce,
  model: ldReduceModel,
  rules: [MULTIMEM_FP_UNSTATED],
  shape: multimemShape({ takesB: false, returns: true, results: 'returned', probeOp: (q) => q.op ?? '' }),
  explain: ldReduceExplain,
  modelRules: LD_REDUCE_MODEL_RULES,
};
