/**
 * The HTML report: one self-contained file (no network: a Content-Security-Policy forbids every
 * load, the data sits in the page as JSON), rendered in the browser with DOM text nodes only, so
 * that text from vector files and tools (case names, ptxas messages) is shown, never interpreted.
 *
 * Two clicks to any mismatch: a summary-matrix cell or a finding filters the case list; a case
 * opens its detail (verdict, explanation, hex and decoded values side by side with the bits that
 * differ from the nearest allowed value marked, rule trail with citations, ptxas/SASS evidence).
 */
import { decodeTable } from '../numerics/encode.js';
import { type ElementFormat, type FloatFormat, classify, elementFormat, splitLanes } from '../numerics/formats.js';
import type { RunReport } from './json.js';
import { PICTURE_LEGEND } from '../sweep/picture.js';
import { type EntryResult, type RuleDetail, VERDICTS, VERDICT_MEANING, allResultTotals, familyVerdictRows } from './types.js';
import { failingResults, replayCommand, sourceLine } from './replay.js';
import { hexBits } from '../numerics/hex.js';

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

const OPS = new Set(['add', 'min', 'max', 'inc', 'dec', 'and', 'or', 'xor', 'exch', 'cas']);
const TYPES = /^(b16|b32|b64|b128|u32|u64|s32|s64|f16|f16x2|bf16|bf16x2|f32|f64|e4m3|e4m3x2|e4m3x4|e5m2|e5m2x2|e5m2x4|v2|v4|v8)$/;

/** Per instruction, once: a report of 200,000 results has a few hundred instructions. */
const opAndTypeOf = new Map<string, { op: string; type: string }>();

export function opAndType(ptx: string): { op: string; type: string } {
  const known = opAndTypeOf.get(ptx);
  if (known) return known;
  const toks = ptx.replace(/\(_\)$/, '').split(/[.\s]+/);
  const op = toks.find((t) => OPS.has(t)) ?? (toks.includes('st') ? 'st' : '-');
  const types = toks.filter((t) => TYPES.test(t) && !/^v\d$/.test(t));
  const found = Object.freeze({ op, type: types[types.length - 1] ?? '-' });
  if (opAndTypeOf.size < 100_000) opAndTypeOf.set(ptx, found);
  return found;
}

function decodeFloat(f: FloatFormat, b: bigint): string {
  const cls = classify(f, b);
  const neg = b >> BigInt(f.bits - 1) === 1n;
  if (cls === 'nan') return `${neg ? '-' : ''}NaN${b === BigInt(f.canonicalNaN) ? ' (canonical)' : ` (payload 0x${(b & ((1n << BigInt(f.fracBits)) - 1n)).toString(16)})`}`;
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

export function caseTables(r: EntryResult): { inputs: { w: string; c: Cell }[]; outputs: OutRow[]; observedLabel: string } | undefined {
  const c = r.case;
  if (!c) return undefined;
  let fmt: ElementFormat;
  try {
    fmt = elementFormat(opAndType(r.ptx).type);
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
    const { op, type } = opAndType(r.ptx);
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
    const { op, type } = opAndType(r.ptx);
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
      lines: [...matrix].sort((a, b) => a[0].localeCompare(b[0])).map(([line, cells]) => {
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

/** JSON that is safe inside a <script> element: no '<', '>', '&' or line separators survive raw. */
export function scriptJson(x: unknown): string {
  return JSON.stringify(x).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const CSS = `
.sweeps{display:flex;flex-wrap:wrap;gap:12px}.sweep{width:270px;margin:0;font-size:12px}.sweep img{image-rendering:pixelated;border:1px solid #999}.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fafbfc}
header,section{padding:8px 16px}
h1{font-size:20px;margin:8px 0}h2{font-size:16px;margin:12px 0 6px;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #d0d7de;padding:2px 6px;vertical-align:top;text-align:left}
th{background:#f0f3f6}.num{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.v-pass{background:#dafbe1}.v-observed{background:#ddf4ff}.v-skipped{background:#eaeef2}.v-known-deviation{background:#fff8c5}
.v-compile-mismatch{background:#ffd8b5}.v-mismatch{background:#ffcecb}.v-error{background:#ff9492}
.partial{background:#ffcecb;padding:6px 16px;font-weight:bold}
.matrix td.cell{cursor:pointer;min-width:44px}.matrix td.cell:hover{outline:2px solid #0969da}
#filters label{margin-right:10px}#filters select,#filters input{margin-left:4px}
#cases tr{cursor:pointer}#cases tr:hover td{background:#f6f8fa}#cases tr.sel td{outline:2px solid #0969da}
#detail{border:1px solid #d0d7de;background:#fff;padding:8px 12px;margin-top:8px}
mark{background:#ff8182;color:#000}.ok{color:#1a7f37}.bad{color:#cf222e;font-weight:bold}
.findings tr{cursor:pointer}.findings tr:hover td{background:#f6f8fa}
.muted{color:#57606a}button{margin:4px 0}
`;

/** The page's script: builds every element with createElement/textContent (never innerHTML). */
const SCRIPT = String.raw`
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
// rows come packed (packRows): one array each, family, kind and verdict by index
D.rows = D.rows.r.map((a, i) => ({ i, id: a[0], f: D.rows.f[a[1]], k: D.rows.k[a[2]], v: D.rows.v[a[3]], op: a[4], t: a[5], fd: a[6], x: a[7] }));
const SEV = ['error','mismatch','compile-mismatch','known-deviation','observed','skipped','pass'];
const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, String(v));
  }
  for (const k of kids.flat()) if (k !== undefined && k !== null && k !== false) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
function worst(counts) { for (const v of SEV) if (counts[v]) return v; return 'pass'; }
const state = { verdict: '', family: '', type: '', op: '', finding: '', text: '', shown: 200, selected: -1 };

function renderMeta() {
  const m = D.meta;
  if (m.partial) $('partial').append(el('div', { class: 'partial', id: 'partial-banner' }, 'PARTIAL REPORT: ', m.partialReason || 'the run stopped before it finished', ' (results recorded up to then are below)'));
  const tc = m.toolchain || {};
  const gpu = tc.gpu && tc.gpu.device ? tc.gpu.device : undefined;
  const rows = [
    ['arch', m.arch], ['backend', m.backend.name + ' (' + m.backend.reason + ')'], ['passed over', (m.backend.passedOver || []).join('; ') || '-'],
    ['command', (m.command || []).join(' ')], ['started', m.startedAt], ['elapsed', (m.elapsedMs / 1000).toFixed(1) + ' s'],
    ['module PTX ISA', m.modulePtx], ['catalog', 'PTX ISA ' + m.catalog.ptxIsa + ', ' + m.catalog.entries + ' entries'], ['filter', m.filter || '-'], ['seed', m.seed],
    ['machine', m.machine.hostname + ': ' + m.machine.cpu + ', ' + m.machine.cpus + ' cpus, ' + m.machine.platform + ' ' + m.machine.osRelease + ', node ' + m.machine.node],
    ['ptxas', tc.ptxas ? tc.ptxas.versionLine + ' (' + tc.ptxas.path + ', PTX ISA up to ' + tc.ptxas.maxPtx + ')' : 'none'],
    ['GPU', gpu ? JSON.stringify(gpu) + (tc.gpu.driverVersion ? ', driver ' + tc.gpu.driverVersion : '') : 'none'],
    ['report', D.meta.schema + ' v' + D.meta.version],
  ];
  $('meta').append(el('table', {}, rows.map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', { class: 'mono' }, String(v))))));
  const stats = Object.entries(m.stats || {});
  if (stats.length) $('stats').append(el('details', {}, el('summary', {}, 'backend statistics (' + stats.length + ')'), el('table', {}, stats.map(([k, v]) => el('tr', {}, el('td', { class: 'mono' }, k), el('td', { class: 'num' }, String(Math.round(v * 1000) / 1000)))))));
}

function renderMatrix() {
  const ops = D.matrix.ops;
  const table = el('table', { class: 'matrix', id: 'matrix' }, el('tr', {}, el('th', {}, 'family'), el('th', {}, 'type'), ops.map((o) => el('th', {}, o))));
  for (const line of D.matrix.lines) {
    const f = line.f, t = line.t;
    table.append(el('tr', {}, el('td', {}, f), el('td', { class: 'mono' }, t), ops.map((o) => {
      const c = line.cells[o];
      if (!c) return el('td', {});
      const w = worst(c);
      const n = Object.values(c).reduce((a, b) => a + b, 0);
      const title = Object.entries(c).map(([v, k]) => v + ' ' + k).join(', ');
      // the total, and how many of it have the cell's worst verdict (not the total labelled with that verdict)
      return el('td', { class: 'cell num v-' + w, title, 'data-family': f, 'data-type': t, 'data-op': o, onclick: () => { setFilters({ family: f, type: t, op: o, finding: '', verdict: w === 'pass' ? '' : w }); } }, String(n), w !== 'pass' ? ' (' + c[w] + ' ' + w + ')' : '');
    })));
  }
  $('matrix-box').append(table);
  const om = Object.entries(D.omitted || {});
  if (om.length) $('matrix-box').append(el('p', { class: 'muted', id: 'omitted' }, 'The matrix counts every result the report keeps; the list below leaves out ' + om.map(([v, n]) => n + ' ' + v).join(', ') + ' results (it keeps every mismatch, error, compile-mismatch and known deviation, and the first ' + D.rowLimit + ' of the others); report.json has them all.'));
}

function renderFindings() {
  const box = $('findings');
  if (!D.findings.length) { box.append(el('p', {}, D.noFindings)); return; }
  const t = el('table', { class: 'findings' }, el('tr', {}, ['finding', 'verdict', 'subject', 'explanation', 'count', 'examples'].map((h) => el('th', {}, h))));
  for (const f of D.findings) {
    t.append(el('tr', { 'data-finding': f.key, onclick: () => setFilters({ finding: f.key, verdict: '', family: '', type: '', op: '' }) },
      el('td', { class: 'mono' }, f.key), el('td', { class: 'v-' + f.verdict }, f.verdict), el('td', {}, f.subject),
      el('td', {}, f.text, f.expectation ? el('div', { class: 'muted' }, 'expectation: ' + f.expectation) : null),
      el('td', { class: 'num' }, String(f.count)), el('td', { class: 'mono' }, f.examples.join('\n'))));
  }
  box.append(t);
  const ex = D.expectations;
  if (ex && ex.outcomes.length) {
    box.append(el('h3', {}, 'expectations (' + (ex.file || 'none') + ')'), el('table', { id: 'expectations' }, el('tr', {}, ['id', 'status', 'matched', 'ran', 'pattern', 'reason', 'link', 'where'].map((h) => el('th', {}, h))),
      ex.outcomes.map((o) => el('tr', {}, el('td', { class: 'mono' }, o.id), el('td', { class: o.status === 'unexpected-pass' ? 'v-mismatch' : o.status === 'occurred' ? 'v-known-deviation' : 'v-skipped', title: o.why }, o.status), el('td', { class: 'num' }, String(o.matched)), el('td', { class: 'num' }, String(o.ran)), el('td', { class: 'mono' }, o.pattern), el('td', {}, o.reason), el('td', { class: 'mono' }, o.link), el('td', { class: 'mono' }, o.where)))));
  }
}

function options(select, values, label) {
  select.append(el('option', { value: '' }, 'all ' + label));
  for (const v of values) select.append(el('option', { value: v }, v));
}
function renderFilters() {
  const uniq = (f) => [...new Set(D.rows.map(f))].filter((x) => x !== '').sort();
  options($('f-verdict'), D.verdicts.map((x) => x.v).filter((v) => D.meta.counts.total[v]), 'verdicts');
  options($('f-family'), uniq((r) => r.f), 'families');
  options($('f-type'), uniq((r) => r.t), 'types');
  options($('f-op'), uniq((r) => r.op), 'ops');
  options($('f-finding'), D.findings.map((f) => f.key), 'findings');
  for (const k of ['verdict', 'family', 'type', 'op', 'finding']) $('f-' + k).addEventListener('change', (e) => setFilters({ [k]: e.target.value }));
  $('f-text').addEventListener('input', (e) => setFilters({ text: e.target.value }));
  $('f-clear').addEventListener('click', () => setFilters({ verdict: '', family: '', type: '', op: '', finding: '', text: '', clear: true }));
  $('more').addEventListener('click', () => { state.shown += 500; renderCases(); });
}
function setFilters(p) {
  const { clear: _clear, ...q } = p;
  Object.assign(state, q, { shown: 200 });
  for (const k of ['verdict', 'family', 'type', 'op', 'finding']) $('f-' + k).value = state[k];
  $('f-text').value = state.text;
  renderCases();
  const first = matching()[0];
  if (first && (p.finding || p.family)) showDetail(first.i);
  else if (!p.clear) $('cases-section').scrollIntoView();
}
function matching() {
  const t = state.text.toLowerCase();
  return D.rows.filter((r) => (!state.verdict || r.v === state.verdict) && (!state.family || r.f === state.family) && (!state.type || r.t === state.type) && (!state.op || r.op === state.op) && (!state.finding || r.fd === state.finding) && (!t || r.id.toLowerCase().includes(t)));
}
function renderCases() {
  const rows = matching();
  const body = $('cases');
  body.replaceChildren(el('tr', {}, ['verdict', 'id', 'family', 'type', 'op', 'finding'].map((h) => el('th', {}, h))));
  for (const r of rows.slice(0, state.shown)) {
    body.append(el('tr', { 'data-index': r.i, class: r.i === state.selected ? 'sel' : '', onclick: () => showDetail(r.i) }, el('td', { class: 'v-' + r.v }, r.v), el('td', { class: 'mono' }, r.id), el('td', {}, r.f), el('td', { class: 'mono' }, r.t), el('td', {}, r.op), el('td', { class: 'mono' }, r.fd)));
  }
  $('count').textContent = 'showing ' + Math.min(rows.length, state.shown) + ' of ' + rows.length + ' matching results (' + D.rows.length + ' in the page)';
  $('more').hidden = rows.length <= state.shown;
}
function bitsOf(hex, n) { return BigInt(hex).toString(2).padStart(n, '0'); }
function diffBits(obs, near, n) {
  const a = bitsOf(obs, n), b = bitsOf(near, n);
  const out = el('span', { class: 'mono bits' });
  for (let i = 0; i < n; i++) { if (i && i % 4 === 0) out.append(' '); out.append(a[i] === b[i] ? a[i] : el('mark', {}, a[i])); }
  return out;
}
function showDetail(i) {
  state.selected = i;
  for (const tr of document.querySelectorAll('#cases tr[data-index]')) tr.classList.toggle('sel', Number(tr.dataset.index) === i);
  const r = D.rows[i];
  const box = $('detail');
  box.hidden = false;
  // the detail sits below the list: bring it into view where it was opened
  box.scrollIntoView({ block: 'start' });
  box.replaceChildren(el('h3', { id: 'detail-id', class: 'mono' }, r.id), el('p', {}, el('span', { class: 'v-' + r.v, id: 'detail-verdict' }, r.v), ' ', r.fd ? 'finding ' + r.fd : ''));
  const x = r.x;
  if (!x) { box.append(el('p', { class: 'muted' }, 'No detail in the page for this ' + r.v + ' result (the page keeps it for every mismatch, error and compile-mismatch, the first 25 results of each finding, and the first ' + D.passDetailLimit + ' known deviations, passes, observations and skips); report.json has it.')); return; }
  box.append(el('p', {}, el('b', {}, 'why: '), x.reason));
  if (x.explanation) box.append(el('p', { id: 'detail-explanation' }, el('b', {}, 'explanation: '), x.explanation.text, x.explanation.ids.length ? ' (' + x.explanation.ids.join(', ') + ')' : ''));
  if (x.expectation) box.append(el('p', {}, el('b', {}, 'expectation: '), x.expectation));
  box.append(el('p', {}, el('b', {}, 'instruction: '), el('code', {}, x.ptx), x.modulePtx ? ' in PTX ISA ' + x.modulePtx : '', '; catalog: ', x.catalog.status, ', expect ', x.catalog.expect, ' (', x.catalog.reason, ')'));
  if (x.origin) box.append(el('p', {}, el('b', {}, 'origin: '), Object.entries(x.origin).map(([k, v]) => k + '=' + v).join(', ')));
  const t = x.tables;
  if (t) {
    if (t.inputs.length) box.append(el('h4', {}, 'inputs'), el('table', {}, el('tr', {}, el('th', {}, 'operand'), el('th', {}, 'hex'), el('th', {}, 'decoded')), t.inputs.map((c) => el('tr', {}, el('td', {}, c.w), el('td', { class: 'mono' }, c.c.h), el('td', { class: 'mono' }, c.c.d)))));
    if (t.outputs.length) box.append(el('h4', {}, 'results: ' + t.observedLabel + ' against what the reference allows'), el('table', { id: 'detail-outputs' }, el('tr', {}, ['element', t.observedLabel + ' hex', 'decoded', 'allowed hex', 'decoded', '', 'bits differing from the nearest allowed'].map((h) => el('th', {}, h))),
      t.outputs.map((o) => el('tr', {}, el('td', {}, o.w), el('td', { class: 'mono' }, o.o ? o.o.h : '-'), el('td', { class: 'mono' }, o.o ? o.o.d : '-'),
        el('td', { class: 'mono' }, [...o.a.map((a) => a.h), ...(o.n ? ['any NaN'] : [])].join(' | ') || '(not computed)'),
        el('td', { class: 'mono' }, [...o.a.map((a) => a.d), ...(o.n ? ['any NaN'] : [])].join(' | ')),
        el('td', { class: o.ok === false ? 'bad' : 'ok' }, o.ok === undefined ? '' : o.ok ? 'allowed' : 'NOT allowed'),
        el('td', {}, o.o && o.near && o.ok === false ? diffBits(o.o.h, o.near, o.bits) : '')))));
  }
  if (x.unspecified && x.unspecified.length) box.append(el('p', {}, el('b', {}, 'left open by the spec: '), x.unspecified.join(', '), x.nan ? '; NaN result: ' + x.nan : ''));
  const trail = (x.catalog.rules || []).map((id) => [id, D.rules[id]]);
  const detail = typeof x.catalog.detail === 'number' ? D.details[x.catalog.detail] : x.catalog.detail || [];
  if (trail.length || detail.length) {
    const cite = (c) => c ? c.file + ' §' + c.section + ' ' + c.part + ': "' + c.quote + '"' : '';
    box.append(el('h4', {}, 'rule trail'), el('table', { id: 'detail-rules' }, el('tr', {}, el('th', {}, 'rule'), el('th', {}, 'what it says'), el('th', {}, 'citation')),
      detail.map((d) => el('tr', {}, el('td', { class: 'mono' }, d.rule), el('td', {}, d.text), el('td', {}, cite(d.cite)))),
      trail.filter(([id]) => !detail.some((d) => d.rule === id)).map(([id, info]) => el('tr', {}, el('td', { class: 'mono' }, id), el('td', {}, info ? info.text : ''), el('td', {}, info ? cite(info.cite) : '')))));
  }
  if (x.ptxas) box.append(el('h4', {}, 'ptxas' + (x.toolchain ? ' (' + x.toolchain + ')' : '')), el('p', {}, x.ptxas.crashed ? 'crashed: ' + x.ptxas.crashed : x.ptxas.accepted ? 'accepted' : 'rejected'), el('pre', { class: 'mono', id: 'detail-ptxas' }, x.ptxas.line + '\n' + x.ptxas.messages.join('\n')));
  if (x.sass) box.append(el('h4', {}, 'SASS' + (x.toolchain ? ' (' + x.toolchain + ')' : '')), el('p', { class: 'mono' }, x.sass));
}

renderMeta(); renderMatrix(); renderFindings(); renderFilters(); renderCases();
const firstBad = D.findings.find((f) => f.verdict === 'mismatch' || f.verdict === 'error' || f.verdict === 'compile-mismatch');
document.title = (D.meta.partial ? '[partial] ' : '') + 'PTX conformance ' + D.meta.arch + ' ' + D.meta.backend.name + (firstBad ? ' - ' + D.findings.filter((f) => f.verdict === 'mismatch' || f.verdict === 'error' || f.verdict === 'compile-mismatch').length + ' failing findings' : '');
`;

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
        .map((o) => `<div title="${esc(o.reason)}"><span class="swatch" style="width:${Math.max(2, Math.round((120 * o.count) / total))}px;background:${o.verdict === 'pass' ? '#3a3' : o.verdict === 'observed' ? '#e90' : '#c22'}"></span>${o.count} ${esc(o.memory.join(' '))}${o.orders?.length ? ` <span class="muted">order ${esc(o.orders[0]!.join(' '))}</span>` : ''}</div>`)
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
  const judged = Object.entries(report.stats).filter(([k]) => k.startsWith('total.'));
  if (judged.length) html += `<p id="every-case" class="muted">every case judged (the report keeps a sample of the passes): ${esc(judged.map(([k, v]) => `${k.slice(6)} ${n(v)}`).join(', '))}</p>`;
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
        `${s.domain ? `${esc(s.domain)}${s.laneBits === 32 ? ' (rows: x\'s high byte, columns: its next byte)' : ''}<br>` : ''}` +
        `${n(s.pairs)} pairs: pass ${n(s.pass)}, observed ${n(s.observed)} (NaN results not ${s.laneBits === 32 ? '0x7fffffff' : '0x7fff'}: ${n(s.nonCanonicalNaN)}), <span class="${s.mismatch ? 'v-mismatch' : ''}">mismatch ${n(s.mismatch)}</span>; ${s.differingCells} cells judged pair by pair; ${s.seconds.total.toFixed(2)} s` +
        `${s.groups?.length ? `<br>${s.groups.slice(0, 6).map((g) => `${n(g.count)}: ${esc(g.signature)}`).join('<br>')}` : ''}</figcaption></figure>`,
    )
    .join('');
  const notRun = report.sweepsNotRun?.length ? `<p class="muted">${report.sweepsNotRun.length} 32-bit sweeps not run within the --budget (listed in report.json, sweepsNotRun).</p>` : '';
  return `<section><h2>sweeps: 2^32 pairs each (16-bit pairs: rows memory operand's high byte, columns b's high byte)</h2><p class="muted">${legend}</p>${notRun}<div class="sweeps">${figs}</div></section>\n`;
}

/**
 * What the page shows without JavaScript (a `<noscript>`): the verdict table per family, as the
 * console's summary, and the failing results (id, verdict, file:line, why, the replay command).
 */
export function noscriptSection(report: RunReport, max = 200): string {
  const { rows } = familyVerdictRows(report);
  const table = rows.map((r, i) => `<tr>${r.map((c, j) => (i === 0 ? `<th>${esc(c)}</th>` : `<td${j ? ' class="num"' : ''}>${esc(c)}</td>`)).join('')}</tr>`).join('');
  const bad = failingResults(report);
  const items = bad
    .slice(0, max)
    .map((r) => `<li><code>${esc(r.id)}</code> <b class="v-${r.verdict}">${r.verdict}</b>${sourceLine(r) ? ` at <code>${esc(sourceLine(r)!)}</code>` : ''}: ${esc(r.reason)}<br><code>${esc(replayCommand(r, report))}</code></li>`)
    .join('');
  const failing = bad.length ? `<h3>failing results (${bad.length}${bad.length > max ? `; the first ${max}, every one in report.json and junit.xml` : ''})</h3><ol>${items}</ol>` : '<p>No failing result.</p>';
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
