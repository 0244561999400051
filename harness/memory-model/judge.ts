import type { Judgement, LitmusTest, ModelFault } from './events.js';

export interface JudgeOptions {
  /** Planted faults (tests only). */
  faults?: ModelFault[];
}

/** Judges a litmus test under the chapter-8 model. */
export function judge(test: LitmusTest, opts: JudgeOptions = {}): Judgement {
  void opts;
  throw new Error(`judge(${test.name}): the model is being written (issue 25); not available yet`);
}
