/**
 * The recorded two-H100 peer run (reports/baselines/h100x2-sm_90-peer/, `npm run conformance -- peer`
 * on nvidia-h100-x2, 2026-11-25) replayed on CPU: every contention group's outcomes judged again by
 * the contention model with the group as the plan makes it now (same verdicts; .sys all atomic), a
 * planted lost update in a recorded .sys outcome is a mismatch (at .gpu: observed); every kept
 * single-thread case of both runs judged again by the comparator (same verdicts), local and peer
 * bits equal; the link as the driver described it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gpuPlan } from '../../harness/backends/gpu/plan.js';
import { judge } from '../../harness/compare/judge-case.js';
import { setOps } from '../../harness/contention/cases.js';
import { type ContentionCase, judgeContention, lanesOf } from '../../harness/contention/model.js';
import { elementFormat } from '../../harness/numerics/formats.js';
import { peerContentionGroups } from '../../harness/peer/contend.js';
import { SINGLE_FILTER, peerGroupId } from '../../harness/peer/plan.js';
import { compareRuns } from '../../harness/cli/peer.js';

const D = join(import.meta.dirname, '..', '..', 'reports', 'baselines', 'h100x2-sm_90-peer');
const gz = (f: string) => JSON.parse(gunzipSync(readFileSync(join(D, f))).toString());

interface Outcome {
  count: number;
  memory: string[];
  returned?: string[][];
  verdict: string;
}
interface Group {
  id: string;
  scope: string;
  verdict: string;
  lostUpdates: number;
  atomicRequired: boolean;
  outcomes: Outcome[];
  overlap: { spinTimeouts: number };
}

const run = gz('peer.json.gz') as {
  link: Record<string, { canAccess: boolean[]; attributes: Record<string, number> }>;
  devices: { name: string }[];
  contention: { groups: Group[] };
  single: { memory: string; exitCode: number; stats: { cases: number } }[];
  compare: { differ: unknown[] };
};
const { groups } = peerContentionGroups('sm_90', '9.0');
const byId = new Map(groups.map((g) => [peerGroupId(g), g]));

function judgeOutcome(id: string, o: Outcome, atomic?: boolean) {
  const g = byId.get(id)!;
  const fmt = elementFormat(g.gv.entry.q.type ?? '');
  const { memory, ops } = setOps(fmt, g.gv.shape.elements, g.set);
  const c: ContentionCase = { variant: { family: g.gv.entry.family, q: g.gv.entry.q }, memory, ops };
  return judgeContention(
    c,
    { memory: o.memory.map(BigInt), ...(o.returned ? { returned: o.returned.map((r) => r.map(BigInt)) } : {}) },
    atomic ?? g.atomic,
    lanesOf(c),
  );
}

describe('recorded 2 x H100 peer run', () => {
  it('the link: peer access both ways over NVLink, native atomics supported', () => {
    expect(run.devices.map((d) => d.name)).toEqual(['NVIDIA H100 80GB HBM3', 'NVIDIA H100 80GB HBM3']);
    for (const k of ['0->1', '1->0']) {
      expect(run.link[k]!.canAccess).toEqual([true, true]);
      expect(run.link[k]!.attributes).toMatchObject({ accessSupported: 1, nativeAtomicSupported: 1 });
    }
  });
  it('every contention group judged again: the recorded verdicts, .sys atomic everywhere, no update lost at any scope', { timeout: 300_000 }, () => {
    expect(run.contention.groups.length).toBe(735);
    const rank: Record<string, number> = { pass: 0, observed: 1, error: 2, mismatch: 3 };
    for (const rec of run.contention.groups) {
      const g = byId.get(rec.id);
      expect(g, rec.id).toBeDefined();
      expect(rec.atomicRequired).toBe(g!.scope === 'sys');
      let worst = 'pass';
      let lost = 0;
      for (const o of rec.outcomes) {
        const j = judgeOutcome(rec.id, o);
        expect(j.verdict, `${rec.id} ${JSON.stringify(o).slice(0, 200)}`).toBe(o.verdict);
        if (rank[j.verdict]! > rank[worst]!) worst = j.verdict;
        if (j.lostUpdate) lost += o.count;
      }
      if (!g!.atomic && worst === 'pass') worst = 'observed';
      expect(worst, rec.id).toBe(rec.verdict);
      expect(lost).toBe(rec.lostUpdates);
      expect(rec.verdict).toBe(rec.scope === 'sys' ? 'pass' : 'observed');
      expect(rec.overlap.spinTimeouts).toBe(0);
    }
  });
  it('a planted lost update in a recorded .sys outcome is a mismatch; the same at .gpu is observed', () => {
    const rec = run.contention.groups.find((x) => x.id === 'red.sys.global.add.u32/peer-contend-2+2-small')!;
    const o = rec.outcomes[0]!;
    // memory 5 plus 1, 2, 3, 4 from four CTAs (two a GPU): 15 in every order; 14 loses the first operation's update
    expect(o).toMatchObject({ memory: ['0x0000000f'], verdict: 'pass', count: 512 });
    const bad: Outcome = { ...o, memory: ['0x0000000e'] };
    const j = judgeOutcome(rec.id, bad);
    expect(j.verdict).toBe('mismatch');
    expect(j.reason).toMatch(/not atomic: .*a split read\/write interleaving gives it/);
    expect(judgeOutcome(rec.id, bad, false).verdict).toBe('observed');
  });
  it('single-thread runs: every kept case judged again by the comparator, the same verdict; local and peer bits equal', { timeout: 300_000 }, () => {
    const plan = gpuPlan('sm_90', '9.0', SINGLE_FILTER);
    expect(run.single.map((s) => [s.memory, s.exitCode])).toEqual([
      ['local', 0],
      ['peer', 0],
    ]);
    expect(run.single[0]!.stats.cases).toBe(run.single[1]!.stats.cases);
    const cases: Record<string, Map<string, { verdict: string; observed: unknown }>> = {};
    for (const m of ['local', 'peer']) {
      const rep = gz(join(m, 'report.json.gz')) as {
        results: {
          id: string;
          kind: string;
          verdict: string;
          case?: { input: Record<string, string[]>; observed: { memory?: string[]; returned?: string[] } };
        }[];
      };
      const kept = rep.results.filter((x) => x.kind === 'case' && x.case?.observed);
      expect(kept.length).toBeGreaterThan(2000);
      cases[m] = new Map();
      for (const x of kept) {
        const e = plan.byId.get(x.id.split('/')[0]!)!.entry;
        const big = (xs?: string[]) => xs?.map(BigInt);
        const input = Object.fromEntries(Object.entries(x.case!.input).map(([k, v]) => [k, big(v)]));
        const obs = {
          ...(x.case!.observed.memory ? { memory: big(x.case!.observed.memory)! } : {}),
          ...(x.case!.observed.returned ? { returned: big(x.case!.observed.returned)! } : {}),
        };
        expect(judge('', { family: e.family, q: e.q }, input as never, obs).verdict, x.id).toBe(x.verdict);
        cases[m]!.set(x.id, { verdict: x.verdict, observed: x.case!.observed });
      }
    }
    const cmp = compareRuns({ cases: cases.local! }, { cases: cases.peer! });
    expect(cmp.both).toBeGreaterThan(2000);
    expect(cmp.differ).toEqual([]);
    expect(run.compare.differ).toEqual([]);
    // subnormals on peer memory: f32 add flushes (smallest subnormal doubled gives +0), as locally
    const sub = cases.peer!.get('atom.global.add.f32/probe:atom.global.add.f32-smallest-subnormal-doubled');
    expect(sub).toEqual({ verdict: 'pass', observed: { memory: ['0x00000000'], returned: ['0x00000001'] } });
  });
});
