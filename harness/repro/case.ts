/**
 * A standalone reproducer of one single-thread case of a gpu run (a mismatch, a known deviation, or
 * any case with observed bits): the variant's kernel as the gpu backend compiled it, the case's
 * inputs in slot 0, one thread, and what the PTX ISA text allows for it (the reference model under
 * the chosen edition), lane by lane, for the memory at [a] and the returned values.
 */
import { UsageError } from '../util/errors.js';
import { formatCitation } from '../catalog/cite.js';
import { type Edition, withEdition } from '../catalog/editions.js';
import { SLOT, tensorMapGeometry } from '../backends/gpu/family.js';
import { gpuPlan, kernelsText } from '../backends/gpu/plan.js';
import { elementFormat, splitLanes } from '../numerics/formats.js';
import type { RunReport } from '../report/json.js';
import { CaseError, type ElementAllowed, type ReferenceCase, reference } from '../reference/model.js';
import { writeElements } from '../contention/run.js';
import { addOnce, allows } from '../numerics/ops.js';
import type { FloatFormat } from '../numerics/formats.js';
import { type LaneCheck, REPRO_EXITS, buildScript, bytesOf, cppFiles, expectedText, hex, laneTable, lowestPtx, recordedGpu, sassLines } from './common.js';
import { findTarget } from '../arch/targets.js';
import type { ReproFiles } from './contention.js';

const big = (xs: unknown): bigint[] | undefined => (Array.isArray(xs) ? xs.map((x) => BigInt(String(x))) : undefined);

/** Lane checks of a reference outcome's elements. */
function checksOf(allowed: readonly ElementAllowed[]): LaneCheck[] {
  return allowed.flatMap((el, element) => el.map((a, lane) => ({ element, lane, values: a.bits, anyNaN: a.anyNaN })));
}

/** The lanes of memory whose add result tells keeping subnormals from flushing them (memory with b or source). */
function telling(lf: FloatFormat, fmt: ReturnType<typeof elementFormat>, memory: readonly bigint[], other: readonly bigint[], width: number) {
  const out: { element: number; lane: number; byte: number; bytes: number; shift: number; bits: number; kept: bigint; flushed: bigint }[] = [];
  memory.forEach((m, element) => {
    const bs = splitLanes(fmt, other[element] ?? 0n);
    splitLanes(fmt, m).forEach((a, lane) => {
      const kept = addOnce(lf, a, bs[lane]!, false);
      const flushed = addOnce(lf, a, bs[lane]!, true);
      if (kept.nan || flushed.nan || kept.bits === flushed.bits) return;
      const bitOffset = element * width + lane * lf.bits;
      const shift = bitOffset % 8;
      out.push({
        element,
        lane,
        byte: Math.floor(bitOffset / 8),
        bytes: Math.ceil((shift + lf.bits) / 8),
        shift,
        bits: lf.bits,
        kept: kept.bits,
        flushed: flushed.bits,
      });
    });
  });
  return out;
}

export function caseRepro(report: RunReport, id: string, edition: Edition): ReproFiles {
  const r = report.results.find((x) => x.id === id);
  if (!r)
    throw new UsageError(`repro --case ${id}: the report has no result with this id; copy the id from the report or the console (e.g. a finding's example)`);
  if (r.family.startsWith('multimem'))
    throw new UsageError(
      `repro --case ${id}: ${r.family} runs on a multicast object bound to several GPUs; repro does not write that launch and never creates a multicast object (run it with the multicast backend, --backend multicast --allow-multicast, on an NVSwitch system you own)`,
    );
  const input = r.case?.input;
  const observed = r.case?.observed as Record<string, unknown> | undefined;
  if (!input || !observed)
    throw new UsageError(
      `repro --case ${id}: the result has no bits a GPU observed (${r.kind === 'case' ? 'a reference-model case' : `a ${r.kind}`}); repro reproduces what hardware did, from a report of a gpu run`,
    );
  const variantId = id.slice(0, id.indexOf('/'));
  const plan = gpuPlan(report.arch, report.modulePtx ?? '9.0', variantId);
  const gv = plan.variants.find((v) => v.entry.id === variantId);
  if (!gv)
    throw new UsageError(
      `repro --case ${id}: the variant ${variantId} has no kernel in this harness's gpu plan for ${report.arch} (PTX ISA ${report.modulePtx})`,
    );
  const k = gv.shape;
  const fmt = elementFormat(gv.entry.q.type ?? '');
  if (fmt.lane.bits > 64) throw new UsageError(`repro --case ${id}: ${fmt.lane.bits}-bit lanes; the reproducer checks lanes of up to 64 bits`);
  const w = k.width;
  const memory = big(input.memory) ?? [];
  const bulk = input.source !== undefined;
  const b = big(bulk ? input.source : input.b) ?? [];
  const c = big(input.c);
  const mode = input.space === 'shared' ? 1 : 0;
  const refCase: ReferenceCase = { memory, ...(bulk ? { source: b } : { b }), ...(c ? { c } : {}), ...(mode ? { space: 'shared' as const } : {}) };
  let ref;
  try {
    ref = withEdition(edition, () => reference({ family: gv.entry.family, q: gv.entry.q }, refCase));
  } catch (e) {
    if (e instanceof CaseError) throw new UsageError(`repro --case ${id}: the reference model cannot evaluate it: ${e.message}`);
    throw e;
  }
  const mem = Buffer.alloc(SLOT);
  writeElements(mem, 0, memory, w);
  const bBuf = Buffer.alloc(SLOT);
  writeElements(bBuf, 0, b, w);
  const cBuf = Buffer.alloc(SLOT);
  if (c) writeElements(cBuf, 0, c, w);
  const memChecks = checksOf(ref.memory ?? []);
  const retChecks = k.returns ? checksOf(ref.returned ?? []) : [];
  const laneBits = fmt.lane.bits;
  const obsMem = big(observed.memory) ?? [];
  const obsRet = big(observed.returned);
  // the recorded bits against the same checks (what ./repro will say of the recorded run)
  const outside = (checks: readonly LaneCheck[], els: readonly bigint[]) =>
    checks.filter((l) => !allows(fmt.lane, { bits: l.values, anyNaN: l.anyNaN, unspecified: [] }, splitLanes(fmt, els[l.element] ?? 0n)[l.lane]!));
  const badLanes = [...outside(memChecks, obsMem), ...(obsRet ? outside(retChecks, obsRet) : [])];
  const recorded = `${badLanes.length ? `${badLanes.length} lane(s) outside the allowed set` : 'every lane allowed'} under PTX ISA ${edition} (verdict in the report: ${r.verdict})`;
  // a case the text leaves open whose float add kept (or flushed) subnormals: the lanes telling the two apart
  const behaviour =
    r.verdict === 'observed' && (r.case?.subnormals === 'kept' || r.case?.subnormals === 'flushed') && fmt.lane.kind === 'float'
      ? r.case.subnormals
      : undefined;
  const subLanes = behaviour ? telling(fmt.lane as FloatFormat, fmt, memory, b, w) : [];
  // a launch host-case.cpp does not make (clusters, a tensor map) or a behaviour to check: host-launch.cpp
  const launch = k.clustered || k.tensorMap !== undefined || subLanes.length > 0;
  const grid = k.clustered ? 2 : 1;
  const geo = k.tensorMap ? tensorMapGeometry(k.tensorMap.rank, k.elements, 1) : undefined;
  const five = (xs: readonly (bigint | number)[]) => Array.from({ length: 5 }, (_, i) => String(xs[i] ?? 0)).join(', ');
  const obsSub = behaviour ? subLanes.filter((l) => splitLanes(fmt, obsMem[l.element] ?? 0n)[l.lane] === l.kept).length : 0;
  const kernel = gv.name;
  const arch = report.arch;
  const params = [
    '// Written by `npm run conformance -- repro`: one single-thread case, its inputs and what the PTX ISA text allows.',
    '#pragma once',
    '#include "driver.h"',
    `static const char* CASE_ID = "${id}";`,
    `static const char* INSTRUCTION = "${gv.entry.id}";`,
    `static const char* KERNEL = "${kernel}";`,
    `static const char* EDITION = "${edition}";`,
    `static const char* OPERAND_NAME = "${bulk ? 'source' : 'b'}";`,
    `static const char* RECORDED = "${recorded}";`,
    `enum { MODE = ${mode}, WIDTH = ${w}, ELEMENTS = ${k.elements}, RETURNS = ${k.returns ? 1 : 0}, N_MEM_LANES = ${memChecks.length}, N_RET_LANES = ${retChecks.length} };`,
    `static const unsigned char MEMORY[16] = {${bytesOf(mem)}};`,
    `static const unsigned char B[16] = {${bytesOf(bBuf)}};`,
    `static const unsigned char C[16] = {${bytesOf(cBuf)}};`,
    laneTable('MEM_LANES', memChecks, fmt, w),
    laneTable('RET_LANES', retChecks, fmt, w),
    ...(launch
      ? [
          `enum { GRID_X = ${grid}, CLUSTER_X = ${k.clustered ? 2 : 1}, TENSOR_RANK = ${k.tensorMap?.rank ?? 0}, TENSOR_DATA_TYPE = ${k.tensorMap?.dataType ?? 0}, N_SUB_LANES = ${subLanes.length} };`,
          '// the tiled tensor map (cuTensorMapEncodeTiled) over the memory: dims, byte strides (one fewer), box, element strides',
          `static const unsigned long long TENSOR_DIMS[5] = {${five(geo?.dims ?? [])}};`,
          `static const unsigned long long TENSOR_STRIDES[5] = {${five(geo?.strides ?? [])}};`,
          `static const unsigned TENSOR_BOX[5] = {${five(geo?.box ?? [])}};`,
          `static const unsigned TENSOR_ESTRIDES[5] = {${five(geo?.elementStrides ?? [])}};`,
          `static const char* RECORDED_SUBNORMALS = "${behaviour ?? ''}";`,
          `static const SubLane SUB_LANES[${Math.max(1, subLanes.length)}] = {${subLanes.length ? `\n${subLanes.map((l) => `  {${l.byte}, ${l.bytes}, ${l.shift}, ${l.bits}, 0x${l.kept.toString(16)}ull, 0x${l.flushed.toString(16)}ull}`).join(',\n')}\n` : '{0, 0, 0, 0, 0, 0}'}};`,
        ]
      : []),
    '',
  ].join('\n');
  const els = (xs: readonly bigint[]) => xs.map((x) => hex(x, w)).join(', ');
  const tc = report.toolchain?.ptxas;
  const readme = [
    `# Reproducer: ${id}`,
    '',
    `Written by \`npm run conformance -- repro\` from a gpu run${report.startedAt ? ` of ${report.startedAt}` : ''}, judged against the PTX ISA ${edition} text.`,
    '',
    '## What runs',
    '',
    `\`${gv.entry.id}\` (\`${kernel}\` in kernel.ptx, the kernel the gpu backend compiled), one thread, ${mode ? 'its address in shared memory (generic addressing, mode 1)' : 'as the run did'}.`,
    ...(k.clustered
      ? [
          '',
          "Launched as the gpu backend launches a clustered variant: grid 2 x block 1 in clusters of 2 CTAs (`cuLaunchKernelEx` with a cluster dimension); the case is case 0 of the launch, and the kernel's two CTAs reach each other's shared memory (`mapa`, `.shared::cluster`) as the family's kernel did in the run.",
        ]
      : []),
    ...(k.tensorMap && geo
      ? [
          '',
          `The memory at [a] is reached through a tiled tensor map, encoded by host.cpp with \`cuTensorMapEncodeTiled\` (the dlopen'd driver) as the gpu backend's executor encodes it for a launch of one case: rank ${k.tensorMap.rank}, data type ${k.tensorMap.dataType} (CUtensorMapDataType), dims {${geo.dims.join(', ')}}, byte strides {${geo.strides.join(', ')}}, box {${geo.box.join(', ')}}, element strides {${geo.elementStrides.join(', ')}}; no interleave, swizzle or L2 promotion. Its 128 bytes are copied to device memory and passed as the kernel's third parameter; the case's box is at coordinates 0.`,
        ]
      : []),
    '',
    `- memory at [a] before: ${els(memory)}`,
    `- ${bulk ? 'source (shared memory)' : 'operand b'}: ${els(b)}`,
    ...(c ? [`- operand c: ${els(c)}`] : []),
    '',
    '## What the PTX ISA says, and allows here',
    '',
    ...ref.trail.map((t) => `- ${t.rule}: ${t.text}${t.cite ? ` (${formatCitation(t.cite)})` : ''}`),
    '',
    ...memChecks.map((l) => `- memory element ${l.element}${fmt.lanes > 1 ? ` lane ${l.lane}` : ''}: ${expectedText(l.values, l.anyNaN, laneBits)}`),
    ...retChecks.map((l) => `- returned element ${l.element}${fmt.lanes > 1 ? ` lane ${l.lane}` : ''}: ${expectedText(l.values, l.anyNaN, laneBits)}`),
    '',
    '## What the recorded run saw',
    '',
    `- memory after: ${els(obsMem)}`,
    ...(obsRet ? [`- returned: ${els(obsRet)}`] : []),
    `- ${recorded}${r.reason ? `; the harness said: ${r.reason}` : ''}`,

    ...(r.explanation ? [`- explanation: ${r.explanation.text}`] : []),

    ...(behaviour
      ? [
          '',
          `## What the reproducer checks: subnormals ${behaviour}`,
          '',
          `The text leaves these lanes open (${(r.case?.unspecified ?? []).join(', ')}): it allows the result with subnormals kept and the one with them flushed. The finding is what the GPU did: the recorded run ${behaviour} subnormals on ${obsSub === subLanes.length ? `all ${obsSub}` : `${obsSub} of the ${subLanes.length}`} lanes whose result tells keeping from flushing. \`./repro\` prints REPRODUCED when a launch does so again on all of them (or gives bits the text does not allow), NOT REPRODUCED otherwise:`,
          '',
          ...subLanes.map(
            (l) =>
              `- memory element ${l.element}${fmt.lanes > 1 ? ` lane ${l.lane}` : ''}: kept ${hex(l.kept, fmt.lane.bits)}, flushed ${hex(l.flushed, fmt.lane.bits)}; the recorded run: ${hex(splitLanes(fmt, obsMem[l.element] ?? 0n)[l.lane]!, fmt.lane.bits)}`,
          ),
        ]
      : []),
    '',
    ...sassLines(r.sass),
    `GPU of the recorded run: ${recordedGpu(report)}. Toolchain: ${tc ? `${tc.versionLine} (PTX ISA up to ${tc.maxPtx})` : 'not recorded'}; module PTX ISA ${report.modulePtx}, target ${arch}.`,
    '',
    '## Build and run',
    '',
    '```sh',
    'sh build.sh     # nvcc only: kernel.cubin and ./repro',
    'PTXAS=/path/to/ptxas sh build.sh   # the kernel by another ptxas (kernel.ptx declares the lowest PTX ISA it needs)',
    `./repro         # ${REPRO_EXITS}; ./repro 100 runs it 100 times`,
    '```',
    '',
  ].join('\n');
  return {
    files: {
      'kernel.ptx': kernelsText(plan, [gv], lowestPtx(findTarget(arch)!, gv.entry), { wide: false }),
      'params.h': params,
      ...cppFiles(launch ? 'host-launch.cpp' : 'host-case.cpp'),
      'build.sh': buildScript(arch),
      'README.md': readme,
    },
    recordedBad: badLanes.length ? 1 : 0,
    recordedTotal: 1,
    summary: `the recorded run: ${recorded}${behaviour ? `; subnormals ${behaviour} on ${obsSub} of the ${subLanes.length} lanes that tell keeping from flushing` : ''}`,
  };
}
