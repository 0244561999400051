/**
 * The HTML report of a GPU litmus run (issue 26, deliverable 6): a summary, the mutation score per
 * class, then per test its histogram as a table with a bar per row (log scale, the count written, so
 * a weak outcome seen a few times in a million is visible), each row coloured by its verdict (allowed
 * seen, allowed never seen, forbidden seen, forbidden not seen), the stress settings, instances and
 * instances/s, and a link to its reproducer. Mutants are collapsed in <details>. No external assets.
 */
import type { GpuLitmusResult, MutationReport } from './results.js';
import type { HistRow } from './run.js';
import { LOOP_BOUND } from './kernel.js';

export interface HtmlRun {
  readonly device: string;
  readonly seconds: number;
  readonly seed?: number;
  readonly arch?: string;
  readonly stressFile?: string;
  readonly selfTest?: boolean;
  readonly mutation?: MutationReport;
  readonly replayOf?: string;
  /** Reproducer folders by result file, relative to the report. */
  readonly repros?: Readonly<Record<string, string>>;
}

export const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The CSS class of a histogram row: a-seen, a-never, f-seen, f-zero. */
export function rowClass(h: Pick<HistRow, 'allowed' | 'count'>): 'a-seen' | 'a-never' | 'f-seen' | 'f-zero' {
  return h.allowed ? (h.count ? 'a-seen' : 'a-never') : h.count ? 'f-seen' : 'f-zero';
}

const VERDICT: Record<ReturnType<typeof rowClass>, string> = {
  'a-seen': 'allowed',
  'a-never': 'allowed, never seen',
  'f-seen': 'FORBIDDEN, SEEN',
  'f-zero': 'forbidden',
};

/** Bar width in % of the row's count on a log scale over the test's instances (1 instance is visible). */
export function barWidth(count: number, instances: number): number {
  if (!count) return 0;
  return Math.max(1, Math.round((1000 * Math.log10(count + 1)) / Math.log10(Math.max(instances, 1) + 1)) / 10);
}

function histogram(r: GpuLitmusResult): string {
  const g = r.gpu!;
  const rows = g.histogram
    .map((h) => {
      const c = rowClass(h);
      return `<tr class="${c}">${h.values.map((v) => `<td>${esc(v)}</td>`).join('')}<td class="n">${h.count}</td><td class="bar"><i style="width:${barWidth(h.count, g.instances)}%"></i></td><td>${VERDICT[c]}${h.allowed ? '' : ` (${esc(h.why ?? '')})`}</td></tr>`;
    })
    .join('');
  const other =
    (g.other.count ? `<p>${g.other.count} outcome(s) outside the table; ${g.other.samples} sampled above.</p>` : '') +
    (g.gaveUp ? `<p>${g.gaveUp} instance(s) not judged: a thread's loop ran ${LOOP_BOUND} times and gave up.</p>` : '');
  return `<table class="h"><tr>${g.keys.map((k) => `<th>${esc(k)}</th>`).join('')}<th>count</th><th>log scale</th><th>verdict</th></tr>${rows}</table>${other}`;
}

function settings(r: GpuLitmusResult): string {
  const g = r.gpu!;
  const one = (s: NonNullable<GpuLitmusResult['stress']>) =>
    `stress ${s.warps} warp(s) x ${s.iters} iter(s), stride ${s.stride}, align ${s.align ? 'on' : 'off'}${s.preload ? ', preload' : ''}${s.target === 'test' ? ", on the test's lines" : ''} (${esc(s.from)})`;
  const all = r.stress ? [r.stress, ...(r.stressAlso ?? [])] : [];
  const st = all.length > 1 ? `under ${all.length} settings, histograms added: ${all.map(one).join('; ')}` : all.length ? one(all[0]!) : 'stress not recorded';
  return `${g.instances} instances (${g.iterations} x ${g.perLaunch}; grid ${g.geometry.grid} x block ${g.geometry.block}${g.geometry.cluster > 1 ? `, clusters of ${g.geometry.cluster}` : ''}), ${(g.instancesPerSecond / 1e6).toFixed(1)} M instances/s; ${st}`;
}

export function renderGpuHtml(results: readonly GpuLitmusResult[], run: HtmlRun): string {
  const counts = { tests: 0, passed: 0, failed: 0, 'known-deviation': 0, skipped: 0, unparsed: 0, error: 0, mutants: 0 };
  for (const r of results) {
    if (r.mutant) counts.mutants++;
    else counts.tests++;
    counts[r.status]++;
  }
  const repro = (r: GpuLitmusResult) => (run.repros?.[r.file] ? ` <a href="${esc(run.repros[r.file]!)}/README.md">reproducer</a>` : '');
  const tests = results.filter((r) => !r.mutant);
  const ran = tests.filter((r) => r.gpu);
  const inst = results.reduce((s, r) => s + (r.gpu?.instances ?? 0), 0);
  const failed = results.filter((r) => r.status === 'failed');
  const never = ran.reduce((s, r) => s + r.gpu!.histogram.filter((h) => h.allowed && !h.count).length, 0);
  const summary = [
    `<p>${counts.tests} test(s)${counts.mutants ? ` and ${counts.mutants} mutant(s)` : ''}: ${counts.passed} no forbidden outcome seen, <b>${counts.failed} forbidden outcome seen</b>, ${counts['known-deviation']} known deviation(s) (explained findings), ${counts.skipped} skipped, ${counts.error} errors, ${counts.unparsed} unparsed; ${inst} instances in ${run.seconds.toFixed(1)} s${run.seed !== undefined ? `; seed ${run.seed}` : ''}${run.arch ? `, ${esc(run.arch)}` : ''}${run.stressFile ? `; stress settings from ${esc(run.stressFile)}` : ''}${run.replayOf ? `; a replay of ${esc(run.replayOf)}` : ''}. ${never} allowed outcome(s) never seen over the tests.</p>`,
    failed.length
      ? `<p class="f-seen">Forbidden outcome seen in: ${failed.map((r) => `<a href="#${esc(anchor(r.file))}">${esc(r.file)}</a> (${r.gpu!.forbiddenSeen} of ${r.gpu!.instances})${repro(r)}`).join(', ')}</p>`
      : '',
    '<p>Row colours: <span class="a-seen">allowed, seen</span> <span class="a-never">allowed, never seen</span> <span class="f-seen">forbidden, SEEN</span> <span class="f-zero">forbidden, not seen</span>. Bars: log scale, full width = every instance.</p>',
  ].join('');
  const mutation = run.mutation
    ? `<h2>Mutation score</h2><table><tr><th>class</th><th>mutants</th><th>killed</th><th>score</th></tr>${[...run.mutation.perClass, run.mutation.all].map((c) => `<tr><td>${c.cls}</td><td>${c.mutants}</td><td>${c.killed}</td><td>${c.mutants ? ((100 * c.killed) / c.mutants).toFixed(1) : '-'} %</td></tr>`).join('')}</table>`
    : '';
  const section = (r: GpuLitmusResult) =>
    `<section id="${esc(anchor(r.file))}" class="${r.status}"><h3>${esc(r.file)} <small>${r.status === 'failed' ? `FORBIDDEN OUTCOME SEEN (${r.gpu!.forbiddenSeen} of ${r.gpu!.instances})` : 'no forbidden outcome seen'}</small>${repro(r)}</h3><p>${settings(r)}</p>${histogram(r)}</section>`;
  const body = ran.map(section).join('\n');
  const mutants = results.filter((r) => r.mutant);
  const mut = mutants.length
    ? `<h2>Mutants (${mutants.length})</h2>${mutants
        .map((r) =>
          r.gpu
            ? `<details class="${r.status}"${r.status === 'failed' ? ' open' : ''}><summary>${esc(r.file)}: ${r.mutant!.cls}, ${esc(r.mutant!.change)}: weak outcome ${r.mutant!.weak ? `<b>seen ${r.mutant!.weak} times</b> (killed)` : 'not seen'}${r.status === 'failed' ? ' <b>FORBIDDEN OUTCOME SEEN</b>' : ''}${repro(r)}</summary><p>${settings(r)}</p>${histogram(r)}</details>`
            : `<p class="${r.status}">${esc(r.file)}: ${r.status} ${esc(r.reason ?? '')}</p>`,
        )
        .join('\n')}`
    : '';
  const rest = tests.filter((r) => !r.gpu);
  const other = rest.length
    ? `<h2>Not run (${rest.length})</h2><table>${rest.map((r) => `<tr class="${r.status}"><td>${esc(r.file)}</td><td>${r.status}</td><td>${esc(r.reason ?? '')}</td></tr>`).join('')}</table>`
    : '';
  const css =
    'body{font-family:sans-serif;max-width:1100px}td,th{padding:1px 6px;border-bottom:1px solid #ddd;vertical-align:top;text-align:left}td.n{text-align:right}' +
    'td.bar{width:260px}td.bar i{display:block;height:10px;background:#555;min-width:0}.a-seen{background:#e6f4e6}.a-never{background:#fff4d6}.f-seen{background:#f8c8c8;font-weight:bold}.f-zero{color:#999}' +
    '.f-seen td.bar i{background:#c00}.a-never td.bar i{background:none}section.failed h3,details.failed summary{color:#c00}.skipped,.error,.unparsed{color:#888}h3{margin:14px 0 2px;font-size:15px}section p{margin:2px 0}details{margin:2px 0}';
  return `<!doctype html><meta charset="utf-8"><title>litmus on the GPU</title><style>${css}</style><h1>Litmus tests on ${esc(run.device)}${run.selfTest ? ' (self-test)' : ''}</h1>${summary}${mutation}<h2>Tests (${ran.length} run)</h2>\n${body}\n${mut}\n${other}\n`;
}

const anchor = (file: string) => `t-${file.replace(/[^A-Za-z0-9]+/g, '-')}`;
