/**
 * The tensor map in the litmus language (issue 42, deliverable 5): `tm @ tensormap d0, d1`,
 * `tensormap.replace` (a generic-proxy write of the map), fence.proxy.tensormap::generic.release /
 * .acquire (uni-directional, the acquire form covering the map it names), and the 1-D bulk tensor
 * reduction, which reads the map in the tensormap proxy and reduces into the location it points at.
 * The corpus tests (cases/litmus/Tensormap+*) pin the verdicts; here: what the reader refuses, and that
 * an acquire fence on another map orders nothing for this one.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { judge, parseLitmus } from '../../harness/memory-model/index.js';

const BASE = readFileSync('cases/litmus/Tensormap+replace+fence.release+fence.acquire.litmus', 'utf8');
const verdict = (text: string) => {
  const r = parseLitmus(text, 't.litmus');
  if (!r.test) throw new Error(r.problems.map((p) => p.message).join('; '));
  return judge(r.test).holds ? 'allowed' : 'forbidden'; // every test here is an exists test
};
const problem = (text: string) =>
  parseLitmus(text, 't.litmus')
    .problems.map((p) => `${p.line}: ${p.message}`)
    .join('; ');

describe('tensor maps in the litmus language', () => {
  it('the reduction reads the map and reduces where it points: the replace fenced by release then acquire is seen (d1); with either form alone the old map may be (d0)', () => {
    expect(verdict(BASE)).toBe('forbidden');
    const noFence = BASE.replace(/ fence\.proxy\.tensormap::generic\.acquire\.cta \[tm\], 128 ;\n/, '');
    expect(verdict(noFence)).toBe('allowed');
    // the reading the H200 forced (docs/memory-model.md): the acquire form alone does not serve, nor the release form alone
    expect(verdict(BASE.replace(/ fence\.proxy\.tensormap::generic\.release\.cta ;\n/, ''))).toBe('allowed');
    // the order matters: acquire, then release, serves nothing
    const swapped = BASE.replace(
      / fence\.proxy\.tensormap::generic\.release\.cta ;\n fence\.proxy\.tensormap::generic\.acquire\.cta \[tm\], 128 ;\n/,
      ' fence.proxy.tensormap::generic.acquire.cta [tm], 128 ;\n fence.proxy.tensormap::generic.release.cta ;\n',
    );
    expect(swapped).not.toBe(BASE);
    expect(verdict(swapped)).toBe('allowed');
    // every execution reduces into exactly one of d0, d1
    const r = parseLitmus(noFence, 't.litmus');
    const j = judge(r.test!);
    expect(new Set(j.outcomes.map((o) => o.values.d0))).toEqual(new Set(['0', '1']));
  });
  it('an acquire fence on another tensor map does not order this one (the fence covers [addr, addr+127] only)', () => {
    const other = BASE.replace('tm @ tensormap d0, d1;', 'tm @ tensormap d0, d1;\ntm2 @ tensormap d0, d1;').replace(
      'fence.proxy.tensormap::generic.acquire.cta [tm], 128',
      'fence.proxy.tensormap::generic.acquire.cta [tm2], 128',
    );
    expect(verdict(other)).toBe('allowed');
  });
  it('refused with the line and what to write: an undeclared map, a target the map is not declared with, another size, another coordinate, a 2-D form', () => {
    expect(problem(BASE.replace('[tm], d1 ;', '[x], d1 ;'))).toMatch(/x is not a tensor map: declare it, e\.g\. 'x @ tensormap d0, d1;'/);
    expect(problem(BASE.replace('[tm], d1 ;', '[tm], d2 ;'))).toMatch(
      /d2 is not a location tensor map tm is declared to point at \(d0, d1\); add it to its declaration/,
    );
    expect(problem(BASE.replace('[tm], 128', '[tm], 64'))).toMatch(/size must be 128/);
    expect(problem(BASE.replace('[tm, {0}]', '[tm, {1}]'))).toMatch(/the coordinate must be 0/);
    // a 2-D form takes two coordinates; the im2col forms are refused with the reason
    expect(problem(BASE.replace('tensor.1d.', 'tensor.2d.'))).toMatch(/the tensor operand of a 2-D form is '\[tm, \{0, 0\}\]'/);
    expect(problem(BASE.replace('tensor.1d.', 'tensor.2d.').replace('[tm, {0}]', '[tm, {0, 1}]'))).toMatch(/the coordinates must be \{0, 0\}/);
    // the reduction's .im2col_no_offs: 3 to 5 dimensions (the verdicts are the .tile form's); ::w refused with the reason
    const im2col = BASE.replace('tensor.1d.', 'tensor.3d.').replace('.add.tile.', '.add.im2col_no_offs.').replace('[tm, {0}]', '[tm, {0, 0, 0}]');
    expect(problem(im2col)).toBe('');
    expect(verdict(im2col)).toBe(verdict(BASE));
    expect(problem(BASE.replace('tensor.1d.', 'tensor.2d.').replace('.add.tile.', '.add.im2col_no_offs.').replace('[tm, {0}]', '[tm, {0, 0}]'))).toMatch(
      /\.im2col_no_offs needs a tensor of 3 to 5 dimensions .*this is 2-D/,
    );
    expect(problem(im2col.replace('im2col_no_offs', 'im2col_no_offs::w'))).toMatch(
      /\.im2col_no_offs::w \(PTX ISA 9\.4, sm_107f\) is not in the litmus language/,
    );
    expect(problem(BASE.replace('tensor.1d.', 'tensor.6d.'))).toMatch(/\.tile forms of 1 to 5 dimensions|not a qualifier|6d/);
    expect(problem(BASE.replace('tm @ tensormap d0, d1;', 'tm @ tensormap d0, d1;\nq @ shared cta 0;\ntq @ tensormap q;'))).toMatch(
      /tensor map tq points at q, which is not global memory/,
    );
  });
});

describe('arrays and bulk sizes of more than one element', () => {
  const OBS = readFileSync('cases/litmus/Bulk+two-elements+observer.litmus', 'utf8');
  it('d = {0, 0} declares d and d+4; an 8-byte bulk reduction is two element reductions with no order between them; the condition names d+4', () => {
    const t = parseLitmus(OBS, 't.litmus').test!;
    expect(t.locations['d+4']).toEqual({ name: 'd+4', space: 'global', init: 0n, element: { of: 'd', offset: 4 } });
    expect(t.locations['s+4']).toMatchObject({ space: 'shared', ownerCta: 0, init: 1n, element: { of: 's', offset: 4 } });
    const bulk = t.threads[0]!.code.find((i) => i.kind === 'async')!;
    expect(bulk.kind === 'async' && bulk.accesses.map((a) => `${a.kind} ${a.loc}`)).toEqual(['read s', 'rmw d', 'read s+4', 'rmw d+4']);
    expect(verdict(OBS)).toBe('allowed');
    // one element (size 4): d+4 is never reduced, so the observer cannot see it set
    expect(verdict(OBS.replace('[d], [s], 8', '[d], [s], 4'))).toBe('forbidden');
  });
  it('refused with the line: a size the arrays do not have, a size not a multiple of the element, an array of 17', () => {
    expect(problem(OBS.replace('[d], [s], 8', '[d], [s], 12'))).toMatch(/s has no element 2 \(s\+8\): declare it as an array of 3/);
    expect(problem(OBS.replace('[d], [s], 8', '[d], [s], 6'))).toMatch(/size must be 4 \(one \.u32 element\), or for a 32-bit type a multiple of 4 up to 64/);
    expect(problem(OBS.replace('d = {0, 0};', `d = {${Array(17).fill(0).join(', ')}};`))).toMatch(/an array has one to 16 32-bit elements/);
  });
  it('a bulk copy of two chunks copies every element of arrays of five to eight, each a read and a write with no order among them; refused: a size the arrays do not fill, arrays of different lengths', () => {
    const CH = readFileSync('cases/litmus/Copy+two-chunks+no-wait+read-destination.litmus', 'utf8');
    const t = parseLitmus(CH, 't.litmus').test!;
    const copy = t.threads[0]!.code.find((i) => i.kind === 'async')!;
    expect(copy.kind === 'async' && copy.accesses.map((a) => `${a.kind} ${a.loc}`)).toEqual(
      [0, 4, 8, 12, 16].flatMap((o) => [`read s${o ? `+${o}` : ''}`, `write x${o ? `+${o}` : ''}`]),
    );
    // after wait_group.read (the source reads done, not the writes) neither element's write need be seen: the elements are in no
    // order among themselves, so the first element's write is not ordered before the last element's read (the H200 showed it: 1
    // of 1.06 M instances of the wait_group -> wait_group.read mutant, heavy stress, which the model forbade while it ordered them)
    const waited = readFileSync('cases/litmus/Copy+two-chunks+wait_group+read-destination.litmus', 'utf8').replace(
      /^ cp\.async\.bulk\.wait_group 0 /m,
      ' cp.async.bulk.wait_group.read 0',
    );
    expect(waited).toContain(' cp.async.bulk.wait_group.read 0');
    const j = judge(parseLitmus(waited, 't.litmus').test!);
    expect(j.outcomes.map((o) => `${o.values['P0:r0']},${o.values['P0:r1']} ${o.allowed}`).sort()).toEqual(['0,0 true', '0,1 true', '5,0 true', '5,1 true']);
    // the first chunk copied and the second not yet: allowed (no order among the elements); after wait_group, forbidden
    expect(verdict(CH)).toBe('allowed');
    expect(verdict(readFileSync('cases/litmus/Copy+two-chunks+wait_group+read-destination.litmus', 'utf8'))).toBe('forbidden');
    expect(problem(CH.replace('[s], 32', '[s], 16'))).toMatch(/size must be 32: the arrays have 5 elements, 2 16-byte chunks/);
    expect(problem(CH.replace('[s], 32', '[s], 48'))).toMatch(/size must be 32/);
    expect(problem(CH.replace('x = {0, 0, 0, 0, 0};', 'x = {0, 0, 0, 0};'))).toMatch(
      /x has no element 4 \(x\+16\): declare source and destination as arrays of 5/,
    );
    // a scalar copy is one chunk, size 16
    expect(
      problem(
        CH.replace('x = {0, 0, 0, 0, 0};', 'x = 0;')
          .replace('s @ shared cta 0 = {1, 2, 3, 4, 5};', 's @ shared cta 0 = 1;')
          .replace('[s], 32', '[s], 32')
          .replace(/ ld\.weak\.global\.u32 r1, x\+16 +;\n/, ''),
      ),
    ).toMatch(/size must be 16: a scalar location is one 16-byte chunk/);
  });
});

describe('the bulk tensor copies', () => {
  const LOAD = readFileSync('cases/litmus/Tensormap+load+replace-no-fence.litmus', 'utf8');
  it('a TMA load reads the map (tensormap proxy), then the location the map points at, and writes the shared destination; 16 bytes of complete-tx; without the fence the old map may be read', () => {
    const t = parseLitmus(LOAD, 't.litmus').test!;
    const cp = t.threads[0]!.code.find((i) => i.kind === 'async')!;
    expect(cp.kind === 'async' && cp.accesses.map((a) => `${a.kind} ${a.loc} ${a.proxy}${a.via ? ` via ${a.via.targets.join('/')}` : ''}`)).toEqual([
      'read tm tensormap',
      'read d0 async via d0/d1',
      'write s async',
    ]);
    expect(cp.kind === 'async' && cp.completion).toMatchObject({ kind: 'mbarrier', mbar: 'b', bytes: 16n });
    expect(verdict(LOAD)).toBe('allowed');
    expect(verdict(readFileSync('cases/litmus/Tensormap+load+replace+fence.release+fence.acquire.litmus', 'utf8'))).toBe('forbidden');
    expect(verdict(readFileSync('cases/litmus/Tensormap+load+replace+fence.acquire.litmus', 'utf8'))).toBe('allowed');
  });
  it('refused with the line: a 2-D copy with one coordinate, another coordinate, an im2col copy', () => {
    expect(problem(LOAD.replace('tensor.1d.', 'tensor.2d.'))).toMatch(/the tensor operand of a 2-D form is '\[tm, \{0, 0\}\]'/);
    expect(problem(LOAD.replace('tensor.1d.', 'tensor.2d.').replace('[tm, {0}]', '[tm, {0, 0}]'))).toBe('');
    // the load's .im2col takes im2colInfo, one offset per dimension but two, each 0; 3 to 5 dimensions; the ::w forms refused
    const im2 = LOAD.replace('tensor.1d.', 'tensor.3d.').replace('global.tile.mbarrier', 'global.im2col.mbarrier').replace('[tm, {0}]', '[tm, {0, 0, 0}]');
    expect(problem(im2)).toMatch(/takes \[dstMem\], \[tensorMap, \{0, \.\.\.\}\], \[mbar\], \{0, \.\.\.\}/);
    expect(problem(im2.replace('[b] ;', '[b], {0} ;'))).toBe('');
    expect(verdict(im2.replace('[b] ;', '[b], {0} ;'))).toBe(verdict(LOAD));
    expect(problem(im2.replace('[b] ;', '[b], {1} ;'))).toMatch(/im2colInfo is \{0\}: 1 offset .*each 0/);
    expect(problem(im2.replace('[b] ;', '[b], {0, 0} ;'))).toMatch(/im2colInfo is \{0\}/);
    expect(problem(im2.replace('global.im2col.mbarrier', 'global.im2col::w.mbarrier').replace('[b] ;', '[b], {0, 0} ;'))).toMatch(
      /the \.im2col::w forms, \.tile::gather4\/\.tile::scatter4 and \.im2col_no_offs::w are not in it/,
    );
    expect(
      problem(LOAD.replace('tensor.1d.', 'tensor.2d.').replace('global.tile.mbarrier', 'global.im2col.mbarrier').replace('[tm, {0}]', '[tm, {0, 0}]')),
    ).toMatch(/\.im2col needs a tensor of 3 to 5 dimensions/);
    // a load with the store's mode: refused
    expect(problem(im2.replace('global.im2col.mbarrier', 'global.im2col_no_offs.mbarrier'))).toMatch(/the litmus language has the TMA load's \.im2col/);
    expect(problem(LOAD.replace('[tm, {0}]', '[tm, {4}]'))).toMatch(/the coordinate must be 0/);
  });
});
