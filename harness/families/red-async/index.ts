/**
 * red.async (PTX ISA 9.4 9.7.15.7): the catalog (catalog.ts); the integer reduction of b into the
 * element at [a], as atom/red compute it (../shared/atomic-rmw.ts rmwModel: "The .inc and .dec
 * operations return a result in the range [0..b]" is the same wrapping rule). It returns nothing.
 * No form takes a floating-point type, so the family has no floating-point rules.
 */
import type { FamilyPlugin } from '../../registry/plugin.js';
import { rmwModel, rmwShape } from '../shared/atomic-rmw.js';
import { redAsync } from './catalog.js';

const base = rmwShape(() => false);

export const redAsyncPlugin: FamilyPlugin = {
  def: redAsync,
  model: rmwModel(),
  rules: [],
  shape: {
    ...base,
    // the .relaxed form's memory is a remote CTA's shared memory, also through a generic address
    space: (q, c) => (q.sem === 'relaxed' ? 'shared' : base.space(q, c)),
    // each form spelled out: its state space and (the .relaxed form) its completion mechanism
    representative: (q) => (q.sem === 'relaxed' ? q.space === 'shared::cluster' && q.completion !== '' : q.space === 'global' && q.mmio === ''),
  },
  explain: {},
};
