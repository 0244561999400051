/**
 * `npm run conformance -- peer [options]`: atom and red on another GPU's memory through a peer
 * mapping (issue 29; harness/peer/). Single-thread cases of every atom/red .global variant with no
 * scope, .gpu or .sys run through the gpu executor twice, memory on GPU 0 (local) and on GPU 1
 * (peer), both judged by the comparator; then contention across the two GPUs on GPU 1's memory,
 * judged by the contention model. Exit 0 when nothing is a mismatch or an error, 1 otherwise, 2 on
 * usage errors or where the run is refused (environment, devices, peer access).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { modulePtxFor } from '../arch/targets.js';
import { type Launcher, type PeerLinkInfo, loadLauncher, probeDevices } from '../backends/gpu/driver.js';
import { gpuPlan } from '../backends/gpu/plan.js';
import { probePtxas } from '../backends/ptxas/toolchain.js';
import { compileFilter } from '../util/filter.js';
import { resolveCacheDir } from '../util/cache-dir.js';
import { prepareReportDir } from '../report/dir.js';
import { type PeerContentionOutcome, peerContentionGroups, runPeerContention } from '../peer/contend.js';
import { peerEnvironmentRefusal } from '../peer/guard.js';
import { CONTENTION_RULES, PEER_RULES, SINGLE_FILTER, peerGroupId } from '../peer/plan.js';
import { UsageError } from '../util/errors.js';
import { checkGpuOnly, gpuFor, parseGpuCommand, toolchainOf } from './gpu-command.js';
import type { RunReport } from '../report/json.js';
import { type Options, runOptions } from './args.js';
import type { RunHooks } from './matrix.js';
import type { Io } from './io.js';

export const PEER_USAGE = `npm run conformance -- peer [options]
  atom and red on another GPU's memory (peer mappings over NVLink or PCIe; never a multicast object).
  Needs two devices with peer access both ways (cuDeviceCanAccessPeer), and NCCL_NVLS_ENABLE=0,
  NVSHMEM_DISABLE_NVLS=1 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1 in the environment (else exit 2).
  1. single-thread cases of every atom/red .global variant with no scope, .gpu or .sys (the gpu
     executor's library and generated cases), launched on GPU 0 with the memory on GPU 0 (local)
     and on GPU 1 (peer), both judged by the comparator; the two runs' kept bits compared;
  2. contention across GPUs: every contention group (one per op and type, grid layout), with no
     scope, .gpu and .sys, its participants split over both GPUs on the same words of GPU 1's
     memory, started on one flag; .sys must be atomic (a lost update is a mismatch), .gpu may lose
     updates (reported).
  --plan-only       list the devices' roles, the link checks and the jobs, and exit (no GPU needed)
  --filter F        only variants (any scope) that match (as elsewhere)
  --only P          single or contend (default both)
  --generated N     level-3 generated cases per variant in the single-thread runs (default 8)
  --reps R          addresses per contention launch (default 256; a multiple of 32, at most 1024)
  --arch A          target (default sm_90)
  --report DIR      where local/, peer/ (run reports) and peer.json.gz go (default reports/out/peer-<timestamp>/)
  --overwrite       replace a report already in --report DIR (without it that folder is refused, exit 2)
  --cache-dir DIR   cubins (default as elsewhere)
  --ptxas PATH      the ptxas that compiles the kernels
  --spec-edition E  the PTX ISA edition both single-thread runs are judged against (as elsewhere)
  --backend B       gpu or auto`;

const ATTRS = ['performanceRank', 'accessSupported', 'nativeAtomicSupported', 'cudaArrayAccessSupported'] as const;

interface RunSummary {
  readonly memory: 'local' | 'peer';
  readonly memoryDevice: number;
  readonly launchDevice: number;
  readonly exitCode: number;
  readonly report: string;
  readonly stats: Record<string, unknown>;
  readonly counts: Record<string, unknown>;
  /** Kept case results: id -> verdict and observed bits. */
  readonly cases: Map<string, { verdict: string; observed: unknown; sass?: string }>;
  readonly bad: { id: string; verdict: string; reason: string }[];
}

/** What peer.json keeps of one single-thread run: its report's counts, kept cases and results that do not pass. */
function summariseRun(r: RunReport, dir: string, memory: 'local' | 'peer', memoryDevice: number, exitCode: number): RunSummary {
  const cases = new Map<string, { verdict: string; observed: unknown; sass?: string }>();
  const bad: RunSummary['bad'] = [];
  for (const x of r.results) {
    if (x.kind === 'case' && x.case?.observed) cases.set(x.id, { verdict: x.verdict, observed: x.case.observed, ...(x.sass ? { sass: x.sass } : {}) });
    if (['mismatch', 'error', 'compile-mismatch'].includes(x.verdict)) bad.push({ id: x.id, verdict: x.verdict, reason: x.reason });
  }
  return { memory, memoryDevice, launchDevice: 0, exitCode, report: dir, stats: r.stats, counts: r.counts, cases, bad };
}

/** Kept cases of both runs whose bits or verdicts differ. */
export function compareRuns(
  local: Pick<RunSummary, 'cases'>,
  peer: Pick<RunSummary, 'cases'>,
): { both: number; differ: { id: string; local: unknown; peer: unknown }[] } {
  const differ: { id: string; local: unknown; peer: unknown }[] = [];
  let both = 0;
  for (const [id, p] of peer.cases) {
    const l = local.cases.get(id);
    if (!l) continue;
    both++;
    if (JSON.stringify(l.observed) !== JSON.stringify(p.observed) || l.verdict !== p.verdict)
      differ.push({ id, local: { verdict: l.verdict, observed: l.observed }, peer: { verdict: p.verdict, observed: p.observed } });
  }
  return { both, differ };
}

/** The peer command's JSON of the contention outcomes (histograms as the one-GPU report writes them). */
export function contentionJson(xs: readonly PeerContentionOutcome[]): unknown[] {
  return xs.map((x) => ({
    id: x.id,
    variant: x.group.gv.entry.id,
    scope: x.group.scope || 'default',
    set: x.group.set.name,
    participants: { gpu0: x.group.onFirst, gpu1: x.group.set.b.length - x.group.onFirst },
    memory: 'peer: device 1',
    atomicRequired: x.group.atomic,
    rules: [
      x.group.atomic ? CONTENTION_RULES.atomic.id : CONTENTION_RULES.split.id,
      x.group.atomic ? PEER_RULES.sysIncludesPeer.id : PEER_RULES.gpuExcludesPeer.id,
    ],
    reps: x.outcome.reps,
    verdict: x.outcome.verdict,
    lostUpdates: x.outcome.lostUpdates,
    deterministic: x.outcome.deterministic,
    ...(x.outcome.allowed !== undefined ? { allowed: x.outcome.allowed } : {}),
    overlap: x.overlap,
    outcomes: x.outcome.outcomes,
  }));
}

/**
 * `peer`: `run` is the main run as a function (run.ts's runWith), handed in by the command table so
 * that this module does not import the entry that loads it (no import cycle).
 */
export async function peerCommand(
  argv: readonly string[],
  io: Io,
  run: (opts: Options, command: readonly string[], io: Io, hooks?: RunHooks) => Promise<number>,
): Promise<number> {
  const parsed = parseGpuCommand(
    argv,
    { 'plan-only': { type: 'boolean' }, only: { type: 'string' }, generated: { type: 'string' }, reps: { type: 'string' } },
    PEER_USAGE,
    io.out,
  );
  if (!parsed) return 0;
  const { v, target, shard, edition } = parsed;
  checkGpuOnly(v.backend, 'peer', 'it runs atomics on two GPUs');
  if (shard)
    throw new UsageError(
      'peer does not take --shard: its two single-thread runs and its contention groups run on one two-GPU host; narrow it with --filter or --only instead',
    );
  const only = v.only ?? 'both';
  if (!['single', 'contend', 'both'].includes(only)) throw new UsageError(`--only takes single or contend, got '${only}'`);
  const generated = Number(v.generated ?? 8);
  if (!Number.isInteger(generated) || generated < 0 || generated > 1_000_000)
    throw new UsageError(`--generated takes a whole number from 0 to 1000000, got '${v.generated}'`);
  const reps = Number(v.reps ?? 256);
  if (!Number.isInteger(reps) || reps < 32 || reps > 1024 || reps % 32) throw new UsageError(`--reps takes a multiple of 32 from 32 to 1024, got '${v.reps}'`);
  const ptxasProbe = await probePtxas(v.ptxas?.[0]).catch(() => undefined);
  const planPtx = modulePtxFor(target, ptxasProbe?.maxPtx ?? target.maxPtx ?? '9.0') ?? target.minPtx;
  const keep = v.filter ? compileFilter(v.filter) : () => true;
  const singleIds =
    only === 'contend'
      ? []
      : gpuPlan(target.name, planPtx, SINGLE_FILTER)
          .variants.map((x) => x.entry.id)
          .filter(keep);
  const contention = only === 'single' ? { groups: [], missing: [] } : peerContentionGroups(target.name, planPtx, v.filter);
  if (!singleIds.length && !contention.groups.length) throw new UsageError(`no peer job matches --filter '${v.filter}'`);
  const refusal = peerEnvironmentRefusal(process.env);
  if (v['plan-only']) {
    io.out('devices: 0 launches every kernel; 1 holds the peer memory (and runs the second half of each contention group)');
    io.out(
      'peer link, checked before anything runs: cuDeviceCanAccessPeer 0 -> 1 and 1 -> 0 (both needed), cuCtxEnablePeerAccess both ways; recorded: cuDeviceGetP2PAttribute 0 -> 1 performance rank, access supported, native atomics supported, CUDA array access',
    );
    io.out(`environment: ${refusal ? `a run would be refused here: ${refusal}` : 'NVLink multicast kept off (a run is allowed)'}`);
    for (const id of singleIds) io.out(`${id}\tsingle\tlocal (memory on 0) and peer (memory on 1)`);
    for (const g of contention.groups)
      io.out(
        `${peerGroupId(g)}\tcontend\t${g.onFirst} CTA(s) on 0 + ${g.set.b.length - g.onFirst} on 1, memory on 1, ${g.atomic ? 'must be atomic (.sys)' : 'may lose updates'}`,
      );
    io.out(
      `${singleIds.length} single-thread variants (x2: local and peer; ${generated} generated cases each plus the library), ${contention.groups.length} cross-GPU contention groups x ${reps} addresses x 2 launches (PTX ISA ${planPtx}${ptxasProbe ? `, ${ptxasProbe.versionLine}` : ', no ptxas found'})`,
    );
    return 0;
  }
  // refused before any driver call: the environment, then the devices and the link
  if (refusal) throw new UsageError(refusal);
  const backend = await gpuFor(target, 'peer runs', 'Its judges are tested on CPU (tests/peer/); --plan-only lists the jobs without a GPU', v.ptxas?.[0]);
  const loaded = loadLauncher();
  if (!('launcher' in loaded)) throw new UsageError(loaded.reason);
  const l: Launcher = loaded.launcher;
  const { devices, driverVersion } = probeDevices(l);
  if (devices.length < 2)
    throw new UsageError(`peer needs two devices; this machine has ${devices.length} (${devices.map((d) => `${d.ordinal}: ${d.name}`).join('; ') || 'none'})`);
  if (!l.peerLink || !l.peerEnable) throw new UsageError('this cuda_launcher.node has no peer calls (built before native/src/peer.cc): run npm rebuild');
  const link: PeerLinkInfo = l.peerLink(0, 1);
  const back: PeerLinkInfo = l.peerLink(1, 0);
  if (!link.canAccess[0] || !link.canAccess[1])
    throw new UsageError(
      `no peer access between devices 0 (${devices[0]!.name}) and 1 (${devices[1]!.name}): cuDeviceCanAccessPeer says ${link.canAccess[0] ? 'yes' : 'no'} (0 -> 1) and ${link.canAccess[1] ? 'yes' : 'no'} (1 -> 0)`,
    );
  l.useDevice(0);
  l.peerEnable(0, 1);
  const ptx = modulePtxFor(target, backend.ptxas!.maxPtx)!;
  const started = new Date();
  const dir = prepareReportDir(v.report, 'peer-', started, (l) => io.err(l), { overwrite: v.overwrite ?? false });
  io.err(
    `peer: kernels on 0 (${devices[0]!.name}), memory on 1 (${devices[1]!.name}); link 0 -> 1: ${ATTRS.map((a) => `${a} ${link.attributes[a]}`).join(', ')}`,
  );
  const t0 = performance.now();
  const runs: RunSummary[] = [];
  const singleSeconds: Record<string, number> = {};
  if (singleIds.length) {
    const filterArg = v.filter ? singleIds.join(',') : SINGLE_FILTER;
    const sub: Io = { out: (s) => io.err(`  ${s}`), err: (s) => io.err(`  ${s}`), isTTY: false };
    for (const memory of ['local', 'peer'] as const) {
      const ts = performance.now();
      io.err(`peer: single-thread cases, memory ${memory === 'peer' ? 'on device 1 (peer)' : 'on device 0 (local)'}`);
      // the main run on the gpu backend, its cases' memory on device 1 for the peer half
      const opts = runOptions({
        backend: 'gpu',
        arch: target.name,
        filter: filterArg,
        generated,
        generatedGiven: true,
        report: join(dir, memory),
        overwrite: v.overwrite ?? false,
        cacheDir: resolveCacheDir(v['cache-dir']),
        ptxas: v.ptxas?.length ? [v.ptxas[0]!] : [],
        specEdition: edition,
      });
      let report: RunReport | undefined;
      const code = await run(opts, ['npm', 'run', 'conformance', '--', 'peer', ...argv], sub, {
        ...(memory === 'peer' ? { memoryDevice: 1 } : {}),
        onReport: (r) => (report = r),
      });
      singleSeconds[memory] = (performance.now() - ts) / 1000;
      if (code === 2 || !report) throw new UsageError(`the ${memory} single-thread run stopped (exit ${code}); its output is above`);
      runs.push(summariseRun(report, join(dir, memory), memory, memory === 'peer' ? 1 : 0, code));
    }
  }
  let cont: Awaited<ReturnType<typeof runPeerContention>> | undefined;
  if (contention.groups.length) {
    io.err(`peer: ${contention.groups.length} contention groups across the two devices`);
    cont = await runPeerContention(l, {
      arch: target.name,
      ptx,
      ptxas: backend.ptxas!,
      cacheDir: resolveCacheDir(v['cache-dir']),
      ...(v.filter ? { filter: v.filter } : {}),
      reps,
      second: 1,
      onProgress: (m) => io.err(m),
    });
  }
  const seconds = (performance.now() - t0) / 1000;
  const cmp = runs.length === 2 ? compareRuns(runs[0]!, runs[1]!) : undefined;
  const json = {
    schema: 'ptx-reduction-conformance/peer',
    startedAt: started.toISOString(),
    command: ['npm', 'run', 'conformance', '--', 'peer', ...argv],
    arch: target.name,
    modulePtx: ptx,
    toolchain: toolchainOf(backend),
    driverVersion,
    devices: devices.map((d) => ({
      ordinal: d.ordinal,
      name: d.name,
      cc: d.cc,
      smCount: d.smCount,
      role: d.ordinal === 0 ? 'launches every kernel; local memory' : d.ordinal === 1 ? 'peer memory (and the second half of each contention group)' : 'unused',
    })),
    link: { '0->1': link, '1->0': back },
    rules: [PEER_RULES.sysIncludesPeer, PEER_RULES.gpuExcludesPeer, CONTENTION_RULES.atomic, CONTENTION_RULES.split],
    single: runs.map((r) => ({
      memory: r.memory,
      memoryDevice: `${r.memoryDevice}: ${devices[r.memoryDevice]!.name}`,
      launchDevice: `0: ${devices[0]!.name}`,
      exitCode: r.exitCode,
      report: r.report,
      seconds: singleSeconds[r.memory],
      stats: r.stats,
      counts: r.counts,
      notPassing: r.bad,
    })),
    ...(cmp ? { compare: { keptInBoth: cmp.both, differ: cmp.differ } } : {}),
    ...(cont
      ? { contention: { seconds: cont.seconds, compileSeconds: cont.compileSeconds, reps, groups: contentionJson(cont.outcomes), sass: cont.sass } }
      : {}),
    totalSeconds: seconds,
  };
  const file = join(dir, 'peer.json.gz');
  writeFileSync(file, gzipSync(JSON.stringify(json)));
  for (const r of runs)
    io.out(
      `single ${r.memory.padEnd(5)} (memory on ${r.memoryDevice}): exit ${r.exitCode}; cases ${String(r.stats.cases)}; ${JSON.stringify((r.counts as { byKind?: { case?: unknown } }).byKind?.case ?? {})}; not passing: ${r.bad.length}${r.bad.length ? ` (e.g. ${r.bad[0]!.id}: ${r.bad[0]!.verdict})` : ''}`,
    );
  if (cmp)
    io.out(
      `single local vs peer: ${cmp.both} kept cases in both, ${cmp.differ.length} differ in bits or verdict${cmp.differ.length ? ` (e.g. ${cmp.differ[0]!.id})` : ''}`,
    );
  let contBad = false;
  if (cont) {
    io.out('scope    groups  pass  observed  mismatch  error  groups-losing  addresses-lost  overlapped  spin-timeouts');
    for (const scope of ['sys', 'gpu', ''] as const) {
      const xs = cont.outcomes.filter((x) => x.group.scope === scope);
      const c = (vv: string) => xs.filter((x) => x.outcome.verdict === vv).length;
      io.out(
        `${(scope || 'default').padEnd(8)} ${String(xs.length).padStart(6)} ${String(c('pass')).padStart(5)} ${String(c('observed')).padStart(9)} ${String(c('mismatch')).padStart(9)} ${String(c('error')).padStart(6)} ${String(xs.filter((x) => x.outcome.lostUpdates).length).padStart(14)} ${String(xs.reduce((t, x) => t + x.outcome.lostUpdates, 0)).padStart(15)} ${String(xs.filter((x) => x.overlap.firstSawSecondMid + x.overlap.secondSawFirstMid > 0).length).padStart(11)} ${String(xs.reduce((t, x) => t + x.overlap.spinTimeouts, 0)).padStart(14)}`,
      );
    }
    for (const x of cont.outcomes.filter((y) => y.outcome.verdict === 'mismatch' || y.outcome.verdict === 'error').slice(0, 20))
      io.out(`contend ${x.id}: ${x.outcome.verdict}: ${x.outcome.outcomes.find((o) => o.verdict !== 'pass')?.reason ?? ''}`.slice(0, 400));
    contBad = cont.outcomes.some((x) => x.outcome.verdict === 'mismatch' || x.outcome.verdict === 'error');
  }
  io.out(
    `peer seconds: ${seconds.toFixed(2)} (single ${
      Object.entries(singleSeconds)
        .map(([k, s]) => `${k} ${s.toFixed(2)}`)
        .join(', ') || 'not run'
    }; contention ${cont ? `compile ${cont.compileSeconds.toFixed(2)}, run and judge ${cont.seconds.toFixed(2)}` : 'not run'})`,
  );
  io.out(`report: ${file}`);
  return runs.some((r) => r.exitCode !== 0) || contBad ? 1 : 0;
}
