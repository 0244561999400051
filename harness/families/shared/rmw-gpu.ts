/**
 * The GPU kernel of atom and red (one thread per case, the instruction on the case's 16-byte slot):
 * shared by both families' gpu.ts. Shared-memory variants stage the slot in shared memory, operate
 * there and copy it back; generic variants do the same when launched with mode 1 (the case lands
 * in shared memory through a generic address, cvta.shared), else operate on the global slot. The
 * instruction line is the catalog's spelling with the operand shape of its syntax form, so what
 * runs is exactly what the catalog names.
 */
import { BLOCK, CASE_INDEX, type GpuFamily, KERNEL_PARAMS, type KernelShape, SLOT, type SweepHooks } from '../../backends/gpu/family.js';
import type { CatalogEntry } from '../../catalog/enumerate.js';
import { elementType, vectorLength } from '../../catalog/elements.js';
import type { ReferenceCase } from '../../reference/model.js';

const W = (w: number) => (w === 128 ? 'b128' : `b${w}`);
const regList = (prefix: string, lanes: number) => Array.from({ length: lanes }, (_, i) => `${prefix}${i}`);

export function rmwShape(e: CatalogEntry, returns: boolean): KernelShape {
  return {
    width: elementType(e.q.type ?? '').bits,
    elements: vectorLength(e.q.vec ?? ''),
    returns,
    clustered: false,
    generic: (e.q.space ?? '') === '',
  };
}

export function rmwKernel(name: string, e: CatalogEntry, k: KernelShape): string {
  const w = k.width;
  const n = k.elements;
  const bytes = w / 8;
  const shared = (e.q.space ?? '').startsWith('shared');
  const stage = shared || k.generic;
  const lines: string[] = [];
  lines.push(`.visible .entry ${name}${KERNEL_PARAMS}`, '{');
  if (stage) lines.push(`  .shared .align 16 .b8 smem[${BLOCK * SLOT}];`);
  lines.push('  .reg .b64 %a<14>;', '  .reg .b32 %s<7>;', '  .reg .pred %p, %q;', `  .reg .${W(w)} %d<${n}>, %b<${n}>, %c<${n}>;`);
  if (w === 128) lines.push('  .reg .b64 %lo, %hi;');
  lines.push('  .reg .b64 %pol;');
  lines.push(
    '  ld.param.u64 %a0, [pmem];',
    '  ld.param.u64 %a1, [pb];',
    '  ld.param.u64 %a2, [pc];',
    '  ld.param.u64 %a3, [pout];',
    '  ld.param.u64 %a4, [pn];',
    '  ld.param.u32 %s5, [pmode];',
    ...CASE_INDEX,
    '  add.u64 %a7, %a0, %a6;', // memory slot
    '  add.u64 %a8, %a1, %a6;', // b slot
    '  add.u64 %a9, %a2, %a6;', // c slot
    '  add.u64 %a10, %a3, %a6;', // out slot
  );
  const load = (reg: string, base: string, i: number) =>
    w === 128
      ? [`  ld.global.v2.b64 {%lo, %hi}, [${base}+${i * bytes}];`, `  mov.b128 ${reg}, {%lo, %hi};`]
      : [`  ld.global.${W(w)} ${reg}, [${base}+${i * bytes}];`];
  const store = (base: string, i: number, reg: string) =>
    w === 128
      ? [`  mov.b128 {%lo, %hi}, ${reg};`, `  st.global.v2.b64 [${base}+${i * bytes}], {%lo, %hi};`]
      : [`  st.global.${W(w)} [${base}+${i * bytes}], ${reg};`];
  for (let i = 0; i < n; i++) lines.push(...load(`%b${i}`, '%a8', i), ...load(`%c${i}`, '%a9', i));
  let addr = '%a7';
  if (shared) {
    lines.push(
      '  mov.u32 %s4, smem;',
      `  mad.lo.u32 %s4, %s2, ${SLOT}, %s4;`,
      '  ld.global.v2.b64 {%a11, %a6}, [%a7];',
      '  st.shared.v2.b64 [%s4], {%a11, %a6};',
    );
    addr = '%s4';
  } else if (k.generic) {
    // mode 1: the slot lives in shared memory and the instruction reaches it through a generic address
    lines.push(
      '  setp.ne.u32 %q, %s5, 0;',
      '  @!%q bra GLOBAL;',
      '  mov.u32 %s4, smem;',
      `  mad.lo.u32 %s4, %s2, ${SLOT}, %s4;`,
      '  ld.global.v2.b64 {%a11, %a12}, [%a7];',
      '  st.shared.v2.b64 [%s4], {%a11, %a12};',
      '  cvt.u64.u32 %a13, %s4;',
      '  cvta.shared.u64 %a7, %a13;',
      'GLOBAL:',
    );
  }
  if ((e.q.hint ?? '') !== '') lines.push('  createpolicy.fractional.L2::evict_last.b64 %pol, 1.0;');
  const vec = (p: string) => (n === 1 ? `${p}0` : `{${regList(p, n).join(', ')}}`);
  const ops: string[] = [];
  for (const kind of e.operands) {
    if (kind === 'd') ops.push((e.q.d ?? '') === '_' ? '_' : vec('%d'));
    else if (kind === 'a') ops.push(`[${addr}]`);
    else if (kind === 'b') ops.push(vec('%b'));
    else if (kind === 'c') ops.push(vec('%c'));
    else if (kind === 'policy' && (e.q.hint ?? '') !== '') ops.push('%pol');
  }
  lines.push(`  ${e.ptx} ${ops.join(', ')};`);
  if (shared) lines.push('  ld.shared.v2.b64 {%a11, %a6}, [%s4];', '  st.global.v2.b64 [%a7], {%a11, %a6};');
  else if (k.generic) {
    lines.push(
      '  @!%q bra STORED;',
      '  ld.shared.v2.b64 {%a11, %a12}, [%s4];',
      '  add.u64 %a7, %a0, %a6;',
      '  st.global.v2.b64 [%a7], {%a11, %a12};',
      'STORED:',
    );
  }
  if (k.returns) for (let i = 0; i < n; i++) lines.push(...store('%a10', i, `%d${i}`));
  lines.push('DONE:', '  ret;', '}');
  return lines.join('\n');
}

/** atom/red cases fit a slot when each field has the vector length's elements. */
export function rmwCaseUnfit(c: ReferenceCase, k: KernelShape): string | undefined {
  // a generic vector variant in shared memory: the spec allows it only where the address is global
  if (k.generic && k.elements > 1 && c.space === 'shared')
    return 'a vector atom/red with a generic address in shared memory, which the spec does not allow (9.7.13.5, 9.7.13.6)';
  for (const [name, xs] of [
    ['memory', c.memory],
    ['b', c.b],
    ['c', c.c],
  ] as const) {
    if (xs && xs.length !== k.elements) return `${name} has ${xs.length} elements; the instruction takes ${k.elements}`;
  }
  return undefined;
}

export const PTXAS_BF16_BIT_BUCKET =
  'ptxas 13.0 and 11.8 crash (SIGSEGV) on atom with the bit bucket _ and a bf16 type (reports/findings/ptxas-13.0-atom-bitbucket-bf16-segfault/); no cubin can hold it';

/**
 * The instruction of a sweep kernel on the thread's slot: global (the results buffer itself),
 * shared (staged in the thread's shared slot), or generic (global, or shared through cvta.shared
 * when the launch's mode is 1). Returned values land in %d<k>.
 */
function rmwSweepBody(e: CatalogEntry, k: KernelShape): ReturnType<SweepHooks['body']> {
  const T = W(k.width);
  const n = k.elements;
  const bytes = k.width / 8;
  const lines: string[] = [];
  let target: string;
  let result: { ld: string; base: string };
  if ((e.q.space ?? '').startsWith('shared')) {
    for (let i = 0; i < n; i++) lines.push(`  st.shared.${T} [%sa+${i * bytes}], %m${i};`);
    target = '%sa';
    result = { ld: 'ld.shared', base: '%sa' };
  } else if (k.generic) {
    lines.push('  and.b32 %u, %mode, 1;', '  setp.ne.u32 %gen, %u, 0;');
    for (let i = 0; i < n; i++) lines.push(`  @%gen st.shared.${T} [%sa+${i * bytes}], %m${i};`, `  @!%gen st.global.${T} [%addr+${i * bytes}], %m${i};`);
    lines.push('  cvt.u64.u32 %x64, %sa;', '  cvta.shared.u64 %x64, %x64;', '  @!%gen mov.u64 %x64, %addr;');
    target = '%x64';
    result = { ld: 'ld', base: '%x64' };
  } else {
    for (let i = 0; i < n; i++) lines.push(`  st.global.${T} [%addr+${i * bytes}], %m${i};`);
    target = '%addr';
    result = { ld: 'ld.global', base: '%addr' };
  }
  lines.push(...rmwInstruction(e, k, target));
  return { decls: [], lines, result };
}

/**
 * The catalog's instruction on the address in register `target`: operands %bv<k> (b), %cv<k> (c),
 * returned values into %d<k>; a cache hint's policy made into %pol first.
 */
export function rmwInstruction(e: CatalogEntry, k: KernelShape, target: string): string[] {
  const n = k.elements;
  const lines: string[] = [];
  const hint = (e.q.hint ?? '') !== '';
  if (hint) lines.push('  createpolicy.fractional.L2::evict_last.b64 %pol, 1.0;');
  const vec = (p: string) => (n === 1 ? `${p}0` : `{${regList(p, n).join(', ')}}`);
  const ops: string[] = [];
  for (const kind of e.operands) {
    if (kind === 'd') ops.push((e.q.d ?? '') === '_' ? '_' : vec('%d'));
    else if (kind === 'a') ops.push(`[${target}]`);
    else if (kind === 'b') ops.push(vec('%bv'));
    else if (kind === 'c') ops.push(vec('%cv'));
    else if (kind === 'policy' && hint) ops.push('%pol');
  }
  lines.push(`  ${e.ptx} ${ops.join(', ')};`);
  return lines;
}

/**
 * Sweeps of atom and red: add/min/max and cas as the catalog names them; a generic scalar or packed
 * variant also with its addresses in shared memory (a vector one "may be used only with .global
 * space and with generic addressing where the address points to .global space", 9.7.13.5 atom /
 * 9.7.13.6 red: in shared memory its results are undefined); every ordering, scope and cache hint
 * on the family's `.global.add.noftz.f16` (atom: with a destination).
 */
const rmwSweep: SweepHooks = {
  op: (e) => e.q.op,
  modes: (e, k) => (k.generic && !e.q.vec ? [0, 1] : [0]),
  qualifierRepresentative: (e) => e.q.op === 'add' && e.q.type === 'f16' && e.q.space === 'global' && !e.q.vec && !e.q.d,
  body: rmwSweepBody,
};

export function rmwGpu(returns: (e: CatalogEntry) => boolean): GpuFamily {
  return {
    unsupported: (e) => ((e.q.d ?? '') === '_' && /bf16/.test(e.q.type ?? '') ? PTXAS_BF16_BIT_BUCKET : undefined),
    shape: (e) => rmwShape(e, returns(e)),
    kernel: rmwKernel,
    caseUnfit: rmwCaseUnfit,
    sweep: rmwSweep,
    contend: { instruction: rmwInstruction },
  };
}
