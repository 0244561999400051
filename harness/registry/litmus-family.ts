/**
 * What an instruction family contributes to the litmus language (docs/litmus.md): how one of its
 * instructions, as written in a litmus column, becomes the memory model's instructions
 * (harness/memory-model/events.ts `Instr`). The shared reader (harness/memory-model/extended.ts)
 * names no family: it splits a cell into mnemonic parts and operands and asks the family whose
 * `mnemonic` is the longest prefix of the parts (harness/registry/litmus.ts).
 */
import type { Expr, Instr, Scope, Sem, SpaceQual } from '../memory-model/events.js';

/** One operand as written: its text (brackets removed) and its 1-based column. */
export interface LitmusOperand {
  readonly text: string;
  readonly col: number;
  /** Written in brackets, `[x]`. */
  readonly bracketed: boolean;
}

/** One instruction of a litmus column, split. */
export interface LitmusInstruction {
  /** The whole opcode, `atom.acquire.cluster.shared::cluster.add.u32`. */
  readonly opcode: string;
  /** The opcode split on `.` (a `::` stays inside its part): `['atom','acquire','cluster','shared::cluster','add','u32']`. */
  readonly parts: readonly string[];
  readonly operands: readonly LitmusOperand[];
  readonly line: number;
  readonly col: number;
}

/** The thread (column) an instruction belongs to. */
export interface LitmusThread {
  readonly id: number;
  readonly cta: number;
  readonly cluster: number;
  readonly gpu: number;
}

/** What the shared reader offers a family while it lowers one instruction. */
export interface LitmusContext {
  readonly thread: LitmusThread;
  /** Reports a problem at the instruction (or at operand `operand`) and abandons it. */
  fail(message: string, operand?: number): never;
  /**
   * The location operand `operand` names, checked against how the instruction names its state space
   * (`.global`, `.shared::cta` from the owning CTA only, `.shared::cluster` from its cluster,
   * `generic`, or `multimem` for multimem addresses, 8.2.3). Returns the location's name.
   */
  location(operand: number, space: SpaceQual): string;
  /** The state space a location lives in (8.3; `multimem` for a multimem address, 8.2.3). */
  spaceOf(location: string): 'global' | 'shared' | 'multimem';
  /** The replicas (unicast locations) a multimem location stands for; itself when it lists none. */
  replicas(multimemLocation: string): readonly string[];
  /** A destination register. */
  register(operand: number): string;
  /** A value operand: a register, or a literal encoded as `.type` (floats: `1.5` in a `.f32` instruction). */
  value(operand: number, type: string | undefined): Expr;
  /** A vector operand `{a, b, ...}` of exactly `n` destination registers (`atom.v2`'s `d`). */
  registers(operand: number, n: number): string[];
  /** A vector operand `{a, b, ...}` of exactly `n` values, each as {@link value} reads one. */
  values(operand: number, n: number, type: string | undefined): Expr[];
  /** A fresh register name no test can write (for values an asynchronous read hands its reduction). */
  scratch(hint: string): string;
  /** The locations a tensor map (`tm @ tensormap d0, d1`) may point at, the first at the start; undefined for any other name. */
  tensorMapAt(location: string): readonly string[] | undefined;
  /** Whether a location of this name is declared (an array's elements: `d+4`, ...). */
  declared(location: string): boolean;
}

export interface LitmusFamily {
  /** The family id (`atom`, `cp.reduce.async.bulk`, ...). */
  readonly family: string;
  /** The opcode's leading parts that select this family, `['cp','reduce','async','bulk']`. */
  readonly mnemonic: readonly string[];
  /** The model's instructions for `ins` (empty never: a family that cannot lower it calls `ctx.fail`). */
  lower(ins: LitmusInstruction, ctx: LitmusContext): Instr[];
}

/** Ordering qualifiers as the model takes them. */
export interface Ordering {
  readonly sem: Sem;
  readonly scope: Scope;
}
