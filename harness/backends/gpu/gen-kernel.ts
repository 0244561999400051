/**
 * Level-3 operands made on the GPU: a kernel that writes, for case i of a job, exactly the bits the
 * TypeScript generator gives (cases/generators/random.ts laneWord; batch.ts fillGenerated): per lane,
 * h0 = mix32(mix32(sk ^ (index0 + i)) ^ imul(salt + 1, 0x9e3779b9)); a level-1 table value when
 * h0 & 3 == 0, else the top bits of h0 (lanes under 32 bits) or mix32(h0 ^ (0x5bd1e995 + q)) per
 * 32-bit word q. The worker copies the inputs back for judging and checks a sample of every job
 * against the TypeScript fill, falling back to it on any difference.
 */
export const GEN_KERNEL = 'gen3';

const MIX = (r: string, t: string) => [
  `  shr.u32 ${t}, ${r}, 16;`,
  `  xor.b32 ${r}, ${r}, ${t};`,
  `  mul.lo.u32 ${r}, ${r}, 0x7feb352d;`,
  `  shr.u32 ${t}, ${r}, 15;`,
  `  xor.b32 ${r}, ${r}, ${t};`,
  `  mul.lo.u32 ${r}, ${r}, 0x846ca68b;`,
  `  shr.u32 ${t}, ${r}, 16;`,
  `  xor.b32 ${r}, ${r}, ${t};`,
];

/** Stores %r23 as 32-bit word %r24 of the lane at bit %r20 of the field's slot (%d4). */
const STORE_WORD = [
  '  shr.u32 %r26, %r20, 5;',
  '  add.u32 %r26, %r26, %r24;',
  '  mul.wide.u32 %d6, %r26, 4;',
  '  add.u64 %d6, %d4, %d6;',
  '  st.global.u32 [%d6], %r23;',
];

/**
 * params: base pointers of the three input buffers at the job's first generated slot, n, index0,
 * sk, table pointer, table count, words per lane (tw), lane bits, lanes per element, element width
 * in bits, and elements of fields 0 (memory), 1 (b/source), 2 (c) (0: the field is absent).
 */
export function genModule(arch: string, ptx: string): string {
  const L: string[] = [
    `.version ${ptx}`,
    `.target ${arch}`,
    '.address_size 64',
    '',
    `.visible .entry ${GEN_KERNEL}(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 pn, .param .u32 pidx, .param .u32 psk, .param .u64 ptab, .param .u32 pcnt, .param .u32 ptw, .param .u32 plb, .param .u32 planes, .param .u32 pwidth, .param .u32 pe0, .param .u32 pe1, .param .u32 pe2)`,
    '{',
    '  .reg .b64 %d<12>;',
    '  .reg .b32 %r<40>;',
    '  .reg .pred %p<6>;',
    '  mov.u32 %r0, %ctaid.x;',
    '  mov.u32 %r1, %ntid.x;',
    '  mov.u32 %r2, %tid.x;',
    '  mad.lo.u32 %r3, %r0, %r1, %r2;', // i
    '  cvt.u64.u32 %d0, %r3;',
    '  ld.param.u64 %d1, [pn];',
    '  setp.ge.u64 %p0, %d0, %d1;',
    '  @%p0 bra DONE;',
    '  ld.param.u32 %r4, [pidx];',
    '  ld.param.u32 %r5, [psk];',
    '  add.u32 %r6, %r4, %r3;',
    '  xor.b32 %r7, %r5, %r6;', // ck = mix32(sk ^ (index0 + i))
    ...MIX('%r7', '%r8'),
    '  ld.param.u64 %d2, [ptab];',
    '  ld.param.u32 %r9, [pcnt];',
    '  ld.param.u32 %r10, [ptw];',
    '  ld.param.u32 %r11, [plb];',
    '  ld.param.u32 %r12, [planes];',
    '  ld.param.u32 %r13, [pwidth];',
    '  mul.lo.u64 %d3, %d0, 16;', // slot offset
    '  mov.u32 %r14, 0;', // field
    'FIELD:',
    '  setp.eq.u32 %p1, %r14, 0;',
    '  setp.eq.u32 %p2, %r14, 1;',
    '  @%p1 ld.param.u32 %r15, [pe0];',
    '  @%p2 ld.param.u32 %r15, [pe1];',
    '  setp.eq.u32 %p3, %r14, 2;',
    '  @%p3 ld.param.u32 %r15, [pe2];',
    '  @%p1 ld.param.u64 %d4, [p0];',
    '  @%p2 ld.param.u64 %d4, [p1];',
    '  @%p3 ld.param.u64 %d4, [p2];',
    '  add.u64 %d4, %d4, %d3;', // this field's slot
    '  mov.u32 %r16, 0;', // element k
    'ELEM:',
    '  setp.ge.u32 %p4, %r16, %r15;',
    '  @%p4 bra NEXTFIELD;',
    '  mov.u32 %r17, 0;', // lane j
    'LANE:',
    '  setp.ge.u32 %p4, %r17, %r12;',
    '  @%p4 bra NEXTELEM;',
    // salt = (field*64 + k)*8 + j; sh = (salt + 1) * 0x9e3779b9
    '  mad.lo.u32 %r18, %r14, 64, %r16;',
    '  mad.lo.u32 %r18, %r18, 8, %r17;',
    '  add.u32 %r18, %r18, 1;',
    '  mul.lo.u32 %r18, %r18, 0x9e3779b9;',
    '  xor.b32 %r19, %r7, %r18;',
    ...MIX('%r19', '%r8'), // h0
    // bit = k*width + j*laneBits; byte address of its 32-bit word
    '  mul.lo.u32 %r20, %r16, %r13;',
    '  mad.lo.u32 %r20, %r17, %r11, %r20;',
    '  and.b32 %r21, %r19, 3;',
    '  setp.eq.u32 %p5, %r21, 0;',
    '  @!%p5 bra RANDOM;',
    // table value: index ((h0 >> 2) % cnt) * tw
    '  shr.u32 %r22, %r19, 2;',
    '  rem.u32 %r22, %r22, %r9;',
    '  mul.lo.u32 %r22, %r22, %r10;',
    '  setp.lt.u32 %p4, %r11, 32;',
    '  @!%p4 bra TABWIDE;',
    '  mul.wide.u32 %d5, %r22, 4;',
    '  add.u64 %d5, %d2, %d5;',
    '  ld.global.u32 %r23, [%d5];',
    '  bra STORE16;',
    'TABWIDE:',
    '  mov.u32 %r24, 0;',
    'TABQ:',
    '  setp.ge.u32 %p4, %r24, %r10;',
    '  @%p4 bra NEXTLANE;',
    '  add.u32 %r25, %r22, %r24;',
    '  mul.wide.u32 %d5, %r25, 4;',
    '  add.u64 %d5, %d2, %d5;',
    '  ld.global.u32 %r23, [%d5];',
    ...STORE_WORD,
    '  add.u32 %r24, %r24, 1;',
    '  bra TABQ;',
    'RANDOM:',
    '  setp.lt.u32 %p4, %r11, 32;',
    '  @!%p4 bra RANDWIDE;',
    '  sub.u32 %r27, 32, %r11;',
    '  shr.u32 %r23, %r19, %r27;',
    'STORE16:',
    // lanes under 32 bits are 16 bits here (the executor's families have no 8-bit lanes)
    '  shr.u32 %r26, %r20, 3;',
    '  cvt.u64.u32 %d6, %r26;',
    '  add.u64 %d6, %d4, %d6;',
    '  st.global.u16 [%d6], %r23;',
    '  bra NEXTLANE;',
    'RANDWIDE:',
    '  mov.u32 %r24, 0;',
    'RANDQ:',
    '  setp.ge.u32 %p4, %r24, %r10;',
    '  @%p4 bra NEXTLANE;',
    '  add.u32 %r28, %r24, 0x5bd1e995;',
    '  xor.b32 %r23, %r19, %r28;',
    ...MIX('%r23', '%r8'),
    ...STORE_WORD,
    '  add.u32 %r24, %r24, 1;',
    '  bra RANDQ;',
    'NEXTLANE:',
    '  add.u32 %r17, %r17, 1;',
    '  bra LANE;',
    'NEXTELEM:',
    '  add.u32 %r16, %r16, 1;',
    '  bra ELEM;',
    'NEXTFIELD:',
    '  add.u32 %r14, %r14, 1;',
    '  setp.lt.u32 %p4, %r14, 3;',
    '  @%p4 bra FIELD;',
    'DONE:',
    '  ret;',
    '}',
    '',
  ];
  return L.join('\n');
}
