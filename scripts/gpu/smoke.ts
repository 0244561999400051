/**
 * First contact with the hardware: runs the directed probes of four atom variants on GPU 0 through
 * the native launcher (one thread per case, one launch per variant) and writes what it observed.
 * Usage (in a bundle, see scripts/gpu/pack.mjs): node smoke.mjs smoke.cubin OUT.json
 * Never creates a multicast object; reports the device's multicast support attribute.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { directedCases } from '../../cases/generators/directed.js';
import { representativeVariants } from '../../cases/generators/cases.js';
import { loadLauncher, probeDevices } from '../../harness/backends/gpu/driver.js';
import { familyById } from '../../harness/registry/index.js';
import { registerAllFamilies } from '../../harness/families/index.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

const KERNELS: Record<string, string> = {
  'atom.global.add.f32': 'atom_add_f32_global',
  'atom.shared::cta.add.f32': 'atom_add_f32_shared',
  'atom.global.add.noftz.f16x2': 'atom_add_noftz_f16x2_global',
  'atom.global.add.noftz.bf16x2': 'atom_add_noftz_bf16x2_global',
};

const [cubinPath, outPath] = process.argv.slice(2);
const loaded = loadLauncher();
if (!('launcher' in loaded)) {
  console.log(`skipped: ${loaded.reason}; fixes: ${loaded.fixes.join('; ')}`);
  process.exit(0);
}
const l = loaded.launcher;
const st = l.status();
if (!st.driver) {
  console.log(`skipped: ${st.reason}`);
  process.exit(0);
}
const info = probeDevices(l);
console.log(JSON.stringify(info));
l.useDevice(0);
const mod = l.loadModule(readFileSync(cubinPath!));
const hex = (v: number) => `0x${v.toString(16).padStart(8, '0')}`;
const observations: unknown[] = [];
const variants = representativeVariants(familyById('atom')!).filter((v) => v.id in KERNELS);
for (const v of variants) {
  const cases = directedCases(v);
  const n = cases.length;
  const mem = Buffer.alloc(4 * n);
  const b = Buffer.alloc(4 * n);
  cases.forEach((c, i) => {
    mem.writeUInt32LE(Number(BigInt((c.fields.memory as string[])[0]!)), 4 * i);
    b.writeUInt32LE(Number(BigInt((c.fields.operands as { b: string[] }).b[0]!)), 4 * i);
  });
  const dMem = l.memAlloc(4 * n);
  const dB = l.memAlloc(4 * n);
  const dOut = l.memAlloc(4 * n);
  l.copyToDevice(dMem, mem);
  l.copyToDevice(dB, b);
  l.copyToDevice(dOut, Buffer.alloc(4 * n, 0xa5)); // poison: every slot must be written
  const fn = l.getFunction(mod, KERNELS[v.id]!);
  l.launch(fn, [1, 1, 1], [n, 1, 1], 0, [1, 1, 1], [dMem, dB, dOut, BigInt(n)]);
  l.synchronize();
  const outMem = Buffer.alloc(4 * n);
  const outRet = Buffer.alloc(4 * n);
  l.copyFromDevice(outMem, dMem);
  l.copyFromDevice(outRet, dOut);
  for (const p of [dMem, dB, dOut]) l.memFree(p);
  cases.forEach((c, i) => {
    observations.push({
      id: `${v.id}/vectors/atom-${v.q.type === 'f32' ? 'f32' : 'half'}.yaml:${c.name}`,
      variant: v.id,
      input: { memory: c.fields.memory, b: (c.fields.operands as { b: string[] }).b },
      observed: { memory: [hex(outMem.readUInt32LE(4 * i))], returned: [hex(outRet.readUInt32LE(4 * i))] },
    });
  });
  console.log(`${v.id}: ${n} cases run`);
}
l.unloadModule(mod);
writeFileSync(
  outPath!,
  `${JSON.stringify({ schema: 'ptx-reduction-conformance/gpu-smoke', version: 1, at: new Date().toISOString(), driverVersion: info.driverVersion, devices: info.devices, kernels: KERNELS, observations }, null, 1)}\n`,
);
console.log(`wrote ${observations.length} observations to ${outPath}`);
