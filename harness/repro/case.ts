/**
 * A standalone reproducer of one single-thread case of a gpu run (a mismatch, a known deviation, or
 * any case with observed bits): the variant's kernel as the gpu backend compiled it, the case's
 * inputs in slot 0, one thread, and what the PTX ISA text allows for it (the reference model under
 * the chosen edition), lane by lane, for the memory at [a] and the returned values.
 */
import { UsageError } from '../cli/errors.js';
import { formatCitation } from '../catalog/cite.js';
import { type Edition, withEdition } from '../catalog/editions.js';
import { SLOT } from '../backends/gpu/family.js';
import { gpuPlan, kernelsText } from '../backends/gpu/plan.js';
import { elementFormat, splitLanes } from '../numerics/formats.js';
import type { RunReport } from '../report/json.js';
import { CaseError, type ElementAllowed, type ReferenceCase, reference } from '../reference/model.js';
import { writeElements } from '../contention/run.js';
import { allows } from '../numerics/ops.js';
import { type LaneCheck, buildScript, bytesOf, cppFiles, expectedText, hex, laneTable } from './common.js';
import type { ReproFiles } from './contention.js';

const big = (xs: unknown): bigint[] | undefined => (Array.isArray(xs) ? xs.map((x) => BigInt(String(x))) : undefined);

/** Lane checks of a reference outcome's elements. */
function checksOf(allowed: readonly ElementAllowed[]): LaneCheck[] {
  return allowed.flatMap((el, element) => el.map((a, lane) => ({ element, lane, values: a.bits, anyNaN: a.anyNaN })));
}

export function caseRepro(report: RunReport, id: string, edition: Edition): ReproFiles {
  const r = report.results.find((x) => x.id === id);
  if (!r) throw new UsageError(`repro --case ${id}: the report has no result with this id; copy the id from the report or the console (e.g. a finding's example)`);
  const input = r.case?.input;
  const observed = r.case?.observed as Record<string, unknown> | undefined;
  if (!input || !observed) throw new UsageError(`repro --case ${id}: the result has no bits a GPU observed (${r.kind === 'case' ? 'a reference-model case' : `a ${r.kind}`}); repro reproduces what hardware did, from a report of a gpu run`);
  const variantId = id.slice(0, id.indexOf('/'));
  const plan = gpuPlan(report.arch, report.modulePtx ?? '9.0', variantId);
  const gv = plan.variants.find((v) => v.entry.id === variantId);
  if (!gv) throw new UsageError(`repro --case ${id}: the variant ${variantId} has no kernel in this harness's gpu plan for ${report.arch} (PTX ISA ${report.modulePtx})`);
  const k = gv.shape;
  if (k.clustered || k.tensorMap || gv.entry.family.startsWith('multimem')) throw new UsageError(`repro --case ${id}: ${variantId} needs ${k.tensorMap ? 'a tensor map' : k.clustered ? 'a launch in clusters' : 'a multicast object'}; the single-thread reproducer does not write that launch yet`);
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
    ...(r.sass ? [`- SASS: \`${r.sass}\``] : []),
    '',
    `Toolchain of the recorded run: ${tc ? `${tc.versionLine} (PTX ISA up to ${tc.maxPtx})` : 'not recorded'}; module PTX ISA ${report.modulePtx}, target ${arch}; ${report.backend?.reason ?? ''}`,
    '',
    '## Build and run',
    '',
    '```sh',
    'sh build.sh     # nvcc only: kernel.cubin and ./repro',
    './repro         # REPRODUCED (exit 1) or NOT REPRODUCED (exit 0); ./repro 100 runs it 100 times',
    '```',
    '',
  ].join('\n');
  return {
    files: { 'kernel.ptx': kernelsText(plan, [gv]), 'params.h': params, ...cppFiles('host-case.cpp'), 'build.sh': buildScript(arch), 'README.md': readme },
    recordedBad: badLanes.length ? 1 : 0,
    recordedTotal: 1,
    summary: `the recorded run: ${recorded}`,
  };
}
