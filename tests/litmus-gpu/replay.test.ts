/** Replays the recorded H100 litmus run (reports/baselines/h100-sm_90-litmus/) through the judge: every recorded outcome's verdict recomputed. */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';
import { verdictOf } from '../../harness/litmus-gpu/outcomes.js';
import { mutantReplayer } from '../helpers/litmus-replay.js';
import { type MutantClass, mutationScores, weakCount } from '../../harness/litmus-gpu/mutants.js';
import { type FindingsFile, explain, readFindingsFile } from '../../harness/litmus-gpu/findings.js';

interface Base {
  tests: { file: string; keys: string[]; instances: number; rows: [string, number, string][] }[];
  skipped: [string, string][];
}
const base = JSON.parse(gunzipSync(readFileSync('reports/baselines/h100-sm_90-litmus/histograms.json.gz')).toString()) as Base;

describe('the recorded H100 litmus run', () => {
  it('has 223 tests run with >= 1 M instances each and 108 skipped with a reason', () => {
    expect(base.tests.length).toBe(223);
    expect(base.skipped.length).toBe(108);
    for (const t of base.tests) expect(t.instances).toBeGreaterThanOrEqual(1_000_000);
  });
  it('every recorded outcome: the judge gives the recorded verdict; counts add up; no forbidden outcome was seen', () => {
    let rows = 0;
    for (const t of base.tests) {
      const text = readFileSync(t.file, 'utf8');
      const j = judge(parseLitmus(text, t.file).test!);
      let sum = 0;
      for (const [vals, count, verdict] of t.rows) {
        const v = verdictOf(j, t.keys, vals.split(','));
        expect(v.allowed ? 'allowed' : v.why, `${t.file} ${vals}`).toBe(verdict);
        if (!v.allowed) expect(count, `${t.file} ${vals} forbidden`).toBe(0);
        sum += count;
        rows++;
      }
      expect(sum).toBe(t.instances);
    }
    expect(rows).toBeGreaterThan(800);
  }, 60_000);
  it('the replay catches a wrong verdict: MP+atom.release+atom.acquire (1,0) is forbidden, (1,1) allowed', () => {
    const f = 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus';
    const j = judge(parseLitmus(readFileSync(f, 'utf8'), f).test!);
    expect(verdictOf(j, ['P1:r0', 'P1:r1'], ['1', '0'])).toEqual({ allowed: false, why: '8.10.6 Causality' });
    expect(verdictOf(j, ['P1:r0', 'P1:r1'], ['1', '1']).allowed).toBe(true);
    expect(verdictOf(j, ['P1:r0', 'P1:r1'], ['7', '7'])).toEqual({ allowed: false, why: 'no candidate execution has it' });
  });
});

interface MutantRec {
  of: string;
  name: string;
  cls: MutantClass;
  change: string;
  weak: number;
  status: string;
  keys: string[];
  instances: number;
  rows: [string, number][];
}
interface MutBase {
  device: string;
  mutation: { perClass: { cls: string; killed: number; mutants: number }[]; all: { killed: number; mutants: number } };
  mutants: MutantRec[];
}
const mut = JSON.parse(gunzipSync(readFileSync('reports/baselines/h100-sm_90-litmus/mutants.json.gz')).toString()) as MutBase;

describe('the recorded H100 mutant run', () => {
  const { mutantOf, replay: replayed } = mutantReplayer();
  /** Recomputes a recorded mutant's weak count from its histogram through the model; no row of it may be forbidden. */
  const replay = (r: MutantRec) => {
    const { weak, forbidden } = replayed(r);
    expect(forbidden, `${r.of}#${r.name}: a forbidden row has a count`).toBe(0);
    return weak;
  };
  it('474 mutants of the corpus ran with >= 1 M instances each, none with an error or a forbidden outcome seen', () => {
    expect(mut.mutants.length).toBe(474);
    for (const r of mut.mutants) {
      expect(r.status, r.name).toBe('passed');
      expect(r.instances).toBeGreaterThanOrEqual(1_000_000);
    }
  });
  it('every recorded mutant: regenerated from its test, allowed by the model, its weak count and the score per class recomputed from the histogram', () => {
    const rs = mut.mutants.map((r) => {
      const weak = replay(r);
      expect(weak, `${r.of}#${r.name}`).toBe(r.weak);
      return { cls: r.cls, instances: r.instances, weak };
    });
    const s = mutationScores(rs);
    // the classes the record has (it predates the async class, which has no mutant in it)
    const recorded = new Set(mut.mutation.perClass.map((c) => c.cls));
    expect(s.perClass.filter((c) => recorded.has(c.cls)).map((c) => ({ cls: c.cls, killed: c.killed, mutants: c.mutants }))).toEqual(
      mut.mutation.perClass.map((c) => ({ cls: c.cls, killed: c.killed, mutants: c.mutants })),
    );
    expect(s.perClass.filter((c) => !recorded.has(c.cls)).map((c) => c.mutants)).toEqual(s.perClass.filter((c) => !recorded.has(c.cls)).map(() => 0));
    expect({ killed: s.all.killed, mutants: s.all.mutants }).toEqual({ killed: mut.mutation.all.killed, mutants: mut.mutation.all.mutants });
  }, 120_000);
  it('the replay catches a tampered record: a killed mutant with its weak rows moved to an allowed non-weak row', () => {
    const r = mut.mutants.find((x) => x.weak > 0 && x.of === 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus')!;
    expect(r).toBeDefined();
    const m = mutantOf(r)!;
    const weakRows = r.rows.filter(([v]) => weakCount(m.test, r.keys, [{ values: v.split(','), count: 1 }]));
    expect(weakRows.length).toBeGreaterThan(0);
    const moved = r.rows.map(([v, c]): [string, number] => (weakRows.some(([w]) => w === v) ? [v, 0] : [v, c]));
    moved[moved.findIndex(([v]) => !weakRows.some(([w]) => w === v))]![1] += r.weak;
    expect(replay({ ...r, rows: moved })).toBe(0);
    expect(() => replay({ ...r, name: 'sem:P9:L99' })).toThrow(/not a mutant the generator makes today/);
  });
});

/**
 * The recorded H100 run with shared-memory locations and 64-bit/packed values (kernel.ts
 * shared arrays, mapa, barrier.cluster): every row re-judged (64-bit keys modulo 2^64), the counts add
 * up, and every forbidden outcome seen is one the explained-findings file names (a known deviation of
 * reports/findings/shared-cluster-atomicity), recomputed from the histograms.
 */
interface SharedRec {
  file: string;
  keys: string[];
  keyBits?: number[];
  instances: number;
  status: string;
  known?: { finding: string; count: number }[];
  other: { count: number; samples: number };
  forbiddenSeen: number;
  rows: [string, number, string][];
}
const sh = JSON.parse(gunzipSync(readFileSync('reports/baselines/h100-sm_90-litmus/histograms-shared.json.gz')).toString()) as {
  device: string;
  counts: Record<string, number>;
  tests: SharedRec[];
  skipped: [string, string][];
};
const findings = readFindingsFile('cases/litmus/gpu-findings.json')!;
const runOf = (t: SharedRec) => ({
  keys: t.keys,
  ...(t.keyBits ? { keyBits: t.keyBits } : {}),
  histogram: t.rows.map(([v, count, verdict]) => ({ values: v.split(','), count, allowed: verdict === 'allowed' })),
  other: t.other,
  forbiddenSeen: t.forbiddenSeen,
});

describe('the recorded H100 litmus run with shared memory and 64-bit values', () => {
  it('ran every corpus test but the bulk, red.async and multimem ones (>= 1 M instances each), shared-memory tests among them', () => {
    expect(sh.device).toMatch(/H100/);
    expect(sh.tests.length + sh.skipped.length).toBe(sh.counts.tests);
    for (const t of sh.tests) expect(t.instances).toBeGreaterThanOrEqual(1_000_000);
    for (const [f, why] of sh.skipped) expect(`${f}: ${why}`).toMatch(/(Bulk|RedAsync)\+.*(async|proxyFence) instruction|Multimem\+.*multimem\.red/);
    const shared = sh.tests.filter((t) => Object.values(parseLitmus(readFileSync(t.file, 'utf8'), t.file).test!.locations).some((l) => l.space === 'shared'));
    expect(shared.length).toBeGreaterThanOrEqual(105);
    expect(sh.tests.filter((t) => t.keyBits?.includes(64)).map((t) => t.file.split('/').pop())).toEqual(
      expect.arrayContaining(['Atomicity+atom.or.b64.cluster-shared.litmus', 'Atomicity+atom.add.u64.cluster-shared.litmus']),
    );
  });
  it('every recorded outcome: the judge gives the recorded verdict (64-bit keys modulo 2^64); counts (other bin included) add up to the instances', () => {
    for (const t of sh.tests) {
      const j = judge(parseLitmus(readFileSync(t.file, 'utf8'), t.file).test!);
      let sum = 0;
      for (const [vals, count, verdict] of t.rows) {
        const v = verdictOf(j, t.keys, vals.split(','), t.keyBits);
        expect(v.allowed ? 'allowed' : v.why, `${t.file} ${vals}`).toBe(verdict);
        sum += count;
      }
      expect(sum - t.other.samples + t.other.count, t.file).toBe(t.instances);
    }
  }, 60_000);
  it('every forbidden outcome seen is explained by cases/litmus/gpu-findings.json (recomputed: test, count, finding); the atomic controls show none', () => {
    for (const t of sh.tests) {
      const x = explain(findings, t.file, runOf(t));
      expect(x.unexplained, t.file).toBe(0);
      if (t.forbiddenSeen) {
        expect(t.status, t.file).toBe('known-deviation');
        expect(x.known, t.file).toEqual(t.known);
        expect(x.known.map((k) => k.finding)).toEqual(['reports/findings/shared-cluster-atomicity']);
      } else expect(t.status, t.file).toBe('passed');
    }
    const deviating = sh.tests
      .filter((t) => t.forbiddenSeen)
      .map((t) => t.file.split('/').pop())
      .sort();
    expect(deviating).toEqual([
      'Atomicity+atom.add.noftz.bf16x2.cluster-shared.litmus',
      'Atomicity+atom.or.b64.cluster-shared.litmus',
      'Atomicity+red.add.noftz.f16x2.cluster-shared.litmus',
      'Atomicity+red.max.u64.cluster-shared.litmus',
      'Atomicity+red.xor.b64.cluster-shared.litmus',
    ]);
    for (const c of ['Atomicity+atom.add.cluster-shared.litmus', 'Atomicity+atom.add.u64.cluster-shared.litmus', 'Atomicity+red.or.b32.cluster-shared.litmus'])
      expect(sh.tests.find((t) => t.file.endsWith(c))!.forbiddenSeen, c).toBe(0);
  });
  it('the replay catches an unexplained forbidden outcome (the entry dropped from the findings file) and a 64-bit value judged as 32-bit', () => {
    const t = sh.tests.find((x) => x.file.endsWith('Atomicity+atom.or.b64.cluster-shared.litmus'))!;
    const without: FindingsFile = { ...findings, explained: findings.explained.filter((e) => e.test !== t.file) };
    expect(explain(without, t.file, runOf(t))).toEqual({ known: [], unexplained: t.forbiddenSeen });
    // an entry naming only another value explains the sampled rows it matches, not the rest
    const narrow: FindingsFile = { ...findings, explained: [{ ...findings.explained.find((e) => e.test === t.file)!, outcomes: [{ s: '0x100000000' }] }] };
    expect(explain(narrow, t.file, runOf(t)).unexplained).toBe(t.forbiddenSeen);
    const j = judge(parseLitmus(readFileSync(t.file, 'utf8'), t.file).test!);
    expect(verdictOf(j, ['s'], ['4294967297'], [64]).allowed).toBe(true);
    expect(verdictOf(j, ['s'], ['4294967297']).allowed).toBe(false); // read as 32-bit: the model's 0x100000001 is 1
  });
});
