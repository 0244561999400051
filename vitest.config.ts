import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    // turns the worker's event loop between tests: see the file
    setupFiles: ['tests/helpers/yield-between-tests.ts'],
  },
});
