/**
 * red.async in the litmus language (docs/litmus.md, 9.7.15.7): an asynchronous `.relaxed.cluster`
 * reduction on `.shared::cluster` memory (generic proxy) whose completion is a complete-tx of the
 * element's bytes on the mbarrier, with `.release` semantics at `.cluster` scope. The
 * `.release.{gpu,sys}` global form without an mbarrier is not modelled (it has no completion the
 * model's asynchronous operations can name).
 */
import type { LitmusFamily } from '../../registry/litmus-family.js';
import { elementBytes, modelSpace, operands, ordering, qualifiers, rmwUpdate, spaceQual } from '../shared/litmus.js';

export const redAsyncLitmus: LitmusFamily = {
  family: 'red.async',
  mnemonic: ['red', 'async'],
  lower(ins, ctx) {
    const q = qualifiers('red.async', ins, 2, ctx);
    if (!q.completion)
      ctx.fail(
        'red.async without .mbarrier::complete_tx::bytes (the .release.gpu/.sys global form) is not modelled in the litmus language; use the .mbarrier::complete_tx::bytes form on .shared::cluster memory',
      );
    if (!q.op || !q.type)
      ctx.fail('red.async needs .op and .type, e.g. red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [a], b, [mbar]');
    operands(ins, ctx, [3], '[a], b, [mbar]');
    const sq = q.space ? spaceQual(q.space) : 'shared::cluster';
    const loc = ctx.location(0, sq);
    const mbar = ctx.location(2, 'shared::cluster');
    const o = ordering(q, { sem: 'relaxed', scope: 'cluster' });
    return [
      {
        kind: 'async',
        accesses: [
          {
            kind: 'rmw',
            args: [ctx.value(1, q.type!)],
            update: rmwUpdate('red.async', q, modelSpace(sq, ctx.spaceOf(loc))),
            reduction: true,
            op: q.op,
            loc,
            sem: o.sem,
            scope: o.scope,
            proxy: 'generic',
            space: sq,
            line: ins.line,
          },
        ],
        completion: { kind: 'mbarrier', mbar, bytes: elementBytes(q.type!), sem: 'release', scope: 'cluster' },
        line: ins.line,
      },
    ];
  },
};
