/**
 * cp.reduce.async.bulk (PTX ISA 9.7.9.25.4.2): the catalog (catalog.ts), its floating-point rules
 * (rules.ts), and the bulk model and case shape it shares with multimem.cp.reduce.async.bulk
 * (../shared/bulk.ts). The state space is the destination's (.dst).
 */
import type { FamilyPlugin } from '../../registry/plugin.js';
import { bulkModel, bulkShape } from '../shared/bulk.js';
import { cpReduceAsyncBulk } from './catalog.js';
import { cpReduceAsyncBulkRules } from './rules.js';

export const cpReduceAsyncBulkPlugin: FamilyPlugin = {
  def: cpReduceAsyncBulk,
  model: bulkModel,
  rules: cpReduceAsyncBulkRules,
  shape: bulkShape,
  explain: {},
};
