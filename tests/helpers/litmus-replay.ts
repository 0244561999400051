/**
 * Replays a recorded GPU litmus mutant through the model (tests/litmus-gpu/replay and bench-replay):
 * the mutant regenerated from its test by name, every histogram row judged, the weak count recomputed.
 * Also: a recorded run of Dat3M's peer tests judged again (async-replay, alias-replay).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';
import { keyInit, onDevice, verdictOf } from '../../harness/litmus-gpu/outcomes.js';
import type { GpuLitmusResult } from '../../harness/litmus-gpu/results.js';
import { join } from 'node:path';
import { mutantsOf, weakAllowed, weakCount } from '../../harness/litmus-gpu/mutants.js';
import { recordedPath } from './third-party.js';

export interface RecordedMutant {
  of: string;
  name: string;
  change: string;
  keys: string[];
  keyBits?: number[];
  instances: number;
  other?: { count: number; samples: number };
  rows: [string, number][];
}

/** A replayer with its own cache of regenerated mutants per test file. */
export function mutantReplayer() {
  const regen = new Map<string, ReturnType<typeof mutantsOf>>();
  const mutantOf = (r: RecordedMutant) => {
    if (!regen.has(r.of)) {
      const text = readFileSync(recordedPath(r.of), 'utf8');
      const t = parseLitmus(text, r.of).test!;
      regen.set(r.of, mutantsOf(t, text, judge(t), r.of));
    }
    return regen.get(r.of)!.find((m) => m.name === r.name);
  };
  /** Checks the mutant exists today with the recorded change and the model allows its weak outcome, that the counts add up; returns its weak count and the forbidden instances among its rows. */
  const replay = (r: RecordedMutant): { weak: number; forbidden: number } => {
    const m = mutantOf(r);
    expect(m, `${r.of}#${r.name} is not a mutant the generator makes today`).toBeDefined();
    expect(m!.change).toBe(r.change);
    expect(weakAllowed(m!.test, m!.judgement), `${r.of}#${r.name}: the model must allow its weak outcome`).toBe(true);
    let sum = 0;
    let forbidden = 0;
    for (const [vals, count] of r.rows) {
      if (!verdictOf(m!.judgement, r.keys, vals.split(','), r.keyBits).allowed) forbidden += count;
      sum += count;
    }
    expect(sum - (r.other?.samples ?? 0) + (r.other?.count ?? 0), `${r.of}#${r.name}: counts add up to the instances`).toBe(r.instances);
    return {
      weak: weakCount(
        m!.test,
        r.keys,
        r.rows.map(([v, count]) => ({ values: v.split(','), count })),
      ),
      forbidden,
    };
  };
  return { mutantOf, replay };
}

/**
 * Every Dat3M test a recorded run ran, judged again from the peer corpus at `root`: no forbidden
 * outcome seen, every histogram row's verdict as recorded. Returns how many ran.
 */
export function rejudgePeers(results: readonly GpuLitmusResult[], root: string): number {
  const ran = results.filter((r) => r.gpu);
  for (const r of ran) {
    const file = join(root, 'litmus', r.file.replace(/^\.peers\/dat3m\//, ''));
    const t = parseLitmus(readFileSync(file, 'utf8'), file).test!;
    const j = onDevice(judge(t), keyInit(t));
    expect(r.gpu!.forbiddenSeen, r.file).toBe(0);
    for (const h of r.gpu!.histogram) expect(verdictOf(j, r.gpu!.keys, h.values, r.gpu!.keyBits).allowed, `${r.file} ${h.values}`).toBe(h.allowed);
  }
  return ran.length;
}
