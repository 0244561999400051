/**
 * A litmus test's stated intent: a comment `(* intent: allowed|forbidden because ..., 8.x *)`, or,
 * where the verdict depends on the PTX ISA edition the test is judged against (a default the text
 * changed), one comment per edition range: `(* intent 9.1-9.2: allowed because ... *)` and
 * `(* intent 9.3-9.4: forbidden because ... *)` (a range as in a vector file's `editions:`).
 */
import { type Edition, inEdition, parseRange, specEdition } from '../catalog/editions.js';
import type { LitmusTest } from './events.js';

export interface Intent {
  readonly verdict: 'allowed' | 'forbidden';
  readonly text: string;
  /** The editions it holds for, as written (undefined: every edition). */
  readonly editions?: string;
}

/** Every intent a test's comments state, each with its editions. */
export function intentsOf(test: Pick<LitmusTest, 'comments'>): Intent[] {
  const out: Intent[] = [];
  for (const c of test.comments ?? []) {
    const m = /^intent(?:\s+(\d+\.\d+(?:\s*-\s*\d+\.\d+)?|-\s*\d+\.\d+|\d+\.\d+\s*-))?:\s*(allowed|forbidden)\b/i.exec(c.trim());
    if (m)
      out.push({
        verdict: m[2]!.toLowerCase() as 'allowed' | 'forbidden',
        text: c.trim().replace(/\s+/g, ' '),
        ...(m[1] ? { editions: m[1].replace(/\s+/g, '') } : {}),
      });
  }
  return out;
}

/** The intent a test states for `edition` (the run's, by default): the one whose range holds it, else the one without a range. */
export function intentOf(test: Pick<LitmusTest, 'comments'>, edition: Edition = specEdition()): Intent | undefined {
  const all = intentsOf(test);
  return all.find((i) => i.editions !== undefined && inEdition(parseRange(i.editions), edition)) ?? all.find((i) => i.editions === undefined);
}
