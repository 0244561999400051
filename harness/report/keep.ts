/**
 * Cases whose results a report keeps whole even when they pass: the first this many of a run. Past
 * them a backend keeps only what is not a plain pass and counts the rest in stats.total.* (the
 * reference backend and the gpu backend's given cases alike), so that a vector file of millions of
 * cases writes a report of a few MB. A module of its own, so that --help states it without loading
 * the report writers.
 */
export const KEEP_WHOLE = 20_000;
