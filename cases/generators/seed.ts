/** The default seed of generated cases (recorded in every report; `--seed` changes it). */
export const DEFAULT_SEED = 20261121;
