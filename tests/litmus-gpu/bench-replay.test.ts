/**
 * Replays the recorded H100 run of `npm run bench:litmus-gpu` (reports/baselines/h100-sm_90-litmus/
 * bench-suite.json.gz: the corpus and the Dat3M peer tests; bench-mutants.json.gz: the stress search's
 * mutant run) through the judge: every row re-judged, every forbidden outcome explained by the findings
 * file, every mutant regenerated and its weak count and the mutation score recomputed.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';
import { verdictOf } from '../../harness/litmus-gpu/outcomes.js';
import { type MutantClass, weakCount } from '../../harness/litmus-gpu/mutants.js';
import { explain, readFindingsFile } from '../../harness/litmus-gpu/findings.js';
import { mutantReplayer } from '../helpers/litmus-replay.js';
import { peerRoot, recordedPath } from '../helpers/third-party.js';
import type { GpuLitmusResult } from '../../harness/litmus-gpu/results.js';
import { scoreOf } from '../../harness/litmus-gpu/report.js';

const gz = (f: string) => JSON.parse(gunzipSync(readFileSync(f)).toString());
const PEERS = '../shared/peers/dat3m-ptx/litmus/';
interface Rec {
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
const suite = gz('reports/baselines/h100-sm_90-litmus/bench-suite.json.gz') as {
  device: string;
  counts: Record<string, number>;
  tests: Rec[];
  skipped: [string, string][];
};
interface MRec {
  of: string;
  name: string;
  cls: MutantClass;
  change: string;
  weak: number;
  status: string;
  keys: string[];
  keyBits?: number[];
  instances: number;
  other: { count: number; samples: number };
  forbiddenSeen: number;
  rows: [string, number][];
}
const mut = gz('reports/baselines/h100-sm_90-litmus/bench-mutants.json.gz') as {
  device: string;
  mutation: { all: { killed: number; mutants: number } };
  testStatus: Record<string, string>;
  mutants: MRec[];
};
const findings = readFindingsFile('cases/litmus/gpu-findings.json')!;
const havePeers = peerRoot('re-judging the recorded H100 run of the Dat3M peer tests') !== undefined;

describe('the recorded H100 bench run: suite (corpus + peer tests)', () => {
  it('>= 300 tests ran (46 of them Dat3M peer tests), each with >= 1 M instances', () => {
    expect(suite.device).toMatch(/H100/);
    expect(suite.tests.length).toBeGreaterThanOrEqual(300);
    expect(suite.tests.filter((t) => t.file.startsWith(PEERS)).length).toBe(46);
    for (const t of suite.tests) expect(t.instances, t.file).toBeGreaterThanOrEqual(1_000_000);
  });
  it('every recorded row re-judged gives the recorded verdict; counts add up; every forbidden outcome seen is explained by the findings file', (ctx) => {
    if (!havePeers) ctx.skip();
    let deviating = 0;
    for (const t of suite.tests) {
      const j = judge(parseLitmus(readFileSync(recordedPath(t.file), 'utf8'), t.file).test!);
      let sum = 0;
      for (const [vals, count, verdict] of t.rows) {
        const v = verdictOf(j, t.keys, vals.split(','), t.keyBits);
        expect(v.allowed ? 'allowed' : v.why, `${t.file} ${vals}`).toBe(verdict);
        sum += count;
      }
      expect(sum - t.other.samples + t.other.count, t.file).toBe(t.instances);
      const x = explain(findings, t.file, {
        keys: t.keys,
        keyBits: t.keyBits,
        histogram: t.rows.map(([v, count, verdict]) => ({ values: v.split(','), count, allowed: verdict === 'allowed' })),
        other: t.other,
        forbiddenSeen: t.forbiddenSeen,
      });
      expect(x.unexplained, t.file).toBe(0);
      if (t.forbiddenSeen) deviating++;
    }
    expect(deviating).toBe(5);
  }, 120_000);
});

describe('the recorded H100 bench run: mutants under the searched stress', () => {
  const { mutantOf, replay } = mutantReplayer();
  it('every mutant regenerated, allowed by the model, its weak count recomputed; forbidden outcomes only in mutants of the deviating tests, explained like them', () => {
    expect(mut.mutants.length).toBeGreaterThanOrEqual(600);
    const recounted: string[] = [];
    for (const r of mut.mutants) {
      expect(r.instances).toBeGreaterThanOrEqual(1_000_000);
      const { weak, forbidden } = replay(r);
      // the run counted weak outcomes with 64-bit values cut to 32 bits (condHolds, fixed after the
      // run): a 64-bit mutant's recorded count may be short; every other count must be the same
      if (r.keyBits?.includes(64)) {
        expect(weak, `${r.of}#${r.name}`).toBeGreaterThanOrEqual(r.weak);
        if (weak !== r.weak) recounted.push(`${r.of.split('/').pop()}#${r.name}: ${r.weak} -> ${weak}`);
      } else expect(weak, `${r.of}#${r.name}`).toBe(r.weak);
      if (forbidden) {
        expect(mut.testStatus[r.of], `${r.of}#${r.name}: a forbidden outcome in a mutant of a test that showed none`).toBe('known-deviation');
        const x = explain(findings, `${r.of}#${r.name}`, {
          keys: r.keys,
          keyBits: r.keyBits,
          histogram: r.rows.map(([v, count]) => ({
            values: v.split(','),
            count,
            allowed: verdictOf(mutantOf(r)!.judgement, r.keys, v.split(','), r.keyBits).allowed,
          })),
          other: r.other,
          forbiddenSeen: r.forbiddenSeen,
        });
        expect(x.unexplained, `${r.of}#${r.name}`).toBe(0);
      }
    }
    // the recounted ones are mutants of the deviating 64-bit atomicity tests only (not scored)
    console.log(`recounted 64-bit mutants: ${recounted.join('; ') || 'none'}`);
    for (const x of recounted) expect(x).toMatch(/^Atomicity\+(atom|red)\.(or|xor)\.b64\.cluster-shared\.litmus#/);
  }, 180_000);
  it('the mutation score: the recorded figure over every mutant, and the score without the mutants of the deviating tests (scoreOf)', () => {
    const g = (r: MRec) => ({
      keys: r.keys,
      histogram: [],
      other: r.other,
      instances: r.instances,
      perLaunch: r.instances,
      iterations: 1,
      seconds: 1,
      instancesPerSecond: 1,
      forbiddenSeen: r.forbiddenSeen,
      geometry: { grid: 1, block: 1, cluster: 1 },
    });
    const tests: GpuLitmusResult[] = Object.entries(mut.testStatus).map(([file, status]) => ({
      file,
      name: file,
      status: status as GpuLitmusResult['status'],
      gpu: g(mut.mutants[0]!),
    }));
    const ms: GpuLitmusResult[] = mut.mutants.map((r) => ({
      file: `${r.of}#${r.name}`,
      name: r.name,
      status: 'passed',
      gpu: g(r),
      mutant: { of: r.of, cls: r.cls, name: r.name, change: r.change, weak: r.weak },
    }));
    // the run's own figure counted every mutant
    expect({ killed: ms.filter((m) => m.mutant!.weak > 0).length, mutants: ms.length }).toEqual({
      killed: mut.mutation.all.killed,
      mutants: mut.mutation.all.mutants,
    });
    const s = scoreOf([...tests, ...ms]);
    const deviating = new Set(
      Object.entries(mut.testStatus)
        .filter(([, st]) => st === 'known-deviation')
        .map(([f]) => f),
    );
    expect(deviating.size).toBe(5);
    const kept = mut.mutants.filter((r) => !deviating.has(r.of));
    expect(s.notScored).toHaveLength(mut.mutants.length - kept.length);
    expect(s.all).toMatchObject({ mutants: kept.length, killed: kept.filter((r) => r.weak > 0).length });
    for (const c of s.perClass) expect(c.mutants, c.cls).toBe(kept.filter((r) => r.cls === c.cls).length);
    expect(s.all.score).toBeLessThan(0.85); // the target is NOT met on this run (docs/litmus.md says why)
  });
  it('the replay catches a tampered record: a weak row moved to a non-weak row, and a forbidden row in a clean mutant', () => {
    const r = mut.mutants.find((x) => x.weak > 0 && x.of.endsWith('MP+atom.release+atom.acquire.gpu.litmus'))!;
    expect(r).toBeDefined();
    const m = mutantOf(r)!;
    const weakRows = r.rows.filter(([v]) => weakCount(m.test, r.keys, [{ values: v.split(','), count: 1 }]));
    const moved = r.rows.map(([v, c]): [string, number] => (weakRows.some(([w]) => w === v) ? [v, 0] : [v, c]));
    moved[moved.findIndex(([v]) => !weakRows.some(([w]) => w === v))]![1] += r.weak;
    expect(replay({ ...r, rows: moved }).weak).toBe(0);
    const x = explain(findings, `${r.of}#${r.name}`, {
      keys: r.keys,
      histogram: [{ values: ['7', '7'], count: 3, allowed: false }],
      other: { count: 0, samples: 0 },
      forbiddenSeen: 3,
    });
    expect(x.unexplained).toBe(3);
  });
});
