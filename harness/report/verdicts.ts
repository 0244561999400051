/** The verdicts a result can have, and what each means (types.ts re-exports them; tally.ts counts them). */
export const VERDICTS = ['pass', 'mismatch', 'known-deviation', 'observed', 'compile-mismatch', 'error', 'skipped'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What each verdict means; printed by --help and in the README. */
export const VERDICT_MEANING: Readonly<Record<Verdict, string>> = {
  pass: 'the backend did what the spec catalog and the reference say',
  mismatch: 'observed bits differ from every outcome the reference allows',
  'known-deviation': 'a mismatch listed in cases/expectations/<arch>.yaml with its reason',
  observed: 'the spec leaves this open (ambiguous rule, unspecified bits); what the backend did is recorded',
  'compile-mismatch': 'the catalog says valid and ptxas rejects, or the catalog says invalid and ptxas accepts',
  error: 'the backend failed to produce a result (tool crash, launch fault); the cause is recorded',
  skipped: 'not checked, with the reason (toolchain too old, arch not executable here, no GPU, no multicast)',
};
