/**
 * multimem.cp.reduce.async.bulk (PTX ISA 9.7.9.27): the catalog (catalog.ts), its floating-point
 * rules (rules.ts), and the bulk model and case shape it shares with cp.reduce.async.bulk
 * (../shared/bulk.ts).
 */
import type { FamilyPlugin } from '../plugin.js';
import { bulkModel, bulkShape } from '../shared/bulk.js';
import { multimemCpReduceAsyncBulk } from './catalog.js';
import { multimemCpReduceAsyncBulkRules } from './rules.js';

export const multimemCpReduceAsyncBulkPlugin: FamilyPlugin = {
  def: multimemCpReduceAsyncBulk,
  model: bulkModel,
  rules: multimemCpReduceAsyncBulkRules,
  shape: bulkShape,
  explain: {},
};
