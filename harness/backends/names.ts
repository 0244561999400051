/** The backends `--backend` names (kept apart from select.ts, which loads the driver and toolchain probes). */
/** `multicast` is never chosen by auto: it runs only when named, with --allow-multicast (issue 15). */
export const BACKENDS = ['auto', 'reference', 'ptxas', 'gpu', 'multicast'] as const;
export type BackendName = (typeof BACKENDS)[number];
