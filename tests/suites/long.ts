/**
 * The test files of `npm run test:long` (vitest.long.config.ts, run nightly); `npm test`
 * (vitest.config.ts) runs every other tests/**\/*.test.ts. Each is here because it is long by
 * nature: whole catalogs enumerated or compiled, exhaustive sweeps, end-to-end runs over recorded
 * big reports. tests/suites/suites.test.ts checks, as vitest itself resolves the two configs, that
 * every test file belongs to exactly one suite. Durations: docs/testing.md.
 */
export const LONG_TEST_FILES: readonly string[] = [
  'tests/catalog/select.test.ts', // pruned = full enumeration, 2 whole catalogs x 25 filters x 4 kind sets
  'tests/catalog/enumerate.test.ts', // every whole catalog: sizes, ids, parse-back, neighbours
  'tests/catalog/citations.test.ts', // every rule every entry of whole catalogs cites
  'tests/compare/headline-arches.test.ts', // three whole ptxas catalogs
  'tests/compare/editions.test.ts', // recorded H200/H100 reports rendered under each edition
  'tests/sweep/sweep.test.ts', // 2^32-pair sweeps, recorded H100 sweeps
  'tests/backends/gpu-pipeline.test.ts', // the gpu pipeline end to end, recorded H100 runs
  'tests/backends/gpu-bulk-sizes.test.ts', // bulk cases of 16 B to 64 KiB end to end
  'tests/backends/gpu.test.ts', // recorded H200 runs replayed, 172.8 M-case full run
  'tests/backends/multicast.test.ts', // every multicast variant compiled; every accepted one on 2, 4, 8 replicas
  'tests/contention/run.test.ts', // contention end to end, recorded H100 contention replayed
  'tests/cli/signals.test.ts', // 400,000-case and whole-catalog runs interrupted
  'tests/report/merge.test.ts', // whole runs against their 3 shards, merged
  'tests/report/export.test.ts', // recorded big reports exported in each format
  'tests/repro/repro.test.ts', // reproducers from recorded reports, rebuilt and compared file by file
  'tests/litmus-gpu/bench-replay.test.ts', // the recorded H100 litmus bench run and its 622 mutants re-judged
  'tests/litmus-gpu/replay.test.ts', // the recorded H100 litmus runs (>= 1 M instances a test) and 474 mutants re-judged
  'tests/peer/standin.test.ts', // the peer command end to end on the two-device stand-in (4 runs)
  'tests/peer/baseline.test.ts', // the recorded 2 x H100 peer run re-judged (735 groups, 2 x 2,710 cases)
];
