/**
 * What cp.reduce.async.bulk (9.7.9.25.4.2) and multimem.cp.reduce.async.bulk (9.7.9.27) share beyond
 * their catalogs: a case is a destination array and a shared-memory source array of the same length
 * (any multiple of 16 bytes), reduced element by element into the destination.
 */
import { cite } from '../../catalog/cite.js';
import { type CaseShape, type FamilyModel, resolveSpace } from '../../registry/plugin.js';

/** Bulk sizes are multiples of 16 bytes. */
export const BULK_BYTES = 16;

/** cp.reduce.async.bulk's size rule (9.1 excerpt; the 9.4 text, 9.7.10.28.4.2: "`size` must be a multiple of 16. If the value is not a multiple of 16, then the behavior is undefined."). */
export const BULK_SIZE_RULE = cite('cp-reduce-async-bulk.md', 'Description', 'size must be a multiple of 16; dstMem and srcMem must be 16-byte aligned.');
/** multimem.cp.reduce.async.bulk's (PTX ISA 9.7.9.27, Description). */
export const MULTIMEM_BULK_SIZE_RULE = cite('multimem-cp-reduce-async-bulk.md', 'Description', 'Operand size must be a multiple of 16.');

export const bulkModel: FamilyModel = (_v, c, ctx) => {
  const mem = ctx.need(c.memory, 'memory (the destination array)');
  const src = ctx.need(c.source, 'source (the shared-memory array)');
  if (src.length !== mem.length) ctx.fail(`destination has ${mem.length} elements and source ${src.length}`);
  return { memory: mem.map((r, i) => ctx.elementOp(r, src[i]!, 0n)) };
};

export const bulkShape: CaseShape = {
  inputs: () => ['memory', 'source'],
  length: () => ({ kind: 'bulk', bytes: BULK_BYTES, rule: BULK_SIZE_RULE }),
  returns: () => false,
  results: 'memory',
  space: (q, c) => resolveSpace(q.dst, c),
  arbitrary: (_q, list, fc) => fc.record({ memory: list, source: list }),
  probeOp: (q) => q.op ?? '',
  directed: (_q, p) => ({ memory: p.a, source: p.b }),
  representative: () => true,
};

/**
 * multimem.cp.reduce.async.bulk: the destination is "memory locations residing on each GPU's memory
 * referred to by the multimem destination address range" (9.7.9.27), so a case holds the
 * destination array on each GPU (`replicas`, 2 to 8 when generated) and the source; every replica
 * is reduced with the source on its own.
 */
export const multimemBulkModel: FamilyModel = (_v, c, ctx) => {
  const reps = ctx.need(c.replicas, 'replicas (the destination array on each GPU)');
  const src = ctx.need(c.source, 'source (the shared-memory array)');
  reps.forEach((mem, r) => {
    if (mem.length !== src.length) ctx.fail(`replica ${r} has ${mem.length} elements and source ${src.length}`);
  });
  return { replicas: reps.map((mem) => mem.map((x, i) => ctx.elementOp(x, src[i]!, 0n))) };
};

export const multimemBulkShape: CaseShape = {
  inputs: () => ['replicas', 'source'],
  length: () => ({ kind: 'bulk', bytes: BULK_BYTES, rule: MULTIMEM_BULK_SIZE_RULE }),
  returns: () => false,
  results: 'replicas',
  space: () => 'global',
  arbitrary: (_q, list, fc) =>
    fc.record({ replicas: fc.integer({ min: 2, max: 8 }).chain((r) => fc.array(list, { minLength: r, maxLength: r })), source: list }),
  probeOp: (q) => q.op ?? '',
  // two GPUs holding the same destination values, each reduced with the source
  directed: (_q, p) => ({ replicas: [[...p.a], [...p.a]], source: p.b }),
  representative: () => true,
};
