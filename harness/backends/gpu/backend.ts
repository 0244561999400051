/**
 * The gpu backend: ptxas compiles every planned atom/red/cp.reduce.async.bulk kernel for --arch,
 * cuobjdump names the SASS each variant became, the launches run in child processes (isolate.ts),
 * and every case is judged by the reference model. multimem variants are skipped with the device's
 * multicast attribute as the reason: this backend never creates a multicast object.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateCases } from '../../../cases/generators/cases.js';
import { directedCases } from '../../../cases/generators/directed.js';
import type { Target } from '../../arch/targets.js';
import type { CaseVariant } from '../../cases/types.js';
import { FAMILIES } from '../../families/index.js';
import { enumerateCatalog } from '../../catalog/enumerate.js';
import type { ReferenceCase } from '../../reference/model.js';
import type { EntryResult } from '../../report/types.js';
import type { Ptxas } from '../ptxas/toolchain.js';
import type { DeviceInfo } from './driver.js';
import { gpuModule, type KernelPlan } from './emit.js';
import type { LaunchJob } from './executor.js';
import { runIsolated } from './isolate.js';
import { judge } from './observations.js';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How to start the executor: the bundled .mjs beside this code, or the TS source through tsx. */
export function executorCommand(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const mjs = join(here, 'executor.mjs');
  return existsSync(mjs) ? [process.execPath, mjs] : [process.execPath, '--import', 'tsx', join(here, 'executor.ts')];
}
import { gpuPlans } from './plan.js';

const run = promisify(execFile);
const hex = (bits: number, v: bigint) => `0x${v.toString(16).padStart(bits / 4, '0')}`;

export interface GpuRunOptions {
  readonly target: Target;
  readonly ptx: string;
  readonly ptxas: Ptxas;
  readonly device: DeviceInfo;
  readonly keep: (variantId: string) => boolean;
  readonly seed: number;
  /** Generated cases per variant at level 3 (levels 1 and 2 take 8 each). */
  readonly generated: number;
  /** How to start the executor child: [node, (loader args,) executor path]. */
  readonly executor: readonly string[];
  readonly onProgress?: (msg: string) => void;
}

/** SASS mnemonics per kernel from `cuobjdump -sass`, the lines that touch memory atomically. */
export async function sassByKernel(cubin: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  try {
    const { stdout } = await run('cuobjdump', ['-sass', cubin], { maxBuffer: 1 << 30 });
    let cur = '';
    for (const line of stdout.split('\n')) {
      const f = /Function : (\S+)/.exec(line);
      if (f) {
        cur = f[1]!;
        out.set(cur, []);
        continue;
      }
      const m = /\/\*[0-9a-f]+\*\/\s+(?:@!?U?P\d+\s+)?([A-Z][A-Z0-9_.]*)/.exec(line);
      if (cur && m && /^(ATOM|RED|UBLKRED|SYNCS|UBLKCP)/.test(m[1]!)) {
        const l = out.get(cur)!;
        if (!l.includes(m[1]!)) l.push(m[1]!);
      }
    }
  } catch {
    // cuobjdump missing: no evidence, said in the results
  }
  return out;
}

function casesFor(plan: KernelPlan, seed: number, generated: number): { id: string; input: ReferenceCase }[] {
  const e = plan.entry;
  const v: CaseVariant = { family: e.family, q: e.q, ptx: e.ptx, id: e.id };
  const big = (xs: unknown) => (xs as string[]).map((x) => BigInt(x));
  const directed = directedCases(v).map((c) => {
    const ops = c.fields.operands as { b?: string[]; c?: string[] } | undefined;
    return {
      id: `${v.id}/probe:${c.name}`,
      input: { memory: big(c.fields.memory), ...(ops?.b ? { b: big(ops.b) } : {}), ...(ops?.c ? { c: big(ops.c) } : {}), ...(c.fields.source ? { source: big(c.fields.source) } : {}) },
    };
  });
  const gen = ([1, 2, 3] as const).flatMap((level) => generateCases(v, seed, level, level === 3 ? generated : 8).map((c) => ({ id: c.id, input: c.input })));
  return [...directed, ...gen];
}

export async function runGpuBackend(opts: GpuRunOptions): Promise<{ results: EntryResult[]; stats: Record<string, number> }> {
  const started = performance.now();
  const { plans: allPlans, skipped } = gpuPlans(opts.target.name, opts.ptx);
  const plans = allPlans.filter((p) => opts.keep(p.entry.id));
  const results: EntryResult[] = [];
  const base = (id: string, family: EntryResult['family'], ptx: string) => ({ id, family, kind: 'variant' as const, ptx, modulePtx: opts.ptx });
  for (const s of skipped.filter((x) => opts.keep(x.entry.id))) {
    results.push({ ...base(s.entry.id, s.entry.family, s.entry.ptx), catalog: { status: s.entry.status, expect: s.entry.expect, reason: s.entry.reason, rules: [] }, verdict: 'skipped', reason: s.reason });
  }
  // multimem: never run here
  const multimem = enumerateCatalog({ target: opts.target, ptx: opts.ptx, neighbours: false, isaNeighbours: false, families: FAMILIES.filter((f) => f.id.startsWith('multimem.')) }).filter((e) => e.expect === 'accept' && opts.keep(e.id));
  const why = opts.device.multicastSupported
    ? 'multimem needs a multicast object bound to several GPUs; this backend never creates one (the multicast backend, with its explicit flag, does)'
    : `device reports no multicast support (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0 on ${opts.device.name})`;
  for (const e of multimem) results.push({ ...base(e.id, e.family, e.ptx), catalog: { status: e.status, expect: e.expect, reason: e.reason, rules: [] }, verdict: 'skipped', reason: why });

  const dir = await mkdtemp(join(tmpdir(), 'ptxconf-gpu-build-'));
  try {
    // compile in modules of 1000 kernels, several ptxas at once
    const chunks: KernelPlan[][] = [];
    for (let i = 0; i < plans.length; i += 1000) chunks.push(plans.slice(i, i + 1000));
    const cubins: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.max(1, availableParallelism()) }, async () => {
        while (next < chunks.length) {
          const k = next++;
          const ptx = join(dir, `m${k}.ptx`);
          cubins[k] = join(dir, `m${k}.cubin`);
          await writeFile(ptx, gpuModule(chunks[k]!, opts.target.name, opts.ptx));
          await run(opts.ptxas.path, ['-arch', opts.target.name, ptx, '-o', cubins[k]!], { maxBuffer: 1 << 26 });
          opts.onProgress?.(`compiled module ${k + 1}/${chunks.length}`);
        }
      }),
    );
    let cases = 0;
    const totals: Record<string, number> = {};
    // Every case is judged; the report keeps every mismatch and error, the directed probes of the
    // variants without ordering/scope/hint qualifiers, and a seeded sample of the rest (generated
    // cases replay from their ids), so that a whole run stays a few MB.
    const plain = (e: KernelPlan['entry']) => !e.q.sem && !e.q.scope && !e.q.hint && !e.q.d;
    const keepCase = (e: KernelPlan['entry'], id: string, verdict: string, j: number) =>
      verdict === 'mismatch' || verdict === 'error' || (plain(e) && id.includes('/probe:')) || ((j + 1) * 2654435761 + opts.seed) % 997 === 0;
    for (const [k, chunk] of chunks.entries()) {
      const sass = await sassByKernel(cubins[k]!);
      const perPlan = chunk.map((p) => casesFor(p, opts.seed, opts.generated));
      const launches: LaunchJob[] = chunk.map((p, i) => ({
        kernel: p.name,
        width: p.width,
        lanes: p.lanes,
        clustered: p.entry.family === 'cp.reduce.async.bulk' && p.entry.q.dst === 'shared::cluster',
        cases: perPlan[i]!.map((c) => ({
          memory: c.input.memory!.map((x) => hex(p.width, x)),
          b: (c.input.b ?? c.input.source)!.map((x) => hex(p.width, x)),
          ...(c.input.c ? { c: c.input.c.map((x) => hex(p.width, x)) } : {}),
        })),
      }));
      const r = await runIsolated(launches, { executor: opts.executor, cubin: cubins[k]!, timeoutMs: 120_000 });
      chunk.forEach((p, i) => {
        const e = p.entry;
        const returns = e.family === 'atom' && (e.q.d ?? '') !== '_';
        const evidence = sass.get(p.name)?.join(' ') ?? 'no SASS evidence (cuobjdump missing)';
        perPlan[i]!.forEach((c, j) => {
          const o = r.outcomes[i]![j]!;
          cases++;
          const head = { id: c.id, family: e.family, kind: 'case' as const, ptx: e.ptx, modulePtx: opts.ptx };
          if ('error' in o) {
            totals[`${e.family}.error`] = (totals[`${e.family}.error`] ?? 0) + 1;
            results.push({ ...head, catalog: { status: 'valid', expect: 'accept', reason: `SASS: ${evidence}`, rules: [] }, verdict: 'error', reason: `the launch failed for this case alone: ${o.error}` });
            return;
          }
          const observed = { memory: o.memory.map((x) => BigInt(x)), ...(returns ? { returned: o.returned.map((x) => BigInt(x)) } : {}) };
          const v = judge(c.id, { family: e.family, q: e.q }, c.input, observed);
          totals[`${e.family}.${v.verdict}`] = (totals[`${e.family}.${v.verdict}`] ?? 0) + 1;
          if (!keepCase(e, c.id, v.verdict, j)) return;
          results.push({
            ...head,
            catalog: { status: 'valid', expect: 'accept', reason: `SASS: ${evidence}`, rules: [] },
            verdict: v.verdict,
            reason: v.reason,
            ...(v.verdict !== 'pass'
              ? {
                  case: {
                    origin: { kind: c.id.includes('/gen:') ? 'gen' : 'vectors' },
                    input: { memory: o.memory.length ? c.input.memory!.map((x) => hex(p.width, x)) : [], ...(c.input.b ? { b: c.input.b.map((x) => hex(p.width, x)) } : {}), ...(c.input.source ? { source: c.input.source.map((x) => hex(p.width, x)) } : {}) },
                    allowed: {},
                    observed: { memory: o.memory, ...(returns ? { returned: o.returned } : {}) },
                    unspecified: v.unspecified,
                  },
                }
              : {}),
          });
        });
      });
      opts.onProgress?.(`ran module ${k + 1}/${chunks.length}: ${cases} cases so far (${r.children} child processes, ${r.splits} splits)`);
    }
    return { results, stats: { variants: plans.length, cases, recordedCases: results.filter((r) => r.kind === 'case').length, seconds: (performance.now() - started) / 1000, ...Object.fromEntries(Object.entries(totals).map(([k2, v]) => [`total.${k2}`, v])) } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
