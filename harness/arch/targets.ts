/**
 * Compilation targets: every `.target` the harness knows, the PTX ISA versions that can name it, and
 * how a feature's "Target ISA Notes" clause is matched against one. Per-architecture facts live here
 * and nowhere else.
 *
 * The minimum PTX ISA version per target comes from the PTX ISA release notes (section 13, not in
 * ../shared/ptx-spec); tests/arch/targets.test.ts checks each row against ptxas itself (accepted at
 * its minimum version, rejected one version below).
 */
import { cite, type Citation } from '../catalog/cite.js';

export type TargetSuffix = '' | 'a' | 'f';

export interface Target {
  /** `sm_100a` */
  readonly name: string;
  /** 100 for sm_100a */
  readonly sm: number;
  readonly suffix: TargetSuffix;
  /** Lowest PTX ISA version whose `.target` accepts this name. */
  readonly minPtx: string;
  /** Highest PTX ISA version that still accepts it (set for renamed targets). */
  readonly maxPtx?: string;
  /** The name this target has from `renamedIn` on (sm_101a -> sm_110a from PTX ISA 9.0). */
  readonly renamedTo?: string;
  readonly renamedIn?: string;
  /**
   * Set where ptxas accepts the target below its documented PTX ISA version: what it was seen to
   * accept (tests/arch/targets.test.ts checks it still does, so the note cannot go stale).
   */
  readonly toolchainAcceptsFrom?: string;
}

/** PTX ISA versions in order; used to find "one version below" a feature's introduction. */
export const PTX_ISA_VERSIONS = [
  '6.0',
  '6.1',
  '6.2',
  '6.3',
  '6.4',
  '6.5',
  '7.0',
  '7.1',
  '7.2',
  '7.3',
  '7.4',
  '7.5',
  '7.6',
  '7.7',
  '7.8',
  '8.0',
  '8.1',
  '8.2',
  '8.3',
  '8.4',
  '8.5',
  '8.6',
  '8.7',
  '8.8',
  '9.0',
  '9.1',
  '9.2',
  '9.3',
  '9.4',
] as const;

/**
 * The newest PTX ISA version this harness's catalog describes: the excerpts are of 9.1, and
 * the excerpts of what 9.2-9.4 changed (../shared/ptx-spec-newer in CI) hold what changed for these
 * instructions (harness/catalog/editions.ts).
 */
export const CATALOG_PTX_ISA = '9.4';

const t = (name: string, minPtx: string, extra: Partial<Target> = {}): Target => {
  const m = /^sm_(\d+)([af]?)$/.exec(name);
  if (!m) throw new Error(`bad target name ${name}`);
  return { name, sm: Number(m[1]), suffix: (m[2] ?? '') as TargetSuffix, minPtx, ...extra };
};

/**
 * Known targets, one row each. Source: PTX ISA release notes (13.x) for the version that
 * introduced each target, and the sm_101 -> sm_110 rename note quoted in
 * multimem-ld_reduce-st-red.md ("sm_101a (Renamed to sm_110a from PTX ISA version 9.0)").
 */
export const TARGETS: readonly Target[] = [
  t('sm_75', '6.3'),
  t('sm_80', '7.0'),
  t('sm_86', '7.1'),
  t('sm_87', '7.4'),
  t('sm_88', '9.0', { toolchainAcceptsFrom: '7.3' }), // ptxas 13.0 takes .target sm_88 from PTX ISA 7.3
  t('sm_89', '7.8'),
  t('sm_90', '7.8'),
  t('sm_90a', '8.0'),
  t('sm_100', '8.6'),
  t('sm_100a', '8.6'),
  t('sm_100f', '8.8'),
  t('sm_101', '8.6', { maxPtx: '8.8', renamedTo: 'sm_110', renamedIn: '9.0' }),
  t('sm_101a', '8.6', { maxPtx: '8.8', renamedTo: 'sm_110a', renamedIn: '9.0' }),
  t('sm_101f', '8.8', { maxPtx: '8.8', renamedTo: 'sm_110f', renamedIn: '9.0' }),
  t('sm_103', '8.8'),
  t('sm_103a', '8.8'),
  t('sm_103f', '8.8'),
  t('sm_110', '9.0'),
  t('sm_110a', '9.0'),
  t('sm_110f', '9.0'),
  t('sm_120', '8.7'),
  t('sm_120a', '8.7'),
  t('sm_120f', '8.8'),
  t('sm_121', '8.8'),
  t('sm_121a', '8.8'),
  t('sm_121f', '8.8'),
];

export const TARGET_CITATION: Citation = cite(
  'targets',
  'Release notes',
  'PTX ISA version that introduced each .target; sm_101* renamed to sm_110* in PTX ISA 9.0',
);

const BY_NAME = new Map(TARGETS.map((x) => [x.name, x]));

export function findTarget(name: string): Target | undefined {
  return BY_NAME.get(name);
}

export function targetNames(): string[] {
  return TARGETS.map((x) => x.name);
}

/** The family of a target: sm_100 and sm_103 are family 10, sm_120 and sm_121 family 12. */
export function familyOf(sm: number): number {
  return Math.floor(sm / 10);
}

/** Compares two PTX ISA versions ("8.10" would sort after "8.9"). */
export function comparePtx(a: string, b: string): number {
  return ptxRank(a) - ptxRank(b);
}

// comparePtx runs millions of times while a catalog is enumerated (5.5 s of a default run's main
// thread split the same few strings): each version's rank, major * 1e6 + minor, is read once
const ranks = new Map<string, number>();
function ptxRank(v: string): number {
  let r = ranks.get(v);
  if (r === undefined) {
    const [m = 0, n = 0] = v.split('.').map(Number);
    r = m * 1e6 + n;
    if (ranks.size < 1000) ranks.set(v, r);
  }
  return r;
}

/** The PTX ISA version just below `v` in PTX_ISA_VERSIONS, or undefined at the bottom. */
export function previousPtx(v: string): string | undefined {
  const i = PTX_ISA_VERSIONS.indexOf(v as (typeof PTX_ISA_VERSIONS)[number]);
  return i > 0 ? PTX_ISA_VERSIONS[i - 1] : undefined;
}

/**
 * One clause of a "Target ISA Notes" requirement.
 * - `min-sm`: "requires sm_90 or higher" (any suffix of a higher or equal number).
 * - `arch`: an arch-specific target named in a list, e.g. `sm_100a`; a target it was renamed to counts.
 * - `family`: "sm_100f or higher in the same family": an `f` or `a` target of that family whose
 *   number is at least the clause's, from PTX ISA `fromPtx` on.
 */
export type TargetClause =
  | { readonly kind: 'min-sm'; readonly sm: number }
  | { readonly kind: 'arch'; readonly name: string }
  | { readonly kind: 'family'; readonly name: string; readonly fromPtx?: string };

function renamed(name: string): string[] {
  const row = BY_NAME.get(name);
  return row?.renamedTo ? [name, row.renamedTo] : [name];
}

/** Whether `target`, compiled with PTX ISA `ptx`, satisfies `clause`. */
export function clauseHolds(clause: TargetClause, target: Target, ptx: string): boolean {
  switch (clause.kind) {
    case 'min-sm':
      return target.sm >= clause.sm;
    case 'arch':
      return renamed(clause.name).includes(target.name);
    case 'family': {
      if (clause.fromPtx && comparePtx(ptx, clause.fromPtx) < 0) return false;
      if (target.suffix === '') return false;
      return renamed(clause.name).some((n) => {
        const base = /^sm_(\d+)f$/.exec(n);
        if (!base) throw new Error(`family clause needs an sm_XYf name, got ${n}`);
        const sm = Number(base[1]);
        return familyOf(target.sm) === familyOf(sm) && target.sm >= sm;
      });
    }
  }
}

export function describeClause(c: TargetClause): string {
  switch (c.kind) {
    case 'min-sm':
      return `sm_${c.sm} or higher`;
    case 'arch':
      return c.name;
    case 'family':
      return `${c.name} or higher in the same family${c.fromPtx ? ` (from PTX ISA ${c.fromPtx})` : ''}`;
  }
}

/**
 * The PTX ISA version a module for `target` is written in, given the highest one the toolchain
 * accepts: the toolchain's highest, capped by the target's `maxPtx` (renamed targets).
 * Returns undefined when the toolchain is too old for the target.
 */
export function modulePtxFor(target: Target, toolchainMax: string): string | undefined {
  let v = toolchainMax;
  if (target.maxPtx && comparePtx(v, target.maxPtx) > 0) v = target.maxPtx;
  return comparePtx(v, target.minPtx) < 0 ? undefined : v;
}
