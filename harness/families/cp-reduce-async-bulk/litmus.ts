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
 * element, so `size` is the bytes of one element of `.type`, or of as many 32-bit elements as an array has.
 */
import { effectiveQualifiers } from '../../catalog/evaluate.js';
import type { LitmusFamily } from '../../registry/litmus-family.js';
import { elementBytes, modelSpace, operands, ordering, qualifiers, rmwUpdate, spaceQual } from '../shared/litmus.js';
import { MAX_ARRAY, type Scope, type Sem } from '../../memory-model/events.js';
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
    // one element, or n elements of a 32-bit type over arrays (`d = {0, 0};`): "Each reduction operation performed by
    // cp.reduce.async.bulk has individually .relaxed.gpu memory ordering semantics" (per element, none among them)
    const n = /^\d+$/.test(size) ? Number(BigInt(size) / bytes) : 0;
    if (!/^\d+$/.test(size) || BigInt(size) % bytes !== 0n || n < 1 || (n > 1 && bytes !== 4n) || n > MAX_ARRAY)
      ctx.fail(
        `size must be ${bytes} (one .${type} element), or for a 32-bit type a multiple of 4 up to ${4 * MAX_ARRAY} over arrays of as many elements ('d = {0, 0};')`,
        2,
      );
    const at = (loc: string, k: number) => {
      const name = k ? `${loc}+${4 * k}` : loc;
      if (k && !ctx.declared(name)) ctx.fail(`${loc} has no element ${k} (${name}): declare it as an array of ${n}, e.g. '${loc} = {0, 0};'`, 2);
      return name;
    };
    const o = bulkOrdering(q);
    const accesses = Array.from({ length: n }, (_, k) => {
      const t = ctx.scratch('bulk');
      // the elements in no order among themselves (8.9.1.1), each read before its reduction
      const el = n > 1 ? { vector: { group: ins.line, element: k } } : {};
      return [
        {
          kind: 'read' as const,
          dst: t,
          loc: at(src, k),
          sem: 'weak' as const,
          scope: 'cta' as const,
          proxy: 'async' as const,
          space: 'shared::cta' as const,
          line: ins.line,
          ...el,
        },
        {
          kind: 'rmw' as const,
          args: [{ k: 'reg' as const, r: t }],
          update: rmwUpdate('cp.reduce.async.bulk', q, modelSpace(dq, ctx.spaceOf(dst))),
          reduction: true,
          op: q.op,
          loc: at(dst, k),
          sem: o.sem,
          scope: o.scope,
          proxy: 'async' as const,
          space: dq,
          line: ins.line,
          ...el,
        },
      ];
    }).flat();
    return [
      {
        kind: 'async',
        accesses,
        completion: mb
          ? { kind: 'mbarrier', mbar: ctx.location(3, 'shared::cluster'), bytes: bytes * BigInt(n), sem: 'release', scope: 'cluster' }
          : { kind: 'bulk_group' },
        line: ins.line,
      },
    ];
  },
};
