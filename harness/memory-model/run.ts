/**
 * Runs one thread of a {@link LitmusTest} for one choice of the values its reads return, giving the
 * events of 8.2/8.4 in program order (8.9.1), the events of its asynchronous operations in agents of
 * their own (8.9.1.1), register values and dependencies (for 8.10.4).
 */
import type { Expr, Instr, LitmusTest, Location, MemEvent, MemInstrBase, Proxy, Sem, Scope } from './events.js';

/** An event of one thread trace, before the events of all threads are numbered together. */
export interface TEvent extends Omit<MemEvent, 'id' | 'thread' | 'rmwPartner' | 'deps'> {
  /** 0: the thread itself; k > 0: its k-th asynchronous agent. */
  agent: number;
  /** Index (in the trace) of the other half of an atomic pair. */
  partner?: number;
  /** Trace indices of the reads this event depends on. */
  depIdx: number[];
  /** The data dependencies alone (no control), for value depth. */
  dataIdx?: number[];
  /** Agents: number of issuer events (its po) before the issuing instruction. */
  issuedAfter?: number;
  /** Wait events: agents whose accesses it waits for. */
  waitsFor?: number[];
  /** A `wait_group.read`: waits for the source reads of those agents only. */
  waitsRead?: boolean;
  /** Barrier arrival: resolved id, quorum, arrive-only. */
  barId?: bigint;
  barCount?: bigint;
  barArrive?: boolean;
  /** Fence semantics of F events. */
  fenceSem?: 'sc' | 'acq_rel' | 'acquire' | 'release';
  /** The generic address of the access (its name, or what a surface/texture/constant name aliases). */
  gaddr?: string;
  /** The implicit complete-tx of an async operation (8.9.1.1). */
  completion?: boolean;
  /** Barrier arrivals: the registers at that point (a thread that hangs there stops with them). */
  regsAt?: Record<string, bigint>;
}

export interface Trace {
  events: TEvent[];
  regs: Record<string, bigint>;
  /** The value each read (by trace index) assumed. */
  agents: number;
}

export function physLoc(locs: Record<string, Location>, name: string): string {
  let n = name;
  for (let k = 0; k < 16 && locs[n]?.aliasOf; k++) n = locs[n]!.aliasOf!;
  return n;
}

/** 8.6: the address as the generic proxy sees it (a surface/texture/constant name aliases one). */
export function genericAddr(locs: Record<string, Location>, name: string): string {
  let n = name;
  for (let k = 0; k < 16 && locs[n]?.aliasOf && (locs[n]!.proxy ?? 'generic') !== 'generic'; k++) n = locs[n]!.aliasOf!;
  return n;
}

const MAX_TRACES = 20000;

/**
 * All traces of thread `t` when each read may return any value of `domain(loc)`. Loops: a backward
 * branch taken more than `unroll` times ends the trace without an execution (bounded, as Dat3M).
 */
export function threadTraces(test: LitmusTest, t: number, domain: (loc: string) => bigint[], asyncGeneric: boolean): Trace[] {
  const out: Trace[] = [];
  const unroll = test.unroll ?? 1;
  // depth-first over choice vectors
  const stack: number[][] = [[]];
  while (stack.length) {
    const ch = stack.pop()!;
    const r = runOnce(test, t, ch, domain, unroll, asyncGeneric);
    if (r.kind === 'need') {
      for (let v = r.options - 1; v >= 0; v--) stack.push([...ch, v]);
    } else if (r.kind === 'done') {
      out.push(r.trace);
      if (out.length > MAX_TRACES) {
        // an mbarrier set up inside a thread makes every later read of it choose among its many pending counts
        const setup = test.threads[t]!.code.find((i) => i.kind === 'mbarrier' && i.op !== 'try_wait');
        const how =
          setup && setup.kind === 'mbarrier'
            ? `; its mbarrier ${setup.mbar} is set up inside the thread (line ${setup.line ?? '?'}): start the phase in the init block instead (\`${setup.mbar} @ shared cta N = BYTES;\`, the pending count after mbarrier.init of 1 and mbarrier.arrive.expect_tx of BYTES, with a comment saying so; docs/litmus.md, Limits) and drop the set-up from the thread`
            : '; shrink the test';
        throw new Error(`${test.name}: thread P${t} has more than ${MAX_TRACES} traces${how}`);
      }
    }
  }
  return out;
}

type RunResult = { kind: 'done'; trace: Trace } | { kind: 'need'; options: number } | { kind: 'cut' };

function runOnce(test: LitmusTest, t: number, ch: number[], domain: (loc: string) => bigint[], unroll: number, asyncGeneric: boolean): RunResult {
  const th = test.threads[t]!;
  const cluster = th.cluster ?? th.gpu * 1_000_000 + th.cta;
  const regs: Record<string, bigint> = { ...(test.regInit[t] ?? {}) };
  const taint: Record<string, number[]> = {};
  const events: TEvent[] = [];
  let ctrl: number[] = [];
  let nChoice = 0;
  let agents = 0;
  let po = 0;
  const agentPo: number[] = [];
  let openGroup: number[] = [];
  const committed: number[][] = [];
  const labels = new Map<string, number>();
  th.code.forEach((ins, k) => ins.kind === 'label' && labels.set(ins.name, k));
  const jumps = new Map<number, number>();

  const ev = (e: Partial<TEvent> & Pick<TEvent, 'kind'>): number => {
    const agent = e.agent ?? 0;
    const p = agent === 0 ? po++ : (agentPo[agent] = (agentPo[agent] ?? 0) + 1) - 1;
    events.push({
      sem: 'weak',
      scope: 'sys',
      ...e,
      agent,
      issuer: t,
      po: p,
      cta: th.cta,
      cluster,
      gpu: th.gpu,
      depIdx: [...(e.depIdx ?? []), ...(agent === 0 ? ctrl : [])],
      dataIdx: e.depIdx ?? [],
    } as TEvent);
    return events.length - 1;
  };
  const evalE = (x: Expr): { v: bigint; deps: number[] } => {
    if (x.k === 'const') return { v: x.v, deps: [] };
    if (x.k === 'reg') return { v: regs[x.r] ?? 0n, deps: taint[x.r] ?? [] };
    const a = evalE(x.a);
    const b = evalE(x.b);
    const deps = [...a.deps, ...b.deps];
    const B = (c: boolean) => (c ? 1n : 0n);
    switch (x.op) {
      case '+':
        return { v: a.v + b.v, deps };
      case '-':
        return { v: a.v - b.v, deps };
      case '*':
        return { v: a.v * b.v, deps };
      case '&':
        return { v: a.v & b.v, deps };
      case '|':
        return { v: a.v | b.v, deps };
      case '^':
        return { v: a.v ^ b.v, deps };
      case '==':
        return { v: B(a.v === b.v), deps };
      case '!=':
        return { v: B(a.v !== b.v), deps };
      case '<':
        return { v: B(a.v < b.v), deps };
      case '>':
        return { v: B(a.v > b.v), deps };
      case '<=':
        return { v: B(a.v <= b.v), deps };
      case '>=':
        return { v: B(a.v >= b.v), deps };
    }
  };
  const pickValue = (loc: string): bigint | null => {
    const d = domain(loc);
    const c = ch[nChoice];
    if (c === undefined) {
      needOptions = d.length;
      return null;
    }
    nChoice++;
    return d[c]!;
  };
  let needOptions = 0;
  // a vector operation's elements: one group per execution of the instruction (a loop runs it again), numbered by the po at its first element
  const vectorAt = new Map<number, number>();
  const vectorGroup = (v: { group: number; element: number }) => {
    if (v.element === 0) vectorAt.set(v.group, po);
    return { group: vectorAt.get(v.group) ?? po, element: v.element };
  };
  const memFields = (m: MemInstrBase, agent: number) => {
    const proxy: Proxy = asyncGeneric && m.proxy === 'async' ? 'generic' : m.proxy;
    const loc = physLoc(test.locations, m.loc);
    const obj = test.locations[loc];
    return {
      agent,
      addr: m.loc,
      loc,
      ...(obj ? { objSpace: obj.space, objCta: obj.ownerCta ?? 0, objGpu: obj.ownerGpu ?? 0 } : {}),
      gaddr: genericAddr(test.locations, m.loc),
      proxy,
      sem: m.sem as Sem,
      scope: m.scope as Scope,
      ...(m.line !== undefined ? { line: m.line } : {}),
      ...(m.vector ? { vector: vectorGroup(m.vector) } : {}),
    };
  };
  // one memory access (of the thread or of an agent); returns false when a choice is needed
  type Access =
    | { kind: 'read'; dst?: string }
    | { kind: 'write'; value: Expr }
    | { kind: 'rmw'; dst?: string; args: Expr[]; update: (o: bigint, a: bigint[]) => bigint | undefined; reduction: boolean };
  const access = (a: Access & MemInstrBase, agent: number, extraDeps: number[] = []): boolean => {
    const f = memFields(a, agent);
    if (a.kind === 'read') {
      const v = pickValue(f.loc);
      if (v === null) return false;
      const i = ev({ kind: 'R', ...f, value: v, depIdx: extraDeps, label: 'ld', ...(a.dst ? { dst: a.dst } : {}) });
      if (a.dst) {
        regs[a.dst] = v;
        taint[a.dst] = [i];
      }
    } else if (a.kind === 'write') {
      const { v, deps } = evalE(a.value);
      ev({ kind: 'W', ...f, value: v, depIdx: [...deps, ...extraDeps], label: 'st' });
    } else {
      const old = pickValue(f.loc);
      if (old === null) return false;
      const args = a.args.map(evalE);
      const nv = a.update(
        old,
        args.map((x) => x.v),
      );
      const r = ev({ kind: 'R', ...f, value: old, atomic: true, reduction: a.reduction, depIdx: extraDeps, label: a.reduction ? 'red' : 'atom' });
      if (nv !== undefined) {
        const w = ev({
          kind: 'W',
          ...f,
          value: nv,
          atomic: true,
          reduction: a.reduction,
          depIdx: [...args.flatMap((x) => x.deps), ...extraDeps],
          partner: r,
          label: a.reduction ? 'red' : 'atom',
        });
        events[r]!.partner = w;
      }
      if (a.dst) {
        regs[a.dst] = old;
        taint[a.dst] = [r];
      }
    }
    return true;
  };

  for (let pc = 0; pc < th.code.length; pc++) {
    const ins: Instr = th.code[pc]!;
    switch (ins.kind) {
      case 'label':
        break;
      case 'local': {
        const { v, deps } = evalE(ins.value);
        regs[ins.dst] = v;
        taint[ins.dst] = deps;
        break;
      }
      case 'branch': {
        let take = true;
        if (ins.cond) {
          const c = evalE(ins.cond);
          take = c.v !== 0n;
          ctrl = [...new Set([...ctrl, ...c.deps])];
        }
        if (take) {
          const target = labels.get(ins.target);
          if (target === undefined) throw new Error(`${test.name}: P${t}: no label ${ins.target}`);
          if (target <= pc) {
            const n = (jumps.get(pc) ?? 0) + 1;
            jumps.set(pc, n);
            if (n > unroll) return { kind: 'cut' };
          }
          pc = target;
        }
        break;
      }
      case 'read':
      case 'write':
      case 'rmw':
        if (!access(ins, 0)) return { kind: 'need', options: needOptions };
        break;
      case 'fence':
        ev({
          kind: 'F',
          fenceSem: ins.sem,
          sem: ins.sem === 'sc' ? 'sc' : ins.sem,
          scope: ins.scope,
          label: 'fence',
          ...(ins.line !== undefined ? { line: ins.line } : {}),
        });
        break;
      case 'proxyFence':
        // fence.proxy.tensormap::generic.release/.acquire: also a release (before it) / acquire (after it) fence at its scope
        // ("A .release proxy fence can form a release sequence that synchronizes with an acquire sequence that contains a .acquire proxy fence")
        if (ins.sem === 'acquire') ev({ kind: 'F', fenceSem: 'acquire', sem: 'acquire', scope: ins.scope!, label: 'fence.proxy.acquire' });
        ev({
          kind: 'PF',
          proxyFence: asyncGeneric && ins.proxy === 'async' ? ('generic' as Proxy) : ins.proxy,
          ...(ins.space ? { proxySpace: ins.space } : {}),
          ...(ins.covers ? { proxyLoc: physLoc(test.locations, ins.covers) } : {}),
          ...(ins.sem ? { proxyDir: ins.sem } : {}),
          sem: 'relaxed',
          label: 'fence.proxy',
          ...(ins.line !== undefined ? { line: ins.line } : {}),
        });
        if (ins.sem === 'release') ev({ kind: 'F', fenceSem: 'release', sem: 'release', scope: ins.scope!, label: 'fence.proxy.release' });
        break;
      case 'barrier': {
        const id = evalE(ins.id).v;
        const count = ins.count ? evalE(ins.count).v : undefined;
        ev({
          kind: 'B',
          barId: id,
          ...(count !== undefined ? { barCount: count } : {}),
          ...(ins.arrive ? { barArrive: true } : {}),
          regsAt: { ...regs },
          sem: 'acq_rel',
          scope: 'cta',
          label: 'bar',
        });
        break;
      }
      case 'async': {
        const agent = ++agents;
        const before = po;
        const first = events.length;
        for (const a of ins.accesses) {
          // a bulk tensor operation reduces into the location the tensor map it read points at
          const at = a.via ? { ...a, loc: a.via.targets[Number(regs[a.via.reg] ?? 0n)] ?? a.loc } : a;
          if (!access(at, agent)) return { kind: 'need', options: needOptions };
        }
        for (let k = first; k < events.length; k++) events[k]!.issuedAfter = before;
        if (ins.completion.kind === 'mbarrier') {
          // 9.7.10.28: completion implies a generic-async proxy fence; then the complete-tx,
          // .release at .cluster scope (8.9.1.1: ordered only after this operation's accesses).
          ev({ kind: 'PF', agent, proxyFence: asyncGeneric ? ('generic' as Proxy) : 'async', sem: 'relaxed', label: 'fence.proxy(implicit)' });
          const mb = ins.completion;
          const loc = physLoc(test.locations, mb.mbar);
          const old = pickValue(loc);
          if (old === null) return { kind: 'need', options: needOptions };
          const base = {
            agent,
            addr: mb.mbar,
            loc,
            gaddr: genericAddr(test.locations, mb.mbar),
            proxy: 'generic' as Proxy,
            sem: (mb.sem ?? 'release') as Sem,
            scope: (mb.scope ?? 'cluster') as Scope,
            atomic: true,
            completion: true,
          };
          const r = ev({ kind: 'R', ...base, value: old, label: 'complete_tx' });
          const w = ev({ kind: 'W', ...base, value: old - mb.bytes, partner: r, label: 'complete_tx' });
          events[r]!.partner = w;
          events[r]!.issuedAfter = before;
          events[w]!.issuedAfter = before;
          events[w - 2]!.issuedAfter = before;
        } else if (ins.completion.kind === 'bulk_group') openGroup.push(agent);
        break;
      }
      case 'bulkCommit':
        committed.push(openGroup);
        openGroup = [];
        break;
      case 'bulkWait': {
        const done = committed.splice(0, Math.max(0, committed.length - ins.n)).flat();
        // the wait, followed by the implicit generic-async proxy fence of completion (9.7.10.28)
        ev({
          kind: 'PF',
          proxyFence: asyncGeneric ? ('generic' as Proxy) : 'async',
          waitsFor: done,
          ...(ins.read ? { waitsRead: true } : {}),
          sem: 'relaxed',
          label: ins.read ? 'wait_group.read' : 'wait_group',
        });
        break;
      }
      case 'mbarrier': {
        const m = { loc: ins.mbar, sem: ins.sem, scope: ins.scope, proxy: 'generic' as Proxy, ...(ins.line !== undefined ? { line: ins.line } : {}) };
        if (ins.op === 'init') access({ kind: 'write', value: { k: 'const', v: ins.count ?? 1n }, ...m }, 0);
        else if (ins.op === 'arrive' || ins.op === 'expect_tx') {
          const d = ins.op === 'arrive' ? -1n : (ins.bytes ?? 0n);
          if (!access({ kind: 'rmw', args: [], update: (o) => o + d, reduction: false, ...m }, 0)) return { kind: 'need', options: needOptions };
        } else {
          const tmp = `__mbar${pc}`;
          if (!access({ kind: 'read', dst: tmp, ...m }, 0)) return { kind: 'need', options: needOptions };
          if (ins.dst) {
            regs[ins.dst] = regs[tmp] === 0n ? 1n : 0n;
            taint[ins.dst] = taint[tmp] ?? [];
          }
        }
        break;
      }
    }
  }
  return { kind: 'done', trace: { events, regs, agents } };
}
