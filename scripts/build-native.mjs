// `npm install` runs this: builds the CUDA launcher addon (native/) with node-gyp. It never fails
// the install: a machine without a compiler or the CUDA headers keeps the reference and ptxas
// backends, and the harness says why the gpu backend is missing (native/build/status.json).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const native = join(root, 'native');
const status = join(native, 'build', 'status.json');
const cudaHome = process.env.CUDA_HOME || '/usr/local/cuda';
const save = (o) => {
  mkdirSync(dirname(status), { recursive: true });
  writeFileSync(status, `${JSON.stringify({ ...o, at: new Date().toISOString() }, null, 2)}\n`);
};

const gypCandidates = [
  process.env.npm_config_node_gyp,
  join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
].filter(Boolean);
const gyp = gypCandidates.find((p) => existsSync(p));

// the vector-file scanners (native/reader: JSON lines and YAML): no CUDA, a C++ compiler is all it needs; without it every
// item is read by the TypeScript scanners (harness/case-readers/native-scan.ts)
const reader = join(native, 'reader');
const readerStatus = join(reader, 'build', 'status.json');
const saveReader = (o) => {
  mkdirSync(dirname(readerStatus), { recursive: true });
  writeFileSync(readerStatus, `${JSON.stringify({ ...o, at: new Date().toISOString() }, null, 2)}\n`);
};
if (!gyp) saveReader({ built: false, reason: 'node-gyp not found (it ships with npm)' });
else {
  try {
    execFileSync(process.execPath, [gyp, 'rebuild'], { cwd: reader, stdio: ['ignore', 'pipe', 'pipe'] });
    saveReader({ built: true, addon: 'native/reader/build/Release/vector_scan.node' });
    console.log('native: built native/reader/build/Release/vector_scan.node (the JSON-lines and YAML scanners)');
  } catch (e) {
    const out = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-8).join('\n');
    saveReader({ built: false, reason: `node-gyp rebuild failed: ${out}` });
    console.log(`native: the vector-file scanners were not built (they need python3, make and a C++ compiler; vector files are then read by the TypeScript scanners):\n${out}`);
  }
}

if (!existsSync(join(cudaHome, 'include', 'cuda.h'))) {
  const reason = `CUDA headers not found (${join(cudaHome, 'include', 'cuda.h')}); set CUDA_HOME to the CUDA toolkit and run npm rebuild`;
  save({ built: false, reason });
  console.log(`native: not built: ${reason}. The reference and ptxas backends still work.`);
} else if (!gyp) {
  const reason = 'node-gyp not found (it ships with npm)';
  save({ built: false, reason });
  console.log(`native: not built: ${reason}.`);
} else {
  try {
    execFileSync(process.execPath, [gyp, 'rebuild'], { cwd: native, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CUDA_HOME: cudaHome } });
    save({ built: true, addon: 'native/build/Release/cuda_launcher.node', multicast: 'native/build/Release/cuda_multicast.node' });
    console.log('native: built native/build/Release/cuda_launcher.node and cuda_multicast.node (the latter loaded only by --backend multicast)');
  } catch (e) {
    const out = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-8).join('\n');
    save({ built: false, reason: `node-gyp rebuild failed: ${out}` });
    console.log(`native: not built (node-gyp rebuild failed; needs python3, make and a C++ compiler):\n${out}`);
  }
}
