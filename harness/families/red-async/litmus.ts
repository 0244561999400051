/**
 * red.async in the litmus language (docs/litmus.md, 9.7.15.7): an asynchronous `.relaxed.cluster`
 * reduction on `.shared::cluster` memory (generic proxy) whose completion is a complete-tx of the
 * element's bytes on the mbarrier, with `.release` semantics at `.cluster` scope; or the
 * `red.async{.mmio}.release.{gpu,sys}{.global}.add.type [a], b` form: "a strong memory operation
 * with `.release` semantics at the scope specified by `.scope`" whose completion "synchronizes with
 * the end of the CTA" (nothing the thread can wait for). Asynchronous, it is ordered after the
 * issuing thread's prior instructions (8.9.1.1) and, a release operation, starts a release pattern
 * (8.8 (1)): the model reads it as publishing the issuer's earlier writes (docs/memory-model.md; the
 * text does not say otherwise, and RedAsync+release.gpu+MP pins the choice).
 */
import type { LitmusFamily } from '../../registry/litmus-family.js';
import { elementBytes, modelSpace, operands, ordering, qualifiers, rmwUpdate, spaceQual } from '../shared/litmus.js';

export const redAsyncLitmus: LitmusFamily = {
  family: 'red.async',
  mnemonic: ['red', 'async'],
  lower(ins, ctx) {
    const q = qualifiers('red.async', ins, 2, ctx);
    if (!q.completion) return releaseForm(ins, ctx, q);
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

/** The `.release.{gpu,sys}` form on global memory, completed at the end of the CTA. */
function releaseForm(ins: Parameters<LitmusFamily['lower']>[0], ctx: Parameters<LitmusFamily['lower']>[1], q: Readonly<Record<string, string>>) {
  if (q.sem !== 'release' || (q.scope !== 'gpu' && q.scope !== 'sys'))
    ctx.fail('red.async without .mbarrier::complete_tx::bytes is the .release.gpu/.sys form (9.7.15.7): red.async.release.gpu.global.add.u32 [a], b');
  if (!q.op || !q.type) ctx.fail('red.async needs .op and .type, e.g. red.async.release.gpu.global.add.u32 [a], b');
  if (q.space && q.space !== 'global')
    ctx.fail(`the .release form of red.async takes .global or no state space, not .${q.space} (9.7.15.7: "If .ss is specified, it must be .global")`);
  operands(ins, ctx, [2], '[a], b');
  const sq = q.space ? spaceQual(q.space) : 'generic';
  const loc = ctx.location(0, sq);
  if (ctx.spaceOf(loc) !== 'global') ctx.fail(`the .release form of red.async reduces global memory; ${ins.operands[0]!.text} is not global`, 0);
  return [
    {
      kind: 'async' as const,
      accesses: [
        {
          kind: 'rmw' as const,
          args: [ctx.value(1, q.type!)],
          update: rmwUpdate('red.async', q, modelSpace(sq, ctx.spaceOf(loc))),
          reduction: true,
          op: q.op,
          loc,
          sem: 'release' as const,
          scope: q.scope as 'gpu' | 'sys',
          proxy: 'generic' as const,
          space: sq,
          line: ins.line,
        },
      ],
      completion: { kind: 'cta-end' as const },
      line: ins.line,
    },
  ];
}
