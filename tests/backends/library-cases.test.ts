/**
 * Case making at the GPU's pace must not change a case (issue 43, deliverable 2): the GPU workers'
 * library cases (directed probes, level-1/2 generated cases) of a sample of the default run's variants
 * are made again and compared, by digest, with those recorded before the speed-up
 * (tests/fixtures/library-cases.json, scripts/record-library-cases.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { libraryDigest, librarySample, wideSample } from '../helpers/library-cases.js';
import { decodeWideCase, encodeCase, fillGenerated, readSlot, writeSlot } from '../../harness/backends/gpu/batch.js';
import { WIDE_LIBRARY_CASES, libraryCases } from '../../harness/backends/gpu/library.js';
import { randomShape } from '../../cases/generators/cases.js';
import { laneTable, stringKey } from '../../cases/generators/random.js';
import { elementFormat } from '../../harness/numerics/formats.js';

const RECORDED = JSON.parse(readFileSync('tests/fixtures/library-cases.json', 'utf8')) as Record<string, string>;
const WIDE = JSON.parse(readFileSync('tests/fixtures/library-cases-wide.json', 'utf8')) as Record<string, string>;

describe("the GPU workers' library cases", () => {
  it('every sampled variant makes the recorded cases, ids and bits (185 variants, every 97th of the sm_90 plan)', () => {
    const sample = librarySample();
    expect(sample.length).toBe(Object.keys(RECORDED).length);
    for (const v of sample) expect(libraryDigest(v), v.id).toBe(RECORDED[v.id]);
  });
  it('the wide library cases of the bulk families (32, 48, 4096 and 65536 bytes; every 7th such variant) are the recorded ones', () => {
    const sample = wideSample();
    expect(sample.length).toBe(Object.keys(WIDE).length);
    for (const { v, bytes } of sample) expect(libraryDigest(v, bytes), `${v.id}@${bytes}`).toBe(WIDE[`${v.id}@${bytes}`]);
  });
  it('the digest sees one changed bit (the check can fail)', () => {
    const v = librarySample()[1]!;
    const other = { ...v, id: `${v.id}x` };
    expect(libraryDigest(other)).not.toBe(RECORDED[v.id]);
  });
});

describe("the library's sampled inputs made once by the run's thread (librarySamples, preloadSamples)", () => {
  it('a worker given them (through V8 serialisation, as over the IPC channel) makes the recorded cases; the values it was given are the ones it uses', async () => {
    const { serialize, deserialize } = await import('node:v8');
    const { gpuPlan } = await import('../../harness/backends/gpu/plan.js');
    const { librarySamples } = await import('../../harness/backends/gpu/library.js');
    const sample = librarySample();
    const gvs = gpuPlan('sm_90', '8.8').variants.filter((_, i) => i % 97 === 0);
    const entries = deserialize(serialize(librarySamples(gvs, 1))) as [string, { memory?: bigint[] }[]][];
    expect(entries.length).toBeGreaterThan(10);
    // a fresh copy of the modules: nothing sampled yet in it
    vi.resetModules();
    (await import('../../harness/families/index.js')).registerAllFamilies();
    const cases = await import('../../cases/generators/cases.js');
    const fresh = await import('../helpers/library-cases.js');
    cases.preloadSamples(entries as never);
    for (const v of sample) expect(fresh.libraryDigest(v), v.id).toBe(RECORDED[v.id]);
    // another copy given one value changed: its cases carry the change (the preloaded values are used, not sampled again)
    vi.resetModules();
    (await import('../../harness/families/index.js')).registerAllFamilies();
    const again = await import('../../cases/generators/cases.js');
    const third = await import('../helpers/library-cases.js');
    const changed = deserialize(serialize(entries)) as typeof entries;
    const at = changed.findIndex(([, inputs]) => inputs[0]?.memory?.length);
    changed[at]![1][0]!.memory![0]! ^= 1n;
    again.preloadSamples(changed as never);
    expect(sample.filter((v) => third.libraryDigest(v) !== RECORDED[v.id]).length).toBeGreaterThan(0);
  });
});

describe('writing a case into its launch slot', () => {
  it('every width, element by element, little-endian: what readSlot reads back, the bytes of the old per-byte loop', () => {
    const old = (buf: Uint8Array, slot: number, width: number, els: readonly bigint[]) =>
      els.forEach((v0, k) => {
        let v = v0;
        for (let j = 0; j < width / 8; j++, v >>= 8n) buf[slot * 16 + k * (width / 8) + j] = Number(v & 0xffn);
      });
    const cases: [number, bigint[]][] = [
      [8, [0xffn, 0x80n, 0n, 1n]],
      [16, [0xfedcn, 0x8001n, 0x7fffn]],
      [32, [0xdeadbeefn, 0x80000000n, 0xffffffffn, 1n]],
      [64, [0xfedcba9876543210n, 0x8000000000000001n]],
      [128, [0xffeeddccbbaa99887766554433221100n]],
      [32, [-1n, -2n]],
    ];
    for (const [w, els] of cases) {
      const a = new Uint8Array(64);
      const b = new Uint8Array(64);
      writeSlot(a, 2, w, els);
      old(b, 2, w, els);
      expect([...a], `${w}-bit`).toEqual([...b]);
      expect(readSlot(a, 2, w, els.length)).toEqual(els.map((x) => BigInt.asUintN(w, x)));
    }
  });
  it('encodeCase writes a frozen list it wrote before (the bytes remembered) as it writes a new one, at another slot and width too', () => {
    const els = Object.freeze([0xfedcba9876543210n, 0x8000000000000001n]);
    for (const w of [64, 32, 64, 16]) {
      const a = [0, 1, 2].map(() => new Uint8Array(96));
      const b = [0, 1, 2].map(() => new Uint8Array(96));
      encodeCase(a, 3, w, { memory: els as bigint[], b: els as bigint[] });
      writeSlot(b[0]!, 3, w, els);
      writeSlot(b[1]!, 3, w, els);
      expect(
        a.map((x) => [...x]),
        `${w}-bit`,
      ).toEqual(b.map((x) => [...x]));
    }
  });
});

describe("a wide library job's cases written straight into their slots", () => {
  it("fillGenerated writes a wide job's cases as the bytes encodeCase writes for libraryCases, and decodeWideCase reads each case back (every 7th bulk variant, each size)", () => {
    for (const { v, bytes } of wideSample().filter((_, k) => k % 3 === 0)) {
      const fmt = elementFormat(v.q.type ?? '');
      const width = fmt.bits;
      const cs = libraryCases(v, 1, bytes);
      expect(cs.length).toBe(WIDE_LIBRARY_CASES);
      const spc = bytes / 16;
      const first = 3; // not at slot 0
      const size = (first + cs.length * spc) * 16;
      const want = [0, 1, 2].map(() => Buffer.alloc(size));
      cs.forEach((c, i) => encodeCase(want, first + i * spc, width, c.input));
      const got = [0, 1, 2].map(() => Buffer.alloc(size));
      const words = got.map((b) => new Uint32Array(b.buffer, b.byteOffset, b.length / 4));
      fillGenerated(words, first, (cs.length * bytes) / 16, randomShape(v), laneTable(fmt.lane), width, fmt.lanes, 1, stringKey(v.id), 0);
      for (let f = 0; f < 3; f++) expect(got[f]!.equals(want[f]!), `${v.id}@${bytes} buffer ${f}`).toBe(true);
      cs.forEach((c, i) => expect(decodeWideCase(got, first + i * spc, width, randomShape(v), bytes)).toEqual(c.input));
    }
  });
});
