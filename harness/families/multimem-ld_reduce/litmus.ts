/** multimem.ld_reduce in the litmus language: see ../shared/multimem-litmus.ts (docs/litmus.md). */
export { multimemLdReduceLitmus } from '../shared/multimem-litmus.js';
