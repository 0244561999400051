/**
 * The PTX memory model (chapter 8 of the PTX ISA 9.4) as an executable judge. See
 * docs/memory-model.md.
 *
 * - {@link parseLitmus}: the litmus language (Dat3M's PTX litmus syntax a subset of it, read by the same code);
 * - {@link judge}: enumerate a test's candidate executions and say, per final outcome, allowed or
 *   forbidden and by which axiom (8.10.x).
 */
export * from './events.js';
export { parseLitmus } from './extended.js';
export { judge } from './judge.js';
export type { JudgeOptions } from './judge.js';
