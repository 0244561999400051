/**
 * The HTML report: one self-contained file (no network: a Content-Security-Policy forbids every
 * load, the data sits in the page as JSON), rendered in the browser with DOM text nodes only, so
 * that text from vector files and tools (case names, ptxas messages) is shown, never interpreted.
 *
 * Two clicks to any mismatch: a summary-matrix cell or a finding filters the case list; a case
 * opens its detail (verdict, explanation, hex and decoded values side by side with the bits that
 * differ from the nearest allowed value marked, rule trail with citations, ptxas/SASS evidence).
 */
import { tallyRows, tallyText } from './tally.js';
import { decodeTable } from '../numerics/encode.js';
import { type ElementFormat, type FloatFormat, classify, elementFormat, splitLanes } from '../numerics/formats.js';
import type { RunReport } from './json.js';
import { PICTURE_LEGEND } from '../sweep/picture.js';
import { type EntryResult, type RuleDetail, VERDICTS, VERDICT_MEANING, allResultTotals, familyVerdictRows } from './types.js';
import { failingResults, replayCommand, sourceLine } from './replay.js';
import { hexBits } from '../numerics/hex.js';
import { opAndType } from '../catalog/parse.js';
import { PAGE_CSS as CSS, PAGE_SCRIPT as SCRIPT } from './html-page.js';

/**
 * Results with full detail in the page: every mismatch, error and compile-mismatch listed, the
 * first 25 of each finding, and of the known deviations, passes, observations and skips the first
 * this many each (report.json has the detail of every result). Rule trails are written once each.
 */
export const HTML_DETAIL_LIMIT = 500;
/**
 * Results listed in the page: every mismatch, error, compile-mismatch and known deviation; of the
 * passes, observations and skips, the first this many each (the matrix counts them all; the page
 * says how many it leaves to report.json). Keeps a 180k-result gpu report to a page a browser opens.
 */
export const HTML_ROW_LIMIT = 20000;
const CAPPED = new Set(['pass', 'observed', 'skipped']);
/** Verdicts whose detail the page keeps for the first HTML_DETAIL_LIMIT only (and each finding's first 25). */
const DETAIL_CAPPED = new Set([...CAPPED, 'known-deviation']);

function decodeFloat(f: FloatFormat, b: bigint): string {
  const cls = classify(f, b);
  const neg = b >> BigInt(f.bits - 1) === 1n;
  if (cls === 'nan')
    return `${neg ? '-' : ''}NaN${b === BigInt(f.canonicalNaN) ? ' (canonical)' : ` (payload 0x${(b & ((1n << BigInt(f.fracBits)) - 1n)).toString(16)})`}`;
  if (cls === 'inf') return neg ? '-inf' : '+inf';
  if (cls === 'zero') return neg ? '-0' : '+0';
  let x: number;
  if (f.bits === 64) x = new Float64Array(new BigUint64Array([b]).buffer)[0]!;
  else if (f.bits === 32) x = new Float32Array(new Uint32Array([Number(b)]).buffer)[0]!;
  else x = decodeTable(f)[Number(b)]!;
  let s = f.bits === 32 ? String(Number(x.toPrecision(9))) : String(x);
  if (f.bits === 32 && Math.fround(Number(s)) !== x) s = x.toPrecision(9);
  return cls === 'subnormal' ? `${s} (subnormal)` : s;
}

function decodeLane(fmt: ElementFormat, b: bigint): string {
  const l = fmt.lane;
  if (l.kind === 'float') return decodeFloat(l, b);
  const signed = l.signed && b >> BigInt(l.bits - 1) === 1n ? b - (1n << BigInt(l.bits)) : b;
  return l.signed ? signed.toString() : b.toString();
}

const laneHex = hexBits;

interface Cell {
  /** hex of the lane */
  h: string;
  /** decoded */
  d: string;
}

interface OutRow {
  /** where: memory[0] lane 1 */
  w: string;
  /** observed (or expected, reference backend) */
  o?: Cell;
  /** allowed values, and "any NaN" */
  a: Cell[];
  n: boolean;
  /** observed falls in the allowed set */
  ok?: boolean;
  /** nearest allowed value, for the bit difference */
  near?: string;
  bits: number;
}

type AllowedJson = { bits: string[]; anyNaN: boolean };

type CaseTables = { inputs: { w: string; c: Cell }[]; outputs: OutRow[]; observedLabel: string };
const tablesOf = new WeakMap<object, CaseTables | undefined>();

/**
 * A case's tables on the page (inputs, and outputs against their allowed sets, lane by lane, decoded),
 * worked out once per case: the recorder asks for a hardware case's while the run goes (its event
 * loop free), so that the page's rows find them done.
 */
export function caseTables(r: EntryResult): CaseTables | undefined {
  const c = r.case;
  if (!c) return undefined;
  if (tablesOf.has(c)) return tablesOf.get(c);
  const t = tablesFor(r, c);
  tablesOf.set(c, t);
  return t;
}

function tablesFor(r: EntryResult, c: NonNullable<EntryResult['case']>): CaseTables | undefined {
  let fmt: ElementFormat;
  try {
    fmt = elementFormat(opAndType(r.ptx, r.id).type);
  } catch {
    return undefined;
  }
  const lanes = (hex: string) => splitLanes(fmt, BigInt(hex));
  const suffix = (l: number) => (fmt.lanes > 1 ? ` lane ${l}` : '');
  const inputs: { w: string; c: Cell }[] = [];
  const addInputs = (name: string, xs: unknown) => {
    if (!Array.isArray(xs)) return;
    xs.forEach((x, i) => {
      if (Array.isArray(x)) return addInputs(`${name}[${i}]`, x);
      if (typeof x !== 'string' || !/^0x[0-9a-f]+$/i.test(x)) return;
      lanes(x).forEach((v, l) => inputs.push({ w: `${name}[${i}]${suffix(l)}`, c: { h: laneHex(fmt.lane.bits, v), d: decodeLane(fmt, v) } }));
    });
  };
  for (const [k, v] of Object.entries(c.input)) addInputs(k, v);
  const observed = (c.observed ?? c.expect) as Record<string, unknown> | undefined;
  const allowed = c.allowed as Record<string, unknown>;
  const outputs: OutRow[] = [];
  const walk = (name: string, obs: unknown, al: unknown) => {
    const n = Math.max(Array.isArray(obs) ? obs.length : 0, Array.isArray(al) ? al.length : 0);
    for (let i = 0; i < n; i++) {
      const o = Array.isArray(obs) ? obs[i] : undefined;
      const a = Array.isArray(al) ? al[i] : undefined;
      if (Array.isArray(o) || (Array.isArray(a) && Array.isArray(a[0]))) {
        walk(`${name}[${i}]`, o, a);
        continue;
      }
      const ol = typeof o === 'string' ? lanes(o) : undefined;
      const count = ol?.length ?? (Array.isArray(a) ? a.length : 0);
      for (let l = 0; l < count; l++) {
        const set = (Array.isArray(a) ? a[l] : undefined) as AllowedJson | undefined;
        const ov = ol?.[l];
        const aBits = set?.bits.map((x) => BigInt(x)) ?? [];
        const isNan = ov !== undefined && fmt.lane.kind === 'float' && classify(fmt.lane, ov) === 'nan';
        const ok = set && ov !== undefined ? aBits.includes(ov) || (set.anyNaN && isNan) : undefined;
        let near: bigint | undefined;
        if (ov !== undefined && aBits.length) {
          const pop = (x: bigint) => x.toString(2).replace(/0/g, '').length;
          near = aBits.reduce((best, x) => (pop(x ^ ov) < pop(best ^ ov) ? x : best), aBits[0]!);
        }
        outputs.push({
          w: `${name}[${i}]${suffix(l)}`,
          ...(ov !== undefined ? { o: { h: laneHex(fmt.lane.bits, ov), d: decodeLane(fmt, ov) } } : {}),
          a: aBits.map((x) => ({ h: laneHex(fmt.lane.bits, x), d: decodeLane(fmt, x) })),
          n: Boolean(set?.anyNaN),
          ...(ok !== undefined ? { ok } : {}),
          ...(near !== undefined ? { near: laneHex(fmt.lane.bits, near) } : {}),
          bits: fmt.lane.bits,
        });
      }
    }
  };
  const keys = new Set([...Object.keys(observed ?? {}), ...Object.keys(allowed)]);
  for (const k of keys) walk(k, observed?.[k], allowed[k]);
  return { inputs, outputs, observedLabel: c.observed ? 'observed' : 'expected (file)' };
}

/** The page's data: compact rows for every result, detail for the non-pass ones and some passes. */
export function htmlData(report: RunReport) {
  const detailed: Record<string, number> = {};
  const quota = new Set<EntryResult>();
  const listed: Record<string, number> = {};
  const omitted: Record<string, number> = {};
  const matrix = new Map<string, Record<string, Record<string, number>>>();
  const ops = new Set<string>();
  const picked: EntryResult[] = [];
  const perFinding: Record<string, number> = {};
  // rule trails, each once (a row names its trail by index)
  const details: (readonly RuleDetail[])[] = [];
  const trailIndex = new Map<string, number>();
  const trail = (d: readonly RuleDetail[]): number => {
    const key = JSON.stringify(d);
    let i = trailIndex.get(key);
    if (i === undefined) trailIndex.set(key, (i = details.push(d) - 1));
    return i;
  };
  for (const r of report.results) {
    const { op, type } = opAndType(r.ptx, r.id);
    ops.add(op);
    const line = `${r.family}\u0000${type}`;
    const cells = matrix.get(line) ?? {};
    const cell = (cells[op] ??= {});
    cell[r.verdict] = (cell[r.verdict] ?? 0) + 1;
    matrix.set(line, cells);
    // every finding keeps its first 25 results in the list, whatever the cap
    const findingQuota = r.finding !== undefined && (perFinding[r.finding] = (perFinding[r.finding] ?? 0) + 1) <= 25;
    if (findingQuota) quota.add(r);
    if (CAPPED.has(r.verdict) && (listed[r.verdict] ?? 0) >= HTML_ROW_LIMIT && !findingQuota) {
      omitted[r.verdict] = (omitted[r.verdict] ?? 0) + 1;
      continue;
    }
    listed[r.verdict] = (listed[r.verdict] ?? 0) + 1;
    picked.push(r);
  }
  const rows = picked.map((r, i) => {
    const { op, type } = opAndType(r.ptx, r.id);
    const detail = !DETAIL_CAPPED.has(r.verdict) || quota.has(r) || (detailed[r.verdict] = (detailed[r.verdict] ?? 0) + 1) <= HTML_DETAIL_LIMIT;
    return {
      i,
      id: r.id,
      f: r.family,
      k: r.kind,
      v: r.verdict,
      op,
      t: type,
      fd: r.finding ?? '',
      ...(detail
        ? {
            x: {
              ptx: r.ptx,
              // '-': nothing was compiled (a reference-model case, a skipped one): the page names no PTX ISA
              ...(r.modulePtx && r.modulePtx !== '-' ? { modulePtx: r.modulePtx } : {}),
              reason: r.reason,
              catalog: r.catalog.detail ? { ...r.catalog, detail: trail(r.catalog.detail) } : r.catalog,
              explanation: r.explanation,
              expectation: r.expectation,
              ptxas: r.ptxas,
              sass: r.sass,
              toolchain: r.toolchain,
              origin: r.case?.origin,
              unspecified: r.case?.unspecified,
              nan: r.case?.nan,
              tables: caseTables(r),
            },
          }
        : {}),
    };
  });
  return {
    noFindings: noFindingsText(report),
    meta: {
      schema: report.schema,
      version: report.version,
      partial: report.partial,
      partialReason: report.partialReason,
      startedAt: report.startedAt,
      finishedAt: report.finishedAt,
      elapsedMs: report.elapsedMs,
      command: report.command,
      arch: report.arch,
      modulePtx: report.modulePtx,
      backend: report.backend,
      filter: report.filter,
      seed: report.seed,
      machine: report.machine,
      toolchain: report.toolchain,
      catalog: report.catalog,
      stats: report.stats,
      counts: report.counts,
    },
    verdicts: VERDICTS.map((v) => ({ v, meaning: VERDICT_MEANING[v] })),
    findings: report.findings,
    expectations: report.expectations,
    rules: report.rules,
    details,
    rows,
    omitted,
    matrix: {
      ops: [...ops].sort(),
      lines: [...matrix]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([line, cells]) => {
          const [f, t] = line.split('\u0000');
          return { f: f!, t: t!, cells };
        }),
    },
    passDetailLimit: HTML_DETAIL_LIMIT,
    rowLimit: HTML_ROW_LIMIT,
  };
}

type Row = ReturnType<typeof htmlData>['rows'][number];
/**
 * The rows as the page carries them: one array per row, family, kind and verdict as indices into
 * lists given once (the page's script unpacks them first thing). Twenty thousand rows as objects
 * repeated their keys and family names: a fifth of a default run's page.
 */
export function packRows(rows: readonly Row[]) {
  const lists = { f: [] as string[], k: [] as string[], v: [] as string[] };
  const index = { f: new Map<string, number>(), k: new Map<string, number>(), v: new Map<string, number>() };
  const at = (key: 'f' | 'k' | 'v', s: string): number => {
    let i = index[key].get(s);
    if (i === undefined) index[key].set(s, (i = lists[key].push(s) - 1));
    return i;
  };
  const r = rows.map((x, i) => {
    if (x.i !== i) throw new Error(`packRows: row ${i} has index ${x.i}`);
    const a: unknown[] = [x.id, at('f', x.f), at('k', x.k), at('v', x.v), x.op, x.t, x.fd];
    if ('x' in x && x.x) a.push(x.x);
    return a;
  });
  return { ...lists, r };
}

/**
 * JSON that is safe inside a <script> element: no '<', '>', '&' or line separators survive raw. The
 * characters are found by indexOf, five scans of the text (a default gpu run's page data is 7 M
 * characters with a dozen of them: a regular expression over it took twice as long).
 */
export function scriptJson(x: unknown): string {
  const s = JSON.stringify(x);
  const at: number[] = [];
  for (const ch of SCRIPT_UNSAFE) for (let i = s.indexOf(ch); i >= 0; i = s.indexOf(ch, i + 1)) at.push(i);
  if (!at.length) return s;
  at.sort((a, b) => a - b);
  let out = '';
  let from = 0;
  for (const i of at) {
    out += `${s.slice(from, i)}\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`;
    from = i + 1;
  }
  return out + s.slice(from);
}
const SCRIPT_UNSAFE = ['<', '>', '&', '\u2028', '\u2029'];

const esc = (t: string) => t.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Contention groups: verdict, distinct outcomes against the allowed set, determinism, and a histogram per group (server-side). */
function contentionSection(report: RunReport): string {
  const cs = report.contention;
  if (!cs?.length) return '';
  const rows = cs
    .map((c) => {
      const total = c.outcomes.reduce((t, o) => t + o.count, 0) || 1;
      const bars = c.outcomes
        .slice(0, 8)
        .map(
          (o) =>
            `<div title="${esc(o.reason)}"><span class="swatch" style="width:${Math.max(2, Math.round((120 * o.count) / total))}px;background:${o.verdict === 'pass' ? '#3a3' : o.verdict === 'observed' ? '#e90' : '#c22'}"></span>${o.count} ${esc(o.memory.join(' '))}${o.orders?.length ? ` <span class="muted">order ${esc(o.orders[0]!.join(' '))}</span>` : ''}</div>`,
        )
        .join('');
      return `<tr><td>${esc(c.id)}</td><td class="v-${esc(c.verdict)}">${esc(c.verdict)}</td><td>${c.n} x ${c.layout}${c.atomic ? '' : ' (narrow scope)'}</td><td>${c.distinct}${c.allowed !== undefined ? ` of ${c.allowed}` : ''}</td><td>${c.deterministic ? 'same bits' : 'differed'}</td><td>${c.lostUpdates}</td><td>${bars}</td></tr>`;
    })
    .join('');
  return `<section><h2>contention: outcomes per group (2 launches x addresses)</h2><table><tr><th>group</th><th>verdict</th><th>participants</th><th>distinct outcomes (of allowed)</th><th>launches</th><th>lost updates</th><th>histogram</th></tr>${rows}</table></section>\n`;
}

/**
 * What the findings section says when there is none: "every result passed" only where there are
 * results and the run finished (a partial report with none recorded says so).
 */
export function noFindingsText(report: Pick<RunReport, 'partial' | 'counts'>): string {
  const n = Object.values(report.counts.total).reduce((a, b) => a + (b ?? 0), 0);
  if (n === 0) return `No findings: no result was recorded${report.partial ? ' before the run stopped' : ''}.`;
  if (report.partial) return `No findings among the ${n} results recorded before the run stopped (a partial report: the rest were not checked).`;
  return 'No findings: every result passed.';
}

/**
 * The header's totals (server-side): every result the run judged per verdict, the passes it counted
 * and did not keep whole included (the console's "all results" line), and where some were not kept,
 * how many, and how to keep or replay them; the cases judged per family and verdict where the run
 * counted them (the console's "every case judged" line).
 */
export function totalsSection(report: RunReport): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const every = allResultTotals(report);
  const cells = VERDICTS.filter((v) => every.total[v])
    .map((v) => `<td class="num v-${v}" title="${esc(VERDICT_MEANING[v])}"><b>${v}</b> ${n(every.total[v]!)}</td>`)
    .join('');
  let html = `<table id="totals-table"><tr>${cells}<td class="num"><b>all results</b> ${n(every.all)}</td></tr></table>`;
  const d = every.notKept;
  if (d.all) {
    const parts = [d.entries ? `${n(d.entries)} catalog entries` : '', d.cases ? `${n(d.cases)} cases` : ''].filter(Boolean).join(', ');
    html +=
      `<p id="not-kept">${n(d.all)} of the ${n(every.total.pass ?? 0)} passes were counted and not kept whole in this report (${parts}): ` +
      `it keeps every result that is not a plain pass, and the first --keep passes of entries and of cases (${n(report.counts.total.pass ?? 0)} passes here); the summary matrix and the result list below count only the results it keeps. ` +
      `<code>--keep all</code> keeps them all; replay any by its id (<code>--filter ID</code> for a catalog entry, <code>--case ID</code> for a case).</p>`;
  }
  const judged = tallyRows(report.stats, 'total');
  if (judged.length) html += `<p id="every-case" class="muted">every case judged (the report keeps a sample of the passes): ${esc(tallyText(judged, n))}</p>`;
  return html;
}

/** The sweeps' maps (server-side: images and numbers, no script). */
function sweepSection(report: RunReport): string {
  const sw = report.sweeps;
  if (!sw?.length) return '';
  const n = (x: number) => x.toLocaleString('en-US');
  const legend = PICTURE_LEGEND.map((l) => `<span class="swatch" style="background:${l.colour}"></span>${esc(l.meaning)}`).join(' &nbsp; ');
  const figs = sw
    .map(
      (s) =>
        `<figure class="sweep"><img alt="map of ${esc(s.variant)}" width="256" height="256" src="${s.picture}"><figcaption><b>${esc(s.variant)}</b>${s.selftest ? ' <b class="v-mismatch">self-test</b>' : ''}<br>` +
        `${s.domain ? `${esc(s.domain)}${s.laneBits === 32 ? " (rows: x's high byte, columns: its next byte)" : ''}<br>` : ''}` +
        `${n(s.pairs)} pairs: pass ${n(s.pass)}, observed ${n(s.observed)} (NaN results not ${s.laneBits === 32 ? '0x7fffffff' : '0x7fff'}: ${n(s.nonCanonicalNaN)}), <span class="${s.mismatch ? 'v-mismatch' : ''}">mismatch ${n(s.mismatch)}</span>; ${s.differingCells} cells judged pair by pair; ${s.seconds.total.toFixed(2)} s` +
        `${
          s.groups?.length
            ? `<br>${s.groups
                .slice(0, 6)
                .map((g) => `${n(g.count)}: ${esc(g.signature)}`)
                .join('<br>')}`
            : ''
        }</figcaption></figure>`,
    )
    .join('');
  const notRun = report.sweepsNotRun?.length
    ? `<p class="muted">${report.sweepsNotRun.length} 32-bit sweeps not run within the --budget (listed in report.json, sweepsNotRun).</p>`
    : '';
  return `<section><h2>sweeps: 2^32 pairs each (16-bit pairs: rows memory operand's high byte, columns b's high byte)</h2><p class="muted">${legend}</p>${notRun}<div class="sweeps">${figs}</div></section>\n`;
}

/**
 * What the page shows without JavaScript (a `<noscript>`): the verdict table per family, as the
 * console's summary, and the failing results (id, verdict, file:line, why, the replay command).
 */
export function noscriptSection(report: RunReport, max = 200): string {
  const { rows } = familyVerdictRows(report);
  const table = rows
    .map((r, i) => `<tr>${r.map((c, j) => (i === 0 ? `<th>${esc(c)}</th>` : `<td${j ? ' class="num"' : ''}>${esc(c)}</td>`)).join('')}</tr>`)
    .join('');
  const bad = failingResults(report);
  const items = bad
    .slice(0, max)
    .map(
      (r) =>
        `<li><code>${esc(r.id)}</code> <b class="v-${r.verdict}">${r.verdict}</b>${sourceLine(r) ? ` at <code>${esc(sourceLine(r)!)}</code>` : ''}: ${esc(r.reason)}<br><code>${esc(replayCommand(r, report))}</code></li>`,
    )
    .join('');
  const failing = bad.length
    ? `<h3>failing results (${bad.length}${bad.length > max ? `; the first ${max}, every one in report.json and junit.xml` : ''})</h3><ol>${items}</ol>`
    : '<p>No failing result.</p>';
  return `<noscript><section id="noscript"><h2>summary (this page shows the rest with JavaScript)</h2><table>${table}</table>${failing}</section></noscript>`;
}

export function renderHtml(report: RunReport): string {
  const data = htmlData(report);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; connect-src 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PTX conformance report</title>
<style>${CSS}</style></head>
<body>
<div id="partial"></div>
<header><h1>PTX reduction conformance</h1><div id="totals">${totalsSection(report)}</div></header>
${noscriptSection(report)}
<section><h2>run</h2><div id="meta"></div><div id="stats"></div></section>
<section><h2>summary: family x type x operation, coloured by the worst verdict (click a cell)</h2><div id="matrix-box"></div></section>
${sweepSection(report)}${contentionSection(report)}<section><h2>findings (click one to list its results)</h2><div id="findings"></div></section>
<section id="cases-section"><h2>results</h2>
<div id="filters"><label>verdict<select id="f-verdict"></select></label><label>family<select id="f-family"></select></label><label>type<select id="f-type"></select></label><label>op<select id="f-op"></select></label><label>finding<select id="f-finding"></select></label><label>id contains<input id="f-text" type="search"></label><button id="f-clear" type="button">clear filters</button></div>
<p id="count" class="muted"></p>
<table id="cases"></table><button id="more" type="button">show more</button>
<div id="detail" hidden></div>
</section>
<script type="application/json" id="data">${scriptJson({ ...data, rows: packRows(data.rows) })}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
