/**
 * Issue 26, second slice: mutants of a litmus test and the mutation score (MC Mutants, Levine et
 * al. 2023). For a test whose weak outcome (the outcome its final condition describes) the model
 * forbids, a mutant is the test with one change that makes the model ALLOW that outcome:
 * - `sem`: one `.release`/`.acquire`/`.acq_rel` access weakened to `.relaxed`;
 * - `fence`: one `fence`/`membar` (or `fence.proxy.alias`) dropped;
 * - `scope`: one scope narrowed (`.sys` -> `.gpu`/`.cluster`/`.cta`, `membar.gl` -> `membar.cta`, ...);
 * - `placement`: one thread moved to a CTA of its own (in its cluster), or to a cluster of its own;
 * - `async`: one `fence.proxy.async` dropped or narrowed to another state space, one
 *   `fence.proxy.tensormap::generic` dropped, or one
 *   `cp.async.bulk.wait_group N` taken as `cp.async.bulk.wait_group.read N`, or one acquire
 *   `mbarrier.try_wait` weakened to `.relaxed` (the mistakes users make with the async proxy).
 * Mutants are made on the source text (the GPU kernel emits instructions from their own column),
 * re-parsed, and kept only when the model's judgement allows the weak outcome (`judge` on the
 * mutant). A mutant is killed when a run of it shows its weak outcome at least once; the mutation
 * score of a class is the share of its mutants killed.
 */
import type { Judgement, LitmusTest } from '../memory-model/events.js';
import { parseLitmus } from '../memory-model/extended.js';
import { judge } from '../memory-model/index.js';
import { condHolds } from '../memory-model/condition.js';
export { condHolds } from '../memory-model/condition.js';

export type MutantClass = 'sem' | 'fence' | 'scope' | 'placement' | 'async';
export const MUTANT_CLASSES: readonly MutantClass[] = ['sem', 'fence', 'scope', 'placement', 'async'];

export interface Mutant {
  readonly cls: MutantClass;
  /** Short name: `sem:P0:L7` (thread, source line) or `placement:P1:own-cta`. */
  readonly name: string;
  /** What changed, in words. */
  readonly change: string;
  readonly text: string;
  readonly test: LitmusTest;
  readonly judgement: Judgement;
}

export interface Candidate {
  readonly cls: MutantClass;
  readonly name: string;
  readonly change: string;
  readonly text: string;
  /** The model allows the weak outcome in this candidate (only those become mutants). */
  readonly allowed: boolean;
  /** Why it is not a mutant, when it is not. */
  readonly reason?: string;
}

/** Whether an outcome is the test's weak outcome: the condition holds (`exists`, `not exists`) or fails (`forall`). */
export function isWeak(test: Pick<LitmusTest, 'cond' | 'quantifier'>, values: Readonly<Record<string, string>>): boolean {
  const h = condHolds(test.cond, values);
  if (h === undefined) return false;
  return test.quantifier === 'forall' ? !h : h;
}

/** Whether the model allows the weak outcome: some allowed outcome of the judgement is weak. */
export function weakAllowed(test: Pick<LitmusTest, 'cond' | 'quantifier'>, j: Pick<Judgement, 'outcomes'>): boolean {
  return j.outcomes.some((o) => o.allowed && isWeak(test, o.values));
}

/** How many of a histogram's instances showed the weak outcome. */
export function weakCount(
  test: Pick<LitmusTest, 'cond' | 'quantifier'>,
  keys: readonly string[],
  rows: readonly { values: readonly string[]; count: number }[],
): number {
  let n = 0;
  for (const r of rows) if (r.count && isWeak(test, Object.fromEntries(keys.map((k, x) => [k, r.values[x]!])))) n += r.count;
  return n;
}

// ---- text surgery -------------------------------------------------------------------------

interface Table {
  lines: string[];
  header: number; // index of the header line (0-based)
}

function tableOf(text: string, test: LitmusTest): Table | undefined {
  const lines = text.split('\n');
  const header = lines.findIndex((l) => /^\s*P0\s*@/.test(l));
  if (header < 0 || !test.threads.length) return undefined;
  return { lines, header };
}

/** Replaces the cell of thread t on line (0-based) by f(cell), keeping the cell's trailing ';' (last column). */
function editCell(tb: Table, line: number, t: number, f: (cell: string) => string): string | undefined {
  const cells = tb.lines[line]!.split('|');
  if (t >= cells.length) return undefined;
  const raw = cells[t]!;
  const semi = /;\s*$/.exec(raw);
  const body = semi ? raw.slice(0, semi.index) : raw;
  const nb = f(body);
  if (nb === body) return undefined;
  cells[t] = nb + (semi ? semi[0] : '');
  const lines = tb.lines.slice();
  lines[line] = cells.join('|');
  return lines.join('\n');
}

const SCOPE_ORDER = ['cta', 'cluster', 'gpu', 'sys'];
const MEMBAR: Record<string, number> = { cta: 0, gl: 2, sys: 3 };

/** Every candidate change of the four classes (before the model's filter). */
function rawCandidates(test: LitmusTest, text: string): Omit<Candidate, 'allowed' | 'reason'>[] {
  const tb = tableOf(text, test);
  if (!tb) return [];
  const out: Omit<Candidate, 'allowed' | 'reason'>[] = [];
  test.threads.forEach((th, t) => {
    for (const ins of th.code) {
      if (!('line' in ins) || ins.line === undefined) continue;
      const li = ins.line - 1;
      const cell = tb.lines[li]?.split('|')[t]?.replace(/;\s*$/, '') ?? '';
      const op = cell.trim().split(/\s+/)[0] ?? '';
      const where = `P${t}:L${ins.line}`;
      const withOp = (nop: string) => editCell(tb, li, t, (c) => c.replace(op, nop));
      if (ins.kind === 'proxyFence' && /^fence\.proxy\.async/.test(op)) {
        const dropped = editCell(tb, li, t, (c) => ' '.repeat(c.length));
        if (dropped) out.push({ cls: 'async', name: `async:${where}:drop`, change: `P${t} line ${ins.line}: '${op}' dropped`, text: dropped });
        for (const sp of ['global', 'shared::cta', 'shared::cluster']) {
          if (op === `fence.proxy.async.${sp}`) continue;
          const nt = withOp(`fence.proxy.async.${sp}`);
          if (nt) out.push({ cls: 'async', name: `async:${where}:${sp}`, change: `P${t} line ${ins.line}: '${op}' narrowed to .${sp}`, text: nt });
        }
        continue;
      }
      if (ins.kind === 'proxyFence' && op.startsWith('fence.proxy.tensormap::generic')) {
        const dropped = editCell(tb, li, t, (c) => ' '.repeat(c.length));
        if (dropped) out.push({ cls: 'async', name: `async:${where}:drop`, change: `P${t} line ${ins.line}: '${op}' dropped`, text: dropped });
        continue;
      }
      if (ins.kind === 'proxyFence' && op === 'fence.proxy.alias') {
        const dropped = editCell(tb, li, t, (c) => ' '.repeat(c.length));
        if (dropped) out.push({ cls: 'fence', name: `fence:${where}`, change: `P${t} line ${ins.line}: '${op}' dropped`, text: dropped });
        continue;
      }
      if (ins.kind === 'mbarrier' && ins.op === 'try_wait' && /\.acquire\./.test(op)) {
        const nt = withOp(op.replace('.acquire.', '.relaxed.'));
        if (nt) out.push({ cls: 'async', name: `async:${where}:relaxed`, change: `P${t} line ${ins.line}: '${op}' weakened to .relaxed`, text: nt });
        continue;
      }
      if (ins.kind === 'bulkWait' && op === 'cp.async.bulk.wait_group') {
        const nt = withOp('cp.async.bulk.wait_group.read');
        if (nt)
          out.push({ cls: 'async', name: `async:${where}:read`, change: `P${t} line ${ins.line}: '${op}' taken as cp.async.bulk.wait_group.read`, text: nt });
        continue;
      }
      if (ins.kind === 'fence') {
        const dropped = editCell(tb, li, t, (c) => ' '.repeat(c.length));
        if (dropped) out.push({ cls: 'fence', name: `fence:${where}`, change: `P${t} line ${ins.line}: '${op}' dropped`, text: dropped });
        // scope of a fence
        const fm = /^fence\.(sc|acq_rel|acquire|release)\.(cta|cluster|gpu|sys)$/.exec(op);
        if (fm) {
          for (const s of SCOPE_ORDER.slice(0, SCOPE_ORDER.indexOf(fm[2]!))) {
            const nt = withOp(`fence.${fm[1]}.${s}`);
            if (nt) out.push({ cls: 'scope', name: `scope:${where}:${s}`, change: `P${t} line ${ins.line}: '${op}' narrowed to .${s}`, text: nt });
          }
        }
        const mm = /^membar\.(cta|gl|sys)$/.exec(op);
        if (mm) {
          for (const [s, rank] of Object.entries(MEMBAR)) {
            if (rank >= MEMBAR[mm[1]!]!) continue;
            const nt = withOp(`membar.${s}`);
            if (nt) out.push({ cls: 'scope', name: `scope:${where}:${s}`, change: `P${t} line ${ins.line}: '${op}' narrowed to membar.${s}`, text: nt });
          }
        }
        continue;
      }
      if (ins.kind !== 'read' && ins.kind !== 'write' && ins.kind !== 'rmw') continue;
      const parts = op.split('.');
      const si = parts.findIndex((p) => p === 'release' || p === 'acquire' || p === 'acq_rel');
      if (si > 0) {
        const np = parts.slice();
        np[si] = 'relaxed';
        const nt = withOp(np.join('.'));
        if (nt) out.push({ cls: 'sem', name: `sem:${where}`, change: `P${t} line ${ins.line}: '${op}' weakened to '${np.join('.')}'`, text: nt });
      }
      const ci = parts.findIndex((p) => SCOPE_ORDER.includes(p));
      if (ci > 0 && ins.sem !== 'weak') {
        for (const s of SCOPE_ORDER.slice(0, SCOPE_ORDER.indexOf(parts[ci]!))) {
          const np = parts.slice();
          np[ci] = s;
          const nt = withOp(np.join('.'));
          if (nt) out.push({ cls: 'scope', name: `scope:${where}:${s}`, change: `P${t} line ${ins.line}: '${op}' narrowed to '${np.join('.')}'`, text: nt });
        }
      }
    }
  });
  // placement: a thread moved to a CTA of its own in its cluster, or to a cluster of its own
  const hcells = tb.lines[tb.header]!.split('|');
  const ctas = test.threads.map((x) => x.cta);
  const freshCta = Math.max(...ctas) + 1;
  const clusterIds = test.threads.map((x) => x.cluster ?? -1);
  const freshCluster = Math.max(0, ...clusterIds) + 1;
  const effCluster = (x: LitmusTest['threads'][number]) => (x.cluster !== undefined ? `k${x.cluster}` : `c${x.cta}`);
  const headerOf = (cta: number, cluster: number | undefined, gpu: number) => `P@cta ${cta}${cluster !== undefined ? `,cluster ${cluster}` : ''},gpu ${gpu}`;
  const setHeaders = (repl: Map<number, string>) => {
    const cells = hcells.slice();
    for (const [t, h] of repl) {
      const raw = cells[t]!;
      const semi = /;\s*$/.exec(raw);
      cells[t] = ` ${h.replace('P@', `P${t}@`)} ${semi ? semi[0] : ''}`;
    }
    const lines = tb.lines.slice();
    lines[tb.header] = cells.join('|');
    return lines.join('\n');
  };
  test.threads.forEach((th, t) => {
    const sameCta = test.threads.filter((x) => x !== th && x.cta === th.cta && x.gpu === th.gpu);
    if (sameCta.length) {
      // own CTA, same cluster: name the cluster explicitly for every thread of the old CTA
      const k = th.cluster ?? freshCluster;
      const repl = new Map<number, string>([[t, headerOf(freshCta, k, th.gpu)]]);
      for (const x of sameCta) if (x.cluster === undefined) repl.set(x.id, headerOf(x.cta, k, x.gpu));
      out.push({
        cls: 'placement',
        name: `placement:P${t}:own-cta`,
        change: `P${t} moved from CTA ${th.cta} to CTA ${freshCta} of the same cluster`,
        text: setHeaders(repl),
      });
    }
    const sameCluster = test.threads.filter((x) => x !== th && effCluster(x) === effCluster(th) && x.gpu === th.gpu);
    if (sameCluster.length)
      out.push({
        cls: 'placement',
        name: `placement:P${t}:own-cluster`,
        change: `P${t} moved to CTA ${freshCta} in a cluster of its own`,
        text: setHeaders(new Map([[t, headerOf(freshCta, th.cluster !== undefined ? freshCluster + 1 : undefined, th.gpu)]])),
      });
  });
  return out;
}

/** Every candidate with the model's verdict on its weak outcome (for reports and tests). */
export function candidates(test: LitmusTest, text: string, file = test.file ?? test.name): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const c of rawCandidates(test, text)) {
    if (seen.has(c.text)) continue;
    seen.add(c.text);
    const p = parseLitmus(c.text, `${file}#${c.name}`);
    if (!p.test) {
      out.push({ ...c, allowed: false, reason: `does not parse: ${p.problems[0]?.message ?? ''}` });
      continue;
    }
    const j = judge(p.test);
    const allowed = weakAllowed(p.test, j);
    out.push({ ...c, allowed, ...(allowed ? {} : { reason: 'the model still forbids the weak outcome' }) });
  }
  return out;
}

/**
 * The mutants of a test: empty unless the model forbids the test's weak outcome; else every
 * candidate the model judges to allow it (parsed and judged).
 */
export function mutantsOf(test: LitmusTest, text: string, j: Judgement = judge(test), file = test.file ?? test.name): Mutant[] {
  if (weakAllowed(test, j)) return [];
  const out: Mutant[] = [];
  for (const c of candidates(test, text, file)) {
    if (!c.allowed) continue;
    const p = parseLitmus(c.text, `${file}#${c.name}`);
    out.push({ cls: c.cls, name: c.name, change: c.change, text: c.text, test: p.test!, judgement: judge(p.test!) });
  }
  return out;
}

export interface MutantResult {
  readonly cls: MutantClass;
  /** Instances run, and how many showed the weak outcome. */
  readonly instances: number;
  readonly weak: number;
}

export interface ClassScore {
  readonly cls: MutantClass;
  readonly mutants: number;
  readonly killed: number;
  /** killed / mutants (NaN when there are none). */
  readonly score: number;
}

/** The mutation score per class, and over all mutants (`all`). A mutant is killed when its weak outcome was seen at least once. */
export function mutationScores(results: readonly MutantResult[]): { perClass: ClassScore[]; all: ClassScore } {
  const score = (cls: MutantClass | 'all', rs: readonly MutantResult[]) => {
    const killed = rs.filter((r) => r.weak > 0).length;
    return { cls: cls as MutantClass, mutants: rs.length, killed, score: rs.length ? killed / rs.length : NaN };
  };
  return {
    perClass: MUTANT_CLASSES.map((c) =>
      score(
        c,
        results.filter((r) => r.cls === c),
      ),
    ),
    all: score('all', results),
  };
}
