/** A small constructed run for the report tests (HTML, JUnit, diff): judged like a real one. */
import { judgeRun } from '../../harness/compare/judge-run.js';
import { parseExpectations } from '../../harness/compare/expectations.js';
import { buildReport } from '../../harness/report/json.js';
import { withEdition } from '../../harness/catalog/editions.js';
import type { EntryResult } from '../../harness/report/types.js';

export const EVIL = '<img src=x onerror=alert(1)>';

function gpuCase(id: string, ptx: string, memory: string, source: string, observed: string): EntryResult {
  return {
    id,
    family: 'cp.reduce.async.bulk',
    kind: 'case',
    ptx,
    modulePtx: '8.8',
    catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules: [] },
    sass: 'UBLKRED.G.S.ADD.F32.RN',
    verdict: 'mismatch',
    reason: 'memory[0]: observed differs',
    case: { origin: { kind: 'gen' }, input: { memory: [memory], source: [source] }, allowed: {}, observed: { memory: [observed] }, unspecified: [] },
  };
}

/** A small run: two bulk mismatches (subnormal kept), a case with a hostile name, a ptxas rejection with markup, passes. */
export function sampleReport(extra: EntryResult[] = []) {
  const bulk = 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32';
  const raw: EntryResult[] = [
    gpuCase('bulk/gen:1', bulk, '0x00000001', '0x00000001', '0x00000002'),
    gpuCase('bulk/gen:2', bulk, '0x80000003', '0x00000001', '0x80000002'),
    {
      id: EVIL,
      family: 'atom',
      kind: 'case',
      ptx: 'atom.global.add.f32',
      modulePtx: '-',
      catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules: [] },
      verdict: 'mismatch',
      reason: `the file's expect disagrees: ${EVIL}`,
      case: {
        origin: { kind: 'vectors', file: `cases/${EVIL}.yaml`, line: 3 },
        input: { memory: ['0x3f800000'], b: ['0x33c00000'] },
        expect: { memory: ['0x3f800000'] },
        allowed: {},
        unspecified: [],
      },
    },
    {
      id: 'multimem.red.relaxed.add.f32',
      family: 'multimem.red',
      kind: 'variant',
      ptx: 'multimem.red.relaxed.add.f32',
      modulePtx: '8.8',
      catalog: {
        status: 'valid',
        expect: 'accept',
        reason: 'valid by the grammar',
        rules: ['multimem.red.default-scope'],
        detail: [
          {
            rule: 'multimem.red.default-scope',
            text: '.sys is assumed',
            cite: { file: 'multimem-ld_reduce-st-red.md', section: '9.7.9.14', part: 'Description', quote: 'If the .scope qualifier is not specified' },
          },
        ],
      },
      verdict: 'compile-mismatch',
      reason: 'ptxas rejects: <script>alert(2)</script>',
      ptxas: { accepted: false, line: 'multimem.red.relaxed.add.f32 [%rd1], %f1;', messages: ["ptxas error: Modifier '.relaxed' requires scope <b>bold</b>"] },
    },
    ...Array.from(
      { length: 30 },
      (_, i): EntryResult => ({
        id: `atom.global.add.u32/gen:${i}`,
        family: 'atom',
        kind: 'case',
        ptx: 'atom.global.add.u32',
        modulePtx: '-',
        catalog: { status: 'valid', expect: 'accept', reason: 'a case of a catalog variant', rules: [] },
        verdict: 'pass',
        reason: 'the one outcome the spec allows',
        case: {
          origin: { kind: 'gen' },
          input: { memory: ['0x00000001'], b: [`0x${i.toString(16).padStart(8, '0')}`] },
          allowed: {},
          observed: { memory: [`0x${(i + 1).toString(16).padStart(8, '0')}`], returned: ['0x00000001'] },
          unspecified: [],
        },
      }),
    ),
    ...extra,
  ];
  const ex = parseExpectations(
    'sm_90.yaml',
    `expectations:\n  - id: bulk-keeps\n    pattern: "bulk/gen:2"\n    explanation: ftz-off\n    reason: kept subnormals\n    link: https://example.invalid/x\n`,
  );
  // judged against the 9.1 text, as the H200 run it imitates (9.4 keeps bulk .add.f32 subnormals)
  const judged = withEdition('9.1', () => judgeRun(raw, ex.expectations));
  return buildReport({
    partial: false,
    startedAt: '2026-11-21T00:00:00.000Z',
    finishedAt: '2026-11-21T00:00:01.000Z',
    elapsedMs: 1000,
    command: ['npm', 'run', 'conformance', '--', '--filter', EVIL],
    arch: 'sm_90',
    filter: EVIL,
    seed: 1,
    specEdition: '9.1',
    toolchain: {},
    modulePtx: '8.8',
    backend: { name: 'gpu', reason: 'test', passedOver: [] },
    stats: {},
    results: judged.results,
    findings: judged.findings,
    expectations: { file: 'sm_90.yaml', outcomes: judged.outcomes },
    catalogEntries: 1,
  });
}
