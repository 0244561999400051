/**
 * The host-memory kernels: every GPU thread adds itself to the control block's `arrived` word, spins
 * on `go` (ld.relaxed.sys, bounded by %globaltimer: 3 s), then runs its iterations of the catalog's
 * instruction (rmwInstruction: the variant's own spelling) on the word under test; thread 0 publishes
 * its progress and counts the iterations at which the CPU's progress was mid-run (overlap evidence).
 * The control block and native/src/hostmem.cc agree on its layout (u32 words 64 bytes apart: arrived,
 * go, GPU progress, CPU progress). `out` (device memory): u32 thread 0's overlap count, u32 GPU threads
 * that timed out waiting, u64 cas successes, then from byte 64 one u64 returned value per operation
 * (exch: thread-major).
 * One kernel per (variant, class); sizes and operands are parameters (plan.ts, judge.ts).
 */
import type { CatalogEntry } from '../catalog/enumerate.js';
import { rmwInstruction, rmwShape } from '../families/shared/rmw-gpu.js';
import type { OpClass } from './judge.js';

export const HOSTMEM_PARAMS =
  '(.param .u64 pdata, .param .u64 pctrl, .param .u64 pout, .param .u32 piters, .param .u32 pcpu, .param .u64 punit, .param .u64 pstride, .param .u64 poff)';

export function hostmemKernelName(key: string): string {
  let h = 0x811c9dc5;
  for (const ch of key) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `hm_${h.toString(16).padStart(8, '0')}`;
}

export function kernelKey(cls: OpClass | 'single', entry: CatalogEntry, partner?: CatalogEntry): string {
  return `${cls}|${entry.id}|${partner?.id ?? ''}`;
}

/** The kernel of a class on a variant (and/or: with its partner). `single`: one thread, one operation of operand punit, returned value to out+64. */
export function hostmemKernel(cls: OpClass | 'single', e: CatalogEntry, partner?: CatalogEntry): string {
  const k = rmwShape(e, (e.operands as readonly string[]).includes('d') && (e.q.d ?? '') !== '_');
  const w = k.width;
  const T = `b${w}`;
  const name = hostmemKernelName(kernelKey(cls, e, partner));
  const L: string[] = [`.visible .entry ${name}${HOSTMEM_PARAMS}`, '{'];
  L.push(
    '  .reg .b64 %data, %ctrl, %out, %unit, %stride, %off, %x, %y, %tt, %kk, %t0, %t1, %g, %succ, %po;',
    '  .reg .b32 %t, %k, %iters, %cpu, %go, %cp, %mid, %u, %v;',
    '  .reg .b16 %h;',
    '  .reg .pred %p, %q, %lead;',
    `  .reg .${T} %d0, %bv0, %cv0;`,
    '  .reg .b64 %pol;',
    '  ld.param.u64 %data, [pdata];',
    '  ld.param.u64 %ctrl, [pctrl];',
    '  ld.param.u64 %out, [pout];',
    '  ld.param.u32 %iters, [piters];',
    '  ld.param.u32 %cpu, [pcpu];',
    '  ld.param.u64 %unit, [punit];',
    '  ld.param.u64 %stride, [pstride];',
    '  ld.param.u64 %off, [poff];',
    '  mov.u32 %t, %ctaid.x;',
    '  mov.u32 %u, %ntid.x;',
    '  mov.u32 %v, %tid.x;',
    '  mad.lo.u32 %t, %t, %u, %v;',
    '  setp.eq.u32 %lead, %t, 0;',
    '  cvt.u64.u32 %tt, %t;',
    // arrive, then wait for go (bounded)
    '  red.relaxed.sys.global.add.u32 [%ctrl], 1;',
    '  mov.u64 %t0, %globaltimer;',
    'SPIN:',
    '  ld.relaxed.sys.global.u32 %go, [%ctrl+64];',
    '  setp.ne.u32 %p, %go, 0;',
    '  @%p bra START;',
    '  mov.u64 %t1, %globaltimer;',
    '  sub.u64 %t1, %t1, %t0;',
    '  setp.lt.u64 %p, %t1, 3000000000;',
    '  @%p bra SPIN;',
    '  red.global.add.u32 [%out+4], 1;',
    'START:',
    '  mov.u32 %k, 0;',
    '  mov.u32 %mid, 0;',
    '  mov.u64 %g, 0;',
    '  mov.u64 %succ, 0;',
    'LOOP:',
    '  setp.ge.u32 %p, %k, %iters;',
    '  @%p bra END;',
    '  cvt.u64.u32 %kk, %k;',
  );
  // the operand in %x (u64) -> a register of the width
  const to = (reg: string, src: string): string[] =>
    w === 64
      ? [`  mov.b64 ${reg}, ${src};`]
      : w === 32
        ? [`  cvt.u32.u64 %u, ${src};`, `  mov.b32 ${reg}, %u;`]
        : [`  cvt.u16.u64 %h, ${src};`, `  mov.b16 ${reg}, %h;`];
  const from = (dst: string, reg: string): string[] =>
    w === 64
      ? [`  mov.b64 ${dst}, ${reg};`]
      : w === 32
        ? [`  mov.b32 %u, ${reg};`, `  cvt.u64.u32 ${dst}, %u;`]
        : [`  mov.b16 %h, ${reg};`, `  cvt.u64.u16 ${dst}, %h;`];
  const ins = (entry: CatalogEntry) => rmwInstruction(entry, rmwShape(entry, k.returns), '%data');
  const store = [
    '  mad.lo.u32 %u, %t, %iters, %k;',
    '  mul.wide.u32 %po, %u, 8;',
    '  add.u64 %po, %out, %po;',
    ...from('%y', '%d0'),
    '  st.global.u64 [%po+64], %y;',
  ];
  switch (cls) {
    case 'single':
      L.push(...to('%bv0', '%unit'), ...ins(e), ...(k.returns ? [...from('%y', '%d0'), '  st.global.u64 [%out+64], %y;'] : []));
      break;
    case 'add':
    case 'inc':
    case 'dec':
    case 'fadd':
      L.push(...to('%bv0', '%unit'), ...ins(e));
      break;
    case 'min':
    case 'max':
      L.push('  mad.lo.u64 %x, %kk, %stride, %tt;', '  add.u64 %x, %x, %off;');
      if (cls === 'max') L.push('  add.u64 %x, %x, 1;');
      else if (e.q.type?.startsWith('s')) L.push('  not.b64 %x, %x;');
      else L.push('  add.u64 %x, %x, 1;', '  not.b64 %x, %x;');
      L.push(...to('%bv0', '%x'), ...ins(e));
      break;
    case 'or':
    case 'and':
    case 'xor': {
      L.push('  cvt.u32.u64 %u, %off;', '  add.u32 %u, %u, %t;', '  mov.b64 %x, 1;', '  shl.b64 %x, %x, %u;', '  not.b64 %y, %x;');
      if (cls === 'xor') L.push(...to('%bv0', '%x'), ...ins(e));
      else {
        if (!partner) throw new Error(`${e.id}: an or/and job needs its partner`);
        // or job: even iterations set (or), odd clear (and); and job: even clear (and), odd set (or)
        const [first, second] = cls === 'or' ? [e, partner] : [e, partner];
        const firstOperand = cls === 'or' ? '%x' : '%y';
        const secondOperand = cls === 'or' ? '%y' : '%x';
        L.push(
          '  and.b32 %v, %k, 1;',
          '  setp.ne.u32 %q, %v, 0;',
          '  @%q bra ALT;',
          ...to('%bv0', firstOperand),
          ...ins(first),
          '  bra OPDONE;',
          'ALT:',
          ...to('%bv0', secondOperand),
          ...ins(second),
          'OPDONE:',
        );
      }
      break;
    }
    case 'exch':
      L.push(
        '  mad.lo.u32 %u, %t, %iters, %k;',
        '  add.u32 %u, %u, 1;',
        '  cvt.u64.u32 %x, %u;',
        '  or.b64 %x, %x, %off;',
        ...to('%bv0', '%x'),
        ...ins(e),
        ...store,
      );
      break;
    case 'cas':
      // one attempt of an increment loop: compare %g, swap in %g + unit
      L.push(
        ...to('%bv0', '%g'),
        '  add.u64 %x, %g, %unit;',
        ...to('%cv0', '%x'),
        ...ins(e),
        ...from('%y', '%d0'),
        ...from('%x', '%cv0'),
        `  setp.eq.b${w} %q, %d0, %bv0;`,
        '  @%q add.u64 %succ, %succ, 1;',
        '  selp.b64 %g, %x, %y, %q;',
      );
      break;
  }
  L.push(
    // thread 0: progress, and whether the CPU is mid-run
    '  add.u32 %v, %k, 1;',
    '  @%lead st.relaxed.sys.global.u32 [%ctrl+128], %v;',
    '  @%lead ld.relaxed.sys.global.u32 %cp, [%ctrl+192];',
    '  setp.ne.u32 %p, %cp, 0;',
    '  setp.lt.and.u32 %p, %cp, %cpu, %p;',
    '  and.pred %p, %p, %lead;',
    '  @%p add.u32 %mid, %mid, 1;',
    '  add.u32 %k, %k, 1;',
    '  bra LOOP;',
    'END:',
    '  @%lead st.global.u32 [%out], %mid;',
    ...(cls === 'cas' ? ['  red.global.add.u64 [%out+8], %succ;'] : []),
    '  ret;',
    '}',
  );
  return L.join('\n');
}

export function hostmemModule(arch: string, ptx: string, kernels: readonly { cls: OpClass | 'single'; entry: CatalogEntry; partner?: CatalogEntry }[]): string {
  const uniq = new Map<string, string>();
  for (const x of kernels) {
    const key = kernelKey(x.cls, x.entry, x.partner);
    if (!uniq.has(key)) uniq.set(key, hostmemKernel(x.cls, x.entry, x.partner));
  }
  return [`.version ${ptx}`, `.target ${arch}`, '.address_size 64', '', ...uniq.values(), ''].join('\n');
}
