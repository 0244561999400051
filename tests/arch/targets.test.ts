/**
 * The target table and the "Target ISA Notes" clause semantics; the minimum PTX ISA version of
 * every target is checked against ptxas itself where ptxas knows the target.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { TARGETS, clauseHolds, findTarget, modulePtxFor, previousPtx } from '../../harness/arch/targets.js';
import { ptxasOrReason } from '../helpers/ptxas.js';

const T = (n: string) => findTarget(n)!;

describe('target clauses', () => {
  it('"sm_90 or higher" holds for every suffix of every later target', () => {
    for (const t of TARGETS) expect(clauseHolds({ kind: 'min-sm', sm: 90 }, t, '9.0')).toBe(t.sm >= 90);
  });
  it('"sm_100f or higher in the same family": f and a targets of family 10, from PTX ISA 8.8', () => {
    const c = { kind: 'family', name: 'sm_100f', fromPtx: '8.8' } as const;
    for (const n of ['sm_100f', 'sm_100a', 'sm_103f', 'sm_103a']) expect(clauseHolds(c, T(n), '8.8'), n).toBe(true);
    for (const n of ['sm_100', 'sm_103', 'sm_110f', 'sm_120f', 'sm_90a']) expect(clauseHolds(c, T(n), '9.0'), n).toBe(false);
    expect(clauseHolds(c, T('sm_100a'), '8.7')).toBe(false);
  });
  it('sm_101a, renamed sm_110a in PTX ISA 9.0, covers sm_110a', () => {
    expect(clauseHolds({ kind: 'arch', name: 'sm_101a' }, T('sm_110a'), '9.0')).toBe(true);
    expect(clauseHolds({ kind: 'arch', name: 'sm_101a' }, T('sm_110f'), '9.0')).toBe(false);
    expect(clauseHolds({ kind: 'family', name: 'sm_101f', fromPtx: '8.8' }, T('sm_110f'), '9.0')).toBe(true);
  });
  it('an arch-specific clause holds for that target alone', () => {
    expect(clauseHolds({ kind: 'arch', name: 'sm_100a' }, T('sm_103a'), '9.0')).toBe(false);
    expect(clauseHolds({ kind: 'arch', name: 'sm_120a' }, T('sm_120a'), '9.0')).toBe(true);
  });
  it("module PTX ISA: the toolchain's highest, capped for renamed targets, none when too old", () => {
    expect(modulePtxFor(T('sm_90'), '9.0')).toBe('9.0');
    expect(modulePtxFor(T('sm_101a'), '9.0')).toBe('8.8');
    expect(modulePtxFor(T('sm_110a'), '8.8')).toBeUndefined();
  });
});

const ptxas = await ptxasOrReason();
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-targets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(typeof ptxas === 'string')('minimum PTX ISA per target, asked of ptxas', () => {
  const p = ptxas as Exclude<typeof ptxas, string>;
  const known = TARGETS.filter((t) => typeof p === 'object' && p.targets.includes(t.name));
  it('ptxas knows most of the table', () => expect(known.length).toBeGreaterThan(15));
  it.each(known.map((t) => [t.name, t.minPtx, t.toolchainAcceptsFrom] as const))(
    '%s: accepted at PTX ISA %s, rejected one version below',
    async (name, min, lax) => {
      const compile = async (v: string) => {
        const f = join(dir, `${name}-${v}.ptx`);
        writeFileSync(f, `.version ${v}\n.target ${name}\n.address_size 64\n.visible .entry k() { ret; }\n`);
        return (await execa(p.path, ['-arch', name, f, '-o', `${f}.cubin`], { reject: false })).exitCode;
      };
      expect(await compile(min)).toBe(0);
      if (lax) {
        // Documented minimum aside, ptxas takes it from `lax` on: check exactly that.
        expect(await compile(lax)).toBe(0);
        expect(await compile(previousPtx(lax)!)).not.toBe(0);
        return;
      }
      expect(await compile(previousPtx(min)!)).not.toBe(0);
    },
  );
});
