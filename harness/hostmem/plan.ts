/**
 * The jobs of `hostmem`: every atom/red operation and type the GPU runs on global memory (add,
 * min, max, and, or, xor, exch, cas, inc, dec on u32/s32/u64/s64/b32/b64, f32/f64 add and the
 * 16-bit float adds), with .sys, the default scope and .gpu, on each kind of host memory, against
 * CPU threads doing the same kind of update with atomic instructions; a few with plain CPU loads and
 * stores (the contrast: the CPU side not atomic, so lost updates show the detector works on the
 * hardware). Plus single-thread float adds with a subnormal on host memory and on device memory.
 * Operands and sizes: judge.ts explains why each class's serial result is exact.
 */
import type { CatalogEntry } from '../catalog/enumerate.js';
import type { GpuPlan } from '../backends/gpu/plan.js';
import type { CpuMode, HostJob, MemoryKind, OpClass } from './judge.js';
import { MEMORY_KINDS } from './judge.js';

export const SCOPES = ['sys', '', 'gpu'] as const;

interface ClassSpec {
  readonly cls: OpClass;
  readonly op: string;
  readonly types: readonly string[];
  readonly families: readonly ('atom' | 'red')[];
}

const CLASSES: readonly ClassSpec[] = [
  { cls: 'add', op: 'add', types: ['u32', 's32', 'u64'], families: ['atom', 'red'] },
  { cls: 'fadd', op: 'add', types: ['f32', 'f64', 'f16', 'bf16'], families: ['atom', 'red'] },
  { cls: 'inc', op: 'inc', types: ['u32'], families: ['atom', 'red'] },
  { cls: 'dec', op: 'dec', types: ['u32'], families: ['atom', 'red'] },
  { cls: 'min', op: 'min', types: ['u32', 's32', 'u64', 's64'], families: ['atom', 'red'] },
  { cls: 'max', op: 'max', types: ['u32', 's32', 'u64', 's64'], families: ['atom', 'red'] },
  { cls: 'or', op: 'or', types: ['b32', 'b64'], families: ['atom', 'red'] },
  { cls: 'and', op: 'and', types: ['b32', 'b64'], families: ['atom', 'red'] },
  { cls: 'xor', op: 'xor', types: ['b32', 'b64'], families: ['atom', 'red'] },
  { cls: 'exch', op: 'exch', types: ['b32', 'b64'], families: ['atom'] },
  { cls: 'cas', op: 'cas', types: ['b32', 'b64'], families: ['atom'] },
];

/** The plain-CPU contrast: these atom.sys variants, on every memory kind. */
const CONTRAST = new Set(['add.u32', 'add.f32', 'or.b32', 'exch.b32', 'cas.b32']);

const FLOAT_UNITS: Record<string, { gpu: bigint; cpu: bigint; cpuValue: number }> = {
  // 1.0 from the GPU, 2^11 (f32/f64), 32 (f16), 16 (bf16) from the CPU: every partial sum exact
  f32: { gpu: 0x3f800000n, cpu: 0x45000000n, cpuValue: 2048 },
  f64: { gpu: 0x3ff0000000000000n, cpu: 0x40a0000000000000n, cpuValue: 2048 },
  f16: { gpu: 0x3c00n, cpu: 0x5000n, cpuValue: 32 },
  bf16: { gpu: 0x3f80n, cpu: 0x4180n, cpuValue: 16 },
};

export function variantId(family: 'atom' | 'red', scope: string, op: string, type: string): string {
  const noftz = type === 'f16' || type === 'bf16' ? '.noftz' : '';
  return `${family}${scope ? `.${scope}` : ''}.global.${op}${noftz}.${type}`;
}

const widthOf = (type: string): 16 | 32 | 64 => (type.endsWith('16') ? 16 : type.endsWith('32') ? 32 : 64);

/** The job of one (variant, memory kind, CPU mode). */
export function makeJob(family: 'atom' | 'red', scope: '' | 'gpu' | 'sys', spec: ClassSpec, type: string, memory: MemoryKind, cpuMode: CpuMode): HostJob {
  const w = widthOf(type);
  const variant = variantId(family, scope, spec.op, type);
  const partnerOp = spec.cls === 'or' ? 'and' : spec.cls === 'and' ? 'or' : undefined;
  const base = {
    variant,
    ...(partnerOp ? { partner: variantId(family, scope, partnerOp, type) } : {}),
    family,
    cls: spec.cls,
    type,
    scope,
    memory,
    cpuMode,
    width: w,
    signed: type.startsWith('s'),
  };
  const id = `${variant}/hostmem-${memory}${cpuMode === 'plain' ? '-plain-cpu' : ''}`;
  const std = { blocks: 2, threads: 64, iters: 16 };
  const cpu = { threads: 4, iters: 256 };
  switch (spec.cls) {
    case 'add':
      return { id, ...base, init: 0n, stride: 0n, gpu: { ...std, unit: 1n, offset: 0n }, cpu: { ...cpu, unit: 1n << (w === 64 ? 32n : 16n), offset: 0n } };
    case 'inc':
      // inc with bound 0xffffffff never wraps here: one more per operation
      return { id, ...base, init: 0n, stride: 0n, gpu: { ...std, unit: 0xffffffffn, offset: 0n }, cpu: { ...cpu, unit: 1n << 16n, offset: 0n } };
    case 'dec':
      // dec with bound 0xffffffff from 0x80000000: one less per operation (the CPU subtracts 2^16)
      return { id, ...base, init: 0x80000000n, stride: 0n, gpu: { ...std, unit: 0xffffffffn, offset: 0n }, cpu: { ...cpu, unit: 1n << 16n, offset: 0n } };
    case 'fadd': {
      const u = FLOAT_UNITS[type]!;
      // the GPU's total stays below the CPU's unit (the fields of judge.ts): f16 16 x 1 + 48 x 32 = 1552 <= 2^11, bf16 8 x 1 + 14 x 16 = 232 <= 2^8
      const g = type === 'f16' ? { blocks: 1, threads: 16, iters: 1 } : type === 'bf16' ? { blocks: 1, threads: 8, iters: 1 } : std;
      const c = type === 'f16' ? { threads: 2, iters: 24 } : type === 'bf16' ? { threads: 2, iters: 7 } : cpu;
      return { id, ...base, init: 0n, stride: 0n, gpu: { ...g, unit: u.gpu, offset: 0n }, cpu: { ...c, unit: u.cpu, offset: 0n } };
    }
    case 'min':
    case 'max':
      return {
        id,
        ...base,
        init: spec.cls === 'max' || base.signed ? 0n : (1n << BigInt(w)) - 1n,
        stride: 68n,
        gpu: { ...std, unit: 0n, offset: 0n },
        cpu: { ...cpu, unit: 0n, offset: 64n },
      };
    case 'or':
    case 'and':
    case 'xor': {
      // each thread owns a bit: the GPU's from 0, the CPU's above them
      const g = w === 32 ? { blocks: 1, threads: 16, iters: 64 } : { blocks: 1, threads: 32, iters: 32 };
      const cOff = BigInt(g.threads);
      let own = 0n;
      for (let t = 0; t < g.threads + cpu.threads; t++) own |= 1n << BigInt(t);
      return { id, ...base, init: spec.cls === 'and' ? own : 0n, stride: 0n, gpu: { ...g, unit: 0n, offset: 0n }, cpu: { ...cpu, unit: 0n, offset: cOff } };
    }
    case 'exch':
      return {
        id,
        ...base,
        init: 0n,
        stride: 0n,
        gpu: { ...std, unit: 0n, offset: 1n << BigInt(w - 2) },
        cpu: { ...cpu, unit: 0n, offset: 2n << BigInt(w - 2) },
      };
    case 'cas':
      return { id, ...base, init: 0n, stride: 0n, gpu: { ...std, unit: 1n, offset: 0n }, cpu: { ...cpu, unit: 1n << (w === 64 ? 32n : 16n), offset: 0n } };
  }
}

export interface PlannedJob {
  readonly job: HostJob;
  readonly entry?: CatalogEntry;
  readonly partnerEntry?: CatalogEntry;
  /** Why it does not run (no such variant in the catalog for this target and toolchain). */
  readonly skip?: string;
}

/** Every job, in a fixed order; `lookup` gives a catalog entry the gpu backend runs, by id. */
export function hostmemPlan(
  lookup: (id: string) => CatalogEntry | undefined,
  keep: (id: string) => boolean = () => true,
  kinds: readonly MemoryKind[] = MEMORY_KINDS,
): PlannedJob[] {
  const out: PlannedJob[] = [];
  for (const memory of kinds)
    for (const spec of CLASSES)
      for (const type of spec.types)
        for (const family of spec.families)
          for (const scope of SCOPES) {
            const modes: CpuMode[] = family === 'atom' && scope === 'sys' && CONTRAST.has(`${spec.op}.${type}`) ? ['atomic', 'plain'] : ['atomic'];
            for (const mode of modes) {
              const job = makeJob(family, scope, spec, type, memory, mode);
              if (!keep(job.variant) && !keep(job.id)) continue;
              const entry = lookup(job.variant);
              const partnerEntry = job.partner ? lookup(job.partner) : undefined;
              const skip = !entry
                ? `${job.variant} is not a variant the gpu backend runs for this target and toolchain`
                : job.partner && !partnerEntry
                  ? `its partner ${job.partner} is not runnable`
                  : undefined;
              out.push({ job, ...(entry ? { entry } : {}), ...(partnerEntry ? { partnerEntry } : {}), ...(skip ? { skip } : {}) });
            }
          }
  // the 16-bit float adds last in each memory kind: a fault there must not cost the others
  const last = (j: PlannedJob) => (j.job.width === 16 ? 1 : 0);
  return kinds.flatMap((k) => out.filter((j) => j.job.memory === k).sort((a, b) => last(a) - last(b)));
}

/** The catalog ids a plan needs (a --filter for gpuPlan()). */
export function neededIds(keepAll = true): string[] {
  const ids = new Set<string>();
  for (const spec of CLASSES)
    for (const type of spec.types)
      for (const family of spec.families)
        for (const scope of SCOPES) {
          ids.add(variantId(family, scope, spec.op, type));
          if (spec.cls === 'or' || spec.cls === 'and') ids.add(variantId(family, scope, spec.cls === 'or' ? 'and' : 'or', type));
        }
  for (const s of SINGLE_VARIANTS) ids.add(s);
  return keepAll ? [...ids] : [];
}

/** Single-thread float cases: a subnormal on host memory against the same on device memory. */
export const SINGLE_VARIANTS = [
  'atom.sys.global.add.f32',
  'atom.global.add.f32',
  'red.sys.global.add.f32',
  'atom.sys.global.add.f64',
  'atom.sys.global.add.noftz.f16',
  'atom.sys.global.add.noftz.bf16',
];
export type SingleMemory = MemoryKind | 'device';
export const SINGLE_MEMORIES: readonly SingleMemory[] = ['device', ...MEMORY_KINDS];

export interface SingleCase {
  readonly id: string;
  readonly variant: string;
  readonly memory: SingleMemory;
  readonly type: string;
  readonly init: bigint;
  readonly b: bigint;
  readonly what: string;
}

const SUBNORMAL_OPERANDS: Record<string, { init: bigint; b: bigint; what: string }[]> = {
  f32: [
    { init: 0x00000001n, b: 0x00000001n, what: 'smallest subnormal + smallest subnormal' },
    { init: 0x00000000n, b: 0x00400000n, what: '0 + subnormal 2^-127' },
    { init: 0x00800000n, b: 0x80000001n, what: 'smallest normal + -smallest subnormal' },
  ],
  f64: [{ init: 0x0000000000000001n, b: 0x0000000000000001n, what: 'smallest subnormal + smallest subnormal' }],
  f16: [{ init: 0x0001n, b: 0x0001n, what: 'smallest subnormal + smallest subnormal' }],
  bf16: [{ init: 0x0001n, b: 0x0001n, what: 'smallest subnormal + smallest subnormal' }],
};

export function singleCases(keep: (id: string) => boolean = () => true): SingleCase[] {
  const out: SingleCase[] = [];
  for (const variant of SINGLE_VARIANTS) {
    const type = variant.split('.').pop()!;
    for (const memory of SINGLE_MEMORIES)
      SUBNORMAL_OPERANDS[type]!.forEach((o, i) => {
        const id = `${variant}/hostmem-single-${memory}-${i}`;
        if (keep(variant) || keep(id)) out.push({ id, variant, memory, type, ...o });
      });
  }
  return out;
}

/** A plan's gpu lookup. */
export function planLookup(plan: GpuPlan): (id: string) => CatalogEntry | undefined {
  return (id) => plan.byId.get(id)?.entry;
}
