/**
 * JUnit XML is well formed, escapes everything, and counts failures as CI systems read them; the
 * run diff finds changed verdicts and observed bits and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { diffReports, formatDiff, regressions } from '../../harness/report/diff.js';
import { renderJunit, xmlText } from '../../harness/report/junit.js';
import { sampleReport } from '../helpers/sample-report.js';

/** A small well-formedness check: tags balance, attributes are quoted, no raw '<' or '&' in text. */
export function wellFormed(xml: string): string | undefined {
  const body = xml.replace(/^<\?xml[^>]*\?>\s*/, '');
  const stack: string[] = [];
  const re = /<(\/?)([A-Za-z][\w-]*)((?:\s+[\w-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(body))) {
    if (m[6]) return `stray '<' at ${m.index}`;
    if (m[5] !== undefined) {
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(m[5])) return `raw '&' at ${m.index}`;
      continue;
    }
    if (m[1]) {
      if (stack.pop() !== m[2]) return `unbalanced </${m[2]}> at ${m.index}`;
    } else if (!m[4]) stack.push(m[2]!);
  }
  return stack.length ? `unclosed <${stack.pop()}>` : undefined;
}

describe('JUnit XML', () => {
  const report = sampleReport();
  const xml = renderJunit(report);
  it('is well formed, with the hostile case name escaped', () => {
    expect(wellFormed(xml)).toBeUndefined();
    expect(xml).not.toContain('<img');
    expect(xml).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(wellFormed('<a><b></a>')).toMatch(/unbalanced/);
    expect(wellFormed('<a>x & y</a>')).toMatch(/raw '&'/);
  });
  it('counts: catalog entries one testcase each, cases one per variant; mismatch and compile-mismatch fail, known deviations pass', () => {
    const suites = [...xml.matchAll(/<testsuite name="([^"]+)" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/g)].map((m) => ({
      name: m[1],
      tests: +m[2]!,
      failures: +m[3]!,
    }));
    // bulk: one variant, whose two cases are one known deviation and one mismatch -> one failing testcase
    expect(suites.find((s) => s.name!.endsWith('cp.reduce.async.bulk'))).toMatchObject({ tests: 1, failures: 1 });
    // atom: the hostile case (mismatch of the file's expect) and 30 passing cases of another variant
    expect(suites.find((s) => s.name!.endsWith(' atom'))).toMatchObject({ tests: 2, failures: 1 });
    expect(suites.find((s) => s.name!.endsWith('multimem.red'))).toMatchObject({ tests: 1, failures: 1 });
    expect(xml).toMatch(/<testsuites name="ptx-reduction-conformance" tests="4" failures="3" errors="0" skipped="0"/);
  });
  it('strips what XML 1.0 cannot carry', () => {
    expect(xmlText('a\u0000b\u001bc"\'')).toBe('a\uFFFDb\uFFFDc&quot;&apos;');
  });
});

describe('run diff', () => {
  const a = sampleReport();
  it('a run against itself: no change', () => {
    const d = diffReports(a, a);
    expect(d.changes).toEqual([]);
    expect(d.common).toBe(a.results.length);
  });
  it('names changed verdicts, changed observed bits, results only one run has, findings that appeared', () => {
    const b = {
      ...a,
      results: a.results
        .filter((r) => r.id !== 'atom.global.add.u32/gen:29')
        .map((r) =>
          r.id === 'bulk/gen:1'
            ? { ...r, verdict: 'pass' as const, case: { ...r.case!, observed: { memory: ['0x00000000'] } } }
            : r.id === 'atom.global.add.u32/gen:3'
              ? { ...r, case: { ...r.case!, observed: { memory: ['0x00000005'], returned: ['0x00000001'] } } }
              : r,
        ),
      findings: [...a.findings, { key: 'F99', verdict: 'mismatch' as const, subject: 'new', explanation: '', text: 'something new', count: 1, examples: [] }],
    };
    const d = diffReports(a, b);
    expect(d.changes).toEqual(
      expect.arrayContaining([
        { id: 'bulk/gen:1', family: 'cp.reduce.async.bulk', what: 'verdict', old: 'mismatch', new: 'pass' },
        expect.objectContaining({ id: 'bulk/gen:1', what: 'observed' }),
        expect.objectContaining({ id: 'atom.global.add.u32/gen:3', what: 'observed' }),
        { id: 'atom.global.add.u32/gen:29', family: 'atom', what: 'removed', old: 'pass' },
      ]),
    );
    expect(d.changes).toHaveLength(4);
    expect(d.appeared).toEqual(['mismatch | new | something new']);
    const text = formatDiff(d, a, b).join('\n');
    expect(text).toMatch(/cp\.reduce\.async\.bulk: verdict mismatch -> pass/);
    expect(text).toMatch(/atom: only in old \(pass\)/);
    expect(text).not.toMatch(/partial/i);
    // a partial side is said, and what it lacks is not called removed
    const p = { ...b, partial: true, partialReason: 'interrupted by SIGINT after 10 results' };
    const tp = formatDiff(diffReports(a, p), a, p).join('\n');
    expect(tp).toMatch(/^new: .*PARTIAL \(interrupted by SIGINT after 10 results\)$/m);
    expect(tp).toMatch(/note: the new report is partial: results missing from it were not run, not removed/);
  });

  it('two GPUs: a finding whose text differs only in the GPU name is no change; any other difference in it still is', () => {
    const skip = (gpu: string) => ({
      key: 'F131',
      verdict: 'skipped' as const,
      subject: 'multimem.red',
      explanation: '',
      text: `device reports no multicast support (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0 on ${gpu})`,
      count: 1346,
      examples: [],
    });
    const on = (gpu: string, text = gpu) => ({
      ...a,
      toolchain: { gpu: { device: { name: gpu, cc: '9.0' }, driverVersion: 13000 } },
      findings: [...a.findings, skip(text)],
    });
    const h100 = on('NVIDIA H100 80GB HBM3');
    const h200 = on('NVIDIA H200');
    const d = diffReports(h100, h200);
    expect([d.appeared, d.disappeared]).toEqual([[], []]);
    expect(formatDiff(d, h100, h200).join('\n')).toMatch(/^old: .* on NVIDIA H100 80GB HBM3, [\s\S]*^new: .* on NVIDIA H200, /m);
    // the reason changed beyond the name (another attribute): appeared and went away, as before
    const other = on('NVIDIA H200', 'NVIDIA H200, and peer access off');
    const e = diffReports(h100, other);
    expect(e.appeared).toEqual([
      'skipped | multimem.red | device reports no multicast support (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0 on <the GPU>, and peer access off)',
    ]);
    expect(e.disappeared).toHaveLength(1);
    // a report without a GPU name: the text is compared as written
    const cpu = { ...a, findings: [...a.findings, skip('NVIDIA H200')] };
    expect(diffReports(cpu, h200).appeared).toHaveLength(1);
  });

  it('--fail-on regressions (the nightly job): new failures and changed bits, not coverage or fixes', () => {
    const pass = a.results.find((r) => r.id === 'atom.global.add.u32/gen:3')!;
    const mk = (results: typeof a.results) => ({ ...a, results });
    // a failure that went away, a pass that is no longer kept: nothing to fail on
    const fixed = mk(
      a.results.filter((r) => r.id !== 'atom.global.add.u32/gen:29').map((r) => (r.id === 'bulk/gen:1' ? { ...r, verdict: 'pass' as const } : r)),
    );
    expect(regressions(diffReports(a, fixed))).toEqual([]);
    // a pass turned mismatch; a new result that fails; a pass whose bits changed
    const worse = mk([
      ...a.results.map((r) =>
        r.id === 'atom.global.add.u32/gen:4'
          ? { ...r, verdict: 'mismatch' as const }
          : r.id === pass.id
            ? { ...r, case: { ...r.case!, observed: { memory: ['0x00000009'] } } }
            : r,
      ),
      { ...pass, id: 'atom.global.add.u32/gen:99', verdict: 'error' as const },
    ]);
    expect(
      regressions(diffReports(a, worse))
        .map((c) => [c.id, c.what])
        .sort(),
    ).toEqual([
      ['atom.global.add.u32/gen:3', 'observed'],
      ['atom.global.add.u32/gen:4', 'verdict'],
      ['atom.global.add.u32/gen:99', 'added'],
    ]);
  });
});
