/** multimem.st in the litmus language: see ../shared/multimem-litmus.ts (docs/litmus.md). */
export { multimemStLitmus } from '../shared/multimem-litmus.js';
