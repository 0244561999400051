/**
 * multimem.red / multimem.st / multimem.ld_reduce in the litmus language (docs/litmus.md,
 * 9.7.9.14; judged by the model only, never run). A multimem location `m @ multimem x0, x1;` stands
 * for its replicas (8.2.3: only multimem operations may name it): the instruction becomes one access
 * per replica, in the order listed, each with the instruction's `.sem`/`.scope`. `multimem.red`
 * without `.sem`/`.scope` is `.relaxed.sys`; `multimem.st` and `multimem.ld_reduce` without `.sem`
 * are `.weak`. ld_reduce combines the replicas' values with `+`, `&`, `|` or `^` (integer types);
 * its `.min`/`.max` and float forms need a reduction the model's expressions do not have.
 */
import type { Expr, Instr } from '../../memory-model/events.js';
import { ELEMENT_FORMATS } from '../../numerics/formats.js';
import type { LitmusContext, LitmusFamily, LitmusInstruction } from '../../registry/litmus-family.js';
import { operands, ordering, qualifiers, rmwUpdate } from './litmus.js';

function common(family: string, ins: LitmusInstruction, ctx: LitmusContext) {
  const q = qualifiers(family, ins, 2, ctx);
  if (q.vec) ctx.fail(`vector ${family} (.${q.vec}) is not in the litmus language: one location holds one element`);
  if (!q.type) ctx.fail(`${family} needs a .type`);
  return q;
}

export const multimemRedLitmus: LitmusFamily = {
  family: 'multimem.red',
  mnemonic: ['multimem', 'red'],
  lower(ins, ctx) {
    const q = common('multimem.red', ins, ctx);
    operands(ins, ctx, [2], '[a], b');
    const m = ctx.location(0, 'multimem');
    const o = ordering(q, { sem: 'relaxed', scope: 'sys' });
    const arg = ctx.value(1, q.type!);
    return ctx.replicas(m).map(
      (loc): Instr => ({
        kind: 'rmw',
        args: [arg],
        update: rmwUpdate('multimem.red', q, 'global'),
        reduction: true,
        op: q.op,
        loc,
        sem: o.sem,
        scope: o.scope,
        proxy: 'generic',
        space: loc === m ? 'multimem' : 'global',
        line: ins.line,
      }),
    );
  },
};

export const multimemStLitmus: LitmusFamily = {
  family: 'multimem.st',
  mnemonic: ['multimem', 'st'],
  lower(ins, ctx) {
    const q = common('multimem.st', ins, ctx);
    operands(ins, ctx, [2], '[a], b');
    const m = ctx.location(0, 'multimem');
    const o = ordering(q, { sem: 'weak', scope: 'sys' });
    const value = ctx.value(1, q.type!);
    return ctx
      .replicas(m)
      .map(
        (loc): Instr => ({ kind: 'write', value, loc, sem: o.sem, scope: o.scope, proxy: 'generic', space: loc === m ? 'multimem' : 'global', line: ins.line }),
      );
  },
};

const FOLD: Readonly<Record<string, '+' | '&' | '|' | '^'>> = { add: '+', and: '&', or: '|', xor: '^' };

export const multimemLdReduceLitmus: LitmusFamily = {
  family: 'multimem.ld_reduce',
  mnemonic: ['multimem', 'ld_reduce'],
  lower(ins, ctx) {
    const q = common('multimem.ld_reduce', ins, ctx);
    operands(ins, ctx, [2], 'd, [a]');
    const d = ctx.register(0);
    const m = ctx.location(1, 'multimem');
    const o = ordering(q, { sem: 'weak', scope: 'sys' });
    const reps = ctx.replicas(m);
    const fold = FOLD[q.op ?? ''];
    if (reps.length > 1 && (!fold || ELEMENT_FORMATS[q.type!]!.lane.kind !== 'int'))
      ctx.fail(
        `multimem.ld_reduce.${q.op}.${q.type} over ${reps.length} replicas is not in the litmus language: the model's register expressions combine integers with + & | ^ only; use .add/.and/.or/.xor on an integer type`,
      );
    const regs = reps.length === 1 ? [d] : reps.map(() => ctx.scratch('ldr'));
    const reads = reps.map(
      (loc, i): Instr => ({
        kind: 'read',
        dst: regs[i]!,
        loc,
        sem: o.sem,
        scope: o.scope,
        proxy: 'generic',
        space: loc === m ? 'multimem' : 'global',
        line: ins.line,
      }),
    );
    if (reps.length === 1) return reads;
    const bits = BigInt(ELEMENT_FORMATS[q.type!]!.bits);
    let e: Expr = { k: 'reg', r: regs[0]! };
    for (const r of regs.slice(1)) e = { k: 'bin', op: fold!, a: e, b: { k: 'reg', r } };
    if (fold === '+') e = { k: 'bin', op: '&', a: e, b: { k: 'const', v: (1n << bits) - 1n } };
    return [...reads, { kind: 'local', dst: d, value: e, line: ins.line }];
  },
};
