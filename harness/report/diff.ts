/**
 * `npm run conformance -- diff OLD.json NEW.json`: the results whose verdict or observed bits changed
 * between two runs (a driver upgrade, a new ptxas, another arch), those only one run has, and the
 * findings that appeared or went away. `regressions` picks the changes a nightly job fails on (new
 * mismatches, compile-mismatches and errors; observed bits or a ptxas answer that changed).
 */
import type { RunReport } from './json.js';
import type { EntryResult } from './types.js';

export interface Change {
  readonly id: string;
  readonly family: string;
  readonly what: 'verdict' | 'observed' | 'ptxas' | 'added' | 'removed';
  readonly old?: string;
  readonly new?: string;
}

export interface ReportDiff {
  readonly changes: Change[];
  /** How many results both runs have. */
  readonly common: number;
  readonly appeared: string[];
  readonly disappeared: string[];
}

const observedOf = (r: EntryResult) => (r.case?.observed ? JSON.stringify(r.case.observed) : undefined);
const ptxasOf = (r: EntryResult) =>
  r.ptxas
    ? r.ptxas.crashed
      ? `crashed ${r.ptxas.crashed}`
      : r.ptxas.accepted
        ? 'accepted'
        : `rejected: ${r.ptxas.messages.filter((m) => !m.startsWith('warning'))[0] ?? ''}`
    : undefined;
/** The GPU a report ran on, by name (the gpu backend records it); undefined for a run without one. */
export function deviceName(r: RunReport): string | undefined {
  const d = r.toolchain.gpu?.device as { name?: unknown } | undefined;
  return typeof d?.name === 'string' && d.name ? d.name : undefined;
}

/**
 * A finding as the diff compares it. The GPU's name, where a finding's text holds it (a skip reason:
 * "no multicast support (... on NVIDIA H100 80GB HBM3)"), is written `<the GPU>`: the same finding on
 * an H100 and an H200 is no change; the device itself is shown once, in the diff's header.
 */
export function findingLine(f: RunReport['findings'][number], device?: string): string {
  const text = device ? f.text.split(device).join('<the GPU>') : f.text;
  return `${f.verdict} | ${f.subject} | ${text}`;
}

export function diffReports(a: RunReport, b: RunReport): ReportDiff {
  const old = new Map(a.results.map((r) => [r.id, r]));
  const changes: Change[] = [];
  let common = 0;
  const seen = new Set<string>();
  for (const r of b.results) {
    seen.add(r.id);
    const o = old.get(r.id);
    if (!o) {
      changes.push({ id: r.id, family: r.family, what: 'added', new: r.verdict });
      continue;
    }
    common++;
    if (o.verdict !== r.verdict) changes.push({ id: r.id, family: r.family, what: 'verdict', old: o.verdict, new: r.verdict });
    const ob = [observedOf(o), observedOf(r)];
    if (ob[0] !== undefined && ob[1] !== undefined && ob[0] !== ob[1]) changes.push({ id: r.id, family: r.family, what: 'observed', old: ob[0], new: ob[1] });
    const pt = [ptxasOf(o), ptxasOf(r)];
    if (pt[0] !== undefined && pt[1] !== undefined && pt[0] !== pt[1]) changes.push({ id: r.id, family: r.family, what: 'ptxas', old: pt[0], new: pt[1] });
  }
  for (const r of a.results) if (!seen.has(r.id)) changes.push({ id: r.id, family: r.family, what: 'removed', old: r.verdict });
  const fa = new Set(a.findings.map((f) => findingLine(f, deviceName(a))));
  const fb = new Set(b.findings.map((f) => findingLine(f, deviceName(b))));
  return { changes, common, appeared: [...fb].filter((x) => !fa.has(x)), disappeared: [...fa].filter((x) => !fb.has(x)) };
}

const FAILING = new Set(['mismatch', 'compile-mismatch', 'error']);

/**
 * The changes that fail `diff --fail-on regressions`: a result failing in the new run (mismatch,
 * compile-mismatch, error) that did not fail so in the old one (including one only the new run has),
 * and results whose observed bits or ptxas answer changed. Not: passes and known results that come
 * or go (coverage), failures that went away (for `accept`), verdict changes between passing verdicts.
 */
export function regressions(d: ReportDiff): Change[] {
  return d.changes.filter((c) => (c.what === 'added' || c.what === 'verdict' ? FAILING.has(c.new ?? '') : c.what === 'observed' || c.what === 'ptxas'));
}

/** Lines a person reads: counts by kind of change and verdict pair, then up to `max` changes. */
export function formatDiff(d: ReportDiff, a: RunReport, b: RunReport, max = 50): string[] {
  const side = (r: RunReport) =>
    `${r.arch} ${r.backend.name}${deviceName(r) ? ` on ${deviceName(r)}` : ''}, ${r.results.length} results, ${r.startedAt}${r.partial ? `, PARTIAL (${r.partialReason ?? 'the run stopped before it finished'})` : ''}`;
  const lines = [`old: ${side(a)}`, `new: ${side(b)}`, `${d.common} results in both; ${d.changes.length} change(s)`];
  // two toolchains: say which, and what a result kept by one report only means
  const tc = (r: RunReport) => (r.toolchain.ptxas ? `ptxas ${r.toolchain.ptxas.release} (${r.toolchain.ptxas.versionLine})` : undefined);
  if (tc(a) && tc(b) && a.toolchain.ptxas!.versionLine !== b.toolchain.ptxas!.versionLine) {
    lines.push(`toolchains: old ${tc(a)}, new ${tc(b)}`);
    if (d.changes.some((c) => c.what === 'added' || c.what === 'removed'))
      lines.push(
        'note: a report keeps plain passes whole only up to --keep, so a result only one report has may be a pass in the other; a toolchain matrix (--ptxas A --ptxas B) keeps every entry whose answers differ in both reports',
      );
  }
  // results only on one side of a partial report are not "removed" or "added": that run did not get to them
  const partial = [a.partial ? 'old' : '', b.partial ? 'new' : ''].filter(Boolean);
  if (partial.length)
    lines.push(
      `note: the ${partial.join(' and the ')} report ${partial.length > 1 ? 'are' : 'is'} partial: results missing from ${partial.length > 1 ? 'them' : 'it'} were not run, not removed`,
    );
  const groups = new Map<string, number>();
  for (const c of d.changes) {
    const k =
      c.what === 'verdict'
        ? `verdict ${c.old} -> ${c.new}`
        : c.what === 'added'
          ? `only in new (${c.new})`
          : c.what === 'removed'
            ? `only in old (${c.old})`
            : `${c.what} bits changed`;
    groups.set(`${c.family}: ${k}`, (groups.get(`${c.family}: ${k}`) ?? 0) + 1);
  }
  for (const [k, n] of [...groups].sort((x, y) => y[1] - x[1])) lines.push(`  ${String(n).padStart(7)}  ${k}`);
  for (const f of d.appeared) lines.push(`finding appeared: ${f}`);
  for (const f of d.disappeared) lines.push(`finding went away: ${f}`);
  const shown = d.changes.filter((c) => c.what !== 'added' && c.what !== 'removed').slice(0, max);
  if (shown.length) lines.push('changed results:');
  for (const c of shown) lines.push(`  ${c.id}: ${c.what} ${c.old} -> ${c.new}`);
  return lines;
}
