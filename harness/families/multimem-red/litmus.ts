/** multimem.red in the litmus language: see ../shared/multimem-litmus.ts (docs/litmus.md). */
export { multimemRedLitmus } from '../shared/multimem-litmus.js';
