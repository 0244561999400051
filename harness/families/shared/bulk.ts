/**
 * What cp.reduce.async.bulk (9.7.9.25.4.2) and multimem.cp.reduce.async.bulk (9.7.9.27) share beyond
 * their catalogs: a case is a destination array and a shared-memory source array of the same length
 * (any multiple of 16 bytes), reduced element by element into the destination.
 */
import fc from 'fast-check';
import { type CaseShape, type FamilyModel, resolveSpace } from '../plugin.js';

/** Bulk sizes are multiples of 16 bytes. */
export const BULK_BYTES = 16;

export const bulkModel: FamilyModel = (_v, c, ctx) => {
  const mem = ctx.need(c.memory, 'memory (the destination array)');
  const src = ctx.need(c.source, 'source (the shared-memory array)');
  if (src.length !== mem.length) ctx.fail(`destination has ${mem.length} elements and source ${src.length}`);
  return { memory: mem.map((r, i) => ctx.elementOp(r, src[i]!, 0n)) };
};

export const bulkShape: CaseShape = {
  inputs: () => ['memory', 'source'],
  length: () => ({ kind: 'bulk', bytes: BULK_BYTES }),
  returns: () => false,
  results: 'memory',
  space: (q, c) => resolveSpace(q.dst, c),
  arbitrary: (_q, list) => fc.record({ memory: list, source: list }),
  probeOp: (q) => q.op ?? '',
  directed: (_q, p) => ({ memory: p.a, source: p.b }),
  representative: () => true,
};
