/**
 * Whether a litmus test runs on the GPU in this slice, and where its threads and locations go (the
 * plan kernel.ts writes the PTX module from); else why it is skipped.
 */
import { type Cond, type Expr, type Instr, type LitmusTest, type Term, regsIn } from '../memory-model/events.js';

/** Where each test thread runs, and the launch that holds NG groups. */
export interface Placement {
  /** Test clusters (KC), the CTAs of the largest (CS), the test threads of the largest test CTA (TW). */
  readonly clusters: number;
  readonly clusterSize: number;
  readonly threadsPerCta: number;
  /** Per test thread: its test cluster, CTA rank in that cluster, warp index in its CTA. */
  readonly at: readonly { cluster: number; rank: number; warp: number }[];
  /** Distinct barrier ids the test uses (plan.barriers): each warp group of a CTA gets its own hardware barriers. */
  readonly barrierIds?: number;
  /** The most warp groups a CTA's shared memory holds the copies of (absent: no limit but the warps'). */
  readonly maxWarpGroups?: number;
}

export interface TestPlan {
  readonly test: LitmusTest;
  readonly placement: Placement;
  /** Location names in the order of `mem` (j). */
  readonly locs: readonly string[];
  /** The condition's keys (`P1:r0`, `x`) in key order: registers first, then locations. */
  readonly keys: readonly string[];
  readonly regKeys: readonly { thread: number; reg: string }[];
  readonly memKeys: readonly string[];
  readonly init: readonly number[];
  /** The test's source text (instructions are emitted from their own column). */
  readonly text: string;
  /** Bits of each location's value (32 or 64), in `locs` order. */
  readonly locBits: readonly number[];
  /** Bits of each key's value (32 or 64), in `keys` order: a 64-bit key is two words (low, high) on the device. */
  readonly keyBits: readonly number[];
  /** Bits of each register (`<thread>:<reg>`) the test's accesses use (absent: 32). */
  readonly regBits: Readonly<Record<string, number>>;
  /** Bytes of one copy of a location in `mem` (8 when any location is 64-bit, else 4); `--stride` counts these. */
  /**
   * Bytes per location copy: 4, 8 for 64-bit values, 16 where a bulk operation reads or writes (a bulk operation moves a multiple of
   * 16 bytes, 16-byte aligned: 9.7.10.28), 32 to 64 where an array of more than four elements needs more chunks, 128 where a bulk tensor operation does (its shared memory source 128-byte aligned, as the
   * tensor family's kernel has it).
   */
  readonly slotBytes: number;
  /** Per location: an mbarrier's tx count on the GPU (its owner inits it to 1 arrival, then arrive.expect_tx of this), else undefined. */
  readonly mbarriers?: readonly (number | undefined)[];
  /**
   * Per location (`locs` order), for shared memory: the test thread that initialises it before the
   * instance's code and copies its final value to the location's copy in `mem` after (the first thread
   * of its owner CTA), and the index of its array in the CTA's shared memory; undefined for global memory.
   */
  readonly shared: readonly ({ readonly owner: number; readonly index: number } | undefined)[];
  /**
   * Per location (`locs` order), for a virtual alias (`y @ generic aliases x`, 8.2.2): the view of
   * `mem` it is read and written through (1, 2, ...: the run maps `mem`'s one allocation once more per
   * alias, lt_test gets the distance between views) and the location (index) whose copies it aliases.
   */
  readonly aliases?: readonly ({ readonly view: number; readonly of: number } | undefined)[];
  /**
   * The test has a loop (a backward branch). Each thread counts the backward branches it takes; at
   * LOOP_BOUND it gives up, sets its instance's give-up word (location index `locs.length + 1` of
   * `mem`) and ends its code; lt_count counts such an instance in the histogram's last word instead of
   * judging it (the model unrolls a loop: an instance that never left it has no outcome to judge).
   */
  readonly loops?: true;
  /**
   * Per barrier instruction (`<thread>:<index in its code>`): the index of its id among the test's
   * distinct ids (the hardware barrier is warp group * barrierIds + index) and the threads of its
   * group (the count of `barrier.sync`/`barrier.arrive` is 32 times that: one warp per test thread).
   */
  readonly barriers?: Readonly<Record<string, { readonly id: number; readonly threads: number }>>;
  /**
   * Tensor maps (`tm @ tensormap d0, d1`), in `locs` order of their locations: each instance has its
   * own 128-byte map of each (buffer `ptm`, map k of instance i at (k * NI + i) * 128), a 1-D map of
   * 32-bit elements over the copies of the location it points at (`targets`: location indices; the
   * first at the start, which lt_count restores after each launch), of the rank its operations name
   * ({@link tensorMapGeometry}). Its module targets the arch's `a`
   * variant (tensormap.replace needs sm_90a).
   */
  readonly tensorMaps?: readonly { readonly loc: number; readonly targets: readonly number[]; readonly rank: number; readonly mode: 'tile' | 'im2col' }[];
  /** Per location (`locs` order), for an array's element (`d+4`): its array's location index and its byte offset in the array's copy. */
  readonly elements?: readonly ({ readonly of: number; readonly offset: number } | undefined)[];
}

export type Plan = { ok: true; plan: TestPlan } | { ok: false; reason: string };

/**
 * The asynchronous operations this slice runs, on 32-bit elements: bulk reductions from .shared::cta
 * into global memory with bulk_group completion, or into .shared::cluster memory with mbarrier
 * completion, red.async on .shared::cluster memory (mbarrier completion), and the bulk copies of
 * every direction (one 16-byte chunk).
 */
const BULK_RUNS =
  /^(cp\.reduce\.async\.bulk\.(global\.shared::cta\.bulk_group|shared::cluster\.shared::cta\.mbarrier::complete_tx::bytes)|red\.async\.relaxed\.cluster(\.shared::cluster)?\.mbarrier::complete_tx::bytes)\.(add|min|max|inc|dec|and|or|xor)\.(u32|s32|b32)$|^cp\.async\.bulk(\.weak)?\.((shared::cta|shared::cluster)\.global|shared::cluster\.shared::cta)\.mbarrier::complete_tx::bytes$|^cp\.async\.bulk(\.weak)?\.global\.shared::cta\.bulk_group$|^cp\.reduce\.async\.bulk\.tensor\.[1-5]d\.global\.shared::cta\.(add|min|max|inc|dec|and|or|xor)(\.tile|\.im2col_no_offs)?\.bulk_group$|^cp\.async\.bulk\.tensor\.[1-5]d\.(shared::cluster\.global(\.tile|\.im2col)?\.mbarrier::complete_tx::bytes|global\.shared::cta(\.tile|\.im2col_no_offs)?\.bulk_group)$/;

/** The skip reason of a test that uses the texture, surface or constant proxy: one no kernel of this runner can overcome. */
export const NO_KERNEL_PROXY = 'the texture, surface and constant proxies are not run (the runner has no texture, surface or constant objects)';

/** Why a test whose barriers would leave a thread waiting forever is not run: the model has no execution for it, and the kernel would hang. */
export const BARRIER_HANG = 'a thread would wait at the barrier forever: the model stops it there, a kernel would hang';
/** Why a test whose barriers deadlock is not run. */
export const BARRIER_DEADLOCK = 'a deadlock: the model has no execution, a kernel would hang';
/** Why a barrier whose id or quorum is loaded at run time is not run. */
export const BARRIER_DYNAMIC =
  "bar.sync's thread count must be given before the run, and how many threads arrive at each barrier depends on the loaded value: not run";

/** The value of a constant, or of a register the thread never writes (its initial value); else undefined. */
function staticValue(th: LitmusTest['threads'][number], e: Expr, init: Readonly<Record<string, bigint>>): bigint | undefined {
  if (e.k === 'const') return e.v;
  if (e.k !== 'reg') return undefined;
  const written = th.code.some((i) => ('dst' in i && i.dst === e.r) || (i.kind === 'local' && i.dst === e.r));
  return written ? undefined : (init[e.r] ?? 0n);
}

/** Whether the branch at index b (to label `target`) may skip or repeat the instruction at index i (i lies between them). */
function crosses(code: LitmusTest['threads'][number]['code'], b: number, target: string, i: number): boolean {
  const g = code.findIndex((x) => x.kind === 'label' && x.name === target);
  return g >= 0 && Math.min(b, g) < i && i < Math.max(b, g);
}

/** The location a name stands for after its generic aliases and non-generic views (8.2.2): the physical one. */
export function physicalOf(test: LitmusTest, name: string): string {
  let n = name;
  for (let k = 0; k < 16 && test.locations[n]?.aliasOf; k++) n = test.locations[n]!.aliasOf!;
  return n;
}

/** The target a test's module is written for: the arch's `a` variant where it writes a tensor map (tensormap.replace needs sm_90a). */
export function moduleArch(plan: Pick<TestPlan, 'tensorMaps'>, arch: string): string {
  return plan.tensorMaps && !arch.endsWith('a') ? `${arch}a` : arch;
}

/** Whether an expression is register arithmetic the kernel computes (+ - * & | ^ of registers and constants; no comparison). */
export function arithmetic(e: Expr): boolean {
  return e.k !== 'bin' || (['+', '-', '*', '&', '|', '^'].includes(e.op) && arithmetic(e.a) && arithmetic(e.b));
}

/** The registers an expression reads. */
export { regsIn };

export const TYPE_RE = /\.((?:b|u|s|f)(?:8|16|32|64|128)|f16x2|bf16x2)$/;

/** Bits of a value of `.type` (the packed `.f16x2`/`.bf16x2` are one 32-bit word). */
export function typeBits(type: string): number {
  return type === 'f16x2' || type === 'bf16x2' ? 32 : Number(/\d+$/.exec(type)?.[0] ?? 32);
}

function terms(c: Cond, acc: Term[] = []): Term[] {
  if (c.k === 'cmp') acc.push(c.a, c.b);
  else if (c.k === 'and' || c.k === 'or') terms(c.a, acc), terms(c.b, acc);
  else if (c.k === 'not') terms(c.a, acc);
  return acc;
}

/** The source text of a thread's instruction (its column of its row). */
export function sourceOf(lines: readonly string[], ins: { line?: number }, thread: number): string | undefined {
  if (ins.line === undefined) return undefined;
  const col = lines[ins.line - 1]?.split('|')[thread];
  return col?.replace(/;\s*$/, '').trim();
}

/**
 * An untyped `atom`/`red` (Dat3M's peer tests write `atom.relaxed.gpu.add`) with the 32-bit type its
 * operation takes: `.u32` for add/inc/dec/min/max, `.b32` for exch/cas/and/or/xor; undefined for others.
 */
export function typedRmw(op: string): string | undefined {
  if (TYPE_RE.test(op)) return op;
  const last = op.split('.').pop() ?? '';
  if (['add', 'inc', 'dec', 'min', 'max'].includes(last)) return `${op}.u32`;
  if (['exch', 'cas', 'and', 'or', 'xor'].includes(last)) return `${op}.b32`;
  return undefined;
}

/** Whether the test runs in this slice, and its placement; else why not. */
export function planTest(test: LitmusTest, text: string): Plan {
  const no = (reason: string): Plan => ({ ok: false, reason });
  if (test.threads.length > 8) return no(`${test.threads.length} threads (at most 8 run)`);
  for (const l of Object.values(test.locations)) {
    if (l.space !== 'global' && l.space !== 'shared') return no(`location ${l.name} is in ${l.space} memory (global and shared memory run)`);
    if (l.space === 'shared' && (l.ownerGpu ?? 0) !== 0) return no(`location ${l.name} is shared memory of a CTA on gpu ${l.ownerGpu} (one GPU only)`);
    if (l.space === 'shared' && !test.threads.some((t) => t.cta === l.ownerCta && t.gpu === 0))
      return no(
        `location ${l.name} is shared memory of CTA ${l.ownerCta}, where no thread of the test runs (its CTA would exit while others use its shared memory)`,
      );
    if (l.aliasOf && (l.proxy ?? 'generic') === 'generic' && test.locations[physicalOf(test, l.name)]?.space !== 'global')
      return no(`location ${l.name} is a virtual alias of shared memory (virtual aliases are made of global memory: one allocation mapped twice)`);
    if (l.init < 0n || l.init > 0xffffffffn) return no(`location ${l.name} starts at ${l.init}, not a 32-bit value (initial values above 32 bits are not run)`);
  }
  const lines = text.split('\n');
  // value bits per location and per register: from the typed accesses (32 or 64); an untyped ld/st takes its location's
  const locBits = new Map<string, number>();
  const regBits = new Map<string, number>();
  const widthOf = (op: string, kind: string): number | undefined => {
    const ty = TYPE_RE.exec(op)?.[1] ?? (kind === 'rmw' ? TYPE_RE.exec(typedRmw(op) ?? '')?.[1] : undefined);
    return ty ? typeBits(ty) : undefined;
  };
  for (const th of test.threads)
    for (const ins of th.code) {
      if (ins.kind !== 'read' && ins.kind !== 'write' && ins.kind !== 'rmw') continue;
      if (test.locations[ins.loc]?.tensorMap) continue; // a tensor map: 128 bytes of its own (plan.tensorMaps)
      const bits = widthOf(sourceOf(lines, ins, th.id)?.split(/\s+/)[0] ?? '', ins.kind);
      if (bits === undefined || (bits !== 32 && bits !== 64)) continue; // refused below
      const had = locBits.get(ins.loc);
      if (had !== undefined && had !== bits)
        return no(`location ${ins.loc} is accessed as ${had}-bit and as ${bits}-bit values (mixed-size accesses are not run: 8.7.2)`);
      locBits.set(ins.loc, bits);
    }
  let bulk = false;
  let loops = false;
  /** Per test CTA and barrier id: the arrivals (thread, code index, quorum, arrive-only). */
  const arrivals = new Map<string, { thread: number; index: number; q?: bigint; arrive: boolean }[]>();
  const bulkLocs = new Set<string>();
  const ranks = new Map<string, number>();
  const modes = new Map<string, 'tile' | 'im2col'>();
  /** Per mbarrier: the bytes of complete-tx the test's asynchronous operations perform in the model and on the GPU. */
  const mbarTx = new Map<string, { model: bigint; gpu: bigint }>();
  const mbarWaited = new Set<string>();
  for (const th of test.threads) {
    if (th.gpu !== 0) return no(`P${th.id} runs on gpu ${th.gpu} (one GPU only)`);
    for (const ins of th.code) {
      if ((ins.kind === 'read' || ins.kind === 'write' || ins.kind === 'rmw') && test.locations[ins.loc]?.tensorMap) {
        // tensormap.replace of the map's global address: emitted as written
        if (ins.kind !== 'write' || !/^tensormap\.replace\./.test(sourceOf(lines, ins, th.id) ?? ''))
          return no(`P${th.id} line ${ins.line}: an access of tensor map ${ins.loc} other than tensormap.replace (not run)`);
      } else if (ins.kind === 'read' || ins.kind === 'write' || ins.kind === 'rmw') {
        if (ins.proxy !== 'generic')
          return no(
            `P${th.id} line ${ins.line}: a ${ins.proxy}-proxy access (${ins.proxy === 'async' ? 'not run in this slice' : `${NO_KERNEL_PROXY}: ${ins.proxy} memory is read through a ${ins.proxy === 'constant' ? 'constant bank' : `${ins.proxy} object`}, not at a location's address`})`,
          );
        const src = sourceOf(lines, ins, th.id);
        const op = src?.split(/\s+/)[0] ?? '';
        const ty = TYPE_RE.exec(op);
        if (ty && typeBits(ty[1]!) !== 32 && typeBits(ty[1]!) !== 64)
          return no(`P${th.id} line ${ins.line}: ${op} is a ${typeBits(ty[1]!)}-bit access (32- and 64-bit values run)`);
        if (
          ins.space === 'shared::cta' || ins.space === 'shared::cluster'
            ? test.locations[ins.loc]?.space !== 'shared'
            : ins.space !== undefined && ins.space !== 'generic' && ins.space !== 'global'
        )
          return no(`P${th.id} line ${ins.line}: .${ins.space} on ${ins.loc} is not run`);
        if (ins.kind === 'rmw' && !/^(atom|red)\./.test(op)) return no(`P${th.id} line ${ins.line}: '${op}' (only atom and red run as read-modify-writes)`);
        if (/^red\./.test(op) && /\.(acq_rel|acquire)(\.|$)/.test(op))
          return no(
            `P${th.id} line ${ins.line}: '${op}' is not PTX (red takes .relaxed or .release only: 9.7.13.6 red, Syntax, ".sem = { .relaxed, .release }")`,
          );
        if (ins.kind === 'rmw' && !ty && !typedRmw(op))
          return no(`P${th.id} line ${ins.line}: '${op}' has no type and no 32-bit type follows from its operation`);
        const exprs: Expr[] = ins.kind === 'write' ? [ins.value] : ins.kind === 'rmw' ? ins.args : [];
        for (const e of exprs) if (!arithmetic(e)) return no(`P${th.id} line ${ins.line}: a computed operand with a comparison (not run in this slice)`);
        const bits = locBits.get(ins.loc) ?? 32;
        for (const r of [...('dst' in ins && ins.dst ? [ins.dst] : []), ...exprs.flatMap(regsIn)]) {
          const k = `${th.id}:${r}`;
          if ((regBits.get(k) ?? bits) !== bits) return no(`P${th.id} register ${r} holds ${regBits.get(k)}-bit and ${bits}-bit values (not run)`);
          regBits.set(k, bits);
        }
      } else if (ins.kind === 'local') {
        // register arithmetic (mov, add, sub, and, or, xor), at the width of its destination
        if (!arithmetic(ins.value)) return no(`P${th.id} line ${ins.line}: a comparison in register arithmetic (not run in this slice)`);
        const bits = regBits.get(`${th.id}:${ins.dst}`) ?? 32;
        for (const r of [ins.dst, ...regsIn(ins.value)]) {
          const k = `${th.id}:${r}`;
          if ((regBits.get(k) ?? bits) !== bits) return no(`P${th.id} register ${r} holds ${regBits.get(k)}-bit and ${bits}-bit values (not run)`);
          regBits.set(k, bits);
        }
      } else if (ins.kind === 'async') {
        // a bulk copy, a bulk reduction or red.async (BULK_RUNS), on 32-bit elements
        const op = sourceOf(lines, ins, th.id)?.split(/\s+/)[0] ?? '';
        if (/^red\.async(\.mmio)?\.release\./.test(op))
          return no(
            `P${th.id} line ${ins.line}: '${op}' needs sm_100 or higher (9.7.15.7: ".release semantics, .global state space, and .gpu and .sys scopes require sm_100 or higher"); this runner's GPUs are sm_90`,
          );
        if (!BULK_RUNS.test(op))
          return no(
            `P${th.id} line ${ins.line}: '${op}' (of the asynchronous operations, cp.async.bulk copies, cp.reduce.async.bulk into global memory (bulk_group) or .shared::cluster memory (mbarrier) and red.async run, on 32-bit elements)`,
          );
        bulk = true;
        for (const a of ins.accesses) for (const l of a.via ? a.via.targets : [a.loc]) bulkLocs.add(l);
        // a bulk tensor operation: its map's rank and mode (one each a map)
        if (ins.accesses[0]?.proxy === 'tensormap') {
          const tm = ins.accesses[0].loc;
          const r = Number(/\.tensor\.([1-5])d\./.exec(op)?.[1] ?? 1);
          const mode = /\.im2col/.test(op) ? 'im2col' : 'tile';
          if ((ranks.get(tm) ?? r) !== r)
            return no(`P${th.id} line ${ins.line}: tensor map ${tm} is used as ${ranks.get(tm)}-D and ${r}-D (a map has one rank)`);
          if ((modes.get(tm) ?? mode) !== mode)
            return no(`P${th.id} line ${ins.line}: tensor map ${tm} is used in .tile and .im2col modes (a map has one mode)`);
          ranks.set(tm, r);
          modes.set(tm, mode);
        }
        if (ins.completion.kind === 'mbarrier') {
          // the GPU moves whole 16-byte chunks where the model's bulk operation moves its elements: the phase expects what the GPU moves
          const gpuBytes = ins.accesses.some((a) => a.kind === 'read') ? BigInt(bulkBytes(ins)) : ins.completion.bytes;
          const m = mbarTx.get(ins.completion.mbar) ?? { model: 0n, gpu: 0n };
          mbarTx.set(ins.completion.mbar, { model: m.model + ins.completion.bytes, gpu: m.gpu + gpuBytes });
        }
      } else if (ins.kind === 'mbarrier') {
        const op = sourceOf(lines, ins, th.id)?.split(/\s+/)[0] ?? '';
        if (ins.op !== 'try_wait' || !/^mbarrier\.try_wait(\.(acquire|relaxed)\.(cta|cluster))?(\.shared::cta)?\.b64$/.test(op))
          return no(
            `P${th.id} line ${ins.line}: '${op}' (of the mbarrier operations, try_wait on a .shared::cta mbarrier runs; init, arrive and expect_tx run before the test, from its init block)`,
          );
        mbarWaited.add(ins.mbar);
      } else if (ins.kind === 'barrier') {
        // a barrier of the test's CTA (8.9.4): its id and quorum known before the run (constants, or registers the thread never writes)
        const id = staticValue(th, ins.id, test.regInit[th.id] ?? {});
        const q = ins.count ? staticValue(th, ins.count, test.regInit[th.id] ?? {}) : undefined;
        if (id === undefined || (ins.count && q === undefined))
          return no(`P${th.id} line ${ins.line}: a barrier whose ${id === undefined ? 'id' : 'quorum'} is a value loaded at run time (${BARRIER_DYNAMIC})`);
        if (id < 0n || id > 15n) return no(`P${th.id} line ${ins.line}: barrier id ${id} (PTX has barriers 0 to 15: 9.7.13.1 bar)`);
        const i = th.code.indexOf(ins);
        if (th.code.some((b, bi) => b.kind === 'branch' && crosses(th.code, bi, b.target, i)))
          return no(`P${th.id} line ${ins.line}: a barrier a branch may skip or repeat (how many threads arrive is known only at run time: not run)`);
        const key = `${th.cta}/${id}`;
        const list = arrivals.get(key) ?? arrivals.set(key, []).get(key)!;
        if (list.some((a) => a.thread === th.id))
          return no(`P${th.id} line ${ins.line}: a second arrival at barrier ${id} (not run: one arrival per thread and barrier)`);
        list.push({ thread: th.id, index: i, q, arrive: !!ins.arrive });
      } else if (ins.kind === 'label') {
        // a branch target: emitted as a PTX label of the thread
      } else if (ins.kind === 'branch') {
        // a branch (beq/bne on register arithmetic, goto/bra): emitted as setp and a predicated bra; a
        // backward one is a loop, bounded on the device (kernel.ts: an instance whose loop runs LOOP_BOUND
        // times gives up and is counted apart, not judged) where the model unrolls it
        const at = th.code.findIndex((x) => x.kind === 'label' && x.name === ins.target);
        if (at < 0) return no(`P${th.id} line ${ins.line}: a branch to ${ins.target}, a label the thread does not have`);
        if (at <= th.code.indexOf(ins)) loops = true;
        const c = ins.cond;
        if (c && !(c.k === 'bin' && (c.op === '==' || c.op === '!=') && arithmetic(c.a) && arithmetic(c.b)))
          return no(`P${th.id} line ${ins.line}: a branch whose condition is not == or != of register arithmetic (not run)`);
      } else if (ins.kind === 'bulkCommit' || ins.kind === 'bulkWait') {
        // cp.async.bulk.commit_group, cp.async.bulk.wait_group{.read} N: emitted as written
      } else if (ins.kind === 'proxyFence') {
        const op = sourceOf(lines, ins, th.id)?.split(/\s+/)[0] ?? '';
        if (['texture', 'surface', 'constant'].includes(ins.proxy))
          return no(`P${th.id} line ${ins.line}: '${op}' (${NO_KERNEL_PROXY}; and PTX has no such fence: 9.7.13.4 fence.proxy)`);
        if (!/^fence\.proxy\.(alias|async(\.(global|shared::cta|shared::cluster))?|tensormap::generic\.(release|acquire)\.(cta|cluster|gpu|sys))$/.test(op))
          return no(
            `P${th.id} line ${ins.line}: '${op}' (of the proxy fences, fence.proxy.async, fence.proxy.alias and fence.proxy.tensormap::generic run in this slice)`,
          );
      } else if (ins.kind === 'fence') {
        const op = sourceOf(lines, ins, th.id)?.split(/\s+/)[0] ?? '';
        if (!/^(fence\.(sc|acq_rel|acquire|release)\.(cta|cluster|gpu|sys)|membar\.(cta|gl|sys))$/.test(op))
          return no(`P${th.id} line ${ins.line}: fence '${op}' not run in this slice`);
      } else {
        return no(`P${th.id}: a ${(ins as { kind: string }).kind} instruction (not run in this slice)`);
      }
    }
  }
  // barriers: each (CTA, id) one group of every arrival (the quorum, default all of them); fewer or more would leave a thread waiting forever or group at run time
  const barrierIds = [...new Set([...arrivals.keys()].map((k) => Number(k.split('/')[1])))].sort((a, b) => a - b);
  const barriers: Record<string, { id: number; threads: number }> = {};
  for (const [key, arr] of arrivals) {
    const [cta, id] = key.split('/');
    const q = arr.find((a) => a.q !== undefined)?.q ?? BigInt(arr.length);
    if (arr.some((a) => a.q !== undefined && a.q !== q)) return no(`barrier ${id} of CTA ${cta} is given different quorums (not run)`);
    if (BigInt(arr.length) < q || BigInt(arr.length) % q !== 0n)
      return no(`barrier ${id} of CTA ${cta}: ${arr.length} arrival(s) for a quorum of ${q} (${BARRIER_HANG})`);
    if (BigInt(arr.length) > q)
      return no(`barrier ${id} of CTA ${cta}: ${arr.length} arrivals form groups of ${q} (which arrivals group together is decided at run time: not run)`);
    for (const a of arr) barriers[`${a.thread}:${a.index}`] = { id: barrierIds.indexOf(Number(id)), threads: arr.length };
  }
  // a cycle of barriers (each thread's sync waits for its group before the thread's next barrier) deadlocks: the model has no execution, the kernel would hang
  if (arrivals.size > 1) {
    const next = new Map<string, Set<string>>();
    for (const th of test.threads) {
      const mine = th.code.flatMap((ins, i) =>
        ins.kind === 'barrier' ? [{ key: `${th.cta}/${staticValue(th, ins.id, test.regInit[th.id] ?? {})}`, arrive: !!ins.arrive, i }] : [],
      );
      for (let k = 0; k + 1 < mine.length; k++)
        if (!mine[k]!.arrive) (next.get(mine[k]!.key) ?? next.set(mine[k]!.key, new Set()).get(mine[k]!.key)!).add(mine[k + 1]!.key);
    }
    const reach = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(next.get(from) ?? [])].some((n) => n === to || (!seen.has(n) && (seen.add(n), reach(n, to, seen))));
    for (const key of arrivals.keys())
      if (reach(key, key)) return no(`the barriers deadlock (barrier ${key.split('/')[1]} of CTA ${key.split('/')[0]} waits on itself: ${BARRIER_DEADLOCK})`);
  }
  // placement: test clusters, CTA ranks, warps
  const clusterOf = (t: (typeof test.threads)[number]) => (t.cluster !== undefined ? `k${t.cluster}` : `c${t.cta}`);
  const clusters = [...new Set(test.threads.map(clusterOf))];
  const ctasOf = new Map<string, number[]>();
  for (const t of test.threads) {
    const k = clusterOf(t);
    const l = ctasOf.get(k) ?? [];
    if (!l.includes(t.cta)) l.push(t.cta);
    ctasOf.set(k, l);
  }
  const warpCount = new Map<string, number>();
  const at = test.threads.map((t) => {
    const k = clusterOf(t);
    const rank = ctasOf.get(k)!.indexOf(t.cta);
    const key = `${k}/${t.cta}`;
    const warp = warpCount.get(key) ?? 0;
    warpCount.set(key, warp + 1);
    return { cluster: clusters.indexOf(k), rank, warp };
  });
  const clusterSize = Math.max(...[...ctasOf.values()].map((l) => l.length));
  if (clusterSize > 8) return no(`a cluster of ${clusterSize} CTAs (at most 8)`);
  const threadsPerCta = Math.max(...warpCount.values());
  // keys
  const ts = terms(test.cond).filter((t) => t.k !== 'const');
  const regKeys: { thread: number; reg: string }[] = [];
  const memKeys: string[] = [];
  for (const t of ts) {
    if (t.k === 'reg' && !regKeys.some((r) => r.thread === t.thread && r.reg === t.reg)) regKeys.push({ thread: t.thread, reg: t.reg });
    if (t.k === 'mem' && !memKeys.includes(t.loc)) memKeys.push(t.loc);
  }
  for (const r of regKeys) if (!test.threads[r.thread]) return no(`the condition names P${r.thread}, which is not a thread`);
  for (const m of memKeys) if (!test.locations[m]) return no(`the condition names ${m}, not a location of the test`);
  for (const m of memKeys)
    if (test.locations[m]!.tensorMap) return no(`the condition names tensor map ${m} (its value is a map, not a number the device counts)`);
  const locs = Object.keys(test.locations);
  const lb = locs.map((l) => locBits.get(l) ?? 32);
  for (const l of bulkLocs)
    if (!test.locations[l]?.tensorMap && (locBits.get(l) ?? 32) !== 32)
      return no(`location ${l} is a bulk operation's and holds ${locBits.get(l)}-bit values (32-bit elements run)`);
  // an mbarrier starts with init(1) and arrive.expect_tx of its initial value: the pending tx count, which the test's complete-tx must use up
  for (const b of new Set([...mbarTx.keys(), ...mbarWaited])) {
    const loc = test.locations[b]!;
    const tx = mbarTx.get(b);
    if (loc.space !== 'shared') return no(`mbarrier ${b} is not in shared memory`);
    if (!tx || loc.init !== tx.model)
      return no(
        `mbarrier ${b} starts at ${loc.init}, not the ${tx?.model ?? 0n} bytes the test's complete-tx operations perform (a phase this slice cannot start)`,
      );
  }
  const mbarriers = locs.map((l) => (mbarTx.has(l) ? Number(mbarTx.get(l)!.gpu) : undefined));
  let nShared = 0;
  const shared = locs.map((l) => {
    const loc = test.locations[l]!;
    return loc.space === 'shared' ? { owner: test.threads.findIndex((t) => t.cta === loc.ownerCta && t.gpu === 0), index: nShared++ } : undefined;
  });
  // virtual aliases: one more view of mem each (at most 4)
  const generic = locs.filter((l) => test.locations[l]!.aliasOf && (test.locations[l]!.proxy ?? 'generic') === 'generic');
  if (generic.length > 4) return no(`${generic.length} virtual aliases (at most 4 run)`);
  const aliases = locs.map((l) => (generic.includes(l) ? { view: generic.indexOf(l) + 1, of: locs.indexOf(physicalOf(test, l)) } : undefined));
  const elements = locs.map((l) => {
    const e = test.locations[l]!.element;
    return e ? { of: locs.indexOf(e.of), offset: e.offset } : undefined;
  });
  const arrays = elements.some(Boolean);
  // an array's copy: as many 16-byte chunks as its elements fill
  const arrayBytes = 16 * Math.max(1, ...elements.map((e) => (e ? Math.ceil((e.offset + 4) / 16) : 1)));
  const tensorMaps = locs.flatMap((l, j) => {
    const t = test.locations[l]!.tensorMap;
    return t ? [{ loc: j, targets: t.map((d) => locs.indexOf(d)), rank: ranks.get(l) ?? 1, mode: modes.get(l) ?? 'tile' }] : [];
  });
  const keyBits = [...regKeys.map((r) => regBits.get(`${r.thread}:${r.reg}`) ?? 32), ...memKeys.map((m) => lb[locs.indexOf(m)]!)];
  return {
    ok: true,
    plan: {
      test,
      placement: {
        clusters: clusters.length,
        clusterSize,
        threadsPerCta,
        at,
        ...(barrierIds.length ? { barrierIds: barrierIds.length } : {}),
        // 128-byte shared slots: at most 48 KiB of static shared memory a CTA (one copy per instance slot of each shared location)
        ...((tensorMaps.length || arrayBytes > 16) && nShared
          ? { maxWarpGroups: Math.floor(49152 / (nShared * 32 * (tensorMaps.length ? 128 : arrayBytes))) }
          : {}),
      },
      locs,
      keys: [...regKeys.map((r) => `P${r.thread}:${r.reg}`), ...memKeys],
      regKeys,
      memKeys,
      init: locs.map((l) => Number(test.locations[l]!.init)),
      text,
      locBits: lb,
      keyBits,
      regBits: Object.fromEntries(regBits),
      slotBytes: tensorMaps.length ? 128 : arrays ? arrayBytes : bulk ? 16 : lb.includes(64) ? 8 : 4,
      ...(mbarriers.some((x) => x !== undefined) ? { mbarriers } : {}),
      shared,
      ...(generic.length ? { aliases } : {}),
      ...(loops ? { loops: true as const } : {}),
      ...(barrierIds.length ? { barriers } : {}),
      ...(tensorMaps.length ? { tensorMaps } : {}),
      ...(arrays ? { elements } : {}),
    },
  };
}

/** How many groups (NG) and warp groups per CTA (WG) fill the GPU once: NI = NG * WG * 32 instances per launch. */

/** The bytes a bulk operation moves on the GPU: whole 16-byte chunks over the elements it writes (the chunks' other elements zero). */
export function bulkBytes(ins: Extract<Instr, { kind: 'async' }>): number {
  return 16 * Math.ceil(ins.accesses.filter((a) => a.kind !== 'read').length / 4);
}

export interface TensorMapGeometry {
  readonly dims: readonly number[];
  readonly strides: readonly number[];
  readonly box: readonly number[];
  readonly elementStrides: readonly number[];
  readonly coordinateScale: number;
}

/**
 * An `.im2col` map's further parameters (cuTensorMapEncodeIm2col) over {@link tensorMapGeometry}'s dims: the
 * spatial dimensions (W, H, D) of size 1 with bounding-box corners 0 (the box is the one pixel), four
 * channels a pixel (the 16 bytes a tile box moves), one pixel a column.
 */
export function im2colParameters(rank: number) {
  return { lower: Array<number>(rank - 2).fill(0), upper: Array<number>(rank - 2).fill(0), channelsPerPixel: 4, pixelsPerColumn: 1 };
}

/**
 * The geometry of a tensor map of `rank` over the copies of a location (`ni * stride` instances, `slotBytes`
 * apart): the first dimension a copy's 32-bit elements, the last the instances, those between of size 1;
 * a box of four elements (16 bytes) of the first dimension. Strides in bytes (dimension 1 on), the
 * coordinate of instance i in the last dimension `i * coordinateScale`. The runner and the reproducer
 * encode the maps from this, the kernel addresses them with it.
 */
export function tensorMapGeometry(rank: number, instances: number, slotBytes: number): TensorMapGeometry {
  if (rank === 1) return { dims: [(instances * slotBytes) / 4], strides: [], box: [4], elementStrides: [1], coordinateScale: slotBytes / 4 };
  return {
    dims: [slotBytes / 4, ...Array<number>(rank - 2).fill(1), instances],
    strides: Array<number>(rank - 1).fill(slotBytes),
    box: [4, ...Array<number>(rank - 1).fill(1)],
    elementStrides: Array<number>(rank).fill(1),
    coordinateScale: 1,
  };
}
