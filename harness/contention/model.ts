/**
 * The reference model under contention: N operations of one variant on one address (a vector or
 * packed form: on one group of adjacent elements), judged exactly, as allowed sets built from the
 * model's own one-operation outcomes (reference(), the family's rules: flushing, rounding, NaN).
 *
 * What the spec allows (CONTENTION_RULES, cited):
 * - operations whose scopes all include one another are atomic: their effect is some sequential
 *   order. For `atom`, whose returned old values are the states before each operation, the
 *   observation must be one linearisation: a permutation in which each returned value is exactly
 *   the state before that operation and the final memory the state after the last (linearise()
 *   reconstructs it). For `red` and bulk reductions, only the final value is seen: it must be the
 *   result of some order (orderSet(): every order for up to MAX_ORDER_N operations, memoised; more
 *   operations only where every order gives one result, orderFree());
 * - otherwise each operation may be split into a read and a dependent write, interleaved with the
 *   others (splitExplains(), splitSet(): small N), so updates may be lost;
 * - packed and vector forms are atomic per scalar element: every lane is judged on its own, with its
 *   own order.
 * This module names no family: the step of one operation on one lane comes from reference().
 */
import type { Citation } from '../catalog/cite.js';
import { cite } from '../catalog/cite.js';
import { type ElementFormat, type FloatFormat, elementFormat, joinLanes, splitLanes } from '../numerics/formats.js';
import type { Allowed } from '../numerics/ops.js';
import { CaseError, type ModelVariant, reference } from '../reference/model.js';
import { hexBits } from '../numerics/hex.js';

export interface ContentionRule {
  readonly id: string;
  readonly text: string;
  readonly cite: Citation;
}

/** The sentences the contention judgement encodes, one row each. */
export const CONTENTION_RULES = {
  atomic: {
    id: 'contention.atomic-scopes',
    text: 'operations whose scopes include one another are atomic with respect to each other: their effect is some sequential order',
    cite: cite(
      'atom.md',
      'Description',
      'Two atomic operations (atom or red) are performed atomically with respect to each other only if each operation specifies a scope that includes the other.',
    ),
  },
  split: {
    id: 'contention.split-read-write',
    text: 'where a scope does not include the other operation, each operation may be seen as a read followed by a dependent write (updates may be lost)',
    cite: cite(
      'atom.md',
      'Description',
      'When this condition is not met, each operation observes the other operation being performed as if it were split into a read followed by a dependent write.',
    ),
  },
  scopes: {
    id: 'contention.scope-sets',
    text: 'a scope is a set of threads (.cta: one CTA; .cluster: one cluster; .gpu: the device; .sys: the system, as the memory consistency model defines them); no .scope means .gpu: so .cta does not include other CTAs, .cluster not other clusters',
    cite: cite(
      'atom.md',
      'Description',
      'The optional .scope qualifier specifies the set of threads that can directly observe the memory synchronizing effect of this operation / If the .scope qualifier is absent, .gpu scope is assumed by default.',
    ),
  },
  perElement: {
    id: 'contention.per-element',
    text: 'a packed or vector atom is atomic per scalar element, not as a whole: each lane has its own order',
    cite: cite(
      'atom.md',
      'Description',
      'In such cases, the atomicity is guaranteed separately for each of the individual scalar elements; the entire atom is not guaranteed to be atomic as a single access.',
    ),
  },
} as const satisfies Record<string, ContentionRule>;

/** Every order of up to this many operations is enumerated (8! = 40,320; the subset walk is 2^8 sets). */
export const MAX_ORDER_N = 8;
/** Split read/write interleavings are searched for up to this many operations. */
export const MAX_SPLIT_N = 6;

export interface ContentionOp {
  /** Operand b (bulk: the source), one element per vector element. */
  readonly b: readonly bigint[];
  /** cas: operand c. */
  readonly c?: readonly bigint[];
}

export interface ContentionCase {
  readonly variant: ModelVariant;
  /** Memory before the operations: one element per vector element. */
  readonly memory: readonly bigint[];
  readonly ops: readonly ContentionOp[];
  /** Where a generic address lands. */
  readonly space?: 'global' | 'shared';
}

/** A lane's state: its bits, or NAN for "some NaN" (a state the model leaves open as any NaN). */
const NAN = -1n;

/**
 * One lane of a contention case: its bit width, and the model's one-operation step from state r
 * by operation i (memoised; any NaN state is fed to the model as the canonical NaN, whose payload
 * the operations here never read: add gives any NaN, min/max the other operand, cas/exch are on
 * bit types).
 */
export interface Lane {
  readonly index: number;
  readonly element: number;
  readonly lane: number;
  readonly bits: number;
  readonly initial: bigint;
  step(r: bigint, i: number): Allowed;
  isNaN(x: bigint): boolean;
}

function laneNaN(fmt: ElementFormat): (x: bigint) => boolean {
  const lf = fmt.lane;
  if (lf.kind !== 'float') return () => false;
  const f = lf as FloatFormat;
  const expMask = (1n << BigInt(f.expBits)) - 1n;
  const fracMask = (1n << BigInt(f.fracBits)) - 1n;
  return (x) => ((x >> BigInt(f.fracBits)) & expMask) === expMask && (x & fracMask) !== 0n;
}

/** The lanes of a case (elements x packed lanes), each with its step. */
export function lanesOf(c: ContentionCase): Lane[] {
  const fmt = elementFormat(c.variant.q.type ?? '');
  const isNaN = laneNaN(fmt);
  const canonical = fmt.lane.kind === 'float' ? BigInt((fmt.lane as FloatFormat).canonicalNaN) : 0n;
  const out: Lane[] = [];
  c.memory.forEach((el, e) => {
    const init = splitLanes(fmt, el);
    init.forEach((x, j) => {
      const memo = new Map<string, Allowed>();
      out.push({
        index: out.length,
        element: e,
        lane: j,
        bits: fmt.lane.bits,
        initial: x,
        isNaN,
        step: (r, i) => {
          const key = `${r}|${i}`;
          let a = memo.get(key);
          if (!a) {
            const lanes = [...init];
            lanes[j] = r === NAN ? canonical : r;
            const memory = c.memory.map((m, k) => (k === e ? joinLanes(fmt, lanes) : m));
            const op = c.ops[i]!;
            const out = reference(c.variant, { memory, b: op.b, source: op.b, ...(op.c ? { c: op.c } : {}), ...(c.space ? { space: c.space } : {}) });
            const m = out.memory?.[e]?.[j];
            if (!m) throw new CaseError('the model gives no memory outcome for this variant');
            a = m;
            memo.set(key, a);
          }
          return a;
        },
      });
    });
  });
  return out;
}

/** The states an Allowed set stands for (NAN for any NaN). */
function statesOf(a: Allowed): bigint[] {
  return a.anyNaN ? [...a.bits, NAN] : [...a.bits];
}

/** Whether observed bits x are the state s (NAN: any NaN). */
function isState(l: Lane, s: bigint, x: bigint): boolean {
  return s === NAN ? l.isNaN(x) : s === x;
}

/** Whether Allowed a admits observed bits x. */
function admits(l: Lane, a: Allowed, x: bigint): boolean {
  return a.bits.includes(x) || (a.anyNaN && l.isNaN(x));
}

/**
 * atom with every scope including the others: an order of the operations (indices) in which each
 * returned value is the state before it and `final` the state after the last; undefined when there
 * is none. `returned[i]` and `final` are this lane's observed bits. Equal (returned value, operand)
 * pairs are interchangeable, so the search visits each multiset of remaining operations once.
 */
export function linearise(l: Lane, ops: number, returned: readonly bigint[], final: bigint): number[] | undefined {
  if (returned.length !== ops) throw new CaseError(`${returned.length} returned values for ${ops} operations`);
  const sig = returned.map((r, i) => `${r}|${l.step(r, i).bits.join(',')}|${l.step(r, i).anyNaN}`);
  const dead = new Set<string>();
  const used = new Uint8Array(ops);
  const order: number[] = [];
  const go = (state: bigint): boolean => {
    if (order.length === ops) return state === final;
    const key = `${state}|${[...used].join('')}`;
    if (ops > 12 && dead.has(key)) return false;
    const tried = new Set<string>();
    for (let i = 0; i < ops; i++) {
      if (used[i] || returned[i] !== state || tried.has(sig[i]!)) continue;
      tried.add(sig[i]!);
      const next = l.step(state, i);
      used[i] = 1;
      order.push(i);
      // the next state is what the next operation returned, or the final memory; it must be allowed
      const cands = new Set<bigint>();
      if (order.length === ops) {
        if (admits(l, next, final)) cands.add(final);
      } else for (let k = 0; k < ops; k++) if (!used[k] && admits(l, next, returned[k]!)) cands.add(returned[k]!);
      for (const s of cands) if (go(s)) return true;
      order.pop();
      used[i] = 0;
    }
    if (ops > 12) dead.add(key);
    return false;
  };
  // the first operation returns the memory before all of them
  return returned.includes(l.initial) && go(l.initial) ? [...order] : undefined;
}

/** Memo of order sets: variant, lane step identity and operand multiset. */
const orderMemo = new Map<string, bigint[]>();

/**
 * Every final state some order of the operations gives (NAN for any NaN): the walk over subsets of
 * operations applied, up to MAX_ORDER_N operations; beyond, only where orderFree() says every order
 * gives one result (then that of the given order). `memoKey` names the lane's step (variant, lane,
 * operands) so equal cases share the set.
 */
export function orderSet(l: Lane, ops: number, opts: { free?: boolean; memoKey?: string } = {}): bigint[] {
  const memoKey = opts.memoKey;
  const hit = memoKey ? orderMemo.get(memoKey) : undefined;
  if (hit) return hit;
  let out: bigint[];
  if (ops > MAX_ORDER_N) {
    if (!opts.free)
      throw new CaseError(
        `every order of ${ops} operations is not enumerated (up to ${MAX_ORDER_N}); use operands whose every order gives one result (exact partial sums)`,
      );
    let s = new Set<bigint>([l.initial]);
    for (let i = 0; i < ops; i++) s = new Set([...s].flatMap((x) => statesOf(l.step(x, i))));
    out = [...s];
  } else {
    // states[mask]: the states after applying the operations in mask, in some order
    const states: Set<bigint>[] = new Array(1 << ops);
    states[0] = new Set([l.initial]);
    for (let mask = 1; mask < 1 << ops; mask++) {
      const acc = new Set<bigint>();
      for (let i = 0; i < ops; i++) {
        if (!(mask & (1 << i))) continue;
        for (const x of states[mask & ~(1 << i)]!) for (const y of statesOf(l.step(x, i))) acc.add(y);
      }
      states[mask] = acc;
    }
    out = [...states[(1 << ops) - 1]!];
  }
  if (memoKey) orderMemo.set(memoKey, out);
  return out;
}

/** Whether observed bits x are in an order set. */
export function inSet(l: Lane, set: readonly bigint[], x: bigint): boolean {
  return set.some((s) => isState(l, s, x));
}

/**
 * Split read/write semantics: whether some interleaving of reads and dependent writes gives the
 * observed final memory (and, where `returned` is given, reads that returned those values). Each
 * operation reads the memory at one point and later writes its step of what it read. Up to
 * MAX_SPLIT_N operations.
 */
export function splitExplains(l: Lane, ops: number, final: bigint, returned?: readonly bigint[]): boolean {
  if (ops > MAX_SPLIT_N) throw new CaseError(`split read/write interleavings are searched for up to ${MAX_SPLIT_N} operations, not ${ops}`);
  // status per op: 0 not read, 1 read (value in read[i]), 2 written
  const status = new Uint8Array(ops);
  const read: bigint[] = new Array(ops).fill(0n);
  const seen = new Set<string>();
  const go = (mem: bigint, done: number): boolean => {
    if (done === ops) return isState(l, mem, final);
    const key = `${mem}|${[...status].join('')}|${read.join(',')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    for (let i = 0; i < ops; i++) {
      if (status[i] === 0) {
        if (returned && !isState(l, mem, returned[i]!)) continue;
        status[i] = 1;
        read[i] = mem;
        if (go(mem, done)) return true;
        status[i] = 0;
        read[i] = 0n;
      } else if (status[i] === 1) {
        const r = read[i]!;
        status[i] = 2;
        for (const s of statesOf(l.step(r, i))) if (go(s, done + 1)) return true;
        status[i] = 1;
      }
    }
    return false;
  };
  return go(l.initial, 0);
}

/** Every final state of some split read/write interleaving (small N). */
export function splitSet(l: Lane, ops: number): bigint[] {
  if (ops > MAX_SPLIT_N) throw new CaseError(`split read/write interleavings are searched for up to ${MAX_SPLIT_N} operations, not ${ops}`);
  const out = new Set<bigint>();
  const status = new Uint8Array(ops);
  const read: bigint[] = new Array(ops).fill(0n);
  const seen = new Set<string>();
  const go = (mem: bigint, done: number): void => {
    if (done === ops) {
      out.add(mem);
      return;
    }
    const key = `${mem}|${[...status].join('')}|${read.join(',')}`;
    if (seen.has(key)) return;
    seen.add(key);
    for (let i = 0; i < ops; i++) {
      if (status[i] === 0) {
        status[i] = 1;
        read[i] = mem;
        go(mem, done);
        status[i] = 0;
        read[i] = 0n;
      } else if (status[i] === 1) {
        status[i] = 2;
        for (const s of statesOf(l.step(read[i]!, i))) go(s, done + 1);
        status[i] = 1;
      }
    }
  };
  go(l.initial, 0);
  return [...out];
}

/**
 * Whether every order of the operations gives one result, so a large N needs no enumeration: all
 * steps single-valued and, for float add, every operand and the initial value integer multiples of
 * one power of two 2^q >= the smallest normal, with the sum of magnitudes below 2^(precision + q) (every
 * partial sum is then exact and normal or zero, whatever the order); integer add/min/max and the
 * bitwise ops, and float min/max without NaN or a signed zero, are order-free by their algebra.
 * `values`: the lane's initial memory and every operand.
 */
export function orderFree(fmt: ElementFormat, op: string, values: readonly bigint[]): boolean {
  const lf = fmt.lane;
  if (lf.kind === 'int') return ['add', 'min', 'max', 'and', 'or', 'xor'].includes(op);
  const f = lf as FloatFormat;
  const p = f.fracBits + 1;
  const bias = (1 << (f.expBits - 1)) - 1;
  const decoded: { sign: number; exp: number; mant: bigint }[] = [];
  for (const v of values) {
    const e = Number((v >> BigInt(f.fracBits)) & ((1n << BigInt(f.expBits)) - 1n));
    const m = v & ((1n << BigInt(f.fracBits)) - 1n);
    const sign = Number(v >> BigInt(f.bits - 1)) & 1;
    if (e === (1 << f.expBits) - 1) return false; // inf, NaN
    if (e === 0 && m !== 0n) return false; // subnormal
    if (e === 0) {
      if (op !== 'add') return false; // a signed zero: min/max order matters for -0/+0
      continue;
    }
    // the value as an odd integer times a power of two
    let mant = m | (1n << BigInt(f.fracBits));
    let exp = e - bias - f.fracBits;
    while ((mant & 1n) === 0n) {
      mant >>= 1n;
      exp++;
    }
    decoded.push({ sign, exp, mant });
  }
  if (op === 'min' || op === 'max') return true;
  if (op !== 'add') return false;
  if (!decoded.length) return true;
  const q = Math.min(...decoded.map((d) => d.exp));
  // a nonzero partial sum is a multiple of 2^q: normal when 2^q >= the smallest normal 2^(1-bias);
  // below 2^(p+q) it is exact, and below the largest finite when p + q <= bias + 1
  if (q < 1 - bias || p + q > bias + 1) return false;
  let sum = 0n;
  for (const d of decoded) sum += d.mant << BigInt(d.exp - q);
  return sum < 1n << BigInt(p);
}

/** What a contention case's hardware run left: the final memory, and for atom each operation's returned values. */
export interface ContentionObserved {
  /** One element per vector element. */
  readonly memory: readonly bigint[];
  /** Per operation, one element per vector element (atom with a destination). */
  readonly returned?: readonly (readonly bigint[])[];
}

export interface LaneJudgement {
  readonly element: number;
  readonly lane: number;
  /** atom, atomic: the order reconstructed from the returned values (operation indices). */
  readonly order?: readonly number[];
  /** red/bulk, atomic: how many final states some order gives. */
  readonly allowed?: number;
  /** Whether an atomic (sequential) execution explains the lane. */
  readonly atomic: boolean;
  /** Whether a split read/write interleaving explains it (computed when atomic does not, N <= MAX_SPLIT_N). */
  readonly split?: boolean;
}

export interface ContentionJudgement {
  /** pass: explained as the scopes say; observed: a narrow scope's allowance was used (updates lost) or could not be decided past MAX_SPLIT_N; mismatch: not allowed. */
  readonly verdict: 'pass' | 'observed' | 'mismatch';
  readonly reason: string;
  readonly lanes: readonly LaneJudgement[];
  /** Whether some lane lost an update (no sequential order explains it). */
  readonly lostUpdate: boolean;
  readonly rules: readonly ContentionRule[];
}

/**
 * Judges one contention case. `atomic`: every participant's scope includes the others (else the
 * split read/write semantics apply). Returned values are judged where given (atom with a
 * destination): the order must be one linearisation; else the final memory against the order set.
 * `lanes` (lanesOf(c)) carry the memoised one-operation steps: pass the same ones to judge several
 * outcomes of one case.
 */
export function judgeContention(c: ContentionCase, obs: ContentionObserved, atomic: boolean, lanes: readonly Lane[] = lanesOf(c)): ContentionJudgement {
  const fmt = elementFormat(c.variant.q.type ?? '');
  const n = c.ops.length;
  const rules: ContentionRule[] = [
    atomic ? CONTENTION_RULES.atomic : CONTENTION_RULES.split,
    CONTENTION_RULES.scopes,
    ...(lanes.length > 1 ? [CONTENTION_RULES.perElement] : []),
  ];
  const out: LaneJudgement[] = [];
  const bad: string[] = [];
  const lost: string[] = [];
  for (const l of lanes) {
    const final = splitLanes(fmt, obs.memory[l.element]!)[l.lane]!;
    const returned = obs.returned?.map((r) => splitLanes(fmt, r[l.element]!)[l.lane]!);
    const where = lanes.length > 1 ? `element ${l.element}${fmt.lanes > 1 ? ` lane ${l.lane}` : ''}: ` : '';
    let j: LaneJudgement;
    if (returned) {
      const order = linearise(l, n, returned, final);
      j = { element: l.element, lane: l.lane, atomic: order !== undefined, ...(order ? { order } : {}) };
    } else {
      const free = n > MAX_ORDER_N && orderFree(fmt, c.variant.q.op ?? '', [l.initial, ...c.ops.map((o) => splitLanes(fmt, o.b[l.element]!)[l.lane]!)]);
      const set = orderSet(l, n, { free });
      j = { element: l.element, lane: l.lane, atomic: inSet(l, set, final), allowed: set.length };
    }
    if (!j.atomic && n <= MAX_SPLIT_N) j = { ...j, split: splitExplains(l, n, final, returned) };
    out.push(j);
    const hex = (x: bigint) => hexBits(l.bits, x);
    if (!j.atomic) {
      const what = returned
        ? `returned ${returned.map(hex).join(', ')} and final ${hex(final)} are no order of the ${n} operations`
        : `final ${hex(final)} is not the result of any order of the ${n} operations (${j.allowed} allowed)`;
      if (j.split) lost.push(`${where}${what}; a split read/write interleaving gives it (an update lost)`);
      else if (atomic || n <= MAX_SPLIT_N) bad.push(`${where}${what}${n <= MAX_SPLIT_N ? ', nor of any split read/write interleaving' : ''}`);
      else lost.push(`${where}${what}; split read/write interleavings of ${n} operations are not searched (up to ${MAX_SPLIT_N})`);
    }
  }
  const orders = out.filter((j) => j.order).map((j) => `${lanes.length > 1 ? `[${j.element}.${j.lane}] ` : ''}${j.order!.join(' ')}`);
  if (atomic && (bad.length || lost.length)) {
    return { verdict: 'mismatch', reason: `not atomic: ${[...bad, ...lost].join('; ')}`, lanes: out, lostUpdate: lost.length > 0, rules };
  }
  if (bad.length) return { verdict: 'mismatch', reason: bad.join('; '), lanes: out, lostUpdate: false, rules };
  if (lost.length) return { verdict: 'observed', reason: `narrow scope: ${lost.join('; ')}`, lanes: out, lostUpdate: true, rules };
  return {
    verdict: 'pass',
    reason: orders.length
      ? `one linearisation: order ${orders.join('; ')}`
      : `the final memory is the result of some order (${out.map((j) => j.allowed).join(', ')} allowed)`,
    lanes: out,
    lostUpdate: false,
    rules,
  };
}
