/**
 * The peer command's safety check and the executor's switch to peer memory.
 *
 * Peer memory uses peer mappings only (cuCtxEnablePeerAccess between primary contexts); it never
 * creates a multicast object. Still, it runs only in a process whose environment keeps NVLink
 * multicast off for NCCL, NVSHMEM and PyTorch (the three settings of MULTICAST_VETOES, each at its
 * forbidding value): a host shared by several users sets them, and a run without them may be on a
 * host where someone could turn multicast on. Without all three the command refuses (exit 2), before
 * any driver call.
 *
 * PTXCONF_MEMORY_DEVICE=<ordinal> tells a gpu worker (harness/backends/gpu/worker.ts) to place the
 * cases' memory (buffer 0, the one atom/red update) on that device, peer access enabled both ways,
 * while its kernels run on device 0.
 */
import { MULTICAST_VETOES } from '../backends/multicast/guard.js';
import type { Launcher } from '../backends/gpu/driver.js';

/** Why the environment does not allow a peer run, or undefined when all three settings are there. */
export function peerEnvironmentRefusal(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const missing = MULTICAST_VETOES.filter((v) => env[v.name] !== v.value);
  if (!missing.length) return undefined;
  return `the peer command runs only where NVLink multicast is kept off in this process's environment (${MULTICAST_VETOES.map((v) => `${v.name}=${v.value}`).join(', ')}); ${missing.map((v) => `${v.name} is ${env[v.name] === undefined ? 'not set' : `'${env[v.name]}'`}`).join(', ')}. Set them (export ${MULTICAST_VETOES.map((v) => `${v.name}=${v.value}`).join(' ')}) and run again; peer memory never creates a multicast object, but a multi-GPU host must not be left where one could be made`;
}

/** The environment variable a gpu worker reads: the device that holds the cases' memory. */
export const MEMORY_DEVICE_ENV = 'PTXCONF_MEMORY_DEVICE';

/**
 * In a gpu worker: the device that holds the cases' memory when PTXCONF_MEMORY_DEVICE names one
 * (peer access enabled both ways between it and device 0), else undefined. Throws with the reason
 * when the environment or the devices do not allow it.
 */
export function peerMemoryDevice(l: Launcher, env: Readonly<Record<string, string | undefined>> = process.env): number | undefined {
  const v = env[MEMORY_DEVICE_ENV];
  if (v === undefined || v === '' || v === '0') return undefined;
  const refusal = peerEnvironmentRefusal(env);
  if (refusal) throw new Error(refusal);
  const d = Number(v);
  if (!Number.isInteger(d) || d < 1) throw new Error(`${MEMORY_DEVICE_ENV} must be a device ordinal, got '${v}'`);
  if (!l.peerLink || !l.peerEnable || !l.memAllocOn)
    throw new Error('this cuda_launcher.node has no peer calls (built before native/src/peer.cc): run npm rebuild');
  const link = l.peerLink(0, d);
  if (!link.canAccess[0] || !link.canAccess[1])
    throw new Error(
      `no peer access between devices 0 and ${d}: cuDeviceCanAccessPeer says ${link.canAccess[0] ? 'yes' : 'no'} (0 -> ${d}), ${link.canAccess[1] ? 'yes' : 'no'} (${d} -> 0)`,
    );
  l.peerEnable(0, d);
  return d;
}
