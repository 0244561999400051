/**
 * The reference backend's fast path on packed vector-file cases (harness/backends/reference/packed.ts)
 * is a speed-up of runCaseOnReference, never a second judge: on the same files, with nothing kept
 * whole, both must give the same verdict to every case and keep the same results.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCaseOnReference } from '../../harness/backends/reference/cases.js';
import { type PackedCases, isPacked, unpack } from '../../harness/case-readers/packed.js';
import { passGroup } from '../../harness/backends/reference/packed-pass.js';
import { PlainPass, copyResult, resultLine } from '../../harness/report/lines.js';
import { runVectorsOnReference } from '../../harness/backends/reference/vectors.js';
import { loadVectors, streamVectors } from '../../harness/case-readers/vectors.js';
import { variantInfo } from '../../harness/case-readers/vector-check.js';
import { joinLanes } from '../../harness/numerics/formats.js';
import { reference, singleElement } from '../../harness/reference/model.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-refpacked-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LIB = join(import.meta.dirname, '..', '..', 'cases', 'vectors');

let seed = 99;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);

/** Operand bits: special values of the format half the time, else random. */
function word(bits: number): bigint {
  const specials32 = [0, 0x80000000, 1, 0x807fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffffffff, 0x7f7fffff, 0x00800000];
  const specials16 = [0, 0x8000, 1, 0x3ff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xffff, 0x7bff, 0x7f80, 0xff80, 0x7fc0];
  let v = 0n;
  for (let w = 0; w < bits; w += 32) {
    const r = rnd();
    const x = bits === 16 ? (r & 1 ? specials16[r % specials16.length]! : r & 0xffff) : r & 1 ? specials32[(r >>> 1) % specials32.length]! : rnd();
    v |= BigInt(x >>> 0) << BigInt(w);
  }
  return v;
}

const hex = (bits: number, v: bigint) => `0x${v.toString(16).padStart(bits / 4, '0')}`;

describe('the reference fast path on packed cases', async () => {
  // every atom/red instruction of the library, with random and special operands and every kind of expect
  const lib = (await loadVectors([LIB], LIB)).cases.filter((c) => /^(atom|red)\./.test(c.variant.ptx));
  const lines: string[] = [];
  let i = 0;
  for (const c of lib) {
    const bits = variantInfo(c.variant.ptx).fmt!.bits;
    for (let rep = 0; rep < 6; rep++) {
      const n = c.input.memory!.length;
      const mem = Array.from({ length: n }, () => word(bits));
      const b = Array.from({ length: n }, () => word(bits));
      const cc = c.input.c ? Array.from({ length: n }, () => (rnd() & 1 ? mem[0]! : word(bits))) : undefined;
      const space: 'global' | 'shared' | undefined = rnd() % 3 === 0 ? (rnd() & 1 ? 'global' : 'shared') : undefined;
      const input = { memory: mem, b, ...(cc ? { c: cc } : {}), ...(space ? { space } : {}) } as const;
      const o = reference(c.variant, input);
      const single = o.memory!.map((e) => singleElement(variantInfo(c.variant.ptx).fmt!, e));
      const line: Record<string, unknown> = {
        name: `t${i++}`,
        instruction: c.variant.ptx,
        memory: mem.map((x) => hex(bits, x)),
        operands: { b: b.map((x) => hex(bits, x)), ...(cc ? { c: cc.map((x) => hex(bits, x)) } : {}) },
      };
      if (space) line.space = space;
      const kind = rnd() % 6;
      const returns = /^atom/.test(c.variant.ptx);
      if (kind === 1 || kind === 2) {
        // the model's own outcome where it is one value (a NaN where it is not), maybe with returned
        const fmt = variantInfo(c.variant.ptx).fmt!;
        const nanOf = () => BigInt((fmt.lane as { canonicalNaN?: number }).canonicalNaN ?? 0);
        const e = single.map(
          (x, k) =>
            x ??
            joinLanes(
              fmt,
              o.memory![k]!.map((l) => l.bits[0] ?? nanOf()),
            ),
        );
        line.expect = { memory: e.map((x) => hex(bits, x)), ...(kind === 2 && returns ? { returned: mem.map((x) => hex(bits, x)) } : {}) };
      } else if (kind === 3) {
        line.expect = { memory: mem.map((x) => hex(bits, x ^ 1n)) }; // usually wrong
      } else if (kind === 4 && returns) {
        line.expect = { returned: mem.map((x) => hex(bits, rnd() & 1 ? x : x ^ 4n)) };
      } else if (kind === 5 && returns) {
        line.expect = {
          memory: (single.every((x) => x !== undefined) ? single : mem).map((x) => hex(bits, x!)),
          returned: mem.map((x) => hex(bits, rnd() & 3 ? x : x ^ 2n)),
        };
      }
      lines.push(JSON.stringify(line));
    }
  }
  const file = join(dir, 'mixed.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);

  it('gives every case the verdict the full model gives, and keeps the same results', async () => {
    const fast = await runVectorsOnReference([file], dir, { keepWhole: 0 });
    const full = await runVectorsOnReference([file], dir, { keepWhole: 0, fast: false });
    expect(fast.problems).toEqual([]);
    expect(fast.cases).toBe(lines.length);
    expect(fast.totals).toEqual(full.totals);
    expect(fast.kept.map((r) => [r.id, r.verdict, r.reason])).toEqual(full.kept.map((r) => [r.id, r.verdict, r.reason]));
    // it is a real fast path: most cases, and mismatches too, are in the mix
    expect(full.fastPasses).toBe(0);
    expect(fast.fastPasses).toBeGreaterThan(lines.length / 3);
    expect(fast.verdicts.mismatch).toBeGreaterThan(50);
    expect(fast.verdicts.pass).toBeGreaterThan(lines.length / 2);
  });

  it('keeps the first keepWhole results whole, in file order, whatever the path', async () => {
    const r = await runVectorsOnReference([file], dir, { keepWhole: 300 });
    expect(r.kept.slice(0, 300).map((x) => x.id.split(':').pop())).toEqual(Array.from({ length: 300 }, (_, k) => `t${k}`));
    expect(r.kept.slice(300).every((x) => x.verdict !== 'pass')).toBe(true);
  });

  it('a result kept whole (detail made at once) is the result a lazy one serialises to, judgement shared and frozen', async () => {
    const { cases } = await loadVectors([file], dir);
    let mismatches = 0;
    for (const c of cases) {
      const lazy = runCaseOnReference(c);
      const whole = runCaseOnReference(c, { whole: true });
      expect(Object.keys(whole)).toEqual(Object.keys(lazy));
      expect(JSON.stringify(whole)).toBe(JSON.stringify(lazy));
      expect({ ...whole }).toEqual({ ...lazy });
      expect(Object.getOwnPropertyDescriptor(whole, 'case')!.value).toBeDefined(); // a plain property, not a getter
      expect(whole.catalog).toBe(lazy.catalog); // one judgement object per rule trail
      expect(Object.isFrozen(whole.catalog) && Object.isFrozen(whole.catalog.rules)).toBe(true);
      if (whole.verdict === 'mismatch') mismatches++;
    }
    expect(mismatches).toBeGreaterThan(50);
    // the whole run: results kept whole are the same, result for result, as those the full model keeps lazily
    const a = await runVectorsOnReference([file], dir, { keepWhole: 1e9 });
    const b = await runVectorsOnReference([file], dir, { keepWhole: 0, fast: false });
    expect(a.kept.filter((r) => r.verdict !== 'pass').map((r) => JSON.stringify(r))).toEqual(b.kept.map((r) => JSON.stringify(r)));
    expect(a.kept.length).toBe(lines.length);
  });

  it('a plain pass kept whole from the words serialises to the line, and the object, the full way gives', async () => {
    const a = await runVectorsOnReference([file], dir, { keepWhole: 1e9 });
    const b = await runVectorsOnReference([file], dir, { keepWhole: 1e9, fast: false });
    expect(a.kept.length).toBe(lines.length);
    expect(a.totals).toEqual(b.totals);
    let made = 0;
    for (let k = 0; k < a.kept.length; k++) {
      const x = a.kept[k]!;
      const y = b.kept[k]!;
      if (x instanceof PlainPass) made++;
      expect(resultLine(x)).toBe(JSON.stringify(y));
      expect(JSON.stringify(x)).toBe(JSON.stringify(y)); // its case, read back, is the full one
      expect(x.catalog).toBe(y.catalog);
      // a copy (as the comparator makes one) keeps its case
      expect(JSON.stringify(copyResult(x, { finding: 'F1' }))).toBe(JSON.stringify({ ...y, finding: 'F1' }));
    }
    // most passes are made from the words; the representative of each group goes the full way
    expect(made).toBeGreaterThan(a.verdicts.pass! / 2);
    expect(made).toBe(a.fastPasses);
  });

  it('a group whose representative is not what the line would say goes the full way', async () => {
    const f = join(dir, 'one-pass.jsonl');
    writeFileSync(
      f,
      '{"name": "p0", "instruction": "atom.global.add.f32", "memory": ["0x3f800000"], "operands": {"b": ["0x3f800000"]}, "expect": {"memory": ["0x40000000"]}}\n',
    );
    let packed: PackedCases | undefined;
    for await (const b of streamVectors([f], dir, { packed: true })) if (isPacked(b)) packed = b;
    expect(packed?.n).toBe(1);
    const full = runCaseOnReference(unpack(packed!, 0), { whole: true });
    expect(full.verdict).toBe('pass');
    expect(passGroup(packed!, 0, full, 1, undefined).ok).toBe(true);
    // the representative's full result with an input, an allowed set or a verdict its line would not say: refused
    expect(passGroup(packed!, 0, { ...full, case: { ...full.case!, input: { memory: ['0x3f800001'], b: ['0x3f800000'] } } }, 1, undefined).ok).toBe(false);
    expect(
      passGroup(packed!, 0, { ...full, case: { ...full.case!, allowed: { memory: [[{ bits: ['0x40000000', '0x40000001'], anyNaN: false }]] } } }, 1, undefined)
        .ok,
    ).toBe(false);
    expect(passGroup(packed!, 0, { ...full, verdict: 'observed' }, 1, undefined).ok).toBe(false);
  });

  it('a wrong expect past the kept head is a mismatch, not a fast pass', async () => {
    const f = join(dir, 'one-wrong.jsonl');
    const body = Array.from(
      { length: 50 },
      (_, k) =>
        `{"name": "w${k}", "instruction": "atom.global.add.f32", "memory": ["0x3f800000"], "operands": {"b": ["0x3f800000"]}, "expect": {"memory": ["${k === 37 ? '0x40000001' : '0x40000000'}"]}}`,
    );
    writeFileSync(f, `${body.join('\n')}\n`);
    const r = await runVectorsOnReference([f], dir, { keepWhole: 0 });
    expect(r.fastPasses).toBe(49);
    expect(r.kept.map((x) => [x.id.split(':').pop(), x.verdict])).toEqual([['w37', 'mismatch']]);
    expect(r.kept[0]!.reason).toMatch(/expected 0x40000001, the reference allows 0x40000000/);
  });
});
