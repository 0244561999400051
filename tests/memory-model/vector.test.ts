/**
 * Vector atom and red in the litmus language (issue 42: "the vector forms"): one read-modify-write per
 * element of an array, "executed in an unspecified order on the elements in the vector" (8.2.4), each
 * element atomic on its own (9.7.13.6). The corpus tests (cases/litmus/Vector+*) pin the verdicts; here:
 * the lowering, the program order it gives, a loop's executions kept apart, what the reader refuses, and
 * the PTX the GPU runner emits.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { judge, parseLitmus } from '../../harness/memory-model/index.js';
import { threadTraces } from '../../harness/memory-model/run.js';
import { planTest } from '../../harness/litmus-gpu/plan.js';
import { DEFAULT_STRESS, litmusModule } from '../../harness/litmus-gpu/kernel.js';

const OBS = readFileSync('cases/litmus/Vector+red.release+observer.litmus', 'utf8');
const RET = readFileSync('cases/litmus/Vector+atom.v4+returns.litmus', 'utf8');
const verdict = (text: string) => {
  const r = parseLitmus(text, 't.litmus');
  if (!r.test) throw new Error(r.problems.map((p) => p.message).join('; '));
  return judge(r.test).holds ? 'allowed' : 'forbidden';
};
const problem = (text: string) =>
  parseLitmus(text, 't.litmus')
    .problems.map((p) => `${p.line}:${p.col}: ${p.message}`)
    .join('; ');

describe('vector atom and red in the model', () => {
  it("lowers to one read-modify-write per element, each with the instruction's .sem.scope, in one vector group", () => {
    const t = parseLitmus(RET, 't.litmus').test!;
    const code = t.threads[0]!.code;
    expect(code.map((i) => (i.kind === 'rmw' ? `${i.dst} ${i.loc} ${i.vector?.element}` : i.kind))).toEqual(['r0 d 0', 'r1 d+4 1', 'r2 d+8 2', 'r3 d+12 3']);
    expect(new Set(code.map((i) => i.kind === 'rmw' && i.vector?.group)).size).toBe(1);
    const red = parseLitmus(OBS, 't.litmus').test!.threads[0]!.code;
    expect(red.map((i) => i.kind === 'rmw' && `${i.sem}.${i.scope} ${i.reduction}`)).toEqual(['release.gpu true', 'release.gpu true']);
  });
  it('its elements have no program order among themselves: the release of one does not order the other (allowed), where two scalar reds are ordered (forbidden)', () => {
    expect(verdict(OBS)).toBe('allowed');
    expect(verdict(readFileSync('cases/litmus/Vector+scalar-reds+observer.litmus', 'utf8'))).toBe('forbidden');
    // a fence after the vector red orders both elements before the flag: forbidden again
    const fenced = `PTX V
{
d = {0, 0};
f = 0;
}
 P0@cta 0,gpu 0                                | P1@cta 1,gpu 0                    ;
 red.relaxed.gpu.global.add.v2.f32 [d], {1, 1} | ld.acquire.gpu.global.u32 r0, f   ;
 st.release.gpu.global.u32 f, 1                | ld.relaxed.gpu.global.f32 r1, d+4 ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
`;
    expect(verdict(fenced)).toBe('forbidden');
  });
  it('each element returns its own old value and holds its own sum; each is atomic on its own', () => {
    expect(verdict(RET)).toBe('forbidden');
    const j = judge(parseLitmus(RET, 't.litmus').test!);
    expect(j.outcomes.map((o) => o.values['P0:r3'])).toEqual([String(0x40800000)]); // 4.0
    expect(verdict(readFileSync('cases/litmus/Vector+2W+atomicity.litmus', 'utf8'))).toBe('forbidden');
    expect(verdict(readFileSync('cases/litmus/Vector+f16x2+2W+atomicity.litmus', 'utf8'))).toBe('forbidden');
  });
  it('a vector red in a loop: each execution its own group (the second execution is ordered after the first)', () => {
    const loop = `PTX L
{
d = {0, 0};
P0:r9 = 0;
}
 P0@cta 0,gpu 0                         ;
 LC:                                    ;
 red.global.add.v2.f32 [d], {1, 1}      ;
 add.u32 r9, r9, 1                      ;
 bne r9, 2, LC                          ;
exists (d == 0)
`;
    const t = parseLitmus(loop, 't.litmus').test!;
    t.unroll = 2;
    const traces = threadTraces(t, 0, () => [0n], false);
    const groups = traces.flatMap((tr) => tr.events.filter((e) => e.kind === 'W').map((e) => e.vector));
    expect(groups.length).toBe(4);
    expect(new Set(groups.map((g) => g!.group)).size).toBe(2);
    expect(groups.map((g) => g!.element)).toEqual([0, 1, 0, 1]);
  });
  it('refused with the line and what to write: 16-bit elements, .v8 of a 32-bit type, a shared location, an array too short, a vector of the wrong length, a scalar operand', () => {
    expect(problem(OBS.replace('add.v2.f32 [d], {1, 1}', 'add.noftz.v2.f16 [d], {1, 1}'))).toMatch(/vector forms of 32-bit elements/);
    expect(problem(OBS.replace('add.v2.f32', 'add.v8.f32'))).toMatch(/\.v8 takes 16-bit elements|not a qualifier/);
    expect(problem(OBS.replace('d = {0, 0};', 'd = {0};'))).toMatch(/d has no element 1 \(d\+4\): .*declare d as an array of 2, e\.g\. 'd = \{0, 0\};'/);
    expect(problem(OBS.replace('[d], {1, 1}', '[d], {1, 1, 1}'))).toMatch(/the vector has 3 elements; \.v2 takes 2/);
    expect(problem(OBS.replace('[d], {1, 1}', '[d], 1'))).toMatch(/a vector of 2 is expected here: '\{a0, a1\}'/);
    expect(problem(RET.replace('{r0, r1, r2, r3}', 'r0'))).toMatch(/a vector of 4 is expected here/);
    const shared = OBS.replace('d = {0, 0};', 'd @ shared cta 0 = {0, 0};')
      .replace('ld.acquire.gpu.global.f32 r0, d+4', 'ld.acquire.gpu.f32 r0, d+4')
      .replace('ld.relaxed.gpu.global.f32 r1, d', 'ld.relaxed.gpu.f32 r1, d');
    expect(problem(shared.replace('red.release.gpu.global.add', 'red.release.gpu.add'))).toMatch(/not global memory: a vector red is \.global only/);
  });
});

describe('vector atom and red on the GPU', () => {
  const mod = (f: string) => {
    const text = readFileSync(`cases/litmus/${f}`, 'utf8');
    const p = planTest(parseLitmus(text, f).test!, text);
    if (!p.ok) throw new Error(p.reason);
    return litmusModule(p.plan, 'sm_90', '8.0', DEFAULT_STRESS, 2);
  };
  it('emitted once, as written, at the array base, with vector operands of the elements (destinations and values)', () => {
    const red = mod('Vector+red.release+observer.litmus');
    expect(red.match(/red\.release\.gpu\.global\.add\.v2\.f32 \[%A\d+\], \{%T0, %T1\};/g)?.length).toBe(1);
    const atom = mod('Vector+atom.v4+returns.litmus');
    expect(atom).toMatch(/atom\.global\.add\.v4\.f32 \{%R_r0, %R_r1, %R_r2, %R_r3\}, \[%A0\], \{%T0, %T1, %T2, %T3\};/);
    // the values: 0.5 as f32 bits
    expect(atom).toContain(`mov.b32 %T0, ${0x3f000000};`);
  });
});
