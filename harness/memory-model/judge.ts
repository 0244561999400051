/**
 * Judges a litmus test: enumerates candidate executions (per-thread traces for the values reads may
 * return, reads-from, Fence-SC order, coherence order per location) and checks the axioms of 8.10.
 * Coherence choices are independent per location (every co-dependent axiom is per location), so
 * each location's orders are enumerated on their own.
 */
import { condHolds } from './condition.js';
import { type Axiom, type Cond, type Expr, type Judgement, type LitmusTest, type ModelFault, type Outcome, type Term, regsIn } from './events.js';
import { dynamic, fenceScViolated, locationCheck, staticRels, thinAir, type XEvent, xEvent } from './model.js';
import { physLoc, threadTraces, type Trace } from './run.js';

export interface JudgeOptions {
  /** Planted faults (tests only). */
  faults?: ModelFault[];
}

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs.slice()];
  const out: T[][] = [];
  xs.forEach((x, i) => {
    for (const p of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) out.push([x, ...p]);
  });
  return out;
}

function terms(c: Cond, acc: Term[] = []): Term[] {
  if (c.k === 'cmp') acc.push(c.a, c.b);
  else if (c.k === 'and' || c.k === 'or') terms(c.a, acc), terms(c.b, acc);
  else if (c.k === 'not') terms(c.a, acc);
  return acc;
}

const termKey = (t: Term) => (t.k === 'reg' ? `P${t.thread}:${t.reg}` : t.k === 'mem' ? t.loc : String(t.v));

/** Judges `test` under the chapter-8 model. */
export function judge(test: LitmusTest, opts: JudgeOptions = {}): Judgement {
  const t0 = performance.now();
  const faults = new Set(opts.faults ?? []);
  const asyncGeneric = faults.has('async-as-generic');
  const locs = test.locations;
  // 8.2.6 initial values, per physical location
  const initOf = new Map<string, bigint>();
  for (const l of Object.values(locs)) if (!l.aliasOf) initOf.set(l.name, l.init);
  // value domains: a fixpoint of the values threads may write (8: each read returns the value of
  // some write). A value's depth is the length of the chain of writes that computed it (through
  // any locations: `ld r, x; st y, r` makes y's value one deeper than x's); one execution holds each
  // write instruction at most once, so a value of a location deeper than the write instructions
  // its chains can pass through (boundOf) cannot be read and is not explored. (Bounded by the
  // location's own writes, a value copied from another location was lost: WRC with a data-dependent
  // store never read the copied 1; bounded by all the program's writes, bench:litmus took 2.3 times as long.)
  const staticWrites = new Map<string, number>();
  for (const th of test.threads)
    for (const ins of th.code) {
      const ls =
        ins.kind === 'write' || ins.kind === 'rmw'
          ? [ins.loc]
          : ins.kind === 'mbarrier'
            ? [ins.mbar]
            : ins.kind === 'async'
              ? [
                  ...ins.accesses.flatMap((a) => (a.kind === 'read' ? [] : a.via ? a.via.targets : [a.loc])),
                  ...(ins.completion.kind === 'mbarrier' ? [ins.completion.mbar] : []),
                ]
              : [];
      for (const l of ls) staticWrites.set(physLoc(locs, l), (staticWrites.get(physLoc(locs, l)) ?? 0) + 1);
    }
  // the write instructions a value of a location can chain through: those to the location and to
  // every location whose values flow into it through registers (a read's register, then a write's
  // value or arguments), each at most once in an execution without loops
  const flowsFrom = new Map<string, Set<string>>();
  const flow = (to: string, from: Iterable<string>) => {
    const s = flowsFrom.get(to) ?? flowsFrom.set(to, new Set()).get(to)!;
    for (const f of from) s.add(f);
  };
  for (const th of test.threads) {
    const src = new Map<string, Set<string>>();
    const of = (e: Expr) => regsIn(e).flatMap((r) => [...(src.get(r) ?? [])]);
    const def = (r: string, from: Iterable<string>) => {
      const s = src.get(r) ?? src.set(r, new Set()).get(r)!;
      for (const f of from) s.add(f);
    };
    const access = (a: { kind: string; loc: string; dst?: string; value?: Expr; args?: Expr[]; via?: { targets: readonly string[] } }) => {
      for (const loc of a.via?.targets ?? [a.loc]) {
        const l = physLoc(locs, loc);
        if (a.dst) def(a.dst, [l]);
        if (a.kind === 'write') flow(l, of(a.value!));
        if (a.kind === 'rmw') flow(l, a.args!.flatMap(of));
      }
    };
    for (let pass = 0; pass < 2; pass++)
      for (const ins of th.code) {
        if (ins.kind === 'read' || ins.kind === 'write' || ins.kind === 'rmw') access(ins);
        else if (ins.kind === 'async') ins.accesses.forEach(access);
        else if (ins.kind === 'local') def(ins.dst, of(ins.value));
        else if (ins.kind === 'mbarrier' && ins.dst) def(ins.dst, [physLoc(locs, ins.mbar)]);
      }
  }
  const chainBound = new Map<string, number>();
  const boundOf = (l: string): number => {
    let b = chainBound.get(l);
    if (b !== undefined) return b;
    const seen = new Set([l]);
    for (const q = [l]; q.length; ) for (const f of flowsFrom.get(q.pop()!) ?? []) if (!seen.has(f)) seen.add(f), q.push(f);
    b = [...seen].reduce((s, x) => s + (staticWrites.get(x) ?? 0), 0);
    chainBound.set(l, b);
    return b;
  };
  const depth = new Map<string, Map<bigint, number>>();
  for (const [l, v] of initOf) depth.set(l, new Map([[v, 0]]));
  const domOf = (l: string): bigint[] => [...(depth.get(l) ?? depth.set(l, new Map([[0n, 0]])).get(l)!).keys()];
  let traces: Trace[][] = [];
  for (let round = 0; round < 8; round++) {
    traces = test.threads.map((_, t) => threadTraces(test, t, domOf, asyncGeneric));
    let grew = false;
    for (const ts of traces)
      for (const tr of ts)
        tr.events.forEach((e) => {
          if (e.kind !== 'W' || !e.loc) return;
          const srcs = [...(e.dataIdx ?? []), ...(e.partner !== undefined ? [e.partner] : [])].map((i) => tr.events[i]!).filter((r) => r.kind === 'R');
          const dp = 1 + Math.max(0, ...srcs.map((r) => depth.get(r.loc!)?.get(r.value!) ?? 0));
          const d = depth.get(e.loc) ?? depth.set(e.loc, new Map()).get(e.loc)!;
          if (dp > boundOf(e.loc) || d.size >= 24) return;
          const had = d.get(e.value!);
          if (had === undefined || had > dp) {
            d.set(e.value!, dp);
            grew = true;
          }
        });
    if (!grew) break;
  }
  const tks = terms(test.cond);
  const keys = [...new Set(tks.filter((t) => t.k !== 'const').map(termKey))];
  const outcomes = new Map<string, { values: Record<string, string>; allowed: boolean; axioms: Map<Axiom, number> }>();
  let executions = 0;
  const record = (values: Record<string, string>, allowed: boolean, axiom?: Axiom) => {
    const k = keys.map((x) => values[x]).join(',');
    let o = outcomes.get(k);
    if (!o) outcomes.set(k, (o = { values, allowed: false, axioms: new Map() }));
    if (allowed) o.allowed = true;
    else if (axiom) o.axioms.set(axiom, (o.axioms.get(axiom) ?? 0) + 1);
  };

  const nT = test.threads.length;
  // per trace: the (location, value) pairs its reads need from some write, and those its writes give
  const needs = traces.map((ts) =>
    ts.map((tr) => [...new Set(tr.events.filter((e) => e.kind === 'R' && e.value !== initOf.get(e.loc!)).map((e) => `${e.loc}=${e.value}`))]),
  );
  const gives = traces.map((ts) => ts.map((tr) => new Set(tr.events.filter((e) => e.kind === 'W').map((e) => `${e.loc}=${e.value}`))));
  const choice: number[] = new Array(nT).fill(0);
  const combine = (t: number) => {
    if (t === nT) {
      // value feasibility: every read's value is the initial value or written by some write
      for (let i = 0; i < nT; i++) for (const nd of needs[i]![choice[i]!]!) if (!choice.some((c, j) => gives[j]![c]!.has(nd))) return;
      return execCombination(choice.map((c, i) => traces[i]![c]!));
    }
    for (let c = 0; c < traces[t]!.length; c++) {
      choice[t] = c;
      combine(t + 1);
    }
  };

  const execCombination = (trs: Trace[]) => {
    // 8.9.4 (2) barriers: arrivals of one CTA at one barrier id form groups of the quorum
    // (default: all arrivals); leftover arrivals hang, and their threads stop there
    const arrivals = new Map<string, Array<{ t: number; i: number; q?: bigint }>>();
    trs.forEach((tr, t) =>
      tr.events.forEach((e, i) => {
        if (e.kind !== 'B') return;
        const key = `${e.gpu}/${e.cta}/${e.barId}`;
        (arrivals.get(key) ?? arrivals.set(key, []).get(key)!).push({ t, i, ...(e.barCount !== undefined ? { q: e.barCount } : {}) });
      }),
    );
    const groupings: Array<Array<{ members: Array<{ t: number; i: number }>; hang: Array<{ t: number; i: number }> }>> = [];
    for (const arr of arrivals.values()) {
      const q = Number(arr[0]!.q ?? BigInt(arr.length));
      const opts: Array<{ members: Array<{ t: number; i: number }>; hang: Array<{ t: number; i: number }> }> = [];
      const m = arr.length;
      const nGroups = Math.floor(m / q);
      if (nGroups === 0) opts.push({ members: [], hang: arr });
      else {
        // choose which arrivals hang (m - nGroups*q of them); the rest form groups (one group here when nGroups = 1)
        const hangN = m - nGroups * q;
        const idx = arr.map((_, k) => k);
        const subsets = (k: number, from: number): number[][] => (k === 0 ? [[]] : idx.slice(from).flatMap((j) => subsets(k - 1, j + 1).map((s) => [j, ...s])));
        for (const h of subsets(hangN, 0)) opts.push({ members: arr.filter((_, k) => !h.includes(k)), hang: arr.filter((_, k) => h.includes(k)) });
      }
      groupings.push(opts);
    }
    const pick: number[] = new Array(groupings.length).fill(0);
    const walk = (g: number) => {
      if (g === groupings.length)
        return execWithBarriers(
          trs,
          groupings.map((o, k) => o[pick[k]!]!),
        );
      for (let c = 0; c < groupings[g]!.length; c++) {
        pick[g] = c;
        walk(g + 1);
      }
    };
    walk(0);
  };

  const execWithBarriers = (trs: Trace[], groups: Array<{ members: Array<{ t: number; i: number }>; hang: Array<{ t: number; i: number }> }>) => {
    const hangAt = new Map<number, number>();
    for (const g of groups) for (const h of g.hang) hangAt.set(h.t, Math.min(hangAt.get(h.t) ?? Infinity, h.i));
    const groupOf = new Map<string, number>();
    groups.forEach((g, k) => g.members.forEach((m) => groupOf.set(`${m.t}/${m.i}`, k)));
    // a barrier group waits for every member's earlier groups: a cycle among groups is a deadlock,
    // and a deadlocked program has no execution
    const G = groups.length;
    if (G > 1) {
      const gEdge = new Uint8Array(G * G);
      trs.forEach((tr, t) => {
        const mine = tr.events.map((e, i) => ({ e, g: groupOf.get(`${t}/${i}`) })).filter((x) => x.g !== undefined);
        for (let a = 0; a + 1 < mine.length; a++) if (!mine[a]!.e.barArrive) gEdge[mine[a]!.g! * G + mine[a + 1]!.g!] = 1; // bar.arrive does not wait
      });
      for (let k = 0; k < G; k++) for (let i = 0; i < G; i++) if (gEdge[i * G + k]) for (let j = 0; j < G; j++) if (gEdge[k * G + j]) gEdge[i * G + j] = 1;
      for (let i = 0; i < G; i++) if (gEdge[i * G + i]) return;
    }
    // number the events: initial writes first, then each thread's, then its agents'
    const ev: XEvent[] = [];
    const initId = new Map<string, number>();
    for (const [l, v] of initOf) {
      initId.set(l, ev.length);
      ev.push(
        xEvent({
          id: ev.length,
          kind: 'W',
          init: true,
          agent: 0,
          issuer: -1,
          thread: -1,
          po: 0,
          cta: -1,
          cluster: -1,
          gpu: -1,
          addr: l,
          loc: l,
          gaddr: l,
          proxy: 'generic',
          value: v,
          sem: 'weak',
          scope: 'sys',
          deps: [],
          depIdx: [],
        }),
      );
    }
    const regsOf: Array<Record<string, bigint>> = [];
    let agentBase = nT;
    trs.forEach((tr, t) => {
      const cut = hangAt.get(t);
      const hungPo = cut !== undefined ? tr.events[cut]!.po : Infinity;
      const map = new Map<number, number>();
      tr.events.forEach((e, i) => {
        if (e.agent === 0 ? e.po > hungPo : (e.issuedAfter ?? 0) > hungPo) return;
        map.set(i, ev.length);
        const x = xEvent({ ...e, id: ev.length, thread: e.agent === 0 ? t : agentBase + e.agent - 1, deps: [] });
        const g = groupOf.get(`${t}/${i}`);
        if (g !== undefined) x.barGroup = g;
        ev.push(x);
      });
      for (const [i, id] of map) {
        const e = tr.events[i]!;
        const x = ev[id]!;
        if (e.partner !== undefined && map.has(e.partner)) x.partnerId = map.get(e.partner)!;
        x.deps = e.depIdx.filter((d) => map.has(d)).map((d) => map.get(d)!);
      }
      agentBase += tr.agents;
      regsOf.push(cut !== undefined ? (tr.events[cut]!.regsAt ?? {}) : tr.regs);
    });
    const n = ev.length;
    const reads = ev.filter((e) => e.kind === 'R');
    // candidate writes per read: same location, same value; a read with none: no execution
    const cands = reads.map((r) => ev.filter((w) => w.kind === 'W' && w.loc === r.loc && w.value === r.value && w.id !== r.partnerId).map((w) => w.id));
    if (cands.some((c) => !c.length)) return;
    const s = staticRels(ev, faults);
    const scFences = ev.filter((e) => e.kind === 'F' && e.fenceSem === 'sc').map((e) => e.id);
    const scOrders = faults.has('drop-fence-sc') ? [[]] : permutations(scFences);
    const writesByLoc = new Map<string, XEvent[]>();
    for (const w of ev) if (w.kind === 'W') (writesByLoc.get(w.loc!) ?? writesByLoc.set(w.loc!, []).get(w.loc!)!).push(w);
    const readsByLoc = new Map<string, XEvent[]>();
    for (const r of reads) (readsByLoc.get(r.loc!) ?? readsByLoc.set(r.loc!, []).get(r.loc!)!).push(r);
    const orderCache = new Map<string, number[][]>();
    const ordersOf = (l: string): number[][] => {
      let o = orderCache.get(l);
      if (!o) {
        const ws = writesByLoc.get(l)!;
        const init = ws.filter((w) => w.init).map((w) => w.id);
        o = permutations(ws.filter((w) => !w.init).map((w) => w.id)).map((p) => [...init, ...p]);
        orderCache.set(l, o);
      }
      return o;
    };
    const memKeys = keys.filter((k) => !k.includes(':'));
    const regVals: Record<string, string> = {};
    for (const k of keys)
      if (k.includes(':')) {
        const [p, r] = k.split(':');
        const v = regsOf[Number(p!.slice(1))]?.[r!];
        regVals[k] = v === undefined ? '?' : String(v);
      }
    const rf = new Int32Array(n).fill(-1);
    const assign = (k: number) => {
      if (k < reads.length) {
        for (const w of cands[k]!) {
          rf[reads[k]!.id] = w;
          assign(k + 1);
        }
        return;
      }
      // 8.10.4 No Thin Air does not depend on Fence-SC or coherence order
      for (const sc of scOrders) {
        executions++;
        if (!faults.has('drop-no-thin-air') && thinAir(s, rf)) {
          failAll('8.10.4 No Thin Air');
          return;
        }
        const d = dynamic(s, rf, sc);
        if (!faults.has('drop-fence-sc') && fenceScViolated(s, d, sc)) {
          failAll('8.10.2 Fence-SC');
          continue;
        }
        // per location: the coherence orders that pass, and the final value each gives
        const finals = new Map<string, Set<bigint>>();
        let bad: Axiom | null = null;
        for (const [l, ws] of writesByLoc) {
          const fv = new Set<bigint>();
          let firstBad: Axiom | null = null;
          const check = locationCheck(s, d, ws, readsByLoc.get(l) ?? []);
          for (const order of ordersOf(l)) {
            const a = check(order);
            if (a === null) fv.add(ev[order[order.length - 1]!]!.value!);
            else if (!firstBad || a < firstBad) firstBad = a;
          }
          if (!fv.size) {
            bad = firstBad;
            break;
          }
          finals.set(l, fv);
        }
        if (bad) {
          failAll(bad);
          continue;
        }
        // outcomes: registers fixed, memory values from each location's valid final values
        const combos: Array<Record<string, string>> = [{ ...regVals }];
        for (const mk of memKeys) {
          const vs = [...(finals.get(physLoc(locs, mk)) ?? new Set([initOf.get(physLoc(locs, mk)) ?? 0n]))];
          const next: Array<Record<string, string>> = [];
          for (const c of combos) for (const v of vs) next.push({ ...c, [mk]: String(v) });
          combos.splice(0, combos.length, ...next);
        }
        for (const c of combos) record(c, true);
      }
    };
    const failAll = (a: Axiom) => {
      const vals: Record<string, string> = { ...regVals };
      for (const mk of memKeys) vals[mk] = '*';
      record(vals, false, a);
    };
    assign(0);
  };
  combine(0);

  const outs: Outcome[] = [...outcomes.values()].map((o) => {
    let axiom: Axiom | undefined;
    let best = -1;
    for (const [a, c] of o.axioms) if (c > best || (c === best && axiom && a < axiom)) (axiom = a), (best = c);
    return { values: o.values, allowed: o.allowed, ...(o.allowed || !axiom ? {} : { axiom }) };
  });
  // a forbidden outcome whose memory values are '*' is dropped where an allowed outcome has its registers
  const allowed = outs.filter((o) => o.allowed);
  const satisfied = allowed.filter((o) => condHolds(test.cond, o.values, true));
  const holds =
    test.quantifier === 'exists' ? satisfied.length > 0 : test.quantifier === 'not exists' ? satisfied.length === 0 : satisfied.length === allowed.length;
  return { name: test.name, quantifier: test.quantifier, holds, outcomes: outs, executions, ms: performance.now() - t0 };
}
