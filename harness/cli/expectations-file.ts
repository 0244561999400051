/**
 * An expectations file for a command (the main run, `render`, `sweep`): its expectations, or, when it
 * has problems, every one printed as `file:line:col: what; what to do` and undefined (exit 2,
 * nothing run).
 */
import { problemLines } from '../case-readers/types.js';
import { type Expectation, loadExpectations } from '../compare/expectations.js';
import type { Io } from './io.js';

export async function readExpectations(file: string, explicit: boolean, io: Io): Promise<Expectation[] | undefined> {
  const ex = await loadExpectations(file, explicit);
  if (!ex.problems.length) return ex.expectations;
  for (const l of problemLines(ex.problems)) io.err(l);
  io.err(`${ex.problems.length} problem(s) in the expectations file; nothing was run. Fix them and run again.`);
  return undefined;
}
