/**
 * One result as the console shows it (`--case ID` replays one case and prints it): the instruction
 * and where the case came from, its inputs, the bits observed on hardware (or its vector file's
 * `expect:`) beside what the reference model allows, the verdict with its reason and explanation,
 * and the rules applied with their citations. The same tables as the HTML report's case detail.
 */
import { shortCitation } from '../catalog/cite.js';
import { caseTables } from './html.js';
import type { RunReport } from './json.js';
import type { EntryResult } from './types.js';
import { replayCommand } from './replay.js';

/** Where a case came from, in words. */
function originText(o: Record<string, string | number>): string {
  if (o.kind === 'vectors') return `${o.file}:${o.line}, case ${o.name}${o.cite ? ` (cites ${o.cite})` : ''}`;
  if (o.kind === 'gen') return o.seed !== undefined ? `generated: seed ${o.seed}, level ${o.level}, index ${o.index}` : 'generated';
  return Object.entries(o)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

/**
 * The lines that show result `r`; `rules` is the report's rules section (text and citation by id).
 * With the report, the case's file:line and the command that replays it close the text.
 */
export function caseLines(r: EntryResult, rules: RunReport['rules'], report?: Pick<RunReport, 'arch' | 'backend' | 'specEdition'>): string[] {
  const c = r.case;
  // '-': nothing was compiled (the reference model evaluated it, or it was skipped): no PTX ISA to name
  const module =
    r.modulePtx && r.modulePtx !== '-'
      ? ` (in a PTX ISA ${r.modulePtx} module)`
      : c && !c.observed
        ? ' (evaluated by the reference model; nothing compiled)'
        : '';
  const out = ['', `${r.kind === 'case' ? 'case' : 'entry'} ${r.id}`, `  instruction: ${r.ptx}${module}`];
  if (c) {
    out.push(`  origin: ${originText(c.origin)}`);
    const t = caseTables(r);
    if (t) {
      if (t.inputs.length) out.push(`  inputs: ${t.inputs.map((i) => `${i.w} ${i.c.h} (${i.c.d})`).join(', ')}`);
      const label = c.observed ? 'observed' : c.expect ? 'expected (file)' : undefined;
      if (label && t.outputs.some((o) => o.o)) {
        out.push(`  ${label}:`);
        for (const o of t.outputs) if (o.o) out.push(`    ${o.w} ${o.o.h} (${o.o.d})${o.ok === false ? '  NOT allowed' : o.ok ? '  allowed' : ''}`);
      }
      if (t.outputs.length) {
        out.push('  allowed (reference model):');
        for (const o of t.outputs)
          out.push(`    ${o.w} ${[...o.a.map((a) => `${a.h} (${a.d})`), ...(o.n ? ['any NaN'] : [])].join(' | ') || '(not computed)'}`);
      }
    }
    if (c.unspecified.length) out.push(`  left open by the spec: ${c.unspecified.join(', ')}${c.nan ? `; NaN result: ${c.nan}` : ''}`);
  }
  out.push(`  verdict: ${r.verdict}: ${r.reason}`);
  if (r.explanation) out.push(`  explanation: ${r.explanation.text}${r.explanation.ids.length ? ` (${r.explanation.ids.join(', ')})` : ''}`);
  if (r.sass) out.push(`  SASS${r.toolchain ? ` (${r.toolchain})` : ''}: ${r.sass}`);
  else if (r.toolchain) out.push(`  toolchain: ${r.toolchain}`);
  if (r.catalog?.rules.length) {
    out.push('  rules:');
    for (const id of r.catalog.rules) {
      const info = rules?.[id];
      out.push(`    ${id}: ${info ? `${info.text} (${shortCitation(info.cite)}: "${info.cite.quote}")` : '(no text in the rules index)'}`);
    }
  }
  if (report) {
    out.push(`  replay: ${replayCommand(r, report)}`);
  }
  return out;
}
