/**
 * The instructions the litmus language lowers itself (extended.ts reads the file): a family's
 * instruction goes to its litmus.ts (litmusFamilyFor); the shared ones are lowered here, one branch
 * each: ld/st (and Dat3M's sust/suld/tld/cold), membar, fence.proxy.*, fence.mbarrier_init,
 * fence{.sem}.scope, bar{.cta}.sync/arrive, mbarrier.init/arrive{.expect_tx}/expect_tx/try_wait/
 * test_wait, cp.async.bulk copies and commit_group/wait_group, add/sub/mov/and/or/xor, beq/bne/goto/bra.
 * `branch` records a branch's target, which the reader checks against the thread's labels.
 */
import type { LitmusContext, LitmusInstruction } from '../registry/litmus-family.js';
import { litmusFamilyFor } from '../registry/litmus.js';
import { ELEMENT_FORMATS } from '../numerics/formats.js';
import { MAX_ARRAY, type Instr, type Proxy, type ProxyFenceSpace, type Scope, type Sem, type SpaceQual } from './events.js';

export const SCOPES: readonly Scope[] = ['cta', 'cluster', 'gpu', 'sys'];
const SPACES = ['global', 'shared', 'shared::cta', 'shared::cluster'];
export const TYPES = Object.keys(ELEMENT_FORMATS);
export const INT_LIT = /^-?(0x[0-9a-fA-F]+|\d+)$/;

export function lowerInstruction(ins: LitmusInstruction, ctx: LitmusContext, branch: (target: string, col: number) => void): Instr[] {
  const fam = litmusFamilyFor(ins.parts);
  if (fam) return fam.lower(ins, ctx);
  const p = ins.parts;
  const line = ins.line;
  const quals = (skip: number, allowed: Record<string, readonly string[]>) => {
    const q: Record<string, string> = {};
    for (const part of p.slice(skip)) {
      const slot = Object.keys(allowed).find((k) => q[k] === undefined && allowed[k]!.includes(part));
      if (!slot)
        ctx.fail(
          `'.${part}' is not a qualifier of ${p.slice(0, skip).join('.')} here (or repeats one); it takes ${Object.entries(allowed)
            .map(([k, v]) => `${k} {${v.map((x) => `.${x}`).join(' ')}}`)
            .join('; ')}`,
        );
      q[slot] = part;
    }
    return q;
  };
  const nops = (n: number, shape: string) => {
    if (ins.operands.length !== n) ctx.fail(`takes ${shape} (${n} operand${n === 1 ? '' : 's'}); this one has ${ins.operands.length}`);
  };
  const sq = (s: string | undefined): SpaceQual => (s === 'shared' ? 'shared::cta' : ((s as SpaceQual | undefined) ?? 'generic'));
  const mem = (q: Record<string, string>, defSem: Sem) => {
    const vol = q.sem === 'volatile';
    const sem = (vol ? 'relaxed' : q.sem === 'mmio' ? 'relaxed' : (q.sem ?? defSem)) as Sem;
    if (sem !== 'weak' && !q.scope && !vol && q.sem !== 'mmio')
      ctx.fail(`.${sem} needs a scope (8.5: each strong operation specifies one): add .cta, .cluster, .gpu or .sys`);
    const scope = (vol || q.sem === 'mmio' ? 'sys' : (q.scope ?? 'sys')) as Scope;
    return { sem, scope, ...(vol ? { volatile: true } : {}) };
  };
  const head = p[0]!;
  const proxyOf: Record<string, Proxy> = { sust: 'surface', suld: 'surface', tld: 'texture', cold: 'constant', ld: 'generic', st: 'generic' };
  if (head === 'ld' || head === 'suld' || head === 'tld' || head === 'cold') {
    const q = quals(1, { sem: ['weak', 'relaxed', 'acquire', 'volatile', 'mmio'], scope: SCOPES, space: SPACES, type: TYPES });
    nops(2, 'd, [a]');
    const dst = ctx.register(0);
    // Dat3M's `ld r0, 1`: a register set to a constant (the Memalloy tests)
    if (head === 'ld' && p.length === 1 && INT_LIT.test(ins.operands[1]!.text)) return [{ kind: 'local', dst, value: ctx.value(1, undefined), line }];
    return [{ kind: 'read', dst, loc: ctx.location(1, sq(q.space)), ...mem(q, 'weak'), proxy: proxyOf[head]!, space: sq(q.space), line }];
  }
  if (head === 'st' || head === 'sust') {
    const q = quals(1, { sem: ['weak', 'relaxed', 'release', 'volatile', 'mmio'], scope: SCOPES, space: SPACES, type: TYPES });
    nops(2, '[a], b');
    const loc = ctx.location(0, sq(q.space));
    return [{ kind: 'write', value: ctx.value(1, q.type), loc, ...mem(q, 'weak'), proxy: proxyOf[head]!, space: sq(q.space), line }];
  }
  if (head === 'membar') {
    const q = quals(1, { level: ['cta', 'gl', 'sys'] });
    nops(0, 'no operands');
    return [{ kind: 'fence', sem: 'sc', scope: q.level === 'gl' ? 'gpu' : ((q.level ?? 'sys') as Scope), line }];
  }
  if (head === 'fence' && p[1] === 'proxy' && p[2] === 'tensormap::generic') {
    // 9.7.15.4: uni-directional, generic to tensormap proxy; ".release" by itself, ".acquire" on "[addr], size" ("The only
    // supported value for the size operand is 128"); "A .release proxy fence can form a release sequence that synchronizes
    // with an acquire sequence that contains a .acquire proxy fence"
    const q = quals(3, { sem: ['release', 'acquire'], scope: SCOPES });
    if (!q.sem || !q.scope) ctx.fail('fence.proxy.tensormap::generic takes .release or .acquire and a scope (.cta, .cluster, .gpu, .sys)');
    if (q.sem === 'release') {
      nops(0, 'no operands');
      return [{ kind: 'proxyFence', proxy: 'tensormap', sem: 'release', scope: q.scope as Scope, line }];
    }
    nops(2, '[addr], 128');
    const covers = ctx.location(0, 'generic');
    if (ins.operands[1]!.text !== '128') ctx.fail('size must be 128 ("The only supported value for the size operand is 128", 9.7.15.4)', 1);
    if (!ctx.tensorMapAt(covers)) ctx.fail(`${covers} is not a tensor map: declare it, e.g. '${covers} @ tensormap d0, d1;'`, 0);
    return [{ kind: 'proxyFence', proxy: 'tensormap', sem: 'acquire', scope: q.scope as Scope, covers, line }];
  }
  if (head === 'tensormap' && p[1] === 'replace') {
    // the example of 9.7.15.4 writes a tensor map with tensormap.replace, then fence.proxy.tensormap::generic.release:
    // a write in the generic proxy. Its .global_address field: the tensor map then points at that location.
    if (p.slice(2).join('.') !== 'tile.global_address.global.b1024.b64')
      ctx.fail(
        'tensormap.replace.tile.global_address.global.b1024.b64 [tm], d is the form in the litmus language (the global address of the map, in global memory)',
      );
    nops(2, '[tm], d');
    const tm = ctx.location(0, 'global');
    const targets = ctx.tensorMapAt(tm);
    if (!targets) ctx.fail(`${tm} is not a tensor map: declare it, e.g. '${tm} @ tensormap d0, d1;'`, 0);
    const d = ins.operands[1]!.text;
    const k = targets!.indexOf(d);
    if (k < 0) ctx.fail(`${d} is not a location tensor map ${tm} is declared to point at (${targets!.join(', ')}); add it to its declaration`, 1);
    return [{ kind: 'write', value: { k: 'const', v: BigInt(k) }, loc: tm, sem: 'weak', scope: 'cta', proxy: 'generic', space: 'global', line }];
  }
  if (head === 'fence' && p[1] === 'proxy') {
    const q = quals(2, { proxy: ['alias', 'texture', 'surface', 'constant', 'async'], space: ['global', 'shared::cta', 'shared::cluster'] });
    nops(0, 'no operands');
    if (!q.proxy) ctx.fail('fence.proxy needs its kind: .alias, .async (optionally .global/.shared::cta/.shared::cluster), .texture, .surface or .constant');
    if (q.space && q.proxy !== 'async') ctx.fail(`only fence.proxy.async takes a state space`);
    return [{ kind: 'proxyFence', proxy: q.proxy as Proxy | 'alias', ...(q.space ? { space: q.space as ProxyFenceSpace } : {}), line }];
  }
  if (head === 'fence' && p[1] === 'mbarrier_init') {
    quals(2, { sem: ['release'], scope: ['cluster'] });
    nops(0, 'no operands');
    // 9.7.15.4: a light-weight fence.release.cluster that orders prior mbarrier.init only; modelled as fence.release.cluster
    return [{ kind: 'fence', sem: 'release', scope: 'cluster', line }];
  }
  if (head === 'fence') {
    const q = quals(1, { sem: ['sc', 'acq_rel', 'acquire', 'release'], scope: SCOPES });
    nops(0, 'no operands');
    if (!q.scope) ctx.fail('a fence needs its scope: fence{.sem}.cta, .cluster, .gpu or .sys');
    return [{ kind: 'fence', sem: (q.sem ?? 'acq_rel') as 'sc', scope: q.scope as Scope, line }];
  }
  if (head === 'bar' || head === 'barrier') {
    const q = quals(1, { level: ['cta'], mode: ['sync', 'arrive', 'red'], aligned: ['aligned'] });
    if (q.mode !== 'sync' && q.mode !== 'arrive') ctx.fail(`${head}{.cta}.sync and .arrive id{, count} are in the litmus language; .${q.mode ?? '?'} is not`);
    if (ins.operands.length < 1 || ins.operands.length > 3) ctx.fail('takes id, or (Dat3M) instance, id{, quorum}');
    // Dat3M: bar.cta.sync id | bar.cta.sync instance, id | bar.cta.sync instance, id, quorum
    const idAt = ins.operands.length >= 2 ? 1 : 0;
    return [
      {
        kind: 'barrier',
        id: ctx.value(idAt, undefined),
        ...(ins.operands[2] ? { count: ctx.value(2, undefined) } : {}),
        ...(q.mode === 'arrive' ? { arrive: true } : {}),
        line,
      },
    ];
  }
  if (head === 'mbarrier') {
    const op = p[1];
    const sem = {
      sem: ['relaxed', 'acquire', 'release'],
      scope: ['cta', 'cluster'],
      space: ['shared', 'shared::cta', 'shared::cluster'],
      type: ['b64'],
      phase: ['parity'],
    };
    if (op === 'init') {
      quals(2, { space: ['shared', 'shared::cta'], type: ['b64'] });
      nops(2, '[mbar], count');
      const mbar = ctx.location(0, 'shared::cta');
      const count = ins.operands[1]!.text;
      if (!/^\d+$/.test(count) || BigInt(count) < 1n) ctx.fail('the count is a positive integer (the expected arrivals)', 1);
      return [{ kind: 'mbarrier', op: 'init', mbar, count: BigInt(count), sem: 'relaxed', scope: 'cta', space: 'shared::cta', line }];
    }
    if (op === 'arrive' || op === 'expect_tx') {
      const expect = op === 'expect_tx' || p[2] === 'expect_tx';
      const q = quals(op === 'arrive' && expect ? 3 : 2, sem);
      const defSem = op === 'expect_tx' ? 'relaxed' : 'release';
      const s = (q.sem ?? defSem) as Sem;
      const scope = (q.scope ?? 'cta') as Scope;
      const space = sq(q.space ?? 'shared::cta');
      if (op === 'expect_tx') {
        nops(2, '[mbar], txCount');
        if (s !== 'relaxed') ctx.fail('mbarrier.expect_tx is .relaxed only (9.7.15.16.14)');
        return [{ kind: 'mbarrier', op: 'expect_tx', mbar: ctx.location(0, space), bytes: txCount(1), sem: 'relaxed', scope, space, line }];
      }
      if (s === 'acquire') ctx.fail('mbarrier.arrive is .release or .relaxed (9.7.15.16.16)');
      const n = expect ? 3 : ins.operands.length;
      if (n < 2 || n > 3 || ins.operands.length !== n) ctx.fail(expect ? 'takes state, [mbar], txCount' : 'takes state, [mbar]{, count}');
      if (ins.operands[0]!.text !== '_') ctx.register(0);
      const mbar = ctx.location(1, space);
      const out: Instr[] = [];
      if (expect) out.push({ kind: 'mbarrier', op: 'expect_tx', mbar, bytes: txCount(2), sem: 'relaxed', scope, space, line });
      out.push({ kind: 'mbarrier', op: 'arrive', mbar, ...(!expect && ins.operands[2] ? { count: txCount(2) } : {}), sem: s, scope, space, line });
      return out;
    }
    if (op === 'try_wait' || op === 'test_wait') {
      const q = quals(2, sem);
      nops(3, 'waitComplete, [mbar], state');
      const s = (q.sem ?? 'acquire') as Sem;
      if (s === 'release') ctx.fail(`mbarrier.${op} is .acquire or .relaxed (9.7.15.16.19)`);
      const dst = ctx.register(0);
      const space = sq(q.space ?? 'shared::cta');
      return [{ kind: 'mbarrier', op: 'try_wait', mbar: ctx.location(1, space), dst, sem: s, scope: (q.scope ?? 'cta') as Scope, space, line }];
    }
    ctx.fail(`mbarrier.${op ?? ''} is not in the litmus language; it has mbarrier.init, .arrive, .arrive.expect_tx, .expect_tx, .try_wait, .test_wait`);
  }
  if (head === 'cp' && p[1] === 'async' && p[2] === 'bulk' && (p[3] === 'commit_group' || p[3] === 'wait_group')) {
    if (p[3] === 'commit_group') {
      nops(0, 'no operands');
      return [{ kind: 'bulkCommit', line }];
    }
    if (p[4] !== undefined && (p[4] !== 'read' || p.length > 5)) ctx.fail(`cp.async.bulk.wait_group takes .read or nothing, not '.${p.slice(4).join('.')}'`);
    nops(1, 'N');
    const n = ins.operands[0]!.text;
    if (!/^\d+$/.test(n)) ctx.fail('N is a non-negative integer (the bulk async-groups that may stay pending)', 0);
    return [{ kind: 'bulkWait', n: Number(n), ...(p[4] === 'read' ? { read: true } : {}), line }];
  }
  if (head === 'cp' && p[1] === 'async' && p[2] === 'bulk') return bulkCopy();
  if (head === 'add' || head === 'sub' || head === 'mov' || head === 'and' || head === 'or' || head === 'xor') {
    quals(1, { type: TYPES });
    if (head === 'mov') {
      nops(2, 'd, a');
      return [{ kind: 'local', dst: ctx.register(0), value: ctx.value(1, undefined), line }];
    }
    nops(3, 'd, a, b');
    const op = ({ add: '+', sub: '-', and: '&', or: '|', xor: '^' } as const)[head];
    return [{ kind: 'local', dst: ctx.register(0), value: { k: 'bin', op, a: ctx.value(1, undefined), b: ctx.value(2, undefined) }, line }];
  }
  if (head === 'beq' || head === 'bne') {
    nops(3, 'a, b, LABEL');
    const target = ins.operands[2]!.text;
    branch(target, ins.operands[2]!.col);
    return [{ kind: 'branch', cond: { k: 'bin', op: head === 'beq' ? '==' : '!=', a: ctx.value(0, undefined), b: ctx.value(1, undefined) }, target, line }];
  }
  if (head === 'goto' || head === 'bra') {
    nops(1, 'LABEL');
    const target = ins.operands[0]!.text;
    branch(target, ins.operands[0]!.col);
    return [{ kind: 'branch', target, line }];
  }
  return ctx.fail(`'${ins.opcode}' is not an instruction of the litmus language; see docs/litmus.md for the instructions it reads`);

  /**
   * cp.async.bulk (9.7.10.28.4.1): an asynchronous operation (8.9.1.1) that reads `srcMem` and
   * writes `dstMem`, each with weak accesses ("When `.sem` is not specified, it defaults to `.weak`")
   * in the async proxy (9.7.10.28.2); completion by the direction's mechanism (the section's table:
   * `.mbarrier::...` for `.shared::cta.global`, `.shared::cluster.global` and
   * `.shared::cluster.shared::cta`, `.bulk_group` for `.global.shared::cta`), the complete-tx "with
   * `completeCount` argument equal to amount of data copied in bytes" and ".release semantics at the
   * `.cluster` scope". `size` "must be a multiple of 16": a scalar location is the first element of one
   * 16-byte chunk (size 16), an array (`d = {0, 0, 0, 0, 0};`) of as many chunks as its elements fill (size
   * 32 for five to eight elements); each element is one read and one write, with no order among them
   * (8.9.1.1), and the chunks' elements the test does not declare are zero on both sides. The `.relaxed.scope
   * ... .b128` form (PTX ISA 9.3) is not read: ptxas 13.0 reads PTX ISA up to 9.0.
   */
  function bulkCopy(): Instr[] {
    if (p[3] === 'tensor') return tensorCopy();
    if (p[3] === 'prefetch') ctx.fail('cp.async.bulk.prefetch is not in the litmus language (a prefetch has no litmus location); the bulk copies are');
    if (p[3] === 'relaxed')
      ctx.fail(
        'the .relaxed.scope ... .b128 form of cp.async.bulk (PTX ISA 9.3) is not in the litmus language (ptxas 13.0 reads PTX ISA up to 9.0): write the weak copy',
      );
    const q = quals(3, {
      sem: ['weak'],
      dst: ['shared::cta', 'shared::cluster', 'global'],
      src: ['global', 'shared::cta'],
      completion: ['mbarrier::complete_tx::bytes', 'bulk_group'],
    });
    const dir = `${q.dst}.${q.src}`;
    const mechanism = dir === 'global.shared::cta' ? 'bulk_group' : 'mbarrier::complete_tx::bytes';
    if (!['shared::cta.global', 'shared::cluster.global', 'shared::cluster.shared::cta', 'global.shared::cta'].includes(dir) || q.completion !== mechanism)
      ctx.fail(
        'cp.async.bulk takes .dst.src.completion_mechanism as 9.7.10.28.4.1 lists them: .shared::cta.global, .shared::cluster.global or .shared::cluster.shared::cta with .mbarrier::complete_tx::bytes, .global.shared::cta with .bulk_group',
      );
    const mb = mechanism !== 'bulk_group';
    nops(mb ? 4 : 3, mb ? '[dstMem], [srcMem], size, [mbar]' : '[dstMem], [srcMem], size');
    const dst = ctx.location(0, q.dst as SpaceQual);
    const src = ctx.location(1, q.src as SpaceQual);
    const size = txCount(2);
    // the elements each side declares (a scalar location: one); the copy covers exactly their chunks
    const count = (l: string) => {
      let n = 1;
      while (n < MAX_ARRAY && ctx.declared(`${l}+${4 * n}`)) n++;
      return n;
    };
    const n = Math.max(count(src), count(dst));
    const chunks = Math.ceil(n / 4);
    if (size !== BigInt(16 * chunks))
      ctx.fail(
        `size must be ${16 * chunks}: ${n > 1 ? `the arrays have ${n} elements, ${chunks} 16-byte chunk${chunks > 1 ? 's' : ''}` : 'a scalar location is one 16-byte chunk'} ("size must be a multiple of 16", 9.7.10.28.4.1); a copy of ${size} bytes needs arrays of ${size > 16n ? `${Number(size) / 4 - 3} to ${Number(size) / 4}` : 'one to four'} elements ('d = {0, 0, 0, 0, 0};')`,
        2,
      );
    const weak = { sem: 'weak' as Sem, scope: 'cta' as Scope, proxy: 'async' as Proxy, line };
    const accesses = Array.from({ length: n }, (_, k) => {
      const [s, d] = [src, dst].map((l) => (k ? `${l}+${4 * k}` : l));
      if (!ctx.declared(s!) || !ctx.declared(d!))
        ctx.fail(`${ctx.declared(s!) ? dst : src} has no element ${k} (${ctx.declared(s!) ? d : s}): declare source and destination as arrays of ${n}`, 1);
      const t = ctx.scratch('copy');
      // the elements in no order among themselves (8.9.1.1: the operation's accesses are not in program order), each read before its write
      const el = n > 1 ? { vector: { group: line ?? 0, element: k } } : {};
      return [
        { kind: 'read' as const, dst: t, loc: s!, space: q.src as SpaceQual, ...weak, ...el },
        { kind: 'write' as const, value: { k: 'reg' as const, r: t }, loc: d!, space: q.dst as SpaceQual, ...weak, ...el },
      ];
    }).flat();
    return [
      {
        kind: 'async',
        accesses,
        completion: mb ? { kind: 'mbarrier', mbar: ctx.location(3, 'shared::cluster'), bytes: size, sem: 'release', scope: 'cluster' } : { kind: 'bulk_group' },
        line,
      },
    ];
  }

  /**
   * cp.async.bulk.tensor (9.7.10.28.5.3) on a tensor map (`tm @ tensormap d0, d1`): the TMA load
   * (`.shared::cluster.global`, mbarrier completion; `.tile`, or `.im2col` with its `im2colInfo` offsets, each 0)
   * and the TMA store (`.global.shared::cta`, bulk group; `.tile` or `.im2col_no_offs`), of 1 to 5 dimensions
   * (im2col: 3 to 5, "the tensor has to be at least 3-dimensional"). As the bulk copies above: "The copy
   * operation in cp.async.bulk.tensor is treated as a weak memory operation and the complete-tx operation on
   * the mbarrier has .release semantics at the .cluster scope", after a read of the map in the tensormap proxy.
   * The litmus language's tensor map has a box of four 32-bit elements (an im2col box: four channels of one
   * pixel): the copy moves 16 bytes, and the location is the box's first element.
   */
  function tensorCopy(): Instr[] {
    const rest = p.slice(4).filter((x) => x !== 'tile');
    const mode = rest.find((x) => x.startsWith('im2col') || x.startsWith('tile::'));
    const rank = /^[1-5]d$/.test(rest[0] ?? '') ? Number(rest[0]![0]) : 0;
    const form = rest
      .slice(1)
      .filter((x) => x !== mode)
      .join('.');
    const load = form === 'shared::cluster.global.mbarrier::complete_tx::bytes';
    if (!rank || (!load && form !== 'global.shared::cta.bulk_group'))
      ctx.fail(
        'the litmus language has the .tile copies of 1 to 5 dimensions: cp.async.bulk.tensor.1d.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes [dst], [tm, {0}], [mbar] and cp.async.bulk.tensor.1d.global.shared::cta{.tile}.bulk_group [tm, {0}], [src] (.2d with [tm, {0, 0}], ...), and their .im2col/.im2col_no_offs forms of 3 to 5',
      );
    if (mode && mode !== (load ? 'im2col' : 'im2col_no_offs')) ctx.fail(TENSOR_LOAD_MODES);
    if (mode && rank < 3)
      ctx.fail(`.${mode} needs a tensor of 3 to 5 dimensions ("In each of these modes, the tensor has to be at least 3-dimensional"); this is ${rank}-D`);
    const offsets = mode === 'im2col';
    nops(
      load ? (offsets ? 4 : 3) : 2,
      load
        ? `[dstMem], [tensorMap, {0, ...}], [mbar]${offsets ? ', {0, ...} (im2colInfo: one offset per dimension but two)' : ''}`
        : '[tensorMap, {0, ...}], [srcMem]',
    );
    if (offsets) {
      const info = /^\{([^}]*)\}$/.exec(ins.operands[3]!.text);
      const zeros = info ? info[1]!.split(',').map((x) => x.trim()) : [];
      if (!info || zeros.length !== rank - 2 || zeros.some((x) => x !== '0'))
        ctx.fail(
          `im2colInfo is {${Array(rank - 2)
            .fill('0')
            .join(
              ', ',
            )}}: ${rank - 2} offset${rank > 3 ? 's' : ''} ("two less than number of dimensions"), each 0 (a litmus location is its box's first element)`,
          3,
        );
    }
    const { targets, via, mapRead } = tensorMapOperand(ins, ctx, load ? 1 : 0, rank);
    const t = ctx.scratch('copy');
    const weak = { sem: 'weak' as Sem, scope: 'cta' as Scope, proxy: 'async' as Proxy, line };
    if (load) {
      const dst = ctx.location(0, 'shared::cluster');
      return [
        {
          kind: 'async',
          accesses: [
            mapRead,
            { kind: 'read', dst: t, loc: targets[0]!, via, space: 'global', ...weak },
            { kind: 'write', value: { k: 'reg', r: t }, loc: dst, space: 'shared::cluster', ...weak },
          ],
          completion: { kind: 'mbarrier', mbar: ctx.location(2, 'shared::cluster'), bytes: 16n, sem: 'release', scope: 'cluster' },
          line,
        },
      ];
    }
    const src = ctx.location(1, 'shared::cta');
    return [
      {
        kind: 'async',
        accesses: [
          mapRead,
          { kind: 'read', dst: t, loc: src, space: 'shared::cta', ...weak },
          { kind: 'write', value: { k: 'reg', r: t }, loc: targets[0]!, via, space: 'global', ...weak },
        ],
        completion: { kind: 'bulk_group' },
        line,
      },
    ];
  }

  function txCount(i: number): bigint {
    const s = ins.operands[i]?.text ?? '';
    if (!/^\d+$/.test(s)) ctx.fail('a byte count (a non-negative integer) is expected here', i);
    return BigInt(s);
  }
}

/** Why the bulk tensor copies' other load modes are refused. */
export const TENSOR_LOAD_MODES =
  "the litmus language has the TMA load's .im2col and the TMA store's .im2col_no_offs (3 to 5 dimensions); the .im2col::w forms, .tile::gather4/.tile::scatter4 and .im2col_no_offs::w are not in it: they need sm_100a or newer (9.7.10.28.5.3: 'Qualifiers .tile::gather4 and .im2col::w require: sm_100a ...'), which this project's GPUs are not, and their box is not one element wide";

/**
 * A bulk tensor operation's `[tm, {0, ...}]` operand (operand `i`): the tensor map (declared `tm @ tensormap
 * d0, d1`) and its `rank` coordinates, each 0 (a litmus location is the first element of its tensor's
 * box, whatever the tensor's rank: the GPU runner makes the other dimensions of size 1). Gives the map's targets, the read of the map in the tensormap proxy that the operation
 * starts with ("The `tensorMap` is accessed in tensormap proxy", 9.7.10.28.5.4), and the `via` that
 * puts the operation's global access at the location the map it read points at.
 */
export function tensorMapOperand(ins: LitmusInstruction, ctx: LitmusContext, i: number, rank: number) {
  const o = ins.operands[i];
  const m = o ? /^(\w+)\s*,\s*\{([^}]*)\}$/.exec(o.text) : null;
  const zeros = Array(rank).fill('0').join(', ');
  const coords = m ? m[2]!.split(',').map((c) => c.trim()) : [];
  if (!m || !o!.bracketed || coords.length !== rank || coords.some((c) => !/^-?\d+$/.test(c)))
    return ctx.fail(`the tensor operand of a ${rank}-D form is '[tm, {${zeros}}]': a tensor map and ${rank} coordinate${rank > 1 ? 's' : ''}`, i);
  const tm = m[1]!;
  const targets = ctx.tensorMapAt(tm) ?? ctx.fail(`${tm} is not a tensor map: declare it, e.g. '${tm} @ tensormap d0, d1;'`, i);
  if (coords.some((c) => c !== '0'))
    ctx.fail(`the coordinate${rank > 1 ? 's' : ''} must be ${rank > 1 ? `{${zeros}}` : '0'}: a litmus location is the first element of its tensor`, i);
  const reg = ctx.scratch('tmap');
  const mapRead = {
    kind: 'read' as const,
    dst: reg,
    loc: tm,
    sem: 'weak' as Sem,
    scope: 'cta' as Scope,
    proxy: 'tensormap' as Proxy,
    space: 'global' as SpaceQual,
    line: ins.line,
  };
  return { tm, targets, via: { reg, targets }, mapRead };
}
