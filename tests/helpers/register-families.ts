/**
 * Every test file runs with this (vitest.config.ts, setupFiles; vitest.long.config.ts takes the same
 * settings). The tests are programs of their own: like the CLI entry, they hand the instruction
 * families to the registry (harness/registry/) before the core asks for them.
 */
import { registerAllFamilies } from '../../harness/families/index.js';

registerAllFamilies();
