/**
 * A standalone reproducer of one cell of an exhaustive sweep (`npm run conformance -- sweep`): the
 * variant's sweep kernel (harness/sweep/kernel.ts, the text the sweep compiled), launched over the
 * cell's pairs (or a bounded sub-range of them) as the sweep launched it, and the bits the reference
 * model gives for every pair, computed here at write time and embedded in the folder as data
 * (expected.bin). The host program compares every result, and every returned old value, with them.
 *
 * A cell is 65,536 pairs (16-bit pairs: a's high byte x b's high byte; 32-bit: x's high 16 bits). A
 * folder holds at most --pairs of them (default 4,096: 8 KiB of expected 16-bit results); the README
 * says which sub-range and how many pairs of the cell it leaves out.
 */
import { UsageError } from '../util/errors.js';
import { formatCitation } from '../catalog/cite.js';
import { type Edition, withEdition } from '../catalog/editions.js';
import { gpuPlan } from '../backends/gpu/plan.js';
import { elementFormat, joinLanes } from '../numerics/formats.js';
import type { RunReport, SweepReport } from '../report/json.js';
import { CaseError, reference } from '../reference/model.js';
import { familyPlugin } from '../registry/index.js';
import { sweepKernelName, sweepModule } from '../sweep/kernel.js';
import { laneOpOf } from '../sweep/reference.js';
import { CELL_PAIRS, domainA, domainB, domainText, laneBits, sweepName, sweepPlan, sweepSpace, sweepTag } from '../sweep/space.js';
import { REPRO_EXITS, buildScript, cppFiles, hex, lowestPtx, recordedGpu } from './common.js';
import { findTarget } from '../arch/targets.js';
import type { ReproFiles } from './contention.js';

/** Pairs a folder holds by default, and at most (a whole cell). */
export const SWEEP_PAIRS_DEFAULT = 4096;
const MIN_PAIRS = 2048;

const CELL_RE = /^(.*\/sweep[^:]*)(:self-test)?(?::cell=(0x[0-9a-fA-F]{1,4}|\d+))?$/;

/** Whether an id names a sweep result or one of its cells (X/sweep..., X/sweep...:cell=0xHHHH). */
export function isSweepId(report: RunReport, id: string): boolean {
  const m = CELL_RE.exec(id);
  return !!m && !!report.sweeps?.length && (m[3] !== undefined || report.results.some((r) => r.id === `${m[1]}${m[2] ?? ''}`));
}

export function sweepCellRepro(report: RunReport, id: string, edition: Edition, pairs = SWEEP_PAIRS_DEFAULT): ReproFiles & { readonly id: string } {
  const m = CELL_RE.exec(id);
  if (!m || !report.sweeps?.length)
    throw new UsageError(
      `repro --case ${id}: not a sweep cell; name a cell of a sweep report's result as RESULT:cell=0xHHHH (e.g. atom.global.add.noftz.f16/sweep:cell=0x3c3c), from the report of 'sweep'`,
    );
  const sweepId = m[1]!;
  const selftestId = !!m[2];
  const resultId = `${sweepId}${m[2] ?? ''}`;
  const result = report.results.find((r) => r.id === resultId);
  if (!result)
    throw new UsageError(
      `repro --case ${id}: the report has no sweep result '${resultId}' (its sweep results: ${report.results
        .filter((r) => /\/sweep[^:]*(:self-test)?$/.test(r.id))
        .slice(0, 4)
        .map((r) => r.id)
        .join(', ')}${report.sweeps.length > 4 ? ', ...' : ''})`,
    );
  if (!Number.isInteger(pairs) || pairs < MIN_PAIRS || pairs > CELL_PAIRS || (pairs & (pairs - 1)) !== 0)
    throw new UsageError(`repro --pairs ${pairs}: a power of two from ${MIN_PAIRS} to ${CELL_PAIRS} (a whole cell)`);
  const variantId = sweepId.slice(0, sweepId.indexOf('/sweep'));
  const plan = gpuPlan(report.arch, report.modulePtx ?? '9.0', variantId);
  const sv = sweepPlan(plan, (x) => x === variantId).find((s) => `${s.gv.entry.id}/sweep${sweepTag(s)}` === sweepId);
  if (!sv)
    throw new UsageError(`repro --case ${id}: this harness's sweep plan for ${report.arch} (PTX ISA ${report.modulePtx}) no longer has the sweep '${sweepId}'`);
  const rec = report.sweeps.find((s) => s.variant === sweepName(sv) && !!s.selftest === selftestId) as SweepReport | undefined;
  if (!rec) throw new UsageError(`repro --case ${id}: the report has no sweep record of '${sweepName(sv)}'${selftestId ? ' (self-test)' : ''}`);
  const mism = new Map(rec.cells?.mismatch ?? []);
  const nans = new Map(rec.cells?.nan ?? []);
  let cell: number;
  if (m[3] !== undefined) {
    cell = Number(m[3]);
    if (!(cell >= 0 && cell < 65536)) throw new UsageError(`repro --case ${id}: a cell is 0x0000-0xffff`);
  } else cell = rec.cells?.mismatch[0]?.[0] ?? rec.cells?.nan[0]?.[0] ?? 0;
  const e = sv.gv.entry;
  const variant = { family: e.family, q: e.q };
  const space = sweepSpace(sv);
  const lb = laneBits(sv);
  const A = domainA(sv.domain);
  const Bf = domainB(sv.domain);
  const op = withEdition(edition, () => laneOpOf(variant, space, sv.swap ?? 0));
  const want = (p: number) => withEdition(edition, () => op(A(p), Bf(p)));
  const base = (cell << 16) >>> 0;
  // the sub-range: around the first mismatching pair the report kept whole in this cell, else the
  // first pair the model leaves as any NaN, else the cell's start
  const kept = report.results
    .filter((r) => r.id.startsWith(`${sweepId}:p=0x`))
    .map((r) => Number(r.id.slice(r.id.lastIndexOf('=') + 1)))
    .filter((p) => p >>> 16 === cell)
    .sort((x, y) => x - y);
  let from = 0;
  if (kept.length) from = kept[0]! & 0xffff;
  else if (nans.get(cell)) {
    for (let q = 0; q < CELL_PAIRS; q++)
      if (want((base | q) >>> 0) < 0) {
        from = q;
        break;
      }
  }
  from -= from % pairs;
  const first = (base + from) >>> 0;
  // expected.bin: the model's result of each pair (lb/8 bytes, little endian), then one bit a pair: any NaN allowed
  const bytes = lb / 8;
  const data = Buffer.alloc(pairs * bytes + pairs / 8);
  let anyNaN = 0;
  for (let q = 0; q < pairs; q++) {
    const r = want((first + q) >>> 0);
    if (r < 0) {
      anyNaN++;
      data[pairs * bytes + (q >> 3)]! |= 1 << (q & 7);
    } else if (bytes === 2) data.writeUInt16LE(r, q * 2);
    else data.writeUInt32LE(r >>> 0, q * 4);
  }
  const keptIn = kept.filter((p) => p >= first && p < first + pairs);
  const L = sv.lanes;
  const threads = pairs / L;
  const one32 = sv.domain.kind === 'one32';
  const mode = sv.mode | (one32 && sv.domain.kind === 'one32' && sv.domain.role === 'memory' ? 2 : 0);
  const val = one32 && sv.domain.kind === 'one32' ? sv.domain.value.bits >>> 0 : (sv.swap ?? 0);
  const selftest = rec.selftest ? 1 : 0;
  const cellMism = mism.get(cell) ?? 0;
  const cellNaN = nans.get(cell) ?? 0;
  const whole = pairs === CELL_PAIRS;
  const range = `pairs 0x${first.toString(16).padStart(8, '0')}-0x${(first + pairs - 1).toString(16).padStart(8, '0')}`;
  const recordedText = `the cell's ${CELL_PAIRS} pairs: ${cellMism} mismatching, ${cellNaN} NaN results where the model allows any NaN${whole ? '' : `; this folder holds ${pairs} of them (${range})${keptIn.length ? `, with ${keptIn.length} mismatching pair(s) the report kept whole` : ''}`}`;
  // the rule trail of the first thread's case (its L lanes), for the README
  const fmt = elementFormat(e.q.type ?? '');
  const per = fmt.lanes;
  const els = (f: (p: number) => number) =>
    Array.from({ length: L / per }, (_, k) =>
      joinLanes(
        fmt,
        Array.from({ length: per }, (_, j) => BigInt(f((first + k * per + j) >>> 0))),
      ),
    );
  const bName = familyPlugin(e.family).shape.inputs(e.q).includes('source') ? 'source' : 'b';
  let trail: string[] = [];
  try {
    const ref = withEdition(edition, () =>
      reference(variant, {
        memory: els(A),
        ...(bName === 'source' ? { source: els(Bf) } : { b: els(Bf) }),
        ...(sv.swap !== undefined ? { c: els(() => sv.swap!) } : {}),
        ...(sv.mode === 1 ? { space: 'shared' as const } : {}),
      }),
    );
    trail = ref.trail.map((t) => `- ${t.rule}: ${t.text}${t.cite ? ` (${formatCitation(t.cite)})` : ''}`);
  } catch (err) {
    if (!(err instanceof CaseError)) throw err;
  }
  const kernel = sweepKernelName(sv.gv);
  const arch = report.arch;
  const cellId = `${resultId}:cell=0x${cell.toString(16).padStart(4, '0')}`;
  const lf = fmt.lane.kind === 'float' ? fmt.lane : undefined;
  const params = [
    "// Written by `npm run conformance -- repro`: one cell (or a sub-range of it) of an exhaustive sweep, the launch and the model's results (expected.bin).",
    '#pragma once',
    '#include <cstdint>',
    `static const char* CELL_ID = "${cellId}";`,
    `static const char* INSTRUCTION = "${e.id}";`,
    `static const char* KERNEL = "${kernel}";`,
    `static const char* EDITION = "${edition}";`,
    `static const char* RECORDED = "${recordedText}";`,
    '#include "driver.h"',
    `// DOMAIN 0: every 16-bit a x every 16-bit b (p -> a = p>>24<<8 | p>>8&0xff, b = (p>>16&0xff)<<8 | p&0xff); 1: 32-bit x against VAL (MODE bit 1: VAL is the memory)`,
    `enum { DOMAIN = ${one32 ? 1 : 0}, LANE_BITS = ${lb}, EXP_BITS = ${lf?.kind === 'float' ? lf.expBits : 0}, FRAC_BITS = ${lf?.kind === 'float' ? lf.fracBits : 0}, LANES = ${L}, PAIRS = ${pairs}, THREADS = ${threads}, BLOCK_X = 256, GRID_X = ${threads / 256}, CLUSTER_X = ${sv.gv.shape.clustered ? 2 : 1}, MODE = ${mode}, SELFTEST = ${selftest}, RETURNS = ${sv.returns ? 1 : 0} };`,
    `static const uint32_t FIRST = 0x${first.toString(16)}u;  // the first pair's index`,
    `static const uint32_t VAL = 0x${val.toString(16)}u;  // cas's swap value (16-bit pairs) or the value x is swept against (32-bit)`,
    '',
  ].join('\n');
  const tc = report.toolchain?.ptxas;
  const groups = (rec.groups ?? []).slice(0, 6);
  const readme = [
    `# Reproducer: ${cellId}`,
    '',
    `Written by \`npm run conformance -- repro\` from a sweep report${report.startedAt ? ` of ${report.startedAt}` : ''}, the expected bits from the reference model under the PTX ISA ${edition} text.`,
    '',
    '## What runs',
    '',
    `The sweep kernel of \`${e.id}\` (\`${kernel}\` in kernel.ptx, the text the sweep compiled) over ${whole ? 'the whole cell' : `a bounded sub-range of the cell: ${pairs} of its ${CELL_PAIRS} pairs (the other ${CELL_PAIRS - pairs} are left out; \`repro --pairs ${CELL_PAIRS}\` writes the whole cell)`}: ${range} of the sweep ${sweepName(sv)} (${domainText(sv.domain)}), cell 0x${cell.toString(16).padStart(4, '0')}${one32 ? ` (x's high 16 bits)` : ` (a's high byte 0x${(cell >> 8).toString(16).padStart(2, '0')}, b's 0x${(cell & 0xff).toString(16).padStart(2, '0')})`}. ${L} pair(s) per thread, ${threads} threads: grid ${threads / 256} x block 256${sv.gv.shape.clustered ? ' in clusters of 2' : ''}, mode ${mode}${sv.mode === 1 ? ' (a generic address in shared memory)' : ''}${sv.swap !== undefined ? `, swap value 0x${sv.swap.toString(16).padStart(4, '0')}` : ''}, the kernel parameters as the sweep passes them.${selftest ? " **This is a cell of the sweep's self-test**: the kernel is launched with its self-test flag, which flips the lowest result bit wherever the operand is subnormal (a fault of known count, the proof that a sweep can fail), as the recorded run did; the expected bits are the model's, so it must print REPRODUCED." : ''}`,
    '',
    `expected.bin holds the reference model's result for each pair (${bytes} bytes each, little endian, in pair order), then one bit a pair set where the model allows any NaN (${anyNaN} of the ${pairs} pairs). \`./repro\` compares every result${sv.returns ? ' and every returned old value (it must be the memory before)' : ''} with it.`,
    '',
    '## What the PTX ISA says',
    '',
    `The rules the model applies (the trail of the first thread's case; every pair of the sweep goes through the same operation):`,
    '',
    ...(trail.length ? trail : ['- (the model gave no trail for this case)']),
    '',
    '## What the recorded run saw',
    '',
    `The sweep: ${rec.pairs} pairs, pass ${rec.pass}, observed ${rec.observed} (NaN where the model allows any NaN), mismatch ${rec.mismatch}${rec.returnedMismatch ? ` (returned value not the old one: ${rec.returnedMismatch})` : ''}, in ${rec.differingCells} differing cells; NaN results not canonical: ${rec.nonCanonicalNaN}.`,
    '',
    `This cell: ${recordedText}.`,
    ...(groups.length
      ? ['', "The sweep's mismatches by what went wrong (count: signature):", '', ...groups.map((g) => `- ${g.count}: ${g.signature} (e.g. ${g.example})`)]
      : []),
    ...(keptIn.length
      ? [
          '',
          'Mismatching cases of this sub-range the report kept whole (pair: memory, operand, observed, allowed):',
          '',
          ...keptIn.slice(0, 6).map((p) => {
            const r = report.results.find((x) => x.id === `${sweepId}:p=0x${p.toString(16).padStart(8, '0')}`);
            const w = want(p);
            return `- 0x${p.toString(16).padStart(8, '0')}: a ${hex(BigInt(A(p)), lb)}, b ${hex(BigInt(Bf(p)), lb)}, observed ${(r?.case?.observed as { memory?: string[] } | undefined)?.memory?.[0] ?? '?'} (first element), the model ${w < 0 ? 'any NaN' : hex(BigInt(w), lb)}`;
          }),
        ]
      : []),
    '',
    `GPU of the recorded run: ${recordedGpu(report)}. Toolchain: ${tc ? `${tc.versionLine} (PTX ISA up to ${tc.maxPtx})` : 'ptxas not recorded'}; module PTX ISA ${report.modulePtx}, target ${arch}.`,
    '',
    '## Build and run',
    '',
    '```sh',
    'sh build.sh     # nvcc only: kernel.cubin and ./repro',
    'PTXAS=/path/to/ptxas sh build.sh   # the kernel by another ptxas (kernel.ptx declares the lowest PTX ISA it needs)',
    `./repro         # ${REPRO_EXITS.replace('REPRODUCED (exit 1)', 'REPRODUCED (exit 1: some pair differs from the model)')}; ./repro 10 launches 10 times`,
    'cuobjdump -sass kernel.cubin | grep -E "ATOM|RED"     # the SASS of the instruction',
    '```',
    '',
  ].join('\n');
  return {
    id: cellId,
    files: {
      'kernel.ptx': sweepModule(arch, lowestPtx(findTarget(arch)!, sv.gv.entry), [sv]),
      'params.h': params,
      'expected.bin': data.toString('latin1'),
      ...cppFiles('host-sweep.cpp'),
      'build.sh': buildScript(arch),
      'README.md': readme,
    },
    binary: ['expected.bin'],
    recordedBad: cellMism,
    recordedTotal: CELL_PAIRS,
    summary: `the recorded run: ${recordedText}`,
  };
}
