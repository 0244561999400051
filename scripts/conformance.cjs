// `npm run conformance`: the CLI (harness/cli/main.ts) run from an esbuild bundle of the harness kept
// in .cache/bundle/, built again whenever one of the files it was made of changed (their sizes and
// modification times, checked at each start: a few milliseconds). The bundle starts in about 0.2 s
// where tsx takes 0.7 s (it compiles the TypeScript at each start), in the run and in each child it
// starts (the case child, the GPU workers); the code is the same. Building takes about 0.3 s, once
// after each change. PTXCONF_NO_BUNDLE=1, or an esbuild that cannot be loaded or a build that fails
// (said on stderr), runs the TypeScript through tsx as before; PTXCONF_BUNDLE_DIR puts the bundle
// elsewhere (the tests').
// CommonJS: a `--list` answered from a warm bundle loads no ES module at all (node's ES module loader
// costs about 15 ms to start), list.cjs being CommonJS too.
const { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join, resolve } = require('node:path');
const { pathToFileURL } = require('node:url');
const { setFlagsFromString } = require('node:v8');

const root = resolve(__dirname, '..');
const main = join(root, 'harness', 'cli', 'main.ts');
/** The entry points: the CLI and the children it starts (each found beside the CLI's bundle). */
const ENTRIES = {
  cli: 'harness/cli/main.ts',
  'case-child': 'harness/cli/case-child.ts',
  worker: 'harness/backends/gpu/worker.ts',
  executor: 'harness/backends/gpu/executor.ts',
  'multicast-child': 'harness/backends/multicast/child.ts',
};
/** harness/cli/list-main.ts: answers a `--list` of the catalog, else the CLI runs (start). */
const LIST_ENTRY = { list: 'harness/cli/list-main.ts' };
/** Files the bundled code finds beside itself, copied as they are. */
const COPIED = ['harness/util/spawn-child.mjs'];

/** One line per input: its path, size and modification time, and the node and format it was built for. */
function stampOf(inputs) {
  const lines = [`node ${process.version}`, 'format 4'];
  for (const p of inputs) {
    try {
      const s = statSync(join(root, p));
      // a package's version too: npm gives every file of a package the same old modification time
      const version = p.endsWith('/package.json') && p.includes('node_modules/') ? ` ${JSON.parse(readFileSync(join(root, p), 'utf8')).version}` : '';
      lines.push(`${p} ${s.size} ${s.mtimeMs}${version}`);
    } catch {
      lines.push(`${p} missing`);
    }
  }
  return lines.join('\n');
}

/**
 * The file whose stamp stands for an input: a package's package.json (its version read) for its files
 * under node_modules (one file where a package has dozens), else the input itself.
 */
function packageFile(input) {
  const m = /^((?:.*\/)?node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return m ? `${m[1]}/package.json` : input;
}

function loadEsbuild() {
  const req = createRequire(join(root, 'package.json'));
  try {
    return req('esbuild');
  } catch {
    // esbuild is tsx's dependency: found from there where npm did not hoist it
    return createRequire(req.resolve('tsx'))('esbuild');
  }
}

/**
 * Bundles `entries` (name -> a source file of the package) into `outdir` as NAME.mjs, ESM for node 20,
 * with its metafile; throws when esbuild cannot be loaded or the build fails. scripts/gpu/pack.mjs
 * bundles the GPU host's files with it too (one file each). `splitting`: the code the entries share,
 * and what they import only on demand, in chunk files beside them, so that a process loads only what
 * it runs (`--list` loads the catalog, not the backends, readers and reports: about 30 ms less).
 */
function bundle(entries, outdir, { splitting = false } = {}) {
  // beside the entries: the bundled code finds its entries, addons and copied files beside itself
  return loadEsbuild().buildSync({ ...settings(entries, outdir), splitting, chunkNames: 'chunk-[hash]' });
}

/** What every build of the harness shares: ESM for node 20, one NAME.mjs per entry, with its metafile. */
function settings(entries, outdir) {
  return {
    absWorkingDir: root,
    entryPoints: entries,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    metafile: true,
    logLevel: 'silent',
    // bundled CommonJS packages call require
    banner: { js: 'import{createRequire as __cr}from"module";const require=__cr(import.meta.url);' },
  };
}

/**
 * `--list`'s program (LIST_ENTRY) into `outdir` as list.cjs, one CommonJS file (loaded with require: no
 * ES module loader to start): what it imports only on demand (the subcommands, the run) left out, as
 * `import()`s it never reaches (it answers a `--list` of the catalog, or returns for the CLI to run).
 */
async function bundleList(outdir) {
  const onDemand = (b) => b.onResolve({ filter: /.*/ }, (a) => (a.kind === 'dynamic-import' ? { path: a.path, external: true } : undefined));
  return loadEsbuild().build({
    ...settings(LIST_ENTRY, outdir),
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    // what the harness reads of import.meta, from CommonJS's own
    define: { 'import.meta.url': '__import_meta_url', 'import.meta.dirname': '__dirname' },
    banner: { js: 'const __import_meta_url=require("node:url").pathToFileURL(__filename).href;' },
    plugins: [{ name: 'on-demand-left-out', setup: onDemand }],
  });
}

/**
 * The folder of an up-to-date bundle under `dir` (default .cache/bundle), building one when none is;
 * throws when esbuild cannot be loaded or the build fails.
 */
async function ensureBundle(dir = process.env.PTXCONF_BUNDLE_DIR ?? join(root, '.cache', 'bundle')) {
  const currentFile = join(dir, 'current.json');
  try {
    const cur = JSON.parse(readFileSync(currentFile, 'utf8'));
    const at = join(dir, cur.name);
    if (cur.stamp === stampOf(cur.inputs) && existsSync(join(at, 'cli.mjs')) && existsSync(join(at, 'list.cjs'))) return at;
  } catch {
    // no bundle yet, or a current.json that does not read: built below
  }
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `tmp-${process.pid}-${Date.now()}`);
  const r = bundle(ENTRIES, tmp, { splitting: true });
  // `--list`'s program, one file of its own (the CLI's bundle splits the catalog's code over dozens of chunks)
  const l = await bundleList(tmp);
  for (const f of COPIED) copyFileSync(join(root, f), join(tmp, f.split('/').pop()));
  const inputs = [...new Set([...Object.keys(r.metafile.inputs), ...Object.keys(l.metafile.inputs)].map(packageFile).concat(COPIED, 'scripts/conformance.cjs'))].sort();
  const stamp = stampOf(inputs);
  const name = `b-${Date.now().toString(36)}-${process.pid}`;
  renameSync(tmp, join(dir, name));
  const next = `${currentFile}.${process.pid}.tmp`;
  writeFileSync(next, JSON.stringify({ name, inputs, stamp }));
  renameSync(next, currentFile);
  // older bundles go once no run can still be starting children from them (an hour)
  for (const d of readdirSync(dir)) {
    if (d === name || d === 'current.json') continue;
    try {
      if (Date.now() - statSync(join(dir, d)).mtimeMs > 3600_000) rmSync(join(dir, d), { recursive: true, force: true });
    } catch {
      // removed by another run meanwhile
    }
  }
  return join(dir, name);
}

/**
 * A CommonJS file of the bundle, compiled with V8's code cache beside it (FILE.v8cache: the functions
 * its first run compiled, written then): list.cjs starts about 8 ms sooner. `keep()` writes the cache
 * where there was none or V8 refused it (another node, other flags).
 */
function loadCached(file) {
  const { Script } = require('node:vm');
  const { Module } = require('node:module');
  const cacheFile = `${file}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, ...(cachedData ? { cachedData } : {}) });
  const m = { exports: {} };
  script.runInThisContext().call(m.exports, m.exports, createRequire(file), m, file, join(file, '..'));
  return {
    exports: m.exports,
    keep: () => {
      if (cachedData && !script.cachedDataRejected) return;
      try {
        writeFileSync(`${cacheFile}.${process.pid}`, script.createCachedData());
        renameSync(`${cacheFile}.${process.pid}`, cacheFile);
      } catch {
        // a read-only bundle: no cache, the same answer
      }
    },
  };
}

async function start() {
  // the bundled code finds the package (cases/, native/, reports/) through this, wherever the bundle is
  process.env.PTXCONF_PACKAGE_ROOT = root;
  let cli;
  if (process.env.PTXCONF_NO_BUNDLE !== '1') {
    let dir;
    try {
      dir = await ensureBundle();
      cli = join(dir, 'cli.mjs');
    } catch (e) {
      const first = String(e instanceof Error ? e.message : e).split('\n')[0];
      process.stderr.write(`(no bundle of the harness: ${first}; running the TypeScript through tsx)\n`);
    }
    // a --list of the catalog from list.cjs (what the CLI would print), without loading the CLI
    if (dir && process.argv.includes('--list')) {
      // no optimising compiler for a process this short: its background compilations of the
      // enumeration's hot loops held the exit back about 30 ms (V8's workers finish their jobs first)
      setFlagsFromString('--no-opt');
      const list = loadCached(join(dir, 'list.cjs'));
      const code = list.exports.runList(process.argv.slice(2));
      list.keep();
      if (code !== undefined) {
        process.exitCode = code;
        return;
      }
      setFlagsFromString('--opt'); // the CLI runs: optimised as usual
    }
  }
  if (!cli) {
    const { register } = await import('tsx/esm/api');
    register();
    cli = main;
  }
  // the CLI runs when it is the program (harness/cli/main.ts checks argv[1])
  process.argv[1] = cli;
  await import(pathToFileURL(cli).href);
}

/**
 * The node arguments `npm run conformance` runs a checkout's launcher with: its package.json's
 * `conformance` script after `node` (V8 flags, then the launcher's path), so that a benchmark or the
 * GPU bundle (scripts/gpu/pack.mjs) starts the CLI as npm does. The flag there: young-generation
 * semi-spaces of 64 MB, not 16 (the CPU run's catalog enumeration survives many scavenges: 156-160 of
 * them took 3.1 s of the run's thread with an empty cache, 37-58 took 2.0 s).
 */
function conformanceNodeArgs(dir = root) {
  const script = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts?.conformance ?? '';
  const m = /^(?:exec\s+)?node\s+(.+)$/.exec(script.trim());
  if (!m) throw new Error(`${join(dir, 'package.json')}: its conformance script (${JSON.stringify(script)}) is not "node ARGS"`);
  return m[1].split(/\s+/);
}

module.exports = { ENTRIES, bundle, ensureBundle, conformanceNodeArgs };

// the program (npm run conformance), not a module another imports (scripts/gpu/pack.mjs, the tests)
if (require.main === module) void start();
