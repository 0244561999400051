/** A sample of the default GPU run's variants and a digest of their library cases (scripts/record-library-cases.ts). */
import { createHash } from 'node:crypto';
import { gpuPlan } from '../../harness/backends/gpu/plan.js';
import { libraryCases } from '../../harness/backends/gpu/library.js';
import { WIDE_LIBRARY_BYTES } from '../../harness/backends/gpu/placement.js';
import type { CaseVariant } from '../../harness/case-readers/types.js';

/** Every 97th variant of sm_90's default GPU plan (PTX ISA 8.8), as the workers receive it. */
export function librarySample(): CaseVariant[] {
  return gpuPlan('sm_90', '8.8')
    .variants.filter((_, i) => i % 97 === 0)
    .map((gv) => ({ family: gv.entry.family, q: gv.entry.q, ptx: gv.entry.ptx, id: gv.entry.id }) as CaseVariant);
}

/** Every 7th variant of the same plan with wide library cases (a bulk family), with each wide size (WIDE_LIBRARY_BYTES). */
export function wideSample(): { v: CaseVariant; bytes: number }[] {
  return gpuPlan('sm_90', '8.8')
    .variants.filter((gv) => gv.gpu.wide)
    .filter((_, i) => i % 7 === 0)
    .flatMap((gv) =>
      WIDE_LIBRARY_BYTES.map((bytes) => ({ v: { family: gv.entry.family, q: gv.entry.q, ptx: gv.entry.ptx, id: gv.entry.id } as CaseVariant, bytes })),
    );
}

/** sha256 over the variant's library cases (seed 1): each case's id and its inputs' bits. */
export function libraryDigest(v: CaseVariant, caseBytes?: number): string {
  const h = createHash('sha256');
  for (const c of libraryCases(v, 1, caseBytes)) h.update(`${c.id} ${JSON.stringify(c.input, (_, x) => (typeof x === 'bigint' ? x.toString(16) : x))}\n`);
  return h.digest('hex');
}
