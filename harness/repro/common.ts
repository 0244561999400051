/**
 * What every reproducer folder shares: the C++ files copied as they are (driver.h: the CUDA driver
 * through dlopen and the lane check), the lane table of params.h (each lane's place in its 16-byte
 * slot and the values the model allows there), element bytes, and the nvcc-only build script.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElementFormat, FloatFormat } from '../numerics/formats.js';
import { comparePtx } from '../arch/targets.js';
import { hexBits } from '../numerics/hex.js';
import { fromRoot } from '../util/paths.js';

/** One lane to check: its element and lane, the bits some allowed outcome has, whether any NaN is allowed. */
export interface LaneCheck {
  readonly element: number;
  readonly lane: number;
  readonly values: readonly bigint[];
  readonly anyNaN: boolean;
}

export const hex = (x: bigint, bits: number) => hexBits(bits, x);
export const bytesOf = (buf: Buffer) => [...buf].map((b) => `0x${b.toString(16).padStart(2, '0')}`).join(', ');

/** What a lane allows, in words. */
export function expectedText(values: readonly bigint[], anyNaN: boolean, bits: number): string {
  const t = [...values.map((x) => hex(x, bits)), ...(anyNaN ? ['any NaN'] : [])].join(' or ');
  return t.length > 200 ? `${values.length} values${anyNaN ? ' or any NaN' : ''}` : t || 'nothing';
}

/** The C++ table of `lanes` (named `name`) and its allowed values (`name`_ALLOWED), for params.h. */
export function laneTable(name: string, lanes: readonly LaneCheck[], fmt: ElementFormat, width: number): string {
  const lf = fmt.lane.kind === 'float' ? (fmt.lane as FloatFormat) : undefined;
  const bits = fmt.lane.bits;
  if (bits > 64) throw new Error(`lanes of ${bits} bits`);
  const flat: bigint[] = [];
  const rows = lanes.map((l) => {
    const first = flat.length;
    flat.push(...l.values);
    const bitOffset = l.element * width + l.lane * bits;
    const shift = bitOffset % 8;
    return `  {${Math.floor(bitOffset / 8)}, ${Math.ceil((shift + bits) / 8)}, ${shift}, ${bits}, ${lf?.expBits ?? 0}, ${lf?.fracBits ?? 0}, ${first}, ${l.values.length}, ${l.anyNaN ? 1 : 0}, "${expectedText(l.values, l.anyNaN, bits)}"}`;
  });
  return [
    `static const Lane ${name}[${Math.max(1, lanes.length)}] = {\n${rows.join(',\n') || '  {0, 0, 0, 0, 0, 0, 0, 0, 0, ""}'}\n};`,
    `static const uint64_t ${name}_ALLOWED[${Math.max(1, flat.length)}] = {${flat.length ? flat.map((x) => `0x${x.toString(16)}ull`).join(', ') : '0'}};`,
  ].join('\n');
}

/**
 * The PTX ISA version a reproducer's kernel declares: the lowest the target and its instruction need
 * (the entry's), so an older ptxas compiles it too (`PTXAS=/path/to/ptxas sh build.sh`).
 */
export function lowestPtx(target: { readonly minPtx: string }, entry: { readonly minPtx: string }): string {
  return comparePtx(entry.minPtx, target.minPtx) > 0 ? entry.minPtx : target.minPtx;
}

/** build.sh: nvcc alone (or the kernel by the ptxas PTXAS names), the kernel from its PTX and the host program. */
export function buildScript(arch: string): string {
  return [
    '#!/bin/sh',
    '# Builds the reproducer with nvcc alone (no node): the kernel from its PTX, the host program over the CUDA driver API.',
    '# PTXAS=/path/to/ptxas sh build.sh: the kernel compiled by that ptxas instead (another toolchain; kernel.ptx declares',
    '# the lowest PTX ISA version it needs), the host still by nvcc.',
    'set -eu',
    'cd "$(dirname "$0")"',
    `if [ -n "\${PTXAS:-}" ]; then "$PTXAS" -arch=${arch} -o kernel.cubin kernel.ptx; "$PTXAS" --version | tail -1; else nvcc -cubin -arch=${arch} -o kernel.cubin kernel.ptx; fi`,
    'nvcc -O2 -std=c++17 -o repro host.cpp -ldl',
    `echo "built ./repro; run it on a GPU that runs ${arch}: ./repro [LAUNCHES]"`,
    '',
  ].join('\n');
}

/** The C++ files of a reproducer: driver.h, and the host program named (host-contention.cpp, host-case.cpp, host-launch.cpp, host-sweep.cpp) as host.cpp. */
export function cppFiles(host: 'host-contention.cpp' | 'host-case.cpp' | 'host-launch.cpp' | 'host-sweep.cpp'): Record<string, string> {
  // beside this module, or (bundled) in the package's harness/repro/
  const dir = existsSync(join(import.meta.dirname, 'driver.h')) ? import.meta.dirname : fromRoot('harness', 'repro');
  return { 'driver.h': readFileSync(join(dir, 'driver.h'), 'utf8'), 'host.cpp': readFileSync(join(dir, host), 'utf8') };
}

/** The GPU a report's run was on, as a reproducer's README names it (never the host's CPU in its place). */
export function recordedGpu(report: {
  toolchain?: { gpu?: { device?: unknown; driverVersion?: number } };
  machine?: { cpu?: string; osRelease?: string };
}): string {
  const d = report.toolchain?.gpu?.device as { name?: string; cc?: string; smCount?: number } | undefined;
  const drv = report.toolchain?.gpu?.driverVersion;
  const host = report.machine?.cpu ? `; host ${report.machine.cpu}, ${report.machine.osRelease ?? ''}`.replace(/, $/, '') : '';
  if (!d?.name) return `GPU not recorded in the report${host}`;
  return `${d.name} (compute capability ${d.cc ?? '?'}${d.smCount ? `, ${d.smCount} SMs` : ''}${drv ? `, CUDA driver API ${Math.floor(drv / 1000)}.${(drv % 1000) / 10}` : ''})${host}`;
}

/**
 * A reproducer README's SASS: the recorded run's, where the report holds it; else how to take it
 * on the GPU host (the development machine has no cuobjdump), never an empty section.
 */
export function sassLines(sass: string | undefined): string[] {
  if (sass) return ['SASS of the instruction (the recorded run):', '', '```', sass, '```', ''];
  return [
    'SASS: not in the report (the run did not disassemble this kernel). On the GPU host, after `sh build.sh`: `cuobjdump -sass kernel.cubin | grep -E "ATOM|RED"` (the instruction and its fallback path, if any).',
    '',
  ];
}

/** How a reproducer's program exits (host-*.cpp and driver.h): every code it can give. */
export const REPRO_EXITS =
  'REPRODUCED (exit 1) or NOT REPRODUCED (exit 0); exit 2: no CUDA driver, a driver that lacks a call, or a CUDA error (no GPU, a launch that fails), said on stderr';
