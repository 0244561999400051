/**
 * The toolchain matrix on an H100 (reports/baselines/h100-sm_90-toolchain-matrix/, made by
 * scripts/gpu/matrix-run.sh): `contend`, `contend --filter shared::cluster --reps 1024` and the gpu
 * backend's default run, each under ptxas 13.0 and Debian's ptxas 11.8. Replayed here: the
 * comparison is computed again from the two recorded reports, and every kept contention outcome of
 * the 11.8 run is judged again by the contention model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gpuPlan } from '../../harness/backends/gpu/plan.js';
import { compareAnswers, gpuAnswerOf } from '../../harness/cli/matrix.js';
import { contentionPlan, setOps } from '../../harness/contention/cases.js';
import { groupId } from '../../harness/contention/run.js';
import { judgeContention } from '../../harness/contention/model.js';
import { elementFormat } from '../../harness/numerics/formats.js';
import type { ContentionReport } from '../../harness/report/json.js';
import { loadReport } from '../../harness/report/load.js';

const D = join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h100-sm_90-toolchain-matrix');
const LABELS = ['ptxas-13.0', 'ptxas-11.8'];
const load = (job: string, label: string) => loadReport(join(D, `${job}.${label}.report.json.gz`));

describe('recorded toolchain matrix on an H100', () => {
  it.each(['contend-matrix', 'contend-cluster-1024-matrix', 'gpu-matrix'])(
    '%s: the comparison computed again from the two reports is the recorded one',
    async (job) => {
      const [a, b] = await Promise.all(LABELS.map((l) => load(job, l)));
      expect([a!.toolchain.ptxas!.release, b!.toolchain.ptxas!.release]).toEqual(['13.0', '11.8']);
      // every result of a compiled kernel names its toolchain
      for (const r of [a!, b!])
        expect(new Set(r.results.map((x) => x.toolchain))).toEqual(
          new Set([`ptxas ${r.toolchain.ptxas!.release} (V${r.toolchain.ptxas!.versionLine.split(', V')[1]})`]),
        );
      const m = JSON.parse(readFileSync(join(D, `${job}.matrix.json`), 'utf8'));
      const c = compareAnswers(LABELS, [a!.results, b!.results], gpuAnswerOf);
      expect(c.same).toBe(m.same);
      expect(c.differences.map((d) => [d.id, d.answers['ptxas-13.0']!.verdict, d.answers['ptxas-11.8']!.verdict])).toEqual(
        m.differences.map((d: { id: string; answers: Record<string, { verdict: string }> }) => [
          d.id,
          d.answers['ptxas-13.0']!.verdict,
          d.answers['ptxas-11.8']!.verdict,
        ]),
      );
    },
  );

  it('contention under 11.8: every .shared::cluster finding of 13.0 holds (64-bit min too, with the falling operands), and f32/f64 add there is not atomic either (13.0 makes it atomic)', async () => {
    const [a, b] = await Promise.all(LABELS.map(async (l) => (await load('contend-matrix', l)) as unknown as { contention: ContentionReport[] }));
    const bad = (r: { contention: ContentionReport[] }) => new Set(r.contention.filter((c) => c.verdict === 'mismatch').map((c) => c.variant));
    const b13 = bad(a!);
    const b118 = bad(b!);
    // 64-bit and/or/xor/max/min (min: the 'falling' operand set) and f16x2/bf16x2 add, atom and red, with and without _
    expect(b13.size).toBe(26);
    for (const v of ['atom.shared::cluster.min.u64', 'red.shared::cluster.min.s64', 'atom.shared::cluster.or.b64(_)', 'red.shared::cluster.add.noftz.bf16x2'])
      expect(b13.has(v), v).toBe(true);
    for (const v of b13) expect(b118.has(v), v).toBe(true);
    expect([...b118].filter((v) => !b13.has(v)).sort()).toEqual([
      'atom.shared::cluster.add.f32',
      'atom.shared::cluster.add.f32(_)',
      'atom.shared::cluster.add.f64',
      'atom.shared::cluster.add.f64(_)',
      'red.shared::cluster.add.f32',
      'red.shared::cluster.add.f64',
    ]);
    // and nowhere else: every mismatch of either run is a cluster launch on .shared::cluster
    for (const r of [a!, b!])
      for (const c of r.contention.filter((x) => x.verdict === 'mismatch'))
        expect([c.id, c.layout, c.variant.startsWith('atom.shared::cluster') || c.variant.startsWith('red.shared::cluster')]).toEqual([c.id, 'cluster', true]);
  });

  it('every kept outcome of the 11.8 contention run, judged again by the contention model, gets its recorded verdict; a passing final one bit off does not pass', async () => {
    const r = (await load('contend-matrix', 'ptxas-11.8')) as unknown as { contention: ContentionReport[] };
    const groups = new Map(contentionPlan(gpuPlan('sm_90', '7.8'), () => true).map((g) => [groupId(g), g]));
    let judged = 0;
    let flipped = 0;
    for (const c of r.contention) {
      const g = groups.get(c.id);
      expect(g, c.id).toBeDefined();
      const fmt = elementFormat(g!.gv.entry.q.type ?? '');
      const { memory, ops } = setOps(fmt, g!.gv.shape.elements, g!.set);
      const cc = { variant: { family: g!.gv.entry.family, q: g!.gv.entry.q }, memory, ops, ...(g!.mode === 1 ? { space: 'shared' as const } : {}) };
      for (const o of c.outcomes.slice(0, 3)) {
        const obs = { memory: o.memory.map((x) => BigInt(x)), ...(o.returned ? { returned: o.returned.map((x) => x.map((y) => BigInt(y))) } : {}) };
        expect([c.id, judgeContention(cc, obs, g!.atomic).verdict]).toEqual([c.id, o.verdict]);
        judged++;
        if (o.verdict === 'pass' && g!.atomic && !/special/.test(c.set)) {
          expect([c.id, judgeContention(cc, { ...obs, memory: obs.memory.map((x) => x ^ 1n) }, g!.atomic).verdict]).toEqual([c.id, 'mismatch']);
          flipped++;
        }
      }
    }
    expect(judged).toBeGreaterThan(2000);
    expect(flipped).toBeGreaterThan(1000);
  }, 300_000);
});
