/**
 * An interrupted run with no result recorded must not say
 * "every result passed" (before: a Ctrl-C in the ptxas phase gave a partial report with 0 results
 * whose HTML said exactly that).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { noFindingsText } from '../../harness/report/html.js';
import { RunRecorder } from '../../harness/report/recorder.js';

const dir = mkdtempSync(join(tmpdir(), 'ptxconf-nf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('the sentence under "findings" follows what was recorded', () => {
  expect(noFindingsText({ partial: true, counts: { total: {} } } as never)).toBe('No findings: no result was recorded before the run stopped.');
  expect(noFindingsText({ partial: false, counts: { total: {} } } as never)).toBe('No findings: no result was recorded.');
  expect(noFindingsText({ partial: true, counts: { total: { pass: 12 } } } as never)).toMatch(
    /^No findings among the 12 results recorded before the run stopped/,
  );
  expect(noFindingsText({ partial: false, counts: { total: { pass: 12, observed: 3 } } } as never)).toBe('No findings: every result passed.');
});

it('a partial report with no results carries that sentence into its HTML', () => {
  const rec = new RunRecorder(join(dir, 'r'), { startedAt: new Date().toISOString(), command: ['test'], arch: 'sm_90', filter: null, seed: 0 }, [], null);
  const w = rec.finishPartial('interrupted by SIGINT after 0 results')!;
  const html = readFileSync(w.html, 'utf8');
  expect(html).toContain('"noFindings":"No findings: no result was recorded before the run stopped."');
});

it("the page has a clear-filters button, opens a detail in view, and labels a matrix cell with its worst verdict's own count", () => {
  const rec = new RunRecorder(join(dir, 'h'), { startedAt: new Date().toISOString(), command: ['test'], arch: 'sm_90', filter: null, seed: 0 }, [], null);
  const html = readFileSync(rec.finish().html, 'utf8');
  expect(html).toContain('<button id="f-clear" type="button">clear filters</button>');
  expect(html).toContain("$('f-clear').addEventListener('click'");
  expect(html).toContain("box.scrollIntoView({ block: 'start' })");
  // before: String(n), ' ' + w (the cell's total labelled with its worst verdict)
  expect(html).toContain("String(n), w !== 'pass' ? ' (' + c[w] + ' ' + w + ')' : ''");
});
