/**
 * Floating-point rules of the reductions, one row per (instruction family, state space, type):
 * subnormal handling, rounding, NaN results, fp8 overflow, min/max. Each row cites the sentence it
 * encodes. Where no text decides, the row says `unspecified` and the reference model returns every
 * plausible outcome, marked so, for the comparator to record what the hardware does.
 */
import { type Citation, cite } from '../catalog/cite.js';
import type { FamilyId } from '../catalog/types.js';

/** true: flush subnormal inputs and results to sign-preserving zero; false: keep them. */
export type Ftz = boolean | 'unspecified';

export interface FpRule {
  readonly id: string;
  readonly families: readonly FamilyId[];
  /** Resolved state space of the memory the reduction lands in ('global' or 'shared'), or any. */
  readonly spaces: readonly ('global' | 'shared')[];
  readonly types: readonly string[];
  readonly ftz: Ftz;
  /** 'rne': round to nearest even, stated; 'unspecified': not stated (RNE assumed, marked). */
  readonly rounding: 'rne' | 'unspecified';
  readonly text: string;
  readonly cite: Citation;
}

const ALL: ('global' | 'shared')[] = ['global', 'shared'];
const HALF = ['f16', 'f16x2', 'bf16', 'bf16x2'];
const FP8 = ['e4m3', 'e4m3x2', 'e4m3x4', 'e5m2', 'e5m2x2', 'e5m2x4'];

export const FP_RULES: readonly FpRule[] = [
  { id: 'fp.atom-red.add.f32.global', families: ['atom', 'red'], spaces: ['global'], types: ['f32'], ftz: true, rounding: 'rne', text: 'atom/red .add.f32 on global memory flushes subnormal inputs and results to sign-preserving zero', cite: cite('atom', 'Description', 'Current implementation of atom.add.f32 on global memory flushes subnormal inputs and results to sign-preserving zero') },
  { id: 'fp.atom-red.add.f32.shared', families: ['atom', 'red'], spaces: ['shared'], types: ['f32'], ftz: false, rounding: 'rne', text: 'atom/red .add.f32 on shared memory keeps subnormal inputs and results', cite: cite('atom', 'Description', 'whereas atom.add.f32 on shared memory supports subnormal inputs and results and doesn’t flush them to zero') },
  { id: 'fp.atom-red.add.f64', families: ['atom', 'red'], spaces: ALL, types: ['f64'], ftz: false, rounding: 'rne', text: 'atom/red .add.f64 keeps subnormals: the flushing sentence names .f32 only', cite: cite('atom', 'Description', 'The floating-point operation .add operation rounds to nearest even.') },
  { id: 'fp.atom-red.noftz', families: ['atom', 'red'], spaces: ALL, types: HALF, ftz: false, rounding: 'rne', text: '.noftz half types keep subnormal inputs and results', cite: cite('atom', 'Description', 'it preserves subnormal inputs and results, and does not flush them to zero.') },
  { id: 'fp.bulk.add.f32', families: ['cp.reduce.async.bulk'], spaces: ALL, types: ['f32'], ftz: true, rounding: 'rne', text: 'cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results to sign-preserving zero', cite: cite('bulk', 'Description', 'The current implementation of cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results to sign-preserving zero.') },
  { id: 'fp.bulk.add.f64', families: ['cp.reduce.async.bulk'], spaces: ALL, types: ['f64'], ftz: false, rounding: 'rne', text: 'cp.reduce.async.bulk.add.f64 keeps subnormals: the flushing sentence names .f32 only', cite: cite('bulk', 'Description', 'Floating-point .add rounds to nearest even.') },
  { id: 'fp.bulk.noftz', families: ['cp.reduce.async.bulk'], spaces: ALL, types: ['f16', 'bf16'], ftz: false, rounding: 'rne', text: '.add.noftz.f16/.bf16 keep subnormals', cite: cite('bulk', 'Description', '.add.f16 and .add.bf16 require .noftz.') },
  { id: 'fp.mm-bulk.add.f32', families: ['multimem.cp.reduce.async.bulk'], spaces: ALL, types: ['f32'], ftz: true, rounding: 'rne', text: 'multimem.cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results', cite: cite('multimemBulk', 'Description', 'except for the current implementation of multimem.cp.reduce.async.bulk.add.f32 which flushes subnormal inputs and results to sign-preserving zero.') },
  { id: 'fp.mm-bulk.add.other', families: ['multimem.cp.reduce.async.bulk'], spaces: ALL, types: ['f64', 'f16', 'bf16'], ftz: false, rounding: 'rne', text: 'multimem.cp.reduce.async.bulk .add rounds to nearest even and keeps subnormals', cite: cite('multimemBulk', 'Description', 'The floating point operation .add rounds to the nearest even, preserve input and result subnormals, and does not flush them to zero') },
  { id: 'fp.multimem.unstated', families: ['multimem.ld_reduce', 'multimem.red'], spaces: ALL, types: ['f32', 'f64', ...HALF, ...FP8], ftz: 'unspecified', rounding: 'unspecified', text: 'multimem.ld_reduce/red: the section states neither subnormal handling nor rounding; both flushing and keeping are allowed, round to nearest even is assumed and marked', cite: cite('multimem', 'Description', 'For multimem.ld_reduce, the default precision of the intermediate accumulation is same as the specified type.') },
];

/** The rule for one reduction; throws when no row covers it (a gap in this table, not user input). */
export function fpRule(family: FamilyId, space: 'global' | 'shared', type: string): FpRule {
  const r = FP_RULES.find((x) => x.families.includes(family) && x.spaces.includes(space) && x.types.includes(type));
  if (!r) throw new Error(`no floating-point rule for ${family} on .${space} with .${type} (harness/numerics/rules.ts)`);
  return r;
}

/** Rules for what no text of the reductions decides, applied everywhere. */
export const UNSPECIFIED = {
  nanPayload: {
    id: 'fp.nan-payload',
    text: 'the sign and payload of a NaN result are not specified (the cited sentence is the only floating-point rule .add has; none speaks of NaN results): any NaN encoding is allowed',
    cite: cite('atom', 'Description', 'The floating-point operation .add operation rounds to nearest even.'),
  },
  fp8Overflow: {
    id: 'fp.fp8-overflow',
    text: 'what an fp8 sum beyond the largest finite value gives is not specified (the section states only the accumulation precision): infinity (e5m2) or NaN (e4m3), or the largest finite value (saturation)',
    cite: cite('multimem', 'Description', 'For multimem.ld_reduce, the default precision of the intermediate accumulation is same as the specified type.'),
  },
  fp8MinMax: {
    id: 'fp.fp8-minmax',
    text: 'no text gives min/max of fp8 types; the half-precision min/max rules are applied by analogy',
    cite: cite('halfMin', 'Semantics', 'else d = (a < b) ? a : b;'),
  },
} as const;

export const MINMAX_RULES = {
  min: { id: 'fp.min', text: 'min: NaN and NaN is NaN; one NaN gives the other operand; -0.0 < +0.0', cite: cite('halfMin', 'Semantics', 'if (isNaN(a) && isNaN(b)) d = NaN; ... else if (isNaN(a)) d = b; else if (isNaN(b)) d = a; else d = (a < b) ? a : b; / If values of both inputs are 0.0, then +0.0 > -0.0.') },
  max: { id: 'fp.max', text: 'max: NaN and NaN is NaN; one NaN gives the other operand; +0.0 > -0.0', cite: cite('halfMax', 'Semantics', 'if (isNaN(a) && isNaN(b)) d = NaN; ... else if (isNaN(a)) d = b; else if (isNaN(b)) d = a; else d = (a > b) ? a : b; / If values of both inputs are 0.0, then +0.0 > -0.0.') },
} as const;
