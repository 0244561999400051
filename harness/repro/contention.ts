/**
 * A standalone reproducer of a contention finding: the folder `repro` writes for one contention group
 * of a `contend` report. It holds the group's kernel as PTX (the same text the run compiled), a C++
 * host program over the CUDA driver API (host.cpp beside this file, copied as it is), the launch and
 * the operands as a header, a build script that uses nvcc alone, and a README with what was run, the
 * sentence the finding contradicts, the bits observed and the bits some order gives, the SASS, the
 * GPU, driver and toolchain of the recorded run.
 *
 * The host program judges the final memory of every address, lane by lane, against the values some
 * order of the operations gives (the contention model's order sets, computed here); the values the
 * operations returned are not checked there (the harness's judgement of them is in the report).
 */
import { UsageError } from '../util/errors.js';
import { formatCitation } from '../catalog/cite.js';
import { SLOT } from '../backends/gpu/family.js';
import { gpuPlan } from '../backends/gpu/plan.js';
import { elementFormat, splitLanes } from '../numerics/formats.js';
import type { RunReport } from '../report/json.js';
import { CaseError } from '../reference/model.js';
import { type ContentionGroup, contentionPlan, setOps } from '../contention/cases.js';
import { contendKernelName, contendModule } from '../contention/kernel.js';
import { CONTENTION_RULES, MAX_ORDER_N, inSet, lanesOf, orderFree, orderSet } from '../contention/model.js';
import { LAYOUT_CODE, groupId, launchShape, writeElements } from '../contention/run.js';
import { REPRO_EXITS, buildScript, bytesOf, cppFiles, expectedText, hex, laneTable, lowestPtx, recordedGpu, sassLines } from './common.js';
import { findTarget } from '../arch/targets.js';

/** What the contention run recorded of one group (report.contention[i]). */
interface RecordedGroup {
  readonly id: string;
  readonly variant: string;
  readonly layout: string;
  readonly set: string;
  readonly n: number;
  readonly reps: number;
  readonly atomic: boolean;
  readonly verdict: string;
  readonly outcomes: readonly { count: number; memory: string[]; verdict: string; reason: string }[];
}

/** Launches of the recorded run: every group is launched twice (harness/contention/run.ts). */
const RUN_LAUNCHES = 2;
const NAN = -1n;

/** The group a contention report names by id, rebuilt from the catalog (its kernel, operands and layout). */
export function findGroup(report: RunReport, id: string): { group: ContentionGroup; recorded: RecordedGroup } {
  const recorded = ((report as unknown as { contention?: RecordedGroup[] }).contention ?? []).find((g) => g.id === id);
  if (!recorded)
    throw new UsageError(
      `repro: '${id}' is not a contention group of this report; repro writes reproducers of contention groups (ids like atom.shared::cluster.or.b64/contend-cluster-bits, from a report of 'contend')`,
    );
  const variant = id.slice(0, id.indexOf('/contend-'));
  const plan = gpuPlan(report.arch, report.modulePtx ?? '9.0', variant);
  const group = contentionPlan(plan, () => true).find((g) => groupId(g) === id);
  if (!group)
    throw new UsageError(
      `repro: the catalog of this harness no longer has the contention group '${id}' (arch ${report.arch}, PTX ISA ${report.modulePtx}); run contend again and use its report`,
    );
  return { group, recorded };
}

export interface ReproFiles {
  readonly files: Record<string, string>;
  /** Files of `files` that are bytes (each char one byte, latin1), not text. */
  readonly binary?: readonly string[];
  /** Addresses x launches of the recorded run whose final memory no order gives. */
  readonly recordedBad: number;
  readonly recordedTotal: number;
  /** One line: what the recorded run showed, as ./repro will judge it. */
  readonly summary: string;
}

/** The folder's files for one contention group of a report. */
export function contentionRepro(report: RunReport, id: string): ReproFiles {
  const { group: g, recorded } = findGroup(report, id);
  if (!recorded.atomic)
    throw new UsageError(
      `repro: in '${id}' the scopes do not include every participant, so lost updates are allowed (split read/write semantics); there is no violation to reproduce`,
    );
  if (g.selftest) throw new UsageError(`repro: '${id}' is the contention self-test, not a finding`);
  const e = g.gv.entry;
  const k = g.gv.shape;
  const fmt = elementFormat(e.q.type ?? '');
  if (fmt.lane.bits > 64) throw new UsageError(`repro: '${id}' has ${fmt.lane.bits}-bit lanes; the reproducer checks lanes of up to 64 bits`);
  const { memory, ops } = setOps(fmt, k.elements, g.set);
  const n = ops.length;
  const lanes = lanesOf({ variant: { family: e.family, q: e.q }, memory, ops, ...(g.mode === 1 ? { space: 'shared' as const } : {}) });
  const values = g.set.b;
  let sets: bigint[][];
  try {
    sets = lanes.map((l) => orderSet(l, n, { free: orderFree(fmt, e.q.op ?? '', values) }));
  } catch (err) {
    if (err instanceof CaseError) throw new UsageError(`repro: '${id}': ${err.message} (at most ${MAX_ORDER_N} operations are enumerated)`);
    throw err;
  }
  const laneBits = fmt.lane.bits;
  const w = k.width;
  const checks = lanes.map((l, j) => ({ element: l.element, lane: l.lane, values: sets[j]!.filter((x) => x !== NAN), anyNaN: sets[j]!.includes(NAN) }));
  // the memory of one address, and the operands (32 bytes a participant: b, then c), as the run wrote them
  const mem = Buffer.alloc(SLOT);
  writeElements(mem, 0, memory, w);
  const opsBuf = Buffer.alloc(n * 32);
  ops.forEach((o, i) => {
    writeElements(opsBuf, i * 32, o.b, w);
    if (o.c) writeElements(opsBuf, i * 32 + 16, o.c, w);
  });
  const layout = g.layout;
  const shape = launchShape(layout, n, recorded.reps);
  const total = recorded.outcomes.reduce((s, o) => s + o.count, 0);
  // an outcome's memory is the group's final elements; bad where some lane is outside its set
  const outside = (m: readonly string[]) => lanes.some((l, j) => !inSet(l, sets[j]!, splitLanes(fmt, BigInt(m[l.element]!))[l.lane]!));
  const recordedBad = recorded.outcomes.filter((o) => outside(o.memory)).reduce((s, o) => s + o.count, 0);
  const recordedText = `${recordedBad} of ${total} addresses over ${RUN_LAUNCHES} launches`;
  const kernel = contendKernelName(g.gv);
  const arch = report.arch;
  const params = [
    '// Written by `npm run conformance -- repro`: the launch, operands and allowed final values of one contention group.',
    '#pragma once',
    '#include <cstdint>',
    `static const char* GROUP = "${id}";`,
    `static const char* INSTRUCTION = "${e.id}";`,
    `static const char* KERNEL = "${kernel}";`,
    `static const char* LAYOUT_NAME = "${layout}";`,
    `static const char* RECORDED = "${recordedText}";`,
    '#include "driver.h"',
    `enum { N = ${n}, REPS = ${recorded.reps}, LAYOUT = ${LAYOUT_CODE[layout]}, MODE = ${g.mode}, GRID_X = ${shape.grid}, BLOCK_X = ${shape.block}, CLUSTER_X = ${shape.cluster}, SLOT_BYTES = ${SLOT}, LAUNCHES = ${RUN_LAUNCHES}, NLANES = ${lanes.length} };`,
    `static const unsigned char MEMORY[SLOT_BYTES] = {${bytesOf(mem)}};`,
    `static const unsigned char OPS[${n * 32}] = {${bytesOf(opsBuf)}};`,
    laneTable('LANES', checks, fmt, w),
    '',
  ].join('\n');
  const r = report.results.find((x) => x.id === id);
  const rule = CONTENTION_RULES.atomic;
  const top = [...recorded.outcomes].sort((a, b) => b.count - a.count).slice(0, 8);
  const tc = report.toolchain?.ptxas;
  const readme = [
    `# Reproducer: ${id}`,
    '',
    `Written by \`npm run conformance -- repro\` from a \`contend\` report${report.startedAt ? ` of ${report.startedAt}` : ''}.`,
    '',
    '## What runs',
    '',
    `\`${e.id}\` (\`${kernel}\` in kernel.ptx): ${n} participants on each address, ${layout} layout${layout === 'cluster' ? ` (clusters of ${n} CTAs; each address in the shared memory of the cluster's first CTA, reached through mapa)` : ''}, ${recorded.reps} addresses a launch, operand set '${g.set.name}'; grid ${shape.grid} x block ${shape.block}${shape.cluster > 1 ? ` x cluster ${shape.cluster}` : ''}; launched ${RUN_LAUNCHES} times, as the run did (\`./repro N\` launches N times).`,
    '',
    `Memory before, each address: ${memory.map((x) => hex(x, w)).join(', ')}; the participants' operands b: ${ops.map((o) => o.b.map((x) => hex(x, w)).join(' ')).join('; ')}.`,
    '',
    '## What the PTX ISA says',
    '',
    `${rule.text}: ${formatCitation(rule.cite)}. Every participant's scope includes the others here, so the final memory must be what some order of the ${n} operations gives:`,
    '',
    ...checks.map((l, j) => `- lane ${j} (element ${l.element}${fmt.lanes > 1 ? `, lane ${l.lane}` : ''}): ${expectedText(l.values, l.anyNaN, laneBits)}`),
    '',
    '## What the recorded run saw',
    '',
    `${recordedText} held a final value no order gives (verdict ${recorded.verdict}). Most frequent outcomes (count: final memory, verdict):`,
    '',
    ...top.map((o) => `- ${o.count}: ${o.memory.join(', ')} (${o.verdict}${outside(o.memory) ? ', no order gives it' : ''})`),
    '',
    ...(r?.reason ? ['The harness said:', '', `> ${r.reason}`, ''] : []),
    ...sassLines(r?.sass),
    `GPU of the recorded run: ${recordedGpu(report)}. Toolchain: ${tc ? `${tc.versionLine} (PTX ISA up to ${tc.maxPtx})` : 'ptxas not recorded'}; module PTX ISA ${report.modulePtx}, target ${arch}.`,
    '',
    '## Build and run',
    '',
    '```sh',
    'sh build.sh     # nvcc only: kernel.cubin and ./repro',
    'PTXAS=/path/to/ptxas sh build.sh   # the kernel by another ptxas (kernel.ptx declares the lowest PTX ISA it needs)',
    `./repro         # ${REPRO_EXITS}; ./repro 100 launches 100 times`,
    '```',
    '',
    "The program checks the final memory of every address, lane by lane; it does not check the values the operations returned (the report has the harness's judgement of those).",
    '',
  ].join('\n');
  return {
    files: {
      'kernel.ptx': contendModule(arch, lowestPtx(findTarget(arch)!, g.gv.entry), [{ gv: g.gv }]),
      'params.h': params,
      ...cppFiles('host-contention.cpp'),
      'build.sh': buildScript(arch),
      'README.md': readme,
    },
    recordedBad,
    recordedTotal: total,
    summary: `the recorded run: ${recordedBad} of ${total} addresses held a final value no order of the operations gives`,
  };
}
