/**
 * The multicast backend's safety checks, in the order issue 15 fixes, before any driver call that
 * creates anything: the user's explicit flag; the variables with which NCCL, NVSHMEM and PyTorch
 * are told to keep NVLink multicast off (a host that sets them says multicast must not be used);
 * at least two devices that report CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 1 (attribute queries
 * create nothing). Creating a multicast object on a shared multi-GPU host can take every GPU out
 * of service for days, so every failed check refuses the run with exit 2.
 */

/** The environment settings that forbid multicast: name, the value that forbids it, whose it is. */
export const MULTICAST_VETOES: readonly { readonly name: string; readonly value: string; readonly owner: string }[] = [
  { name: 'NCCL_NVLS_ENABLE', value: '0', owner: 'NCCL' },
  { name: 'NVSHMEM_DISABLE_NVLS', value: '1', owner: 'NVSHMEM' },
  { name: 'TORCH_SYMM_MEM_DISABLE_MULTICAST', value: '1', owner: 'PyTorch symmetric memory' },
];

/** What the device check sees: each device with its multicast attribute, or why none could be asked. */
export type DeviceSurvey =
  | { readonly devices: readonly { readonly ordinal: number; readonly name: string; readonly multicastSupported: boolean }[] }
  | { readonly unavailable: string };

export interface GuardInput {
  /** Whether the user gave the flag that allows multicast on this run. */
  readonly allowed: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Asked only when the checks before it pass (it loads the driver). */
  readonly survey: () => DeviceSurvey;
}

export interface Refusal {
  readonly check: 'flag' | 'environment' | 'devices';
  readonly reason: string;
}

/** The first check that fails, or the devices a run may bind (two or more, multicast supported). */
export function multicastGuard(g: GuardInput): { refused: Refusal } | { devices: number[] } {
  if (!g.allowed) {
    return {
      refused: {
        check: 'flag',
        reason:
          'the multicast backend creates a multicast object bound to several GPUs, which on a shared multi-GPU host can take every GPU out of service; it runs only with --allow-multicast, on a machine you own (an NVSwitch system with fabric manager running). --plan-only shows what it would do and changes nothing',
      },
    };
  }
  const vetoes = MULTICAST_VETOES.filter((v) => g.env[v.name] === v.value);
  if (vetoes.length) {
    return {
      refused: {
        check: 'environment',
        reason: `${vetoes.map((v) => `${v.name}=${v.value}`).join(', ')} ${vetoes.length > 1 ? 'are' : 'is'} set: this host tells ${vetoes.map((v) => v.owner).join(', ')} to keep NVLink multicast off, so the multicast backend does not run here`,
      },
    };
  }
  const s = g.survey();
  if ('unavailable' in s) return { refused: { check: 'devices', reason: `cannot ask the devices whether they support multicast: ${s.unavailable}` } };
  const ok = s.devices.filter((d) => d.multicastSupported);
  if (ok.length < 2) {
    const seen = s.devices.length
      ? s.devices.map((d) => `${d.ordinal}: ${d.name} (multicast ${d.multicastSupported ? 'supported' : 'not supported'})`).join('; ')
      : 'no device';
    return {
      refused: {
        check: 'devices',
        reason: `multimem needs at least 2 devices reporting CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 1; this machine has ${ok.length} (${seen})`,
      },
    };
  }
  return { devices: ok.map((d) => d.ordinal) };
}
