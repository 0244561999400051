/**
 * A standalone reproducer of a toolchain finding: one catalog entry where ptxas's answer differs from
 * what the PTX ISA text says (a compile-mismatch, a crash), as the module the ptxas backend checked
 * it in (one line of the instruction), and a script that runs ptxas on it and says whether the answer
 * still differs: REPRODUCED (exit 1) or NOT REPRODUCED (exit 0). It needs ptxas alone.
 */
import { findTarget } from '../arch/targets.js';
import { formatCitation } from '../catalog/cite.js';
import { enumerateMatching } from '../catalog/enumerate.js';
import { UsageError } from '../cli/errors.js';
import { buildModule } from '../backends/ptxas/module.js';
import type { RunReport } from '../report/json.js';
import type { ReproFiles } from './contention.js';

export function ptxasRepro(report: RunReport, id: string): ReproFiles {
  const r = report.results.find((x) => x.id === id);
  if (!r) throw new UsageError(`repro --case ${id}: the report has no result with this id`);
  if (!r.ptxas) throw new UsageError(`repro --case ${id}: ptxas did not check it in this run (verdict ${r.verdict}); a toolchain reproducer needs ptxas's answer`);
  const target = findTarget(report.arch);
  if (!target) throw new UsageError(`repro --case ${id}: the report's arch ${report.arch} is not a target this harness knows`);
  const modulePtx = r.modulePtx !== '-' ? r.modulePtx : (report.modulePtx ?? '9.0');
  const entry = enumerateMatching({ target, ptx: modulePtx, kinds: [r.kind as 'variant'], keep: (x) => x === id }).find((e) => e.id === id);
  if (!entry) throw new UsageError(`repro --case ${id}: the catalog of this harness no longer has this ${r.kind} for ${report.arch}`);
  const module = buildModule([entry], report.arch, modulePtx);
  const expect = entry.expect;
  const answer = r.ptxas.crashed ? `crashed (${r.ptxas.crashed})` : r.ptxas.accepted ? 'accepted' : 'rejected';
  const text = module.text;
  const line = text.split('\n').find((l) => l.trim().startsWith(entry.ptx.split(/\s/)[0]!)) ?? '';
  const script = [
    '#!/bin/sh',
    `# Runs ptxas on entry.ptx (${id} on ${report.arch}) and says whether its answer still differs from the`,
    `# PTX ISA text's: the text expects ${expect}; the recorded run's ptxas ${answer}.`,
    '# REPRODUCED (exit 1): it still differs; NOT REPRODUCED (exit 0); 2: no ptxas. PTXAS=path picks another ptxas.',
    'set -u',
    'cd "$(dirname "$0")"',
    'P=${PTXAS:-ptxas}',
    'command -v "$P" >/dev/null 2>&1 || { echo "no ptxas (set PTXAS=/path/to/ptxas)"; exit 2; }',
    '"$P" --version | tail -1',
    `"$P" -arch=${report.arch} entry.ptx -o /dev/null >ptxas.log 2>&1`,
    'rc=$?',
    'sed "s/^/  ptxas: /" ptxas.log',
    '# killed by a signal: 128 + its number (139: SIGSEGV); ptxas itself exits 255 on an error',
    'if [ $rc -gt 128 ] && [ $rc -lt 255 ]; then got=crashed; elif [ $rc -eq 0 ]; then got=accept; else got=reject; fi',
    `want=${expect}`,
    '# a crash is no answer the text allows, whatever it expects',
    'if [ "$got" != crashed ] && { [ "$want" = either ] || [ "$got" = "$want" ]; }; then',
    `  echo "NOT REPRODUCED: ptxas answers $got (exit $rc), as the PTX ISA text allows (${expect})"; exit 0`,
    'fi',
    `echo "REPRODUCED: ptxas answers $got (exit $rc), where the PTX ISA text says ${expect} (the recorded run: ${answer})"`,
    'exit 1',
    '',
  ].join('\n');
  const detail = (r.catalog.detail ?? []).map((d) => `- ${d.rule}: ${d.text}${d.cite ? ` (${formatCitation(d.cite)})` : ''}`);
  const tc = report.toolchain?.ptxas;
  const readme = [
    `# Reproducer: ${id} (ptxas, ${report.arch})`,
    '',
    `Written by \`npm run conformance -- repro\` from a run${report.startedAt ? ` of ${report.startedAt}` : ''}.`,
    '',
    `The line, in a module of PTX ISA ${modulePtx} for \`.target ${report.arch}\` (entry.ptx, as the ptxas backend wrote it):`,
    '',
    '```',
    line.trim(),
    '```',
    '',
    `The PTX ISA text: expect **${expect}** (${r.catalog.reason}).`,
    ...(detail.length ? ['', ...detail] : []),
    '',
    `The recorded run: ptxas ${answer}${r.ptxas.messages.length ? `: ${r.ptxas.messages.join(' | ')}` : ''} (verdict ${r.verdict}${r.expectation ? `, known deviation '${r.expectation}'` : ''}).`,
    '',
    `Toolchain of the recorded run: ${tc ? `${tc.versionLine} (PTX ISA up to ${tc.maxPtx})` : 'not recorded'}.`,
    '',
    '## Run',
    '',
    '```sh',
    'sh check.sh                       # REPRODUCED (exit 1) or NOT REPRODUCED (exit 0)',
    'PTXAS=/usr/lib/nvidia-cuda-toolkit/bin/ptxas sh check.sh   # another toolchain',
    '```',
    '',
  ].join('\n');
  return { files: { 'entry.ptx': text, 'check.sh': script, 'README.md': readme }, recordedBad: 1, recordedTotal: 1, summary: `the recorded run: ptxas ${answer} where the text says ${expect}` };
}
