/**
 * cp.reduce.async.bulk in the litmus language (docs/litmus.md, 9.7.10.28.4.2): an asynchronous
 * operation (8.9.1.1) that reads the `.shared::cta` source through the async proxy and reduces into
 * the destination in the async proxy, each element's reduction with the `.sem.scope` spelled or, where
 * none is, the default the catalog's rows give under the run's edition (9.1-9.2: "individually
 * `.relaxed.gpu`"; 9.3 on: "it defaults to `.relaxed.sys`"). A `.shared::cluster` destination
 * without `.scope` under 9.3 on, where the text's `.sys` is not a scope its grammar allows (the
 * catalog takes no default), reduces at `.cluster`: only threads of the destination's cluster can
 * access it, so `.cluster` and `.sys` are the same there (docs/memory-model.md). Completion:
 * `.bulk_group` (a later `cp.async.bulk.wait_group` waits for it, then an implicit generic-async proxy
 * fence) or `.mbarrier::complete_tx::bytes` (a complete-tx of `size` bytes with `.release` at
 * `.cluster` scope, ordered only after this operation's own accesses). A litmus location holds one
 * element, so `size` is the bytes of one element of `.type`.
 */
import { effectiveQualifiers } from '../../catalog/evaluate.js';
import type { LitmusFamily } from '../../registry/litmus-family.js';
import { elementBytes, modelSpace, operands, ordering, qualifiers, rmwUpdate, spaceQual } from '../shared/litmus.js';
import type { Scope, Sem } from '../../memory-model/events.js';
import { cpReduceAsyncBulk } from './catalog.js';

/** The ordering of each element's reduction: as spelled, else the catalog's default under the run's edition. */
export function bulkOrdering(q: Readonly<Record<string, string>>): { sem: Sem; scope: Scope } {
  const eff = effectiveQualifiers(cpReduceAsyncBulk, q);
  const scope = eff.scope ?? (q.dst === 'shared::cluster' ? 'cluster' : undefined);
  if (!eff.sem || !scope) throw new Error(`cp.reduce.async.bulk: no default .sem.scope for ${JSON.stringify(q)}`);
  return ordering(q, { sem: eff.sem as Sem, scope: scope as Scope });
}

export const bulkLitmus: LitmusFamily = {
  family: 'cp.reduce.async.bulk',
  mnemonic: ['cp', 'reduce', 'async', 'bulk'],
  lower(ins, ctx) {
    const q = qualifiers('cp.reduce.async.bulk', ins, 4, ctx);
    if (!q.dst || !q.src || !q.completion || !q.op || !q.type)
      ctx.fail('cp.reduce.async.bulk needs .dst.src.completion_mechanism.op.type, e.g. cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [x], [s], 4');
    const type = q.type!;
    const mb = q.completion!.startsWith('mbarrier');
    operands(ins, ctx, [mb ? 4 : 3], mb ? '[dstMem], [srcMem], size, [mbar]' : '[dstMem], [srcMem], size');
    const dq = spaceQual(q.dst);
    const dst = ctx.location(0, dq);
    const src = ctx.location(1, 'shared::cta');
    const bytes = elementBytes(type);
    const size = ins.operands[2]!.text;
    if (!/^\d+$/.test(size) || BigInt(size) !== bytes)
      ctx.fail(`size must be ${bytes}, the bytes of one .${type} element (a litmus location holds one element)`, 2);
    const t = ctx.scratch('bulk');
    const o = bulkOrdering(q);
    return [
      {
        kind: 'async',
        accesses: [
          { kind: 'read', dst: t, loc: src, sem: 'weak', scope: 'cta', proxy: 'async', space: 'shared::cta', line: ins.line },
          {
            kind: 'rmw',
            args: [{ k: 'reg', r: t }],
            update: rmwUpdate('cp.reduce.async.bulk', q, modelSpace(dq, ctx.spaceOf(dst))),
            reduction: true,
            op: q.op,
            loc: dst,
            sem: o.sem,
            scope: o.scope,
            proxy: 'async',
            space: dq,
            line: ins.line,
          },
        ],
        completion: mb ? { kind: 'mbarrier', mbar: ctx.location(3, 'shared::cluster'), bytes, sem: 'release', scope: 'cluster' } : { kind: 'bulk_group' },
        line: ins.line,
      },
    ];
  },
};
