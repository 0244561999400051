/**
 * cp.reduce.async.bulk.tensor in the litmus language (docs/litmus.md; PTX ISA 9.4 9.7.10.28.5.4): the
 * `.tile` forms of 1 to 5 dimensions and the `.im2col_no_offs` forms of 3 to 5 on a tensor map declared `tm @ tensormap d0, d1` (a map of 32-bit elements whose
 * global address is one of those locations'). An asynchronous operation (8.9.1.1) that first reads
 * the tensor map ("The `tensorMap` is accessed in tensormap proxy"), then reads the `.shared::cta`
 * source ("The load operations ... are treated as weak memory operations", in the async proxy) and
 * reduces into element `tensorCoords` of the tensor the map it read points at ("Each reduction
 * operation ... has individually `.relaxed.gpu` memory ordering semantics and are element-wise
 * atomic"). A litmus location holds one element, so every coordinate is 0; the element type is the
 * map's, `.u32`. Completion: `.bulk_group` (the only mechanism the syntax gives).
 */
import type { LitmusFamily } from '../../registry/litmus-family.js';
import { qualifiers, rmwUpdate } from '../shared/litmus.js';
import { tensorMapOperand } from '../../memory-model/litmus-instructions.js';

const FAM = 'cp.reduce.async.bulk.tensor';

export const tensorLitmus: LitmusFamily = {
  family: FAM,
  mnemonic: ['cp', 'reduce', 'async', 'bulk', 'tensor'],
  lower(ins, ctx) {
    const q = qualifiers(FAM, ins, 5, ctx);
    const rank = /^[1-5]d$/.test(q.dim ?? '') ? Number(q.dim![0]) : 0;
    // .im2col_no_offs: "In .im2col mode, the tensor has to be at least 3-dimensional"; its box is the filter base's channels, which
    // for a litmus location (coordinates 0) starts at the location as a .tile box does; ::w is PTX ISA 9.4's (sm_107f)
    if (q.load_mode === 'im2col_no_offs::w')
      ctx.fail(
        '.im2col_no_offs::w (PTX ISA 9.4, sm_107f) is not in the litmus language: write .tile or .im2col_no_offs, whose ordering the text gives the same',
      );
    if (q.load_mode === 'im2col_no_offs' && rank < 3)
      ctx.fail(`.im2col_no_offs needs a tensor of 3 to 5 dimensions ("In .im2col mode, the tensor has to be at least 3-dimensional"); this is ${rank}-D`);
    if (!rank || q.hint || q.override_addr || q.override_attr)
      ctx.fail(
        'the litmus language has the .tile forms of 1 to 5 dimensions: cp.reduce.async.bulk.tensor.1d.global.shared::cta.OP{.tile}.bulk_group [tm, {0}], [src] (.2d with [tm, {0, 0}], ...; a litmus location is the first element of its tensor)',
      );
    if (!q.op || !q.completion)
      ctx.fail('cp.reduce.async.bulk.tensor needs .redOp and .completion_mechanism, e.g. ...1d.global.shared::cta.add.tile.bulk_group');
    if (ins.operands.length !== 2) ctx.fail('takes [tensorMap, {c0}], [srcMem]');
    const { targets, via, mapRead } = tensorMapOperand(ins, ctx, 0, rank);
    const src = ctx.location(1, 'shared::cta');
    const val = ctx.scratch('bulk');
    const type = q.op === 'and' || q.op === 'or' || q.op === 'xor' ? 'b32' : 'u32';
    return [
      {
        kind: 'async',
        accesses: [
          mapRead,
          { kind: 'read', dst: val, loc: src, sem: 'weak', scope: 'cta', proxy: 'async', space: 'shared::cta', line: ins.line },
          {
            kind: 'rmw',
            args: [{ k: 'reg', r: val }],
            update: rmwUpdate(FAM, { ...q, type }, 'global'),
            reduction: true,
            op: q.op,
            loc: targets[0]!,
            via,
            sem: 'relaxed',
            scope: 'gpu',
            proxy: 'async',
            space: 'global',
            line: ins.line,
          },
        ],
        completion: { kind: 'bulk_group' },
        line: ins.line,
      },
    ];
  },
};
