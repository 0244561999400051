/**
 * A stand-in CUDA launcher for the lens's CPU tests (loaded through PTX_CONFORMANCE_ADDON): each lens
 * kernel (cases/cuda-lens/lens.yaml) is emulated as the contention kernel of the variant it stands
 * for: every address's N operations in a random order, each step the reference model's first allowed
 * value, returned values the state before. LENS_STANDIN_SPLIT=KERNEL makes that kernel non-atomic:
 * every participant reads the memory before any writes (lost updates), as a plain load and store
 * would. Cubins are not read.
 */
const { reference } = require('../../harness/reference/model.ts');
const { gpuPlan } = require('../../harness/backends/gpu/plan.ts');
const { elementFormat, joinLanes } = require('../../harness/numerics/formats.ts');
const { lensKernels, loadManifest } = require('../../harness/lens/manifest.ts');
// the families, in the module instances these require()s load (the program registered its own)
require('../../harness/families/index.ts').registerAllFamilies();

const mem = new Map<bigint, Buffer>();
let nextPtr = 0x10000n;
const at = (p: bigint): Buffer => {
  for (const [base, b] of mem) if (p >= base && p < base + BigInt(b.length)) return b.subarray(Number(p - base));
  throw new Error(`no allocation at ${p}`);
};
const names: string[] = [];
let launches = 0;

function emulate(name: string, params: bigint[], grid: number[], block: number[]): void {
  const [pmem, pops, pout, pn, playout] = params;
  const k = lensKernels(loadManifest()).find((x: { kernel: string }) => x.kernel === name);
  if (!k) throw new Error(`CUDA_ERROR_NOT_FOUND: cuModuleGetFunction ${name}`);
  const gv = gpuPlan('sm_90', '9.0').byId.get(k.variant);
  const e = gv.entry;
  const w = gv.shape.width;
  const els = gv.shape.elements;
  const n = Number(pn);
  const layout = Number(playout);
  const reps = layout === 0 ? (grid[0]! * block[0]!) / n : layout === 1 ? grid[0]! * 32 : layout === 3 ? (grid[0]! / n) * block[0]! : block[0]!;
  const m = at(pmem!);
  const ops = at(pops!);
  const out = at(pout!);
  const rd = (b: Buffer, o: number) => (w === 16 ? BigInt(b.readUInt16LE(o)) : w === 32 ? BigInt(b.readUInt32LE(o)) : b.readBigUInt64LE(o));
  const wr = (b: Buffer, o: number, x: bigint) => (w === 16 ? b.writeUInt16LE(Number(x), o) : w === 32 ? b.writeUInt32LE(Number(x), o) : b.writeBigUInt64LE(x, o));
  const get = (b: Buffer, o: number) => Array.from({ length: els }, (_, j) => rd(b, o + (j * w) / 8));
  const fmt = elementFormat(e.q.type ?? '');
  const split = process.env.LENS_STANDIN_SPLIT === name;
  const launch = launches++;
  for (let g = 0; g < reps; g++) {
    let x = (g * 2654435761 + launch * 40503 + 1) >>> 0 || 1;
    const rnd = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
    const order = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const m0 = get(m, g * 16);
    let state = m0;
    for (const i of order) {
      const before = split ? m0 : state;
      const b = get(ops, i * 32);
      const c = get(ops, i * 32 + 16);
      const ref = reference({ family: e.family, q: e.q }, { memory: before, b, source: b, ...(e.q.op === 'cas' ? { c } : {}) });
      state = ref.memory.map((el: { bits: bigint[] }[]) => joinLanes(fmt, el.map((l) => (l.bits.length ? l.bits[0] : BigInt(fmt.lane.canonicalNaN)))));
      before.forEach((y: bigint, j: number) => wr(out, (g * n + i) * 16 + (j * w) / 8, y));
    }
    state.forEach((y: bigint, j: number) => wr(m, g * 16 + (j * w) / 8, y));
  }
}

module.exports = {
  status: () => ({ driver: true }),
  init: () => ({ driverVersion: 13000, deviceCount: 1 }),
  device: () => ({ name: 'Stand-in (reference model)', values: [9, 0, 132, 0] }),
  useDevice: () => undefined,
  loadModule: () => 1n,
  unloadModule: () => undefined,
  getFunction: (_m: bigint, name: string) => BigInt(names.push(name) - 1),
  memAlloc: (bytes: number) => {
    const p = nextPtr;
    nextPtr += BigInt(bytes) + 0x1000n;
    mem.set(p, Buffer.alloc(bytes));
    return p;
  },
  memFree: (p: bigint) => void mem.delete(p),
  copyToDevice: (p: bigint, b: Buffer) => void b.copy(at(p)),
  copyFromDevice: (b: Buffer, p: bigint) => void at(p).copy(b, 0, 0, b.length),
  synchronize: () => undefined,
  launch: (fn: bigint, g: number[], b: number[], _s: number, _c: number[], params: bigint[]) => emulate(names[Number(fn)]!, params, g, b),
};
