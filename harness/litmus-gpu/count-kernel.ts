/**
 * The `lt_count` kernel of a litmus test's module (kernel.ts writes `lt_test`): one thread per
 * instance, after `lt_test` on the same stream. The outcome key (registers, then the locations the
 * condition names, as 32-bit words) is looked up in the host's table of the outcomes the model
 * enumerates; `hist[k]` counts table row k, `hist[K]` the others (the first SAMPLES kept as samples);
 * an instance a thread gave up on (a loop, plan.loops) is counted in the histogram's last word; then
 * the instance's memory and registers are reset for the next launch.
 */
import type { TestPlan } from './plan.js';

/** Other-outcome samples kept per run (device buffer rows). */
export const SAMPLES = 64;

/** Words of the histogram: K table rows, the other bin, its samples, and for a test with loops the give-up count. */
export function histWords(plan: Pick<TestPlan, 'keys' | 'keyBits' | 'loops'>, rows: number): number {
  return rows + 1 + SAMPLES * keyWords(plan) + (plan.loops ? 1 : 0);
}

/** Words of the condition's registers per instance in `regs` (a 64-bit register is two). */
export function regWords(plan: TestPlan): number {
  return plan.regKeys.reduce((s, _, k) => s + ((plan.keyBits?.[k] ?? 32) === 64 ? 2 : 1), 0);
}

/** Words of one outcome (every key; a 64-bit key is two, low word first). */
export function keyWords(plan: Pick<TestPlan, 'keys' | 'keyBits'>): number {
  return plan.keys.reduce((s, _, k) => s + ((plan.keyBits?.[k] ?? 32) === 64 ? 2 : 1), 0);
}

/** The lines of `lt_count` for a planned test. */
export function countKernel(plan: TestPlan, stress: { readonly align?: boolean }): string[] {
  const { locs } = plan;
  const sb = plan.slotBytes ?? 4;
  const L: string[] = [];
  const R = regWords(plan);
  const V = keyWords(plan);
  L.push(
    `.visible .entry lt_count(.param .u64 pmem, .param .u64 pregs, .param .u64 ptab, .param .u64 phist, .param .u64 pinit, .param .u32 pni, .param .u32 pstride, .param .u32 pk${plan.tensorMaps ? ', .param .u64 ptm, .param .u64 ptinit' : ''})`,
    '{',
  );
  L.push(
    '  .reg .b64 %mem, %regs, %tab, %hist, %init, %a, %t;',
    `  .reg .b32 %ni, %stride, %K, %i, %u, %j, %w, %n, %V<${Math.max(V, 1)}>;`,
    '  .reg .pred %p, %q;',
  );
  L.push(
    '  ld.param.u64 %mem, [pmem];',
    '  ld.param.u64 %regs, [pregs];',
    '  ld.param.u64 %tab, [ptab];',
    '  ld.param.u64 %hist, [phist];',
    '  ld.param.u64 %init, [pinit];',
    '  ld.param.u32 %ni, [pni];',
    '  ld.param.u32 %stride, [pstride];',
    '  ld.param.u32 %K, [pk];',
  );
  L.push(
    '  mov.u32 %u, %ctaid.x;',
    '  mov.u32 %j, %ntid.x;',
    '  mov.u32 %i, %tid.x;',
    '  mad.lo.u32 %i, %u, %j, %i;',
    '  setp.ge.u32 %p, %i, %ni;',
    '  @%p ret;',
  );
  // the outcome as words: each register key's words (low word first for 64-bit ones), then each location key's
  for (let k = 0; k < R; k++)
    L.push(
      `  mad.lo.u32 %u, %i, ${R}, ${k};`,
      '  mul.wide.u32 %a, %u, 4;',
      '  add.u64 %a, %regs, %a;',
      `  ld.global.u32 %V${k}, [%a];`,
      '  st.global.u32 [%a], 0;',
    );
  /** This instance's copy of location j into %a (an array's element: its array's copy), and the element's address operand. */
  const copyOf = (j: number): { lines: string[]; at: string } => {
    const el = plan.elements?.[j];
    return {
      lines: [`  mad.lo.u32 %u, %ni, ${el ? el.of : j}, %i;`, '  mul.lo.u32 %u, %u, %stride;', `  mul.wide.u32 %a, %u, ${sb};`, '  add.u64 %a, %mem, %a;'],
      at: `[%a${el ? `+${el.offset}` : ''}]`,
    };
  };
  let mw = R;
  plan.memKeys.forEach((m) => {
    // a virtual alias's value is its aliased location's
    const j = plan.aliases?.[locs.indexOf(m)]?.of ?? locs.indexOf(m);
    const c = copyOf(j);
    L.push(...c.lines, `  ld.global.u32 %V${mw++}, ${c.at};`);
    if (plan.locBits?.[j] === 64) L.push(`  ld.global.u32 %V${mw++}, [%a+4];`);
  });
  // reset memory for the next iteration
  locs.forEach((_, j) => {
    const c = copyOf(j);
    L.push(
      ...c.lines,
      `  ld.global.u32 %w, [%init+${j * 4}];`,
      `  st.global.u32 ${c.at}, %w;`,
      ...(plan.locBits?.[j] === 64 ? ['  st.global.u32 [%a+4], 0;'] : []),
    );
  });
  // tensor maps: this instance's map of each restored from its initial map (ptinit, 128 bytes a map)
  if (plan.tensorMaps) {
    L.push('  .reg .b64 %tm, %ti;', '  .reg .b32 %M<4>;', '  ld.param.u64 %tm, [ptm];', '  ld.param.u64 %ti, [ptinit];');
    plan.tensorMaps.forEach((_, k) => {
      L.push(`  mad.lo.u32 %u, %ni, ${k}, %i;`, '  mul.wide.u32 %a, %u, 128;', '  add.u64 %a, %tm, %a;');
      for (let w = 0; w < 8; w++)
        L.push(`  ld.global.v4.u32 {%M0, %M1, %M2, %M3}, [%ti+${k * 128 + w * 16}];`, `  st.global.v4.u32 [%a+${w * 16}], {%M0, %M1, %M2, %M3};`);
    });
  }
  if (stress.align)
    L.push(
      `  mad.lo.u32 %u, %ni, ${locs.length}, %i;`,
      '  mul.lo.u32 %u, %u, %stride;',
      `  mul.wide.u32 %a, %u, ${sb};`,
      '  add.u64 %a, %mem, %a;',
      '  st.global.u32 [%a], 0;',
    );
  // an instance a thread gave up on (its loop ran LOOP_BOUND times): counted in the histogram's last word, not judged
  if (plan.loops)
    L.push(
      `  mad.lo.u32 %u, %ni, ${locs.length + 1}, %i;`,
      '  mul.lo.u32 %u, %u, %stride;',
      `  mul.wide.u32 %a, %u, ${sb};`,
      '  add.u64 %a, %mem, %a;',
      '  ld.global.u32 %w, [%a];',
      '  st.global.u32 [%a], 0;',
      '  setp.eq.u32 %p, %w, 0;',
      '  @%p bra JUDGE;',
      `  add.u32 %u, %K, ${1 + SAMPLES * V};`,
      '  mul.wide.u32 %a, %u, 4;',
      '  add.u64 %a, %hist, %a;',
      '  red.global.add.u32 [%a], 1;',
      '  ret;',
      'JUDGE:',
    );
  // table search
  L.push(
    '  mov.u32 %n, 0;',
    'SEARCH:',
    '  setp.ge.u32 %p, %n, %K;',
    '  @%p bra OTHER;',
    `  mul.lo.u32 %u, %n, ${V * 4};`,
    '  cvt.u64.u32 %a, %u;',
    '  add.u64 %a, %tab, %a;',
    '  setp.eq.u32 %q, %n, %n;',
  );
  for (let x = 0; x < V; x++) L.push(`  ld.global.u32 %w, [%a+${x * 4}];`, `  setp.eq.and.u32 %q, %w, %V${x}, %q;`);
  L.push(
    '  @%q bra FOUND;',
    '  add.u32 %n, %n, 1;',
    '  bra SEARCH;',
    'FOUND:',
    '  mul.wide.u32 %a, %n, 4;',
    '  add.u64 %a, %hist, %a;',
    '  red.global.add.u32 [%a], 1;',
    '  ret;',
  );
  L.push(
    'OTHER:',
    '  mul.wide.u32 %a, %K, 4;',
    '  add.u64 %a, %hist, %a;',
    '  atom.global.add.u32 %n, [%a], 1;',
    `  setp.ge.u32 %p, %n, ${SAMPLES};`,
    '  @%p ret;',
    `  mul.lo.u32 %u, %n, ${V * 4};`,
    '  cvt.u64.u32 %t, %u;',
    '  add.u64 %a, %a, 4;',
    '  add.u64 %a, %a, %t;',
  );
  for (let x = 0; x < V; x++) L.push(`  st.global.u32 [%a+${x * 4}], %V${x};`);
  L.push('  ret;', '}', '');
  return L;
}
