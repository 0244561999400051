/**
 * What the peer command runs (issue 29): GPU 0 launches, the memory lives on GPU 1 (a peer mapping:
 * cuCtxEnablePeerAccess both ways; with unified addressing GPU 1's pointer is usable on GPU 0).
 *
 * - Single-thread cases: every atom/red variant the gpu executor runs on `.global` memory with no
 *   scope, `.gpu` or `.sys` (every ordering and cache hint with them), through the gpu executor
 *   itself (harness/backends/gpu/: its plan, library and generated cases, fast and full judges),
 *   once with the memory on GPU 0 (local) and once on GPU 1 (peer: PTXCONF_MEMORY_DEVICE=1).
 * - Contention across GPUs: every contention group of the one-GPU run (harness/contention/cases.ts)
 *   in its grid layout on global memory (one representative per op, type and vector form), each with
 *   no scope, `.gpu` and `.sys`: the participants (one thread of each CTA) split between the two
 *   GPUs, every address in GPU 1's memory; judged by the contention model (model.ts). `.sys` includes
 *   the other GPU's threads, so it must be atomic; `.gpu` (and no scope) does not, so an update may
 *   be lost (PEER_RULES).
 */
import { type GpuPlan, type GpuVariant } from '../backends/gpu/plan.js';
import { type ContentionGroup, contentionPlan } from '../contention/cases.js';
import { CONTENTION_RULES } from '../contention/model.js';
import { CONTEND_PARAMS, contendKernel } from '../contention/kernel.js';
import type { ModelCitation } from '../hostmem/judge.js';

/** The scopes every peer job runs with ('' : none, .gpu by default). */
export const PEER_SCOPES = ['', 'gpu', 'sys'] as const;
const SEMS = ['', 'relaxed', 'acquire', 'release', 'acq_rel'];

/** The --filter of the single-thread runs: atom and red on .global with no scope, .gpu or .sys, any ordering. */
export const SINGLE_FILTER = ['atom', 'red']
  .flatMap((f) => SEMS.flatMap((sem) => PEER_SCOPES.map((sc) => `${f}${sem ? `.${sem}` : ''}${sc ? `.${sc}` : ''}.global.*`)))
  .join(',');
/** The variants contention needs: no ordering, any of the three scopes. */
export const CONTENTION_FILTER = ['atom', 'red'].flatMap((f) => PEER_SCOPES.map((sc) => `${f}${sc ? `.${sc}` : ''}.global.*`)).join(',');

/** The rows of the cross-GPU judgement (with the contention model's own). */
export const PEER_RULES = {
  sysIncludesPeer: {
    id: 'peer.sys-includes-other-device',
    text: '.sys includes the threads of every device of the program: .sys operations from both GPUs are atomic with respect to each other (a lost update is a mismatch)',
    cite: {
      file: '8.5-scope.md',
      section: '8.5 Scope, Table 21',
      quote:
        '.sys | The set of all threads in the current program, including all kernel grids invoked by the host program on all compute devices, and all threads constituting the host program itself.',
    },
  },
  gpuExcludesPeer: {
    id: 'peer.gpu-excludes-other-device',
    text: '.gpu (the default scope) holds only the threads of the same device: a .gpu operation from GPU 0 and one from GPU 1 do not include each other, so each may be split into a read and a dependent write (an update may be lost; reported either way)',
    cite: {
      file: '8.5-scope.md',
      section: '8.5 Scope, Table 21',
      quote:
        '.gpu | The set of all threads in the current program executing on the same compute device as the current thread. This also includes other kernel grids invoked by the host program on the same compute device.',
    },
  },
} as const satisfies Record<string, { id: string; text: string; cite: ModelCitation }>;

export { CONTENTION_RULES };

/** A cross-GPU contention group: a one-GPU group with a scope, its participants split over the devices. */
export interface PeerGroup extends ContentionGroup {
  readonly scope: '' | 'gpu' | 'sys';
  /** Participants (CTAs) on GPU 0; the rest run on GPU 1. */
  readonly onFirst: number;
}

/** The id of a scope's sibling of a variant without a scope (`atom.global.add.u32` -> `atom.sys.global.add.u32`). */
export function scopedId(id: string, family: string, scope: string): string {
  if (!scope) return id;
  if (!id.startsWith(`${family}.global.`)) throw new Error(`${id}: not a ${family}.global variant`);
  return `${family}.${scope}.global.${id.slice(family.length + '.global.'.length)}`;
}

/**
 * Every cross-GPU contention group of a plan made with CONTENTION_FILTER: the one-GPU run's grid
 * groups on global memory without ordering, scope or hint, each with no scope, .gpu and .sys.
 * `keep` filters by variant id (any scope's).
 */
export function peerContentionPlan(plan: GpuPlan, keep: (id: string) => boolean = () => true): { groups: PeerGroup[]; missing: string[] } {
  const groups: PeerGroup[] = [];
  const missing: string[] = [];
  for (const g of contentionPlan(plan, () => true)) {
    const q = g.gv.entry.q;
    if (g.layout !== 'grid' || g.mode !== 0 || q.space !== 'global' || q.scope || q.sem || q.hint) continue;
    for (const scope of PEER_SCOPES) {
      const id = scopedId(g.gv.entry.id, g.gv.entry.family, scope);
      if (!keep(id)) continue;
      const gv: GpuVariant | undefined = plan.byId.get(id);
      if (!gv) {
        missing.push(id);
        continue;
      }
      const n = g.set.b.length;
      groups.push({ ...g, gv, scope, atomic: scope === 'sys', onFirst: Math.ceil(n / 2) });
    }
  }
  return { groups, missing };
}

export function peerGroupId(g: PeerGroup): string {
  return `${g.gv.entry.id}/peer-contend-${g.onFirst}+${g.set.b.length - g.onFirst}-${g.set.name.replace(/[^a-z0-9]+/gi, '-')}`;
}

/**
 * Extra kernel parameters: the control block (in GPU 1's memory), this launch's side (0, 1), the
 * threads of both launches, and the other side's threads.
 * Control block (u32 words 64 bytes apart): +0 arrived, +4 threads that gave up waiting (2 s),
 * +64 side 0 done, +128 side 1 done, +192 side 0 operations that started while side 1 was mid-run
 * (some but not all of its operations done), +256 the same of side 1.
 */
export const PEER_EXTRA_PARAMS = ', .param .u64 pctl, .param .u32 pside, .param .u32 ptotal, .param .u32 pother)';
export const CTRL_BYTES = 320;

/**
 * The contention kernel of a variant (harness/contention/kernel.ts, the same instruction and layout
 * code) with a start flag: every thread of both launches adds itself to `arrived` (red.relaxed.sys)
 * and spins (ld.relaxed.sys, bounded by %globaltimer: 2 s) until all have arrived; then reads the
 * other side's done count (overlap evidence) before its operation, and adds to its own after.
 */
export function peerContendKernel(gv: GpuVariant): string {
  const base = contendKernel(gv);
  const lines = base.split('\n');
  const head = lines.findIndex((x) => x.includes(CONTEND_PARAMS));
  const open = lines.indexOf('{');
  const afterParams = lines.findIndex((x) => x.trim() === 'ld.param.u32 %mode, [pmode];');
  const ret = lines.lastIndexOf('  ret;');
  if (head < 0 || open !== head + 1 || afterParams < 0 || ret < 0 || lines.filter((x) => x.trim() === 'ret;').length !== 1)
    throw new Error(`${gv.entry.id}: the contention kernel's text is not as the peer start flag expects`);
  lines[head] = lines[head]!.replace(CONTEND_PARAMS, CONTEND_PARAMS.slice(0, -1) + PEER_EXTRA_PARAMS);
  const start = [
    '  ld.param.u64 %pctl, [pctl];',
    '  ld.param.u32 %pside, [pside];',
    '  ld.param.u32 %ptot, [ptotal];',
    '  ld.param.u32 %poth, [pother];',
    '  red.relaxed.sys.global.add.u32 [%pctl], 1;',
    '  mov.u64 %pt0, %globaltimer;',
    'PSPIN:',
    '  ld.relaxed.sys.global.u32 %pa, [%pctl];',
    '  setp.ge.u32 %pp, %pa, %ptot;',
    '  @%pp bra PGO;',
    '  mov.u64 %pt1, %globaltimer;',
    '  sub.u64 %pt1, %pt1, %pt0;',
    '  setp.lt.u64 %pp, %pt1, 2000000000;',
    '  @%pp bra PSPIN;',
    '  red.relaxed.sys.global.add.u32 [%pctl+4], 1;',
    'PGO:',
    // the other side's done count, just before this thread's operation
    '  sub.u32 %pa, 1, %pside;',
    '  mul.wide.u32 %pw, %pa, 64;',
    '  add.u64 %pw, %pctl, %pw;',
    '  ld.relaxed.sys.global.u32 %pa, [%pw+64];',
    '  setp.gt.u32 %pp, %pa, 0;',
    '  setp.lt.and.u32 %pp, %pa, %poth, %pp;',
    '  mul.wide.u32 %pw, %pside, 64;',
    '  add.u64 %pw, %pctl, %pw;',
    '  @%pp red.relaxed.sys.global.add.u32 [%pw+192], 1;',
  ];
  const done = ['  red.relaxed.sys.global.add.u32 [%pw+64], 1;'];
  const out = [
    ...lines.slice(0, open + 1),
    '  .reg .b64 %pctl, %pt0, %pt1, %pw;',
    '  .reg .b32 %pside, %ptot, %poth, %pa;',
    '  .reg .pred %pp;',
    ...lines.slice(open + 1, afterParams + 1),
    ...start,
    ...lines.slice(afterParams + 1, ret),
    ...done,
    ...lines.slice(ret),
  ];
  return out.join('\n');
}

export function peerContendModule(arch: string, ptx: string, gvs: readonly GpuVariant[]): string {
  const uniq = new Map<string, string>();
  for (const gv of gvs) uniq.set(gv.entry.id, peerContendKernel(gv));
  return [`.version ${ptx}`, `.target ${arch}`, '.address_size 64', '', ...uniq.values(), ''].join('\n');
}
