/**
 * The lens's plan and run: each lens kernel (a C++ call on a memory) becomes the contention groups
 * of the catalog variant it stands for (cases.ts's operand sets, in its memory's layouts), launched
 * through the contention runner (contention/run.ts runGroup) and judged by the contention model,
 * exactly as the PTX kernel of that variant is. Each result names the C++ call, the type, the memory,
 * the toolchain and the kernel's SASS atomic lines.
 */
import { readFileSync } from 'node:fs';
import { type GpuPlan, gpuPlan } from '../backends/gpu/plan.js';
import type { Launcher } from '../backends/gpu/driver.js';
import { UsageError } from '../util/errors.js';
import { type ContentionGroup, type OperandSet, operandSets, scopeIncludes } from '../contention/cases.js';
import { type ContentionOutcome, runGroup } from '../contention/run.js';
import { elementFormat } from '../numerics/formats.js';
import type { OutcomeCount } from '../report/json.js';
import { type CompiledToolchain, sassOf } from './compile.js';
import { type LensKernel, MEMORY } from './manifest.js';

/** The module PTX ISA the catalog's variants are looked up at (sm_90's). */
export const LENS_PLAN_PTX = '9.0';

/**
 * The operand sets of a lane format and op: the contention run's (cases.ts), which for integer min
 * include the 'falling' set this lens first needed (memory 0xff, operands 0x88, 0x44, 0x22, 0x11:
 * every order ends at 0x11, and a lost update leaves a larger value; 'bits' changes nothing there).
 */
export function lensSets(op: string, type: string): OperandSet[] {
  return operandSets(elementFormat(type), op);
}

export interface LensGroup {
  readonly kernel: LensKernel;
  readonly group: ContentionGroup;
}

/**
 * Every group of the kernels: per memory layout (where the variant's scope includes every
 * participant: a narrow scope proves nothing about atomicity), per operand set (at most 8
 * participants where they are CTAs of a cluster or warps of a CTA).
 */
export function lensPlan(kernels: readonly LensKernel[], arch: string, plan: GpuPlan = gpuPlan(arch, LENS_PLAN_PTX)): LensGroup[] {
  const out: LensGroup[] = [];
  for (const k of kernels) {
    const gv = plan.byId.get(k.variant);
    if (!gv)
      throw new UsageError(
        `cases/cuda-lens/lens.yaml: ${k.call.name}: variant '${k.variant}' (for ${k.memory}) is not a gpu variant of the catalog on ${arch}; name one that \`npm run conformance -- --list --arch ${arch}\` lists`,
      );
    const q = gv.entry.q;
    for (const layout of MEMORY[k.memory].layouts) {
      const atomic = scopeIncludes(q.scope, layout);
      if (!atomic) continue;
      for (const set of lensSets(q.op ?? '', q.type ?? '')) {
        if ((layout === 'cta' || layout === 'cluster') && set.b.length > 8) continue;
        out.push({ kernel: k, group: { gv, layout, mode: 0, set, atomic } });
      }
    }
  }
  return out;
}

export interface LensResult {
  /** toolchain slug / kernel / layout-set */
  readonly id: string;
  readonly kernel: string;
  readonly file: string;
  readonly call: string;
  readonly type: string;
  readonly memory: string;
  readonly variant: string;
  readonly layout: string;
  readonly set: string;
  readonly n: number;
  readonly reps: number;
  readonly atomic: boolean;
  /** The nvcc version line. */
  readonly toolchain: string;
  readonly toolchainSlug: string;
  readonly verdict: 'pass' | 'observed' | 'mismatch' | 'error';
  readonly allowed?: number;
  readonly deterministic: boolean;
  readonly lostUpdates: number;
  /** Distinct outcomes in all. */
  readonly distinct: number;
  /** Addresses (over both launches) by verdict. */
  readonly counts: Readonly<Record<string, number>>;
  /** Distinct outcomes, most frequent first, up to KEEP_OUTCOMES (every mismatching kind kept first). */
  readonly outcomes: readonly OutcomeCount[];
  /** The kernel's SASS lines that touch memory atomically or generically (ATOM, ATOMS, RED, LD.E, ST.E). */
  readonly sass: readonly string[];
  readonly sassBy: string;
  readonly error?: string;
}

export interface LensSkip {
  readonly kernel: string;
  readonly call: string;
  readonly type: string;
  readonly memory: string;
  readonly toolchain: string;
  readonly toolchainSlug: string;
  readonly reason: string;
}

export const KEEP_OUTCOMES = 24;

/** The outcomes kept in a result: the most frequent of each verdict first, then by count. */
function keep(outcomes: readonly OutcomeCount[]): OutcomeCount[] {
  const firsts = new Map<string, OutcomeCount>();
  for (const o of outcomes) if (!firsts.has(o.verdict)) firsts.set(o.verdict, o);
  const rest = outcomes.filter((o) => ![...firsts.values()].includes(o));
  return [...firsts.values(), ...rest].slice(0, KEEP_OUTCOMES).sort((a, b) => b.count - a.count);
}

export function resultOf(x: LensGroup, t: Pick<CompiledToolchain, 'nvcc'>, o: ContentionOutcome, sass: { lines: readonly string[]; by: string }): LensResult {
  const k = x.kernel;
  const g = x.group;
  return {
    id: `${t.nvcc.slug}/${k.kernel}/${g.layout}-${g.set.name.replace(/[^a-z0-9]+/gi, '-')}`,
    kernel: k.kernel,
    file: k.call.file,
    call: k.call.call,
    type: k.call.type,
    memory: k.memory,
    variant: k.variant,
    layout: g.layout,
    set: g.set.name,
    n: o.n,
    reps: o.reps,
    atomic: g.atomic,
    toolchain: t.nvcc.versionLine,
    toolchainSlug: t.nvcc.slug,
    verdict: o.verdict,
    ...(o.allowed !== undefined ? { allowed: o.allowed } : {}),
    deterministic: o.deterministic,
    lostUpdates: o.lostUpdates,
    distinct: o.outcomes.length,
    counts: o.outcomes.reduce<Record<string, number>>((c, x2) => ({ ...c, [x2.verdict]: (c[x2.verdict] ?? 0) + x2.count }), {}),
    outcomes: keep(o.outcomes),
    sass: sass.lines,
    sassBy: sass.by,
  };
}

export interface LensRunOptions {
  readonly toolchains: readonly CompiledToolchain[];
  readonly kernels: readonly LensKernel[];
  readonly arch: string;
  readonly reps: number;
  readonly launcher: Launcher;
  readonly onProgress?: (msg: string) => void;
}

/** Runs every group of every kernel under every toolchain; kernels of a file the toolchain rejected are skipped with its message. */
export async function runLens(o: LensRunOptions): Promise<{ results: LensResult[]; skipped: LensSkip[] }> {
  const groups = lensPlan(o.kernels, o.arch);
  const results: LensResult[] = [];
  const skipped: LensSkip[] = [];
  const l = o.launcher;
  const maxN = Math.max(...groups.map((g) => g.group.set.b.length), 1);
  const bufs = { mem: l.memAlloc(o.reps * 16), ops: l.memAlloc(maxN * 32), out: l.memAlloc(o.reps * maxN * 16) };
  try {
    for (const t of o.toolchains) {
      for (const f of t.files) {
        const mine = groups.filter((g) => g.kernel.call.file === f.file);
        if (!mine.length) continue;
        if (!f.cubin) {
          for (const k of new Set(mine.map((g) => g.kernel)))
            skipped.push({
              kernel: k.kernel,
              call: k.call.call,
              type: k.call.type,
              memory: k.memory,
              toolchain: t.nvcc.versionLine,
              toolchainSlug: t.nvcc.slug,
              reason: `nvcc (${t.nvcc.versionLine}) rejected ${f.file}: ${f.error ?? 'not compiled'}`,
            });
          continue;
        }
        let sass = f.sass;
        let sassBy = f.sassBy;
        if (!Object.keys(sass).length) ({ sass, by: sassBy } = await sassOf(f.cubin));
        const m = l.loadModule(readFileSync(f.cubin));
        try {
          for (const g of mine) {
            const k = g.kernel;
            const lines = { lines: sass[k.kernel] ?? [], by: sassBy };
            let fn: bigint;
            try {
              fn = l.getFunction(m, k.kernel);
            } catch (e) {
              skipped.push({
                kernel: k.kernel,
                call: k.call.call,
                type: k.call.type,
                memory: k.memory,
                toolchain: t.nvcc.versionLine,
                toolchainSlug: t.nvcc.slug,
                reason: `no kernel ${k.kernel} in ${f.file}'s cubin: ${(e as Error).message}`,
              });
              continue;
            }
            const r = resultOf(g, t, runGroup(l, fn, g.group, o.reps, bufs), lines);
            results.push(r);
            if (r.verdict === 'mismatch' || r.verdict === 'error')
              o.onProgress?.(
                `lens ${r.id}: ${r.verdict}, ${r.counts.mismatch ?? 0} of ${2 * r.reps} addresses; ${r.outcomes.find((x) => x.verdict === r.verdict)?.reason ?? ''}`.slice(
                  0,
                  300,
                ),
              );
          }
        } finally {
          l.unloadModule(m);
        }
      }
    }
  } finally {
    l.memFree(bufs.mem);
    l.memFree(bufs.ops);
    l.memFree(bufs.out);
  }
  return { results, skipped };
}

/** One row per (C++ call, type, memory, toolchain): the worst verdict over its groups and the counts. */
export interface LensRow {
  readonly call: string;
  readonly type: string;
  readonly memory: string;
  readonly toolchain: string;
  readonly kernel: string;
  /** 'affected' (some group's outcome no order explains), 'not affected' (every address of every group allowed), 'skipped' (with why), 'error'. */
  readonly status: 'affected' | 'not affected' | 'skipped' | 'error';
  readonly groups: number;
  readonly groupsMismatching: number;
  readonly addresses: number;
  readonly addressesMismatching: number;
  /** The mismatching groups' layouts and sets, e.g. cluster/bits. */
  readonly where: readonly string[];
  readonly reason?: string;
}

export function lensRows(results: readonly LensResult[], skipped: readonly LensSkip[]): LensRow[] {
  const rows = new Map<string, LensRow & { where: string[] }>();
  for (const r of results) {
    const key = `${r.toolchainSlug}|${r.kernel}`;
    const row = rows.get(key) ?? {
      call: r.call,
      type: r.type,
      memory: r.memory,
      toolchain: r.toolchain,
      kernel: r.kernel,
      status: 'not affected' as LensRow['status'],
      groups: 0,
      groupsMismatching: 0,
      addresses: 0,
      addressesMismatching: 0,
      where: [],
    };
    const bad = r.verdict === 'mismatch';
    const total = Object.values(r.counts).reduce((a, b) => a + b, 0);
    rows.set(key, {
      ...row,
      status: bad ? 'affected' : r.verdict === 'error' && row.status !== 'affected' ? 'error' : row.status,
      groups: row.groups + 1,
      groupsMismatching: row.groupsMismatching + (bad ? 1 : 0),
      addresses: row.addresses + total,
      addressesMismatching: row.addressesMismatching + (r.counts.mismatch ?? 0),
      where: bad ? [...row.where, `${r.layout}/${r.set}`] : row.where,
    });
  }
  for (const s of skipped)
    rows.set(`${s.toolchainSlug}|${s.kernel}`, {
      call: s.call,
      type: s.type,
      memory: s.memory,
      toolchain: s.toolchain,
      kernel: s.kernel,
      status: 'skipped',
      groups: 0,
      groupsMismatching: 0,
      addresses: 0,
      addressesMismatching: 0,
      where: [],
      reason: s.reason,
    });
  return [...rows.values()];
}
