/**
 * The house rules of the module graph (docs/architecture.md "The registry"), checked in `npm test`
 * by tests/house/dependencies.test.ts over harness/, cases/ and scripts/:
 * - no import cycle anywhere;
 * - the core (catalog, numerics, reference, compare, case readers, the registry, and the generators
 *   under cases/) never imports harness/families/: the families are handed in where the program is
 *   put together (harness/registry/; registerAllFamilies() in harness/families/index.ts is called by
 *   the CLI entry, the gpu worker, the scripts and the tests' setup file).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: break it by moving the shared part into a module of its own, or by handing a value in (see harness/registry/).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-not-to-families',
      severity: 'error',
      comment: 'The core names no family: ask harness/registry/ (families are registered by the program, not imported by the core).',
      from: { path: '^(harness/(catalog|numerics|reference|compare|case-readers|registry)|cases)/' },
      to: { path: '^harness/families/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.(cpp|h|cc)$' },
  },
};
