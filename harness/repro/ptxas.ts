/**
 * A standalone reproducer of a toolchain finding: one catalog entry where ptxas's answer differs from
 * what the PTX ISA text says (a compile-mismatch, a crash), as the module the ptxas backend checked
 * it in (one line of the instruction), and a script that runs ptxas on it and says whether the answer
 * still differs: REPRODUCED (exit 1) or NOT REPRODUCED (exit 0). It needs ptxas alone.
 */
import { findTarget } from '../arch/targets.js';
import { formatCitation } from '../catalog/cite.js';
import { enumerateMatching } from '../catalog/enumerate.js';
import { UsageError } from '../util/errors.js';
import { buildModule } from '../backends/ptxas/module.js';
import type { RunReport } from '../report/json.js';
import type { ReproFiles } from './contention.js';

export function ptxasRepro(report: RunReport, id: string): ReproFiles {
  const r = report.results.find((x) => x.id === id);
  if (!r) throw new UsageError(`repro --case ${id}: the report has no result with this id`);
  if (!r.ptxas)
    throw new UsageError(`repro --case ${id}: ptxas did not check it in this run (verdict ${r.verdict}); a toolchain reproducer needs ptxas's answer`);
  const target = findTarget(report.arch);
  if (!target) throw new UsageError(`repro --case ${id}: the report's arch ${report.arch} is not a target this harness knows`);
  const modulePtx = r.modulePtx !== '-' ? r.modulePtx : (report.modulePtx ?? '9.0');
  const entry = enumerateMatching({ target, ptx: modulePtx, kinds: [r.kind as 'variant'], keep: (x) => x === id }).find((e) => e.id === id);
  if (!entry) throw new UsageError(`repro --case ${id}: the catalog of this harness no longer has this ${r.kind} for ${report.arch}`);
  // the module as the run checked it, and at the lowest PTX ISA the entry and the target need (an
  // older ptxas checks what it can; a newer .version may change ptxas's answer)
  const module = buildModule([entry], report.arch, modulePtx);
  const lowest = buildModule([entry], report.arch, entry.minPtx);
  const expect = entry.expect;
  const answer = r.ptxas.crashed ? `crashed (${r.ptxas.crashed})` : r.ptxas.accepted ? 'accepted' : 'rejected';
  // where the text says neither (a spelling entry: qualifiers in another order, or written twice),
  // the finding is what ptxas answered, and check.sh asks whether it still answers so
  const silent = expect === 'either' && !r.ptxas.crashed;
  const recordedAnswer = r.ptxas.accepted ? 'accept' : 'reject';
  const text = module.text;
  const line = text.split('\n').find((l) => l.trim().startsWith(entry.ptx.split(/\s/)[0]!)) ?? '';
  const script = [
    '#!/bin/sh',
    `# Runs ptxas on entry.ptx (${id} on ${report.arch}) and says whether its answer ${silent ? 'is still the recorded one, where the text is silent:' : 'still differs from the'}`,
    ...(silent
      ? [
          `# the text does not say (expect either); the recorded run's ptxas ${answer}.`,
          `# sh check.sh [FILE]: FILE entry.ptx (default) or entry-min.ptx. REPRODUCED (exit 1): ptxas still ${recordedAnswer}s it; NOT REPRODUCED (exit 0): it answers otherwise; CANNOT CHECK (exit 2): no ptxas, or one without the target or PTX ISA version. PTXAS=path picks another ptxas.`,
        ]
      : [
          `# PTX ISA text's: the text expects ${expect}; the recorded run's ptxas ${answer}.`,
          '# sh check.sh [FILE]: FILE entry.ptx (default) or entry-min.ptx. REPRODUCED (exit 1): it still differs; NOT REPRODUCED (exit 0); CANNOT CHECK (exit 2): no ptxas, or one without the target or PTX ISA version. PTXAS=path picks another ptxas.',
        ]),
    'set -u',
    'cd "$(dirname "$0")"',
    'P=${PTXAS:-ptxas}',
    'command -v "$P" >/dev/null 2>&1 || { echo "no ptxas (set PTXAS=/path/to/ptxas)"; exit 2; }',
    '"$P" --version | tail -1',
    'F=${1:-entry.ptx}',
    'V=$(sed -n "s/^\\.version //p" "$F")',
    `"$P" -arch=${report.arch} "$F" -o /dev/null >ptxas.log 2>&1`,
    'rc=$?',
    'sed "s/^/  ptxas: /" ptxas.log',
    '# a toolchain that does not know the target or the PTX ISA version cannot answer the question',
    `if grep -qE "is not defined for option 'gpu-name'|Unsupported \\.version|does not support \\.target|not supported on \\.target" ptxas.log; then`,
    `  echo "CANNOT CHECK: this ptxas does not know .target ${report.arch} or PTX ISA $V ($F)"; exit 2`,
    'fi',
    '# killed by a signal: 128 + its number (139: SIGSEGV); ptxas itself exits 255 on an error',
    'if [ $rc -gt 128 ] && [ $rc -lt 255 ]; then got=crashed; elif [ $rc -eq 0 ]; then got=accept; else got=reject; fi',
    ...(silent
      ? [
          // the text says neither (expect either): the finding is the answer ptxas gave, so the
          // question is whether ptxas still gives it
          `want=${recordedAnswer}`,
          'if [ "$got" = "$want" ]; then',
          `  echo "REPRODUCED: ptxas answers $got (exit $rc) at PTX ISA $V, as the recorded run did (at ${modulePtx}: ${answer}); the PTX ISA text does not say (either)"; exit 1`,
          'fi',
          `echo "NOT REPRODUCED: ptxas answers $got (exit $rc) at PTX ISA $V, where the recorded run's ptxas ${answer} (the PTX ISA text does not say: either)"`,
          'exit 0',
          '',
        ]
      : [
          `want=${expect}`,
          '# a crash is no answer the text allows, whatever it expects',
          'if [ "$got" != crashed ] && { [ "$want" = either ] || [ "$got" = "$want" ]; }; then',
          `  echo "NOT REPRODUCED: ptxas answers $got (exit $rc) at PTX ISA $V, as the PTX ISA text allows (${expect})"; exit 0`,
          'fi',
          `echo "REPRODUCED: ptxas answers $got (exit $rc) at PTX ISA $V, where the PTX ISA text says ${expect} (the recorded run, at ${modulePtx}: ${answer})"`,
          'exit 1',
          '',
        ]),
  ].join('\n');
  const detail = (r.catalog.detail ?? []).map((d) => `- ${d.rule}: ${d.text}${d.cite ? ` (${formatCitation(d.cite)})` : ''}`);
  const tc = report.toolchain?.ptxas;
  const readme = [
    `# Reproducer: ${id} (ptxas, ${report.arch})`,
    '',
    `Written by \`npm run conformance -- repro\` from a run${report.startedAt ? ` of ${report.startedAt}` : ''}.`,
    '',
    `The line, in a module for \`.target ${report.arch}\` as the ptxas backend writes it: entry.ptx at PTX ISA ${modulePtx}, as the run checked it, and entry-min.ptx at ${entry.minPtx}, the lowest the line and the target need:`,
    '',
    '```',
    line.trim(),
    '```',
    '',
    `The PTX ISA text: expect **${expect}** (${r.catalog.reason}).${silent ? ` The text does not decide it, so the finding is ptxas's answer: \`check.sh\` prints REPRODUCED while ptxas still ${recordedAnswer}s the line, NOT REPRODUCED when it answers otherwise.` : ''}`,
    ...(detail.length ? ['', ...detail] : []),
    '',
    `The recorded run: ptxas ${answer}${r.ptxas.messages.length ? `: ${r.ptxas.messages.join(' | ')}` : ''} (verdict ${r.verdict}${r.expectation ? `, known deviation '${r.expectation}'` : ''}).`,
    '',
    `Toolchain of the recorded run: ${tc ? `${tc.versionLine} (PTX ISA up to ${tc.maxPtx})` : 'not recorded'}.`,
    '',
    '## Run',
    '',
    '```sh',
    'sh check.sh                       # REPRODUCED (exit 1), NOT REPRODUCED (exit 0), CANNOT CHECK (exit 2: no ptxas, or one that lacks the target or PTX ISA version)',
    'sh check.sh entry-min.ptx         # the same at the lowest PTX ISA version',
    'PTXAS=/usr/lib/nvidia-cuda-toolkit/bin/ptxas sh check.sh   # another toolchain',
    '```',
    '',
  ].join('\n');
  return {
    files: { 'entry.ptx': text, 'entry-min.ptx': lowest.text, 'check.sh': script, 'README.md': readme },
    recordedBad: 1,
    recordedTotal: 1,
    summary: `the recorded run: ptxas ${answer} where the text says ${expect}${silent ? ' (the text does not decide it: check.sh asks whether ptxas still answers so)' : ''}`,
  };
}
