/**
 * The program and event representation that the PTX memory model (chapter 8 of the PTX ISA,
 * `../shared/ptx-memory-model/`) judges. It names no instruction family: the litmus reader
 * (`extended.ts`: the project's language, Dat3M's syntax a subset of it) lowers each instruction to the
 * {@link Instr} forms below, supplying the value function of a read-modify-write itself (families
 * compute it with the reference model).
 *
 * Two layers:
 * - the *program* ({@link LitmusTest}: threads of {@link Instr}, locations, the final condition),
 *   which the enumerator runs once per choice of values read;
 * - the *events* ({@link MemEvent}) one run produces, over which the relations of chapter 8 are
 *   computed and the axioms checked (`model.ts`, `judge.ts`).
 */

/** 8.5 scopes, smallest first. A warp is not a scope. */
export type Scope = 'cta' | 'cluster' | 'gpu' | 'sys';
export const SCOPES: readonly Scope[] = ['cta', 'cluster', 'gpu', 'sys'];

/**
 * 8.4 operation types as qualifiers: `weak` (8.4 "weak operation"), the strong ones, and
 * `volatile` (8.4.2: "equivalent to a relaxed memory operation with system-scope"; readers lower it
 * to relaxed.sys and keep {@link MemInstrBase.volatile} for reporting). `mmio` (8.4.1) is strong
 * like relaxed.sys for ordering.
 */
export type Sem = 'weak' | 'relaxed' | 'acquire' | 'release' | 'acq_rel' | 'sc';

/**
 * 8.6 proxies. `generic` is the default method of access. `alias` is not a proxy of its own: an
 * access through a generic alias (`y @ generic aliases x`) uses the generic method through a
 * distinct virtual address, which 8.6 says "behaves as if using different proxies"; the model
 * derives that from {@link Location.aliasOf}, so readers use `generic` for it.
 */
export type Proxy = 'generic' | 'async' | 'texture' | 'surface' | 'constant' | 'tensormap';

/** 8.3 state spaces that matter to the model. */
export type Space = 'global' | 'shared' | 'multimem';

/** The state space a `fence.proxy.async` names (9.7.15.4: "The memory ordering is limited only to operations performed on objects in the state space specified"). */
export type ProxyFenceSpace = 'global' | 'shared::cta' | 'shared::cluster';

/** How an access names a shared location (8.3; `.shared::cta` only from the owning CTA). */
export type SpaceQual = 'global' | 'shared::cta' | 'shared::cluster' | 'multimem' | 'generic';

/** A thread of the litmus test (a column). */
export interface ThreadDecl {
  /** Index in {@link LitmusTest.threads}; `P<id>` in conditions. */
  id: number;
  cta: number;
  /** Default: each CTA its own cluster (the id is derived from gpu and cta). */
  cluster?: number;
  gpu: number;
  code: Instr[];
}

/** A memory location, i.e. one virtual address (8.2), and what it maps to. */
export interface Location {
  name: string;
  space: Space;
  /** For `shared`: the CTA that owns it (reachable by `.shared::cta` from that CTA, by `.shared::cluster` from its cluster). */
  ownerCta?: number;
  /** Owner's gpu (with ownerCta). */
  ownerGpu?: number;
  /** 8.2.2 aliases: this virtual address maps to the same memory location as `aliasOf`. */
  aliasOf?: string;
  /** The proxy through which this name is accessed (Dat3M's `s @ surface aliases x`); default generic. */
  proxy?: Proxy;
  /** 8.2.6 initial value. */
  init: bigint;
  /**
   * A tensor map in global memory (`tm @ tensormap d0, d1`): a 1-D map of 32-bit elements whose global
   * address is one of these locations'; its value is the index of the one it points at (0 at the start),
   * written by `tensormap.replace` (generic proxy) and read by a bulk tensor operation (tensormap proxy).
   */
  tensorMap?: readonly string[];
  /**
   * An element of an array (`d = {0, 0};`, `s @ shared cta 0 = {1, 1};`): element k > 0 of array `of`
   * is the location `of+<4k>`, `offset` bytes past it (32-bit elements, at most {@link MAX_ARRAY}: four 16-byte chunks).
   */
  element?: { readonly of: string; readonly offset: number };
}

/** Elements of an array at most (`d = {0, 0};`): four 16-byte chunks of a bulk operation. */
export const MAX_ARRAY = 16;

/** Register expressions: constants, registers, and arithmetic on them. */
export type Expr =
  | { k: 'const'; v: bigint }
  | { k: 'reg'; r: string }
  | { k: 'bin'; op: '+' | '-' | '*' | '&' | '|' | '^' | '==' | '!=' | '<' | '>' | '<=' | '>='; a: Expr; b: Expr };

/** Fields every memory instruction carries. */
export interface MemInstrBase {
  /** Location name (a key of {@link LitmusTest.locations}). */
  loc: string;
  sem: Sem;
  /** Required for every strong operation (8.5); ignored for weak ones. */
  scope: Scope;
  proxy: Proxy;
  space?: SpaceQual;
  /** 8.4.2: was written `.volatile` (judged as relaxed.sys). */
  volatile?: boolean;
  /** Source position for messages. */
  line?: number;
  /**
   * An element of a vector operation (`red.global.v2.f32.add [d], {a, b}`): "modelled as a set of
   * equivalent memory operations with a scalar data type, executed in an unspecified order on the
   * elements in the vector" (8.2.4). The elements of one group are in no program order among
   * themselves; each is in program order with the thread's other operations.
   */
  vector?: { readonly group: number; readonly element: number };
}

/**
 * One instruction of a thread, as the model needs it.
 * - `read`, `write`, `rmw`: memory operations (8.2, 8.4). `rmw.update(old, args)` returns the value
 *   written, or `undefined` when the operation results in no write (a failed compare-and-swap);
 *   `rmw.reduction` marks `red`-like operations whose read returns nothing to the thread and which
 *   do not form acquire patterns (8.8 last note, 8.11.1).
 * - `fence`: `fence{.sem}.scope` and `fence.sc` (8.4 memory fence operation).
 * - `proxyFence`: `fence.proxy.<kind>` (8.6; bi-directional, no scope, within one thread).
 * - `barrier`: `bar.cta.sync id{, count}` (8.9.4 item 2).
 * - `async`: an asynchronous operation (8.9.1.1) whose accesses are not in the issuer's program
 *   order; see {@link AsyncInstr}.
 * - `bulkCommit` / `bulkWait`: `.bulk_group` completion (commit_group, wait_group n; `.read`: "until all
 *   the bulk async operations in the specified bulk async-group have completed reading from their
 *   source locations", 9.7.10.28.2, so it orders their source reads only, not their writes).
 * - `mbarrier`: init / arrive / expect_tx / try_wait on an mbarrier location (9.7.15.16).
 * - `local`, `branch`, `label`: register arithmetic and control flow (Dat3M's `add`, `beq`, `goto`).
 */
export type Instr =
  | ({ kind: 'read'; dst: string } & MemInstrBase)
  | ({ kind: 'write'; value: Expr } & MemInstrBase)
  | ({
      kind: 'rmw';
      dst?: string;
      args: Expr[];
      update: (old: bigint, args: bigint[]) => bigint | undefined;
      reduction: boolean;
      op?: string;
    } & MemInstrBase)
  | { kind: 'fence'; sem: 'sc' | 'acq_rel' | 'acquire' | 'release'; scope: Scope; line?: number }
  | {
      kind: 'proxyFence';
      proxy: Proxy | 'alias';
      space?: ProxyFenceSpace;
      /** `fence.proxy.tensormap::generic`: uni-directional, with `.release`/`.acquire` at a scope; the acquire form names the tensor map it covers. */
      sem?: 'release' | 'acquire';
      scope?: Scope;
      covers?: string;
      line?: number;
    }
  | { kind: 'barrier'; id: Expr; count?: Expr; arrive?: boolean; line?: number }
  | AsyncInstr
  | { kind: 'bulkCommit'; line?: number }
  | { kind: 'bulkWait'; n: number; read?: boolean; line?: number }
  | MbarrierInstr
  | { kind: 'local'; dst: string; value: Expr; line?: number }
  | { kind: 'branch'; cond?: Expr; target: string; line?: number }
  | { kind: 'label'; name: string; line?: number };

/**
 * An asynchronous operation (8.9.1.1): its accesses happen in an "async agent" of the issuing
 * thread, ordered after the issuer's prior instructions but not in its program order. Completion:
 * - `bulk_group`: joins the current bulk async-group; a later `bulkWait` makes its accesses ordered
 *   before the waiter's later instructions, followed by an implicit generic-async proxy fence
 *   (9.7.10.28: completion implies a generic-async proxy fence);
 * - `mbarrier`: an implicit complete-tx on `mbar` with `.release` at `.cluster` scope, ordered only
 *   after this operation's own accesses (8.9.1.1 last sentence), decrementing the tx-count by `bytes`;
 * - `cta-end`: none the thread can wait for ("the completion of the store synchronizes with the end
 *   of the CTA", 9.7.15.7: red.async's `.release` form); its accesses are in the final values.
 */
export interface AsyncInstr {
  kind: 'async';
  accesses: Array<
    | ({ kind: 'read'; dst?: string; via?: Via } & MemInstrBase)
    | ({ kind: 'write'; value: Expr; via?: Via } & MemInstrBase)
    | ({
        kind: 'rmw';
        args: Expr[];
        update: (old: bigint, args: bigint[]) => bigint | undefined;
        reduction: boolean;
        op?: string;
        via?: Via;
      } & MemInstrBase)
  >;
  completion: { kind: 'bulk_group' } | { kind: 'mbarrier'; mbar: string; bytes: bigint; sem?: Sem; scope?: Scope } | { kind: 'cta-end' };
  line?: number;
}

/** A bulk tensor operation's global access: at the location the tensor map read into `reg` points at (`loc` is the first, for static analyses). */
export interface Via {
  reg: string;
  targets: readonly string[];
}

/**
 * mbarrier operations (9.7.15.16), modelled as accesses to the mbarrier's location whose value is
 * the pending count of the current phase (arrivals plus tx-count): `init` writes `count`; `arrive`
 * is an atomic decrement (default `.release.cta`, a release pattern, 8.8 item 1); `expect_tx` an
 * atomic increment by `bytes` (`.relaxed`); `try_wait` a read (default `.acquire.cta`, an acquire
 * pattern) whose `dst` predicate is 1 when it read 0 (the phase completed).
 */
export interface MbarrierInstr {
  kind: 'mbarrier';
  op: 'init' | 'arrive' | 'expect_tx' | 'try_wait';
  mbar: string;
  count?: bigint;
  bytes?: bigint;
  dst?: string;
  sem: Sem;
  scope: Scope;
  space?: SpaceQual;
  line?: number;
}

/** A term of the final condition. */
export type Term = { k: 'reg'; thread: number; reg: string } | { k: 'mem'; loc: string } | { k: 'const'; v: bigint };

/** The final condition: Dat3M's `P0:r1 == 0 /\ x == 1`, `\/`, `~`, parentheses. */
export type Cond =
  | { k: 'true' }
  | { k: 'cmp'; op: '==' | '!=' | '<' | '>' | '<=' | '>='; a: Term; b: Term }
  | { k: 'and' | 'or'; a: Cond; b: Cond }
  | { k: 'not'; a: Cond };

export type Quantifier = 'exists' | 'not exists' | 'forall';

/** A litmus test as the model judges it. */
export interface LitmusTest {
  name: string;
  file?: string;
  threads: ThreadDecl[];
  locations: Record<string, Location>;
  /** Initial register values, `P0:r0=0`. */
  regInit: Record<number, Record<string, bigint>>;
  quantifier: Quantifier;
  cond: Cond;
  /** Free text: intent, references. */
  comments?: string[];
  /** Loop unrolling bound for backward branches (default 2 iterations). */
  unroll?: number;
}

// ---------------------------------------------------------------------------------------------
// Events of one candidate execution
// ---------------------------------------------------------------------------------------------

export type EventKind = 'R' | 'W' | 'F' | 'PF' | 'B';

/**
 * One event. A read-modify-write gives two events (R then W) linked by `rmwPartner`
 * (the atomicity pair, 8.10.3); a failed one gives only its R.
 */
export interface MemEvent {
  id: number;
  kind: EventKind;
  /** Thread (or async agent) that performs it; async agents have ids >= number of threads. */
  thread: number;
  /** The thread that issued it (differs for async agents). */
  issuer: number;
  /** Position in the performing thread's program order. */
  po: number;
  cta: number;
  cluster: number;
  gpu: number;
  // memory events
  /** Virtual address (location name as written). */
  addr?: string;
  /** Physical location (root of the alias chain). */
  loc?: string;
  proxy?: Proxy;
  value?: bigint;
  sem: Sem;
  scope: Scope;
  /** Part of an atomic operation (8.4). */
  atomic?: boolean;
  /** A `red`-like reduction (8.11.1). */
  reduction?: boolean;
  rmwPartner?: number;
  /** Fences: which proxy fence (`PF`), and the state space it is limited to (undefined: every one). */
  proxyFence?: Proxy | 'alias';
  proxySpace?: ProxyFenceSpace;
  /** `fence.proxy.tensormap::generic.acquire [addr], 128`: the (physical) location it covers (undefined: every one). */
  proxyLoc?: string;
  /** A uni-directional proxy fence's form (`fence.proxy.tensormap::generic.release` / `.acquire`). */
  proxyDir?: 'release' | 'acquire';
  /** Memory operations: the state space of the object accessed, and for shared memory the CTA (and GPU) that owns it. */
  objSpace?: Space;
  objCta?: number;
  objGpu?: number;
  /** Barriers: id of the barrier instance this arrival belongs to. */
  barrier?: string;
  /** Dependencies: ids of reads whose values this event's address/value/control used (8.10.4). */
  deps: number[];
  /** The register a read writes, for the outcome. */
  dst?: string;
  /** Async-agent only: completion events (the implicit complete-tx) carry `completionOf`. */
  completionOf?: number;
  /** Source line. */
  line?: number;
  /** Kind of instruction, for messages: `ld`, `st`, `atom`, ... as the reader supplied. */
  label?: string;
  /** An element of a vector operation (8.2.4): no program order with the other elements of its group. */
  vector?: { readonly group: number; readonly element: number };
}

/** The 8.10 axioms, by section. */
export type Axiom = '8.10.1 Coherence' | '8.10.2 Fence-SC' | '8.10.3 Atomicity' | '8.10.4 No Thin Air' | '8.10.5 SC per location' | '8.10.6 Causality';

/** A planted fault: a deliberate change to the model used to check that the tests catch it. */
export type ModelFault =
  | 'drop-coherence'
  | 'drop-fence-sc'
  | 'drop-atomicity'
  | 'drop-no-thin-air'
  | 'drop-sc-per-location'
  | 'drop-causality'
  | 'cluster-as-gpu'
  | 'async-as-generic'
  | 'ignore-8.11.1';

export const MODEL_FAULTS: readonly ModelFault[] = [
  'drop-coherence',
  'drop-fence-sc',
  'drop-atomicity',
  'drop-no-thin-air',
  'drop-sc-per-location',
  'drop-causality',
  'cluster-as-gpu',
  'async-as-generic',
  'ignore-8.11.1',
];

/** One final outcome: its values (`P0:r0`, `x`), allowed, or the first axiom forbidding it. */
export interface Outcome {
  values: Record<string, string>;
  allowed: boolean;
  axiom?: Axiom;
}

export interface Judgement {
  name: string;
  quantifier: Quantifier;
  /** The final condition holds under the model (Dat3M's CSV value 1). */
  holds: boolean;
  outcomes: Outcome[];
  /** Candidate executions enumerated. */
  executions: number;
  ms: number;
}

export interface Problem {
  file: string;
  line: number;
  col: number;
  message: string;
}

/** The registers an expression reads. */
export function regsIn(e: Expr): string[] {
  return e.k === 'reg' ? [e.r] : e.k === 'bin' ? [...regsIn(e.a), ...regsIn(e.b)] : [];
}
