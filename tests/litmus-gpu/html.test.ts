/**
 * The GPU litmus HTML report (harness/litmus-gpu/html.ts) rendered from the recorded H100 run
 * (reports/baselines/h100-sm_90-litmus/: 223 tests, 474 mutants), verdicts recomputed by the judge:
 * every histogram row has a bar and its verdict's colour; a forbidden outcome planted in a copy is
 * marked as seen (and the recorded run has none); mutants are collapsed; the page stays small.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { GpuLitmusResult } from '../../harness/litmus-gpu/cli.js';
import { barWidth, renderGpuHtml, rowClass } from '../../harness/litmus-gpu/html.js';
import { type MutantClass, mutationScores } from '../../harness/litmus-gpu/mutants.js';
import { verdictOf } from '../../harness/litmus-gpu/outcomes.js';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';

const gz = (f: string) => JSON.parse(gunzipSync(readFileSync(f)).toString());
const base = gz('reports/baselines/h100-sm_90-litmus/histograms.json.gz') as {
  device: string;
  seconds: number;
  tests: { file: string; keys: string[]; instances: number; mps: number; rows: [string, number, string][] }[];
};
const mut = gz('reports/baselines/h100-sm_90-litmus/mutants.json.gz') as {
  mutants: {
    of: string;
    name: string;
    cls: MutantClass;
    change: string;
    weak: number;
    status: string;
    stress: GpuLitmusResult['stress'];
    keys: string[];
    instances: number;
    mps: number;
    rows: [string, number][];
  }[];
};

const judged = new Map<string, ReturnType<typeof judge>>();
const judgementOf = (file: string) => {
  if (!judged.has(file)) judged.set(file, judge(parseLitmus(readFileSync(file, 'utf8'), file).test!));
  return judged.get(file)!;
};

/** A recorded test as a result, each row's verdict from the judge. */
function result(t: (typeof base.tests)[number]): GpuLitmusResult {
  const j = judgementOf(t.file);
  const histogram = t.rows.map(([v, count]) => ({ values: v.split(','), count, ...verdictOf(j, t.keys, v.split(',')) }));
  const forbiddenSeen = histogram.filter((h) => !h.allowed).reduce((s, h) => s + h.count, 0);
  return {
    file: t.file,
    name: t.file,
    status: forbiddenSeen ? 'failed' : 'passed',
    stress: { warps: 2, iters: 64, stride: 1, align: false, from: 'defaults' },
    gpu: {
      keys: t.keys,
      histogram,
      other: { count: 0, samples: 0 },
      instances: t.instances,
      perLaunch: 67584,
      iterations: 15,
      seconds: t.instances / (t.mps * 1e6),
      instancesPerSecond: t.mps * 1e6,
      forbiddenSeen,
      geometry: { grid: 264, block: 576, cluster: 1 },
    },
  };
}

/** The rows of a test's section: [class, cells]. */
function sectionRows(html: string, file: string): { cls: string; cells: string[]; bar: boolean }[] {
  const id = `t-${file.replace(/[^A-Za-z0-9]+/g, '-')}`;
  const start = html.indexOf(`<section id="${id}"`);
  expect(start, file).toBeGreaterThanOrEqual(0);
  const sec = html.slice(start, html.indexOf('</section>', start));
  return [...sec.matchAll(/<tr class="([a-z-]+)">(.*?)<\/tr>/g)].map((m) => ({
    cls: m[1]!,
    cells: [...m[2]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!),
    bar: /<td class="bar"><i style="width:[0-9.]+%"><\/i><\/td>/.test(m[2]!),
  }));
}

describe('the GPU litmus HTML report, rendered from the recorded H100 run', () => {
  const tests = base.tests.map(result);
  const mutants: GpuLitmusResult[] = mut.mutants.map((m) => {
    // every recorded mutant row is allowed by the mutant's model (replay.test.ts re-judges each one)
    const histogram = m.rows.map(([v, count]) => ({ values: v.split(','), count, allowed: true }));
    return {
      file: `${m.of}#${m.name}`,
      name: m.name,
      status: 'passed',
      stress: m.stress,
      mutant: { of: m.of, cls: m.cls, name: m.name, change: m.change, weak: m.weak },
      gpu: {
        keys: m.keys,
        histogram,
        other: { count: 0, samples: 0 },
        instances: m.instances,
        perLaunch: 67584,
        iterations: 15,
        seconds: 1,
        instancesPerSecond: m.mps * 1e6,
        forbiddenSeen: 0,
        geometry: { grid: 264, block: 576, cluster: 1 },
      },
    };
  });
  const s = mutationScores(mutants.map((r) => ({ cls: r.mutant!.cls, instances: r.gpu!.instances, weak: r.mutant!.weak })));
  const run = { device: base.device, seconds: base.seconds, seed: 1, arch: 'sm_90', mutation: { ...s, notKilled: {} } };

  it("every row of every test has a bar (log scale) and its verdict's colour; the recorded run has no forbidden-seen row", () => {
    const html = renderGpuHtml(tests, run);
    let rows = 0;
    for (const t of tests) {
      const rs = sectionRows(html, t.file);
      expect(rs.length, t.file).toBe(t.gpu!.histogram.length);
      rs.forEach((r, i) => {
        const h = t.gpu!.histogram[i]!;
        expect(r.bar, `${t.file} row ${i}`).toBe(true);
        expect(r.cls).toBe(rowClass(h));
        expect(r.cells.slice(0, h.values.length)).toEqual(h.values);
        expect(r.cells[h.values.length]).toBe(String(h.count));
      });
      rows += rs.length;
    }
    expect(rows).toBeGreaterThan(800);
    expect(html).not.toMatch(/<tr class="f-seen">/);
    expect(html).toMatch(/<b>0 forbidden outcome seen<\/b>/);
    // the rarest weak outcome seen is visible: a bar of at least 1 % for a count of 1 in a million
    expect(barWidth(1, 1_013_760)).toBeGreaterThanOrEqual(1);
    expect(barWidth(0, 1_013_760)).toBe(0);
    expect(barWidth(1_013_760, 1_013_760)).toBe(100);
  });

  it('a forbidden outcome planted in a copy is marked FORBIDDEN, SEEN in red, summarised with its count, and only that row', () => {
    const copy = structuredClone(tests);
    const t = copy.find((r) => r.file === 'cases/litmus/MP+atom.release+atom.acquire.gpu.litmus')!;
    const rows = t.gpu!.histogram as { values: string[]; count: number; allowed: boolean }[];
    const f = rows.findIndex((h) => !h.allowed);
    const a = rows.findIndex((h) => h.allowed && h.count > 100);
    expect(f).toBeGreaterThanOrEqual(0);
    rows[f]!.count += 37;
    rows[a]!.count -= 37;
    (t.gpu as { forbiddenSeen: number }).forbiddenSeen = 37;
    t.status = 'failed';
    const html = renderGpuHtml(copy, { ...run, repros: { [t.file]: 'repro/MP+atom.release+atom.acquire.gpu' } });
    const rs = sectionRows(html, t.file);
    expect(rs[f]!.cls).toBe('f-seen');
    expect(rs[f]!.cells.at(-1)).toMatch(/^FORBIDDEN, SEEN \(8\.10\.6 Causality\)$/);
    expect(rs[f]!.cells[rows[f]!.values.length]).toBe('37');
    expect(rs.filter((r) => r.cls === 'f-seen')).toHaveLength(1);
    expect(html.match(/<tr class="f-seen">/g)).toHaveLength(1);
    expect(html).toContain(`FORBIDDEN OUTCOME SEEN (37 of ${t.gpu!.instances})`);
    expect(html).toMatch(/<b>1 forbidden outcome seen<\/b>/);
    expect(html).toContain('<a href="repro/MP+atom.release+atom.acquire.gpu/README.md">reproducer</a>');
  });

  it('with the 474 recorded mutants: the score table, each mutant collapsed in <details>, stress settings and instances/s shown, the page under 2 MB', () => {
    const all = [...tests, ...mutants];
    const html = renderGpuHtml(all, run);
    expect(html.match(/<details/g)).toHaveLength(474);
    expect(html.match(/<details[^>]* open/g)).toBeNull();
    for (const c of s.perClass) expect(html).toContain(`<tr><td>${c.cls}</td><td>${c.mutants}</td><td>${c.killed}</td>`);
    expect(html).toContain('<tr><td>all</td><td>474</td><td>90</td><td>19.0 %</td></tr>');
    const two = mut.mutants.find((m) => m.stress?.align && m.stress.warps === 8 && m.stress.stride === 4)!;
    expect(html).toContain(`stress 8 warp(s) x ${two.stress!.iters} iter(s), stride 4, align on (${two.stress!.from})`);
    const mp = tests.find((r) => r.file === 'cases/litmus/MP+atom.relaxed.litmus')!;
    expect(html).toContain(`${mp.gpu!.instances} instances (15 x 67584; grid 264 x block 576), ${(mp.gpu!.instancesPerSecond / 1e6).toFixed(1)} M instances/s`);
    expect(html.length).toBeLessThan(2_000_000);
    console.log(`[html] ${all.length} results (223 tests, 474 mutants): ${(html.length / 1e6).toFixed(2)} MB`);
  });
});
