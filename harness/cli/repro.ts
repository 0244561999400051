/**
 * `npm run conformance -- repro REPORT (--finding KEY | --case ID) --out DIR`: a standalone folder
 * that reproduces one finding without this harness (harness/repro/): a contention group of a
 * `contend` report, a single-thread case of a gpu run (in clusters and with a tensor map too), a
 * cell of a sweep, or a catalog entry of a ptxas run; multicast launches are refused with that reason.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadReport } from '../report/load.js';
import { type Edition, parseEdition } from '../catalog/editions.js';
import { UsageError } from '../util/errors.js';
import { SWEEP_PAIRS_DEFAULT, isSweepId } from '../repro/sweep.js';
import type { Io } from './io.js';

export const REPRO_USAGE = `npm run conformance -- repro REPORT.json (--finding KEY | --case ID) --out DIR [--spec-edition E] [--pairs N]
  a standalone folder reproducing one finding of a report without this harness: the kernel as PTX,
  a C++ host program over the CUDA driver API, build.sh (nvcc only) and a README (what ran, the
  sentence it contradicts, the bits observed and allowed, SASS, GPU and toolchain); built and run,
  it prints REPRODUCED (exit 1) or NOT REPRODUCED (exit 0). A contention group of a contend report;
  a single-thread case with observed bits of a gpu run (launched in clusters or through a tensor map
  where its kernel needs it; multimem cases, which need a multicast object, are refused); a cell of
  a sweep report (its pairs through the sweep kernel, every result against the model's bits); or a
  catalog entry of a ptxas run (entry.ptx and check.sh: ptxas alone)
  --finding KEY     the finding's first contention group, case with observed bits or sweep (F3)
  --case ID         a contention group (atom.shared::cluster.or.b64/contend-cluster-bits), a case,
                    a ptxas entry, or a sweep cell: RESULT:cell=0xHHHH (atom.global.add.noftz.f16/sweep:cell=0x7c3c;
                    a sweep result alone: its first mismatching cell, else its first with NaN results)
  --out DIR         where the folder goes (made; an existing folder must be empty)
  --spec-edition E  a case or sweep cell: the PTX ISA edition whose text it is checked against
                    (default the report's; 9.1 for reports written before editions)
  --pairs N         a sweep cell: how many of its 65,536 pairs the folder holds (a power of two,
                    2048-65536; default 4096: the expected bits are data in the folder)`;

export async function reproCommand(argv: readonly string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        finding: { type: 'string' },
        case: { type: 'string' },
        out: { type: 'string' },
        'spec-edition': { type: 'string' },
        pairs: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(`repro: ${e instanceof Error ? e.message : String(e)}\n\n${REPRO_USAGE}`);
  }
  const v = parsed.values;
  if (v.help) {
    io.out(REPRO_USAGE);
    return 0;
  }
  const [file, ...extra] = parsed.positionals;
  if (!file || extra.length)
    throw new UsageError(
      `repro takes one report (the report.json or .json.gz of a contend run)${extra.length ? `, not ${parsed.positionals.length}` : ''}\n\n${REPRO_USAGE}`,
    );
  if ((v.finding === undefined) === (v.case === undefined))
    throw new UsageError('repro needs --finding KEY or --case ID (one of them): which finding to reproduce');
  if (!v.out) throw new UsageError('repro needs --out DIR: the folder the reproducer is written to');
  if (existsSync(v.out) && readdirSync(v.out).length) throw new UsageError(`repro --out ${v.out}: the folder is not empty; name a new or empty folder`);
  const report = await loadReport(file);
  let id = v.case;
  if (v.finding !== undefined) {
    const f = report.findings?.find((x) => x.key === v.finding);
    if (!f)
      throw new UsageError(
        `repro --finding ${v.finding}: the report has no such finding (it has ${
          report.findings
            ?.map((x) => x.key)
            .slice(0, 12)
            .join(', ') || 'none'
        }${(report.findings?.length ?? 0) > 12 ? ', ...' : ''})`,
      );
    const ids = [...f.examples, ...report.results.filter((r) => r.finding === f.key).map((r) => r.id)];
    id =
      ids.find((x) => x.includes('/contend-')) ??
      ids.find((x) => {
        const y = report.results.find((r) => r.id === x);
        return y?.case?.observed !== undefined || (y?.kind !== 'case' && y?.ptxas !== undefined);
      }) ??
      ids.find((x) => isSweepId(report, x));
    if (!id)
      throw new UsageError(
        `repro --finding ${v.finding}: none of its results is a contention group or a case with observed bits (e.g. ${f.examples[0] ?? '-'}); repro reproduces what hardware did`,
      );
  }
  const edition = v['spec-edition'] !== undefined ? parseEdition(v['spec-edition']) : ((report as { specEdition?: Edition }).specEdition ?? '9.1');
  const res = report.results.find((x) => x.id === id);
  if (v.pairs !== undefined && !isSweepId(report, id!)) throw new UsageError(`repro --pairs: only for a sweep cell; '${id}' is not one`);
  const pairs = v.pairs === undefined ? SWEEP_PAIRS_DEFAULT : Number(v.pairs);
  // a sweep result itself has no observed bits: its cells are what reproduces
  const kind = id!.includes('/contend-')
    ? 'contention'
    : res && res.kind !== 'case' && res.ptxas
      ? 'ptxas'
      : (isSweepId(report, id!) || (!!report.sweeps?.length && /\/sweep/.test(id!) && !res)) && !res?.case?.observed
        ? 'sweep'
        : 'case';
  if (kind === 'case' && id!.includes(':cell='))
    throw new UsageError(
      `repro --case ${id}: not a sweep cell of this report (it has no sweeps, or no sweep result '${id!.slice(0, id!.indexOf(':cell='))}'); a sweep cell is RESULT:cell=0xHHHH of a sweep report's result`,
    );
  const r =
    kind === 'contention'
      ? (await import('../repro/contention.js')).contentionRepro(report, id!)
      : kind === 'ptxas'
        ? (await import('../repro/ptxas.js')).ptxasRepro(report, id!)
        : kind === 'sweep'
          ? (await import('../repro/sweep.js')).sweepCellRepro(report, id!, edition, pairs)
          : (await import('../repro/case.js')).caseRepro(report, id!, edition);
  // a sweep result names its cell in full once chosen
  if ('id' in r && typeof r.id === 'string') id = r.id;
  mkdirSync(v.out, { recursive: true });
  // how to write the folder again (tests/repro compares the committed folders with it)
  const reportRel = relative(process.cwd(), resolve(file));
  const again = `npm run conformance -- repro ${reportRel.startsWith('..') ? resolve(file) : reportRel} --case '${id}'${kind === 'case' || kind === 'sweep' ? ` --spec-edition ${edition}` : ''}${kind === 'sweep' && pairs !== SWEEP_PAIRS_DEFAULT ? ` --pairs ${pairs}` : ''} --out DIR`;
  const files = { ...r.files, 'README.md': `${r.files['README.md']!.trimEnd()}\n\nWritten by: \`${again}\`\n` };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(v.out, name), text, r.binary?.includes(name) ? 'latin1' : 'utf8');
  for (const name of Object.keys(files)) if (name.endsWith('.sh')) chmodSync(join(v.out, name), 0o755);
  const rel = relative(process.cwd(), resolve(v.out));
  const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : resolve(v.out);
  io.out(`repro: ${id} -> ${shown}/ (${Object.keys(r.files).join(', ')})`);
  io.out(r.summary);
  // what to run is what was written: check.sh (ptxas alone, no GPU) or build.sh and ./repro (a GPU host)
  if ('check.sh' in r.files) io.out(`check it with ptxas alone (no GPU needed; PTXAS=path picks another): sh ${shown}/check.sh`);
  else io.out(`build and run on a GPU host: sh ${shown}/build.sh && (cd ${shown} && ./repro)`);
  return 0;
}
