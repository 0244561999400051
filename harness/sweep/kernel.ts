/**
 * The sweep kernel of a variant: thread t of a launch covers the L pairs base + t*L .. base + t*L +
 * L-1 (L = the variant's lanes per case), makes its memory elements from their a's and its operands
 * from their b's (space.ts mapping of the variant's domain, on the device: nothing is copied in),
 * has the family apply the catalog's instruction (its gpu.ts `sweep.body`), writes the L results
 * (16 or 32 bits each, in pair order) to `out`, and adds each pair's hash terms to its cell's record
 * in `dig` (warp shuffles, then shared memory, then one global add per block and word).
 *
 * Parameters: (out, ret, dig, base, n, mode, selftest, val). `mode` bit 0: a generic variant's
 * memory in shared memory; bit 1 (one32): the value is the memory and x the operand b, else x is
 * the memory and the value the operand. `val`: cas's operand c for every pair (pairs16), or the
 * value x is swept against (one32). `ret` gets the returned old values (atom with a destination;
 * every one is also compared with the memory before, counted in the record's word 4); `dig` is the
 * record (DEVICE_WORDS words) of the launch's first cell; n threads, a multiple of 256 (no thread is
 * idle: every one takes part in the reductions). `selftest` 1 flips the lowest bit of every result
 * whose operand b (pairs16) or swept operand x (one32) is subnormal: a fault with a known count, for
 * the proof that a sweep can fail.
 */
import type { GpuVariant } from '../backends/gpu/plan.js';
import { BLOCK } from '../backends/gpu/family.js';
import { gpuFamily } from '../registry/gpu.js';
import { NAN_TOKEN, NAN_TOKEN32, type SweepVariant, laneBits } from './space.js';

export const SWEEP_PARAMS =
  '(.param .u64 pout, .param .u64 pret, .param .u64 pdig, .param .u64 pbase, .param .u64 pn, .param .u32 pmode, .param .u32 pself, .param .u32 pval)';

const FMT = {
  f16: { exp: 0x7c00, frac: 0x3ff, canonical: 0x7fff },
  bf16: { exp: 0x7f80, frac: 0x7f, canonical: 0x7fff },
  // bit patterns: no result is a NaN (the mask is past 16 bits); the self-test flips where b & 0x3ff
  b16: { exp: 0x10000, frac: 0x3ff, canonical: 0x7fff },
  f32: { exp: 0x7f800000, frac: 0x7fffff, canonical: 0x7fffffff },
} as const;

/** A sweep kernel's name, from its variant's id (FNV-1a), so it is the same in a filtered plan and the full one. */
export function sweepKernelName(gv: Pick<GpuVariant, 'entry'>): string {
  let h = 0x811c9dc5;
  for (const ch of gv.entry.id) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `s_${h.toString(16).padStart(8, '0')}`;
}

export function sweepKernel(sv: SweepVariant): string {
  const { gv, lanes: L, format } = sv;
  const e = gv.entry;
  const hooks = gpuFamily(e.family)?.sweep;
  if (!hooks) throw new Error(`${e.family} has no sweep hooks`);
  const name = sweepKernelName(gv);
  const w = gv.shape.width; // element bits: 16, 32 (x2 or f32)
  const lb = laneBits(sv); // 16 or 32
  const lbytes = lb / 8;
  const n = gv.shape.elements;
  const per = w / lb; // lanes per element
  const one32 = sv.domain.kind === 'one32';
  const { exp, frac, canonical } = FMT[format];
  const token = one32 ? NAN_TOKEN32 : NAN_TOKEN;
  const body = hooks.body(e, gv.shape);
  const lines: string[] = [];
  const T = `b${w}`;
  lines.push(`.visible .entry ${name}${SWEEP_PARAMS}`, '{');
  lines.push(`  .shared .align 16 .b8 smem[${BLOCK * 16}];`, '  .shared .align 16 .b32 sred[8];', ...body.decls);
  lines.push(
    '  .reg .b64 %o, %rt, %raddr, %dg, %base, %n, %off, %addr, %x64;',
    '  .reg .b32 %bad, %ra;',
    '  .reg .b32 %t, %tx, %g, %p0, %p, %a, %b, %r, %rr, %h, %u, %q, %h1, %h2, %nn, %odd, %mode, %self, %cell, %lane, %sa, %val;',
  );
  lines.push(
    '  .reg .pred %isnan, %sub, %lead, %first, %ne, %gen, %rolem;',
    '  .reg .b16 %hs;',
    `  .reg .${T} %d<${n}>, %bv<${n}>, %m<${n}>, %cv<${n}>;`,
    '  .reg .b64 %pol;',
  );
  lines.push(
    '  ld.param.u64 %o, [pout];',
    '  ld.param.u64 %rt, [pret];',
    '  ld.param.u64 %dg, [pdig];',
    '  ld.param.u64 %base, [pbase];',
    '  ld.param.u32 %mode, [pmode];',
    '  ld.param.u32 %self, [pself];',
    '  ld.param.u32 %val, [pval];',
    '  and.b32 %u, %mode, 2;',
    '  setp.ne.u32 %rolem, %u, 0;',
    ...(w === 16 ? Array.from({ length: n }, (_, k) => `  cvt.u16.u32 %cv${k}, %val;`) : Array.from({ length: n }, (_, k) => `  mov.b32 %cv${k}, %val;`)),
    '  mov.u32 %tx, %tid.x;',
    '  mov.u32 %t, %ctaid.x;',
    `  mad.lo.u32 %g, %t, ${BLOCK}, %tx;`,
    '  cvt.u32.u64 %p0, %base;',
    `  mad.lo.u32 %p0, %g, ${L}, %p0;`,
    `  mul.wide.u32 %off, %g, ${L * lbytes};`,
    '  add.u64 %addr, %o, %off;',
    '  add.u64 %raddr, %rt, %off;',
    '  mov.u32 %sa, smem;',
    '  mad.lo.u32 %sa, %tx, 16, %sa;',
    '  mov.u32 %bad, 0;',
    '  setp.eq.u32 %first, %tx, 0;',
    '  mov.u32 %u, 0;',
    '  @%first st.shared.v4.u32 [sred], {%u, %u, %u, %u};',
    '  @%first st.shared.v4.u32 [sred+16], {%u, %u, %u, %u};',
  );
  // pair j's index %p, memory a and operand b
  const ab = (j: number) =>
    one32
      ? [`  add.u32 %p, %p0, ${j};`, '  selp.b32 %a, %val, %p, %rolem;', '  selp.b32 %b, %p, %val, %rolem;']
      : [
          `  add.u32 %p, %p0, ${j};`,
          '  shr.u32 %a, %p, 24;',
          '  shl.b32 %a, %a, 8;',
          '  bfe.u32 %u, %p, 8, 8;',
          '  or.b32 %a, %a, %u;',
          '  bfe.u32 %b, %p, 16, 8;',
          '  shl.b32 %b, %b, 8;',
          '  and.b32 %u, %p, 255;',
          '  or.b32 %b, %b, %u;',
        ];
  for (let k = 0; k < n; k++) {
    if (per === 1) {
      lines.push(...ab(k), ...(w === 16 ? [`  cvt.u16.u32 %m${k}, %a;`, `  cvt.u16.u32 %bv${k}, %b;`] : [`  mov.b32 %m${k}, %a;`, `  mov.b32 %bv${k}, %b;`]));
    } else {
      lines.push(
        ...ab(2 * k),
        '  mov.b32 %q, %a;',
        '  mov.b32 %ra, %b;',
        ...ab(2 * k + 1),
        '  shl.b32 %a, %a, 16;',
        '  shl.b32 %b, %b, 16;',
        `  or.b32 %m${k}, %q, %a;`,
        `  or.b32 %bv${k}, %ra, %b;`,
      );
    }
  }
  // the family's instruction on the thread's elements
  lines.push(...body.lines);
  const bytes = w / 8;
  // the returned old values: to `ret`, and each compared with the memory before (the pair's a)
  if (gv.shape.returns) {
    for (let k = 0; k < n; k++) lines.push(`  st.global.${T} [%raddr+${k * bytes}], %d${k};`);
    for (let j = 0; j < L; j++) {
      lines.push(
        ...ab(j),
        lb === 16 ? `  ld.global.b16 %hs, [%raddr+${2 * j}];` : `  ld.global.b32 %ra, [%raddr+${4 * j}];`,
        ...(lb === 16 ? ['  cvt.u32.u16 %ra, %hs;'] : []),
        '  setp.ne.u32 %ne, %ra, %a;',
        '  selp.b32 %u, 1, 0, %ne;',
        '  add.u32 %bad, %bad, %u;',
      );
    }
  }
  // the results, pair by pair: read back (after the instruction, in this thread's order), perturb
  // (self-test), store to out, hash
  lines.push('  membar.cta;', '  mov.u32 %h1, 0;', '  mov.u32 %h2, 0;', '  mov.u32 %nn, 0;', '  mov.u32 %odd, 0;');
  const fmix = (x: string) => [
    `  shr.u32 %u, ${x}, 16;`,
    `  xor.b32 ${x}, ${x}, %u;`,
    `  mul.lo.u32 ${x}, ${x}, 0x85ebca6b;`,
    `  shr.u32 %u, ${x}, 13;`,
    `  xor.b32 ${x}, ${x}, %u;`,
    `  mul.lo.u32 ${x}, ${x}, 0xc2b2ae35;`,
    `  shr.u32 %u, ${x}, 16;`,
    `  xor.b32 ${x}, ${x}, %u;`,
  ];
  // the self-test's operand: b (pairs16) or the swept x (one32)
  const x = one32 ? '%p' : '%b';
  for (let j = 0; j < L; j++) {
    const { ld, base } = body.result;
    lines.push(
      ...ab(j),
      ...(lb === 16 ? [`  ${ld}.b16 %hs, [${base}+${2 * j}];`, '  cvt.u32.u16 %r, %hs;'] : [`  ${ld}.b32 %r, [${base}+${4 * j}];`]),
      // self-test: flip bit 0 where the operand is subnormal
      `  and.b32 %u, ${x}, ${exp};`,
      '  setp.eq.u32 %sub, %u, 0;',
      `  and.b32 %u, ${x}, ${frac};`,
      '  setp.ne.and.u32 %sub, %u, 0, %sub;',
      '  setp.ne.and.u32 %sub, %self, 0, %sub;',
      '  xor.b32 %u, %r, 1;',
      '  selp.b32 %r, %u, %r, %sub;',
      ...(lb === 16 ? ['  cvt.u16.u32 %hs, %r;', `  st.global.b16 [%addr+${2 * j}], %hs;`] : [`  st.global.b32 [%addr+${4 * j}], %r;`]),
      // NaN: the token, counted; not the canonical NaN: counted apart
      `  and.b32 %u, %r, ${exp};`,
      `  setp.eq.u32 %isnan, %u, ${exp};`,
      `  and.b32 %u, %r, ${frac};`,
      '  setp.ne.and.u32 %isnan, %u, 0, %isnan;',
      `  selp.b32 %rr, ${token}, %r, %isnan;`,
      '  selp.b32 %u, 1, 0, %isnan;',
      '  add.u32 %nn, %nn, %u;',
      `  setp.ne.and.u32 %ne, %r, ${canonical}, %isnan;`,
      '  selp.b32 %u, 1, 0, %ne;',
      '  add.u32 %odd, %odd, %u;',
      '  add.u32 %rr, %rr, 1;',
      '  mul.lo.u32 %h, %rr, 0x9e3779b1;',
      '  xor.b32 %h, %h, %p;',
      ...fmix('%h'),
      '  add.u32 %h1, %h1, %h;',
      '  mul.lo.u32 %h, %rr, 0x85ebca77;',
      '  add.u32 %q, %p, 0x632be5ab;',
      '  xor.b32 %h, %h, %q;',
      ...fmix('%h'),
      '  add.u32 %h2, %h2, %h;',
    );
  }
  // block reduction: warps by shuffles, then shared memory, then one global add per word
  lines.push('  bar.sync 0;');
  for (const reg of ['%h1', '%h2', '%nn', '%odd', '%bad']) {
    for (const d of [16, 8, 4, 2, 1]) lines.push(`  shfl.sync.down.b32 %u, ${reg}, ${d}, 31, 0xffffffff;`, `  add.u32 ${reg}, ${reg}, %u;`);
  }
  lines.push(
    '  and.b32 %lane, %tx, 31;',
    '  setp.eq.u32 %lead, %lane, 0;',
    '  @%lead red.shared.add.u32 [sred], %h1;',
    '  @%lead red.shared.add.u32 [sred+4], %h2;',
    '  @%lead red.shared.add.u32 [sred+8], %nn;',
    '  @%lead red.shared.add.u32 [sred+12], %odd;',
    '  @%lead red.shared.add.u32 [sred+16], %bad;',
    '  bar.sync 0;',
    '  @!%first bra DONE;',
    // the block's cell, relative to the launch's first
    `  mul.lo.u32 %p, %t, ${BLOCK * L};`,
    '  cvt.u32.u64 %q, %base;',
    '  add.u32 %p, %p, %q;',
    '  shr.u32 %cell, %p, 16;',
    '  shr.u32 %q, %q, 16;',
    '  sub.u32 %cell, %cell, %q;',
    '  mul.wide.u32 %off, %cell, 32;',
    '  add.u64 %x64, %dg, %off;',
    '  ld.shared.v4.u32 {%h1, %h2, %nn, %odd}, [sred];',
    '  red.global.add.u32 [%x64], %h1;',
    '  red.global.add.u32 [%x64+4], %h2;',
    '  red.global.add.u32 [%x64+8], %nn;',
    '  red.global.add.u32 [%x64+12], %odd;',
    '  ld.shared.u32 %bad, [sred+16];',
    '  red.global.add.u32 [%x64+16], %bad;',
    'DONE:',
    '  ret;',
    '}',
  );
  return lines.join('\n');
}

/** A module of sweep kernels (one per variant: a generic one's two sweeps share it, by `mode`). */
export function sweepModule(arch: string, ptx: string, svs: readonly SweepVariant[]): string {
  const one = [...new Map(svs.map((s) => [s.gv.entry.id, { ...s, mode: 0 as const }])).values()];
  const names = new Map<string, string>();
  for (const s of one) {
    const n = sweepKernelName(s.gv);
    if (names.has(n)) throw new Error(`sweep kernel name ${n} of ${s.gv.entry.id} collides with ${names.get(n)}`);
    names.set(n, s.gv.entry.id);
  }
  return [`.version ${ptx}`, `.target ${arch}`, '.address_size 64', '', ...one.map(sweepKernel), ''].join('\n');
}
