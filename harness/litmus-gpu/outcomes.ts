/**
 * The outcomes a litmus run counts on the device, and the verdict of an observed one. The table is
 * every combination of the values the model's outcomes give each key (the condition's registers
 * and locations; initial values included), capped; a row's verdict is the model's: allowed when an
 * allowed outcome has exactly its values, else forbidden by the axiom of a forbidden outcome that
 * matches it ('*' matches any value), else "no candidate execution has it".
 */
import type { Judgement, LitmusTest } from '../memory-model/events.js';

export const MAX_TABLE = 4096;

/** A key's value before the test on the device: a location's initial value, or a register's (its init, else 0: the kernel starts every register there). */
export function keyInit(test: Pick<LitmusTest, 'locations' | 'regInit'>): (key: string) => string {
  return (k) => (test.locations[k] ? String(test.locations[k]!.init) : String(test.regInit[Number(/^P(\d+):/.exec(k)?.[1] ?? -1)]?.[k.split(':')[1]!] ?? 0n));
}

/**
 * The model's outcomes as the device shows them: a register its thread never wrote ('?', as a branch
 * skipped its load) holds what the kernel started it at, its initial value.
 */
export function onDevice<J extends Pick<Judgement, 'outcomes'>>(j: J, initOf: (key: string) => string): J {
  if (!j.outcomes.some((o) => Object.values(o.values).includes('?'))) return j;
  const outcomes = j.outcomes.map((o) => ({ ...o, values: Object.fromEntries(Object.entries(o.values).map(([k, v]) => [k, v === '?' ? initOf(k) : v])) }));
  return { ...j, outcomes };
}

export interface Verdict {
  readonly allowed: boolean;
  /** For a forbidden outcome: the axiom, or "no candidate execution has it". */
  readonly why?: string;
}

/**
 * The model's verdict on one observed outcome (values by key, as unsigned decimal strings of the key's
 * value; `bits` per key, 32 or 64, default 32: the model's values are compared modulo 2^bits).
 */
export function verdictOf(j: Pick<Judgement, 'outcomes'>, keys: readonly string[], values: readonly string[], bits?: readonly number[]): Verdict {
  const norm = (v: string | undefined, x: number) => (v !== undefined && /^-?\d+$/.test(v) ? String(BigInt.asUintN(bits?.[x] ?? 32, BigInt(v))) : v);
  const eq = (o: Record<string, string>, wild: boolean) => keys.every((k, x) => norm(o[k], x) === values[x] || (wild && o[k] === '*'));
  if (j.outcomes.some((o) => o.allowed && eq(o.values, false))) return { allowed: true };
  const f = j.outcomes.find((o) => !o.allowed && eq(o.values, true));
  return { allowed: false, why: f?.axiom ?? 'no candidate execution has it' };
}

/** The table of outcomes to count on the device: rows of values (decimal strings), in key order. */
export function outcomeTable(
  j: Pick<Judgement, 'outcomes'>,
  keys: readonly string[],
  initOf: (key: string) => string | undefined,
  bits?: readonly number[],
): string[][] {
  const doms = keys.map((k, x) => {
    const s = new Set<string>();
    const i = initOf(k);
    if (i !== undefined) s.add(i);
    for (const o of j.outcomes) {
      const v = o.values[k];
      if (v !== undefined && v !== '*' && v !== '?') s.add(String(BigInt.asUintN(bits?.[x] ?? 32, BigInt(v))));
    }
    return [...s];
  });
  let rows: string[][] = [[]];
  for (const d of doms) {
    rows = rows.flatMap((r) => d.map((v) => [...r, v]));
    if (rows.length > MAX_TABLE) throw new Error(`more than ${MAX_TABLE} outcomes to count`);
  }
  return rows;
}
