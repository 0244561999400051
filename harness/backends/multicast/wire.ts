/** What the multicast backend's parent and child process exchange (job file in, results out). */
import type { Case } from '../../case-readers/types.js';
import type { EntryResult } from '../../report/types.js';
import type { StandInConfig } from './standin.js';
import { hexBits } from '../../numerics/hex.js';

export interface ChildJob {
  readonly cases: readonly {
    id: string;
    variant: Case['variant'];
    replicas: string[][];
    b?: string[];
    source?: string[];
    origin: Case['origin'];
    cite?: string;
  }[];
  readonly devices: readonly number[];
  readonly launches: number;
  readonly ptxIsa: string;
  readonly target: string;
  readonly ptxasPath: string;
  /**
   * Set by the harness only after its guard passed (the user's --allow-multicast among it); the child
   * runs the guard again with it before it loads the native binding, so a job file alone creates nothing.
   */
  readonly allowed?: true;
  /** Tests only: run on this stand-in instead of the native binding. */
  readonly standIn?: StandInConfig;
}

export interface ChildResult {
  readonly driver: string;
  readonly results: EntryResult[];
  readonly stats: Record<string, number>;
  readonly releaseErrors: string[];
  readonly interrupted?: string;
  /** Stand-in only: handles not released at the end (empty when everything was). */
  readonly live?: string[];
}

export function encodeCases(cases: readonly Case[]): ChildJob['cases'] {
  const hex = (x: bigint) => hexBits(0, x);
  return cases.map((c) => ({
    id: c.id,
    variant: c.variant,
    replicas: c.input.replicas!.map((r) => r.map(hex)),
    ...(c.input.b ? { b: c.input.b.map(hex) } : {}),
    ...(c.input.source ? { source: c.input.source.map(hex) } : {}),
    origin: c.origin,
    ...(c.cite !== undefined ? { cite: c.cite } : {}),
  }));
}

export function decodeCases(cs: ChildJob['cases']): Case[] {
  return cs.map((c) => ({
    id: c.id,
    variant: c.variant,
    input: {
      replicas: c.replicas.map((r) => r.map((x) => BigInt(x))),
      ...(c.b ? { b: c.b.map((x) => BigInt(x)) } : {}),
      ...(c.source ? { source: c.source.map((x) => BigInt(x)) } : {}),
    },
    origin: c.origin,
    ...(c.cite !== undefined ? { cite: c.cite } : {}),
  }));
}
