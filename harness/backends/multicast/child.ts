/**
 * The multicast executor's child process (as the gpu backend's executor child): it reads a job file,
 * runs the cases on the native binding (or, for tests, on a stand-in the job file configures), and
 * writes the results. SIGINT and SIGTERM stop it between launches: the job in progress releases
 * everything it created (unmap, unbind, release physical memory and the multicast object) before
 * the results so far are written and the child exits 130. A fault kills only this process; the
 * driver then releases what the process held.
 *
 *   node child.mjs JOB.json OUT.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { runMulticastCases } from './backend.js';
import { multicastGuard } from './guard.js';
import { surveyDevices } from './survey.js';
import type { MulticastDriver } from './driver.js';
import { NativeMulticast, loadMulticastBinding } from './native.js';
import { StandInMulticast } from './standin.js';
import { type ChildJob, type ChildResult, decodeCases } from './wire.js';
import { registerAllFamilies } from '../../families/index.js';

async function main(): Promise<number> {
  registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families
  const [jobPath, outPath] = process.argv.slice(2);
  const job = JSON.parse(readFileSync(jobPath!, 'utf8')) as ChildJob;
  let stop = false;
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => (stop = true));
  let drv: MulticastDriver;
  if (job.standIn) drv = new StandInMulticast(job.standIn);
  else {
    // the guard again, in the process that creates the objects: the harness's decision (the flag),
    // this process's environment, the devices as the driver reports them now
    const g = multicastGuard({ allowed: job.allowed === true, env: process.env, survey: surveyDevices });
    if ('refused' in g) throw new Error(`refused before loading the multicast binding: ${g.refused.reason}`);
    const extra = job.devices.filter((d) => !g.devices.includes(d));
    if (extra.length) throw new Error(`refused before loading the multicast binding: device(s) ${extra.join(', ')} do not report multicast support`);
    const l = loadMulticastBinding();
    if ('reason' in l) throw new Error(l.reason);
    const st = l.binding.status();
    if (!st.driver) throw new Error(st.reason ?? 'no CUDA driver');
    drv = new NativeMulticast(l.binding, job.ptxasPath, job.target, `cuda (${l.path})`);
  }
  const r = await runMulticastCases({
    driver: drv,
    devices: job.devices,
    cases: decodeCases(job.cases),
    launches: job.launches,
    ptxIsa: job.ptxIsa,
    target: job.target,
    stop: () => stop,
  });
  const out: ChildResult = { driver: drv.name, ...r, ...(drv instanceof StandInMulticast ? { live: [...drv.live.values()] } : {}) };
  writeFileSync(outPath!, JSON.stringify(out));
  return r.interrupted ? 130 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`multicast child: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(3);
  },
);
