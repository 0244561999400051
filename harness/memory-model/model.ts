/**
 * The relations and axioms of chapter 8 (PTX ISA 9.4, `../shared/ptx-memory-model/`) over the
 * events of one candidate execution, each one definition in the relation algebra of
 * `relations.ts`, citing its section. Three layers, as the judge enumerates them:
 * - {@link staticRels}: what the events alone fix (program order, morally strong, the release and
 *   acquire patterns, ...), once per set of thread traces;
 * - {@link dynamic}: what a choice of reads-from and Fence-SC order adds (observation,
 *   synchronizes, base causality, causality);
 * - {@link locationCheck}: per location, for one coherence order of its writes, the axioms that
 *   depend on coherence order.
 */
import type { Axiom, ModelFault, Scope } from './events.js';
import { EvSet, Rel } from './relations.js';
import type { TEvent } from './run.js';

/** An event of a candidate execution: a trace event with its global id and thread. */
export interface XEvent extends TEvent {
  id: number;
  thread: number;
  partnerId?: number;
  deps: number[];
  /** Barrier group (8.9.4 item 2), when an arrival. */
  barGroup?: number;
  /** Initial write (8.2.6). */
  init?: boolean;
}

/**
 * An event with every field present, in one order: the events of an execution share one shape, so
 * the relations' loops read their fields at one place (objects spread from traces of different
 * instructions have many shapes, and reading them is several times slower).
 */
export function xEvent(e: TEvent & Pick<XEvent, 'id' | 'thread' | 'deps'> & Partial<XEvent>): XEvent {
  const all = {
    id: e.id,
    kind: e.kind,
    thread: e.thread,
    issuer: e.issuer,
    agent: e.agent,
    po: e.po,
    cta: e.cta,
    cluster: e.cluster,
    gpu: e.gpu,
    addr: e.addr,
    loc: e.loc,
    gaddr: e.gaddr,
    proxy: e.proxy,
    value: e.value,
    sem: e.sem,
    scope: e.scope,
    atomic: e.atomic,
    reduction: e.reduction,
    init: e.init,
    partner: e.partner,
    partnerId: e.partnerId,
    deps: e.deps,
    depIdx: e.depIdx,
    dataIdx: e.dataIdx,
    issuedAfter: e.issuedAfter,
    waitsFor: e.waitsFor,
    waitsRead: e.waitsRead,
    completion: e.completion,
    completionOf: e.completionOf,
    fenceSem: e.fenceSem,
    proxyFence: e.proxyFence,
    proxySpace: e.proxySpace,
    proxyLoc: e.proxyLoc,
    proxyDir: e.proxyDir,
    objSpace: e.objSpace,
    objCta: e.objCta,
    objGpu: e.objGpu,
    barrier: e.barrier,
    barId: e.barId,
    barCount: e.barCount,
    barArrive: e.barArrive,
    barGroup: e.barGroup,
    regsAt: e.regsAt,
    dst: e.dst,
    line: e.line,
    label: e.label,
    vector: e.vector,
  } satisfies Record<keyof XEvent, unknown>;
  return all as XEvent;
}

const isMem = (e: XEvent) => e.kind === 'R' || e.kind === 'W';

/** 8.5: does `scope`, specified by an operation of `a`, include the thread executing `b`? */
export function scopeIncludes(scope: Scope, a: XEvent, b: XEvent, faults: Set<ModelFault>): boolean {
  if (a.init || b.init) return false;
  switch (scope) {
    case 'cta': // "all threads executing in the same CTA as the current thread"
      return a.gpu === b.gpu && a.cta === b.cta;
    case 'cluster': // "all threads executing in the same cluster as the current thread"
      if (faults.has('cluster-as-gpu')) return a.gpu === b.gpu;
      return a.gpu === b.gpu && a.cluster === b.cluster;
    case 'gpu': // "all threads ... executing on the same compute device"
      return a.gpu === b.gpu;
    case 'sys':
      return true;
  }
}

/** 8.4: strong = a memory fence, or a memory operation with .relaxed/.acquire/.release/.acq_rel/.volatile/.mmio. */
export const isStrong = (e: XEvent) => !e.init && (e.kind === 'F' || (isMem(e) && e.sem !== 'weak'));

/** The pairs of events with the same defined key (an equivalence on the events that have one). */
function sameKey(ev: readonly XEvent[], key: (e: XEvent) => string | number | undefined): Rel {
  const n = ev.length;
  const keys = ev.map(key);
  const classes = new Map<string | number, EvSet>();
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k !== undefined) (classes.get(k) ?? classes.set(k, EvSet.none(n)).get(k)!).bits[i >>> 5]! |= 1 << (i & 31);
  }
  const r = Rel.empty(n);
  for (let i = 0; i < n; i++) if (keys[i] !== undefined) r.bits.set(classes.get(keys[i]!)!.bits, i * r.w);
  return r;
}

export interface Static {
  n: number;
  ev: XEvent[];
  faults: Set<ModelFault>;
  /** 8.9.1 program order (transitive), per performing thread (an async agent has its own, 8.9.1.1). */
  po: Rel;
  /** 8.7 morally strong. */
  ms: Rel;
  /** Same performing thread (or agent). */
  sameThread: Rel;
  /** 8.10.3 / 8.9.2: an atomic read-modify-write, its read half to its write half. */
  rmw: Rel;
  /** 8.10.4 dependencies: a read to the events whose address, value or control used its value. */
  dep: Rel;
  /** 8.8 release patterns: the first operation X1 of a pattern to its write W. */
  release: Rel;
  /** 8.8 acquire patterns: the read R of a pattern to its last operation Y2. */
  acquire: Rel;
  /** 8.9.4 (2): a barrier arrival to a bar.sync of its group. */
  barrierSync: Rel;
  /** 8.9.1.1: the issuer's prior instructions to its async operation's accesses (not its complete-tx). */
  issue: Rel;
  /** bulk wait_group: the waited-for async accesses to the wait. */
  waitGroup: Rel;
  /** 8.9.1.1: program order into an async operation's implicit complete-tx. */
  toCompletion: Rel;
  /** 8.9.5 proxy-preserved (1) and (2): same location, same address, and both generic or same proxy and thread block. */
  sameProxyPath: Rel;
  /** 8.9.5 (3) and 8.6, where the events hold proxy fences. */
  proxyFences?: ProxyFences;
  /** Memory fences (not proxy fences). */
  fences: EvSet;
  /** Initial writes (8.2.6). */
  init: EvSet;
}

/** What 8.9.5 (3) and 8.6 need: which proxy fence serves which access. */
interface ProxyFences {
  /** Same location, both non-initial memory operations. */
  sameLoc: Rel;
  /** Same generic address. */
  sameGaddr: Rel;
  /** A non-generic access to a proxy fence of its proxy in its thread block. */
  fenceFor: Rel;
  /** Non-initial generic accesses. */
  generic: EvSet;
  /** Tensormap-proxy accesses, and the release and acquire forms of fence.proxy.tensormap::generic. */
  tensormap: EvSet;
  tmRelease: EvSet;
  tmAcquire: EvSet;
  /** Alias proxy fences. */
  alias: EvSet;
}

/** The static relations (independent of reads-from). */
export function staticRels(ev: XEvent[], faults: Set<ModelFault>): Static {
  const n = ev.length;
  const set = (p: (e: XEvent) => boolean) => EvSet.where(n, (i) => p(ev[i]!));
  const init = set((e) => !!e.init);
  const mem = set((e) => isMem(e) && !e.init);
  const fences = set((e) => e.kind === 'F');
  const sameThread = sameKey(ev, (e) => (e.init ? undefined : e.thread));
  const sameLoc = sameKey(ev, (e) => (isMem(e) && !e.init ? e.loc : undefined));
  const po = programOrder(ev);
  const ms = morallyStrong(ev, faults);
  const partner = Rel.pairs(
    n,
    ev.flatMap((e) => (e.partnerId !== undefined ? [[e.id, e.partnerId] as const] : [])),
  );
  const rmw = partner.restrict(
    set((e) => e.kind === 'R' && !!e.atomic),
    undefined,
  );
  const dep = Rel.pairs(
    n,
    ev.flatMap((e) => e.deps.map((d) => [d, e.id] as const)),
  );
  // 8.9.1.1: an async operation's accesses are ordered after the issuer's instructions before it
  const issuedBefore = Rel.empty(n);
  for (const a of ev)
    if (a.agent > 0 && a.issuedAfter !== undefined)
      for (const x of ev) if (x.thread === a.issuer && x.agent === 0 && x.po < a.issuedAfter) issuedBefore.add(x.id, a.id);
  const completion = set((e) => !!e.completion);
  const issue = issuedBefore.restrict(undefined, EvSet.all(n).minus(completion));
  const waitGroup = Rel.empty(n);
  for (const w of ev)
    if (w.waitsFor?.length)
      for (const a of ev)
        if (a.issuer === w.issuer && a.agent > 0 && w.waitsFor.includes(a.agent) && (!w.waitsRead || (a.kind === 'R' && !a.atomic))) waitGroup.add(a.id, w.id);
  // 8.9.4 (2): bar.sync/arrive synchronizes with bar.sync on the same barrier (same group)
  const barrierSync = sameKey(ev, (e) => (e.kind === 'B' ? e.barGroup : undefined))
    .restrict(
      undefined,
      set((e) => !e.barArrive),
    )
    .minus(Rel.id(EvSet.all(n)));
  const { release, acquire } = patterns(ev, po, sameLoc, partner, issuedBefore, faults);
  return {
    n,
    ev,
    faults,
    po,
    ms,
    sameThread,
    rmw,
    dep,
    release,
    acquire,
    barrierSync,
    issue,
    waitGroup,
    toCompletion: po.restrict(undefined, completion),
    sameProxyPath: proxyPaths(ev, mem),
    ...(ev.some((e) => e.kind === 'PF') ? { proxyFences: proxyFenceRels(ev, mem, sameLoc) } : {}),
    fences,
    init,
  };
}

/**
 * 8.9.1 program order: the order of a thread's operations (agents have their own, 8.9.1.1), total but
 * among the elements of one vector operation, which are "executed in an unspecified order" (8.2.4).
 */
function programOrder(ev: readonly XEvent[]): Rel {
  const po = Rel.empty(ev.length);
  const apart = (a: XEvent, b: XEvent) => a.vector !== undefined && b.vector?.group === a.vector.group && b.vector.element !== a.vector.element;
  for (const a of ev) if (!a.init) for (const b of ev) if (!b.init && a.thread === b.thread && a.po < b.po && !apart(a, b)) po.add(a.id, b.id);
  return po;
}

/**
 * 8.7 morally strong: (1) related in program order, or each strong with a scope including the
 * other's thread; (2) same proxy (8.6: distinct virtual addresses behave as distinct proxies;
 * fences are generic); (3) memory operations overlap completely (same location). Proxy fences take no part.
 */
function morallyStrong(ev: readonly XEvent[], faults: Set<ModelFault>): Rel {
  const n = ev.length;
  const ms = Rel.empty(n);
  // the fields compared, read once per event
  const part = ev.map((e) => !e.init && e.kind !== 'PF');
  const strong = ev.map(isStrong);
  const mem = ev.map(isMem);
  const thread = ev.map((e) => e.thread);
  const loc = ev.map((e) => e.loc);
  const gaddr = ev.map((e) => e.gaddr);
  const proxy = ev.map((e) => (isMem(e) ? e.proxy : 'generic'));
  for (let a = 0; a < n; a++) {
    if (!part[a]) continue;
    for (let b = 0; b < n; b++) {
      if (a === b || !part[b] || proxy[a] !== proxy[b]) continue; // (2) same proxy (fences: generic)
      if (mem[a] && mem[b] && (loc[a] !== loc[b] || gaddr[a] !== gaddr[b])) continue; // (3) same location; (2) 8.6 distinct virtual addresses
      if (
        thread[a] === thread[b] ||
        (strong[a] && strong[b] && scopeIncludes(ev[a]!.scope, ev[a]!, ev[b]!, faults) && scopeIncludes(ev[b]!.scope, ev[b]!, ev[a]!, faults))
      )
        ms.add(a, b); // (1)
    }
  }
  return ms;
}

/** 8.8 release and acquire patterns. */
function patterns(ev: XEvent[], po: Rel, sameLoc: Rel, partner: Rel, issuedBefore: Rel, faults: Set<ModelFault>): { release: Rel; acquire: Rel } {
  const n = ev.length;
  const set = (p: (e: XEvent) => boolean) => EvSet.where(n, (i) => p(ev[i]!));
  const relSem = set((e) => e.sem === 'release' || e.sem === 'acq_rel');
  const acqSem = set((e) => e.sem === 'acquire' || e.sem === 'acq_rel');
  const relFence = set((e) => e.kind === 'F' && (e.fenceSem === 'release' || e.fenceSem === 'acq_rel' || e.fenceSem === 'sc'));
  const acqFence = set((e) => e.kind === 'F' && (e.fenceSem === 'acquire' || e.fenceSem === 'acq_rel' || e.fenceSem === 'sc'));
  const mem = set(isMem);
  const strongW = set((e) => e.kind === 'W' && !e.init && e.sem !== 'weak');
  // 8.4 "read operation: ... atom (but not red)"; 8.8 note and 8.11.1: a reduction's read forms no acquire pattern
  const ignore8111 = faults.has('ignore-8.11.1');
  const strongPatternRead = set((e) => e.kind === 'R' && !e.init && (!e.reduction || ignore8111) && e.sem !== 'weak');
  const notReduction = set((e) => !e.reduction || ignore8111);
  const reads = set((e) => e.kind === 'R');
  // release (1): a release operation on M (5: a release asynchronous operation); an atomic's pattern starts at its read half
  const relW = strongW.and(relSem);
  const rmwWrite = set((e) => e.partnerId !== undefined && ev[e.partnerId]!.kind === 'R');
  const release1 = partner.restrict(reads, relW).or(Rel.id(relW.minus(rmwWrite)));
  // release (2): a release/acq_rel operation on M followed by a strong write on M in program order
  const release2 = po.and(sameLoc).minus(partner).restrict(mem.and(relSem), strongW);
  // release (3): a release/acq_rel memory fence followed by a strong write on M in program order;
  // (4): ... followed in program order by an async operation performing a strong write on M
  const release34 = po.or(issuedBefore).restrict(relFence, strongW);
  // acquire (1): an acquire operation on M (an atomic's pattern ends at its write half)
  const acqR = strongPatternRead.and(acqSem);
  const acquire1 = partner.restrict(acqR, undefined).or(Rel.id(acqR.minus(partner.domain())));
  // acquire (2): a strong read on M followed by an acquire operation on M in program order; (3): by an acquire fence
  const acquire2 = po.and(sameLoc).minus(partner).restrict(strongPatternRead, mem.and(acqSem).and(notReduction));
  const acquire3 = po.restrict(strongPatternRead, acqFence);
  return { release: release1.or(release2).or(release34), acquire: acquire1.or(acquire2).or(acquire3) };
}

/** 8.9.5 proxy-preserved (1) same address, both generic; (2) same address, same proxy, same thread block. */
function proxyPaths(ev: XEvent[], mem: EvSet): Rel {
  const paths = Rel.empty(ev.length);
  const ms = ev.filter((e) => mem.has(e.id));
  for (const x of ms)
    for (const y of ms) {
      if (x.loc !== y.loc) continue;
      if (!(x.addr === y.addr || (x.gaddr === y.gaddr && x.proxy === y.proxy))) continue; // same address
      if ((x.proxy === 'generic' && y.proxy === 'generic') || (x.proxy === y.proxy && x.cta === y.cta && x.gpu === y.gpu)) paths.add(x.id, y.id);
    }
  return paths;
}

/**
 * Whether proxy fence f orders operations on the object x accesses: 9.7.15.4 "The memory ordering is
 * limited only to operations performed on objects in the state space specified. If no state space is
 * specified, then the memory ordering applies on all state spaces." `.shared::cta` holds the fencing
 * thread's own CTA's shared memory; `.shared::cluster` the shared memory of every CTA of its cluster
 * (the `.shared::cta` window is contained in the `.shared::cluster` window, 5.1.5).
 */
function fenceCovers(f: XEvent, x: XEvent): boolean {
  // the acquire tensormap fence: "the memory range [addr, addr+size-1] on which the ordering guarantees ... is to be provided"
  if (f.proxyLoc !== undefined && f.proxyLoc !== x.loc) return false;
  switch (f.proxySpace) {
    case undefined:
      return true;
    case 'global':
      return x.objSpace === 'global';
    case 'shared::cluster':
      return x.objSpace === 'shared';
    case 'shared::cta':
      return x.objSpace === 'shared' && x.objCta === f.cta && x.objGpu === f.gpu;
  }
}

function proxyFenceRels(ev: XEvent[], mem: EvSet, sameLoc: Rel): ProxyFences {
  const n = ev.length;
  const fenceFor = Rel.where(n, (i, j) => {
    const x = ev[i]!;
    const f = ev[j]!;
    return mem.has(i) && x.proxy !== 'generic' && f.kind === 'PF' && f.proxyFence === x.proxy && f.cta === x.cta && f.gpu === x.gpu && fenceCovers(f, x);
  });
  return {
    sameLoc,
    sameGaddr: sameKey(ev, (e) => (mem.has(e.id) ? e.gaddr : undefined)),
    fenceFor,
    generic: mem.and(EvSet.where(n, (i) => ev[i]!.proxy === 'generic')),
    alias: EvSet.where(n, (i) => ev[i]!.kind === 'PF' && ev[i]!.proxyFence === 'alias'),
    tensormap: mem.and(EvSet.where(n, (i) => ev[i]!.proxy === 'tensormap')),
    tmRelease: EvSet.where(n, (i) => ev[i]!.kind === 'PF' && ev[i]!.proxyFence === 'tensormap' && ev[i]!.proxyDir === 'release'),
    tmAcquire: EvSet.where(n, (i) => ev[i]!.kind === 'PF' && ev[i]!.proxyFence === 'tensormap' && ev[i]!.proxyDir === 'acquire'),
  };
}

export interface Dynamic {
  /** Reads-from, write to read. */
  rf: Rel;
  /** 8.9.2 observation order. */
  obs: Rel;
  /** 8.9.5 base causality order. */
  bc: Rel;
  /** 8.9.5 causality order. */
  cause: Rel;
  /** 8.9.6: the pairs coherence order keeps of a linear order of writes (initial writes first, morally strong, or in causality order). */
  coKept: Rel;
}

/** Reads-from as a relation, write to read. */
export function readsFrom(s: Static, rfOf: Int32Array): Rel {
  const rf = Rel.empty(s.n);
  for (const r of s.ev) if (r.kind === 'R' && rfOf[r.id]! >= 0) rf.add(rfOf[r.id]!, r.id);
  return rf;
}

/** 8.9.2 observation order: (1) morally strong and reads-from, (2) continued through atomic read-modify-writes. */
export const observation = (s: Static, rf: Rel): Rel => {
  const obs1 = s.ms.and(rf);
  return obs1.seq(s.rmw.seq(obs1).star());
};

/**
 * Base causality order (8.9.5: the closure of program order and synchronizes) with the ordering
 * of asynchronous operations (8.9.1.1): an async operation's accesses are ordered after the
 * issuer's prior instructions; its implicit complete-tx only after its own accesses ("it does not
 * transitively establish ordering with respect to prior instructions from the issuing thread"), so
 * a path that enters an agent by an issue edge leaves it (to another thread) before it may continue,
 * and does not reach that agent's complete-tx on the way.
 */
export function baseCausality(s: Static, sw: Rel): Rel {
  const step = s.po.or(sw).or(s.waitGroup);
  if (s.issue.isEmpty()) return step.plus();
  const inAgent = step.and(s.sameThread).minus(s.toCompletion);
  const leave = step.minus(s.sameThread);
  const entered = s.issue.seq(inAgent.or(s.issue).star());
  return step.or(entered.seq(leave)).star().seq(step.or(entered));
}

/**
 * Proxy-preserved base causality order (8.9.5): X bc Y and (1) same address, both generic; or
 * (2) same address, same proxy, same thread block; or (3) aliases with an alias proxy fence on the
 * base causality path. 8.6 ("a proxy fence is required to synchronize memory operations across
 * different proxies") extends (3) to any pair of proxies: for each non-generic end, a proxy fence of
 * its kind in the same thread block on the path, and an alias fence when the generic addresses differ.
 */
export function proxyPreserved(s: Static, bc: Rel): Rel {
  const pf = s.proxyFences;
  if (!pf) return bc.and(s.sameProxyPath);
  const generic = Rel.id(pf.generic);
  const out = bc.and(pf.fenceFor).or(generic); // X, or a fence of X's proxy after it
  const into = bc.seq(bc.and(pf.fenceFor.inv()).or(generic)); // on to Y, through a fence of Y's proxy
  const sameG = out.seq(into).and(pf.sameGaddr);
  const aliased = out.seq(bc.restrict(undefined, pf.alias)).seq(into).minus(pf.sameGaddr);
  // the tensormap proxy (9.7.15.4): a generic write reaches a tensormap-proxy read through a release form of
  // fence.proxy.tensormap::generic after it and an acquire form on the map before the read ("A .release proxy
  // fence can form a release sequence that synchronizes with an acquire sequence that contains a .acquire proxy
  // fence"); the acquire form alone does not serve (docs/memory-model.md: the H200 read a stale map with it)
  const tm = pf.tensormap.isEmpty()
    ? undefined
    : Rel.id(pf.generic)
        .seq(bc.restrict(undefined, pf.tmRelease))
        .seq(bc.restrict(undefined, pf.tmAcquire))
        .seq(bc.and(pf.fenceFor.inv()).restrict(pf.tmAcquire, pf.tensormap))
        .and(pf.sameGaddr);
  const general = sameG.or(aliased);
  const kept = tm ? general.minus(general.restrict(undefined, pf.tensormap)).or(tm) : general;
  return bc.and(s.sameProxyPath.or(pf.sameLoc.and(kept)));
}

/** Relations of one execution that do not depend on coherence order. */
export function dynamic(s: Static, rfOf: Int32Array, scOrder: number[]): Dynamic {
  const rf = readsFrom(s, rfOf);
  const obs = observation(s, rf);
  // 8.9.4 memory synchronization: (4) a release pattern synchronizes with an acquire pattern if a
  // write in X precedes a read in Y in observation order and X's first and Y's last are morally
  // strong; (1) with 8.9.3: fence.sc X with a morally strong fence.sc Y after it in Fence-SC order;
  // (2) barriers
  const sw = s.ms
    .and(s.release.seq(obs).seq(s.acquire))
    .or(s.ms.and(Rel.order(s.n, scOrder)))
    .or(s.barrierSync);
  const bc = baseCausality(s, sw);
  // 8.9.5 causality order: proxy-preserved base causality, or observation then it. Fences have no
  // address: between them (8.10.2) base causality.
  const pp = proxyPreserved(s, bc);
  const cause = pp.or(obs.seq(pp)).or(bc.restrict(s.fences, s.fences));
  // 8.9.6: of a linear order of writes, coherence order keeps the pairs from an initial write, the
  // morally strong ones and those in causality order (either way)
  const coKept = Rel.cross(s.init, EvSet.all(s.n)).or(s.ms).or(cause).or(cause.inv());
  return { rf, obs, bc, cause, coKept };
}

/** 8.10.2 Fence-SC: for morally strong fence.sc F1, F2, F1 cause F2 implies F1 before F2 in Fence-SC order. */
export const fenceScViolated = (s: Static, d: Dynamic, scOrder: number[]): boolean => !s.ms.and(Rel.order(s.n, scOrder)).and(d.cause.inv()).isEmpty();

/** 8.10.4 No Thin Air: no cycle of dependencies ("chains of instruction dependencies") and reads-from. */
export const thinAir = (s: Static, rfOf: Int32Array): boolean => !s.dep.or(readsFrom(s, rfOf)).acyclic();

/**
 * The axioms that depend on coherence order, for one location's writes and reads: a function of
 * one linear order of those writes (ids, initial write first) giving the first violated axiom, or
 * null. Coherence order (8.9.6) is the part of that order {@link Dynamic.coKept} keeps,
 * transitively closed.
 */
export function locationCheck(s: Static, d: Dynamic, writes: readonly XEvent[], reads: readonly XEvent[]): (order: readonly number[]) => Axiom | null {
  const { n, faults, ms } = s;
  const W = EvSet.of(
    n,
    writes.map((w) => w.id),
  );
  const R = EvSet.of(
    n,
    reads.map((r) => r.id),
  );
  const WR = W.minus(s.init).or(R);
  // the order-independent parts
  const causeW = d.cause.restrict(W, W).minus(Rel.id(W));
  const poWR = s.po.restrict(WR, WR);
  const rfCausality = !d.rf.restrict(W.minus(s.init), undefined).seq(d.cause).irreflexive();
  const rmwHere = s.rmw.restrict(R, undefined);
  const rfInv = d.rf.inv();
  return function checkOrder(order) {
    const co = Rel.order(n, order).and(d.coKept).plus();
    // 8.9.7 communication order, read to write: R reads W' and W' co W
    const fr = rfInv.seq(co);
    // 8.10.1 Coherence: W cause W' implies W co W'
    if (!faults.has('drop-coherence') && !causeW.minus(co).isEmpty()) return '8.10.1 Coherence';
    // 8.10.3 Atomicity: for an atomic A and a write W morally strong with it, not (A reads from W' co W and W co A)
    if (!faults.has('drop-atomicity') && !fr.seq(co.and(ms)).and(rmwHere).isEmpty()) return '8.10.3 Atomicity';
    // 8.10.5 SC per location: program order between overlapping operations and morally strong
    // communication order (8.9.7) make no cycle among pairwise morally strong operations
    if (!faults.has('drop-sc-per-location') && cyclicPairwiseMs(s, poWR.or(ms.and(co.or(d.rf).or(fr)).restrict(WR, WR)))) return '8.10.5 SC per location';
    // 8.10.6 Causality: (1) R cause W => R does not read from W; (2) W cause R => R does not read from W' co W
    if (!faults.has('drop-causality') && (rfCausality || !fr.seq(d.cause).irreflexive())) return '8.10.6 Causality';
    return null;
  };
}

/** A cycle in `g` among events that are pairwise morally strong (8.10.5 "within any set of ... pairwise morally strong"). */
function cyclicPairwiseMs(s: Static, g: Rel): boolean {
  if (g.acyclic()) return false;
  const plus = g.plus();
  const inCycle = EvSet.where(s.n, (i) => plus.has(i, i)).ids();
  const L = inCycle.length;
  if (L > 12) return true;
  // search subsets of the cyclic events that are pairwise morally strong (or in one thread) and still cyclic
  const pms = s.sameThread.or(s.ms);
  for (let mask = 1; mask < 1 << L; mask++) {
    const idx = inCycle.filter((_, b) => mask & (1 << b));
    if (idx.length < 2) continue;
    if (!idx.every((a, i) => idx.every((b, j) => i === j || pms.has(a, b)))) continue;
    const sub = EvSet.of(s.n, idx);
    if (!g.restrict(sub, sub).acyclic()) return true;
  }
  return false;
}
