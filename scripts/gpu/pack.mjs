// Packs a self-contained bundle for a GPU host that has a driver but no node: the node binary
// (xz-compressed), the CLI, executor and worker bundled by esbuild, the native launcher, and the
// smoke and isolation cubins. The CLI compiles the conformance kernels with the host's ptxas.
// Usage: node scripts/gpu/pack.mjs [DIR]   (default .bundle/)
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundle, conformanceNodeArgs } from '../conformance.cjs';

const root = resolve(import.meta.dirname, '..', '..');
const out = resolve(process.argv[2] ?? join(root, '.bundle'));
rmSync(out, { recursive: true, force: true }); // no stale files from an older pack
mkdirSync(out, { recursive: true });
// only the gpu backend's addon: the multicast binding (cuda_multicast.node) never goes to the lent GPU machines
const addon = join(root, 'native', 'build', 'Release', 'cuda_launcher.node');
if (!existsSync(addon)) throw new Error(`no ${addon}: run npm rebuild first`);
copyFileSync(addon, join(out, 'cuda_launcher.node'));
// the vector-file scanners, where they are built (harness/case-readers/native-scan.ts looks beside the bundle)
const reader = join(root, 'native', 'reader', 'build', 'Release', 'vector_scan.node');
if (existsSync(reader)) copyFileSync(reader, join(out, 'vector_scan.node'));
execFileSync('ptxas', ['-arch', 'sm_90', join(root, 'scripts', 'gpu', 'smoke.ptx'), '-o', join(out, 'smoke.cubin')], { stdio: 'inherit' });
// the programs, bundled as npm run conformance bundles the CLI (scripts/conformance.cjs)
bundle(
  {
    smoke: 'scripts/gpu/smoke.ts',
    executor: 'harness/backends/gpu/executor.ts',
    isolation: 'scripts/gpu/isolation.ts',
    cli: 'harness/cli/main.ts',
    worker: 'harness/backends/gpu/worker.ts',
    'bench-vector-file': 'scripts/bench-vector-file.ts',
    'gen-spelled': 'scripts/gen-spelled.ts',
    'accept-baseline': 'scripts/accept-baseline.ts',
    'sass-tools-bench': 'scripts/gpu/sass-tools-bench.ts',
  },
  out,
);
execFileSync('ptxas', ['-arch', 'sm_90', join(root, 'scripts', 'gpu', 'isolation.ptx'), '-o', join(out, 'isolation.cubin')], { stdio: 'inherit' });
writeFileSync(join(out, 'node.xz'), execFileSync('xz', ['-T2', '-c', process.execPath], { maxBuffer: 1 << 30 }));
writeFileSync(join(out, 'run.sh'), '#!/bin/sh\nset -e\nd=$(dirname "$0")\nxz -dc "$d/node.xz" > /tmp/ptxconf-node && chmod +x /tmp/ptxconf-node\nexec /tmp/ptxconf-node "$d/smoke.mjs" "$d/smoke.cubin" "$@"\n', { mode: 0o755 });
// started as npm run conformance starts the CLI: with its node flags (package.json), the launcher's place taken by cli.mjs
const flags = conformanceNodeArgs(root).slice(0, -1).join(' ');
writeFileSync(
  join(out, 'conformance.sh'),
  `#!/bin/sh\n# npm run conformance, from the bundle: sh conformance.sh --backend gpu --arch sm_90 ...\nset -e\nd=$(dirname "$0")\n[ -x /tmp/ptxconf-node ] || { xz -dc "$d/node.xz" > /tmp/ptxconf-node && chmod +x /tmp/ptxconf-node; }\nexec /tmp/ptxconf-node ${flags} "$d/cli.mjs" "$@"\n`,
  { mode: 0o755 },
);
console.log(`bundle in ${out}`);
