/**
 * A simulated multicast system for tests: the MulticastDriver interface in TypeScript, with
 * devices that do or do not report multicast support, memory per device, multicast objects whose
 * bound replicas a kernel sees through the multicast address, and a switch whose reduction order
 * and accumulation precision are configuration. It records every driver call, so a test can check
 * the sequence (and that nothing was created before a refusal), and can fail any call on demand, so
 * a test can check that everything created is released on that path too.
 */
import { multicastFamily } from '../../registry/multicast.js';
import { parseInstruction } from '../../catalog/parse.js';
import { FLOAT_FORMATS, type FloatFormat, type IntFormat, classify, elementFormat, joinLanes, splitLanes } from '../../numerics/formats.js';
import { type IntOp, addOnce, intOp, minmaxAllowed } from '../../numerics/ops.js';
import { convert, exactReduction } from '../../numerics/reduce.js';
import type { ModelVariant } from '../../reference/model.js';
import type { DeviceSurvey } from './guard.js';
import type { Handle, MulticastDriver, MulticastKernel } from './driver.js';
import type { SimulatedSwitch } from './family.js';

export interface StandInConfig {
  /** One entry per device: its name and whether it reports multicast support. */
  readonly devices: readonly { readonly name: string; readonly multicastSupported: boolean }[];
  /**
   * Replica order of a reduction: ascending r0, r1, ...; descending; or a permutation per launch
   * (launch k starts at replica k mod n, the same order for every element of that launch).
   */
  readonly order: 'ascending' | 'descending' | 'rotating';
  /** Accumulation: as the variant declares (.acc::f32/.acc::f16, else the element type, each step rounded), in f32, in f64, or exactly with one rounding. */
  readonly accumulate: 'as-declared' | 'f32' | 'f64' | 'exact';
  /** Subnormal inputs and results flushed to sign-preserving zero. */
  readonly ftz: boolean;
  /** Each launch takes this long (blocking), so a test can signal a run mid-way. */
  readonly launchMs?: number;
  /** Fail this driver call (the n-th time it is made, default the first). */
  readonly failAt?: { readonly call: keyof MulticastDriver; readonly nth?: number };
}

interface Mc {
  readonly devices: number;
  readonly bytes: number;
  readonly added: number[];
  readonly bound: Map<number, Handle>;
}

export class StandInMulticast implements MulticastDriver {
  readonly name: string;
  readonly calls: string[] = [];
  /** Handles and addresses not yet released (a test checks it is empty after a run). */
  readonly live = new Map<bigint, string>();
  private next = 0x1000n;
  private readonly phys = new Map<Handle, { device: number; buf: Buffer }>();
  private readonly mcs = new Map<Handle, Mc>();
  private readonly vas = new Map<bigint, { kind: 'unicast' | 'plain'; device: number; buf: Buffer } | { kind: 'multicast'; mc: Handle }>();
  private readonly kernels = new Map<Handle, MulticastKernel>();
  private launches = 0;
  private counts: Record<string, number> = {};

  constructor(readonly config: StandInConfig) {
    this.name = `stand-in (${config.devices.length} devices; order ${config.order}; accumulation ${config.accumulate}; subnormals ${config.ftz ? 'flushed' : 'kept'})`;
  }

  /** What the guard's device check sees. */
  survey(): DeviceSurvey {
    this.calls.push('cuDeviceGetAttribute(MULTICAST_SUPPORTED) x' + this.config.devices.length);
    return { devices: this.config.devices.map((d, ordinal) => ({ ordinal, name: d.name, multicastSupported: d.multicastSupported })) };
  }

  private call(name: keyof MulticastDriver, text: string): void {
    this.calls.push(text);
    const n = (this.counts[name] = (this.counts[name] ?? 0) + 1);
    const f = this.config.failAt;
    if (f && f.call === name && (f.nth ?? 1) === n) throw new Error(`${text}: CUDA_ERROR_UNKNOWN (failure planted by the test)`);
  }

  private handle(what: string): bigint {
    const h = (this.next += 0x100n);
    this.live.set(h, what);
    return h;
  }

  private dev(d: number): void {
    if (!this.config.devices[d]?.multicastSupported) throw new Error(`device ${d} does not support multicast`);
  }

  granularity(devices: number, bytes: number): number {
    this.call('granularity', `cuMulticastGetGranularity(devices=${devices}, size=${bytes})`);
    return 2 << 20;
  }
  createMulticast(devices: number, bytes: number): Handle {
    this.call('createMulticast', `cuMulticastCreate(devices=${devices}, size=${bytes})`);
    const h = this.handle('multicast object');
    this.mcs.set(h, { devices, bytes, added: [], bound: new Map() });
    return h;
  }
  addDevice(mc: Handle, device: number): void {
    this.call('addDevice', `cuMulticastAddDevice(device=${device})`);
    this.dev(device);
    const m = this.mcs.get(mc)!;
    if (m.bound.size) throw new Error('cuMulticastAddDevice after memory was bound');
    if (m.added.length >= m.devices) throw new Error('more devices than the object was created for');
    m.added.push(device);
  }
  allocPhysical(device: number, bytes: number): Handle {
    this.call('allocPhysical', `cuMemCreate(device=${device}, size=${bytes})`);
    const h = this.handle(`device ${device} memory`);
    this.phys.set(h, { device, buf: Buffer.alloc(bytes, 0xa5) });
    return h;
  }
  bindMemory(mc: Handle, device: number, mem: Handle, bytes: number): void {
    this.call('bindMemory', `cuMulticastBindMem(device=${device}, size=${bytes})`);
    const m = this.mcs.get(mc)!;
    if (m.added.length !== m.devices) throw new Error('cuMulticastBindMem before every device was added');
    if (!m.added.includes(device) || this.phys.get(mem)?.device !== device)
      throw new Error(`device ${device} is not part of the object or the memory is another device's`);
    m.bound.set(device, mem);
  }
  mapMulticast(mc: Handle, device: number, bytes: number): bigint {
    this.call('mapMulticast', `cuMemAddressReserve+cuMemMap(multicast)+cuMemSetAccess(device=${device}, size=${bytes})`);
    const va = this.handle('multicast mapping');
    this.vas.set(va, { kind: 'multicast', mc });
    return va;
  }
  mapUnicast(mem: Handle, device: number, bytes: number): bigint {
    this.call('mapUnicast', `cuMemAddressReserve+cuMemMap(physical)+cuMemSetAccess(device=${device}, size=${bytes})`);
    const va = this.handle(`device ${device} mapping`);
    this.vas.set(va, { kind: 'unicast', device, buf: this.phys.get(mem)!.buf });
    return va;
  }
  allocPlain(device: number, bytes: number): bigint {
    this.call('allocPlain', `cuMemAlloc(device=${device}, size=${bytes})`);
    const va = this.handle(`device ${device} buffer`);
    this.vas.set(va, { kind: 'plain', device, buf: Buffer.alloc(bytes, 0x5a) });
    return va;
  }
  private plain(device: number, va: bigint): Buffer {
    const m = this.vas.get(va);
    if (!m || m.kind === 'multicast' || m.device !== device) throw new Error(`address ${va} is not device ${device}'s`);
    return m.buf;
  }
  write(device: number, va: bigint, data: Buffer): void {
    this.call('write', `cuMemcpyHtoD(device=${device}, ${data.length} bytes)`);
    data.copy(this.plain(device, va));
  }
  read(device: number, va: bigint, bytes: number): Buffer {
    this.call('read', `cuMemcpyDtoH(device=${device}, ${bytes} bytes)`);
    return Buffer.from(this.plain(device, va).subarray(0, bytes));
  }
  loadKernel(device: number, k: MulticastKernel): Handle {
    this.call('loadKernel', `cuModuleLoadData+cuModuleGetFunction(device=${device}, ${k.ptx})`);
    if (!/\.entry multimem_kernel\(/.test(k.module)) throw new Error('the module has no multimem_kernel entry');
    const h = this.handle('kernel module');
    this.kernels.set(h, k);
    return h;
  }
  launch(device: number, fn: Handle, k: MulticastKernel, args: { mc: bigint; b: bigint; out: bigint }): void {
    this.call('launch', `cuLaunchKernel(device=${device}, ${k.threads} threads)+cuCtxSynchronize`);
    const mapping = this.vas.get(args.mc);
    if (!this.kernels.has(fn) || mapping?.kind !== 'multicast') throw new Error('launch: unknown kernel or not a multicast address');
    const m = this.mcs.get(mapping.mc)!;
    const replicas = m.added.map((d) => this.phys.get(m.bound.get(d)!)!.buf);
    const p = parseInstruction(k.ptx);
    const v: ModelVariant = { family: p.family.id, q: p.q };
    const fam = multicastFamily(v.family);
    if (!fam) throw new Error(`the stand-in runs no ${v.family}`);
    const fmt = elementFormat(v.q.type ?? '');
    const eb = fmt.bits / 8;
    const per = k.slotBytes / eb;
    const get = (buf: Buffer, at: number) => {
      let x = 0n;
      for (let j = eb - 1; j >= 0; j--) x = (x << 8n) | BigInt(buf[at + j]!);
      return x;
    };
    const set = (buf: Buffer, at: number, x: bigint) => {
      for (let j = 0; j < eb; j++) buf[at + j] = Number((x >> BigInt(8 * j)) & 0xffn);
    };
    const bBuf = this.plain(device, args.b);
    const outBuf = this.plain(device, args.out);
    const sw = this.switchFor(this.launches++);
    if (this.config.launchMs) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, this.config.launchMs);
    for (let t = 0; t < k.threads; t++) {
      const at = (i: number) => t * k.slotBytes + i * eb;
      fam.simulate(v, sw, {
        replicas: replicas.length,
        elements: per,
        replica: (r, i) => get(replicas[r]!, at(i)),
        setReplica: (r, i, x) => set(replicas[r]!, at(i), x),
        b: (i) => get(bBuf, at(i)),
        setOut: (i, x) => set(outBuf, at(i), x),
      });
    }
  }
  unloadKernel(device: number, fn: Handle): void {
    this.call('unloadKernel', `cuModuleUnload(device=${device})`);
    this.kernels.delete(fn);
    this.live.delete(fn);
  }
  freePlain(device: number, va: bigint): void {
    this.call('freePlain', `cuMemFree(device=${device})`);
    this.vas.delete(va);
    this.live.delete(va);
  }
  unmap(va: bigint, bytes: number): void {
    this.call('unmap', `cuMemUnmap+cuMemAddressFree(size=${bytes})`);
    this.vas.delete(va);
    this.live.delete(va);
  }
  unbindMemory(mc: Handle, device: number, bytes: number): void {
    this.call('unbindMemory', `cuMulticastUnbind(device=${device}, size=${bytes})`);
    this.mcs.get(mc)?.bound.delete(device);
  }
  releasePhysical(mem: Handle): void {
    this.call('releasePhysical', 'cuMemRelease(physical)');
    this.phys.delete(mem);
    this.live.delete(mem);
  }
  releaseMulticast(mc: Handle): void {
    this.call('releaseMulticast', 'cuMemRelease(multicast)');
    const m = this.mcs.get(mc);
    if (m?.bound.size) throw new Error('cuMemRelease of a multicast object with memory still bound');
    this.mcs.delete(mc);
    this.live.delete(mc);
  }

  /** The simulated switch of launch `k`: its replica order and accumulation. */
  private switchFor(k: number): SimulatedSwitch {
    const { order, accumulate, ftz } = this.config;
    const perm = (n: number) => {
      const idx = Array.from({ length: n }, (_, i) => i);
      if (order === 'descending') return idx.reverse();
      if (order === 'rotating') return idx.map((i) => (i + k) % n);
      return idx;
    };
    const flush = (f: FloatFormat, b: bigint) => (ftz && classify(f, b) === 'subnormal' ? b & (1n << BigInt(f.bits - 1)) : b);
    const combine = (op: string, f: FloatFormat, a: bigint, b: bigint): bigint => {
      if (op === 'add') {
        const o = addOnce(f, a, b, ftz);
        return o.nan ? BigInt(f.canonicalNaN) : o.bits;
      }
      const m = minmaxAllowed(f, op as 'min' | 'max', flush(f, a), flush(f, b));
      return m.anyNaN && !m.bits.length ? BigInt(f.canonicalNaN) : flush(f, m.bits[0]!);
    };
    const lanewise = (v: ModelVariant, values: readonly bigint[], one: (lane: FloatFormat | IntFormat, xs: bigint[]) => bigint) => {
      const fmt = elementFormat(v.q.type ?? '');
      const lanes = values.map((x) => splitLanes(fmt, x));
      return joinLanes(
        fmt,
        Array.from({ length: fmt.lanes }, (_, l) =>
          one(
            fmt.lane,
            lanes.map((x) => x[l]!),
          ),
        ),
      );
    };
    return {
      reduce: (v, values) =>
        lanewise(v, values, (lane, xs) => {
          const op = v.q.op ?? '';
          const ordered = perm(xs.length).map((i) => xs[i]!);
          if (lane.kind === 'int') return ordered.slice(1).reduce((a, x) => intOp(op as IntOp, lane, a, x), ordered[0]!);
          if (accumulate === 'exact' && op === 'add') return exactReduction(lane, ordered, ftz).bits;
          const acc =
            accumulate === 'f32'
              ? FLOAT_FORMATS.f32
              : accumulate === 'f64'
                ? FLOAT_FORMATS.f64
                : v.q.acc === 'acc::f32'
                  ? FLOAT_FORMATS.f32
                  : v.q.acc === 'acc::f16'
                    ? FLOAT_FORMATS.f16
                    : lane;
          const wide = acc.bits > lane.bits ? acc : lane;
          const accOf = accumulate === 'as-declared' ? acc : wide;
          const r = ordered.map((x) => flush(accOf, convert(lane, accOf, flush(lane, x)))).reduce((a, x) => combine(op, accOf, a, x));
          return classify(accOf, r) === 'nan' ? BigInt(lane.canonicalNaN) : flush(lane, convert(accOf, lane, r));
        }),
      apply: (v, memory, b) =>
        lanewise(v, [memory, b], (lane, [m, x]) => {
          const op = v.q.op ?? '';
          if (lane.kind === 'int') return intOp(op as IntOp, lane, m!, x!);
          const r = combine(op, lane, m!, x!);
          return classify(lane, r) === 'nan' ? BigInt(lane.canonicalNaN) : r;
        }),
    };
  }
}
