/** The backends `--backend` names (kept apart from select.ts, which loads the driver and toolchain probes). */
export const BACKENDS = ['auto', 'reference', 'ptxas', 'gpu'] as const;
export type BackendName = (typeof BACKENDS)[number];
