import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { LONG_TEST_FILES } from './tests/suites/long.js';

// `npm test`: every test file but the long ones (tests/suites/long.ts), which `npm run test:long` runs
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...LONG_TEST_FILES],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    // the test files of one worker share its module graph (each file's own imports are not loaded
    // and transformed again): a whole npm test ran 10% faster; no test depends on a fresh module
    isolate: false,
    // two test files at once even on 2 cores (vitest's default there is one: cores - 1): most files
    // wait on child processes (the CLI, ptxas) part of the time, and the whole suite ran 1.3 cores
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // turns the worker's event loop between tests; registers the instruction families: see the files
    setupFiles: ['tests/helpers/yield-between-tests.ts', 'tests/helpers/register-families.ts'],
  },
});
