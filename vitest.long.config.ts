import { configDefaults, defineConfig } from 'vitest/config';
import quick from './vitest.config.js';
import { LONG_TEST_FILES } from './tests/suites/long.js';

// `npm run test:long`: the long test files (tests/suites/long.ts), with the settings of `npm test`
export default defineConfig({
  test: { ...quick.test, include: [...LONG_TEST_FILES], exclude: [...configDefaults.exclude] },
});
