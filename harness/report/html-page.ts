/**
 * The HTML report's page code: its style sheet and the script that renders the data html.ts puts in
 * the page as JSON (DOM text nodes only: text from files and tools is shown, never interpreted).
 * Kept apart from html.ts, which chooses and shapes the data.
 */
export const PAGE_CSS = `
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
export const PAGE_SCRIPT = String.raw`
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
