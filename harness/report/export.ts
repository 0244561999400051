/**
 * `export REPORT --format jsonl|testfloat --out FILE`: the cases a hardware run judged, as golden
 * vectors for simulators and emulators to check themselves against (GPGPU-Sim, ZLUDA, Triton's
 * interpreter, other PTX emulators).
 *
 * - jsonl: a first line of provenance (the report it came from and its sha256, device, driver,
 *   ptxas, arch, PTX ISA of the modules, command, when, how many cases the run judged and how many
 *   it kept), then one line per case: id, variant (the PTX instruction), family, inputs and observed
 *   bits (hex, per element, as the report has them; variant is the catalog variant, instruction its
 *   PTX opcode with qualifiers), the SASS its kernel became, the verdict, and
 *   for a result that is not a pass what the reference allows, the explanation and the expectation.
 * - testfloat: the float add/min/max cases lane by lane in Berkeley TestFloat's line format
 *   (`a b result flags`, hex, one function per block), each block after `#` comment lines naming the
 *   TestFloat-style function (f32_add, f16_min, ...), the variant, its SASS and what TestFloat cannot
 *   say (flushing, rounding); flags are not observable through atomics and are written 00. Split a
 *   block out for testfloat_ver with `--filter` or by its `#` lines.
 *
 * Only a report with observed bits (the gpu backend) exports: a reference or ptxas report has none.
 * A run keeps every result that is not a plain pass and a sample of the passes (the rest are
 * counted); the provenance line says how many of the judged cases the file holds.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { UsageError } from '../util/errors.js';
import { type ElementFormat, elementFormat, splitLanes } from '../numerics/formats.js';
import { compileFilter } from '../util/filter.js';
import { opAndType } from '../catalog/parse.js';
import type { RunReport } from './json.js';
import type { EntryResult } from './types.js';
import { hexDigits as hex } from '../numerics/hex.js';

export const GOLDEN_SCHEMA = 'ptx-reduction-conformance/golden-vectors';
export const EXPORT_FORMATS = ['jsonl', 'testfloat'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface Provenance {
  readonly schema: typeof GOLDEN_SCHEMA;
  readonly version: 1;
  readonly source: { readonly file: string; readonly sha256: string };
  readonly run: { readonly startedAt: string; readonly finishedAt: string; readonly command: readonly string[]; readonly partial: boolean };
  readonly device: unknown;
  readonly driverVersion: number | null;
  readonly ptxas: string | null;
  readonly arch: string;
  readonly modulePtx: string;
  /** The PTX ISA edition the verdicts are against (reports before editions: 9.1). */
  readonly specEdition: string;
  readonly host: RunReport['machine'];
  /** Cases the run judged (all), and those in this file (the report keeps every non-pass and a sample of passes). */
  readonly casesJudged: number | null;
  readonly casesExported: number;
  readonly filter: string | null;
  readonly note: string;
}

/** The catalog variant a case belongs to (its id before '/': the instruction and its destination form, e.g. atom.and.b32(_)). */
const variantOf = (r: EntryResult) => (r.id.includes('/') ? r.id.slice(0, r.id.indexOf('/')) : r.ptx);

/** The cases of a hardware report, with observed bits (a UsageError for a report that has none). */
export function hardwareCases(report: RunReport, file: string, filter?: string): EntryResult[] {
  const keep = compileFilter(filter);
  const all = report.results.filter((r) => r.kind === 'case');
  const observed = all.filter((r) => r.case?.observed !== undefined);
  if (!observed.length) {
    throw new UsageError(
      `${file}: no observed bits to export (backend '${report.backend.name}'${all.length ? `, ${all.length} cases judged on the model` : ''}): golden vectors come from a run on hardware, npm run conformance -- --backend gpu`,
    );
  }
  return observed.filter((r) => keep(variantOf(r)) || keep(r.id));
}

export function provenance(report: RunReport, file: string, cases: number, filter?: string): Provenance {
  return {
    schema: GOLDEN_SCHEMA,
    version: 1,
    source: { file, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') },
    run: { startedAt: report.startedAt, finishedAt: report.finishedAt, command: report.command, partial: report.partial },
    device: report.toolchain.gpu?.device ?? null,
    driverVersion: report.toolchain.gpu?.driverVersion ?? null,
    ptxas: report.toolchain.ptxas?.versionLine ?? null,
    arch: report.arch,
    modulePtx: report.modulePtx,
    specEdition: report.specEdition ?? '9.1',
    host: report.machine,
    casesJudged: report.stats.cases ?? null,
    casesExported: cases,
    filter: filter ?? null,
    note:
      'observed bits are what the device wrote (memory) and returned (atom d), hex per element as the PTX operand holds it (packed types: lane 0 in the low bits); ' +
      'the run keeps every case that is not a plain pass and the first passes, the other passes are counted only (casesJudged); verdicts are against the spec catalog and reference model of this harness under the PTX ISA edition specEdition (render --spec-edition judges a report against another)',
  };
}

/** One golden line per case. */
export function goldenLine(r: EntryResult): Record<string, unknown> {
  const c = r.case!;
  return {
    id: r.id,
    variant: variantOf(r),
    instruction: r.ptx,
    family: r.family,
    input: c.input,
    observed: c.observed,
    sass: r.sass ?? null,
    ...(r.toolchain ? { toolchain: r.toolchain } : {}),
    verdict: r.verdict,
    ...(r.verdict !== 'pass' && Object.keys(c.allowed).length ? { allowed: c.allowed } : {}),
    ...(r.explanation ? { explanation: r.explanation.ids } : {}),
    ...(r.expectation ? { expectation: r.expectation } : {}),
    ...(c.nan ? { nan: c.nan } : {}),
  };
}

const FLOAT_OPS = new Set(['add', 'min', 'max']);

/** TestFloat-style function name of a variant (f32_add), or undefined when it is no float add/min/max. */
export function testfloatFunction(ptx: string): { fn: string; fmt: ElementFormat } | undefined {
  const { op, type } = opAndType(ptx);
  if (!FLOAT_OPS.has(op)) return undefined;
  let fmt: ElementFormat;
  try {
    fmt = elementFormat(type);
  } catch {
    return undefined;
  }
  if (fmt.lane.kind !== 'float') return undefined;
  return { fn: `${fmt.lane.name}_${op}`, fmt };
}

/** The testfloat text: provenance as comments, then a block per variant. */
export function testfloatText(cases: readonly EntryResult[], prov: Provenance): string {
  const out: string[] = [
    `# ${GOLDEN_SCHEMA} v1, TestFloat line format: a b result flags (hex); flags are not observable through atomics: 00`,
    `# from ${prov.source.file} (sha256 ${prov.source.sha256})`,
    `# device ${JSON.stringify(prov.device)}, driver ${prov.driverVersion}, ${prov.ptxas}, ${prov.arch}, PTX ISA ${prov.modulePtx}, run ${prov.run.startedAt}, verdicts against the PTX ISA ${prov.specEdition} text`,
    '# a = memory before, b = the operand (b, or the bulk source), result = memory after, per lane (packed types lane by lane, lane 0 first)',
  ];
  const byVariant = new Map<string, EntryResult[]>();
  for (const r of cases) {
    const l = byVariant.get(variantOf(r));
    if (l) l.push(r);
    else byVariant.set(variantOf(r), [r]);
  }
  let lines = 0;
  for (const [variant, rs] of byVariant) {
    const ptx = rs[0]!.ptx;
    const f = testfloatFunction(ptx);
    if (!f) continue;
    const bits = f.fmt.lane.bits;
    const body: string[] = [];
    for (const r of rs) {
      const c = r.case!;
      const mem = c.input.memory as string[] | undefined;
      const b = (c.input.b ?? c.input.source) as string[] | undefined;
      const res = (c.observed as { memory?: string[] }).memory;
      if (!mem || !b || !res) continue;
      for (let i = 0; i < mem.length; i++) {
        const la = splitLanes(f.fmt, BigInt(mem[i]!));
        const lb = splitLanes(f.fmt, BigInt(b[i]!));
        const lr = splitLanes(f.fmt, BigInt(res[i]!));
        for (let l = 0; l < la.length; l++) body.push(`${hex(bits, la[l]!)} ${hex(bits, lb[l]!)} ${hex(bits, lr[l]!)} 00`);
      }
    }
    if (!body.length) continue;
    const space = /\.shared::cluster\b/.test(ptx)
      ? 'shared::cluster'
      : /\.shared\b/.test(ptx)
        ? 'shared'
        : /\.global\b/.test(ptx) || ptx.startsWith('cp.')
          ? 'global'
          : 'generic (run in global and shared)';
    out.push(
      `# function ${f.fn} (${f.fn.endsWith('_add') ? 'round to nearest even' : 'no rounding'}), variant ${variant}, space ${space}, SASS ${rs[0]!.sass ?? '-'}${rs[0]!.toolchain ? ` (${rs[0]!.toolchain})` : ''}, ${body.length} lines; subnormals as the hardware did (see the golden jsonl's verdicts; TestFloat has no flush-to-zero mode)`,
    );
    out.push(...body);
    lines += body.length;
  }
  out.push(`# ${lines} lines`);
  return `${out.join('\n')}\n`;
}

/** Writes the export; FILE ending in .gz is compressed. Returns cases and lines written. */
export function writeExport(report: RunReport, file: string, format: ExportFormat, out: string, filter?: string): { cases: number; lines: number } {
  const cases = hardwareCases(report, file, filter);
  const prov = provenance(report, file, cases.length, filter);
  let text: string;
  if (format === 'jsonl') text = `${[JSON.stringify(prov), ...cases.map((r) => JSON.stringify(goldenLine(r)))].join('\n')}\n`;
  else text = testfloatText(cases, prov);
  const lines = text.split('\n').filter((l) => l && !l.startsWith('#')).length - (format === 'jsonl' ? 1 : 0);
  writeFileSync(out, out.endsWith('.gz') ? gzipSync(text, { level: 9 }) : text);
  return { cases: cases.length, lines };
}
