/**
 * Fault isolation on a real GPU: a launch with one faulting case and a launch with one endless
 * case, run through runIsolated. Exit 0 only if exactly the culprits are errors (with the CUDA error
 * name, or the time limit) and every other case has its result. Usage (bundle):
 * node isolation.mjs ISOLATION.cubin EXECUTOR.mjs OUT.json
 */
import { writeFileSync } from 'node:fs';
import { runIsolated } from '../../harness/backends/gpu/isolate.js';
import { loadLauncher } from '../../harness/backends/gpu/driver.js';

const [cubin, executor, outPath] = process.argv.slice(2);
const loaded = loadLauncher();
if (!('launcher' in loaded) || !loaded.launcher.status().driver) {
  console.log(`skipped: ${'launcher' in loaded ? loaded.launcher.status().reason : loaded.reason}`);
  process.exit(0);
}
const hex = (v: number) => `0x${v.toString(16).padStart(8, '0')}`;
const mk = (n: number, marked: number, mark: number) =>
  Array.from({ length: n }, (_, i) => ({ memory: [hex(1000 + i)], b: [hex(i === marked ? mark : i + 1)] }));
const launches = [
  { kernel: 'fault_if_marked', width: 32, lanes: 1, clustered: false, cases: mk(40, 17, 0xdead) },
  { kernel: 'endless_if_marked', width: 32, lanes: 1, clustered: false, cases: mk(30, 5, 0xbeef) },
  { kernel: 'fault_if_marked', width: 32, lanes: 1, clustered: false, cases: mk(8, -1, 0) },
];
const t0 = Date.now();
const r = await runIsolated(launches, { executor: [process.execPath, executor!], cubin: cubin!, timeoutMs: 8000 });
const problems: string[] = [];
r.outcomes.forEach((cases, li) =>
  cases.forEach((o, ci) => {
    const culprit = (li === 0 && ci === 17) || (li === 1 && ci === 5);
    if (culprit) {
      if (!('error' in o)) problems.push(`launch ${li} case ${ci}: expected an error`);
      else if (li === 0 && !/ILLEGAL_ADDRESS/.test(o.error)) problems.push(`launch 0 case 17: error '${o.error}' is not an illegal address`);
      else if (li === 1 && !/no answer within/.test(o.error)) problems.push(`launch 1 case 5: error '${o.error}' is not the time limit`);
    } else if ('error' in o) problems.push(`launch ${li} case ${ci}: unexpected error ${o.error}`);
    else {
      const b = BigInt(launches[li]!.cases[ci]!.b[0]!);
      const want = hex(1000 + ci + Number(b));
      if (o.memory[0] !== want || o.returned[0] !== hex(1000 + ci))
        problems.push(`launch ${li} case ${ci}: memory ${o.memory[0]} (want ${want}), returned ${o.returned[0]}`);
    }
  }),
);
const doc = {
  at: new Date().toISOString(),
  elapsedMs: Date.now() - t0,
  children: r.children,
  splits: r.splits,
  culprits: { fault: r.outcomes[0]![17], endless: r.outcomes[1]![5] },
  problems,
};
writeFileSync(outPath!, `${JSON.stringify(doc, null, 1)}\n`);
console.log(JSON.stringify(doc));
process.exit(problems.length ? 1 : 0);
