/**
 * multimem.cp.reduce.async.bulk (PTX ISA 9.7.9.27): the catalog (catalog.ts), its floating-point
 * rules (rules.ts), and its model and case shape (../shared/bulk.ts: cp.reduce.async.bulk's
 * element-wise reduction, into the destination on each GPU).
 */
import type { FamilyPlugin } from '../../registry/plugin.js';
import { multimemBulkModel, multimemBulkShape } from '../shared/bulk.js';
import { multimemCpReduceAsyncBulk } from './catalog.js';
import { multimemCpReduceAsyncBulkRules } from './rules.js';

export const multimemCpReduceAsyncBulkPlugin: FamilyPlugin = {
  def: multimemCpReduceAsyncBulk,
  model: multimemBulkModel,
  rules: multimemCpReduceAsyncBulkRules,
  shape: multimemBulkShape,
  explain: {},
};
