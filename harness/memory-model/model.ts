/**
 * The relations and axioms of chapter 8 (PTX ISA 9.4, `../shared/ptx-memory-model/`), over the
 * events of one candidate execution. Relations are n x n boolean matrices (`Rel`); each definition
 * cites its section.
 */
import type { Axiom, ModelFault, Scope } from './events.js';
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

export type Rel = Uint8Array;
const rel = (n: number): Rel => new Uint8Array(n * n);

function closure(r: Rel, n: number): Rel {
  const c = r.slice();
  for (let k = 0; k < n; k++)
    for (let i = 0; i < n; i++)
      if (c[i * n + k]) for (let j = 0; j < n; j++) if (c[k * n + j]) c[i * n + j] = 1;
  return c;
}

const isMem = (e: XEvent) => e.kind === 'R' || e.kind === 'W';

export interface Static {
  n: number;
  ev: XEvent[];
  /** 8.7 morally strong. */
  ms: Rel;
  /** 8.9.1 program order (immediate edges and transitive), per performing thread. */
  po: Rel;
  faults: Set<ModelFault>;
}

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

/** The static relations (independent of reads-from). */
export function staticRels(ev: XEvent[], faults: Set<ModelFault>): Static {
  const n = ev.length;
  const po = rel(n);
  const ms = rel(n);
  for (const a of ev)
    for (const b of ev) {
      if (a.id === b.id) continue;
      // 8.9.1 program order: the total order of a thread's operations (agents have their own, 8.9.1.1)
      if (!a.init && !b.init && a.thread === b.thread && a.po < b.po) po[a.id * n + b.id] = 1;
    }
  for (const a of ev)
    for (const b of ev) {
      if (a.id === b.id || a.init || b.init) continue;
      // 8.7 (1): related in program order, or each strong with a scope including the other's thread
      const c1 = a.thread === b.thread || (isStrong(a) && isStrong(b) && scopeIncludes(a.scope, a, b, faults) && scopeIncludes(b.scope, b, a, faults));
      // 8.7 (2): same proxy. 8.6: distinct virtual addresses behave as distinct proxies; fences are generic.
      let c2: boolean;
      if (isMem(a) && isMem(b)) c2 = a.proxy === b.proxy && a.gaddr === b.gaddr;
      else {
        const pa = isMem(a) ? a.proxy : 'generic';
        const pb = isMem(b) ? b.proxy : 'generic';
        c2 = pa === pb;
      }
      // 8.7 (3): memory operations overlap completely (same location)
      const c3 = !(isMem(a) && isMem(b)) || a.loc === b.loc;
      if (c1 && c2 && c3 && a.kind !== 'PF' && b.kind !== 'PF') ms[a.id * n + b.id] = 1;
    }
  return { n, ev, ms, po, faults };
}

export interface Dynamic {
  rf: Int32Array; // read id -> write id
  /** 8.9.2 observation order. */
  obs: Rel;
  /** 8.9.5 base causality order. */
  bc: Rel;
  /** 8.9.5 causality order. */
  cause: Rel;
}

/**
 * Release patterns (8.8): pairs [first operation X1, write W of the pattern].
 * Acquire patterns (8.8): pairs [read R of the pattern, last operation Y2].
 */
export function patterns(s: Static): { rel: Array<[number, number]>; acq: Array<[number, number]> } {
  const { ev, n, po, faults } = s;
  const relP: Array<[number, number]> = [];
  const acqP: Array<[number, number]> = [];
  const isRelSem = (e: XEvent) => e.sem === 'release' || e.sem === 'acq_rel';
  const isAcqSem = (e: XEvent) => e.sem === 'acquire' || e.sem === 'acq_rel';
  const relFence = (e: XEvent) => e.kind === 'F' && (e.fenceSem === 'release' || e.fenceSem === 'acq_rel' || e.fenceSem === 'sc');
  const acqFence = (e: XEvent) => e.kind === 'F' && (e.fenceSem === 'acquire' || e.fenceSem === 'acq_rel' || e.fenceSem === 'sc');
  // 8.4 "read operation: ... atom (but not red)"; 8.8 note and 8.11.1: a reduction's read forms no acquire pattern
  const patternRead = (e: XEvent) => e.kind === 'R' && !e.init && (!e.reduction || faults.has('ignore-8.11.1'));
  const strongW = (e: XEvent) => e.kind === 'W' && !e.init && e.sem !== 'weak';
  for (const w of ev) {
    if (!strongW(w)) continue;
    // 8.8 release (1): a release operation on M (5: a release asynchronous operation)
    if (isRelSem(w)) relP.push([w.partnerId !== undefined && ev[w.partnerId]!.kind === 'R' ? w.partnerId : w.id, w.id]);
    for (const x of ev) {
      if (!po[x.id * n + w.id]) continue;
      // 8.8 release (2): a release/acq_rel operation on M followed by a strong write on M in program order
      if (isMem(x) && x.loc === w.loc && isRelSem(x) && x.partnerId !== w.id) relP.push([x.id, w.id]);
      // 8.8 release (3): a release/acq_rel memory fence followed by a strong write on M in program order
      if (relFence(x)) relP.push([x.id, w.id]);
    }
    // 8.8 release (4): a release fence followed in program order by an async operation performing a strong write on M
    if (w.agent > 0 && w.issuedAfter !== undefined)
      for (const x of ev) if (relFence(x) && x.thread === w.issuer && x.agent === 0 && x.po < w.issuedAfter) relP.push([x.id, w.id]);
  }
  for (const r of ev) {
    if (!patternRead(r) || r.sem === 'weak') continue;
    // 8.8 acquire (1): an acquire operation on M
    if (isAcqSem(r)) acqP.push([r.id, r.partnerId ?? r.id]);
    for (const y of ev) {
      if (!po[r.id * n + y.id]) continue;
      // 8.8 acquire (2): a strong read on M followed by an acquire operation on M in program order
      if (isMem(y) && y.loc === r.loc && isAcqSem(y) && y.id !== r.partnerId && !(y.reduction && !faults.has('ignore-8.11.1'))) acqP.push([r.id, y.id]);
      // 8.8 acquire (3): a strong read on M followed by an acquire memory fence in program order
      if (acqFence(y)) acqP.push([r.id, y.id]);
    }
  }
  return { rel: relP, acq: acqP };
}

/**
 * Base causality order (8.9.5) from program order, synchronizes (8.9.4) and the ordering of
 * asynchronous operations (8.9.1.1): an async operation's accesses are ordered after the issuer's
 * prior instructions; its implicit complete-tx only after its own accesses ("it does not
 * transitively establish ordering with respect to prior instructions from the issuing thread"),
 * so a path that enters an agent by the issue edge may not continue to that agent's complete-tx.
 */
export function baseCausality(s: Static, sw: Rel): Rel {
  const { n, ev, po } = s;
  const succ: number[][] = Array.from({ length: n }, () => []);
  const issue: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (po[i * n + j] || sw[i * n + j]) succ[i]!.push(j);
  for (const a of ev) {
    if (a.agent > 0 && a.issuedAfter !== undefined && !a.completion)
      for (const x of ev) if (x.thread === a.issuer && x.agent === 0 && x.po < a.issuedAfter) issue[x.id]!.push(a.id);
    // bulk wait_group: the waited-for accesses precede the wait
  }
  for (const w of ev)
    if (w.waitsFor?.length)
      for (const a of ev) if (a.issuer === w.issuer && a.agent > 0 && w.waitsFor.includes(a.agent)) succ[a.id]!.push(w.id);
  const bc = rel(n);
  for (let src = 0; src < n; src++) {
    // states: node*2 + (entered an agent by an issue edge ? 1 : 0)
    const seen = new Uint8Array(2 * n);
    const stack: number[] = [];
    const push = (node: number, flag: number) => {
      const k = node * 2 + flag;
      if (!seen[k]) {
        seen[k] = 1;
        stack.push(k);
      }
    };
    for (const j of succ[src]!) push(j, 0);
    for (const j of issue[src]!) push(j, 1);
    while (stack.length) {
      const k = stack.pop()!;
      const node = k >> 1;
      const flag = k & 1;
      bc[src * n + node] = 1;
      for (const j of succ[node]!) {
        const toCompletion = ev[j]!.completion && ev[j]!.thread === ev[node]!.thread && po[node * n + j];
        if (flag && toCompletion) continue;
        push(j, flag && ev[j]!.thread === ev[node]!.thread ? 1 : 0);
      }
      for (const j of issue[node]!) push(j, 1);
    }
  }
  return bc;
}

/**
 * Proxy-preserved base causality order (8.9.5): X bc Y and (1) same address, both generic; or
 * (2) same address, same proxy, same thread block; or (3) aliases with an alias proxy fence on the
 * base causality path. 8.6 ("a proxy fence is required to synchronize memory operations across
 * different proxies") extends (3) to any pair of proxies: for each non-generic end, a proxy fence of
 * its kind in the same thread block on the path, and an alias fence when the generic addresses differ.
 */
export function proxyPreserved(s: Static, bc: Rel): Rel {
  const { n, ev } = s;
  const pp = rel(n);
  const pfs = ev.filter((e) => e.kind === 'PF');
  const mem = ev.filter((e) => isMem(e) && !e.init);
  for (const x of mem)
    for (const y of mem) {
      if (x.loc !== y.loc || !bc[x.id * n + y.id]) continue;
      const sameAddr = x.addr === y.addr || (x.gaddr === y.gaddr && x.proxy === y.proxy);
      if (sameAddr && x.proxy === 'generic' && y.proxy === 'generic') pp[x.id * n + y.id] = 1; // (1)
      else if (sameAddr && x.proxy === y.proxy && x.cta === y.cta && x.gpu === y.gpu) pp[x.id * n + y.id] = 1; // (2)
      else if (pfs.length) {
        // (3) and 8.6: X ->bc Fx ->bc Fa ->bc Fy ->bc Y, each fence present only where needed
        let froms: number[] = [x.id];
        if (x.proxy !== 'generic')
          froms = pfs.filter((f) => f.proxyFence === x.proxy && f.cta === x.cta && f.gpu === x.gpu && bc[x.id * n + f.id]).map((f) => f.id);
        if (x.gaddr !== y.gaddr) froms = pfs.filter((f) => f.proxyFence === 'alias' && froms.some((a) => bc[a * n + f.id])).map((f) => f.id);
        const ok =
          y.proxy !== 'generic'
            ? pfs.some((f) => f.proxyFence === y.proxy && f.cta === y.cta && f.gpu === y.gpu && bc[f.id * n + y.id] && froms.some((a) => bc[a * n + f.id]))
            : froms.some((a) => bc[a * n + y.id]);
        if (ok) pp[x.id * n + y.id] = 1;
      }
    }
  return pp;
}

/** 8.9.2 observation order: ms & rf, closed through atomic read-modify-writes. */
export function observation(s: Static, rf: Int32Array): Rel {
  const { n, ev, ms } = s;
  const obs = rel(n);
  for (const r of ev) {
    const w = rf[r.id]!;
    if (r.kind === 'R' && w >= 0 && ms[w * n + r.id]) obs[w * n + r.id] = 1; // (1)
  }
  // (2) W obs Z and Z obs R for an atomic Z (its read half observed, its write half observed by R)
  for (let changed = true; changed; ) {
    changed = false;
    for (const z of ev) {
      if (z.kind !== 'R' || !z.atomic || z.partnerId === undefined) continue;
      const zw = z.partnerId;
      for (let w = 0; w < n; w++) {
        if (!obs[w * n + z.id]) continue;
        for (let r = 0; r < n; r++) if (obs[zw * n + r] && !obs[w * n + r]) (obs[w * n + r] = 1), (changed = true);
      }
    }
  }
  return obs;
}

/** Relations of one execution that do not depend on coherence order. */
export function dynamic(s: Static, pat: ReturnType<typeof patterns>, rf: Int32Array, scOrder: number[]): Dynamic {
  const { n, ev, ms } = s;
  const obs = observation(s, rf);
  const sw = rel(n);
  // 8.9.4 (4): a release pattern synchronizes with an acquire pattern if a write in X precedes a
  // read in Y in observation order and the first of X and the last of Y are morally strong
  for (const [x1, w] of pat.rel) for (const [r, y2] of pat.acq) if (obs[w * n + r] && ms[x1 * n + y2]) sw[x1 * n + y2] = 1;
  // 8.9.4 (1) and 8.9.3: fence.sc X synchronizes with fence.sc Y if X precedes Y in Fence-SC order
  for (let i = 0; i < scOrder.length; i++)
    for (let j = i + 1; j < scOrder.length; j++) {
      const a = scOrder[i]!;
      const b = scOrder[j]!;
      if (ms[a * n + b]) sw[a * n + b] = 1;
    }
  // 8.9.4 (2): bar.sync/arrive synchronizes with bar.sync on the same barrier (same group)
  for (const a of ev)
    for (const b of ev)
      if (a.id !== b.id && a.kind === 'B' && b.kind === 'B' && a.barGroup !== undefined && a.barGroup === b.barGroup && !b.barArrive) sw[a.id * n + b.id] = 1;
  const bc = baseCausality(s, sw);
  const pp = proxyPreserved(s, bc);
  // 8.9.5 causality order: pp, or obs ; pp. Fences have no address: for them (8.10.2) base causality.
  const cause = pp.slice();
  for (let x = 0; x < n; x++)
    for (let z = 0; z < n; z++) {
      if (!obs[x * n + z]) continue;
      for (let y = 0; y < n; y++) if (pp[z * n + y]) cause[x * n + y] = 1;
    }
  for (const a of ev) for (const b of ev) if (a.kind === 'F' && b.kind === 'F' && bc[a.id * n + b.id]) cause[a.id * n + b.id] = 1;
  return { rf, obs, bc, cause };
}

/** 8.10.2 Fence-SC: for morally strong fence.sc F1, F2, F1 cause F2 implies F1 before F2 in Fence-SC order. */
export function fenceScViolated(s: Static, d: Dynamic, scOrder: number[]): boolean {
  const { n, ms } = s;
  for (let i = 0; i < scOrder.length; i++)
    for (let j = i + 1; j < scOrder.length; j++) {
      const a = scOrder[i]!;
      const b = scOrder[j]!;
      if (ms[a * n + b] && d.cause[b * n + a]) return true;
    }
  return false;
}

/** 8.10.4 No Thin Air: no cycle of dependencies (8.10.4 "chains of instruction dependencies") and reads-from. */
export function thinAir(s: Static, rf: Int32Array): boolean {
  const { n, ev } = s;
  const g = rel(n);
  for (const e of ev) {
    for (const d of e.deps) g[d * n + e.id] = 1;
    if (e.kind === 'R' && rf[e.id]! >= 0) g[rf[e.id]! * n + e.id] = 1;
  }
  const c = closure(g, n);
  for (let i = 0; i < n; i++) if (c[i * n + i]) return true;
  return false;
}

/**
 * Per-location checks for one linear order `order` (write ids, init first) of one location's
 * writes. Coherence order (8.9.6) is the restriction of the order to pairs that are morally strong
 * or related in causality order, transitively closed. Returns the first violated axiom, or null.
 */
export function checkLocation(s: Static, d: Dynamic, writes: XEvent[], reads: XEvent[], order: number[]): Axiom | null {
  const { n, ms, po, faults, ev } = s;
  const k = order.length;
  const pos = new Map<number, number>();
  order.forEach((w, i) => pos.set(w, i));
  // 8.9.6 coherence order over the writes of this location, as a k x k matrix in order positions
  const co = new Uint8Array(k * k);
  for (let i = 0; i < k; i++)
    for (let j = i + 1; j < k; j++) {
      const a = order[i]!;
      const b = order[j]!;
      if (ev[a]!.init || ms[a * n + b] || d.cause[a * n + b] || d.cause[b * n + a]) co[i * k + j] = 1;
    }
  for (let m = 0; m < k; m++) for (let i = 0; i < k; i++) if (co[i * k + m]) for (let j = 0; j < k; j++) if (co[m * k + j]) co[i * k + j] = 1;
  const coRel = (a: number, b: number) => co[pos.get(a)! * k + pos.get(b)!] === 1;
  // 8.10.1 Coherence: W cause W' implies W co W'
  if (!faults.has('drop-coherence'))
    for (const a of writes) for (const b of writes) if (a.id !== b.id && d.cause[a.id * n + b.id] && !coRel(a.id, b.id)) return '8.10.1 Coherence';
  // 8.10.3 Atomicity of RMW: A and W morally strong: not (A reads from W' co W and W co A)
  if (!faults.has('drop-atomicity'))
    for (const ar of reads) {
      if (!ar.atomic || ar.partnerId === undefined) continue;
      const aw = ar.partnerId;
      const src = d.rf[ar.id]!;
      for (const w of writes) {
        if (w.id === aw || w.id === src || !ms[w.id * n + aw]) continue;
        if (coRel(src, w.id) && coRel(w.id, aw)) return '8.10.3 Atomicity';
      }
    }
  // fr: R reads W' and W' co W
  const fr = (r: XEvent, w: XEvent) => d.rf[r.id]! !== w.id && coRel(d.rf[r.id]!, w.id);
  // 8.10.5 SC per location: program order between overlapping operations and morally strong communication order, no cycle
  if (!faults.has('drop-sc-per-location')) {
    const evs = [...writes.filter((w) => !w.init), ...reads];
    const m = evs.length;
    const g = new Uint8Array(m * m);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < m; j++) {
        if (i === j) continue;
        const a = evs[i]!;
        const b = evs[j]!;
        if (po[a.id * n + b.id]) g[i * m + j] = 1;
        if (!ms[a.id * n + b.id]) continue;
        if (a.kind === 'W' && b.kind === 'W' && coRel(a.id, b.id)) g[i * m + j] = 1;
        if (a.kind === 'W' && b.kind === 'R' && d.rf[b.id] === a.id) g[i * m + j] = 1;
        if (a.kind === 'R' && b.kind === 'W' && fr(a, b)) g[i * m + j] = 1;
      }
    if (cyclicPairwiseMs(g, m, evs, s)) return '8.10.5 SC per location';
  }
  // 8.10.6 Causality: (1) R cause W => R does not read from W; (2) W cause R => R does not read from W' co W
  if (!faults.has('drop-causality'))
    for (const r of reads)
      for (const w of writes) {
        if (w.init) continue;
        if (d.rf[r.id] === w.id && d.cause[r.id * n + w.id]) return '8.10.6 Causality';
        if (fr(r, w) && d.cause[w.id * n + r.id]) return '8.10.6 Causality';
      }
  return null;
}

/** A cycle in `g` among events that are pairwise morally strong (8.10.5 "within any set of ... pairwise morally strong"). */
function cyclicPairwiseMs(g: Uint8Array, m: number, evs: XEvent[], s: Static): boolean {
  const c = closure(g, m);
  const inCycle: number[] = [];
  for (let i = 0; i < m; i++) if (c[i * m + i]) inCycle.push(i);
  if (!inCycle.length) return false;
  const pms = (i: number, j: number) => evs[i]!.thread === evs[j]!.thread || s.ms[evs[i]!.id * s.n + evs[j]!.id] === 1;
  // search subsets of the cyclic events that are pairwise morally strong and still cyclic
  const L = inCycle.length;
  if (L > 12) return true;
  for (let mask = 1; mask < 1 << L; mask++) {
    const idx = inCycle.filter((_, b) => mask & (1 << b));
    if (idx.length < 2) continue;
    let ok = true;
    for (let a = 0; a < idx.length && ok; a++) for (let b = a + 1; b < idx.length && ok; b++) if (!pms(idx[a]!, idx[b]!)) ok = false;
    if (!ok) continue;
    const q = idx.length;
    const h = new Uint8Array(q * q);
    for (let a = 0; a < q; a++) for (let b = 0; b < q; b++) if (g[idx[a]! * m + idx[b]!]) h[a * q + b] = 1;
    const hc = closure(h, q);
    for (let a = 0; a < q; a++) if (hc[a * q + a]) return true;
  }
  return false;
}
